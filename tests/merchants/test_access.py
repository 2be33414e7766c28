"""Who may do what: every merchant endpoint refuses the anonymous (401), and a shop's
staff endpoints answer anyone but its owner (another shop's owner, its own clerk, a
plain user) exactly as they answer for a shop that does not exist (404), changing
nothing. merchants.access is the one place that decides it."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from merchants import access, services
from merchants.errors import ShopNotYours
from merchants.models import ShopClaim
from shops.models import ShopStaff
from tests.factories import ShopFactory, UserFactory
from tests.helpers import client_for

pytestmark = pytest.mark.django_db

OWNER, CLERK = ShopStaff.Role.OWNER, ShopStaff.Role.CLERK
MISSING = 424242


@pytest.fixture
def cast(shop, owner, clerk):
    """The shop's owner and clerk, another shop's owner, a plain user, anonymous."""
    other_shop = ShopFactory()
    other_owner = UserFactory()
    ShopStaff.objects.create(shop=other_shop, user=other_owner, role=OWNER)
    return {
        "owner": owner,
        "clerk": clerk,
        "other_owner": other_owner,
        "plain": UserFactory(),
        "other_shop": other_shop,
    }


def _owner_only(shop_id: int, member_id: int) -> list[tuple[str, str, dict | None]]:
    url = f"/api/merchant/shops/{shop_id}/staff"
    return [
        ("get", url, None),
        ("post", url, {"phone": "13912345678"}),
        ("delete", f"{url}/{member_id}", None),
    ]


def _call(api: APIClient, method: str, url: str, body: dict | None):
    return getattr(api, method)(url, body, format="json") if body else getattr(api, method)(url)


def _state() -> tuple:
    return (
        sorted(ShopStaff.objects.values_list("shop_id", "user_id", "role")),
        sorted(ShopClaim.objects.values_list("id", "status")),
    )


@pytest.mark.parametrize("who", ["other_owner", "clerk", "plain"])
def test_owner_only_endpoints_answer_anyone_else_as_a_missing_shop(shop, cast, who) -> None:
    UserFactory(phone="13912345678")
    api = client_for(cast[who])
    before = _state()

    for method, url, body in _owner_only(shop.id, cast["clerk"].id):
        refused = _call(api, method, url, body)
        missing = _call(api, method, url.replace(f"/{shop.id}/", f"/{MISSING}/"), body)

        assert refused.status_code == 404, (method, url)
        # The same answer as for a shop that does not exist: nothing to learn from it.
        no_shop = {"detail": "商户不存在。", "code": "shop_not_found"}
        assert refused.json() == missing.json() == no_shop
    assert _state() == before


def test_the_owner_of_another_shop_cannot_reach_into_it_by_member_id(shop, cast) -> None:
    """The owner of the other shop, naming this shop's clerk under their own shop: the
    clerk is no member there (404), and nothing moves."""
    api = client_for(cast["other_owner"])
    before = _state()

    response = api.delete(f"/api/merchant/shops/{cast['other_shop'].id}/staff/{cast['clerk'].id}")

    assert (response.status_code, response.json()["code"]) == (404, "member_not_found")
    assert _state() == before


def test_every_merchant_endpoint_refuses_the_anonymous(shop, cast) -> None:
    api = APIClient()
    before = _state()
    calls = [
        ("get", "/api/merchant/claims", None),
        ("post", "/api/merchant/claims", {"shop_id": shop.id, "evidence": "mine"}),
        ("get", "/api/merchant/shops", None),
        *_owner_only(shop.id, cast["clerk"].id),
    ]

    for method, url, body in calls:
        response = _call(api, method, url, body)

        assert (response.status_code, response.json()["code"]) == (401, "not_authenticated"), url
    assert _state() == before


def test_lists_show_the_caller_s_own_only(shop, cast, user) -> None:
    unowned = ShopFactory()
    services.claim_submit(user_id=user.id, shop_id=unowned.id, evidence="mine?")
    services.claim_submit(user_id=cast["plain"].id, shop_id=ShopFactory().id, evidence="mine")

    def shops(who) -> list[tuple[int, str]]:
        results = client_for(who).get("/api/merchant/shops").json()["results"]
        return [(s["id"], s["role"]) for s in results]

    def claims(who) -> list[int]:
        results = client_for(who).get("/api/merchant/claims").json()["results"]
        return [c["shop"]["id"] for c in results]

    assert shops(cast["owner"]) == [(shop.id, "owner")]
    assert shops(cast["clerk"]) == [(shop.id, "clerk")]
    assert shops(cast["other_owner"]) == [(cast["other_shop"].id, "owner")]
    assert shops(cast["plain"]) == []
    assert claims(user) == [unowned.id]
    assert claims(cast["owner"]) == []


def test_access_decides_ownership_and_membership(shop, cast) -> None:
    owner, clerk = cast["owner"], cast["clerk"]

    assert access.owned_shop(owner.id, shop.id) == shop
    assert access.member_shop(owner.id, shop.id) == (shop, OWNER)
    assert access.member_shop(clerk.id, shop.id) == (shop, CLERK)
    refusals = [
        (access.owned_shop, clerk.id, shop.id),
        (access.owned_shop, cast["other_owner"].id, shop.id),
        (access.owned_shop, owner.id, MISSING),
        (access.member_shop, cast["plain"].id, shop.id),
        (access.member_shop, cast["other_owner"].id, shop.id),
        (access.member_shop, owner.id, MISSING),
    ]
    for check, user_id, shop_id in refusals:
        with pytest.raises(ShopNotYours) as refused:
            check(user_id, shop_id)
        assert (refused.value.status_code, refused.value.code) == (404, "shop_not_found")
