"""Merchant reads: a user's claims, the shops they run, a shop's staff (for its owner)."""

from __future__ import annotations

from django.db.models import Case, IntegerField, QuerySet, Value, When

from shops.models import ShopStaff

from .access import Role, owned_shop
from .models import ShopClaim

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
