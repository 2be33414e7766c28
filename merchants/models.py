"""A user's claim to run a shop (ShopClaim), decided by an operator. Rows are written only
by merchants.services; who works where is shops.ShopStaff."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from toolkit import clock

EVIDENCE_MAX = 1000
REASON_MAX = 500
PICTURE_MAX = 500


class ShopClaim(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        APPROVED = "approved", _("approved")
        REJECTED = "rejected", _("rejected")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="shop_claims",
        verbose_name=_("user"),
    )
    shop = models.ForeignKey(
        "shops.Shop", on_delete=models.CASCADE, related_name="claims", verbose_name=_("shop")
    )
    evidence = models.TextField(
        _("evidence"),
        max_length=EVIDENCE_MAX,
        help_text=_("Why this user runs the shop, in their words."),
    )
    picture = models.CharField(
        _("picture"),
        max_length=PICTURE_MAX,
        blank=True,
        default="",
        help_text=_("A picture uploaded with the claim (a licence, the shop front)."),
    )
    status = models.CharField(
        _("status"), max_length=8, choices=Status.choices, default=Status.PENDING
    )
    # True while pending, NULL once decided: unique with (user, shop), so one pending claim
    # per user and shop holds on every database (NULLs never collide; MariaDB has no
    # partial unique indexes).
    pending = models.BooleanField(_("pending"), null=True, default=True, editable=False)
    # The shop's id once approved, NULL otherwise: unique, so at most one claim of a shop is
    # ever approved, whatever raced (the service also locks the shop's row).
    approved_shop_id = models.BigIntegerField(null=True, blank=True, unique=True, editable=False)
    reason = models.CharField(_("reason"), max_length=REASON_MAX, blank=True, default="")
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("decided by"),
    )
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), default=clock.now)

    class Meta:
        verbose_name = _("shop claim")
        verbose_name_plural = _("shop claims")
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "shop", "pending"], name="one_pending_claim_per_user_and_shop"
            )
        ]
        indexes = [
            models.Index(fields=["user", "-id"], name="claim_mine"),
            models.Index(fields=["status", "-id"], name="claim_queue"),
        ]

    def __str__(self) -> str:
        return f"claim {self.pk}: user {self.user_id} for shop {self.shop_id}"


class ShopChange(models.Model):
    """An owner's request to change what identifies and places the shop (its name, address,
    position): an operator approves it (the fields are applied through shops.services) or
    rejects it with a reason. At most one is pending per shop; a new request replaces it."""

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        APPROVED = "approved", _("approved")
        REJECTED = "rejected", _("rejected")
        # A newer request of the owner took its place before an operator decided.
        REPLACED = "replaced", _("replaced")

    shop = models.ForeignKey(
        "shops.Shop", on_delete=models.CASCADE, related_name="changes", verbose_name=_("shop")
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("requested by"),
    )
    # {"name": ..., "address": ..., "x": ..., "y": ...}: only the fields asked to change.
    fields = models.JSONField(_("proposed fields"))
    status = models.CharField(
        _("status"), max_length=8, choices=Status.choices, default=Status.PENDING
    )
    # True while pending, NULL once decided: unique with the shop, so at most one pending
    # change per shop on every database (as ShopClaim.pending).
    pending = models.BooleanField(_("pending"), null=True, default=True, editable=False)
    reason = models.CharField(_("reason"), max_length=REASON_MAX, blank=True, default="")
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("decided by"),
    )
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), default=clock.now)

    class Meta:
        verbose_name = _("shop profile change")
        verbose_name_plural = _("shop profile changes")
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["shop", "pending"], name="one_pending_change_per_shop")
        ]
        indexes = [models.Index(fields=["status", "-id"], name="change_queue")]

    def __str__(self) -> str:
        return f"change {self.pk} of shop {self.shop_id}"


class OfferDraft(models.Model):
    """A voucher a shop's owner proposes: its fields (as the staff API takes them, checked
    by the same rules) wait for an operator, who publishes them as a Voucher or sends them
    back with a reason. Its states and moves are merchants.offers (one place)."""

    class State(models.TextChoices):
        DRAFT = "draft", _("draft")
        SUBMITTED = "submitted", _("submitted")
        RETURNED = "returned", _("sent back")
        PUBLISHED = "published", _("published")
        STOPPED = "stopped", _("stopped")

    shop = models.ForeignKey(
        "shops.Shop", on_delete=models.CASCADE, related_name="offers", verbose_name=_("shop")
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("author"),
    )
    fields = models.JSONField(
        _("proposed voucher"),
        help_text=_("The voucher's fields as the staff API takes them, without its shop."),
    )
    state = models.CharField(_("state"), max_length=16, choices=State.choices, default=State.DRAFT)
    # Operators' queue order: submitted offers first (1), then everything else (0).
    waiting = models.BooleanField(_("waiting"), default=False, editable=False)
    reason = models.CharField(_("reason"), max_length=REASON_MAX, blank=True, default="")
    # Each submission counts: a notification about one round's decision is told once.
    submissions = models.PositiveIntegerField(_("submissions"), default=0, editable=False)
    voucher = models.OneToOneField(
        "vouchers.Voucher",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="offer",
        verbose_name=_("voucher"),
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("decided by"),
    )
    created_at = models.DateTimeField(_("created at"), default=clock.now)
    updated_at = models.DateTimeField(_("updated at"), default=clock.now)
    submitted_at = models.DateTimeField(_("submitted at"), null=True, blank=True)
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)

    class Meta:
        verbose_name = _("offer")
        verbose_name_plural = _("offers")
        ordering = ["-id"]
        indexes = [
            models.Index(fields=["shop", "-id"], name="offer_shop"),
            models.Index(fields=["-waiting", "-id"], name="offer_queue"),
        ]

    def __str__(self) -> str:
        return f"offer {self.pk}: {self.fields.get('title', '')} for shop {self.shop_id}"
