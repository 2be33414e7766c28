"""Thin viewsets: the caller's inbox, its unread count and marking read; watching a sale.
Every answer is personal: the middleware sends them `Cache-Control: no-store`."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import viewsets
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.authentication import authenticated_id
from dianping.api.lists import listed
from dianping.api.queries import query_params
from dianping.api.schema import api_errors
from dianping.api.scroll import ScrollQuerySerializer, scroll_page, scrolled
from dianping.api.throttles import WriteLimited

from . import selectors, services, watches
from .serializers import (
    MarkReadSerializer,
    NotificationSerializer,
    UnreadSerializer,
    WatchedSerializer,
    WatchingSerializer,
)


class NotificationViewSet(WriteLimited, viewsets.ViewSet):
    permission_classes = [IsAuthenticated]
    write_limits = {"mark_read": "notification_read_user"}

    @extend_schema(parameters=[ScrollQuerySerializer], responses=scrolled(NotificationSerializer))
    def list(self, request: Request) -> Response:
        """My notifications, 20 a page, newest first, scrolled by passing the previous
        page's `last_id`."""
        page, next_last_id = selectors.inbox_page(
            recipient_id=authenticated_id(request),
            last_id=query_params(request, ScrollQuerySerializer).get("last_id"),
        )
        return Response(scroll_page(listed(NotificationSerializer(page, many=True)), next_last_id))

    @extend_schema(responses=UnreadSerializer)
    def unread_count(self, request: Request) -> Response:
        """How many of my notifications are unread (for the bell's badge)."""
        return Response({"unread": selectors.unread_count(recipient_id=authenticated_id(request))})

    @extend_schema(request=MarkReadSerializer, responses=UnreadSerializer)
    def mark_read(self, request: Request) -> Response:
        """Mark some (`ids`) or all (`"all": true`) of my notifications read; answers the
        unread count left. Ids that are not mine change nothing."""
        serializer = MarkReadSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        services.notifications_mark_read(
            recipient_id=authenticated_id(request), ids=None if data.get("all") else data["ids"]
        )
        return Response({"unread": selectors.unread_count(recipient_id=authenticated_id(request))})


class SaleWatchViewSet(WriteLimited, viewsets.ViewSet):
    permission_classes = [IsAuthenticated]
    write_limits = {"update": "watch_user", "destroy": "watch_user"}

    @extend_schema(request=None, responses=WatchingSerializer)
    @api_errors(409)  # not_a_sale, sale_started
    def update(self, request: Request, voucher_id: int) -> Response:
        """Remind me when this flash sale is about to start (10 minutes before). Idempotent;
        409 `not_a_sale` for a normal voucher, `sale_started` once it has started."""
        watches.sale_watch(user_id=authenticated_id(request), voucher_id=voucher_id)
        return Response({"watching": True})

    @extend_schema(responses={200: WatchingSerializer})
    def destroy(self, request: Request, voucher_id: int) -> Response:
        """No reminder for this sale (idempotent)."""
        watches.sale_unwatch(user_id=authenticated_id(request), voucher_id=voucher_id)
        return Response({"watching": False})

    @extend_schema(responses=WatchedSerializer)
    def list(self, request: Request) -> Response:
        """The upcoming sales I watch."""
        return Response({"voucher_ids": watches.watched_sales(user_id=authenticated_id(request))})
