"""GET /api/search is limited per client address for anonymous callers and per user for
signed-in ones (decision 279): a 429 with Retry-After in the API's error shape past it."""

from __future__ import annotations

import pytest

from search import index
from tests.factories import BlogFactory
from tests.helpers import client_for, throttle_rates

pytestmark = pytest.mark.django_db

SEARCH = "/api/search"
QUERY = {"q": "咖啡", "kind": "notes"}


@pytest.fixture(autouse=True)
def _a_note() -> None:
    BlogFactory(title="咖啡", content="拿铁")
    index.rebuild()


def test_anonymous_searches_are_limited_per_address(api, settings) -> None:
    throttle_rates(settings, search_ip="3/minute")

    allowed = [api.get(SEARCH, QUERY, REMOTE_ADDR="198.51.100.1") for _ in range(3)]
    refused = api.get(SEARCH, QUERY, REMOTE_ADDR="198.51.100.1")
    # An unknown token is no sign-in: still the address's budget.
    forged = api.get(
        SEARCH, QUERY, REMOTE_ADDR="198.51.100.1", HTTP_AUTHORIZATION="Bearer " + "x" * 43
    )
    elsewhere = api.get(SEARCH, QUERY, REMOTE_ADDR="198.51.100.2")

    assert [r.status_code for r in allowed] == [200, 200, 200]
    assert allowed[0].json()["count"] == 1
    assert refused.status_code == 429
    assert refused.json() == {"detail": "请求过于频繁。", "code": "throttled"}
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert forged.status_code == 429
    assert elsewhere.status_code == 200


def test_a_refused_search_does_not_count(api, settings) -> None:
    throttle_rates(settings, search_ip="2/minute")
    for _ in range(2):
        api.get(SEARCH, QUERY, REMOTE_ADDR="198.51.100.3")

    refusals = [api.get(SEARCH, QUERY, REMOTE_ADDR="198.51.100.3") for _ in range(5)]

    assert {r.status_code for r in refusals} == {429}
    assert api.get(SEARCH, QUERY, REMOTE_ADDR="198.51.100.4").status_code == 200


def test_signed_in_searches_are_limited_per_user_not_per_address(
    api, user, other_user, settings
) -> None:
    throttle_rates(settings, search_ip="2/minute", search_user="3/minute")
    anonymous = [api.get(SEARCH, QUERY, REMOTE_ADDR="198.51.100.5") for _ in range(3)]
    signed_in = client_for(user)

    own = [signed_in.get(SEARCH, QUERY, REMOTE_ADDR="198.51.100.5") for _ in range(4)]
    other = client_for(other_user).get(SEARCH, QUERY, REMOTE_ADDR="198.51.100.5")

    assert [r.status_code for r in anonymous] == [200, 200, 429]  # the address is spent
    assert [r.status_code for r in own] == [200, 200, 200, 429]  # not for its users
    assert own[0].json()["count"] == 1
    assert int(own[-1]["Retry-After"]) >= 1
    assert other.status_code == 200
