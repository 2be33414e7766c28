"""GET /api/shops/{id}/claim-state: what a shop's page needs to offer "Claim this shop"
(decision 345), read ahead of the claim's own checks."""

from __future__ import annotations

import pytest

from merchants import services
from shops.models import ShopStaff
from tests.factories import ShopFactory, UserFactory
from tests.helpers import client_for

pytestmark = pytest.mark.django_db


def _state(api, shop_id: int):
    return api.get(f"/api/shops/{shop_id}/claim-state")


def test_a_shop_without_owner_can_be_claimed_until_my_claim_waits(user, user_api, shop) -> None:
    assert _state(user_api, shop.id).json() == {
        "can_claim": True,
        "has_owner": False,
        "role": None,
        "claim": None,
    }

    created = user_api.post(
        "/api/merchant/claims", {"shop_id": shop.id, "evidence": "I run it."}, format="json"
    ).json()
    waiting = _state(user_api, shop.id).json()
    assert waiting == {"can_claim": False, "has_owner": False, "role": None, "claim": created}
    # Someone else's claim is theirs: another user may still claim.
    assert _state(client_for(UserFactory()), shop.id).json()["can_claim"] is True

    services.claim_reject(claim_id=created["id"], reason="No licence.")
    rejected = _state(user_api, shop.id).json()
    assert rejected["can_claim"] is True  # with better evidence
    assert (rejected["claim"]["status"], rejected["claim"]["reason"]) == ("rejected", "No licence.")

    services.claim_approve(
        claim_id=services.claim_submit(user_id=user.id, shop_id=shop.id, evidence="Licence.").id
    )
    assert _state(user_api, shop.id).json() | {"claim": None} == {
        "can_claim": False,
        "has_owner": True,
        "role": "owner",
        "claim": None,
    }
    assert _state(user_api, shop.id).json()["claim"]["status"] == "approved"


def test_others_learn_only_that_the_shop_has_an_owner(owner, clerk, shop) -> None:
    for caller, role in [(clerk, "clerk"), (UserFactory(), None)]:
        state = _state(client_for(caller), shop.id).json()
        assert state == {"can_claim": False, "has_owner": True, "role": role, "claim": None}


def test_a_clerk_of_a_shop_without_owner_may_claim_it(user_api, user) -> None:
    shop = ShopFactory()
    ShopStaff.objects.create(shop=shop, user=user, role=ShopStaff.Role.CLERK)
    state = _state(user_api, shop.id).json()
    assert (state["can_claim"], state["has_owner"], state["role"]) == (True, False, "clerk")


def test_no_shop_and_no_login(user_api, api, shop) -> None:
    missing = _state(user_api, shop.id + 1000)
    assert (missing.status_code, missing.json()["code"]) == (404, "shop_not_found")
    assert _state(api, shop.id).status_code == 401
