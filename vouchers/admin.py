"""Operators manage vouchers and flash sales here; every write goes through the services.
Orders, shop orders and write-offs are records: read-only, filtered and exported."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from typing import TYPE_CHECKING

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.http import Http404, JsonResponse, StreamingHttpResponse
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.timezone import localtime
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from toolkit import clock
from toolkit.errors import DomainError
from toolkit.money import YuanField, yuan, yuan_column

from . import selectors, services
from .models import MONEY_FIELDS, ShopOrder, Voucher, VoucherOrder, WriteOff
from .sale import gauges, shard, stock

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

COUNT_COLUMNS = ("claimed", "paid", "used", "refunded")  # of selectors.order_counts
# MONEY_FIELDS: stored in fen, typed and shown in yuan (toolkit/money.py).
MONEY_HELP = {
    "pay_value": _("What the buyer pays, in yuan (at most 2 decimals)."),
    "actual_value": _("What it is worth, in yuan (at most 2 decimals)."),
    "amount_condition": _("Threshold in yuan: the discount applies from this amount on."),
    "discount_amount": _("full_reduction: yuan off."),
    "max_discount": _("percentage: the most it takes off, in yuan."),
}
ORDERS_INLINE = 20  # a voucher's page lists its latest orders; the order list has them all


class VoucherAdminForm(forms.ModelForm):
    """The voucher's fields, and for a new flash sale the buckets its stock is split
    into (vouchers/sale/buckets.py): chosen once, shown read-only afterwards."""

    buckets = forms.IntegerField(
        label=_("buckets"),
        required=False,
        min_value=1,
        help_text=_(
            "A hot flash sale's stock split across this many shards (Redis masters on a "
            "Cluster). Empty: one, or SECKILL_AUTO_BUCKETS for a large stock. Fixed once saved."
        ),
    )

    class Meta:
        model = Voucher
        fields = "__all__"  # noqa: DJ007 - ModelAdmin passes its own list

    def clean_buckets(self) -> int | None:
        count = self.cleaned_data["buckets"]
        if count is not None and count > settings.SECKILL_SHARDS:
            raise forms.ValidationError(
                gettext("At most %(shards)d (SECKILL_SHARDS).")
                % {"shards": settings.SECKILL_SHARDS}
            )
        return count


class LatestOrdersFormSet(forms.BaseInlineFormSet):
    """The voucher's orders cut to the latest ORDERS_INLINE (a slice after the filter)."""

    def get_queryset(self):
        if not hasattr(self, "_latest"):
            self._latest = super().get_queryset()[:ORDERS_INLINE]
        return self._latest


