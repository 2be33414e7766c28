"""GET /api/search: Chinese words found, ranked, paged, highlighted; the index follows the
writes through the services (after commit, by the task), and a hidden note is never found."""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from accounts import services as account_services
from blogs.models import Blog, Visibility
from search import highlight, index
from search.backends import DatabaseBackend
from search.documents import source
from search.models import Posting
from search.tokenizer import query_terms, terms
from shops import services as shop_services
from shops.models import Shop
from tests.factories import BlogFactory, ShopFactory, ShopTypeFactory, UserFactory

pytestmark = pytest.mark.django_db


def _ids(body: dict) -> list[int]:
    return [item["id"] for item in body["results"]]


def _hits(fragments: list[dict]) -> list[str]:
    return [f["text"] for f in fragments if f["hit"]]


def test_chinese_text_is_cut_into_words_and_their_parts() -> None:
    found = terms("海底捞火锅（人民广场店）")

    assert {"火锅", "人民", "广场", "人民广场"} <= set(found)
    assert "（" not in found  # punctuation is no term
    assert query_terms("好吃的火锅") == ["好吃", "火锅"]  # 的 is a stop word
    assert query_terms("\uff23\uff2f\uff26\uff26\uff25\uff25 Café") == [
        "coffee",
        "cafe",
    ]  # width, case, accents


