"""Claims and offers raced with real threads on the real database (SQLite in `make test`,
MariaDB in CI's second run, where the row locks are real): one owner per shop, one
pending claim per user and shop, an offer's every move decided once (merchants.offers),
and no 500."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from merchants import services
from merchants.models import OfferDraft, ShopClaim
from merchants.serializers import OfferVoucherSerializer
from notifications.models import Kind, Notification
from shops.models import ShopStaff
from tests.factories import ShopFactory, UserFactory
from tests.helpers import client_for, run_concurrently
from tests.vouchers.sales import drain_all
from toolkit import clock
from toolkit.errors import DomainError
from vouchers.models import Voucher, VoucherOrder
from vouchers.sale import shard
from vouchers.sale.stock import live_stock

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


# --- offers ---------------------------------------------------------------------------


def _outcome(move) -> str:
    """What a racer got: "ok", or the code of the refusal."""
    try:
        move()
    except DomainError as exc:
        return exc.code
    return "ok"


def _submitted_offer(owner) -> tuple[OfferDraft, dict[str, Any]]:
    """A submitted flash-sale offer of `owner`'s shop (on now, 5 units), and the voucher
    data an operator's Publish validates it into (as the admin does)."""
    shop_id = ShopStaff.objects.get(user=owner, role=ShopStaff.Role.OWNER).shop_id
    now = clock.now()
    fields = {
        "title": "¥100 for ¥59",
        "pay_value": 5900,
        "actual_value": 10000,
        "type": "seckill",
        "stock": 5,
        "begin_time": (now - timedelta(minutes=1)).isoformat(),
        "end_time": (now + timedelta(hours=3)).isoformat(),
        "valid_days": 30,
    }
    offer = services.offer_create(owner_id=owner.id, shop_id=shop_id, fields=fields)
    services.offer_submit(owner_id=owner.id, shop_id=shop_id, offer_id=offer.id)
    data = OfferVoucherSerializer(data=offer.fields)
    assert data.is_valid(), data.errors
    return offer, data.validated_data


@pytest.mark.parametrize("operators", [2, 6])
def test_operators_publishing_one_offer_at_once_make_one_voucher(
    eager_tasks, owner, operators
) -> None:
    offer, data = _submitted_offer(owner)
    deciders = [UserFactory(is_staff=True) for _ in range(operators)]

    outcomes = run_concurrently(
        lambda i: _outcome(
            lambda: services.offer_publish(offer_id=offer.id, data=data, by_user_id=deciders[i].id)
        ),
        operators,
    )

    assert sorted(outcomes) == ["offer_published"] * (operators - 1) + ["ok"]
    voucher = Voucher.objects.get()  # one offer, one voucher
    offer.refresh_from_db()
    winner = deciders[outcomes.index("ok")]
    assert (offer.state, offer.voucher_id, offer.decided_by_id) == (
        OfferDraft.State.PUBLISHED,
        voucher.id,
        winner.id,
    )
    assert live_stock([voucher.id]) == {voucher.id: 5}  # loaded once, whole
    assert list(Notification.objects.values_list("recipient_id", "kind", "voucher_id")) == [
        (owner.id, Kind.OFFER_APPROVED, voucher.id)
    ]


@pytest.mark.parametrize("racers", [2, 6])
def test_a_publish_racing_a_send_back_decides_once(eager_tasks, owner, racers) -> None:
    offer, data = _submitted_offer(owner)

    def decide(i: int) -> str:
        if i % 2:
            return (
                "returned"
                if _outcome(
                    lambda: services.offer_return(offer_id=offer.id, reason="Stock too high.")
                )
                == "ok"
                else "refused"
            )
        return (
            "published"
            if _outcome(lambda: services.offer_publish(offer_id=offer.id, data=data)) == "ok"
            else "refused"
        )

    outcomes = run_concurrently(decide, racers)

    won = [o for o in outcomes if o != "refused"]
    assert len(won) == 1, outcomes
    offer.refresh_from_db()
    told = list(Notification.objects.values_list("kind", flat=True))
    if won == ["published"]:
        assert (offer.state, offer.reason) == (OfferDraft.State.PUBLISHED, "")
        assert Voucher.objects.get().pk == offer.voucher_id
        assert told == [Kind.OFFER_APPROVED]
    else:
        assert (offer.state, offer.reason) == (OfferDraft.State.RETURNED, "Stock too high.")
        assert offer.voucher_id is None
        assert not Voucher.objects.exists()  # a publish that lost left nothing behind
        assert told == [Kind.OFFER_RETURNED]


def test_the_owner_s_stop_racing_an_operator_s_stop_stops_the_sale_once(owner) -> None:
    shard.ensure_groups()
    offer, data = _submitted_offer(owner)
    services.offer_publish(offer_id=offer.id, data=data)
    offer.refresh_from_db()
    voucher_id = offer.voucher_id
    assert voucher_id is not None
    buyers = [UserFactory() for _ in range(2)]
    for buyer in buyers:
        assert client_for(buyer).post(f"/api/vouchers/{voucher_id}/seckill").status_code == 200
    owner_api = client_for(owner)
    stop_url = f"/api/merchant/shops/{offer.shop_id}/offers/{offer.id}/stop"

    def stop(i: int) -> str:
        if i % 2:  # the owner, through the API
            response = owner_api.post(stop_url)
            return "ok" if response.status_code == 200 else response.json()["code"]
        return _outcome(lambda: services.offer_stop(offer_id=offer.id))  # an operator

    outcomes = run_concurrently(stop, 4)

    assert sorted(outcomes) == ["offer_stopped"] * 3 + ["ok"]
    offer.refresh_from_db()
    assert offer.state == OfferDraft.State.STOPPED
    assert Voucher.objects.get().status == Voucher.Status.VOID
    # Stock frozen where it was, and the orders Redis accepted reach the database.
    assert live_stock([voucher_id]) == {voucher_id: 3}
    late = client_for(UserFactory()).post(f"/api/vouchers/{voucher_id}/seckill")
    assert late.status_code == 409
    assert drain_all() == 2
    assert sorted(VoucherOrder.objects.values_list("user_id", flat=True)) == sorted(
        b.id for b in buyers
    )
