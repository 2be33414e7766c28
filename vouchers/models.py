"""Vouchers (normal, or flash-sale "seckill" with stock and a sale window) and their orders.

Money is in fen (integer cents).
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from shops.models import Shop


class Voucher(models.Model):
    class Kind(models.TextChoices):
        NORMAL = "normal"
        SECKILL = "seckill"

    class Status(models.TextChoices):
        PENDING = "pending"
        ACTIVE = "active"
        ENDED = "ended"
        VOID = "void"

    shop = models.ForeignKey(Shop, on_delete=models.PROTECT, related_name="vouchers")
    title = models.CharField(max_length=255)
    sub_title = models.CharField(max_length=255, blank=True)
    rules = models.TextField(blank=True, max_length=2000)
    pay_value = models.PositiveIntegerField(help_text="What the buyer pays, in fen.")
    actual_value = models.PositiveIntegerField(help_text="What it is worth, in fen.")
    type = models.CharField(max_length=16, choices=Kind.choices, default=Kind.NORMAL)
    valid_days = models.PositiveSmallIntegerField(
        default=30, help_text="Days usable after payment."
    )
    stock = models.PositiveIntegerField(default=0, help_text="Seckill only: units for sale.")
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
                | Q(begin_time__isnull=False, end_time__isnull=False, begin_time__lt=F("end_time")),
                name="seckill_voucher_has_a_sale_window",
            ),
        ]

    def __str__(self) -> str:
        return self.title

    @property
    def is_seckill(self) -> bool:
        return self.type == self.Kind.SECKILL

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
    # True while the order holds the user's one place for this voucher; NULL once it is
    # cancelled. NULLs never collide in a unique index, so a cancelled buyer may buy again
    # while two live orders for one user and voucher stay impossible (MariaDB has no
    # partial unique indexes, so this is how the constraint is expressed portably).
    live = models.BooleanField(null=True, default=True)
    created_at = models.DateTimeField()
    paid_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(
        null=True, blank=True, help_text="End of validity: paid_at + the voucher's valid_days."
    )
    used_at = models.DateTimeField(null=True, blank=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "voucher", "live"], name="one_live_order_per_user_and_voucher"
            ),
        ]
        indexes = [models.Index(fields=["user", "status", "id"])]

    def __str__(self) -> str:
        return f"order {self.id}"
