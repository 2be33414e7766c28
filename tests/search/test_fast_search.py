"""A search's cheaper parts (decision 306): users listed from the user cache, which a
profile change or a disabled account empties at once; short texts highlighted once per
process, answering what marking them answers."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts import services as account_services
from accounts.serializers import PublicUserSerializer
from search import highlight, index
from search.tokenizer import query_terms
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)  # the user cache is evicted on commit


def _users(api, q: str) -> list[dict]:
    response = api.get("/api/search", {"q": q, "kind": "users"})
    assert response.status_code == 200
    return response.json()["results"]


def test_users_come_from_the_user_cache_as_the_serializer_wrote_them(api) -> None:
    found = [UserFactory(nick_name=f"火锅{i}号", icon=f"/imgs/icons/{i}.jpg") for i in range(3)]
    index.rebuild()
    first = _users(api, "火锅")

    with CaptureQueriesContext(connection) as queries:
        again = _users(api, "火锅")

    assert again == first
    assert len(queries) == 1  # the search; its users were cached by the first
    by_id = {item["id"]: item for item in again}
    for user in found:
        item = dict(by_id[user.id])
        item.pop("highlight")
        assert item == PublicUserSerializer(user).data
        assert list(item) == ["id", "nick_name", "icon"]  # the serializer's order, too


def test_a_new_nick_name_and_a_disabled_account_show_at_once(api) -> None:
    renamed, disabled = UserFactory(nick_name="火锅甲"), UserFactory(nick_name="火锅乙")
    index.rebuild()
    assert len(_users(api, "火锅")) == 2  # both cached

    account_services.user_update_profile(user_id=renamed.id, nick_name="火锅丙")
    disabled.is_active = False
    disabled.save()

    assert [(u["id"], u["nick_name"]) for u in _users(api, "火锅")] == [(renamed.id, "火锅丙")]


@pytest.mark.parametrize(
    ("text", "q"),
    [
        ("海底捞火锅(新天地店)", "火锅"),
        ("上海市马当路1359号", "马当路 1359"),
        ("Café COFFEE \uff43\uff4f\uff46\uff46\uff45\uff45", "coffee"),  # full width
        ("没有命中的名字", "火锅"),
        ("火" * 128, "火"),
    ],
)
def test_a_remembered_highlight_is_what_marking_gives(text: str, q: str) -> None:
    terms = query_terms(q)
    highlight._whole.cache_clear()

    first = highlight.fragments(text, terms)
    again = highlight.fragments(text, terms, window=200)

    assert first == again == highlight._fragments(text, terms, highlight.SHOWN_MAX)
    assert highlight._whole.cache_info().hits == 1


def test_a_longer_text_or_a_narrower_window_is_marked_each_time() -> None:
    terms = query_terms("火锅")
    highlight._whole.cache_clear()

    long = highlight.fragments("火锅" + "好" * 200, terms)
    cut = highlight.fragments("好" * 100 + "火锅", terms, window=80)

    assert long == highlight._fragments("火锅" + "好" * 200, terms, highlight.SHOWN_MAX)
    assert cut == highlight._fragments("好" * 100 + "火锅", terms, 80)
    assert cut[0] == {"text": highlight.ELLIPSIS, "hit": False}
    assert highlight._whole.cache_info().currsize == 0
