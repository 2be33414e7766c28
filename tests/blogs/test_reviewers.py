"""A shop's review count is its reviewers, each counted once however many notes they wrote
about it (decision 286): one account cannot move the count, the popular sort or the shop
search's ranking by posting again. Every change keeps it exact, and the recount agrees."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from blogs import services
from search import index
from shops.models import Shop
from tests.factories import ShopFactory, UserFactory
from tests.helpers import client_for

pytestmark = pytest.mark.django_db(transaction=True)


def _note(api, shop_id: int, rating: int | None = None) -> int:
    body = {"title": "探店", "content": "好吃", "shop_id": shop_id, "rating": rating}
    response = api.post("/api/blogs", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()["id"]


def _count(api, shop_id: int) -> int:
    """The count the API serves, after checking the recount stores the same figure."""
    served = api.get(f"/api/shops/{shop_id}").json()["comments"]
    assert Shop.objects.get(pk=shop_id).comments == served
    call_command("recount_shops", verbosity=0)
    assert Shop.objects.get(pk=shop_id).comments == served  # nothing to repair
    return served


def test_one_reviewer_counts_once_whatever_they_post_delete_hide_or_restore(api) -> None:
    shop = ShopFactory()
    first, second = client_for(UserFactory()), client_for(UserFactory())

    firsts = [_note(first, shop.id, rating=3 if i == 0 else None) for i in range(10)]
    assert _count(api, shop.id) == 1

    seconds = [_note(second, shop.id, rating=5)]
    assert _count(api, shop.id) == 2

    assert first.delete(f"/api/blogs/{firsts[0]}").status_code == 204
    assert _count(api, shop.id) == 2
    for note_id in firsts[1:-1]:
        assert first.delete(f"/api/blogs/{note_id}").status_code == 204
    assert _count(api, shop.id) == 2  # one note of theirs is left
    assert first.delete(f"/api/blogs/{firsts[-1]}").status_code == 204
    assert _count(api, shop.id) == 1

    services.blog_hide(blog_id=seconds[0])
    assert _count(api, shop.id) == 0
    seconds.append(_note(second, shop.id))
    assert _count(api, shop.id) == 1
    services.blog_restore(blog_id=seconds[0])
    assert _count(api, shop.id) == 1  # two visible notes, one reviewer


def test_moving_a_note_between_shops_counts_its_author_where_they_still_write(api) -> None:
    here, there = ShopFactory(), ShopFactory()
    author = client_for(UserFactory())
    kept = _note(author, here.id)
    moved = _note(author, here.id)

    patched = author.patch(f"/api/blogs/{moved}", {"shop_id": there.id}, format="json")
    assert patched.status_code == 200

    assert (_count(api, here.id), _count(api, there.id)) == (1, 1)
    author.patch(f"/api/blogs/{kept}", {"shop_id": there.id}, format="json")
    assert (_count(api, here.id), _count(api, there.id)) == (0, 1)


def _crowds() -> tuple[Shop, Shop]:
    """Two shops alike but for their reviews: the first (the lower id, which wins a tie)
    has one account's five notes, the second two accounts' one note each."""
    flooded, liked = ShopFactory(name="甲火锅", score=0), ShopFactory(name="乙火锅", score=0)
    loud = client_for(UserFactory())
    for _ in range(5):
        _note(loud, flooded.id)
    for _ in range(2):
        _note(client_for(UserFactory()), liked.id)
    return flooded, liked


def test_the_popular_sort_ranks_by_reviewers_not_notes(api) -> None:
    flooded, liked = _crowds()

    listed = api.get("/api/shops", {"sort": "popular"}).json()["results"]

    assert [(s["id"], s["comments"]) for s in listed] == [(liked.id, 2), (flooded.id, 1)]


def test_shop_search_ranks_by_reviewers_not_notes(api) -> None:
    flooded, liked = _crowds()
    index.rebuild()

    found = api.get("/api/search", {"q": "火锅", "kind": "shops"}).json()["results"]

    assert [(s["id"], s["comments"]) for s in found] == [(liked.id, 2), (flooded.id, 1)]


@pytest.mark.slow
def test_the_migration_counts_existing_shops_by_reviewer() -> None:
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    def migrate(targets):
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(targets)
        return executor.loader.project_state(targets).apps

    latest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    try:
        old = migrate([("blogs", "0008_reports"), ("shops", "0008_shop_phone")])  # no cities
        shop_type = old.get_model("shops", "ShopType").objects.create(name="t")
        Shop, Blog = old.get_model("shops", "Shop"), old.get_model("blogs", "Blog")
        User = old.get_model("accounts", "User")
        place = {"type": shop_type, "address": "a", "x": 121.0, "y": 31.0}
        reviewed = Shop.objects.create(name="r", comments=5, **place)
        drifted = Shop.objects.create(name="d", comments=7, **place)  # no note supports it
        a, b, c = (
            User.objects.create(username=n, phone=f"1370000000{i}") for i, n in enumerate("abc")
        )
        for author, status in [(a, 0), (a, 0), (a, 0), (b, 0), (c, 1)]:  # c's is hidden
            Blog.objects.create(user=author, shop=reviewed, title="t", content="c", status=status)

        new = migrate(latest)

        counts = dict(new.get_model("shops", "Shop").objects.values_list("id", "comments"))
        assert (counts[reviewed.id], counts[drifted.id]) == (2, 0)
    finally:
        migrate(latest)
