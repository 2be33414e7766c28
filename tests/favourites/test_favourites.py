"""Favourites: save and unsave (idempotent, counted, mirrored in Redis), the errors that
change nothing, "my favourites" scrolled newest first, racing saves, repairs and
rebuilds, what goes when a target or a user goes."""

from __future__ import annotations

import random

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from blogs import services as blogs
from blogs.models import Blog
from favourites import services
from favourites.models import Favourite
from shops import services as shops
from shops.models import Shop
from tests.factories import BlogFactory, NormalVoucherFactory, ShopFactory, UserFactory
from tests.helpers import client_for, run_concurrently
from toolkit.redis import keys
from vouchers import services as vouchers

pytestmark = pytest.mark.django_db(transaction=True)  # Redis is synced after commit


def _members(redis_client, user: User, kind: str) -> set[int]:
    return {int(m) for m in redis_client.smembers(keys.favourites(user.id, kind))}


def _count(model, pk: int) -> int:
    return model.objects.values_list("favourites", flat=True).get(pk=pk)


@pytest.mark.parametrize(
    ("kind", "factory", "model"), [("shop", ShopFactory, Shop), ("blog", BlogFactory, Blog)]
)
def test_save_and_unsave_are_idempotent_and_counted(
    user, other_user, user_api, redis_client, kind, factory, model
) -> None:
    target = factory()
    url = f"/api/favourites/{kind}/{target.id}"

    assert user_api.put(url).json() == {"saved": True, "favourites": 1}
    assert user_api.put(url).json() == {"saved": True, "favourites": 1}  # once
    assert client_for(other_user).put(url).json() == {"saved": True, "favourites": 2}

    assert Favourite.objects.filter(kind=kind, object_id=target.id).count() == 2
    assert _count(model, target.id) == 2
    assert _members(redis_client, user, kind) == {target.id}
    first = user_api.delete(url)
    assert (first.status_code, first.json()) == (200, {"saved": False, "favourites": 1})
    again = user_api.delete(url)  # unsaving what is not saved: no error, nothing changes
    assert (again.status_code, again.json()) == (200, {"saved": False, "favourites": 1})
    assert _count(model, target.id) == 1
    assert _members(redis_client, user, kind) == set()
    assert _members(redis_client, other_user, kind) == {target.id}


def test_a_voucher_is_saved_uncounted(user, user_api, redis_client) -> None:
    voucher = NormalVoucherFactory()
    url = f"/api/favourites/voucher/{voucher.id}"

    assert user_api.put(url).json() == {"saved": True, "favourites": None}
    assert _members(redis_client, user, "voucher") == {voucher.id}
    assert user_api.delete(url).json() == {"saved": False, "favourites": None}
    assert not Favourite.objects.exists()


def test_errors_are_clear_and_change_nothing(user, user_api, api, redis_client) -> None:
    shop = ShopFactory()
    hidden = BlogFactory()
    blogs.blog_hide(blog_id=hidden.id)
    refusals = {
        "/api/favourites/shops/1": (404, "unknown_kind"),
        f"/api/favourites/note/{hidden.id}": (404, "unknown_kind"),
        "/api/favourites/shop/999999": (404, "shop_not_found"),
        "/api/favourites/blog/999999": (404, "blog_not_found"),
        f"/api/favourites/blog/{hidden.id}": (404, "blog_not_found"),  # hidden: as missing
        "/api/favourites/voucher/999999": (404, "voucher_not_found"),
    }
    for url, (status, code) in refusals.items():
        for method in (user_api.put, user_api.delete):
            response = method(url)
            assert (response.status_code, response.json()["code"]) == (status, code), url
    assert api.put(f"/api/favourites/shop/{shop.id}").status_code == 401
    assert api.delete(f"/api/favourites/shop/{shop.id}").status_code == 401
    assert user_api.put("/api/favourites/shop/99999999999999999999").status_code == 404

    assert not Favourite.objects.exists()
    assert _count(Shop, shop.id) == 0
    assert not redis_client.keys("fav:*")


def test_unknown_kind_is_explained_in_english(user_api) -> None:
    body = user_api.put("/api/favourites/cat/1", HTTP_ACCEPT_LANGUAGE="en").json()
    assert body == {
        "detail": "Only shops, notes (blog) and vouchers can be saved.",
        "code": "unknown_kind",
    }


