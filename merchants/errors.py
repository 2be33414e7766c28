"""Every error code the merchants app answers with, in one place, and its errors."""

from __future__ import annotations

from enum import StrEnum

from django.utils.translation import gettext_lazy as _

from toolkit.errors import Conflict, NotFound


class Code(StrEnum):
    # 404: not the caller's to see. A shop the caller does not run answers exactly as a
    # shop that does not exist (shops' own `shop_not_found`): no existence leak.
    SHOP_NOT_FOUND = "shop_not_found"
    USER_NOT_FOUND = "user_not_found"  # no account has the phone an owner added
    MEMBER_NOT_FOUND = "member_not_found"  # the user does not work at the shop
    CLAIM_NOT_FOUND = "claim_not_found"  # operators: no such claim
    CHANGE_NOT_FOUND = "change_not_found"  # operators: no such shop profile change
    OFFER_NOT_FOUND = "offer_not_found"  # no such offer at the shop
    # 409
    SHOP_HAS_OWNER = "shop_has_owner"  # a shop with an owner cannot be claimed again
    CLAIM_PENDING = "claim_pending"  # the user's claim of the shop awaits a decision
    CLAIM_DECIDED = "claim_decided"  # operators: the claim was approved or rejected already
    CHANGE_DECIDED = "change_decided"  # operators: the change was approved or rejected already
    OWNER_NOT_REMOVABLE = "owner_not_removable"  # the owner is not a clerk to remove
    # An offer's move refused by the state it is in (merchants.offers), one code a state.
    OFFER_DRAFT = "offer_draft"  # not submitted yet
    OFFER_SUBMITTED = "offer_submitted"  # waiting for an operator: not editable
    OFFER_RETURNED = "offer_returned"  # sent back: edit it and submit it again
    OFFER_PUBLISHED = "offer_published"  # decided: its voucher exists
    OFFER_STOPPED = "offer_stopped"  # its sale was stopped early
    SALE_OVER = "sale_over"  # stop: the published offer's sale has ended or was voided


class ShopNotYours(NotFound):
    """Both for a shop that does not exist and for one the caller does not run (or, for
    owner-only actions, does not own)."""

    default_code = Code.SHOP_NOT_FOUND
    default_detail = _("No such shop.")


class UserNotFound(NotFound):
    default_code = Code.USER_NOT_FOUND
    default_detail = _("No user has this phone number.")


class MemberNotFound(NotFound):
    default_code = Code.MEMBER_NOT_FOUND
    default_detail = _("This user does not work at the shop.")


class ClaimNotFound(NotFound):
    default_code = Code.CLAIM_NOT_FOUND
    default_detail = _("No such shop claim.")


class ShopHasOwner(Conflict):
    default_code = Code.SHOP_HAS_OWNER
    default_detail = _("The shop already has an owner.")


class ClaimPending(Conflict):
    default_code = Code.CLAIM_PENDING
    default_detail = _("Your claim of this shop is waiting for a decision.")


class ClaimDecided(Conflict):
    default_code = Code.CLAIM_DECIDED
    default_detail = _("The claim has been decided already.")


class OwnerNotRemovable(Conflict):
    default_code = Code.OWNER_NOT_REMOVABLE
    default_detail = _("The shop's owner cannot be removed from its staff.")


class ChangeNotFound(NotFound):
    default_code = Code.CHANGE_NOT_FOUND
    default_detail = _("No such shop profile change.")


class ChangeDecided(Conflict):
    default_code = Code.CHANGE_DECIDED
    default_detail = _("The change has been decided already.")


class OfferNotFound(NotFound):
    default_code = Code.OFFER_NOT_FOUND
    default_detail = _("No such offer.")
