"""Shop types and shops. Coordinates: x = longitude, y = latitude (WGS-84 degrees)."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

# Redis GEO accepts latitudes only within the Web Mercator range.
LATITUDE_LIMIT = 85.05112878


class ShopType(models.Model):
    name = models.CharField(max_length=32, unique=True)
    icon = models.CharField(max_length=255, blank=True)
    sort = models.PositiveIntegerField(default=0, help_text="Lower comes first.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["sort", "id"]

    def __str__(self) -> str:
        return self.name


class Shop(models.Model):
    name = models.CharField(max_length=128, db_index=True)
    type = models.ForeignKey(ShopType, on_delete=models.PROTECT, related_name="shops")
    images = models.JSONField(default=list, blank=True, help_text="List of image URLs.")
    area = models.CharField(max_length=64, blank=True, help_text="Business district.")
    address = models.CharField(max_length=255)
    x = models.FloatField(
        help_text="Longitude.", validators=[MinValueValidator(-180), MaxValueValidator(180)]
    )
    y = models.FloatField(
        help_text="Latitude.",
        validators=[MinValueValidator(-LATITUDE_LIMIT), MaxValueValidator(LATITUDE_LIMIT)],
    )
    avg_price = models.PositiveIntegerField(default=0, help_text="Average spend per person, yuan.")
    sold = models.PositiveIntegerField(default=0)
    comments = models.PositiveIntegerField(default=0)
    score = models.PositiveSmallIntegerField(
        default=0, help_text="Rating x10: 0..50.", validators=[MaxValueValidator(50)]
    )
    open_hours = models.CharField(max_length=64, blank=True, help_text='e.g. "10:00-22:00".')
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["type", "id"])]

    def __str__(self) -> str:
        return self.name


class ShopStaff(models.Model):
    """A user who works at a shop: may redeem its coupons and read its write-offs.
    Operators manage memberships in admin."""

    shop = models.ForeignKey(Shop, on_delete=models.CASCADE, related_name="staff")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="shop_memberships"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "shop staff member"
        verbose_name_plural = "shop staff"
        constraints = [
            models.UniqueConstraint(
                fields=["user", "shop"], name="one_membership_per_user_and_shop"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} at {self.shop}"
