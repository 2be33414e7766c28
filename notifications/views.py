"""Thin viewsets: the caller's inbox, its unread count and marking read; watching a sale.
The inbox and the unread count are read without DRF (toolkit.api.fastpath): every
signed-in client polls the count. Every answer is personal: the middleware sends them
`Cache-Control: no-store`."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import viewsets
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import tokens
from accounts.authentication import authenticated_id
from toolkit.api.fastpath import fast_path, json_response
from toolkit.api.queries import query_params
from toolkit.api.schema import api_errors
from toolkit.api.scroll import ScrollQuerySerializer, scroll_page, scrolled
from toolkit.api.throttles import WriteLimited
from toolkit.api.times import time_writer
from toolkit.errors import DomainError, NotAuthenticated

from . import selectors, services, tickets, unread, watches
from .errors import Code
from .serializers import (
    EXCERPT,
    MarkReadSerializer,
    NotificationSerializer,
    StreamQuerySerializer,
    StreamTicketSerializer,
    UnreadSerializer,
    WatchedSerializer,
    WatchingSerializer,
)


class NotificationViewSet(WriteLimited, viewsets.ViewSet):
    permission_classes = [IsAuthenticated]
    write_limits = {"mark_read": "notification_read_user"}

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


class StreamTicketViewSet(WriteLimited, viewsets.ViewSet):
    permission_classes = [IsAuthenticated]
    write_limits = {"create": "stream_ticket_user"}

    @extend_schema(request=None, responses={201: StreamTicketSerializer})
    def create(self, request: Request) -> Response:
        """A ticket that opens my notification stream once, within `expires_in` seconds:
        `GET <url>?ticket=<ticket>` (an EventSource cannot send the Authorization header,
        and a login token in a URL would land in access logs)."""
        ticket = tickets.ticket_issue(str(request.auth))
        return Response(
            {
                "ticket": ticket,
                "url": settings.NOTIFICATIONS_STREAM_URL,
                "expires_in": tickets.TICKET_TTL,
            },
            status=201,
        )


class StreamElsewhere(DomainError):
    status_code = 421
    default_code = Code.STREAM_ELSEWHERE
    default_detail = _(
        "The notification stream is served by the stream process; route this path to it."
    )


class StreamViewSet(viewsets.ViewSet):
    """The stream's operation in the schema. Served by the stream process (notifications.
    stream); a request that reaches the WSGI app instead was routed wrong."""

    permission_classes: list = []

    @extend_schema(
        parameters=[
            StreamQuerySerializer,
            OpenApiParameter(
                "Last-Event-ID",
                str,
                OpenApiParameter.HEADER,
                description="The last event's `id`, sent by a browser that reconnects.",
            ),
        ],
        responses={
            (200, "text/event-stream"): OpenApiResponse(
                OpenApiTypes.STR,
                description="Server-sent events, each with `id:` (the newest notification "
                'id accounted for): `unread` (`{"unread": n}`) at the start and on every '
                "change, `notification` (an item as in GET /api/notifications) for each new "
                "one, and a `: keep-alive` comment on a quiet stream.",
            ),
        },
    )
    @api_errors(401, 421)
    def retrieve(self, request: Request) -> Response:
        """My unread count and new notifications as they happen (server-sent events), with
        my token (`Authorization: Bearer`) or a `ticket`. Served by the stream process: 421
        `stream_elsewhere` means this server was reached instead."""
        query = query_params(request, StreamQuerySerializer)
        if "ticket" not in query and not request.user.is_authenticated:
            raise NotAuthenticated()
        raise StreamElsewhere()


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


# The reads, without DRF (decisions 303, 304): the caller's token refreshed in the round
# trip that reads the cached unread count; the inbox page from one values query, each
# item as NotificationSerializer would write it (tests/notifications compare the two).


@fast_path("GET", "unread_count", viewset=NotificationViewSet)
@extend_schema(responses=UnreadSerializer)
def unread_count_view(request: HttpRequest) -> HttpResponse:
    """How many of my notifications are unread (for the bell's badge)."""
    viewer, replies = tokens.touch_with(request, unread.queue_read)
    if viewer is None:
        raise NotAuthenticated()
    return json_response({"unread": unread.count_from(replies, viewer["id"])})


@fast_path("GET", "list", viewset=NotificationViewSet)
@extend_schema(parameters=[ScrollQuerySerializer], responses=scrolled(NotificationSerializer))
def inbox_view(request: HttpRequest) -> HttpResponse:
    """My notifications, 20 a page, newest first, scrolled by passing the previous
    page's `last_id`."""
    viewer, _ = tokens.touch_with(request)
    if viewer is None:
        raise NotAuthenticated()  # before the query is looked at, as DRF's permission check
    last_id = query_params(request, ScrollQuerySerializer).get("last_id")
    rows, next_last_id = selectors.inbox_rows(recipient_id=viewer["id"], last_id=last_id)
    time = time_writer()
    return json_response(scroll_page([inbox_item(row, time) for row in rows], next_last_id))


def inbox_item(row: tuple, time: Callable[[datetime | None], str | None]) -> dict[str, Any]:
    """One row of `selectors.INBOX_VALUES` as NotificationSerializer represents it (the
    inbox page's items, and the notification stream's)."""
    (
        id_,
        kind,
        order_id,
        count,
        reason,
        read_at,
        created_at,
        actor_id,
        actor_nick,
        actor_icon,
        blog_id,
        blog_title,
        comment_id,
        comment_content,
        voucher_id,
        voucher_title,
        voucher_begin,
        shop_id,
        shop_name,
    ) = row
    actor = {"id": actor_id, "nick_name": actor_nick, "icon": actor_icon}
    blog = {"id": blog_id, "title": blog_title}
    comment = (
        None if comment_id is None else {"id": comment_id, "content": comment_content[:EXCERPT]}
    )
    # No database constraint (notifications.models): a voucher gone is no voucher, as the
    # serializer's outer join finds none; a voucher's title is never null.
    voucher = None
    if voucher_title is not None:
        voucher = {"id": voucher_id, "title": voucher_title, "begin_time": time(voucher_begin)}
    return {
        "id": id_,
        "kind": kind,
        "actor": None if actor_id is None else actor,
        "blog": None if blog_id is None else blog,
        "comment": comment,
        "voucher": voucher,
        "order_id": None if order_id is None else str(order_id),
        "shop": None if shop_id is None else {"id": shop_id, "name": shop_name},
        "count": count,
        "reason": reason,
        "read": read_at is not None,
        "created_at": time(created_at),
    }
