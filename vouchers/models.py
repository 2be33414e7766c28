"""Vouchers (normal, or flash-sale "seckill" with stock and a sale window), their orders
(the coupons users hold), checkouts at a shop and the write-off records of used coupons.

Money is in fen (integer cents).
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from shops.models import Shop

from .coupons import discounts

# A voucher's amounts, all in fen (the admin types and shows them in yuan).
MONEY_FIELDS = ("pay_value", "actual_value", "amount_condition", "discount_amount", "max_discount")


class Voucher(models.Model):
    class Kind(models.TextChoices):
        NORMAL = "normal", _("Normal")
        SECKILL = "seckill", _("Flash sale")

    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        ACTIVE = "active", _("Active")
        ENDED = "ended", _("Ended")
        VOID = "void", _("Void")

    class DiscountType(models.TextChoices):
        CASH = discounts.CASH, _("cash (actual_value off)")
        FULL_REDUCTION = discounts.FULL_REDUCTION, _("full reduction")
        PERCENTAGE = discounts.PERCENTAGE, _("percentage")

    shop = models.ForeignKey(
        Shop, on_delete=models.PROTECT, related_name="vouchers", verbose_name=_("shop")
    )
    title = models.CharField(_("title"), max_length=255)
    sub_title = models.CharField(_("subtitle"), max_length=255, blank=True)
    rules = models.TextField(_("rules"), blank=True, max_length=2000)
    pay_value = models.PositiveIntegerField(_("price"), help_text=_("What the buyer pays, in fen."))
    actual_value = models.PositiveIntegerField(
        _("face value"), help_text=_("What it is worth, in fen.")
    )
    type = models.CharField(_("kind"), max_length=16, choices=Kind.choices, default=Kind.NORMAL)
    valid_days = models.PositiveSmallIntegerField(
        _("valid days"), default=30, help_text=_("Days a coupon is usable, counted from its claim.")
    )
    discount_type = models.CharField(
        _("discount type"), max_length=16, choices=DiscountType.choices, default=DiscountType.CASH
    )
    amount_condition = models.PositiveIntegerField(
        _("threshold"),
        default=0,
        help_text=_("Threshold in fen: the discount applies from this amount on."),
    )
    discount_amount = models.PositiveIntegerField(
        _("amount off"), null=True, blank=True, help_text=_("full_reduction: fen off.")
    )
    discount_rate = models.PositiveSmallIntegerField(
        _("rate"),
        null=True,
        blank=True,
        help_text=_("percentage: the percent of the amount paid (1-99)."),
    )
    max_discount = models.PositiveIntegerField(
        _("maximum discount"),
        null=True,
        blank=True,
        help_text=_("percentage: the most it takes off, in fen."),
    )
    per_user_limit = models.PositiveSmallIntegerField(
        _("per-user limit"),
        default=1,
        help_text=_("Live coupons one user may hold (a flash sale: always 1)."),
    )
    stock = models.PositiveIntegerField(
        _("stock"),
        null=True,
        blank=True,
        help_text=_(
            "Units left: a flash sale's; a normal voucher's when limited (empty: unlimited)."
        ),
    )
    begin_time = models.DateTimeField(_("begin time"), null=True, blank=True)
    end_time = models.DateTimeField(_("end time"), null=True, blank=True)
    # A flash sale's buckets: the shards holding its stock, comma-separated, its own shard
    # first; empty for one bucket in its own shard. Fixed when it is created (decision 309).
    sale_shards = models.CharField(
        _("sale shards"),
        max_length=200,
        blank=True,
        default="",
        editable=False,
        help_text=_("The shards a flash sale's stock is split across (vouchers/sale/buckets.py)."),
    )
    # A flash sale whose grab needs the answer to a short challenge first (decision 500).
    challenge = models.BooleanField(
        _("challenge before the grab"),
        default=False,
        help_text=_(
            "Buyers answer a short arithmetic picture before they grab (slows scripts down)."
        ),
    )
    # Kept by the update_activity_status job; reads use status_at(), so it is never stale.
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.PENDING
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("voucher")
        verbose_name_plural = _("vouchers")
        ordering = ["id"]
        indexes = [models.Index(fields=["type", "status", "begin_time"])]
        constraints = [
            models.CheckConstraint(
                condition=Q(type="normal")
                | Q(
                    begin_time__isnull=False,
                    end_time__isnull=False,
                    begin_time__lt=F("end_time"),
                    stock__isnull=False,
                    per_user_limit=1,
                ),
                name="seckill_voucher_has_a_sale_window",
            ),
            models.CheckConstraint(
                condition=Q(per_user_limit__gte=1), name="voucher_per_user_limit_positive"
            ),
        ]

    def __str__(self) -> str:
        return self.title

    def clean(self) -> None:
        """Admin's check of the discount rule (the staff API runs the same function)."""
        errors = discounts.rule_errors(
            discount_type=self.discount_type,
            amount_condition=self.amount_condition or 0,
            discount_amount=self.discount_amount,
            discount_rate=self.discount_rate,
            max_discount=self.max_discount,
        )
        if self.is_seckill and self.per_user_limit != 1:
            errors["per_user_limit"] = gettext("A flash sale sells one unit per user.")
        if self.is_seckill and self.stock is None:
            errors["stock"] = gettext("A flash sale needs stock.")
        if errors:
            raise ValidationError(errors)

    @property
    def is_seckill(self) -> bool:
        return self.type == self.Kind.SECKILL

    @property
    def discount_rule(self) -> discounts.DiscountRule:
        return discounts.DiscountRule.of(self)

    def status_at(self, now: datetime) -> str:
        return sale_status(
            kind=self.type, stored=self.status, begin=self.begin_time, end=self.end_time, now=now
        )


