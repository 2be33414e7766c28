"""Issue 38: a user claims a shop, an operator approves or rejects it in the admin, the
user is told; an owner runs the shop's staff. Real database, Redis and upload pipeline."""

from __future__ import annotations

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from accounts.tokens import mask_phone
from merchants import services
from merchants.errors import ClaimDecided, ShopHasOwner
from merchants.models import ShopClaim
from notifications.models import Kind, Notification
from shops.models import ShopStaff
from tests.factories import ShopFactory, UserFactory
from tests.helpers import client_for, throttle_rates
from toolkit.errors import InvalidInput

pytestmark = pytest.mark.django_db

OWNER, CLERK = ShopStaff.Role.OWNER, ShopStaff.Role.CLERK


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def _photo() -> SimpleUploadedFile:
    out = io.BytesIO()
    Image.new("RGB", (320, 240), (200, 30, 30)).save(out, format="JPEG")
    return SimpleUploadedFile("licence.jpg", out.getvalue())


def _claim(api, shop_id: int, **body):
    body = {"shop_id": shop_id, "evidence": "I run it.", **body}
    return api.post("/api/merchant/claims", body, format="json")


def _roles(shop) -> dict[int, str]:
    return dict(ShopStaff.objects.filter(shop=shop).values_list("user_id", "role"))


@pytest.mark.django_db(transaction=True)  # told after the decision's commit
def test_a_claim_end_to_end_through_the_api_and_the_admin(
    user, user_api, shop, staff_user, admin_client
) -> None:
    # The picture goes through the upload pipeline first, as a note's do.
    upload = user_api.post("/api/uploads", {"file": _photo()}, format="multipart")
    assert upload.status_code == 201
    picture = upload.json()["url"]

    evidence = "  The licence is in my name.\r\n "
    created = _claim(user_api, shop.id, evidence=evidence, picture=picture)

    assert created.status_code == 201
    body = created.json()
    claim = ShopClaim.objects.get()
    assert body == {
        "id": claim.id,
        "shop": {"id": shop.id, "name": shop.name},
        "evidence": "The licence is in my name.",
        "picture": picture,
        "status": "pending",
        "reason": "",
        "created_at": body["created_at"],
        "decided_at": None,
    }
    assert user_api.get("/api/merchant/claims").json()["results"] == [body]
    assert user_api.get("/api/merchant/shops").json()["results"] == []

    # The operator's queue and the claim's page: shop (a link), user, evidence, picture.
    queue = admin_client.get("/admin/merchants/shopclaim/?status__exact=pending")
    assert queue.status_code == 200
    assert f"/admin/shops/shop/{shop.id}/change/" in queue.content.decode()
    page = admin_client.get(f"/admin/merchants/shopclaim/{claim.id}/change/").content.decode()
    assert f"/admin/shops/shop/{shop.id}/change/" in page
    assert f"/admin/accounts/user/{user.id}/change/" in page
    assert "The licence is in my name." in page
    assert f'<img src="{picture}"' in page
    assert f"/admin/merchants/shopclaim/{claim.id}/approve/" in page
    assert f"/admin/merchants/shopclaim/{claim.id}/reject/" in page
    assert 'name="_save"' not in page  # decided by the buttons, never saved by hand

    approved = admin_client.post(f"/admin/merchants/shopclaim/{claim.id}/approve/")

    assert approved.status_code == 302
    claim.refresh_from_db()
    assert (claim.status, claim.decided_by_id, claim.pending) == ("approved", staff_user.id, None)
    assert claim.decided_at is not None
    assert _roles(shop) == {user.id: OWNER}
    told = Notification.objects.get(recipient=user)
    assert (told.kind, told.shop_id) == (Kind.CLAIM_APPROVED, shop.id)
    decided_page = admin_client.get(f"/admin/merchants/shopclaim/{claim.id}/change/")
    assert f"/shopclaim/{claim.id}/approve/" not in decided_page.content.decode()

    mine = user_api.get("/api/merchant/shops").json()
    assert [(s["id"], s["name"], s["role"]) for s in mine["results"]] == [
        (shop.id, shop.name, "owner")
    ]
    assert user_api.get("/api/merchant/claims").json()["results"][0]["status"] == "approved"

    # The owner runs the staff: a clerk by phone (again: the same, 200), listed, removed.
    clerk = UserFactory(nick_name="Xiao Li")
    staff_url = f"/api/merchant/shops/{shop.id}/staff"
    added = user_api.post(staff_url, {"phone": clerk.phone}, format="json")
    assert added.status_code == 201
    assert added.json() == {
        "user": {"id": clerk.id, "nick_name": "Xiao Li", "icon": clerk.icon},
        "phone": mask_phone(clerk.phone),
        "role": "clerk",
        "since": added.json()["since"],
    }
    again = user_api.post(staff_url, {"phone": clerk.phone}, format="json")
    assert (again.status_code, again.json()) == (200, added.json())
    listed = user_api.get(staff_url).json()
    assert listed["count"] == 2
    assert [(m["user"]["id"], m["role"]) for m in listed["results"]] == [
        (user.id, "owner"),
        (clerk.id, "clerk"),
    ]
    clerk_api = client_for(clerk)
    assert [s["role"] for s in clerk_api.get("/api/merchant/shops").json()["results"]] == ["clerk"]

    assert user_api.delete(f"{staff_url}/{clerk.id}").status_code == 204
    assert _roles(shop) == {user.id: OWNER}
    assert clerk_api.get("/api/merchant/shops").json()["results"] == []
    gone = user_api.delete(f"{staff_url}/{clerk.id}")
    assert (gone.status_code, gone.json()["code"]) == (404, "member_not_found")


