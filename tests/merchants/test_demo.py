"""The demo merchant `seed_demo` loads (merchants/demo.py): 13800000099 logs in by SMS like
every demo user and owns three shops, with offers in each state, the shops' replies to
reviews and a month of numbers on its dashboard; a second seed doubles nothing, and a seed
on a later day fills that day's visits only."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core.management import call_command

from accounts.demo import MERCHANT_PHONE
from accounts.models import User
from blogs.models import Blog, ReviewReply
from merchants.demo import BRAND, DASHBOARD_DAYS, RETURN_REASON, merchant_shops
from merchants.models import OfferDraft, ShopClaim
from notifications.models import Notification
from shops.models import ShopStaff
from tests.helpers import client_for
from toolkit import clock
from traffic import keys, visits
from vouchers.demo import demo_shops
from vouchers.models import Voucher, VoucherOrder, WriteOff

pytestmark = pytest.mark.django_db(transaction=True)


def _log_in(api, phone: str, outbox) -> str:
    assert api.post("/api/auth/code", {"phone": phone}, format="json").status_code == 202
    sent = re.search(r"\b(\d{6})\b", outbox[-1][1])
    assert sent is not None
    answer = api.post("/api/auth/login", {"phone": phone, "code": sent.group(1)}, format="json")
    assert answer.status_code == 200
    return answer.json()["token"]


def _counts(merchant: User) -> dict[str, object]:
    shops = merchant_shops()
    return {
        "claims": ShopClaim.objects.filter(user=merchant).count(),
        "staff": ShopStaff.objects.filter(shop__in=shops).count(),
        "reviews": Blog.objects.filter(shop__in=shops).count(),
        "replies": ReviewReply.objects.filter(shop__in=shops).count(),
        "offers": sorted(OfferDraft.objects.filter(shop__in=shops).values_list("state", flat=True)),
        "vouchers": Voucher.objects.count(),
        "orders": VoucherOrder.objects.filter(voucher__shop__in=shops).count(),
        "write-offs": WriteOff.objects.filter(shop__in=shops).count(),
        "notifications": Notification.objects.count(),
        "scores": [(s.score, s.comments) for s in merchant_shops()],
    }


def test_the_demo_merchant_runs_three_shops_with_a_month_of_history(api, sms_outbox) -> None:
    call_command("seed_demo", "--force")
    merchant = User.objects.get(phone=MERCHANT_PHONE)
    first = _counts(merchant)
    dashboards = [
        client_for(merchant).get(f"/api/merchant/shops/{shop.id}/dashboard?days=30").json()
        for shop in merchant_shops()
    ]

    call_command("seed_demo", "--force")  # idempotent: nothing doubles

    assert _counts(merchant) == first
    again = [
        client_for(merchant).get(f"/api/merchant/shops/{shop.id}/dashboard?days=30").json()
        for shop in merchant_shops()
    ]
    assert [d["by_day"] for d in again] == [d["by_day"] for d in dashboards]

    # It logs in by SMS code like the other demo users, and runs exactly three shops.
    token = _log_in(api, MERCHANT_PHONE, sms_outbox)
    mine = api.get("/api/merchant/shops", HTTP_AUTHORIZATION=f"Bearer {token}").json()
    shops = merchant_shops()
    assert [(s["id"], s["role"]) for s in mine["results"]] == [(s.id, "owner") for s in shops]
    assert all(shop.name.startswith(BRAND) for shop in shops)
    assert shops[0] == demo_shops()[0]  # where the demo coupons and the sale on now are
    assert ShopClaim.objects.filter(user=merchant, status="approved").count() == 3
    overnight = shops[2].hours
    assert overnight is not None
    assert overnight["weekly"]["sat"] == [["10:00", "02:00"]]  # open past midnight

    # The first shop's month: visitors and views every day, coupons and redemptions on
    # many, the past flash sale's orders, and the weekly rating rising over 8 weeks.
    board = dashboards[0]
    days = board["by_day"]
    assert len(days) == DASHBOARD_DAYS
    assert all(day["uv"] > 0 and day["pv"] >= day["uv"] for day in days)
    assert sum(day["claims"] > 0 for day in days) >= 10
    assert sum(day["redemptions"] > 0 for day in days) >= 10
    assert board["totals"]["sales"] == 9
    assert 0 < board["totals"]["uv"] < sum(day["uv"] for day in days)  # regulars count once
    trend = [week["average"] for week in board["rating_trend"]]
    assert None not in trend
    assert trend[-1] > trend[0]
    assert sum(board["ratings"]["histogram"]) >= 8  # eight reviewers, each counted once
    assert 0 < board["awaiting_reply_count"] < 5
    for other in dashboards[1:]:
        assert all(day["uv"] > 0 for day in other["by_day"])
        assert sum(week["reviews"] for week in other["rating_trend"]) >= 6  # and older ones

    # Offers in every state an owner meets, each in the owner's list.
    offers = {
        offer["state"]: offer
        for shop in shops
        for offer in api.get(
            f"/api/merchant/shops/{shop.id}/offers", HTTP_AUTHORIZATION=f"Bearer {token}"
        ).json()["results"]
    }
    assert set(offers) == {"draft", "submitted", "returned", "published"}
    assert offers["returned"]["reason"] == RETURN_REASON
    published = offers["published"]
    assert published["voucher"]["type"] == "seckill"
    assert published["remaining"] == 30 - 9  # Redis matches the orders (reconciled)

    # The shops' replies show under their reviews, to anyone.
    reviews = api.get(f"/api/shops/{shops[0].id}/reviews?page_size=20").json()["results"]
    replied = [review for review in reviews if review["reply"]]
    assert len(replied) == 13
    assert all(review["reply"]["shop_id"] == shops[0].id for review in replied)
    assert all(review["reply"]["created_at"] > review["created_at"] for review in replied)
    # A merchant's claims and offers were decided as an operator would: it was told.
    kinds = set(Notification.objects.filter(recipient=merchant).values_list("kind", flat=True))
    assert {"claim_approved", "offer_approved", "offer_returned"} <= kinds


def test_a_seed_on_a_later_day_adds_that_days_visits_and_nothing_else(
    fake_clock, redis_client
) -> None:
    call_command("seed_demo", "--force")
    shop = merchant_shops()[0]
    merchant = User.objects.get(phone=MERCHANT_PHONE)
    subject = visits.shop_subject(shop.id)
    month = [
        visits.local_day(clock.today() - timedelta(days=back)) for back in range(DASHBOARD_DAYS)
    ]
    views = {day: redis_client.get(keys.visits_pv(subject, day)) for day in month}
    reviews = Blog.objects.filter(shop=shop).count()
    # Each day's keys expire as the flusher's: 400 days after their day, not after the seed.
    ttl = redis_client.ttl(keys.visits_uv(subject, month[-1]))
    assert visits.RETENTION_SECONDS - DASHBOARD_DAYS * 86400 < ttl < visits.RETENTION_SECONDS

    fake_clock.advance(timedelta(days=1).total_seconds())
    call_command("seed_demo", "--force")

    today = visits.local_day(clock.today())
    assert int(redis_client.get(keys.visits_pv(subject, today)) or 0) > 0
    # The days written before are left as they were: no view counted twice.
    assert {day: redis_client.get(keys.visits_pv(subject, day)) for day in month} == views
    assert Blog.objects.filter(shop=shop).count() == reviews
    board = client_for(merchant).get(f"/api/merchant/shops/{shop.id}/dashboard?days=30").json()
    assert all(day["uv"] > 0 for day in board["by_day"])
