"""The inbox and the unread count without DRF (decisions 303-305): the same answers as
the serializer's, in one Redis round trip each (and one query for a page); the cached
count stays exact through every write that changes a recipient's unread rows."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.renderers import JSONRenderer
from rest_framework.test import APIClient

from blogs import services as blogs
from notifications import keys, reminders, selectors, services, unread
from notifications.models import Kind, Notification
from notifications.serializers import NotificationSerializer
from tests.factories import (
    BlogFactory,
    NormalVoucherFactory,
    ShopFactory,
    UserFactory,
    VoucherFactory,
)
from tests.helpers import client_for, count_round_trips
from toolkit import clock
from toolkit.api.lists import listed
from toolkit.api.scroll import scroll_page
from toolkit.redis.client import get_redis

pytestmark = pytest.mark.django_db(transaction=True)  # evictions run after the commit


def _unread(api) -> int:
    response = api.get("/api/notifications/unread-count")
    assert response.status_code == 200
    return response.json()["unread"]


def _cached(user) -> Any:
    return get_redis().get(keys.unread_count(user.id))


def _everything(recipient) -> dict[str, Any]:
    """One item of every kind and shape: a long comment, an order, a sale with a start
    time, a voucher without one, a voucher whose row is gone, read and unread; and two
    unread items about one note's comments, as an inbox from before decision 285 holds."""
    actor = UserFactory(nick_name="小王", icon="/imgs/icons/a.jpg")
    note = BlogFactory(user=recipient, title="生煎")
    long_comment = blogs.comment_create(blog_id=note.id, user_id=actor.id, content="好" * 150)
    sale = VoucherFactory(title="秒杀", begin_time=clock.now() + timedelta(minutes=5))
    open_voucher = NormalVoucherFactory(title="无开始")
    gone = VoucherFactory(title="已删")
    add = services.notification_add
    add(recipient_id=recipient.id, kind=Kind.FOLLOWED, key="f", actor_id=actor.id)
    add(recipient_id=recipient.id, kind=Kind.LIKED, key="l", actor_id=actor.id, blog_id=note.id)
    services.notification_comment_add(
        recipient_id=recipient.id, actor_id=actor.id, blog_id=note.id, comment_id=long_comment.id
    )
    add(recipient_id=recipient.id, kind=Kind.SALE_STARTING, key="s", voucher_id=sale.id)
    add(
        recipient_id=recipient.id,
        kind=Kind.COUPON_EXPIRING,
        key="c",
        voucher_id=open_voucher.id,
        order_id=2**60 + 7,
    )
    gone_id = gone.id
    gone.delete()  # no database constraint: a row may point at a voucher that is gone
    Notification.objects.create(
        recipient_id=recipient.id,
        kind=Kind.ORDER_CANCELLED,
        dedup_key="o",
        voucher_id=gone_id,
        order_id=13,
        read_at=clock.now(),
    )
    shop = ShopFactory(name="老王面馆")
    add(
        recipient_id=recipient.id,
        kind=Kind.REVIEW_REPLIED,
        key="r",
        blog_id=note.id,
        shop_id=shop.id,
    )
    add(
        recipient_id=recipient.id,
        kind=Kind.SHOP_REVIEWED,
        key="v",
        actor_id=actor.id,
        blog_id=note.id,
        shop_id=shop.id,
    )
    # A shop's side: its offer published (with the voucher) or sent back (without), its
    # sale started and sold out.
    add(
        recipient_id=recipient.id,
        kind=Kind.OFFER_APPROVED,
        key="oa",
        shop_id=shop.id,
        voucher_id=sale.id,
    )
    add(recipient_id=recipient.id, kind=Kind.OFFER_RETURNED, key="or", shop_id=shop.id)
    add(
        recipient_id=recipient.id,
        kind=Kind.SALE_STARTED,
        key="ss",
        shop_id=shop.id,
        voucher_id=sale.id,
    )
    add(
        recipient_id=recipient.id,
        kind=Kind.SALE_SOLD_OUT,
        key="so",
        shop_id=shop.id,
        voucher_id=sale.id,
    )
    # Decisions on a claim and on a change of the shop's profile, turned down with a reason.
    add(recipient_id=recipient.id, kind=Kind.CLAIM_APPROVED, key="ca", shop_id=shop.id)
    add(
        recipient_id=recipient.id,
        kind=Kind.CLAIM_REJECTED,
        key="cr",
        shop_id=shop.id,
        reason="营业执照上的名字不对",
    )
    add(recipient_id=recipient.id, kind=Kind.SHOP_CHANGE_APPROVED, key="sa", shop_id=shop.id)
    add(
        recipient_id=recipient.id,
        kind=Kind.SHOP_CHANGE_REJECTED,
        key="sr",
        shop_id=shop.id,
        reason='The "new" address is a street away.',
    )
    blogs.comment_create(blog_id=note.id, user_id=UserFactory().id, content="早")
    Notification.objects.create(
        recipient_id=recipient.id,
        kind=Kind.COMMENTED,
        dedup_key="old",
        actor_id=actor.id,
        blog_id=note.id,
        comment_id=long_comment.id,
    )
    return {"note": note, "actor": actor}


