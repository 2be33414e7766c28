"""Merchant writes: shop claims (a user asks to run a shop, an operator decides), a
shop's staff (its owner adds and removes clerks), its profile (its owner edits it; what
identifies and places the shop waits for an operator) and its offers (its owner proposes a
voucher, an operator publishes it or sends it back; merchants.offers says which moves an
offer's state allows). Scoping goes through merchants.access.

Lock order: a write that changes who runs a shop locks the shop's row first, so
approvals of one shop and its staff changes queue there, and the second approval of a
shop sees the first one's owner (decision 316)."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F, QuerySet
from django.utils.translation import gettext

from accounts.models import User
from shops import services as shop_services
from shops.errors import ShopNotFound
from shops.models import Shop, ShopStaff
from toolkit import clock
from toolkit.errors import Conflict, InvalidInput
from toolkit.transactions import retry_on_lock_conflict
from vouchers.models import Voucher
from vouchers.services import voucher_create, voucher_void

from . import offers
from .access import Role, owned_shop
from .errors import (
    ChangeDecided,
    ChangeNotFound,
    ClaimDecided,
    ClaimNotFound,
    ClaimPending,
    Code,
    MemberNotFound,
    OfferNotFound,
    OwnerNotRemovable,
    ShopHasOwner,
    ShopNotYours,
    UserNotFound,
)
from .models import REASON_MAX, OfferDraft, ShopChange, ShopClaim
from .signals import change_decided, claim_decided, offer_decided

Status = ShopClaim.Status


def _has_owner(shop_id: int) -> bool:
    return ShopStaff.objects.filter(shop_id=shop_id, role=Role.OWNER).exists()


def _lock_shop(shop_id: int) -> bool:
    """Hold the shop's row until commit; False when there is no such shop."""
    return Shop.objects.select_for_update().filter(pk=shop_id).values_list("pk").first() is not None


@retry_on_lock_conflict
def claim_submit(*, user_id: int, shop_id: int, evidence: str, picture: str = "") -> ShopClaim:
    """A user asks to become the owner of a shop. 409 `shop_has_owner` when it has one,
    `claim_pending` while the user's earlier claim of it awaits a decision."""
    with transaction.atomic():
        if not Shop.objects.filter(pk=shop_id).exists():
            # Well formed, naming no shop: as any reference in a body, a 409
            # (toolkit.api.fields.missing_reference).
            raise Conflict(str(ShopNotFound.default_detail), code=Code.SHOP_NOT_FOUND)
        if _has_owner(shop_id):
            raise ShopHasOwner()
        try:
            with transaction.atomic():
                return ShopClaim.objects.create(
                    user_id=user_id, shop_id=shop_id, evidence=evidence, picture=picture
                )
        except IntegrityError:  # one_pending_claim_per_user_and_shop (or the shop just went)
            if not Shop.objects.filter(pk=shop_id).exists():
                raise Conflict(str(ShopNotFound.default_detail), code=Code.SHOP_NOT_FOUND) from None
            raise ClaimPending() from None


@retry_on_lock_conflict
def claim_approve(*, claim_id: int, by_user_id: int | None = None) -> ShopClaim:
    """An operator approves a claim: its user becomes the shop's owner (a clerk there is
    promoted), and is told (CLAIM_APPROVED) after commit. 409 `claim_decided` for a claim
    approved or rejected already, `shop_has_owner` when the shop has an owner by now."""
    with transaction.atomic():
        shop_id = ShopClaim.objects.filter(pk=claim_id).values_list("shop_id", flat=True).first()
        if shop_id is None or not _lock_shop(shop_id):
            raise ClaimNotFound()
        claim = ShopClaim.objects.select_for_update().filter(pk=claim_id).first()
        if claim is None:
            raise ClaimNotFound()
        if claim.status != Status.PENDING:
            raise ClaimDecided()
        if _has_owner(shop_id):
            raise ShopHasOwner()
        claim.status, claim.pending, claim.approved_shop_id = Status.APPROVED, None, shop_id
        claim.decided_by_id, claim.decided_at = by_user_id, clock.now()
        try:
            with transaction.atomic():
                # approved_shop_id is unique: the database's word on "one approved claim a
                # shop", should anything ever write around the shop's lock.
                claim.save(
                    update_fields=[
                        "status",
                        "pending",
                        "approved_shop_id",
                        "decided_by",
                        "decided_at",
                    ]
                )
        except IntegrityError:
            raise ShopHasOwner() from None
        memberships = ShopStaff.objects.filter(shop_id=shop_id, user_id=claim.user_id)
        if not memberships.update(role=Role.OWNER):
            ShopStaff.objects.create(shop_id=shop_id, user_id=claim.user_id, role=Role.OWNER)
        claim_decided.send(sender=ShopClaim, claim_id=claim.id)
    return claim