def test_a_shop_saved_through_the_service_is_found_by_a_word_of_its_name(
    api, django_capture_on_commit_callbacks
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        hotpot = shop_services.shop_save(
            shop=Shop(
                name="海底捞火锅",
                type=ShopTypeFactory(name="美食"),
                area="人民广场",
                address="西藏中路 1 号",
                x=121.47,
                y=31.23,
            )
        )
        shop_services.shop_save(
            shop=Shop(
                name="纯K",
                type=ShopTypeFactory(name="KTV"),
                area="静安寺",
                address="愚园路 2 号",
                x=121.44,
                y=31.22,
            )
        )

    body = api.get("/api/search", {"q": "火锅"}).json()

    assert _ids(body) == [hotpot.id]
    assert body["count"] == 1
    item = body["results"][0]
    assert item["name"] == "海底捞火锅"
    assert item["type_id"] == hotpot.type_id  # the shop list's item shape
    assert item["highlight"]["name"] == [
        {"text": "海底捞", "hit": False},
        {"text": "火锅", "hit": True},
    ]
    assert _hits(item["highlight"]["area"]) == []


def test_matching_more_words_ranks_first_then_names_then_popularity(api) -> None:
    both = ShopFactory(name="火锅 咖啡", score=10)
    in_name = ShopFactory(name="老火锅", address="静安", score=20)
    in_address = ShopFactory(name="甲店", address="火锅街", score=50)
    popular = ShopFactory(name="新火锅", address="静安", score=48)
    index.rebuild()

    body = api.get("/api/search", {"q": "火锅咖啡"}).json()

    assert _ids(body) == [both.id, popular.id, in_name.id, in_address.id]


def test_pages_and_their_bounds(api) -> None:
    shops = [ShopFactory(name=f"咖啡馆{i}号", score=i) for i in range(12)]
    index.rebuild()

    first = api.get("/api/search", {"q": "咖啡", "page_size": 5}).json()
    third = api.get("/api/search", {"q": "咖啡", "page_size": 5, "page": 3}).json()
    past = api.get("/api/search", {"q": "咖啡", "page_size": 5, "page": 9}).json()
    capped = api.get("/api/search", {"q": "咖啡", "page_size": 500}).json()

    best_first = [s.id for s in reversed(shops)]
    assert first["count"] == 12
    assert _ids(first) == best_first[:5]
    assert first["next"].endswith("page=2&page_size=5&q=%E5%92%96%E5%95%A1")
    assert _ids(third) == best_first[10:]
    assert third["next"] is None
    assert past["results"] == []
    assert past["count"] == 12
    assert len(capped["results"]) == 12  # under the cap of 50


def test_notes_are_found_with_their_author_and_the_text_around_the_hit(api, user) -> None:
    note = BlogFactory(
        user=user,
        title="周末探店",
        content="前面是很长的铺垫。" * 20 + "这家咖啡很香，拿铁推荐。" + "后面还有。" * 20,
    )
    BlogFactory(title="火锅", content="辣")
    index.rebuild()

    body = api.get("/api/search", {"q": "咖啡", "kind": "notes"}).json()

    assert _ids(body) == [note.id]
    item = body["results"][0]
    assert item["user"] == {"id": user.id, "nick_name": user.nick_name, "icon": user.icon}
    assert item["is_liked"] is False
    content = item["highlight"]["content"]
    assert _hits(content) == ["咖啡"]
    assert content[0] == {"text": "…", "hit": False}  # cut around the hit
    assert sum(len(f["text"]) for f in content) <= 80 + 2
    assert item["highlight"]["title"] == [{"text": "周末探店", "hit": False}]


def test_users_are_found_by_nick_name_most_followed_first(api) -> None:
    few = UserFactory(nick_name="火锅少女")
    many = UserFactory(nick_name="火锅达人")
    many.info.fans = 100
    many.info.save()
    UserFactory(nick_name="咖啡控")
    index.rebuild()

    body = api.get("/api/search", {"q": "火锅", "kind": "users"}).json()

    assert _ids(body) == [many.id, few.id]
    assert set(body["results"][0]) == {"id", "nick_name", "icon", "highlight"}
    assert _hits(body["results"][0]["highlight"]["nick_name"]) == ["火锅"]


def test_a_note_edit_finds_the_new_words_and_no_longer_the_old(
    user_api, api, django_capture_on_commit_callbacks
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        created = user_api.post(
            "/api/blogs", {"title": "生煎测评", "content": "皮薄汁多"}, format="json"
        )
    note_id = created.json()["id"]
    assert _ids(api.get("/api/search", {"q": "生煎", "kind": "notes"}).json()) == [note_id]

    with django_capture_on_commit_callbacks(execute=True):
        user_api.patch(f"/api/blogs/{note_id}", {"title": "小笼包测评"}, format="json")

    assert api.get("/api/search", {"q": "生煎", "kind": "notes"}).json()["results"] == []
    assert _ids(api.get("/api/search", {"q": "小笼包", "kind": "notes"}).json()) == [note_id]

    with django_capture_on_commit_callbacks(execute=True):
        user_api.delete(f"/api/blogs/{note_id}")

    assert api.get("/api/search", {"q": "小笼包", "kind": "notes"}).json()["results"] == []
    assert not Posting.objects.filter(object_id=note_id, kind=2).exists()


def test_a_hidden_note_is_never_found_and_its_refresh_drops_it(api) -> None:
    note = BlogFactory(title="秘密火锅", content="好吃")
    index.rebuild()
    Blog.objects.filter(pk=note.id).update(status=Visibility.HIDDEN)  # a moderator's hide

    # Hidden before its refresh ran: the query's join already leaves it out.
    assert api.get("/api/search", {"q": "火锅", "kind": "notes"}).json()["results"] == []
    assert index.refresh("notes", note.id) is False
    assert not Posting.objects.filter(kind=2, object_id=note.id).exists()

    Blog.objects.filter(pk=note.id).update(status=Visibility.VISIBLE)  # restored
    assert index.refresh("notes", note.id) is True
    assert _ids(api.get("/api/search", {"q": "火锅", "kind": "notes"}).json()) == [note.id]


def test_a_rolled_back_write_changes_nothing_in_the_index(
    api, django_capture_on_commit_callbacks
) -> None:
    shop = ShopFactory(name="老店")
    index.rebuild()

    def edit_then_fail() -> None:
        with transaction.atomic():
            shop.name = "新店火锅"
            shop_services.shop_save(shop=shop, fields=["name"])
            raise RuntimeError("rolled back")

    with django_capture_on_commit_callbacks(execute=True) as callbacks, pytest.raises(RuntimeError):
        edit_then_fail()

    assert callbacks == []

    assert Posting.objects.filter(kind=1, object_id=shop.id, term="火锅").count() == 0
    assert _ids(api.get("/api/search", {"q": "老店"}).json()) == [shop.id]


def test_a_shop_delete_and_a_profile_edit_reach_the_index(
    api, user, django_capture_on_commit_callbacks
) -> None:
    shop = ShopFactory(name="烤肉王")
    index.rebuild()
    with django_capture_on_commit_callbacks(execute=True):
        shop_services.shop_delete(shop_id=shop.id)
        account_services.user_update_profile(user_id=user.id, nick_name="烤肉爱好者")

    assert api.get("/api/search", {"q": "烤肉"}).json()["results"] == []
    users = api.get("/api/search", {"q": "烤肉", "kind": "users"}).json()
    assert _ids(users) == [user.id]


def test_the_rebuild_drops_what_is_gone_and_indexes_what_bypassed_the_services(api) -> None:
    gone = ShopFactory(name="旧火锅")
    index.rebuild()
    Shop.objects.filter(pk=gone.id).delete()  # bypassing the service: no refresh
    fresh = ShopFactory(name="新火锅")

    counts = index.rebuild(only=["shops"])

    assert counts == {"shops": 1}
    assert _ids(api.get("/api/search", {"q": "火锅"}).json()) == [fresh.id]
    assert not Posting.objects.filter(kind=1, object_id=gone.id).exists()


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({}, "q"), ({"q": ""}, "q"), ({"q": "   "}, "q"), ({"q": "火" * 65}, "q"),
        ({"q": "火锅\u202e"}, "q"),
        ({"q": "火锅\x00"}, "q"), ({"q": "火锅", "kind": "blogs"}, "kind"),
        ({"q": "火锅", "kind": ""}, "kind"), ({"q": "火锅", "page": "0"}, "page"),
    ],
)  # fmt: skip
def test_bad_queries_are_400_with_the_field_named(api, query, field) -> None:
    response = api.get("/api/search", query)

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert field in response.json()["errors"]


