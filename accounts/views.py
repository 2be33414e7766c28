"""Thin viewsets: validate, call one service or selector, serialize."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework import status, viewsets
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from toolkit.api.fastpath import fast_path, json_response
from toolkit.api.schema import api_errors
from toolkit.api.throttles import SlidingWindowThrottle, WriteLimited
from toolkit.errors import NotAuthenticated

from . import selectors, services, tokens
from .authentication import authenticated_id
from .serializers import (
    CodeSentSerializer,
    LoginResponseSerializer,
    LoginSerializer,
    MeSerializer,
    PhoneSerializer,
    ProfileUpdateSerializer,
    PublicUserSerializer,
    UserInfoSerializer,
    UserInfoUpdateSerializer,
)


class SmsCodeIpThrottle(SlidingWindowThrottle):
    scope = "sms_ip"


class LoginIpThrottle(SlidingWindowThrottle):
    scope = "login_ip"


class AuthViewSet(viewsets.ViewSet):
    @extend_schema(request=PhoneSerializer, responses={202: CodeSentSerializer})
    @api_errors(503)  # the SMS provider failed
    def send_code(self, request: Request) -> Response:
        """Text a 6-digit login code (valid 2 minutes) to a mainland mobile number."""
        serializer = PhoneSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.auth_code_send(phone=serializer.validated_data["phone"])
        return Response({"expires_in": settings.AUTH_CODE_TTL}, status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=LoginSerializer, responses={200: LoginResponseSerializer})
    @api_errors(403, 409)  # account disabled; the phone belongs to a staff-only account
    def login(self, request: Request) -> Response:
        """Exchange phone + code for a bearer token; unknown phones get a new account."""
        serializer = LoginSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        token, user = services.auth_login(**serializer.validated_data)
        return Response({"token": token, "user": PublicUserSerializer(user).data})

    @extend_schema(request=None, responses={204: None})
    def logout(self, request: Request) -> Response:
        """Revoke the token this request carries."""
        token = request.auth
        assert isinstance(token, str)  # RedisTokenAuthentication's: the bearer token
        services.auth_logout(token=token, user_id=authenticated_id(request))
        return Response(status=status.HTTP_204_NO_CONTENT)

    def get_throttles(self):
        throttles = {"send_code": SmsCodeIpThrottle, "login": LoginIpThrottle}
        throttle = throttles.get(self.action)
        return [throttle()] if throttle else []

    def get_permissions(self):
        return [IsAuthenticated()] if self.action == "logout" else []


class UserViewSet(viewsets.ViewSet):
    @extend_schema(responses={200: PublicUserSerializer})
    def retrieve(self, request: Request, user_id: int) -> Response:
        """A user's public data."""
        return Response(PublicUserSerializer(selectors.user_get(user_id=user_id)).data)

    @extend_schema(responses={200: UserInfoSerializer})
    def info(self, request: Request, user_id: int) -> Response:
        """A user's public profile: city, introduction, fans, followees, level..."""
        return Response(UserInfoSerializer(selectors.user_info_get(user_id=user_id)).data)


class MeViewSet(viewsets.ViewSet):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=ProfileUpdateSerializer, responses={200: MeSerializer})
    def partial_update(self, request: Request) -> Response:
        """Change nick name and/or icon."""
        serializer = ProfileUpdateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = services.user_update_profile(
            user_id=authenticated_id(request), **serializer.validated_data
        )
        return Response(MeSerializer(user).data)


class MeInfoViewSet(WriteLimited, viewsets.ViewSet):
    permission_classes = [IsAuthenticated]
    write_limits = {"partial_update": "profile_user"}

    @extend_schema(request=UserInfoUpdateSerializer, responses={200: UserInfoSerializer})
    def partial_update(self, request: Request) -> Response:
        """Change your profile: `city`, `introduce`, `gender` (`unspecified`, `male`,
        `female`), `birthday` (YYYY-MM-DD, 1900 to today; null clears it). Fields left
        out stay as they are; `GET /api/users/{id}/info` shows the result at once."""
        serializer = UserInfoUpdateSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        user_id = authenticated_id(request)
        selectors.me_get(user_id=user_id)  # a disabled account: 401
        info = services.user_info_update(user_id=user_id, **serializer.validated_data)
        return Response(UserInfoSerializer(info).data)


@fast_path("GET", "retrieve", viewset=MeViewSet, actions={"patch": "partial_update"})
@extend_schema(responses={200: MeSerializer})
def me_view(request: HttpRequest) -> HttpResponse:
    """The caller, with their own phone number masked."""
    # From the token's own data: the refresh every request makes is the whole read (the
    # token carries what `me` shows, kept current by accounts.signals).
    viewer, _ = tokens.touch_with(request)
    if viewer is None:
        raise NotAuthenticated()
    if "phone" not in viewer:  # a token issued before tokens carried the phone
        return json_response(MeSerializer(selectors.me_get(user_id=viewer["id"])).data)
    return json_response({name: viewer[name] for name in ("id", "nick_name", "icon", "phone")})
