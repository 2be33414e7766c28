"""Merchant reads: a user's claims, the shops they run, a shop's staff and profile (for
its owner)."""

from __future__ import annotations

from django.db.models import Case, IntegerField, QuerySet, Value, When

from shops.models import Shop, ShopStaff

from .access import Role, owned_shop
from .models import ShopChange, ShopClaim

# The owner first, then the clerks in the order they joined.
_OWNER_FIRST = Case(
    When(role=Role.OWNER, then=Value(0)), default=Value(1), output_field=IntegerField()
)


def claims_mine(*, user_id: int) -> QuerySet[ShopClaim]:
    """The user's claims, newest first, with their shops."""
    return ShopClaim.objects.filter(user_id=user_id).select_related("shop").order_by("-id")


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
