"""Shop types and shops. Coordinates: x = longitude, y = latitude (WGS-84 degrees)."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

# Redis GEO accepts latitudes only within the Web Mercator range.
LATITUDE_LIMIT = 85.05112878
# A review's optional sub-scores (blogs.models.Blog), each averaged on its shop.
SUB_SCORES = ("taste", "environment", "service")


class ShopType(models.Model):
    name = models.CharField(_("name"), max_length=32, unique=True)
    name_en = models.CharField(
        _("English name"),
        max_length=32,
        blank=True,
        default="",
        db_default="",
        help_text=_("What English readers see; blank: the name."),
    )
    icon = models.CharField(_("icon"), max_length=255, blank=True)
    sort = models.PositiveIntegerField(
        _("sort order"), default=0, help_text=_("Lower comes first.")
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("shop type")
        verbose_name_plural = _("shop types")
        ordering = ["sort", "id"]

    def __str__(self) -> str:
        return self.name


CITY_CODE = r"^[a-z0-9-]{1,32}$"


class City(models.Model):
    """A city shops are in: every list, search and nearby read is of one city (decision
    392). Readers name it by `code`; keys and rows by id, so a code may be renamed."""

    code = models.CharField(
        _("code"),
        max_length=32,
        unique=True,
        validators=[RegexValidator(CITY_CODE)],
        help_text=_('What clients name it by: lowercase letters, digits and hyphens ("shanghai").'),
    )
    name = models.CharField(_("name"), max_length=32, unique=True)
    name_en = models.CharField(
        _("English name"),
        max_length=32,
        blank=True,
        default="",
        help_text=_("What English readers see; blank: the name."),
    )
    x = models.FloatField(
        _("centre longitude"),
        help_text=_("Where lists start when the reader gives no point."),
        validators=[MinValueValidator(-180), MaxValueValidator(180)],
    )
    y = models.FloatField(
        _("centre latitude"),
        validators=[MinValueValidator(-LATITUDE_LIMIT), MaxValueValidator(LATITUDE_LIMIT)],
    )
    sort = models.PositiveIntegerField(
        _("sort order"), default=0, help_text=_("Lower comes first.")
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("city")
        verbose_name_plural = _("cities")
        ordering = ["sort", "id"]

    def __str__(self) -> str:
        return self.name


class Shop(models.Model):
    name = models.CharField(_("name"), max_length=128, db_index=True)
    type = models.ForeignKey(
        ShopType, on_delete=models.PROTECT, related_name="shops", verbose_name=_("shop type")
    )
    city = models.ForeignKey(
        City, on_delete=models.PROTECT, related_name="shops", verbose_name=_("city")
    )
    images = models.JSONField(
        _("images"), default=list, blank=True, help_text=_("List of image URLs.")
    )
    area = models.CharField(_("area"), max_length=64, blank=True, help_text=_("Business district."))
    address = models.CharField(_("address"), max_length=255)
    x = models.FloatField(
        _("longitude"),
        help_text=_("Longitude."),
        validators=[MinValueValidator(-180), MaxValueValidator(180)],
    )
    y = models.FloatField(
        _("latitude"),
        help_text=_("Latitude."),
        validators=[MinValueValidator(-LATITUDE_LIMIT), MaxValueValidator(LATITUDE_LIMIT)],
    )
    phone = models.CharField(
        _("phone"),
        max_length=20,
        blank=True,
        default="",
        db_default="",
        help_text=_("The shop's phone number, as customers dial it."),
    )
    avg_price = models.PositiveIntegerField(
        _("average price"), default=0, help_text=_("Average spend per person, yuan.")
    )
    sold = models.PositiveIntegerField(_("sold"), default=0)
    # Kept by the review services (blogs.reviews) and the paid orders (vouchers): never
    # edited by hand. `comments` counts the users with a visible note about the shop, each
    # once however many they wrote (decision 286); `score` is the mean of the ratings that
    # count (one per user), x10, rounded half up; 0 when unrated.
    comments = models.PositiveIntegerField(_("reviews"), default=0)
    score = models.PositiveSmallIntegerField(
        _("score"),
        default=0,
        help_text=_("Rating x10: 0..50."),
        validators=[MaxValueValidator(50)],
    )
    # Moved with the Favourite rows, in their transaction (favourites.services).
    favourites = models.PositiveIntegerField(
        _("favourites"), default=0, db_default=0, editable=False
    )
    rating_1 = models.PositiveIntegerField(_("1-star ratings"), default=0, db_default=0)
    rating_2 = models.PositiveIntegerField(_("2-star ratings"), default=0, db_default=0)
    rating_3 = models.PositiveIntegerField(_("3-star ratings"), default=0, db_default=0)
    rating_4 = models.PositiveIntegerField(_("4-star ratings"), default=0, db_default=0)
    rating_5 = models.PositiveIntegerField(_("5-star ratings"), default=0, db_default=0)
    # The review services keep these as they keep the histogram: per sub-score of a review
    # (SUB_SCORES), the stars of the ratings that count which gave one, added
    # up, and how many gave one; the average is served as the score is (x10, rounded).
    taste_sum = models.PositiveIntegerField(_("taste: stars in all"), default=0, db_default=0)
    taste_count = models.PositiveIntegerField(_("taste: ratings"), default=0, db_default=0)
    environment_sum = models.PositiveIntegerField(
        _("environment: stars in all"), default=0, db_default=0
    )
    environment_count = models.PositiveIntegerField(
        _("environment: ratings"), default=0, db_default=0
    )
    service_sum = models.PositiveIntegerField(_("service: stars in all"), default=0, db_default=0)
    service_count = models.PositiveIntegerField(_("service: ratings"), default=0, db_default=0)
    # The shop's best place on this week's rankings ({"rank", "list", "type_id", "area"}),
    # written by the rankings' computation (rankings.services), which then evicts the
    # shop's cached document: the badge costs a reader nothing (decision 413).
    rank = models.JSONField(_("ranking badge"), null=True, blank=True, editable=False)
    open_hours = models.CharField(
        _("opening hours"), max_length=64, blank=True, help_text=_('e.g. "10:00-22:00".')
    )
    # Structured opening hours (shops/hours.py): per weekday, ranges, holidays closed.
    hours = models.JSONField(_("opening hours by weekday"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("shop")
        verbose_name_plural = _("shops")
        ordering = ["id"]
        # Every list is of one city (decision 392), so its indexes lead with the city: a
        # type's shops; the list's filters and sorts (GET /api/shops): a district, a price
        # range, best first (also score_min), most popular first; by type and best first.
        indexes = [
            models.Index(fields=["city", "type", "id"], name="shop_city_type"),
            models.Index(fields=["city", "area", "id"], name="shop_city_area"),
            models.Index(fields=["city", "avg_price", "id"], name="shop_city_price"),
            models.Index(fields=["city", "-score", "id"], name="shop_city_best"),
            models.Index(fields=["city", "-comments", "-sold", "id"], name="shop_city_popular"),
            models.Index(fields=["city", "type", "-score", "id"], name="shop_city_type_best"),
        ]

    def __str__(self) -> str:
        return self.name


class ShopStaff(models.Model):
    """A user who works at a shop: a clerk redeems its coupons and reads its write-offs;
    an owner (an approved claim) also runs the shop and its staff."""

    class Role(models.TextChoices):
        OWNER = "owner", _("owner")
        CLERK = "clerk", _("clerk")

    shop = models.ForeignKey(
        Shop, on_delete=models.CASCADE, related_name="staff", verbose_name=_("shop")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="shop_memberships",
        verbose_name=_("user"),
    )
    role = models.CharField(
        _("role"), max_length=8, choices=Role.choices, default=Role.CLERK, db_default="clerk"
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("shop staff member")
        verbose_name_plural = _("shop staff")
        constraints = [
            models.UniqueConstraint(
                fields=["user", "shop"], name="one_membership_per_user_and_shop"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} at {self.shop}"