def test_a_clerk_whose_claim_is_approved_becomes_the_owner(shop, clerk) -> None:
    claim = services.claim_submit(user_id=clerk.id, shop_id=shop.id, evidence="I bought it.")

    services.claim_approve(claim_id=claim.id)

    assert _roles(shop) == {clerk.id: OWNER}  # the same membership, promoted
    assert ShopStaff.objects.filter(shop=shop).count() == 1


@pytest.mark.django_db(transaction=True)  # told after the decision's commit
def test_a_rejection_asks_a_reason_and_tells_the_user(user, user_api, shop, admin_client) -> None:
    claim = ShopClaim.objects.get(id=_claim(user_api, shop.id).json()["id"])
    reject_url = f"/admin/merchants/shopclaim/{claim.id}/reject/"

    form = admin_client.get(reject_url)
    assert form.status_code == 200
    assert 'name="reason"' in form.content.decode()
    blank = admin_client.post(reject_url, {"reason": "   "})
    assert blank.status_code == 200  # the form again, with its error
    assert ShopClaim.objects.get().status == "pending"

    done = admin_client.post(reject_url, {"reason": "The licence names someone else."})

    assert done.status_code == 302
    claim.refresh_from_db()
    assert (claim.status, claim.reason) == ("rejected", "The licence names someone else.")
    assert _roles(shop) == {}
    told = Notification.objects.get(recipient=user)
    assert (told.kind, told.shop_id, told.reason) == (
        Kind.CLAIM_REJECTED,
        shop.id,
        "The licence names someone else.",
    )
    mine = user_api.get("/api/merchant/claims").json()["results"]
    assert [(c["status"], c["reason"]) for c in mine] == [
        ("rejected", "The licence names someone else.")
    ]
    # Rejected, the user may try again with better evidence.
    assert _claim(user_api, shop.id, evidence="Here is the new licence.").status_code == 201


@pytest.mark.django_db(transaction=True)  # told after the decision's commit
def test_the_queue_s_bulk_actions_go_through_the_services(admin_client) -> None:
    shops = [ShopFactory() for _ in range(3)]
    users = [UserFactory() for _ in range(4)]
    first, second, third = (
        services.claim_submit(user_id=users[i].id, shop_id=shops[i].id, evidence="mine")
        for i in range(3)
    )
    rival = services.claim_submit(user_id=users[3].id, shop_id=shops[0].id, evidence="no, mine")
    services.claim_reject(claim_id=third.id, reason="no proof")

    listing = admin_client.get("/admin/merchants/shopclaim/").content.decode()
    # Pending first (newest first among them), then the decided ones.
    order = [c.id for c in (rival, second, first, third)]
    positions = [listing.index(f"/admin/merchants/shopclaim/{i}/change/") for i in order]
    assert positions == sorted(positions)

    approve = {"action": "approve", "_selected_action": [first.id, rival.id, second.id]}
    response = admin_client.post(
        "/admin/merchants/shopclaim/", approve, follow=True, HTTP_ACCEPT_LANGUAGE="en"
    )

    messages = [str(m) for m in response.context["messages"]]
    assert f"Claim {rival.id}: The shop already has an owner." in messages
    assert "2 claims approved." in messages
    statuses = dict(ShopClaim.objects.values_list("id", "status"))
    assert statuses == {
        first.id: "approved",
        second.id: "approved",
        third.id: "rejected",
        rival.id: "pending",
    }
    assert _roles(shops[0]) == {users[0].id: OWNER}

    ask = admin_client.post(
        "/admin/merchants/shopclaim/", {"action": "reject", "_selected_action": [rival.id]}
    )
    assert ask.status_code == 200  # the page asking the reason
    assert 'name="reason"' in ask.content.decode()
    assert ShopClaim.objects.get(pk=rival.id).status == "pending"
    admin_client.post(
        "/admin/merchants/shopclaim/",
        {"action": "reject", "_selected_action": [rival.id], "reason": "The shop has an owner."},
    )
    rival.refresh_from_db()
    assert (rival.status, rival.reason) == ("rejected", "The shop has an owner.")
    assert Notification.objects.filter(kind=Kind.CLAIM_REJECTED, recipient=users[3]).count() == 1


def test_an_owned_shop_cannot_be_claimed_and_a_pending_claim_not_repeated(
    user, user_api, shop
) -> None:
    assert _claim(user_api, shop.id).status_code == 201
    again = _claim(user_api, shop.id)
    assert (again.status_code, again.json()["code"]) == (409, "claim_pending")

    services.claim_approve(claim_id=ShopClaim.objects.get().id)
    other = client_for(UserFactory())
    owned = _claim(other, shop.id)

    assert (owned.status_code, owned.json()["code"]) == (409, "shop_has_owner")
    assert ShopClaim.objects.count() == 1


