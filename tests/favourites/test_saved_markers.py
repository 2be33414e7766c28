"""The `saved` marker on every card and detail page: true for the reader who saved it,
false for anyone else and for anonymous readers; read in the round trip of the page's
other live state (the token's refresh, likes, live stock)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings

from blogs.caches import blog_cache, like_count_cache
from favourites import services
from follows import services as follows
from search import index
from shops import caches as shops_caches
from shops import services as shops
from shops.models import Shop
from shops.serializers import ShopDocumentSerializer
from tests.factories import (
    BlogFactory,
    NormalVoucherFactory,
    ShopFactory,
    ShopTypeFactory,
    UserFactory,
    VoucherFactory,
)
from tests.helpers import client_for, count_round_trips, warm_near_cache
from toolkit import clock

pytestmark = pytest.mark.django_db(transaction=True)  # the sets are written after commit

X, Y = 121.4737, 31.2304


def _save(user, kind: str, *targets) -> None:
    for target in targets:
        services.favourite_save(user_id=user.id, kind=kind, object_id=target.id)


def _marks(body, path=("results",)) -> dict[int, bool]:
    for key in path:
        body = body[key]
    return {item["id"]: item["saved"] for item in body}


def _readers(user, other_user, api):
    return {"saver": client_for(user), "other": client_for(other_user), "anonymous": api}


def test_shop_pages_lists_and_searches_mark_the_saved_shops(user, other_user, api) -> None:
    kind = ShopTypeFactory()
    saved_shop = ShopFactory(type=kind, name="老弄堂面馆", x=X, y=Y)
    plain = ShopFactory(type=kind, name="新弄堂面馆", x=X + 0.001, y=Y)
    shops.shop_indexes_rebuild()
    index.rebuild()
    _save(user, "shop", saved_shop)
    everywhere = {saved_shop.id: True, plain.id: False}
    nobody = dict.fromkeys(everywhere, False)

    for reader, client in _readers(user, other_user, api).items():
        want = everywhere if reader == "saver" else nobody
        detail = client.get(f"/api/shops/{saved_shop.id}").json()
        assert detail["saved"] is want[saved_shop.id], reader
        assert client.get(f"/api/shops/{plain.id}").json()["saved"] is False
        assert _marks(client.get(f"/api/shops?type_id={kind.id}").json()) == want, reader
        near = client.get(f"/api/shops?type_id={kind.id}&x={X}&y={Y}").json()
        assert _marks(near) == want, reader
        around = client.get(f"/api/shops/{plain.id}/nearby").json()
        assert _marks(around) == {saved_shop.id: want[saved_shop.id]}, reader
        found = client.get("/api/search", {"q": "弄堂", "kind": "shops"}).json()
        assert _marks(found) == want, reader


def test_note_pages_and_lists_mark_the_saved_notes(user, other_user, api) -> None:
    author = UserFactory()
    shop = ShopFactory()
    saved_note = BlogFactory(user=author, shop=shop, rating=5, title="小笼包攻略")
    plain = BlogFactory(user=author, shop=shop, rating=4, title="生煎攻略")
    index.rebuild()
    _save(user, "blog", saved_note)
    for reader in (user, other_user):
        follows.follow(user_id=reader.id, target_id=author.id)  # their feeds hold both
    everywhere = {saved_note.id: True, plain.id: False}
    nobody = dict.fromkeys(everywhere, False)

    for reader, client in _readers(user, other_user, api).items():
        want = everywhere if reader == "saver" else nobody
        detail = client.get(f"/api/blogs/{saved_note.id}").json()
        assert (detail["saved"], detail["favourites"]) == (want[saved_note.id], 1), reader
        assert _marks(client.get("/api/blogs/hot").json()) == want, reader
        assert _marks(client.get(f"/api/shops/{shop.id}/reviews").json()) == want, reader
        assert _marks(client.get(f"/api/users/{author.id}/blogs").json()) == want, reader
        found = client.get("/api/search", {"q": "攻略", "kind": "notes"}).json()
        assert _marks(found) == want, reader
        if reader != "anonymous":
            assert _marks(client.get("/api/feed").json()) == want, reader
            assert _marks(client.get("/api/feed").json()) == want, reader  # guessed reads


def test_a_note_s_own_answers_mark_it(user, user_api) -> None:
    created = user_api.post("/api/blogs", {"title": "a", "content": "b"}, format="json").json()
    assert created["saved"] is False
    services.favourite_save(user_id=user.id, kind="blog", object_id=created["id"])

    edited = user_api.patch(f"/api/blogs/{created['id']}", {"title": "c"}, format="json").json()

    assert (edited["saved"], edited["favourites"]) == (True, 1)
    mine = user_api.get("/api/blogs/mine").json()
    assert _marks(mine) == {created["id"]: True}


def test_voucher_cards_mark_the_saved_vouchers(user, other_user, api) -> None:
    shop = ShopFactory()
    coupon = NormalVoucherFactory(shop=shop)
    sale = VoucherFactory(shop=shop, begin_time=clock.now() + timedelta(hours=1))
    _save(user, "voucher", sale)
    everywhere = {coupon.id: False, sale.id: True}

    for reader, client in _readers(user, other_user, api).items():
        want = everywhere if reader == "saver" else dict.fromkeys(everywhere, False)
        assert _marks(client.get(f"/api/shops/{shop.id}/vouchers").json(), ()) == want, reader
        upcoming = client.get("/api/vouchers/activities?tab=upcoming").json()
        assert _marks(upcoming, ()) == {sale.id: want[sale.id]}, reader


def test_a_shop_page_reads_the_marker_in_the_token_s_round_trip(user, monkeypatch) -> None:
    shop = ShopFactory()
    shops.shop_bloom_rebuild()
    _save(user, "shop", shop)
    reader = client_for(user)
    assert reader.get(f"/api/shops/{shop.id}").json()["saved"] is True  # the token seen
    warm_near_cache(
        shops_caches.shop_cache(),
        shop.id,
        lambda: ShopDocumentSerializer(Shop.objects.get(pk=shop.id)).data,
    )
    round_trips = count_round_trips(monkeypatch)

    body = reader.get(f"/api/shops/{shop.id}").json()

    assert (body["saved"], body["favourites"]) == (True, 1)
    # The token, the marker (and the UV/PV count, buffered) in one batch per server.
    assert len(round_trips) == len(set(round_trips)) >= 1
    if not settings.REDIS_CLUSTER:
        assert len(round_trips) == 1


def test_a_note_page_reads_the_marker_with_the_likes(user, monkeypatch) -> None:
    note = BlogFactory()
    _save(user, "blog", note)
    reader = client_for(user)
    assert reader.get(f"/api/blogs/{note.id}").json()["saved"] is True  # the token seen
    warm_near_cache(blog_cache(), note.id, lambda: None)
    warm_near_cache(like_count_cache(), note.id, lambda: None)
    round_trips = count_round_trips(monkeypatch)

    body = reader.get(f"/api/blogs/{note.id}").json()

    assert (body["saved"], body["is_liked"]) == (True, False)
    assert len(round_trips) == len(set(round_trips)) >= 1
    if not settings.REDIS_CLUSTER:
        assert len(round_trips) == 1


def test_a_shop_list_reads_the_markers_in_the_token_s_round_trip(user, monkeypatch) -> None:
    kind = ShopTypeFactory()
    listed = ShopFactory.create_batch(3, type=kind)
    _save(user, "shop", listed[1])
    reader = client_for(user)
    url = f"/api/shops?type_id={kind.id}"
    reader.get(url)  # the token seen

    def load(shop_id: int) -> Callable[[], Any]:
        return lambda: ShopDocumentSerializer(Shop.objects.get(pk=shop_id)).data

    for shop in listed:
        warm_near_cache(shops_caches.shop_cache(), shop.id, load(shop.id))
    # The city list (the read's `city`) too: the first read filled Redis, whose notice of
    # that fill evicts the process's copy once.
    warm_near_cache(shops_caches.city_cache(), shops_caches.cities_ident(english=False), list)
    round_trips = count_round_trips(monkeypatch)

    body = reader.get(url).json()

    assert _marks(body) == {listed[0].id: False, listed[1].id: True, listed[2].id: False}
    assert len(round_trips) == len(set(round_trips)) >= 1
    if not settings.REDIS_CLUSTER:
        assert len(round_trips) == 1