def _reason(reason: str, *, empty: str) -> str:
    reason = reason.strip()
    if not reason:
        raise InvalidInput(empty)
    if len(reason) > REASON_MAX:
        raise InvalidInput(
            gettext("The reason is at most %(max)d characters.") % {"max": REASON_MAX}
        )
    return reason


def claim_reject(*, claim_id: int, reason: str, by_user_id: int | None = None) -> ShopClaim:
    """An operator turns a claim down, saying why; its user is told (CLAIM_REJECTED) after
    commit. 409 `claim_decided` for a claim approved or rejected already."""
    reason = _reason(reason, empty=gettext("Give the reason for turning the claim down."))
    with transaction.atomic():
        # A conditional update: of two deciders, exactly one finds the claim pending.
        decided = ShopClaim.objects.filter(pk=claim_id, status=Status.PENDING).update(
            status=Status.REJECTED,
            pending=None,
            reason=reason,
            decided_by_id=by_user_id,
            decided_at=clock.now(),
        )
        if not decided:
            if ShopClaim.objects.filter(pk=claim_id).exists():
                raise ClaimDecided()
            raise ClaimNotFound()
        claim_decided.send(sender=ShopClaim, claim_id=claim_id)
    return ShopClaim.objects.get(pk=claim_id)


@retry_on_lock_conflict
def staff_add(*, owner_id: int, shop_id: int, phone: str) -> tuple[ShopStaff, bool]:
    """The owner adds the user with `phone` to the shop's staff as a clerk; returns the
    membership and whether it is new. Idempotent: someone on the staff already (the owner
    included) stays as they are. 404 `user_not_found` when no active account has the phone."""
    owned_shop(owner_id, shop_id)
    user_id = User.objects.filter(phone=phone, is_active=True).values_list("id", flat=True).first()
    if user_id is None:
        raise UserNotFound()
    with transaction.atomic():
        if not _lock_shop(shop_id):  # deleted meanwhile
            owned_shop(owner_id, shop_id)
        membership = ShopStaff.objects.filter(shop_id=shop_id, user_id=user_id).first()
        if membership is not None:
            return membership, False
        membership = ShopStaff.objects.create(shop_id=shop_id, user_id=user_id, role=Role.CLERK)
    return membership, True


def staff_remove(*, owner_id: int, shop_id: int, user_id: int) -> None:
    """The owner takes a clerk off the shop's staff. 404 `member_not_found` for someone
    not on it, 409 `owner_not_removable` for the owner."""
    owned_shop(owner_id, shop_id)
    mine = ShopStaff.objects.filter(shop_id=shop_id, user_id=user_id)
    deleted, _ = mine.exclude(role=Role.OWNER).delete()
    if not deleted:
        if mine.exists():
            raise OwnerNotRemovable()
        raise MemberNotFound()


# --- a shop's profile, run by its owner ---------------------------------------------

# Applied at once: what an owner answers for and a customer can check at the door.
PROFILE_NOW = ("avg_price", "phone", "images", "hours")
# Reviewed first: what identifies the shop and where it is (a renamed or moved shop could
# take over another's page, reviews and map pin).
PROFILE_REVIEWED = ("name", "address", "x", "y")
ChangeStatus = ShopChange.Status


@retry_on_lock_conflict
def shop_profile_update(
    *, owner_id: int, shop_id: int, values: dict[str, Any]
) -> tuple[Shop, ShopChange | None]:
    """The owner edits the shop: `PROFILE_NOW` fields are saved at once through
    shops.services (every cached copy, the GEO entry and the search document follow after
    commit); `PROFILE_REVIEWED` fields that differ from the shop's become its pending
    change, replacing any pending one (decision 333). x and y come together. Returns the
    shop as saved and the new pending change (None when nothing waits for review). One
    transaction: a refused part leaves everything as it was."""
    owned_shop(owner_id, shop_id)
    with transaction.atomic():
        # The shop's row first, as every write that changes who runs or what is a shop:
        # two requests of one shop queue here, so one pending change stays.
        shop = Shop.objects.select_for_update().filter(pk=shop_id).first()
        if shop is None:
            raise ShopNotYours()
        now = [name for name in PROFILE_NOW if name in values]
        for name in now:
            setattr(shop, name, values[name])
        shop_services.shop_save(shop=shop, fields=now)  # no fields: no write
        proposed = {
            name: values[name]
            for name in PROFILE_REVIEWED
            if name in values and values[name] != getattr(shop, name)
        }
        if "x" in proposed or "y" in proposed:  # a position is a pair
            proposed.update(x=values["x"], y=values["y"])
        change = _change_propose(shop_id, owner_id, proposed) if proposed else None
    return shop, change