def _serializer_page(recipient, last_id: int | None) -> dict[str, Any]:
    """The page as the DRF viewset made it before the fast path."""
    page, next_last_id = selectors.inbox_page(recipient_id=recipient.id, last_id=last_id)
    return scroll_page(listed(NotificationSerializer(page, many=True)), next_last_id)


def test_the_inbox_is_byte_for_byte_the_serializers(user, settings) -> None:
    _everything(user)
    for i in range(21):  # a second page
        services.notification_add(
            recipient_id=user.id, kind=Kind.FOLLOWED, key=f"n{i}", actor_id=UserFactory().id
        )
    api = client_for(user)

    first = api.get("/api/notifications")
    second = api.get("/api/notifications", {"last_id": first.json()["last_id"]})

    assert first.json()["last_id"] is not None
    assert second.json()["last_id"] is None
    assert len(first.json()["results"]) + len(second.json()["results"]) == 38
    for response, last_id in ((first, None), (second, int(first.json()["last_id"]))):
        assert response.status_code == 200
        expected = _serializer_page(user, last_id)
        assert response.json() == expected
        assert response.content == JSONRenderer().render(expected)
    shown = {item["kind"] for item in second.json()["results"]}
    assert shown == {k.value for k in Kind}

    items = {item["order_id"]: item for item in second.json()["results"]}
    assert items["13"]["voucher"] is None  # its voucher's row is gone
    assert items[str(2**60 + 7)]["voucher"]["begin_time"] is None


def test_the_inbox_in_another_time_zone_is_the_serializers(user, settings) -> None:
    settings.TIME_ZONE = "America/New_York"
    _everything(user)

    response = client_for(user).get("/api/notifications")

    assert response.content == JSONRenderer().render(_serializer_page(user, None))
    assert response.json()["results"][0]["created_at"].endswith(("-05:00", "-04:00"))


def test_anonymous_and_bad_queries_answer_as_drf_did(user) -> None:
    anonymous, api = APIClient(), client_for(user)

    for path in ("/api/notifications", "/api/notifications/unread-count"):
        response = anonymous.get(path, {"last_id": "x"})
        assert response.status_code == 401
        assert response.json()["code"] == "not_authenticated"
        assert response["WWW-Authenticate"] == 'Bearer realm="api"'
    assert api.get("/api/notifications", {"last_id": "x"}).status_code == 400
    assert api.post("/api/notifications/unread-count").status_code == 405
    assert api.head("/api/notifications").status_code == 200


def test_each_read_is_one_round_trip_and_a_page_one_query(user, monkeypatch) -> None:
    _everything(user)
    count = Notification.objects.filter(recipient=user, read_at=None).count()
    api = client_for(user)
    _unread(api)  # the process learns the token's user; the count is cached
    round_trips = count_round_trips(monkeypatch)

    with CaptureQueriesContext(connection) as queries:
        assert _unread(api) == count
    assert len(queries) == 0
    _one_batch_per_server(round_trips)  # the token and the count, together

    round_trips.clear()
    with CaptureQueriesContext(connection) as queries:
        assert len(api.get("/api/notifications").json()["results"]) == 17
    assert len(queries) == 1
    _one_batch_per_server(round_trips)  # the token

    unread.unread_evict([user.id])
    round_trips.clear()
    with CaptureQueriesContext(connection) as queries:
        assert _unread(api) == count
    assert len(queries) == 1  # a miss: counted, then stored
    assert len(round_trips) >= 2 if django_settings.REDIS_CLUSTER else len(round_trips) == 2


def _one_batch_per_server(round_trips: list[tuple]) -> None:
    """One round trip: on a Cluster, one batch per node holding a key."""
    assert len(round_trips) == len(set(round_trips)) >= 1
    if not django_settings.REDIS_CLUSTER:
        assert len(round_trips) == 1


def _like(ctx: dict[str, Any]) -> None:
    assert client_for(UserFactory()).post(f"/api/blogs/{ctx['note'].id}/like").status_code == 200


