"""Thin viewsets for follows."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, viewsets
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.serializers import PublicUserSerializer
from dianping.api.schema import api_errors
from dianping.api.throttles import WriteLimited

from . import services


class FollowingSerializer(serializers.Serializer):
    following = serializers.BooleanField()


class FollowViewSet(WriteLimited, viewsets.ViewSet):
    permission_classes = [IsAuthenticated]
    write_limits = {"update": "follow_user", "destroy": "follow_user"}

    @extend_schema(request=None, responses=FollowingSerializer)
    @api_errors(409)  # yourself
    def update(self, request: Request, user_id: int) -> Response:
        """Follow a user (idempotent); 409 `cannot_follow_self`, 404 for unknown users."""
        services.follow(user_id=request.user.id, target_id=user_id)
        return Response({"following": True})

    @extend_schema(responses={200: FollowingSerializer})
    def destroy(self, request: Request, user_id: int) -> Response:
        """Unfollow (idempotent); their blogs leave your feed. Yourself: nothing to undo."""
        services.unfollow(user_id=request.user.id, target_id=user_id)
        return Response({"following": False})

    @extend_schema(responses=FollowingSerializer)
    def retrieve(self, request: Request, user_id: int) -> Response:
        """Whether you follow this user."""
        return Response(
            {"following": services.is_following(user_id=request.user.id, target_id=user_id)}
        )

    @extend_schema(responses=PublicUserSerializer(many=True))
    def common(self, request: Request, user_id: int) -> Response:
        """Users that both you and this user follow."""
        users = services.common_follows(user_id=request.user.id, other_id=user_id)
        return Response(PublicUserSerializer(users, many=True).data)