def _change_propose(shop_id: int, owner_id: int, proposed: dict[str, Any]) -> ShopChange:
    """Replace the shop's pending change (if any) with a new one. The replaced one is
    kept as `replaced`, so an operator who approves what they read never approves what
    they did not: its approval answers 409 `change_decided`."""
    attempts = 3
    for attempt in range(1, attempts + 1):
        ShopChange.objects.filter(shop_id=shop_id, pending=True).update(
            status=ChangeStatus.REPLACED, pending=None, decided_at=clock.now()
        )
        try:
            with transaction.atomic():
                return ShopChange.objects.create(
                    shop_id=shop_id, requested_by_id=owner_id, fields=proposed
                )
        except IntegrityError:
            # one_pending_change_per_shop, the backstop of the shop's row lock: a request
            # that wrote around it got in between; replace its change in turn.
            if attempt == attempts:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


@retry_on_lock_conflict
def shop_change_approve(*, change_id: int, by_user_id: int | None = None) -> ShopChange:
    """An operator approves a pending change: its fields are applied through
    shops.services.shop_save, so the cached shop, its GEO entry and its search document
    follow after commit, and the shop's owners are told (SHOP_CHANGE_APPROVED). 409
    `change_decided` for a change decided or replaced already."""
    with transaction.atomic():
        shop_id = ShopChange.objects.filter(pk=change_id).values_list("shop_id", flat=True).first()
        shop = None
        if shop_id is not None:
            shop = Shop.objects.select_for_update().filter(pk=shop_id).first()
        change = ShopChange.objects.select_for_update().filter(pk=change_id).first()
        if shop is None or change is None:
            raise ChangeNotFound()
        if change.status != ChangeStatus.PENDING:
            raise ChangeDecided()
        applied = [name for name in PROFILE_REVIEWED if name in change.fields]
        for name in applied:
            setattr(shop, name, change.fields[name])
        shop_services.shop_save(shop=shop, fields=applied)
        change.status, change.pending = ChangeStatus.APPROVED, None
        change.decided_by_id, change.decided_at = by_user_id, clock.now()
        change.save(update_fields=["status", "pending", "decided_by", "decided_at"])
        change_decided.send(sender=ShopChange, change_id=change.id)
    return change


def shop_change_reject(*, change_id: int, reason: str, by_user_id: int | None = None) -> ShopChange:
    """An operator turns a change down, saying why; the shop stays as it is, and its
    owners are told (SHOP_CHANGE_REJECTED, with the reason) after commit and read it on
    the shop's profile too. 409 `change_decided` for one decided already."""
    reason = _reason(reason, empty=gettext("Give the reason for turning the change down."))
    with transaction.atomic():
        # A conditional update: of two deciders (or a decider and a replacing request),
        # exactly one finds the change pending.
        decided = ShopChange.objects.filter(pk=change_id, status=ChangeStatus.PENDING).update(
            status=ChangeStatus.REJECTED,
            pending=None,
            reason=reason,
            decided_by_id=by_user_id,
            decided_at=clock.now(),
        )
        if not decided:
            if ShopChange.objects.filter(pk=change_id).exists():
                raise ChangeDecided()
            raise ChangeNotFound()
        change_decided.send(sender=ShopChange, change_id=change_id)
    return ShopChange.objects.get(pk=change_id)


# --- offers ---------------------------------------------------------------------------

Move, Actor = offers.Move, offers.Actor


def _rows(shop_id: int | None, offer_id: int) -> QuerySet[OfferDraft]:
    """The offer (of the shop, when `shop_id` is given)."""
    rows = OfferDraft.objects.filter(pk=offer_id)
    return rows if shop_id is None else rows.filter(shop_id=shop_id)


def _offer(shop_id: int | None, offer_id: int) -> OfferDraft:
    """The offer (of the shop, when `shop_id` is given); OfferNotFound otherwise."""
    offer = _rows(shop_id, offer_id).first()
    if offer is None:
        raise OfferNotFound()
    return offer


def _held(shop_id: int | None, offer_id: int, name: offers.Move) -> OfferDraft:
    """The offer with its row locked until commit, if its state allows the move (its
    409 otherwise: merchants.offers.held); OfferNotFound when there is none."""
    offer = offers.held(_rows(shop_id, offer_id), name)
    if offer is None:
        raise OfferNotFound()
    return offer


def _moved(
    shop_id: int | None, offer_id: int, name: offers.Move, *, by: offers.Actor, **writes: Any
) -> OfferDraft:
    """Make the move on one offer, or raise why its state refuses it."""
    if not offers.move(_rows(shop_id, offer_id), name, by=by, now=clock.now(), **writes):
        raise offers.refusal(_offer(shop_id, offer_id).state)
    return _offer(shop_id, offer_id)