def _comment(ctx: dict[str, Any]) -> None:
    note = BlogFactory(user=ctx["user"])
    blogs.comment_create(blog_id=note.id, user_id=UserFactory().id, content="新")


def _comment_folded(ctx: dict[str, Any]) -> None:
    """A comment on the note with two unread items: all three fold into one."""
    blogs.comment_create(blog_id=ctx["note"].id, user_id=UserFactory().id, content="新")


def _coupon_reminders(ctx: dict[str, Any]) -> None:
    from vouchers.models import VoucherOrder

    now, voucher = clock.now(), NormalVoucherFactory(pay_value=0, valid_days=1)
    VoucherOrder.objects.create(
        id=991,
        user=ctx["user"],
        voucher=voucher,
        status="paid",
        created_at=now,
        expires_at=now + timedelta(hours=1),
        live_slot=1,
    )
    assert reminders.coupons_expiring_notify() == 1  # a bulk insert


def _mark_some_read(ctx: dict[str, Any]) -> None:
    ids = list(Notification.objects.filter(recipient=ctx["user"]).values_list("id", flat=True))
    response = ctx["api"].post("/api/notifications/read", {"ids": ids[:2]}, format="json")
    assert response.status_code == 200


def _mark_all_read(ctx: dict[str, Any]) -> None:
    response = ctx["api"].post("/api/notifications/read", {"all": True}, format="json")
    assert response.json() == {"unread": 0}


def _trimmed(ctx: dict[str, Any]) -> None:
    ctx["settings"].NOTIFICATIONS_MAX = 2  # the next arrival trims the older unread items
    services.notification_add(
        recipient_id=ctx["user"].id, kind=Kind.FOLLOWED, key="new", actor_id=UserFactory().id
    )


def _note_deleted(ctx: dict[str, Any]) -> None:
    blogs.blog_delete(blog_id=ctx["note"].id, user_id=ctx["user"].id)  # a cascade


def _comment_deleted(ctx: dict[str, Any]) -> None:
    comment = ctx["comment"]  # an item of its own, which goes with it
    blogs.comment_delete(blog_id=comment.blog_id, comment_id=comment.id, user_id=comment.user_id)


def _note_hidden(ctx: dict[str, Any]) -> None:
    blogs.blog_hide(blog_id=ctx["note"].id)  # notifications_drop


def _actor_deleted(ctx: dict[str, Any]) -> None:
    ctx["actor"].delete()  # a cascade from the user


def _deleted_by_orm(ctx: dict[str, Any]) -> None:
    """As the admin deletes: a queryset's delete."""
    Notification.objects.filter(recipient=ctx["user"], kind=Kind.FOLLOWED).delete()


WRITES: dict[str, Callable[[dict[str, Any]], None]] = {
    "a like": _like,
    "a comment": _comment,
    "a comment folded": _comment_folded,
    "coupon reminders": _coupon_reminders,
    "some marked read": _mark_some_read,
    "all marked read": _mark_all_read,
    "trimmed by the bound": _trimmed,
    "its note deleted": _note_deleted,
    "a comment deleted": _comment_deleted,
    "its note hidden": _note_hidden,
    "its actor deleted": _actor_deleted,
    "deleted by a queryset": _deleted_by_orm,
}


@pytest.mark.parametrize("write", WRITES.values(), ids=WRITES.keys())
def test_the_cached_count_is_exact_after_every_write(user, settings, write) -> None:
    ctx = _everything(user) | {"user": user, "api": client_for(user), "settings": settings}
    other_note = BlogFactory(user=user)
    ctx["comment"] = blogs.comment_create(
        blog_id=other_note.id, user_id=UserFactory().id, content="旧"
    )
    before = _unread(ctx["api"])
    assert _cached(user) == str(before).encode()  # the write must evict it

    write(ctx)

    after = Notification.objects.filter(recipient=user, read_at=None).count()
    assert after != before
    assert _unread(ctx["api"]) == after


def test_a_count_loaded_before_a_change_is_not_stored_after_it(user, monkeypatch) -> None:
    api = client_for(user)
    _unread(api)
    unread.unread_evict([user.id])
    real = unread.unread_count

    def count_then_change(*, recipient_id: int) -> int:
        counted = real(recipient_id=recipient_id)
        services.notification_add(
            recipient_id=user.id, kind=Kind.FOLLOWED, key="late", actor_id=UserFactory().id
        )
        return counted

    monkeypatch.setattr(unread, "unread_count", count_then_change)
    assert _unread(api) == 0  # what it counted, answered once
    monkeypatch.setattr(unread, "unread_count", real)

    assert _cached(user) is None  # never stored: the change's eviction moved the version
    assert _unread(api) == 1