def test_the_search_is_one_indexed_query(api, django_assert_max_num_queries) -> None:
    for i in range(30):
        ShopFactory(name=f"火锅{i}")
    index.rebuild()
    api.get("/api/search", {"q": "火锅"})  # the shops' documents cached

    with django_assert_max_num_queries(1):
        body = api.get("/api/search", {"q": "火锅"}).json()

    assert body["count"] == 30


def test_highlights_survive_text_that_normalizing_resizes() -> None:
    # "ﬁ" (one ligature) becomes "fi", "é" loses its accent: the marks still fall on the
    # original characters.
    fragments = highlight.fragments("ﬁne Café 火锅", ["fine", "cafe", "火锅"])

    assert fragments == [
        {"text": "ﬁne", "hit": True}, {"text": " ", "hit": False},
        {"text": "Café", "hit": True}, {"text": " ", "hit": False},
        {"text": "火锅", "hit": True},
    ]  # fmt: skip


def test_a_hit_across_a_chunk_edge_is_found_and_one_past_the_scan_shows_the_start() -> None:
    across = highlight.fragments("x" * 127 + "咖啡" + "y" * 500, ["咖啡"], window=80)
    far = highlight.fragments("x" * (highlight.LOCATE_MAX + 99) + "咖啡", ["咖啡"], window=80)

    assert _hits(across) == ["咖啡"]
    assert far == [{"text": "x" * 80, "hit": False}, {"text": "…", "hit": False}]


def test_marks_are_capped_per_term_and_per_field_and_a_run_is_one_hit() -> None:
    one_term = highlight.fragments("咖啡 " * 40, ["咖啡"])
    four_terms = highlight.fragments("咖啡 拿铁 火锅 烧烤 " * 15, ["咖啡", "拿铁", "火锅", "烧烤"])
    run = highlight.fragments("aaaaaaaaa b", ["aa"])

    assert _hits(one_term) == ["咖啡"] * highlight.HITS_PER_TERM
    assert len(_hits(four_terms)) == highlight.HITS_PER_FIELD
    assert run == [{"text": "aaaaaaaaa", "hit": True}, {"text": " b", "hit": False}]


