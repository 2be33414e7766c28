"""Inbox reads: a scrolled page, newest first, with what each item links to; the unread
count (an indexed COUNT over at most NOTIFICATIONS_MAX rows per user, cached in
notifications.unread)."""

from __future__ import annotations

from django.conf import settings
from django.db.models import QuerySet

from toolkit.prepared import PreparedRead

from .models import Notification

PAGE = 20


def inbox_page(*, recipient_id: int, last_id: int | None) -> tuple[list[Notification], int | None]:
    """PAGE notifications older than `last_id` (all when None), newest first, and the next
    page's `last_id` (None at the end). Ids only grow, so new arrivals never shift a
    later page: no skips, no repeats."""
    query = _mine(recipient_id, last_id).select_related(
        "actor", "blog", "comment", "voucher", "shop"
    )
    page = list(query.only(*_COLUMNS).order_by("-id")[:PAGE])
    return page, (page[-1].id if len(page) == PAGE else None)


# The fast path's page (decision 304): the same query as plain values, no model built.
INBOX_VALUES = (
    "id",
    "kind",
    "order_id",
    "count",
    "reason",
    "read_at",
    "created_at",
    "actor__id",
    "actor__nick_name",
    "actor__icon",
    "blog__id",
    "blog__title",
    "comment__id",
    "comment__content",
    "voucher__id",
    "voucher__title",
    "voucher__begin_time",
    "shop__id",
    "shop__name",
)
# The model page's columns: the same, and the recipient (`only` needs each loaded field).
_COLUMNS = ("recipient_id", *INBOX_VALUES)


def _mine(recipient_id: int, last_id: int | None) -> QuerySet:
    """The recipient's notifications older than `last_id` (all when None)."""
    mine = Notification.objects.filter(recipient_id=recipient_id)
    return mine if last_id is None else mine.filter(id__lt=last_id)


def _inbox_values(recipient_id: int, last_id: int | None = None) -> QuerySet:
    return _mine(recipient_id, last_id).order_by("-id").values_list(*INBOX_VALUES)[:PAGE]


_FIRST_PAGE = PreparedRead(lambda recipient_id: _inbox_values(recipient_id))
_LATER_PAGE = PreparedRead(lambda recipient_id, last_id: _inbox_values(recipient_id, last_id))


def inbox_rows(*, recipient_id: int, last_id: int | None) -> tuple[list[tuple], int | None]:
    """`inbox_page` as tuples of INBOX_VALUES, in one query compiled once
    (toolkit.prepared) that builds no model."""
    if last_id is None:
        rows = _FIRST_PAGE.rows(recipient_id=recipient_id)
    else:
        rows = _LATER_PAGE.rows(recipient_id=recipient_id, last_id=last_id)
    return rows, (rows[-1][0] if len(rows) == PAGE else None)


def inbox_since(*, recipient_id: int, after: int) -> list[tuple]:
    """The recipient's notifications newer than id `after`, newest first, as tuples of
    INBOX_VALUES: what a notification stream has not sent yet (notifications.stream). At
    most NOTIFICATIONS_MAX, which no inbox holds more of."""
    mine = Notification.objects.filter(recipient_id=recipient_id, id__gt=after)
    return list(mine.order_by("-id").values_list(*INBOX_VALUES)[: settings.NOTIFICATIONS_MAX])


def newest_id(*, recipient_id: int) -> int:
    """The id of the recipient's newest notification, read or not (0 for none)."""
    mine = Notification.objects.filter(recipient_id=recipient_id).order_by("-id")
    return mine.values_list("id", flat=True).first() or 0


def unread_count(*, recipient_id: int) -> int:
    return Notification.objects.filter(recipient_id=recipient_id, read_at__isnull=True).count()
