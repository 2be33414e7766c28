from __future__ import annotations

from django.contrib import admin

from .models import Notification, SaleWatch


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    """Read-only: notifications are made by their tasks, once per event."""

    list_display = ["id", "recipient", "kind", "actor", "count", "read_at", "created_at"]
    list_filter = ["kind"]
    raw_id_fields = ["recipient", "actor", "blog", "comment", "voucher"]
    list_select_related = ["recipient", "actor"]
    search_fields = ["recipient__phone", "recipient__nick_name"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(SaleWatch)
class SaleWatchAdmin(admin.ModelAdmin):
    list_display = ["id", "user", "voucher", "created_at", "notified_at"]
    raw_id_fields = ["user", "voucher"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
