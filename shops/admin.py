"""Operators edit shops here; saves and deletes go through the shop services."""

from django import forms
from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from . import hours, services
from .errors import InvalidHours
from .models import SUB_SCORES, City, Shop, ShopStaff, ShopType


@admin.register(City)
class CityAdmin(admin.ModelAdmin):
    """Cities: saves and deletes through the services, so the cached city list follows."""

    list_display = ["id", "code", "name", "name_en", "x", "y", "sort"]
    search_fields = ["code", "name", "name_en"]
    ordering = ["sort", "id"]

    def save_model(self, request, obj, form, change):
        services.city_save(city=obj)

    def delete_model(self, request, obj):
        services.city_delete(city=obj)

    def delete_queryset(self, request, queryset):
        for city in queryset:
            services.city_delete(city=city)


@admin.register(ShopType)
class ShopTypeAdmin(admin.ModelAdmin):
    list_display = ["id", "name", "name_en", "sort", "icon"]
    ordering = ["sort", "id"]

    def save_model(self, request, obj, form, change):
        services.shop_type_save(shop_type=obj)

    def delete_model(self, request, obj):
        services.shop_type_delete(shop_type=obj)

    def delete_queryset(self, request, queryset):
        for shop_type in queryset:
            services.shop_type_delete(shop_type=shop_type)


class ShopStaffInline(admin.TabularInline):
    model = ShopStaff
    raw_id_fields = ["user"]
    extra = 0


HOURS_HELP = _(
    'JSON, local time: {"weekly": {"mon": [["10:00", "14:00"], ["17:00", "02:00"]], ..., '
    '"sun": []}, "closed_dates": ["2026-12-25"]}. A range ending at or before its start runs '
    "past midnight; a missing weekday is closed; at most 4 ranges a day and 60 closed dates. "
    "Empty: no structured hours. While set, the opening hours text is derived from them."
)


class ShopAdminForm(forms.ModelForm):
    """Opening hours are edited as JSON in shops/hours.py's format, validated by it (no
    Meta: the admin builds the form of every field on this one)."""

    def clean_hours(self):
        value = self.cleaned_data.get("hours")
        if value is None:
            return None
        try:
            return hours.validate(value)
        except InvalidHours as exc:
            raise forms.ValidationError(exc.detail) from None


@admin.register(Shop)
class ShopAdmin(admin.ModelAdmin):
    form = ShopAdminForm
    list_display = [
        "id",
        "name",
        "city",
        "type",
        "area",
        "avg_price",
        "score",
        "sold",
        "updated_at",
    ]
    list_filter = ["city", "type"]
    search_fields = ["name", "address", "area"]
    list_select_related = ["city", "type"]
    ordering = ["-id"]
    # Kept by business events (reviews, paid coupons), never edited by hand.
    readonly_fields = [
        "sold",
        "comments",
        "score",
        *(f"rating_{n}" for n in range(1, 6)),
        *(f"{name}_{part}" for name in SUB_SCORES for part in ("sum", "count")),
    ]
    inlines = [ShopStaffInline]

    def get_form(self, request, obj=None, change=False, **kwargs):
        kwargs.setdefault("help_texts", {"hours": HOURS_HELP})
        return super().get_form(request, obj, change, **kwargs)

    def save_model(self, request, obj, form, change):
        # Only what the operator changed, so concurrent updates of other fields survive.
        services.shop_save(shop=obj, fields=list(form.changed_data) if change else None)

    def delete_model(self, request, obj):
        services.shop_delete(shop_id=obj.pk)

    def delete_queryset(self, request, queryset):
        for shop_id in queryset.values_list("pk", flat=True):
            services.shop_delete(shop_id=shop_id)


@admin.register(ShopStaff)
class ShopStaffAdmin(admin.ModelAdmin):
    """Who works where: shop staff redeem that shop's coupons and read its write-offs."""

    list_display = ["id", "user", "shop", "created_at"]
    search_fields = ["user__phone", "user__nick_name", "shop__name"]
    raw_id_fields = ["user", "shop"]
    list_select_related = ["user", "shop"]