def sale_status(
    *, kind: str, stored: str, begin: datetime | None, end: datetime | None, now: datetime
) -> str:
    """The activity status at `now`, from the sale window (void is an operator's call)."""
    if stored == Voucher.Status.VOID:
        return Voucher.Status.VOID
    if kind != Voucher.Kind.SECKILL:
        return Voucher.Status.ACTIVE
    # A sale always has its window (a check constraint).
    assert begin is not None
    assert end is not None
    if now < begin:
        return Voucher.Status.PENDING
    if now < end:
        return Voucher.Status.ACTIVE
    return Voucher.Status.ENDED


class VoucherOrder(models.Model):
    """One coupon a user holds: from the flash sale (through the drain) or a claim."""

    class Status(models.TextChoices):
        UNPAID = "unpaid", _("Unpaid")
        PAID = "paid", _("Paid")
        USED = "used", _("Used")
        CANCELLED = "cancelled", _("Cancelled")
        REFUNDED = "refunded", _("Refunded")

    id = models.BigIntegerField(
        _("ID"), primary_key=True, help_text=_("From the global id generator.")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="voucher_orders",
        verbose_name=_("user"),
    )
    voucher = models.ForeignKey(
        Voucher, on_delete=models.PROTECT, related_name="orders", verbose_name=_("voucher")
    )
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.UNPAID
    )
    # Which of the user's `per_user_limit` places for this voucher the order holds (1 for
    # a flash sale), NULL once it is cancelled or refunded. NULLs never collide in a unique
    # index, so (user, voucher, live_slot) caps live orders at the limit while dead ones
    # pile up freely (MariaDB has no partial unique indexes; this is the portable form).
    live_slot = models.PositiveSmallIntegerField(_("live slot"), null=True, blank=True, default=1)
    created_at = models.DateTimeField(_("created at"))
    paid_at = models.DateTimeField(_("paid at"), null=True, blank=True)
    expires_at = models.DateTimeField(
        _("expires at"), help_text=_("End of validity: created_at + the voucher's valid_days.")
    )
    used_at = models.DateTimeField(_("used at"), null=True, blank=True)
    cancelled_at = models.DateTimeField(_("cancelled at"), null=True, blank=True)
    refunded_at = models.DateTimeField(_("refunded at"), null=True, blank=True)
    # Shown to its owner once paid; shop staff redeem the coupon with it. Unique among all
    # coupons ever made, which is stronger than "among live ones" and needs no clean-up.
    redeem_code = models.CharField(
        _("redeem code"), max_length=12, null=True, blank=True, unique=True
    )

    class Meta:
        verbose_name = _("voucher order")
        verbose_name_plural = _("voucher orders")
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "voucher", "live_slot"],
                name="live_orders_per_user_and_voucher_within_limit",
            ),
        ]
        # No (voucher, status) index: MariaDB would make it the voucher FK's index, and then
        # every status change checks the FK, share-locking the voucher row that a cancel or
        # refund then wants exclusively: two of them deadlock. Counts use the FK's index.
        indexes = [
            models.Index(fields=["user", "status", "id"]),
            # The pay timeout's backstop finds unpaid orders by age (cancel_overdue_orders).
            models.Index(fields=["status", "created_at"], name="voucher_order_status_age"),
            # Coupons about to expire, for their owners' reminders (notifications.reminders).
            models.Index(fields=["status", "expires_at"], name="voucher_order_status_expiry"),
        ]

    def __str__(self) -> str:
        return f"order {self.id}"

    def is_expired(self, now: datetime) -> bool:
        return self.expires_at is not None and self.expires_at <= now


