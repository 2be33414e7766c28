"""Claims raced with real threads on the real database (SQLite in `make test`, MariaDB in
CI's second run, where the shop's row lock is real): one owner per shop, one pending
claim per user and shop, and no 500."""

from __future__ import annotations

import pytest

from dianping.errors import DomainError
from merchants import services
from merchants.models import ShopClaim
from notifications.models import Kind, Notification
from shops.models import ShopStaff
from tests.factories import ShopFactory, UserFactory
from tests.helpers import client_for, run_concurrently

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("claimants", [2, 6])
def test_approving_rival_claims_at_once_makes_exactly_one_owner(eager_tasks, claimants) -> None:
    shop = ShopFactory()
    users = [UserFactory() for _ in range(claimants)]
    apis = [client_for(u) for u in users]
    body = {"shop_id": shop.id, "evidence": "It is mine."}

    submitted = run_concurrently(
        lambda i: apis[i].post("/api/merchant/claims", body, format="json"), claimants
    )
    assert [r.status_code for r in submitted] == [201] * claimants
    claim_ids = [r.json()["id"] for r in submitted]
    operator = UserFactory(is_staff=True)

    def approve(i: int) -> str:
        try:
            services.claim_approve(claim_id=claim_ids[i], by_user_id=operator.id)
        except DomainError as exc:
            return exc.code
        return "approved"

    outcomes = run_concurrently(approve, claimants)

    assert sorted(outcomes) == ["approved"] + ["shop_has_owner"] * (claimants - 1)
    owners = list(ShopStaff.objects.filter(shop=shop, role=ShopStaff.Role.OWNER))
    winner = users[outcomes.index("approved")]
    assert [o.user_id for o in owners] == [winner.id]
    assert ShopStaff.objects.filter(shop=shop).count() == 1
    statuses = sorted(ShopClaim.objects.values_list("status", flat=True))
    assert statuses == ["approved"] + ["pending"] * (claimants - 1)
    assert list(Notification.objects.values_list("recipient_id", "kind")) == [
        (winner.id, Kind.CLAIM_APPROVED)
    ]


def test_one_user_s_claims_at_once_leave_one_pending() -> None:
    shop, user = ShopFactory(), UserFactory()
    api = client_for(user)
    body = {"shop_id": shop.id, "evidence": "It is mine."}

    statuses = run_concurrently(
        lambda _: api.post("/api/merchant/claims", body, format="json").status_code, 6
    )

    assert sorted(statuses) == [201] + [409] * 5
    assert ShopClaim.objects.filter(user=user, status="pending").count() == 1


def test_an_approval_racing_a_rejection_of_the_same_claim_decides_once() -> None:
    shop, user = ShopFactory(), UserFactory()
    claim = services.claim_submit(user_id=user.id, shop_id=shop.id, evidence="mine")

    def decide(i: int) -> str:
        try:
            if i % 2:
                services.claim_reject(claim_id=claim.id, reason="no")
            else:
                services.claim_approve(claim_id=claim.id)
        except DomainError as exc:
            return exc.code
        return "decided"

    outcomes = run_concurrently(decide, 6)

    assert sorted(outcomes) == ["claim_decided"] * 5 + ["decided"]
    claim.refresh_from_db()
    owners = ShopStaff.objects.filter(shop=shop, role=ShopStaff.Role.OWNER).count()
    assert owners == (1 if claim.status == "approved" else 0)
