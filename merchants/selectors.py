"""Merchant reads: a user's claims, the shops they run, a shop's staff, profile and offers (for
its owner)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Case, IntegerField, Q, QuerySet, Value, When

from shops.errors import ShopNotFound
from shops.models import Shop, ShopStaff
from vouchers.sale import stock

from .access import Role, owned_shop
from .errors import OfferNotFound
from .models import OfferDraft, ShopChange, ShopClaim

# The owner first, then the clerks in the order they joined.
_OWNER_FIRST = Case(
    When(role=Role.OWNER, then=Value(0)), default=Value(1), output_field=IntegerField()
)


def claims_mine(*, user_id: int) -> QuerySet[ShopClaim]:
    """The user's claims, newest first, with their shops."""
    return ShopClaim.objects.filter(user_id=user_id).select_related("shop").order_by("-id")


@dataclass(frozen=True, slots=True)
class ClaimState:
    """What a shop's page needs to offer "Claim this shop" to the caller: whether the shop
    has an owner, the caller's role there, and their newest claim of it."""

    has_owner: bool
    role: str | None
    claim: ShopClaim | None

    @property
    def can_claim(self) -> bool:
        """Whether a claim now would be taken (claim_submit's own checks, read ahead)."""
        pending = self.claim is not None and self.claim.status == ShopClaim.Status.PENDING
        return not self.has_owner and not pending


def claim_state(*, user_id: int, shop_id: int) -> ClaimState:
    """The caller's claim state at a shop (decision 345); 404 `shop_not_found` for no shop.
    That a shop has an owner is no secret: a claim of it answers 409 `shop_has_owner`."""
    if not Shop.objects.filter(pk=shop_id).exists():
        raise ShopNotFound()
    rows = ShopStaff.objects.filter(Q(user_id=user_id) | Q(role=Role.OWNER), shop_id=shop_id)
    roles = list(rows.values_list("user_id", "role"))
    return ClaimState(
        has_owner=any(role == Role.OWNER for _, role in roles),
        role=next((role for member, role in roles if member == user_id), None),
        claim=claims_mine(user_id=user_id).filter(shop_id=shop_id).first(),
    )


def shops_mine(*, user_id: int) -> QuerySet[ShopStaff]:
    """The user's memberships, with their shops: owned shops first, then by shop id."""
    return (
        ShopStaff.objects.filter(user_id=user_id)
        .select_related("shop")
        .order_by(_OWNER_FIRST, "shop_id")
    )


def staff_list(*, owner_id: int, shop_id: int) -> QuerySet[ShopStaff]:
    """The shop's staff for its owner (404 `shop_not_found` for anyone else): the owner,
    then the clerks in the order they joined."""
    owned_shop(owner_id, shop_id)
    return (
        ShopStaff.objects.filter(shop_id=shop_id)
        .select_related("user")
        .order_by(_OWNER_FIRST, "id")
    )


def shop_profile(*, owner_id: int, shop_id: int) -> Shop:
    """The shop as its owner sees it (404 `shop_not_found` for anyone else), with
    `pending_change` (the change waiting for an operator, or None) and `last_decision`
    (the latest approved or rejected change, with its reason, or None) set on it."""
    shop = owned_shop(owner_id, shop_id)
    changes = ShopChange.objects.filter(shop_id=shop_id)
    shop.pending_change = changes.filter(pending=True).first()  # type: ignore[attr-defined]
    decided = changes.filter(status__in=[ShopChange.Status.APPROVED, ShopChange.Status.REJECTED])
    shop.last_decision = decided.order_by("-decided_at", "-id").first()  # type: ignore[attr-defined]
    return shop


def offers_list(*, owner_id: int, shop_id: int) -> QuerySet[OfferDraft]:
    """The shop's offers for its owner (404 `shop_not_found` for anyone else), newest
    first, with their vouchers."""
    owned_shop(owner_id, shop_id)
    return OfferDraft.objects.filter(shop_id=shop_id).select_related("voucher").order_by("-id")


def offer_get(*, owner_id: int, shop_id: int, offer_id: int) -> OfferDraft:
    """One of the shop's offers for its owner; 404 `offer_not_found` for an offer of no
    shop of theirs (the same answer whether it exists elsewhere or not)."""
    offer = offers_list(owner_id=owner_id, shop_id=shop_id).filter(pk=offer_id).first()
    if offer is None:
        raise OfferNotFound()
    return offer


def offers_remaining(offers: list[OfferDraft]) -> list[OfferDraft]:
    """Sets `remaining` on each offer: a published flash sale's units left in Redis (its
    stored stock while the sale's Redis is down), else None. One round trip for all."""
    sales = [o.voucher for o in offers if o.voucher is not None and o.voucher.is_seckill]
    documents = [{"id": v.id, "stock": v.stock} for v in sales]
    left = stock.live_stock_or_stored([v.id for v in sales], documents)
    for offer in offers:
        offer.remaining = left.get(offer.voucher_id) if offer.voucher_id else None  # type: ignore[attr-defined]
    return offers