def test_a_decided_claim_stays_decided(user, shop) -> None:
    claim = services.claim_submit(user_id=user.id, shop_id=shop.id, evidence="mine")
    services.claim_approve(claim_id=claim.id)

    with pytest.raises(ClaimDecided):
        services.claim_approve(claim_id=claim.id)
    with pytest.raises(ClaimDecided):
        services.claim_reject(claim_id=claim.id, reason="changed my mind")
    assert ShopClaim.objects.get().status == "approved"


def test_a_second_claim_of_an_owned_shop_cannot_be_approved(user, other_user, shop) -> None:
    mine = services.claim_submit(user_id=user.id, shop_id=shop.id, evidence="mine")
    theirs = services.claim_submit(user_id=other_user.id, shop_id=shop.id, evidence="theirs")
    services.claim_approve(claim_id=mine.id)

    with pytest.raises(ShopHasOwner):
        services.claim_approve(claim_id=theirs.id)
    assert _roles(shop) == {user.id: OWNER}
    assert ShopClaim.objects.get(pk=theirs.id).status == "pending"


def test_a_rejection_needs_a_reason(user, shop) -> None:
    claim = services.claim_submit(user_id=user.id, shop_id=shop.id, evidence="mine")

    with pytest.raises(InvalidInput):
        services.claim_reject(claim_id=claim.id, reason=" \n ")
    with pytest.raises(InvalidInput):
        services.claim_reject(claim_id=claim.id, reason="x" * 501)
    assert ShopClaim.objects.get().status == "pending"
    assert not Notification.objects.exists()


def test_staff_refusals_of_the_owner(shop, owner, clerk) -> None:
    api = client_for(owner)
    url = f"/api/merchant/shops/{shop.id}/staff"

    unknown = api.post(url, {"phone": "13999999999"}, format="json")
    self_add = api.post(url, {"phone": owner.phone}, format="json")
    remove_owner = api.delete(f"{url}/{owner.id}")
    stranger = api.delete(f"{url}/{UserFactory().id}")

    assert (unknown.status_code, unknown.json()["code"]) == (404, "user_not_found")
    assert (self_add.status_code, self_add.json()["role"]) == (200, "owner")  # as it was
    assert (remove_owner.status_code, remove_owner.json()["code"]) == (409, "owner_not_removable")
    assert (stranger.status_code, stranger.json()["code"]) == (404, "member_not_found")
    assert _roles(shop) == {owner.id: OWNER, clerk.id: CLERK}


BAD_CLAIMS = [
    {"evidence": "I run it."},  # no shop
    {"shop_id": "1", "evidence": "I run it."},
    {"shop_id": True, "evidence": "I run it."},
    {"shop_id": 1.0, "evidence": "I run it."},
    {"shop_id": "SHOP"},  # no evidence
    {"shop_id": "SHOP", "evidence": "   "},
    {"shop_id": "SHOP", "evidence": "x" * 1001},
    {"shop_id": "SHOP", "evidence": 42},
    {"shop_id": "SHOP", "evidence": "I run it\u202e."},
    {"shop_id": "SHOP", "evidence": "I run it.", "picture": "http://example.com/a.jpg"},
    {"shop_id": "SHOP", "evidence": "I run it.", "picture": "javascript:alert(1)"},
    {"shop_id": "SHOP", "evidence": "I run it.", "picture": "/media/../etc/passwd"},
    {"shop_id": "SHOP", "evidence": "I run it.", "picture": None},
]


@pytest.mark.parametrize("body", BAD_CLAIMS)
def test_a_bad_claim_is_a_400_and_changes_nothing(user_api, shop, body) -> None:
    body = {k: shop.id if v == "SHOP" else v for k, v in body.items()}

    response = user_api.post("/api/merchant/claims", body, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert not ShopClaim.objects.exists()


def test_a_claim_of_no_shop_is_a_409_and_changes_nothing(user_api) -> None:
    response = _claim(user_api, 424242)

    assert (response.status_code, response.json()["code"]) == (409, "shop_not_found")
    assert not ShopClaim.objects.exists()


@pytest.mark.parametrize("phone", ["", "1380000000", "23800000000", "138000000001", 13800000001])
def test_a_bad_phone_is_a_400_and_changes_nothing(shop, owner, phone) -> None:
    response = client_for(owner).post(
        f"/api/merchant/shops/{shop.id}/staff", {"phone": phone}, format="json"
    )

    assert (response.status_code, response.json()["code"]) == (400, "invalid")
    assert _roles(shop) == {owner.id: OWNER}


def test_claims_are_rate_limited_per_user(settings, user_api) -> None:
    throttle_rates(settings, shop_claim_user="2/minute")
    shops = [ShopFactory() for _ in range(3)]

    statuses = [_claim(user_api, s.id).status_code for s in shops]

    assert statuses == [201, 201, 429]
    assert ShopClaim.objects.count() == 2
