from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from search import tasks as search_tasks

from . import services
from .models import User, UserInfo


class UserInfoInline(admin.StackedInline):
    model = UserInfo
    can_delete = False
    readonly_fields = ["fans", "followee"]  # kept exact by the follows service


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    list_display = ["id", "username", "phone", "nick_name", "is_staff", "is_active", "date_joined"]
    list_filter = ["is_staff", "is_active"]
    search_fields = ["username", "phone", "nick_name"]
    ordering = ["-id"]
    inlines = [UserInfoInline]
    actions = ["log_out_everywhere"]
    fieldsets = (
        *(DjangoUserAdmin.fieldsets or ()),  # Django's, never None
        (_("Dianping profile"), {"fields": ("phone", "nick_name", "icon")}),
    )

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        # A nick name, an introduction (the inline) or is_active may have changed.
        search_tasks.refresh_on_commit("users", obj.pk)

    @admin.action(description=_("Log out everywhere (revoke all login tokens)"))
    def log_out_everywhere(self, request, queryset):
        revoked = services.users_revoke_sessions(user_ids=queryset.values_list("pk", flat=True))
        message = ngettext(
            "Revoked %(count)s live token.", "Revoked %(count)s live tokens.", revoked
        ) % {"count": revoked}
        self.message_user(request, message, messages.SUCCESS)
