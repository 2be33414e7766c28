"""Who may do what: every merchant endpoint refuses the anonymous (401), and a shop's
staff endpoints answer anyone but its owner (another shop's owner, its own clerk, a
plain user) exactly as they answer for a shop that does not exist (404), changing
nothing. merchants.access is the one place that decides it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
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


# --- every merchant endpoint, in one table ---------------------------------------------
#
# Each endpoint that acts for a shop, here and in the apps below merchants (a shop's
# replies to its reviews in blogs, its redemptions in vouchers, which cannot import
# merchants.access and apply its rule from ShopStaff themselves), with who may call it
# and what anyone else gets: the answer for a missing shop (or note, or code), so nothing
# is learnt about who works where.

OWNER_ONLY, STAFF = "owner", "staff"  # owner only; owner and clerks


@dataclass(frozen=True)
class Endpoint:
    route: str  # the URL pattern's name
    method: str
    path: str  # {shop}, {offer}, {member}, {review}: the shop's own
    body: dict | None
    who: str  # OWNER_ONLY or STAFF
    # The same call made for what does not exist: whose answer a refusal must equal.
    missing: dict[str, int] = field(default_factory=lambda: {"shop": MISSING})


ENDPOINTS = [
    Endpoint("merchant-shop", "get", "/api/merchant/shops/{shop}", None, OWNER_ONLY),
    Endpoint("merchant-shop", "patch", "/api/merchant/shops/{shop}", {"avg_price": 5}, OWNER_ONLY),
    Endpoint("merchant-shop", "patch", "/api/merchant/shops/{shop}", {"name": "Mine"}, OWNER_ONLY),
    Endpoint("merchant-dashboard", "get", "/api/merchant/shops/{shop}/dashboard", None, STAFF),
    Endpoint("merchant-dashboard-csv", "get", "/api/merchant/shops/{shop}/dashboard.csv", None,
             STAFF),
    Endpoint("merchant-staff", "get", "/api/merchant/shops/{shop}/staff", None, OWNER_ONLY),
    Endpoint("merchant-staff", "post", "/api/merchant/shops/{shop}/staff",
             {"phone": "13912345678"}, OWNER_ONLY),
    Endpoint("merchant-staff-member", "delete", "/api/merchant/shops/{shop}/staff/{member}",
             None, OWNER_ONLY),
    Endpoint("merchant-offers", "get", "/api/merchant/shops/{shop}/offers", None, OWNER_ONLY),
    Endpoint("merchant-offers", "post", "/api/merchant/shops/{shop}/offers",
             {"title": "Mine", "pay_value": 0, "actual_value": 100}, OWNER_ONLY),
    Endpoint("merchant-offer", "patch", "/api/merchant/shops/{shop}/offers/{offer}",
             {"title": "Mine"}, OWNER_ONLY),
    Endpoint("merchant-offer-submit", "post", "/api/merchant/shops/{shop}/offers/{offer}/submit",
             None, OWNER_ONLY),
    Endpoint("merchant-offer-stop", "post", "/api/merchant/shops/{shop}/offers/{offer}/stop",
             None, OWNER_ONLY),
    Endpoint("blog-reply", "put", "/api/blogs/{review}/reply", {"text": "Thanks!"}, STAFF,
             {"review": MISSING}),
    Endpoint("blog-reply", "delete", "/api/blogs/{review}/reply", None, STAFF,
             {"review": MISSING}),
    Endpoint("shop-redemptions", "get", "/api/shops/{shop}/redemptions", None, STAFF),
]  # fmt: skip

# Endpoints that name no shop, or that refuse nobody: scoped to the caller by what they
# are, each tested where its comment says.
SCOPED_ELSEWHERE = {
    "merchant-claims": "the caller's own claims (test_lists_show_the_caller_s_own_only)",
    "merchant-shops": "the caller's own shops (test_lists_show_the_caller_s_own_only)",
    "shop-reply-state": "the caller's own role at a public shop: false for anyone else "
    "(test_the_reply_state_tells_nobody_else_anything)",
    "redemptions": "a code, not a shop: another shop's code is an unknown code's 404, and "
    "someone on no shop's staff a 403 (test_redeeming_refuses_the_same_cast)",
}


# The routes of the apps below merchants that act for a shop.
ROUTES_BELOW = {"blog-reply", "shop-reply-state", "shop-redemptions", "redemptions"}


def _patterns(patterns) -> Iterator[URLPattern]:
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _patterns(pattern.url_patterns)
        else:
            yield pattern


def _merchant_routes() -> dict[str, set[str]]:
    """Every URL pattern that acts for a shop (merchants' API, and ROUTES_BELOW): its name
    and the methods its viewset answers."""
    return {
        pattern.name: set(getattr(pattern.callback, "actions", {})) - {"head"}  # a GET's
        for pattern in _patterns(get_resolver().url_patterns)
        if pattern.name and (pattern.name.startswith("merchant-") or pattern.name in ROUTES_BELOW)
    }


def test_the_table_names_every_merchant_endpoint() -> None:
    """A new merchant endpoint, or a new method of one, joins ENDPOINTS (or
    SCOPED_ELSEWHERE), or this fails."""
    routes = _merchant_routes()

    assert {e.route for e in ENDPOINTS} | set(SCOPED_ELSEWHERE) == set(routes)
    for route, methods in routes.items():
        if route not in SCOPED_ELSEWHERE:
            assert methods == {e.method for e in ENDPOINTS if e.route == route}, route


@pytest.fixture
def world(shop, owner, clerk):
    """The shop with an offer, a review and a paid coupon of its own; another shop's
    owner; a plain user (UserFactory(phone=...) so the staff POST finds an account)."""
    from blogs.models import Blog
    from tests.factories import BlogFactory

    UserFactory(phone="13912345678")
    other_owner = UserFactory()
    ShopStaff.objects.create(shop=ShopFactory(), user=other_owner, role=OWNER)
    offer = services.offer_create(
        owner_id=owner.id,
        shop_id=shop.id,
        fields={"title": "Ours", "pay_value": 0, "actual_value": 100, "type": "normal"},
    )
    review = BlogFactory(shop=shop, rating=4)
    assert Blog.objects.filter(pk=review.id, rating=4).exists()
    ids = {"shop": shop.id, "offer": offer.id, "member": clerk.id, "review": review.id}
    return {
        "ids": ids,
        "callers": {"other_owner": other_owner, "clerk": clerk, "plain": UserFactory()},
    }


def _world_state() -> tuple:
    from blogs.models import ReviewReply
    from merchants.models import OfferDraft, ShopChange
    from shops.models import Shop

    return (
        *_state(),
        sorted(OfferDraft.objects.values_list("id", "state", "fields")),
        sorted(ShopChange.objects.values_list("id", "status")),
        sorted(ReviewReply.objects.values_list("id", "text")),
        sorted(Shop.objects.values_list("id", "name", "avg_price")),
    )


def _request(api: APIClient, endpoint: Endpoint, ids: dict[str, int]):
    return _call(api, endpoint.method, endpoint.path.format(**ids), endpoint.body)


# (endpoint, caller it refuses): another shop's owner and a plain user everywhere, the
# shop's own clerk where only its owner is served.
REFUSALS = [
    (endpoint, who)
    for endpoint in ENDPOINTS
    for who in ("other_owner", "clerk", "plain")
    if not (who == "clerk" and endpoint.who == STAFF)
]
REFUSED = {"shop_not_found", "review_not_found"}


@pytest.mark.parametrize(
    ("endpoint", "who"), REFUSALS, ids=[f"{e.method} {e.path} as {w}" for e, w in REFUSALS]
)
def test_every_endpoint_answers_anyone_but_those_it_serves_as_for_nothing(
    world, endpoint, who
) -> None:
    api = client_for(world["callers"][who])
    before = _world_state()

    refused = _request(api, endpoint, world["ids"])
    missing = _request(api, endpoint, {**world["ids"], **endpoint.missing})

    assert refused.status_code == 404, refused.content
    assert refused.json() == missing.json()
    assert refused.json()["code"] in REFUSED
    assert _world_state() == before


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=[f"{e.method} {e.path}" for e in ENDPOINTS])
def test_those_each_endpoint_serves_get_past_its_scope(world, owner, endpoint) -> None:
    """The table's `who` is what the endpoint does: its owner (and, where it serves
    them, the shop's clerk) get an answer of the shop's, never the refusal."""
    callers = [owner] + ([world["callers"]["clerk"]] if endpoint.who == STAFF else [])
    for caller in callers:
        response = _request(client_for(caller), endpoint, world["ids"])
        assert response.status_code < 500
        if response.status_code >= 400:
            assert response.json()["code"] not in REFUSED, response.content


def test_the_reply_state_tells_nobody_else_anything(world) -> None:
    path = "/api/shops/{shop}/reviews/reply-state".format(**world["ids"])
    for who, caller in world["callers"].items():
        expected = {"can_reply": who == "clerk", "role": "clerk" if who == "clerk" else None}
        assert client_for(caller).get(path).json() == expected, who


def test_redeeming_refuses_the_same_cast(world, owner) -> None:
    from tests.factories import NormalVoucherFactory
    from vouchers.models import VoucherOrder

    buyer = UserFactory()
    voucher = NormalVoucherFactory(shop_id=world["ids"]["shop"], pay_value=0)
    order_id = client_for(buyer).post(f"/api/vouchers/{voucher.id}/claim").json()["order_id"]
    code = VoucherOrder.objects.get(pk=order_id).redeem_code
    assert code is not None  # paid: it has one
    unknown = "000000000000" if code != "0" * 12 else "111111111111"

    def redeem(user, with_code: str):
        return client_for(user).post("/api/redemptions", {"code": with_code}, format="json")

    # Another shop's owner: this shop's code is, to them, a code of nothing.
    other = world["callers"]["other_owner"]
    theirs, nothing = redeem(other, code), redeem(other, unknown)
    assert (theirs.status_code, theirs.json()) == (404, nothing.json())
    # Someone on no shop's staff is refused before any code is looked at (decision 94).
    plain = world["callers"]["plain"]
    assert redeem(plain, code).json() == redeem(plain, unknown).json()
    assert redeem(plain, code).status_code == 403
    assert VoucherOrder.objects.get(pk=order_id).status == "paid"
    # The shop's own clerk redeems it.
    assert redeem(world["callers"]["clerk"], code).status_code == 201
