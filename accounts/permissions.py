from __future__ import annotations

from typing import Any

from rest_framework.permissions import BasePermission

from .selectors import is_site_staff


class IsStaff(BasePermission):
    """Staff-only API endpoints: checked against the database, so revoking staff is immediate."""

    schema_errors = (401, 403)  # what the OpenAPI schema lists (toolkit.api.schema)

    def has_permission(self, request: Any, view: Any) -> bool:
        user = request.user
        if not getattr(user, "is_authenticated", False):
            return False
        return is_site_staff(user_id=user.id)