class ShopOrder(models.Model):
    """A bill paid at a shop (买单), optionally with one of the payer's coupons."""

    class Status(models.TextChoices):
        PAID = "paid", _("Paid")
        REFUNDED = "refunded", _("Refunded")

    id = models.BigIntegerField(
        _("ID"), primary_key=True, help_text=_("From the global id generator.")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="shop_orders",
        verbose_name=_("user"),
    )
    shop = models.ForeignKey(
        Shop, on_delete=models.PROTECT, related_name="shop_orders", verbose_name=_("shop")
    )
    amount = models.PositiveIntegerField(_("amount"), help_text=_("The bill, in fen."))
    discount = models.PositiveIntegerField(
        _("discount"), default=0, help_text=_("What the coupon took off.")
    )
    payable = models.PositiveIntegerField(
        _("paid amount"), help_text=_("amount - discount: what was paid.")
    )
    coupon = models.ForeignKey(
        VoucherOrder,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="shop_orders",
        verbose_name=_("coupon"),
    )
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.PAID
    )
    created_at = models.DateTimeField(_("created at"))
    refunded_at = models.DateTimeField(_("refunded at"), null=True, blank=True)
    # NULL, not "": unique per user only when given (NULLs never collide).
    idempotency_key = models.CharField(  # noqa: DJ001
        _("idempotency key"), max_length=64, null=True, blank=True
    )

    class Meta:
        verbose_name = _("shop order")
        verbose_name_plural = _("shop orders")
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "idempotency_key"], name="one_shop_order_per_idempotency_key"
            ),
        ]
        indexes = [models.Index(fields=["user", "id"])]

    def __str__(self) -> str:
        return f"shop order {self.id}"


class WriteOff(models.Model):
    """A coupon used (核销记录): redeemed by shop staff with its code, or at a checkout."""

    class Kind(models.TextChoices):
        REDEEM = "redeem", _("Redeemed by code")
        CHECKOUT = "checkout", _("Checkout")

    order = models.ForeignKey(
        VoucherOrder, on_delete=models.PROTECT, related_name="write_offs", verbose_name=_("coupon")
    )
    # No database constraint on the voucher: on MariaDB its check would share-lock the
    # voucher row, which a refund racing this write-off holds exclusively while it waits
    # for the coupon this write-off holds. The order (PROTECT) already pins the voucher.
    voucher = models.ForeignKey(
        Voucher,
        on_delete=models.PROTECT,
        related_name="write_offs",
        db_constraint=False,
        verbose_name=_("voucher"),
    )
    shop = models.ForeignKey(
        Shop, on_delete=models.PROTECT, related_name="write_offs", verbose_name=_("shop")
    )
    shop_order = models.ForeignKey(
        ShopOrder,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="write_offs",
        verbose_name=_("shop order"),
    )
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    discount = models.PositiveIntegerField(
        _("discount"), help_text=_("What the coupon was worth here, in fen.")
    )
    redeemed_at = models.DateTimeField(_("redeemed at"))
    redeemed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("redeemed by"),
    )
    reversed_at = models.DateTimeField(_("reversed at"), null=True, blank=True)
    # TRUE while the write-off stands, NULL once reversed: with the unique constraint a
    # coupon has at most one standing write-off, whatever races (the same NULL trick as
    # VoucherOrder.live_slot).
    standing = models.BooleanField(_("standing"), null=True, default=True)

    class Meta:
        verbose_name = _("write-off")
        verbose_name_plural = _("write-offs")
        ordering = ["-redeemed_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["order", "standing"], name="one_standing_write_off_per_coupon"
            ),
        ]
        indexes = [models.Index(fields=["shop", "redeemed_at"])]

    def __str__(self) -> str:
        return f"write-off {self.id} ({self.kind})"
