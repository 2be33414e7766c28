"""The OpenAPI schema tells the truth (docs/product/api.md#the-schema): page shapes as
they are sent, and each operation's error responses, derived from what the operation is:

  400  it takes a body or query parameters (validation, malformed JSON)
  401  its permissions need a login; 403 when they need more (a permission class says
       so with `schema_errors`, e.g. accounts' IsStaff: (401, 403))
  404  its path names something
  413, 415  it takes a body (too large, not JSON)
  429  it has throttles
  503  always: Redis (or a lock, a picture worker) may be unavailable for a moment
plus what an action declares with `@api_errors(...)` (409s, a permission checked in
code, a limiter inside a service). Every error has the body `Error`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any, TypeVar

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import force_instance, is_list_serializer
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated

from toolkit.validation import MAX_DB_ID

F = TypeVar("F", bound=Callable[..., Any])
BODY_METHODS = ("POST", "PUT", "PATCH")
_POSITIVE = {"type": "integer", "minimum": 1, "maximum": MAX_DB_ID}
PAGE_PARAMETER = OpenApiParameter(
    "page", _POSITIVE, required=False, description="From 1; past the end: empty."
)
PAGE_PARAMETERS = [
    PAGE_PARAMETER,
    OpenApiParameter(
        "page_size",
        _POSITIVE,
        required=False,
        description="Larger ones are capped by the endpoint.",
    ),
]


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField(help_text="For people.")
    code = serializers.CharField(help_text="For programs: see each app's errors.py.")
    # DRF's metaclass moves declared fields out of the class: this one does not hide
    # Serializer.errors, as the stubs believe.
    errors = serializers.DictField(  # type: ignore[assignment]
        required=False, help_text="Field errors as DRF gives them (400 `invalid` only)."
    )

    class Meta:
        ref_name = "Error"


def api_errors(*statuses: int) -> Callable[[F], F]:
    """Declare the error statuses an action answers beyond those its shape implies."""

    def mark(action: F) -> F:
        action._api_errors = statuses  # type: ignore[attr-defined]
        return action

    return mark


@cache
def paged(item: type[serializers.Serializer]) -> type[serializers.Serializer]:
    """The page-number page of `item`s, as PageNumberPagination sends it."""
    return type(
        f"{item.__name__.removesuffix('Serializer')}PageSerializer",
        (serializers.Serializer,),
        {
            "count": serializers.IntegerField(),
            "next": serializers.URLField(allow_null=True),
            "previous": serializers.URLField(allow_null=True),
            "results": item(many=True),
            "__module__": item.__module__,
        },
    )


class ApiSchema(AutoSchema):
    def _is_list_view(self, serializer: Any = None) -> bool:
        """A list only when the response says `many=True`: our `list` actions declare their
        own page and scroll shapes, which drf-spectacular would wrap in an array again."""
        if serializer is None:
            serializer = self.get_response_serializers()
        if isinstance(serializer, dict) and serializer:
            serializer = serializer[min(serializer, key=str)]
        return is_list_serializer(serializer)

    def _insert_field_validators(self, field: Any, schema: dict[str, Any]) -> None:
        """drf-spectacular offers a blank-allowed string with a pattern as `oneOf` the
        pattern or `maxLength: 0`; our patterns admit "" themselves (fields.CharField), so
        "" would match both branches and fail `oneOf`. The pattern alone says it."""
        super()._insert_field_validators(field, schema)
        branches = schema.get("oneOf")
        if branches and branches[-1] == {"type": "string", "maxLength": 0}:
            inner = branches[0]
            if "pattern" in inner and re.fullmatch(inner["pattern"], ""):
                del schema["oneOf"]
                schema.update(inner)

    def _map_serializer(
        self, serializer: Any, direction: str, bypass_extensions: bool = False
    ) -> dict[str, Any]:
        """A body whose fields are valid only in some combinations says which, as its
        serializer's `schema_one_of` (a list of JSON Schema branches): `validate()` is code
        the schema cannot read, and a schema that admits what it refuses is a lie."""
        schema: dict[str, Any] = super()._map_serializer(serializer, direction, bypass_extensions)
        one_of = getattr(serializer, "schema_one_of", None)
        return {**schema, "oneOf": one_of} if one_of else schema

    def _get_request_for_media_type(
        self, serializer: Any, direction: str = "request"
    ) -> tuple[Any, bool]:
        """A body with `schema_one_of` is required: each of its branches requires a field,
        so no body at all is refused, and the schema must not offer it."""
        schema, required = super()._get_request_for_media_type(serializer, direction)
        return schema, required or bool(getattr(serializer, "schema_one_of", None))

    def get_operation_id(self) -> str:
        """`<path>_list` for list actions, as before they stopped counting as list views."""
        operation_id = super().get_operation_id()
        if getattr(self.view, "action", None) == "list" and operation_id.endswith("_retrieve"):
            return operation_id.removesuffix("_retrieve") + "_list"
        return operation_id

    def get_auth(self) -> list[dict[str, Any]]:
        """A token is optional wherever no permission needs a login: public operations
        work without one (docs/product/api.md#authentication) and refresh one that is sent."""
        auth = super().get_auth()
        if 401 not in self._permission_errors() and {} not in auth:
            auth.append({})
        return auth

    def get_operation(self, *args: Any, **kwargs: Any) -> dict[str, Any] | None:
        operation = super().get_operation(*args, **kwargs)
        if operation is None:
            return None
        self._merge_together(operation)
        error = {"content": {"application/json": {"schema": self._error_ref()}}}
        for status in sorted(self._error_statuses(operation)):
            operation["responses"].setdefault(
                str(status), {"description": _DESCRIPTIONS.get(status, "Refused."), **error}
            )
        return operation

    def _merge_together(self, operation: dict[str, Any]) -> None:
        """Query parameters that only make sense together (a query serializer's `together`:
        {"point": ("x", "y")}) become one exploded form object, `?x=..&y=..` on the wire:
        the one way OpenAPI 3.0 can say "both or neither"."""
        for override in self.get_override_parameters():
            for name, members in getattr(override, "together", {}).items():
                parameters = operation.get("parameters", [])
                parts = [p for p in parameters if p["in"] == "query" and p["name"] in members]
                operation["parameters"] = [p for p in parameters if p not in parts]
                operation["parameters"].append(
                    {
                        "name": name,
                        "in": "query",
                        "required": False,
                        "style": "form",
                        "explode": True,
                        "description": f"{' and '.join(members)} together, or neither.",
                        "schema": {
                            "type": "object",
                            "properties": {p["name"]: p["schema"] for p in parts},
                            "required": list(members),
                        },
                    }
                )

    def _error_ref(self) -> dict[str, Any]:
        component = self.resolve_serializer(ErrorSerializer, "response")
        return component.ref

    def _error_statuses(self, operation: dict[str, Any]) -> set[int]:
        statuses: set[int] = set(getattr(self._action(), "_api_errors", ()))
        statuses.add(503)  # Redis unreachable (toolkit/redis/outage.py), on any operation
        parameters = operation.get("parameters", [])
        if "requestBody" in operation or self.method in BODY_METHODS:
            statuses |= {400, 413, 415}
            if self._names_rows(self.get_request_serializer()):
                statuses.add(409)  # an id of no row (toolkit.api.fields.missing_reference)
        if any(p["in"] == "query" for p in parameters):
            statuses.add(400)
        if any(p["in"] == "path" for p in parameters):
            statuses.add(404)
        statuses |= self._permission_errors()
        if self.view.get_throttles():
            statuses.add(429)
        return statuses

    @staticmethod
    def _names_rows(serializer: Any) -> bool:
        """Whether the body has a field that names a row (its id may name none)."""
        fields = getattr(force_instance(serializer), "fields", {})
        return any(hasattr(field, "missing") for field in fields.values())

    def _permission_errors(self) -> set[int]:
        statuses: set[int] = set()
        for permission in self.view.get_permissions():
            if isinstance(permission, IsAuthenticated):
                statuses.add(401)
            statuses.update(getattr(permission, "schema_errors", ()))
        return statuses

    def _action(self) -> Any:
        action = getattr(self.view, "action", None)
        return getattr(self.view, action, None) if action else None


_DESCRIPTIONS = {
    400: "Invalid input (`invalid`, with field `errors`) or malformed JSON (`parse_error`).",
    401: "Not logged in, or the token expired (`not_authenticated`).",
    403: "Not allowed.",
    404: "No such thing, or not the caller's to see.",
    409: "The business state refuses it; `code` says why.",
    413: "Body too large (`payload_too_large`).",
    415: "Not JSON (`unsupported_media_type`).",
    429: "Rate limited (`throttled`); see Retry-After.",
    503: "A dependency (Redis, the database) is unavailable for a moment; see Retry-After.",
}