def test_my_favourites_scroll_newest_first_by_kind(user, user_api, api) -> None:
    mine = ShopFactory.create_batch(12)
    for shop in mine:
        services.favourite_save(user_id=user.id, kind="shop", object_id=shop.id)
    note = BlogFactory(title="Dumplings")
    services.favourite_save(user_id=user.id, kind="blog", object_id=note.id)
    services.favourite_save(user_id=UserFactory().id, kind="shop", object_id=mine[0].id)

    first = user_api.get("/api/favourites?kind=shop").json()
    second = user_api.get(f"/api/favourites?kind=shop&last_id={first['last_id']}").json()

    listed = [item["shop"]["id"] for item in first["results"] + second["results"]]
    assert listed == [shop.id for shop in reversed(mine)]  # newest save first, each once
    assert (len(first["results"]), second["last_id"]) == (10, None)
    item = second["results"][-1]
    assert set(item) == {"kind", "saved_at", "shop", "blog", "voucher"}
    assert (item["kind"], item["blog"], item["voucher"]) == ("shop", None, None)
    assert (item["shop"]["saved"], item["shop"]["favourites"]) == (True, 2)
    assert "open_now" in item["shop"]
    notes = user_api.get("/api/favourites?kind=blog").json()
    assert [i["blog"]["title"] for i in notes["results"]] == ["Dumplings"]
    assert notes["results"][0]["blog"]["saved"] is True
    assert user_api.get("/api/favourites?kind=voucher").json() == {"results": [], "last_id": None}


def test_my_favourites_refuse_bad_queries_and_strangers(user_api, api) -> None:
    assert api.get("/api/favourites?kind=shop").status_code == 401
    for query in ("", "?kind=cat", "?kind=shop&last_id=0", "?kind=shop&last_id=x"):
        response = user_api.get(f"/api/favourites{query}")
        assert (response.status_code, response.json()["code"]) == (400, "invalid"), query


def test_saving_again_after_unsaving_puts_it_back_on_top(user, user_api) -> None:
    first, second = ShopFactory(), ShopFactory()
    for shop in (first, second):
        user_api.put(f"/api/favourites/shop/{shop.id}")
    user_api.delete(f"/api/favourites/shop/{first.id}")
    user_api.put(f"/api/favourites/shop/{first.id}")

    items = user_api.get("/api/favourites?kind=shop").json()["results"]

    assert [i["shop"]["id"] for i in items] == [first.id, second.id]


def test_saving_one_item_from_many_threads_makes_one_row(user, redis_client) -> None:
    shop, note, voucher = ShopFactory(), BlogFactory(), NormalVoucherFactory()
    targets = [("shop", shop.id), ("blog", note.id), ("voucher", voucher.id)]

    def save(i: int) -> services.SavedState:
        kind, object_id = targets[i % 3]
        return services.favourite_save(user_id=user.id, kind=kind, object_id=object_id)

    states = run_concurrently(save, 24)

    assert all(state["saved"] for state in states)
    assert Favourite.objects.count() == 3  # one per item, however many raced
    assert (_count(Shop, shop.id), _count(Blog, note.id)) == (1, 1)
    for kind, object_id in targets:
        assert _members(redis_client, user, kind) == {object_id}


def test_racing_saves_and_unsaves_keep_counts_and_sets_exact(redis_client) -> None:
    users = UserFactory.create_batch(8)
    shops_, notes = ShopFactory.create_batch(2), BlogFactory.create_batch(2)
    targets = [("shop", s.id) for s in shops_] + [("blog", b.id) for b in notes]

    def churn(i: int) -> None:
        rng = random.Random(i)
        for _ in range(12):
            user = rng.choice(users)
            kind, object_id = rng.choice(targets)
            change = services.favourite_save if rng.random() < 0.6 else services.favourite_unsave
            change(user_id=user.id, kind=kind, object_id=object_id)

    run_concurrently(churn, 12)

    rows = set(Favourite.objects.values_list("user_id", "kind", "object_id"))
    assert rows  # something happened
    for kind, object_id in targets:
        model = Shop if kind == "shop" else Blog
        savers = {u for u, k, o in rows if (k, o) == (kind, object_id)}
        assert _count(model, object_id) == len(savers)
    for user in users:
        for kind in ("shop", "blog"):
            assert _members(redis_client, user, kind) == {
                o for u, k, o in rows if (u, k) == (user.id, kind)
            }


