"""A user's inbox (Notification) and the flash sales they asked to be reminded of
(SaleWatch). Rows are written only by notifications.services, off the request path."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from merchants.models import REASON_MAX
from toolkit import clock


class Kind(models.TextChoices):
    FOLLOWED = "followed", _("new follower")
    LIKED = "liked", _("note liked")
    COMMENTED = "commented", _("comment")
    COUPON_EXPIRING = "coupon_expiring", _("coupon expiring")
    ORDER_CANCELLED = "order_cancelled", _("order cancelled")
    SALE_STARTING = "sale_starting", _("sale starting")
    # A shop's side (merchants): to the reviewer, and to the shop's owner.
    REVIEW_REPLIED = "review_replied", _("review replied")
    SHOP_REVIEWED = "shop_reviewed", _("new review")
    CLAIM_APPROVED = "claim_approved", _("shop claim approved")
    CLAIM_REJECTED = "claim_rejected", _("shop claim rejected")
    OFFER_APPROVED = "offer_approved", _("offer approved")
    OFFER_RETURNED = "offer_returned", _("offer sent back")
    SALE_STARTED = "sale_started", _("sale started")
    SALE_SOLD_OUT = "sale_sold_out", _("sale sold out")
    SHOP_CHANGE_APPROVED = "shop_change_approved", _("shop profile change approved")
    SHOP_CHANGE_REJECTED = "shop_change_rejected", _("shop profile change rejected")


class Notification(models.Model):
    Kind = Kind

    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("recipient"),
    )
    kind = models.CharField(_("kind"), max_length=24, choices=Kind.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("actor"),
    )
    # What it is about. Notes and comments cascade: a deleted one takes its notifications
    # with it. The voucher has no database constraint: its row is the flash sale's hottest
    # (InnoDB share-locks a referenced row on every insert), and vouchers with coupons are
    # never deleted anyway. Orders are never deleted: a plain id.
    blog = models.ForeignKey(
        "blogs.Blog",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("blog"),
    )
    comment = models.ForeignKey(
        "blogs.BlogComment",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("comment"),
    )
    voucher = models.ForeignKey(
        "vouchers.Voucher",
        on_delete=models.CASCADE,
        db_constraint=False,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("voucher"),
    )
    order_id = models.BigIntegerField(_("order"), null=True, blank=True)
    shop = models.ForeignKey(
        "shops.Shop",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("shop"),
    )
    # Comments on one note collapse into one unread item per recipient (decision 285): how
    # many it stands for; `actor` and `comment` are the newest. 1 for every other kind.
    count = models.PositiveIntegerField(_("count"), default=1, editable=False)
    # Why an operator turned something of the recipient's down (a claim, an offer, a
    # change of the shop's profile), as it was said at the time; empty for other kinds.
    # A database default: a process of the release before writes rows without it.
    reason = models.CharField(
        _("reason"), max_length=REASON_MAX, blank=True, default="", db_default="", editable=False
    )
    # One notification per event, whatever repeats it: a like, unlike and like again, a
    # retried task, a beat job that runs twice (services.DEDUP_KEYS).
    dedup_key = models.CharField(_("deduplication key"), max_length=64, editable=False)
    read_at = models.DateTimeField(_("read at"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), default=clock.now)

    class Meta:
        verbose_name = _("notification")
        verbose_name_plural = _("notifications")
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["recipient", "dedup_key"], name="notification_once")
        ]
        indexes = [
            models.Index(fields=["recipient", "-id"], name="notification_inbox"),
            models.Index(fields=["recipient", "read_at"], name="notification_unread"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} for user {self.recipient_id}"


class SaleWatch(models.Model):
    """ "Remind me" on an upcoming flash sale; `notified_at` is set when the reminder went
    out, so the minute job claims each watch once."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", verbose_name=_("user")
    )
    voucher = models.ForeignKey(
        "vouchers.Voucher",
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("voucher"),
    )
    created_at = models.DateTimeField(_("created at"), default=clock.now)
    notified_at = models.DateTimeField(_("notified at"), null=True, blank=True)

    class Meta:
        verbose_name = _("sale watch")
        verbose_name_plural = _("sale watches")
        constraints = [models.UniqueConstraint(fields=["user", "voucher"], name="watch_sale_once")]
        indexes = [models.Index(fields=["voucher", "notified_at"], name="watch_due")]

    def __str__(self) -> str:
        return f"user {self.user_id} watches voucher {self.voucher_id}"
