"""Bearer-token authentication against Redis, one round trip per request.

Every request that carries a live token refreshes it, public endpoints
included, so an active user is never logged out mid-session. An unknown,
expired or malformed token makes the caller anonymous: public endpoints still
answer, protected ones return 401.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authentication import BaseAuthentication
from rest_framework.request import Request

from toolkit.errors import NotAuthenticated

from . import tokens


@dataclass(frozen=True, slots=True)
class TokenUser:
    """The caller as the token describes them; no database query needed."""

    id: int
    nick_name: str
    icon: str
    is_authenticated: ClassVar[bool] = True
    is_anonymous: ClassVar[bool] = False

    @property
    def pk(self) -> int:
        return self.id

    @classmethod
    def from_token_data(cls, data: dict[str, Any]) -> TokenUser:
        return cls(id=data["id"], nick_name=data["nick_name"], icon=data["icon"])


def authenticated_id(request: Request) -> int:
    """The caller's id, in a view that requires a signed-in caller (IsAuthenticated).

    DRF's stubs type `request.user` as the user model or AnonymousUser, whose id may be
    None; here it is a TokenUser, and an anonymous caller never gets this far.
    """
    user_id = request.user.id
    if user_id is None:
        raise NotAuthenticated()
    return user_id


class RedisTokenAuthentication(BaseAuthentication):
    def authenticate(self, request: Any) -> tuple[TokenUser, str] | None:
        token = tokens.bearer_token(request.META.get("HTTP_AUTHORIZATION", ""))
        if not token:
            return None
        data = tokens.token_touch(token)
        if data is None:
            return None
        return TokenUser.from_token_data(data), token

    def authenticate_header(self, request: Any) -> str:
        # Makes DRF answer 401 (not 403) to anonymous callers of protected endpoints.
        return 'Bearer realm="api"'


class RedisTokenScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.RedisTokenAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "The `token` of `POST /api/auth/login`, pasted alone: the docs "
            "add `Bearer `.",
        }
