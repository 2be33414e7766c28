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

from shops.models import Shop

from . import discounts


class Voucher(models.Model):
    class Kind(models.TextChoices):
        NORMAL = "normal"
        SECKILL = "seckill"

    class Status(models.TextChoices):
        PENDING = "pending"
        ACTIVE = "active"
        ENDED = "ended"
        VOID = "void"

    class DiscountType(models.TextChoices):
        CASH = discounts.CASH, "cash (actual_value off)"
        FULL_REDUCTION = discounts.FULL_REDUCTION, "full reduction (满减)"
        PERCENTAGE = discounts.PERCENTAGE, "percentage (折扣)"

    shop = models.ForeignKey(Shop, on_delete=models.PROTECT, related_name="vouchers")
    title = models.CharField(max_length=255)
    sub_title = models.CharField(max_length=255, blank=True)
    rules = models.TextField(blank=True, max_length=2000)
    pay_value = models.PositiveIntegerField(help_text="What the buyer pays, in fen.")
    actual_value = models.PositiveIntegerField(help_text="What it is worth, in fen.")
    type = models.CharField(max_length=16, choices=Kind.choices, default=Kind.NORMAL)
    valid_days = models.PositiveSmallIntegerField(
        default=30, help_text="Days a coupon is usable, counted from its claim."
    )
    discount_type = models.CharField(
        max_length=16, choices=DiscountType.choices, default=DiscountType.CASH
    )
    amount_condition = models.PositiveIntegerField(
        default=0, help_text="Threshold in fen: the discount applies from this amount on."
    )
    discount_amount = models.PositiveIntegerField(
        null=True, blank=True, help_text="full_reduction: fen off."
    )
    discount_rate = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="percentage: the percent of the amount paid (1-99)."
    )
    max_discount = models.PositiveIntegerField(
        null=True, blank=True, help_text="percentage: the most it takes off, in fen."
    )
    per_user_limit = models.PositiveSmallIntegerField(
        default=1, help_text="Live coupons one user may hold (a flash sale: always 1)."
    )
    stock = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Units left: a flash sale's; a normal voucher's when limited (empty: unlimited).",
    )
    begin_time = models.DateTimeField(null=True, blank=True)
    end_time = models.DateTimeField(null=True, blank=True)
    # Kept by the update_activity_status job; reads use status_at(), so it is never stale.
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
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
            errors["per_user_limit"] = "A flash sale sells one unit per user."
        if self.is_seckill and self.stock is None:
            errors["stock"] = "A flash sale needs stock."
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
    if now < begin:
        return Voucher.Status.PENDING
    if now < end:
        return Voucher.Status.ACTIVE
    return Voucher.Status.ENDED


class VoucherOrder(models.Model):
    """One coupon a user holds: from the flash sale (through the drain) or a claim."""

    class Status(models.TextChoices):
        UNPAID = "unpaid"
        PAID = "paid"
        USED = "used"
        CANCELLED = "cancelled"
        REFUNDED = "refunded"

    id = models.BigIntegerField(primary_key=True, help_text="From the global id generator.")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="voucher_orders"
    )
    voucher = models.ForeignKey(Voucher, on_delete=models.PROTECT, related_name="orders")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.UNPAID)
    # Which of the user's `per_user_limit` places for this voucher the order holds (1 for
    # a flash sale), NULL once it is cancelled or refunded. NULLs never collide in a unique
    # index, so (user, voucher, live_slot) caps live orders at the limit while dead ones
    # pile up freely (MariaDB has no partial unique indexes; this is the portable form).
    live_slot = models.PositiveSmallIntegerField(null=True, blank=True, default=1)
    created_at = models.DateTimeField()
    paid_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(
        help_text="End of validity: created_at + the voucher's valid_days."
    )
    used_at = models.DateTimeField(null=True, blank=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)
    refunded_at = models.DateTimeField(null=True, blank=True)
    # Shown to its owner once paid; shop staff redeem the coupon with it. Unique among all
    # coupons ever made, which is stronger than "among live ones" and needs no clean-up.
    redeem_code = models.CharField(max_length=12, null=True, blank=True, unique=True)

    class Meta:
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
        indexes = [models.Index(fields=["user", "status", "id"])]

    def __str__(self) -> str:
        return f"order {self.id}"

    def is_expired(self, now: datetime) -> bool:
        return self.expires_at is not None and self.expires_at <= now


class ShopOrder(models.Model):
    """A bill paid at a shop (买单), optionally with one of the payer's coupons."""

    class Status(models.TextChoices):
        PAID = "paid"
        REFUNDED = "refunded"

    id = models.BigIntegerField(primary_key=True, help_text="From the global id generator.")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="shop_orders"
    )
    shop = models.ForeignKey(Shop, on_delete=models.PROTECT, related_name="shop_orders")
    amount = models.PositiveIntegerField(help_text="The bill, in fen.")
    discount = models.PositiveIntegerField(default=0, help_text="What the coupon took off.")
    payable = models.PositiveIntegerField(help_text="amount - discount: what was paid.")
    coupon = models.ForeignKey(
        VoucherOrder, null=True, blank=True, on_delete=models.PROTECT, related_name="shop_orders"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PAID)
    created_at = models.DateTimeField()
    refunded_at = models.DateTimeField(null=True, blank=True)
    # NULL, not "": unique per user only when given (NULLs never collide).
    idempotency_key = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001

    class Meta:
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
        REDEEM = "redeem"
        CHECKOUT = "checkout"

    order = models.ForeignKey(VoucherOrder, on_delete=models.PROTECT, related_name="write_offs")
    # No database constraint on the voucher: on MariaDB its check would share-lock the
    # voucher row, which a refund racing this write-off holds exclusively while it waits
    # for the coupon this write-off holds. The order (PROTECT) already pins the voucher.
    voucher = models.ForeignKey(
        Voucher, on_delete=models.PROTECT, related_name="write_offs", db_constraint=False
    )
    shop = models.ForeignKey(Shop, on_delete=models.PROTECT, related_name="write_offs")
    shop_order = models.ForeignKey(
        ShopOrder, null=True, blank=True, on_delete=models.PROTECT, related_name="write_offs"
    )
    kind = models.CharField(max_length=16, choices=Kind.choices)
    discount = models.PositiveIntegerField(help_text="What the coupon was worth here, in fen.")
    redeemed_at = models.DateTimeField()
    redeemed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    reversed_at = models.DateTimeField(null=True, blank=True)
    # TRUE while the write-off stands, NULL once reversed: with the unique constraint a
    # coupon has at most one standing write-off, whatever races (the same NULL trick as
    # VoucherOrder.live_slot).
    standing = models.BooleanField(null=True, default=True)

    class Meta:
        ordering = ["-redeemed_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["order", "standing"], name="one_standing_write_off_per_coupon"
            ),
        ]
        indexes = [models.Index(fields=["shop", "redeemed_at"])]

    def __str__(self) -> str:
        return f"write-off {self.id} ({self.kind})"
