from __future__ import annotations

from django.contrib import admin

from .models import Favourite


@admin.register(Favourite)
class FavouriteAdmin(admin.ModelAdmin):
    """Read-only: favourites change through the API so counts and Redis stay in step."""

    list_display = ["id", "user", "kind", "object_id", "created_at", "made_watch"]
    list_filter = ["kind"]
    raw_id_fields = ["user"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