def test_the_query_seeks_its_terms_in_the_covering_index() -> None:
    ShopFactory(name="火锅")
    index.rebuild()
    sql, params = DatabaseBackend._ranked(source("shops"), ["火锅", "咖啡"])

    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute(f"EXPLAIN QUERY PLAN {sql}", params)
            plan = " ".join(str(row) for row in cursor.fetchall())
            assert "COVERING INDEX search_by_term" in plan
        else:
            cursor.execute(f"EXPLAIN {sql}", params)
            columns = [c[0] for c in cursor.description]
            keys = {dict(zip(columns, row, strict=True))["key"] for row in cursor.fetchall()}
            assert "search_by_term" in keys


@pytest.mark.django_db(transaction=True)
def test_a_moderator_hiding_a_note_in_the_admin_takes_it_out_of_search(api, client) -> None:
    note = BlogFactory(title="火锅避雷", content="难吃")
    index.rebuild()
    client.force_login(UserFactory(is_staff=True, is_superuser=True))

    response = client.post("/admin/blogs/blog/", {"action": "hide", "_selected_action": [note.id]})

    assert response.status_code == 302
    assert Blog.objects.get(pk=note.id).status == Visibility.HIDDEN
    assert not Posting.objects.filter(kind=2, object_id=note.id).exists()
    assert api.get("/api/search", {"q": "火锅", "kind": "notes"}).json()["results"] == []


@pytest.mark.django_db(transaction=True)
def test_an_operator_renaming_a_user_in_the_admin_reaches_search(api, client) -> None:
    user = UserFactory(nick_name="老张")
    index.rebuild()
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    form = client.get(f"/admin/accounts/user/{user.id}/change/").context["adminform"].form
    data = {name: value for name, value in form.initial.items() if value is not None}
    data.update(nick_name="咖啡老张", date_joined_0="2026-01-01", date_joined_1="00:00:00")
    data.update(
        {
            "info-TOTAL_FORMS": 1,
            "info-INITIAL_FORMS": 1,
            "info-0-user": user.id,
            "info-0-gender": 0,
            "info-0-credits": 0,
            "info-0-level": 0,
        }
    )
    data.pop("last_login", None)
    data.pop("groups", None)
    data.pop("user_permissions", None)

    response = client.post(f"/admin/accounts/user/{user.id}/change/", data)

    assert response.status_code == 302, response.context["adminform"].form.errors
    assert _ids(api.get("/api/search", {"q": "咖啡", "kind": "users"}).json()) == [user.id]


@pytest.mark.django_db(transaction=True)
def test_a_new_introduction_reaches_people_search(api) -> None:
    from tests.helpers import client_for

    user = UserFactory(nick_name="阿明")
    index.rebuild()

    edited = client_for(user).patch(
        "/api/users/me/info", {"introduce": "爱吃小笼包"}, format="json"
    )

    assert edited.status_code == 200
    found = api.get("/api/search", {"q": "小笼包", "kind": "users"}).json()["results"]
    assert [u["id"] for u in found] == [user.id]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("page", [10**6, 2**62])
def test_a_page_far_past_the_end_is_empty(api, page) -> None:
    # schemathesis found a 500 on MariaDB: an OFFSET past 2^64 does not parse.
    ShopFactory(name="海底捞火锅")
    index.rebuild()

    response = api.get("/api/search", {"q": "火锅", "page": page, "page_size": 50})

    assert response.status_code == 200
    assert (response.json()["count"], response.json()["results"]) == (1, [])


@pytest.mark.django_db
@pytest.mark.parametrize("q", ["，。！", "的", "0" * 63])
def test_a_query_with_no_searchable_word_finds_nothing(api, q) -> None:
    # Punctuation, stop words, a 63-digit "word" (terms are 32 characters at most): the
    # schema allows them, so they are an empty page, not a 400 (schemathesis, ST202).
    ShopFactory(name="海底捞火锅")

    response = api.get("/api/search", {"q": q})

    assert response.status_code == 200
    assert (response.json()["count"], response.json()["results"]) == (0, [])