def test_repeating_a_save_or_unsave_repairs_a_failed_redis_sync(
    user, user_api, redis_client
) -> None:
    shop = ShopFactory()
    url = f"/api/favourites/shop/{shop.id}"
    user_api.put(url)
    redis_client.delete(keys.favourites(user.id, "shop"))  # the after-commit sync failed

    user_api.put(url)  # the client retries

    assert _members(redis_client, user, "shop") == {shop.id}
    user_api.delete(url)
    redis_client.sadd(keys.favourites(user.id, "shop"), shop.id)  # the unsave's sync failed
    user_api.delete(url)
    assert _members(redis_client, user, "shop") == set()
    assert _count(Shop, shop.id) == 0


def test_sets_and_counts_can_be_rebuilt_from_the_database(user, other_user, redis_client) -> None:
    shop, note = ShopFactory(), BlogFactory()
    services.favourite_save(user_id=user.id, kind="shop", object_id=shop.id)
    services.favourite_save(user_id=user.id, kind="blog", object_id=note.id)
    redis_client.flushdb()  # as if Redis lost everything
    redis_client.sadd(keys.favourites(other_user.id, "shop"), shop.id)  # and drifted
    Shop.objects.filter(pk=shop.id).update(favourites=7)
    Blog.objects.filter(pk=note.id).update(favourites=0)

    call_command("rebuild_favourites")

    assert _members(redis_client, user, "shop") == {shop.id}
    assert _members(redis_client, user, "blog") == {note.id}
    assert not redis_client.exists(keys.favourites(other_user.id, "shop"))
    assert (_count(Shop, shop.id), _count(Blog, note.id)) == (1, 1)
    assert client_for(user).get(f"/api/shops/{shop.id}").json()["favourites"] == 1


def test_a_deleted_target_takes_its_favourites_with_it(user, other_user, redis_client) -> None:
    shop, note, voucher = ShopFactory(), BlogFactory(user=other_user), NormalVoucherFactory()
    for kind, object_id in (("shop", shop.id), ("blog", note.id), ("voucher", voucher.id)):
        services.favourite_save(user_id=user.id, kind=kind, object_id=object_id)

    shops.shop_delete(shop_id=shop.id)
    blogs.blog_delete(blog_id=note.id, user_id=other_user.id)
    vouchers.voucher_delete(voucher_id=voucher.id)

    assert not Favourite.objects.exists()
    for kind in ("shop", "blog", "voucher"):
        assert _members(redis_client, user, kind) == set()


def test_a_deleted_target_s_savers_move_no_count_of_it(redis_client) -> None:
    """Its rows go in one DELETE; no saver costs an UPDATE of the row being deleted."""
    shop = ShopFactory()
    savers = UserFactory.create_batch(5)
    for saver in savers:
        services.favourite_save(user_id=saver.id, kind="shop", object_id=shop.id)

    with CaptureQueriesContext(connection) as queries:
        shops.shop_delete(shop_id=shop.id)

    updates = [
        q["sql"] for q in queries if q["sql"].startswith("UPDATE") and "favourites" in q["sql"]
    ]
    assert updates == []
    for saver in savers:
        assert _members(redis_client, saver, "shop") == set()


def test_a_hidden_note_leaves_the_list_and_can_still_be_unsaved(user, user_api) -> None:
    note = BlogFactory()
    user_api.put(f"/api/favourites/blog/{note.id}")
    blogs.blog_hide(blog_id=note.id)

    assert user_api.get("/api/favourites?kind=blog").json()["results"] == []
    assert user_api.delete(f"/api/favourites/blog/{note.id}").json()["saved"] is False
    assert not Favourite.objects.exists()
    assert _count(Blog, note.id) == 0


def test_a_deleted_user_s_favourites_leave_the_counts(user, redis_client) -> None:
    shop = ShopFactory()
    services.favourite_save(user_id=user.id, kind="shop", object_id=shop.id)
    services.favourite_save(user_id=UserFactory().id, kind="shop", object_id=shop.id)

    User.objects.filter(pk=user.id).delete()

    assert _count(Shop, shop.id) == 1
    assert _members(redis_client, user, "shop") == set()


@pytest.mark.parametrize("kind", ["shop", "blog"])
def test_the_count_shows_at_once_on_a_cached_page(user, user_api, api, kind) -> None:
    target = ShopFactory() if kind == "shop" else BlogFactory()
    url = f"/api/{kind}s/{target.id}"
    assert api.get(url).json()["favourites"] == 0  # cached now

    user_api.put(f"/api/favourites/{kind}/{target.id}")

    assert api.get(url).json()["favourites"] == 1
    user_api.delete(f"/api/favourites/{kind}/{target.id}")
    assert api.get(url).json()["favourites"] == 0
