"""A shop's profile, run by its owner: price, phone, pictures and hours apply at once
(every cached copy follows); name, address and position wait as the shop's one pending
change until an operator approves it in the admin, when the cached shop, its GEO entry
and its search document follow, or rejects it, when nothing moves. Anyone but the owner
gets the 404 of a missing shop."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from django.urls import reverse

from merchants import services
from merchants.models import ShopChange
from notifications import producers
from notifications.models import Kind, Notification
from search import index
from shops import hours
from shops import services as shop_services
from shops.models import Shop, ShopStaff
from tests.factories import ShopFactory, UserFactory
from tests.helpers import client_for, run_concurrently
from toolkit.errors import DomainError

SHANGHAI = ZoneInfo("Asia/Shanghai")
HERE = {"x": 121.4737, "y": 31.2304}
THERE = {"x": 121.8000, "y": 31.1500}  # some 33 km away
NIGHTS = {"weekly": {"mon": [["17:00", "02:00"]]}}
MISSING = 424242
NO_SHOP = {"detail": "商户不存在。", "code": "shop_not_found"}

Status = ShopChange.Status


def _url(shop_id: int) -> str:
    return f"/api/merchant/shops/{shop_id}"


def _set_local(fake_clock, text: str) -> None:
    fake_clock.value = datetime.fromisoformat(text).replace(tzinfo=SHANGHAI).timestamp()


def _state() -> tuple:
    shops = Shop.objects.order_by("id").values_list(
        "name", "address", "x", "y", "avg_price", "phone", "images", "hours", "open_hours"
    )
    changes = ShopChange.objects.order_by("id").values_list("shop_id", "fields", "status")
    return list(shops), list(changes)


def _near(api, shop: Shop, point: dict) -> list[int]:
    body = api.get("/api/shops", {"type_id": shop.type_id, **point}).json()
    return [item["id"] for item in body["results"]]


def _listed_phone(api, shop: Shop) -> str:
    body = api.get("/api/shops", {"type_id": shop.type_id}).json()
    return next(item["phone"] for item in body["results"] if item["id"] == shop.id)


def _found(api, q: str) -> list[int]:
    return [item["id"] for item in api.get("/api/search", {"q": q}).json()["results"]]


# --- at once --------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_owner_sets_price_phone_pictures_and_hours_at_once(
    shop, owner, api, fake_clock
) -> None:
    _set_local(fake_clock, "2026-11-30 20:00")  # a Monday evening
    before = api.get(f"/api/shops/{shop.id}").json()  # cached now
    assert (before["avg_price"], before["open_now"], before["phone"]) == (80, None, "")
    assert _listed_phone(api, shop) == ""  # the list's copy, cached too
    body = {
        "avg_price": 88,
        "phone": "021-6234 5678",
        "images": ["/media/uploads/front.jpg", "https://img.example.com/a.png"],
        "hours": NIGHTS,
    }

    response = client_for(owner).patch(_url(shop.id), body, format="json")

    assert response.status_code == 200, response.content
    mine = response.json()
    assert (mine["avg_price"], mine["phone"], mine["images"]) == (
        88,
        "021-6234 5678",
        body["images"],
    )
    assert mine["hours"] == hours.validate(NIGHTS)
    assert (mine["open_now"], mine["open_hours"]) == (True, "17:00-02:00")
    assert (mine["pending_change"], mine["last_decision"]) == (None, None)
    public = api.get(f"/api/shops/{shop.id}").json()  # the cached copy was evicted
    assert (public["avg_price"], public["images"], public["open_now"]) == (
        88,
        body["images"],
        True,
    )
    assert public["phone"] == "021-6234 5678"  # public: customers dial it
    assert _listed_phone(api, shop) == "021-6234 5678"
    assert ShopChange.objects.count() == 0
    _set_local(fake_clock, "2026-12-01 02:00")  # the night is over: open_now follows
    assert api.get(f"/api/shops/{shop.id}").json()["open_now"] is False

    cleared = client_for(owner).patch(_url(shop.id), {"hours": None, "phone": ""}, format="json")
    assert cleared.status_code == 200
    assert (cleared.json()["hours"], cleared.json()["phone"]) == (None, "")
    public = api.get(f"/api/shops/{shop.id}").json()
    assert (public["open_now"], public["phone"]) == (None, "")


@pytest.mark.django_db
def test_the_owner_reads_the_shop_with_its_phone_and_changes(shop, owner) -> None:
    Shop.objects.filter(pk=shop.pk).update(phone="13800000000")

    body = client_for(owner).get(_url(shop.id)).json()

    assert (body["id"], body["name"], body["phone"]) == (shop.id, shop.name, "13800000000")
    assert (body["pending_change"], body["last_decision"]) == (None, None)
    assert {"open_now", "ratings"} <= set(body)  # the public answer, and more


# --- reviewed first -------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_name_address_and_position_wait_for_approval_then_everything_follows(
    shop, owner, api, admin_client
) -> None:
    Shop.objects.filter(pk=shop.pk).update(name="阿牛火锅", **HERE)
    shop_services.shop_geo_rebuild()
    index.rebuild()
    assert api.get(f"/api/shops/{shop.id}").json()["name"] == "阿牛火锅"  # cached
    assert (_near(api, shop, HERE), _near(api, shop, THERE)) == ([shop.id], [])
    assert (_found(api, "火锅"), _found(api, "咖啡")) == ([shop.id], [])
    proposed = {"name": "阿牛咖啡", "address": "愚园路 9 号", **THERE}

    response = client_for(owner).patch(_url(shop.id), proposed, format="json")

    assert response.status_code == 202, response.content
    mine = response.json()
    assert mine["name"] == "阿牛火锅"  # as it is until approved
    pending = mine["pending_change"]
    assert (pending["proposed"], pending["status"], pending["reason"]) == (
        proposed,
        "pending",
        "",
    )
    # Nothing moved yet: the cached detail, the GEO entry, the search document.
    assert api.get(f"/api/shops/{shop.id}").json()["name"] == "阿牛火锅"
    assert (_near(api, shop, HERE), _near(api, shop, THERE)) == ([shop.id], [])
    assert (_found(api, "火锅"), _found(api, "咖啡")) == ([shop.id], [])

    page = admin_client.get(reverse("admin:merchants_shopchange_change", args=[pending["id"]]))
    assert page.status_code == 200
    assert "阿牛咖啡" in page.content.decode()
    approved = admin_client.post(
        reverse("admin:merchants_shopchange_approve", args=[pending["id"]])
    )

    assert approved.status_code == 302
    detail = api.get(f"/api/shops/{shop.id}").json()
    assert (detail["name"], detail["address"], detail["x"], detail["y"]) == (
        "阿牛咖啡",
        "愚园路 9 号",
        THERE["x"],
        THERE["y"],
    )
    assert (_near(api, shop, HERE), _near(api, shop, THERE)) == ([], [shop.id])
    assert (_found(api, "火锅"), _found(api, "咖啡")) == ([], [shop.id])
    change = ShopChange.objects.get(pk=pending["id"])
    assert (change.status, change.pending, change.decided_by_id) == (
        Status.APPROVED,
        None,
        approved.wsgi_request.user.pk,
    )
    mine = client_for(owner).get(_url(shop.id)).json()
    assert mine["pending_change"] is None
    assert (mine["last_decision"]["id"], mine["last_decision"]["status"]) == (change.id, "approved")
    # Approving twice: the change is decided.
    with pytest.raises(DomainError) as refused:
        services.shop_change_approve(change_id=change.id)
    assert refused.value.code == "change_decided"


@pytest.mark.django_db(transaction=True)
def test_a_rejected_change_leaves_the_shop_as_it_was(shop, owner, api, admin_client) -> None:
    api.get(f"/api/shops/{shop.id}")  # cached
    client_for(owner).patch(_url(shop.id), {"name": "Elsewhere", "x": 100, "y": 20}, format="json")
    change = ShopChange.objects.get()
    reject = reverse("admin:merchants_shopchange_reject", args=[change.id])
    assert admin_client.get(reject).status_code == 200
    before = _state()

    blank = admin_client.post(reject, {"reason": "  "})  # a reason is needed

    assert blank.status_code == 200
    assert _state() == before
    rejected = admin_client.post(reject, {"reason": "The licence names another shop."})
    assert rejected.status_code == 302
    shop.refresh_from_db()
    assert _state() == (before[0], [(shop.id, change.fields, Status.REJECTED)])
    assert api.get(f"/api/shops/{shop.id}").json()["name"] == shop.name
    change.refresh_from_db()
    assert (change.status, change.pending, change.reason) == (
        Status.REJECTED,
        None,
        "The licence names another shop.",
    )
    mine = client_for(owner).get(_url(shop.id)).json()
    assert mine["pending_change"] is None
    assert (mine["last_decision"]["status"], mine["last_decision"]["reason"]) == (
        "rejected",
        "The licence names another shop.",
    )
    with pytest.raises(DomainError) as refused:
        services.shop_change_approve(change_id=change.id)
    assert refused.value.code == "change_decided"


@pytest.mark.django_db
def test_a_new_request_replaces_the_pending_change(shop, owner) -> None:
    api = client_for(owner)
    first = api.patch(_url(shop.id), {"name": "First"}, format="json").json()["pending_change"]

    second = api.patch(_url(shop.id), {"address": "2 Second St"}, format="json")

    assert second.status_code == 202
    assert second.json()["pending_change"]["proposed"] == {"address": "2 Second St"}
    assert list(ShopChange.objects.order_by("id").values_list("status", "pending")) == [
        (Status.REPLACED, None),
        (Status.PENDING, True),
    ]
    # What an operator read and approves is what applies: the replaced one is decided.
    with pytest.raises(DomainError) as refused:
        services.shop_change_approve(change_id=first["id"])
    assert refused.value.code == "change_decided"
    # Values the shop has already propose nothing, and leave the pending change be.
    same = api.patch(_url(shop.id), {"name": shop.name, **HERE}, format="json")
    assert same.status_code == 200
    assert same.json()["pending_change"]["proposed"] == {"address": "2 Second St"}


@pytest.mark.django_db(transaction=True)  # told after the decision's commit
def test_a_decision_tells_the_shop_s_owners_with_the_reason(
    shop, owner, clerk, admin_client
) -> None:
    api = client_for(owner)

    def propose(body: dict) -> int:
        return api.patch(_url(shop.id), body, format="json").json()["pending_change"]["id"]

    approved = propose({"name": "阿牛咖啡"})
    services.shop_change_approve(change_id=approved)
    replaced = propose({"name": "Gone"})
    rejected = propose({"address": "Far"})  # replaces the one before
    reject_url = reverse("admin:merchants_shopchange_reject", args=[rejected])
    assert admin_client.post(reject_url, {"reason": "The licence says Near."}).status_code == 302

    told = Notification.objects.filter(recipient=owner).order_by("id")
    assert list(told.values_list("kind", "shop_id", "dedup_key", "reason")) == [
        (Kind.SHOP_CHANGE_APPROVED, shop.id, f"shop_change_approved:{approved}", ""),
        (
            Kind.SHOP_CHANGE_REJECTED,
            shop.id,
            f"shop_change_rejected:{rejected}",
            "The licence says Near.",
        ),
    ]
    # The replaced change was decided by nobody: nobody is told of it; clerks are not told.
    assert ShopChange.objects.get(pk=replaced).status == Status.REPLACED
    assert not Notification.objects.exclude(recipient=owner).exists()
    # A retried task, or a second decision (refused), tells nobody twice.
    assert producers.shop_change_decided(change_id=rejected) == 0
    with pytest.raises(DomainError) as refused:
        services.shop_change_reject(change_id=rejected, reason="Again.")
    assert refused.value.code == "change_decided"
    assert told.count() == 2
    # The owner's inbox names the shop and gives the operator's words.
    inbox = api.get("/api/notifications").json()["results"]
    assert [(n["kind"], n["shop"]["name"], n["reason"]) for n in inbox] == [
        ("shop_change_rejected", "阿牛咖啡", "The licence says Near."),
        ("shop_change_approved", "阿牛咖啡", ""),
    ]


@pytest.mark.django_db
def test_a_request_with_both_kinds_applies_one_part_and_holds_the_other(shop, owner) -> None:
    response = client_for(owner).patch(_url(shop.id), {"avg_price": 60, "name": "N"}, format="json")

    assert response.status_code == 202
    assert (response.json()["avg_price"], response.json()["name"]) == (60, shop.name)
    assert response.json()["pending_change"]["proposed"] == {"name": "N"}


# --- refusals -------------------------------------------------------------------------


@pytest.fixture
def cast(shop, owner, clerk):
    other_shop = ShopFactory()
    other_owner = UserFactory()
    ShopStaff.objects.create(shop=other_shop, user=other_owner, role=ShopStaff.Role.OWNER)
    return {"other_owner": other_owner, "clerk": clerk, "plain": UserFactory()}


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["other_owner", "clerk", "plain"])
@pytest.mark.parametrize(
    "body", [None, {"avg_price": 5}, {"name": "Mine now"}], ids=["get", "now", "reviewed"]
)
def test_anyone_but_the_owner_gets_the_404_of_a_missing_shop(shop, cast, who, body) -> None:
    api = client_for(cast[who])
    before = _state()

    def call(shop_id: int):
        if body is None:
            return api.get(_url(shop_id))
        return api.patch(_url(shop_id), body, format="json")

    refused, missing = call(shop.id), call(MISSING)

    assert (refused.status_code, missing.status_code) == (404, 404)
    assert refused.json() == missing.json() == NO_SHOP
    assert _state() == before


@pytest.mark.django_db
def test_the_anonymous_are_refused(shop, owner, api) -> None:
    before = _state()

    assert api.get(_url(shop.id)).status_code == 401
    assert api.patch(_url(shop.id), {"avg_price": 5}, format="json").status_code == 401
    assert _state() == before


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"avg_price": -1}, "avg_price"),
        ({"avg_price": "12"}, "avg_price"),
        ({"phone": "call me"}, "phone"),
        ({"images": ["http://plain.example.com/a.jpg"]}, "images"),
        ({"images": ["/media/a.jpg"] * 10}, "images"),
        ({"hours": {"weekly": {"mon": [["10:00", "25:00"]]}}}, "hours"),
        ({"name": ""}, "name"),
        ({"x": 121.5}, "x"),
        ({"x": 200, "y": 31}, "x"),
        ({"avg_price": 50, "name": "Fine", "y": 91}, "y"),  # one bad field: nothing applies
    ],
)
def test_bad_input_is_a_400_and_changes_nothing(shop, owner, body, field) -> None:
    before = _state()

    response = client_for(owner).patch(_url(shop.id), body, format="json")

    assert response.status_code == 400, response.content
    assert response.json()["code"] == "invalid"
    assert field in response.json()["errors"]
    assert _state() == before


# --- races ----------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("requests", [2, 6])
def test_change_requests_at_once_leave_one_pending_change(shop, owner, requests) -> None:
    apis = [client_for(owner) for _ in range(requests)]

    answers = run_concurrently(
        lambda i: apis[i].patch(_url(shop.id), {"name": f"Name {i}"}, format="json"), requests
    )

    assert [r.status_code for r in answers] == [202] * requests
    pending = ShopChange.objects.filter(shop=shop, status=Status.PENDING)
    assert pending.count() == 1
    assert ShopChange.objects.filter(shop=shop, status=Status.REPLACED).count() == requests - 1
    assert pending.get().fields["name"] in {f"Name {i}" for i in range(requests)}


# --- the operators' queue -------------------------------------------------------------


@pytest.mark.django_db
def test_the_admin_queue_lists_pending_changes_first(shop, owner, admin_client) -> None:
    api = client_for(owner)
    api.patch(_url(shop.id), {"name": "Decided"}, format="json")
    decided = ShopChange.objects.get()
    services.shop_change_reject(change_id=decided.id, reason="No.")
    api.patch(_url(shop.id), {"name": "Waiting"}, format="json")
    waiting = ShopChange.objects.get(status=Status.PENDING)

    page = admin_client.get(reverse("admin:merchants_shopchange_changelist"))

    assert page.status_code == 200
    assert [c.id for c in page.context["cl"].result_list] == [waiting.id, decided.id]
