from __future__ import annotations

from django.contrib import admin

from .models import Follow


@admin.register(Follow)
class FollowAdmin(admin.ModelAdmin):
    """Read-only: follows change through the API so counters and Redis stay in step."""

    list_display = ["id", "user", "followed", "created_at"]
    raw_id_fields = ["user", "followed"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
