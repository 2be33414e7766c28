"""Issue 38: a shop's owner drafts an offer (a voucher, checked by the staff API's rules),
submits it, an operator publishes it (a Voucher) or sends it back with a reason; the
owner or an operator stops a published sale early. Real database, Redis and sale."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from merchants import services
from merchants.models import OfferDraft
from notifications.models import Kind, Notification
from shops.models import ShopStaff
from tests.factories import ShopFactory, UserFactory
from tests.helpers import client_for
from tests.vouchers.sales import drain_all
from toolkit import clock
from vouchers.models import Voucher, VoucherOrder
from vouchers.sale import shard
from vouchers.sale.stock import live_stock

pytestmark = pytest.mark.django_db

State = OfferDraft.State


def _iso(moment: datetime) -> str:
    return moment.isoformat()


def _sale(**overrides) -> dict:
    """A flash sale on now, as the staff API takes it less the shop."""
    now = clock.now()
    body = {
        "title": "¥100 for ¥59",
        "sub_title": "weekdays",
        "rules": "1 each",
        "pay_value": 5900,
        "actual_value": 10000,
        "type": "seckill",
        "stock": 3,
        "begin_time": _iso(now - timedelta(minutes=1)),
        "end_time": _iso(now + timedelta(hours=3)),
        "valid_days": 30,
    }
    return {**body, **overrides}


def _url(shop_id: int, offer_id: int | None = None, move: str = "") -> str:
    url = f"/api/merchant/shops/{shop_id}/offers"
    if offer_id is not None:
        url += f"/{offer_id}"
    return url + (f"/{move}" if move else "")


def _draft(api, shop, **overrides) -> dict:
    response = api.post(_url(shop.id), _sale(**overrides), format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def _told(kind: str) -> list[tuple[int, int, int | None]]:
    rows = Notification.objects.filter(kind=kind).order_by("recipient_id")
    return list(rows.values_list("recipient_id", "shop_id", "voucher_id"))


@pytest.mark.django_db(transaction=True)  # stock loads and notifications after commit
def test_an_offer_from_draft_to_a_sale_stopped_early(
    owner, shop, clerk, admin_client, staff_user
) -> None:
    shard.ensure_groups()
    api = client_for(owner)
    co_owner = UserFactory()
    ShopStaff.objects.create(shop=shop, user=co_owner, role=ShopStaff.Role.OWNER)

    body = _draft(api, shop)
    offer = OfferDraft.objects.get()
    assert body["state"] == "draft"
    assert (body["shop_id"], body["voucher_id"], body["remaining"]) == (shop.id, None, None)
    assert body["voucher"]["title"] == "¥100 for ¥59"
    assert body["voucher"]["stock"] == 3
    assert "shop_id" not in body["voucher"]

    edited = api.patch(_url(shop.id, offer.id), {"stock": 2}, format="json")
    assert edited.status_code == 200
    assert edited.json()["voucher"]["stock"] == 2
    assert edited.json()["voucher"]["title"] == "¥100 for ¥59"  # the rest stays

    submitted = api.post(_url(shop.id, offer.id, "submit"))
    assert submitted.status_code == 200
    assert submitted.json()["state"] == "submitted"
    assert submitted.json()["submitted_at"] is not None

    # The operators' queue: submitted first; the offer's page has Publish and Send back.
    later = services.offer_create(owner_id=owner.id, shop_id=shop.id, fields=offer.fields)
    queue = admin_client.get("/admin/merchants/offerdraft/").content.decode()
    assert queue.index(f"/admin/merchants/offerdraft/{offer.id}/change/") < queue.index(
        f"/admin/merchants/offerdraft/{later.id}/change/"
    )
    page = admin_client.get(f"/admin/merchants/offerdraft/{offer.id}/change/").content.decode()
    assert f"/admin/merchants/offerdraft/{offer.id}/publish/" in page
    assert f"/admin/merchants/offerdraft/{offer.id}/send-back/" in page

    published = admin_client.post(f"/admin/merchants/offerdraft/{offer.id}/publish/")
    assert published.status_code == 302
    offer.refresh_from_db()
    voucher = Voucher.objects.get()
    assert (offer.state, offer.voucher_id, offer.decided_by_id) == (
        State.PUBLISHED,
        voucher.id,
        staff_user.id,
    )
    assert (voucher.shop_id, voucher.title, voucher.stock, voucher.type) == (
        shop.id,
        "¥100 for ¥59",
        2,
        Voucher.Kind.SECKILL,
    )
    assert _told(Kind.OFFER_APPROVED) == [
        (owner.id, shop.id, voucher.id),
        (co_owner.id, shop.id, voucher.id),
    ]
    assert not Notification.objects.filter(recipient=clerk).exists()

    # Buyers grab it through the sale's own endpoint; the owner sees the live stock.
    buyer = UserFactory()
    assert client_for(buyer).post(f"/api/vouchers/{voucher.id}/seckill").status_code == 200
    listed = api.get(_url(shop.id)).json()["results"]
    assert [(o["id"], o["state"], o["remaining"]) for o in listed] == [
        (later.id, "draft", None),
        (offer.id, "published", 1),
    ]

    stopped = api.post(_url(shop.id, offer.id, "stop"))
    assert stopped.status_code == 200
    assert (stopped.json()["state"], stopped.json()["remaining"]) == ("stopped", 1)
    assert Voucher.objects.get().status == Voucher.Status.VOID

    # No more grabs; the accepted one is drained and kept; the stock left stays unsold.
    late = client_for(UserFactory()).post(f"/api/vouchers/{voucher.id}/seckill")
    assert late.status_code != 200
    assert drain_all() == 1
    assert list(VoucherOrder.objects.values_list("user_id", "voucher_id")) == [
        (buyer.id, voucher.id)
    ]
    assert live_stock([voucher.id]) == {voucher.id: 1}

    again = api.post(_url(shop.id, offer.id, "stop"))
    assert (again.status_code, again.json()["code"]) == (409, "offer_stopped")
    # Told once, whatever ran again.
    from notifications import producers

    assert producers.offer_decided(offer_id=offer.id) == 0
    assert Notification.objects.filter(kind=Kind.OFFER_APPROVED).count() == 2


@pytest.mark.django_db(transaction=True)
def test_sent_back_with_a_reason_edited_and_submitted_again(owner, shop, admin_client) -> None:
    api = client_for(owner)
    offer_id = _draft(api, shop)["id"]
    api.post(_url(shop.id, offer_id, "submit"))

    form = admin_client.get(f"/admin/merchants/offerdraft/{offer_id}/send-back/")
    assert form.status_code == 200
    sent = admin_client.post(
        f"/admin/merchants/offerdraft/{offer_id}/send-back/", {"reason": "  Stock too low. "}
    )
    assert sent.status_code == 302

    listed = api.get(_url(shop.id)).json()["results"][0]
    assert (listed["state"], listed["reason"]) == ("returned", "Stock too low.")
    assert _told(Kind.OFFER_RETURNED) == [(owner.id, shop.id, None)]

    assert api.patch(_url(shop.id, offer_id), {"stock": 50}, format="json").status_code == 200
    resubmitted = api.post(_url(shop.id, offer_id, "submit"))
    assert resubmitted.json()["state"] == "submitted"

    # A second send back is a second round: told again, once.
    services.offer_return(offer_id=offer_id, reason="Not yet.")
    # Each round's notification keeps the reason said then.
    reasons = Notification.objects.filter(kind=Kind.OFFER_RETURNED, recipient=owner)
    assert list(reasons.order_by("id").values_list("reason", flat=True)) == [
        "Stock too low.",
        "Not yet.",
    ]
    assert OfferDraft.objects.get().submissions == 2


def test_moves_the_state_refuses_are_409_with_the_state_s_code(owner, shop) -> None:
    api = client_for(owner)
    offer_id = _draft(api, shop)["id"]

    assert api.post(_url(shop.id, offer_id, "stop")).json()["code"] == "offer_draft"
    api.post(_url(shop.id, offer_id, "submit"))
    before = OfferDraft.objects.values().get()

    for response in (
        api.patch(_url(shop.id, offer_id), {"stock": 9}, format="json"),
        api.patch(_url(shop.id, offer_id), {"stock": -1}, format="json"),  # 409 before 400
        api.post(_url(shop.id, offer_id, "submit")),
        api.post(_url(shop.id, offer_id, "stop")),
    ):
        assert (response.status_code, response.json()["code"]) == (409, "offer_submitted")
    assert OfferDraft.objects.values().get() == before

    services.offer_return(offer_id=offer_id, reason="No.")
    assert api.post(_url(shop.id, offer_id, "stop")).json()["code"] == "offer_returned"
    from toolkit.errors import Conflict

    with pytest.raises(Conflict) as refused:
        services.offer_publish(offer_id=offer_id, data={})
    assert refused.value.code == "offer_returned"
    assert Voucher.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_a_sale_that_ended_cannot_be_stopped(owner, shop, fake_clock) -> None:
    api = client_for(owner)
    offer_id = _draft(api, shop)["id"]
    api.post(_url(shop.id, offer_id, "submit"))
    offer = OfferDraft.objects.get()
    from merchants.serializers import OfferVoucherSerializer

    data = OfferVoucherSerializer(data=offer.fields)
    assert data.is_valid()
    services.offer_publish(offer_id=offer_id, data=data.validated_data)
    fake_clock.advance(4 * 3600)

    response = api.post(_url(shop.id, offer_id, "stop"))

    assert (response.status_code, response.json()["code"]) == (409, "sale_over")
    assert OfferDraft.objects.get().state == State.PUBLISHED


@pytest.mark.parametrize(
    "overrides",
    [
        {"begin_time": None}, {"end_time": "2020-01-01T00:00:00+08:00"}, {"stock": None},
        {"stock": -1}, {"pay_value": -5}, {"type": "mystery"}, {"title": ""},
        {"per_user_limit": 2}, {"discount_type": "percent", "discount_rate": None},
        {"buckets": 2, "type": "normal"},
    ],
)  # fmt: skip
def test_the_staff_api_s_validation_errors_and_nothing_written(
    owner, shop, staff_api, overrides
) -> None:
    api = client_for(owner)
    offer = api.post(_url(shop.id), _sale(**overrides), format="json")
    staff = staff_api.post(
        "/api/vouchers", {**_sale(**overrides), "shop_id": shop.id}, format="json"
    )

    assert (offer.status_code, staff.status_code) == (400, 400)
    assert offer.json() == staff.json()
    assert OfferDraft.objects.count() == 0

    offer_id = _draft(api, shop)["id"]
    before = OfferDraft.objects.values().get()
    edited = api.patch(_url(shop.id, offer_id), overrides, format="json")
    assert edited.status_code == 400
    assert OfferDraft.objects.values().get() == before


@pytest.mark.parametrize("move", ["list", "create", "edit", "submit", "stop"])
def test_only_the_shop_s_owner_reaches_its_offers(owner, shop, clerk, move) -> None:
    offer_id = _draft(client_for(owner), shop)["id"]
    other_owner = UserFactory()
    ShopStaff.objects.create(shop=ShopFactory(), user=other_owner, role=ShopStaff.Role.OWNER)
    before = OfferDraft.objects.values().get()

    def call(api, shop_id: int = shop.id):
        if move == "list":
            return api.get(_url(shop_id))
        if move == "create":
            return api.post(_url(shop_id), _sale(), format="json")
        if move == "edit":
            return api.patch(_url(shop_id, offer_id), {"stock": 9}, format="json")
        return api.post(_url(shop_id, offer_id, move))

    for caller in (other_owner, clerk, UserFactory()):
        response = call(client_for(caller))
        assert (response.status_code, response.json()["code"]) == (404, "shop_not_found")
    from rest_framework.test import APIClient

    assert call(APIClient()).status_code == 401
    assert call(client_for(owner), shop_id=2**40).status_code == 404
    if move not in ("list", "create"):  # the offer of another shop is none of this one's
        other_shop = ShopStaff.objects.get(user=other_owner).shop_id
        response = call(client_for(other_owner), shop_id=other_shop)
        assert (response.status_code, response.json()["code"]) == (404, "offer_not_found")
    assert OfferDraft.objects.count() == 1
    assert OfferDraft.objects.values().get() == before


@pytest.mark.django_db(transaction=True)
def test_owners_are_told_once_when_their_sale_starts_and_sells_out(owner, shop, clerk) -> None:
    from notifications import reminders
    from tests.vouchers.sales import start_sale

    sale = start_sale(shop=shop, stock=1, status=Voucher.Status.ACTIVE)
    elsewhere = start_sale(stock=1, status=Voucher.Status.ACTIVE)  # a shop with no owner

    assert reminders.shop_sales_notify() == 1
    assert _told(Kind.SALE_STARTED) == [(owner.id, shop.id, sale.id)]
    assert _told(Kind.SALE_SOLD_OUT) == []

    assert client_for(UserFactory()).post(f"/api/vouchers/{sale.id}/seckill").status_code == 200
    client_for(UserFactory()).post(f"/api/vouchers/{elsewhere.id}/seckill")

    assert reminders.shop_sales_notify() == 1
    assert reminders.shop_sales_notify() == 0  # once
    assert _told(Kind.SALE_SOLD_OUT) == [(owner.id, shop.id, sale.id)]
    assert not Notification.objects.filter(recipient=clerk).exists()
