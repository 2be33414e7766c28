from __future__ import annotations

from typing import Any

from rest_framework.permissions import BasePermission

from .models import User


class IsStaff(BasePermission):
    """Staff-only API endpoints: checked against the database, so revoking staff is immediate."""

    def has_permission(self, request: Any, view: Any) -> bool:
        user = request.user
        if not getattr(user, "is_authenticated", False):
            return False
        return User.objects.filter(pk=user.id, is_staff=True, is_active=True).exists()