class VoucherOrderInline(admin.TabularInline):
    """A voucher's latest orders on its page, read-only; admin inlines do not page, so
    the rest are one link away, in the order list filtered by the voucher (decision 461)."""

    model = VoucherOrder
    formset = LatestOrdersFormSet
    fields = ("user", "status", "created_at", "paid_at", "used_at", "refunded_at")
    readonly_fields = fields
    ordering = ["-created_at", "-id"]
    show_change_link = True
    extra = 0
    can_delete = False
    verbose_name_plural = _("latest orders")

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("user")

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Voucher)
class VoucherAdmin(admin.ModelAdmin):
    """Fits 1280 px with the live link in view: amounts in yuan, the sale's stock, order
    counts and window each in one narrow column, the kind left to the filter and the
    window (decision 460)."""

    form = VoucherAdminForm
    list_display = [
        "id", "title", "shop", "price", "discount", "live_status", "stock_left",
        "order_counts", "sale_window", "live_link",
    ]  # fmt: skip
    inlines = [VoucherOrderInline]
    list_filter = ["type", "discount_type", "status"]
    search_fields = ["title", "shop__name"]
    list_select_related = ["shop"]
    raw_id_fields = ["shop"]
    readonly_fields = ["status"]
    actions = ["preheat_now", "reload_stock", "void"]
    change_form_template = "admin/vouchers/voucher/change_form.html"  # the live page's link

    # --- the live sale page: its numbers as /metrics has them, drawn as they move -----

    LIVE_POLL_MS = 2000

    def get_urls(self):
        live = [
            path(
                "<int:voucher_id>/live/",
                self.admin_site.admin_view(self.live_sale_view),
                name="vouchers_voucher_live",
            ),
            path(
                "<int:voucher_id>/live/numbers/",
                self.admin_site.admin_view(self.live_numbers_view),
                name="vouchers_voucher_live_numbers",
            ),
        ]
        return live + super().get_urls()

    def _sale(self, request, voucher_id: int) -> Voucher:
        voucher = Voucher.objects.filter(pk=voucher_id, type=Voucher.Kind.SECKILL).first()
        if voucher is None or not self.has_view_permission(request, voucher):
            raise Http404(gettext("No such flash sale."))
        return voucher

    def live_sale_view(self, request, voucher_id: int) -> TemplateResponse:
        voucher = self._sale(request, voucher_id)
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Live sale: %(voucher)s") % {"voucher": voucher},
            "opts": self.model._meta,
            "voucher": voucher,
            "shard": ", ".join(map(str, shard.placement(voucher.id, voucher.sale_shards))),
            "numbers_url": reverse("admin:vouchers_voucher_live_numbers", args=[voucher.id]),
            "interval_ms": self.LIVE_POLL_MS,
        }
        return TemplateResponse(request, "admin/vouchers/voucher/live_sale.html", context)

    def live_numbers_view(self, request, voucher_id: int) -> JsonResponse:
        numbers = gauges.sale_snapshot(self._sale(request, voucher_id))
        drains = [drain for _, drain in numbers.buckets]
        return JsonResponse(
            {
                "voucher": numbers.voucher_id,
                "at_ms": numbers.at_ms,
                "stock_left": numbers.stock_left,
                "accepted": numbers.accepted,
                "refused": numbers.refused,
                "persisted": numbers.persisted,
                # Over the shards of the sale's buckets (each shared with other sales).
                "drain": {
                    "shard": numbers.drain.shard,
                    "lag_seconds": round(max(d.lag_seconds for d in drains), 3),
                    "pending": sum(d.pending for d in drains),
                    "dead_letters": sum(d.dead_letters for d in drains),
                },
                "buckets": [
                    {"shard": drain.shard, "stock_left": units} for units, drain in numbers.buckets
                ],
            },
            headers={"Cache-Control": "no-store"},
        )

    @admin.display(description=_("live"))
    def live_link(self, voucher: Voucher) -> str:
        if not voucher.is_seckill:
            return "-"
        url = reverse("admin:vouchers_voucher_live", args=[voucher.id])
        return format_html('<a href="{}">{}</a>', url, gettext("Live sale"))

    def get_readonly_fields(self, request, obj=None):
        fields = list(super().get_readonly_fields(request, obj))
        if obj is None:
            return fields
        fields.append("buckets")  # the form's field only when adding
        if obj.is_seckill and obj.status_at(clock.now()) != Voucher.Status.PENDING:
            fields += ["stock", "begin_time", "end_time", "type"]  # frozen once started
        if obj.orders.exists():
            fields += [f for f in services.FROZEN_WITH_ORDERS if f not in fields]
        # Excluded from the form by their names, shown by their yuan twins.
        fields += [f"{f}_yuan" for f in MONEY_FIELDS if f in fields]
        return fields

    @admin.display(description=_("buckets"))
    def buckets(self, voucher: Voucher) -> str:
        shards = shard.placement(voucher.id, voucher.sale_shards)
        return gettext("%(count)d, in shards %(shards)s") % {
            "count": len(shards),
            "shards": ", ".join(map(str, shards)),
        }

    @admin.display(description=_("status"))
    def live_status(self, voucher: Voucher) -> StrOrPromise:
        return Voucher.Status(voucher.status_at(clock.now())).label

    @admin.display(description=_("price"), ordering="pay_value")
    def price(self, voucher: Voucher) -> str:
        return yuan(voucher.pay_value)

    @admin.display(description=_("discount"))
    def discount(self, voucher: Voucher) -> str:
        """The rule in a few words, amounts in yuan."""
        rule = voucher.discount_rule
        values = {
            "off": yuan(rule.discount_amount),
            "threshold": yuan(rule.amount_condition),
            "rate": rule.discount_rate,
            "cap": yuan(rule.max_discount),
        }
        if rule.type == Voucher.DiscountType.FULL_REDUCTION:
            return gettext("%(off)s off from %(threshold)s") % values
        if rule.type == Voucher.DiscountType.PERCENTAGE:
            if rule.max_discount:
                return gettext("pay %(rate)s%% from %(threshold)s, at most %(cap)s off") % values
            return gettext("pay %(rate)s%% from %(threshold)s") % values
        return gettext("%(value)s off") % {"value": yuan(rule.value)}

    # --- amounts typed in yuan; frozen ones shown in yuan too -------------------------

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        if db_field.name not in MONEY_FIELDS or field is None:
            return field
        return YuanField(
            label=field.label,
            required=field.required,
            initial=field.initial,
            help_text=MONEY_HELP[db_field.name],
        )

    def get_fields(self, request, obj=None):
        """A read-only amount appears once, as its yuan twin (`<name>_yuan`)."""
        fields = super().get_fields(request, obj)
        return [f for f in fields if f not in MONEY_FIELDS or f"{f}_yuan" not in fields]

    pay_value_yuan = yuan_column(Voucher, "pay_value")
    actual_value_yuan = yuan_column(Voucher, "actual_value")
    amount_condition_yuan = yuan_column(Voucher, "amount_condition")
    discount_amount_yuan = yuan_column(Voucher, "discount_amount")
    max_discount_yuan = yuan_column(Voucher, "max_discount")

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        if obj is not None:  # the link under the inline to all of the voucher's orders
            context["orders_total"] = obj.orders.count()
            context["orders_shown"] = min(context["orders_total"], ORDERS_INLINE)
            context["orders_url"] = (
                reverse("admin:vouchers_voucherorder_changelist") + f"?voucher__id__exact={obj.pk}"
            )
        return super().render_change_form(request, context, add, change, form_url, obj)

    def get_changelist_instance(self, request):
        """The page's Redis stock in one round trip and its order counts in one query,
        not a lookup per row."""
        changelist = super().get_changelist_instance(request)
        rows = list(changelist.result_list)  # the page's queryset, evaluated and cached
        live = stock.live_stock([v.id for v in rows if v.is_seckill])
        counts = selectors.order_counts([v.id for v in rows])
        for voucher in rows:
            voucher._live_stock = live.get(voucher.id)
            voucher._counts = counts[voucher.id]
        return changelist

    @admin.display(description=_("left / stock"))
    def stock_left(self, voucher: Voucher) -> str:
        """A sale's units left in Redis over its stock; a coupon's stock (- unlimited)."""
        total = "-" if voucher.stock is None else str(voucher.stock)
        if not voucher.is_seckill:
            return total
        if hasattr(voucher, "_live_stock"):
            remaining = voucher._live_stock
        else:  # a row the changelist did not fetch: ask for it alone
            remaining = stock.live_stock([voucher.id])[voucher.id]
        left = gettext("not loaded") if remaining is None else str(remaining)  # not in an f-string:
        return f"{left} / {total}"  # makemessages cannot find a call inside one

    @admin.display(description=_("claimed/paid/used/refunded"))
    def order_counts(self, voucher: Voucher) -> str:
        return " / ".join(str(self._count(voucher, name)) for name in COUNT_COLUMNS)

    @admin.display(description=_("sale window"), ordering="begin_time")
    def sale_window(self, voucher: Voucher) -> str:
        """Begin over end, month and minute only: a narrow column."""
        if voucher.begin_time is None or voucher.end_time is None:
            return "-"
        begin, end = (
            localtime(t).strftime("%m-%d %H:%M") for t in (voucher.begin_time, voucher.end_time)
        )
        return format_html("{}<br>→ {}", begin, end)

    def _count(self, voucher: Voucher, name: str) -> int:
        counts = (
            getattr(voucher, "_counts", None) or selectors.order_counts([voucher.id])[voucher.id]
        )
        return counts[name]

    def save_model(self, request, obj, form, change):
        data = {name: form.cleaned_data[name] for name in form.changed_data}
        if change:
            services.voucher_update(voucher_id=obj.pk, data=data)
        else:
            saved = services.voucher_create(
                data={f: form.cleaned_data[f] for f in form.cleaned_data}
            )
            obj.pk = saved.pk

    def get_deleted_objects(self, objs, request):
        """Admin's confirmation page lists what blocks a delete: our rules join the
        protected rows, so a voucher in use is refused there, before anything runs."""
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        refusals = [
            gettext("%(voucher)s: %(reason)s") % {"voucher": voucher, "reason": refusal.detail}
            for voucher in objs
            if (refusal := services.voucher_delete_refusal(voucher)) is not None
        ]
        if refusals:  # the reason, rather than "no permission to delete voucher orders"
            return deleted, counts, set(), [*refusals, *protected]
        return deleted, counts, perms_needed, protected

    def delete_model(self, request, obj):
        self._delete(request, [obj.pk])

    def delete_queryset(self, request, queryset):
        self._delete(request, list(queryset.values_list("pk", flat=True)))

    def _delete(self, request, voucher_ids: list[int]) -> None:
        for voucher_id in voucher_ids:
            try:
                services.voucher_delete(voucher_id=voucher_id)
            except DomainError as exc:  # a sale or an order landed after the confirmation
                message = gettext("Voucher %(id)s: %(reason)s") % {
                    "id": voucher_id,
                    "reason": exc.detail,
                }
                self.message_user(request, message, messages.ERROR)

    @admin.action(description=_("Preheat now (activity list and stock)"))
    def preheat_now(self, request, queryset):
        listed = services.activities_preheat()
        message = ngettext(
            "Preheated %(count)s flash sale.", "Preheated %(count)s flash sales.", listed
        ) % {"count": listed}
        self.message_user(request, message, messages.SUCCESS)

    @admin.action(description=_("Reload stock to Redis"))
    def reload_stock(self, request, queryset):
        outcome = stock.stock_load(queryset.filter(type=Voucher.Kind.SECKILL))
        message = gettext("Stock reload: %(outcome)s") % {"outcome": outcome}
        self.message_user(request, message, messages.SUCCESS)

    @admin.action(description=_("Void (withdraw: no more sales or claims)"))
    def void(self, request, queryset):
        for voucher_id in queryset.values_list("pk", flat=True):
            services.voucher_void(voucher_id=voucher_id)
        self.message_user(request, gettext("Voided."), messages.SUCCESS)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Records that change only through their services: viewed, filtered, never edited
    here (editing an order's status could give a unit back twice)."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(VoucherOrder)
class VoucherOrderAdmin(ReadOnlyAdmin):
    list_display = ["id", "user", "voucher", "status", "created_at", "paid_at", "expires_at"]
    list_filter = ["status", ("voucher", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["id", "user__phone"]
    list_select_related = ["user", "voucher"]
    # Not the redeem code: only the coupon's owner sees it.
    fields = [
        "id",
        "user",
        "voucher",
        "status",
        "live_slot",
        "created_at",
        "paid_at",
        "expires_at",
        "used_at",
        "cancelled_at",
        "refunded_at",
    ]


@admin.register(ShopOrder)
class ShopOrderAdmin(ReadOnlyAdmin):
    list_display = [
        "id", "user", "shop", "amount_yuan", "discount_yuan", "payable_yuan", "status",
        "created_at",
    ]  # fmt: skip
    list_filter = ["status"]
    search_fields = ["id", "user__phone", "shop__name"]
    list_select_related = ["user", "shop"]
    fields = [
        "id", "user", "shop", "amount_yuan", "discount_yuan", "payable_yuan", "coupon", "status",
        "created_at", "refunded_at",
    ]  # fmt: skip
    readonly_fields = ["amount_yuan", "discount_yuan", "payable_yuan"]

    amount_yuan = yuan_column(ShopOrder, "amount", sortable=True)
    discount_yuan = yuan_column(ShopOrder, "discount")
    payable_yuan = yuan_column(ShopOrder, "payable")


class ShopWithWriteOffsFilter(admin.SimpleListFilter):
    """Shops that have write-offs (a list of every shop would run to hundreds)."""

    title = _("shop")
    parameter_name = "shop"

    def lookups(self, request, model_admin):
        shops = WriteOff.objects.values_list("shop_id", "shop__name").distinct().order_by("shop_id")
        return [(str(shop_id), name) for shop_id, name in shops]

    def queryset(self, request, queryset):
        return queryset.filter(shop_id=self.value()) if self.value() else queryset


CSV_COLUMNS = [
    "id",
    "kind",
    "shop_id",
    "voucher_id",
    "order_id",
    "shop_order_id",
    "discount",
    "redeemed_at",
    "redeemed_by_id",
    "reversed_at",
]


class Echo:
    """A file-like object whose write returns the line: csv.writer for a streamed body."""

    def write(self, value: str) -> str:
        return value


@admin.register(WriteOff)
class WriteOffAdmin(ReadOnlyAdmin):
    list_display = [
        "id", "kind", "shop", "voucher", "order", "discount_yuan", "redeemed_at", "redeemed_by",
        "reversed_at",
    ]  # fmt: skip
    fields = [
        "kind", "shop", "voucher", "order", "shop_order", "discount_yuan", "redeemed_at",
        "redeemed_by", "reversed_at",
    ]  # fmt: skip
    readonly_fields = ["discount_yuan"]
    list_filter = ["kind", ShopWithWriteOffsFilter, "redeemed_at"]
    date_hierarchy = "redeemed_at"
    search_fields = ["order__id", "shop__name"]
    list_select_related = ["shop", "voucher", "order", "redeemed_by"]
    actions = ["export_csv"]

    discount_yuan = yuan_column(WriteOff, "discount")

    @admin.action(description=_("Export as CSV"))
    def export_csv(self, request, queryset):
        """In fen, as stored: the file is read by programs (decision 460). Streamed row by
        row, so a month of write-offs never sits in memory at once."""
        writer = csv.writer(Echo())

        def rows() -> Iterator[str]:
            yield writer.writerow(CSV_COLUMNS)
            for values in queryset.order_by("redeemed_at", "id").values_list(*CSV_COLUMNS):
                yield writer.writerow(
                    [v.isoformat() if hasattr(v, "isoformat") else v for v in values]
                )

        response = StreamingHttpResponse(rows(), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="write-offs.csv"'
        return response
