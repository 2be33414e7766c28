"""The one place that decides which shops a user may act for (decision 314). Every
merchant endpoint of this app scopes through these two functions; the apps below
merchants that act for a shop (blogs' replies, vouchers' redemptions) cannot import them
and apply the same rule from ShopStaff (decision 360). tests/merchants/test_access.py
holds every such endpoint in one table.

A shop the caller does not run answers exactly as a shop that does not exist (404
`shop_not_found`), so ids cannot be probed for shops or for who runs them."""

from __future__ import annotations

from shops.models import Shop, ShopStaff

from .errors import ShopNotYours

Role = ShopStaff.Role


def owned_shop(user_id: int, shop_id: int) -> Shop:
    """The shop if `user_id` is its owner; ShopNotYours (404) otherwise, whether the shop
    does not exist, or the user is a clerk there, or has nothing to do with it."""
    shop = Shop.objects.filter(pk=shop_id, staff__user_id=user_id, staff__role=Role.OWNER).first()
    if shop is None:
        raise ShopNotYours()
    return shop


def member_shop(user_id: int, shop_id: int) -> tuple[Shop, Role]:
    """The shop and the user's role there (owner or clerk) if the user works at it;
    ShopNotYours (404) otherwise, whether or not the shop exists."""
    membership = (
        ShopStaff.objects.select_related("shop").filter(user_id=user_id, shop_id=shop_id).first()
    )
    if membership is None:
        raise ShopNotYours()
    return membership.shop, Role(membership.role)
