"""Thin viewsets for follows; the followers and following lists are read without DRF
(toolkit.api.fastpath)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, viewsets
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import tokens
from accounts.authentication import authenticated_id
from accounts.serializers import PublicUserSerializer
from toolkit.api.fastpath import fast_path, json_response
from toolkit.api.queries import query_params
from toolkit.api.schema import api_errors
from toolkit.api.scroll import ScrollQuerySerializer, scroll_page, scrolled
from toolkit.api.throttles import WriteLimited
from toolkit.api.times import time_writer

from . import selectors, services


class FollowingSerializer(serializers.Serializer):
    following = serializers.BooleanField()


class FollowViewSet(WriteLimited, viewsets.ViewSet):
    permission_classes = [IsAuthenticated]
    write_limits = {"update": "follow_user", "destroy": "follow_user"}

    @extend_schema(request=None, responses=FollowingSerializer)
    @api_errors(409)  # yourself
    def update(self, request: Request, user_id: int) -> Response:
        """Follow a user (idempotent); 409 `cannot_follow_self`, 404 for unknown users."""
        services.follow(user_id=authenticated_id(request), target_id=user_id)
        return Response({"following": True})

    @extend_schema(responses={200: FollowingSerializer})
    def destroy(self, request: Request, user_id: int) -> Response:
        """Unfollow (idempotent); their blogs leave your feed. Yourself: nothing to undo."""
        services.unfollow(user_id=authenticated_id(request), target_id=user_id)
        return Response({"following": False})

    @extend_schema(responses=FollowingSerializer)
    def retrieve(self, request: Request, user_id: int) -> Response:
        """Whether you follow this user."""
        following = services.is_following(user_id=authenticated_id(request), target_id=user_id)
        return Response({"following": following})

    @extend_schema(responses=PublicUserSerializer(many=True))
    def common(self, request: Request, user_id: int) -> Response:
        """Users that both you and this user follow."""
        users = services.common_follows(user_id=authenticated_id(request), other_id=user_id)
        return Response(PublicUserSerializer(users, many=True).data)


class FollowItemSerializer(serializers.Serializer):
    user = PublicUserSerializer(help_text="The follower, or the user followed.")
    followed_at = serializers.DateTimeField()
    is_following = serializers.BooleanField(
        help_text="Whether the caller follows this user (false when not signed in)."
    )


# The lists without DRF (decision 304): the page from one query compiled once, then the
# caller's token refreshed with their follow states in one round trip (the states need
# the page's ids); each item as FollowItemSerializer writes it.


def _follow_list(request: HttpRequest, user_id: int, direction: str) -> HttpResponse:
    last_id = query_params(request, ScrollQuerySerializer).get("last_id")
    rows, next_last_id = selectors.follow_rows(
        user_id=user_id, direction=direction, last_id=last_id
    )
    others = [row[2] for row in rows]

    def reads(pipe: Any, viewer_id: int | None) -> None:
        selectors.queue_following_states(pipe, viewer_id, others)

    viewer, replies = tokens.touch_with(request, reads)
    states = selectors.read_following_states(replies, viewer["id"] if viewer else None, others)
    time = time_writer()
    items = [
        {
            "user": {"id": other_id, "nick_name": nick_name, "icon": icon},
            "followed_at": time(followed_at),
            "is_following": states[other_id],
        }
        for _, followed_at, other_id, nick_name, icon in rows
    ]
    return json_response(scroll_page(items, next_last_id))


@fast_path("GET", "followers", permission_classes=[AllowAny])
@extend_schema(parameters=[ScrollQuerySerializer], responses=scrolled(FollowItemSerializer))
def followers_view(request: HttpRequest, user_id: int) -> HttpResponse:
    """Who follows this user, newest follow first, 10 a page, scrolled by passing the
    previous page's `last_id`; `is_following` says whether you follow each of them."""
    return _follow_list(request, user_id, "followers")


@fast_path("GET", "following", permission_classes=[AllowAny])
@extend_schema(parameters=[ScrollQuerySerializer], responses=scrolled(FollowItemSerializer))
def following_view(request: HttpRequest, user_id: int) -> HttpResponse:
    """Whom this user follows, newest follow first, scrolled as `followers`."""
    return _follow_list(request, user_id, "following")