def offer_create(*, owner_id: int, shop_id: int, fields: dict[str, Any]) -> OfferDraft:
    """The shop's owner drafts an offer: `fields`, the voucher as the staff API takes it
    (without its shop), checked by the caller with the staff API's rules."""
    owned_shop(owner_id, shop_id)
    return OfferDraft.objects.create(shop_id=shop_id, author_id=owner_id, fields=fields)


def offer_edit(*, owner_id: int, shop_id: int, offer_id: int, fields: dict[str, Any]) -> OfferDraft:
    """The owner replaces a draft's or a sent back offer's proposed voucher. 409 for an
    offer in any other state (merchants.offers)."""
    owned_shop(owner_id, shop_id)
    return _moved(shop_id, offer_id, Move.EDIT, by=Actor.OWNER, fields=fields)


def offer_submit(*, owner_id: int, shop_id: int, offer_id: int) -> OfferDraft:
    """The owner sends a draft (or a sent back offer, edited) to the operators' queue."""
    owned_shop(owner_id, shop_id)
    return _moved(
        shop_id,
        offer_id,
        Move.SUBMIT,
        by=Actor.OWNER,
        submitted_at=clock.now(),
        submissions=F("submissions") + 1,
    )


@retry_on_lock_conflict
def offer_publish(
    *, offer_id: int, data: dict[str, Any], by_user_id: int | None = None
) -> OfferDraft:
    """An operator publishes a submitted offer: its voucher is created from `data` (the
    offer's fields, validated by the caller with the staff API's rules) at the offer's
    shop, in the same transaction; the shop's owners are told (OFFER_APPROVED) after
    commit. 409 for an offer that is not waiting for a decision."""
    with transaction.atomic():
        # The row held: of two publishes (or a publish and a send back), the second waits
        # and then finds the offer decided, so one offer never makes two vouchers.
        offer = _held(None, offer_id, Move.PUBLISH)
        voucher = voucher_create(data={**data, "shop_id": offer.shop_id})
        offer = _moved(
            None,
            offer_id,
            Move.PUBLISH,
            by=Actor.OPERATOR,
            voucher=voucher,
            decided_by_id=by_user_id,
            decided_at=clock.now(),
            reason="",
        )
        offer_decided.send(sender=OfferDraft, offer_id=offer_id)
    return offer


def offer_return(*, offer_id: int, reason: str, by_user_id: int | None = None) -> OfferDraft:
    """An operator sends a submitted offer back, saying why; the shop's owners are told
    (OFFER_RETURNED) after commit, and the owner may edit it and submit it again."""
    reason = reason.strip()
    if not reason:
        raise InvalidInput(gettext("Give the reason for sending the offer back."))
    if len(reason) > REASON_MAX:
        raise InvalidInput(
            gettext("The reason is at most %(max)d characters.") % {"max": REASON_MAX}
        )
    with transaction.atomic():
        offer = _moved(
            None,
            offer_id,
            Move.RETURN,
            by=Actor.OPERATOR,
            reason=reason,
            decided_by_id=by_user_id,
            decided_at=clock.now(),
        )
        offer_decided.send(sender=OfferDraft, offer_id=offer_id)
    return offer


@retry_on_lock_conflict
def offer_stop(
    *, offer_id: int, owner_id: int | None = None, shop_id: int | None = None
) -> OfferDraft:
    """Stop a published offer's sale early: its voucher is voided (no more grabs or
    claims; the stock left stays as it is, coupons and orders stay, and the drain still
    persists the grabs Redis accepted). By the shop's owner (`owner_id` and `shop_id`)
    or an operator (neither). 409 `sale_over` once the sale has ended or was voided."""
    if owner_id is not None:
        owned_shop(owner_id, shop_id)  # type: ignore[arg-type]
    by = Actor.OPERATOR if owner_id is None else Actor.OWNER
    with transaction.atomic():
        # The row held: of the owner's stop and an operator's, the second waits and then
        # finds the offer stopped, so the sale is voided once.
        offer = _held(shop_id, offer_id, Move.STOP)
        voucher = Voucher.objects.filter(pk=offer.voucher_id).first() if offer.voucher_id else None
        if voucher is None or voucher.status_at(clock.now()) in (
            Voucher.Status.ENDED,
            Voucher.Status.VOID,
        ):
            raise Conflict(gettext("The sale is over already."), code=Code.SALE_OVER)
        voucher_void(voucher_id=voucher.id)
        return _moved(shop_id, offer_id, Move.STOP, by=by)
