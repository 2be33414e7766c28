"""Operators manage vouchers and flash sales here; every save goes through the services."""

from __future__ import annotations

from django.contrib import admin, messages

from dianping import clock

from . import services, stock
from .models import Voucher, VoucherOrder


@admin.register(Voucher)
class VoucherAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "title",
        "shop",
        "type",
        "live_status",
        "stock",
        "redis_stock",
        "begin_time",
        "end_time",
    ]
    list_filter = ["type", "status"]
    search_fields = ["title", "shop__name"]
    list_select_related = ["shop"]
    raw_id_fields = ["shop"]
    readonly_fields = ["status"]
    actions = ["preheat_now", "reload_stock", "void"]

    def get_readonly_fields(self, request, obj=None):  # type: ignore[no-untyped-def]
        fields = list(super().get_readonly_fields(request, obj))
        if (
            obj is not None
            and obj.is_seckill
            and obj.status_at(clock.now()) != Voucher.Status.PENDING
        ):
            fields += ["stock", "begin_time", "end_time", "type"]  # frozen once started
        return fields

    @admin.display(description="status")
    def live_status(self, voucher: Voucher) -> str:
        return voucher.status_at(clock.now())

    def get_changelist_instance(self, request):  # type: ignore[no-untyped-def]
        """Read the page's Redis stock in one round trip, not one GET per row."""
        changelist = super().get_changelist_instance(request)
        rows = list(changelist.result_list)  # the page's queryset, evaluated and cached
        remaining = stock.live_stock([v.id for v in rows if v.is_seckill])
        for voucher in rows:
            voucher._live_stock = remaining.get(voucher.id)
        return changelist

    @admin.display(description="Redis stock")
    def redis_stock(self, voucher: Voucher) -> str:
        if not voucher.is_seckill:
            return "-"
        if hasattr(voucher, "_live_stock"):
            remaining = voucher._live_stock
        else:  # a row the changelist did not fetch: ask for it alone
            remaining = stock.live_stock([voucher.id])[voucher.id]
        return "not loaded" if remaining is None else str(remaining)

    def save_model(self, request, obj, form, change):  # type: ignore[no-untyped-def]
        data = {name: form.cleaned_data[name] for name in form.changed_data}
        if change:
            services.voucher_update(voucher_id=obj.pk, data=data)
        else:
            saved = services.voucher_create(
                data={f: form.cleaned_data[f] for f in form.cleaned_data}
            )
            obj.pk = saved.pk

    @admin.action(description="Preheat now (activity list and stock)")
    def preheat_now(self, request, queryset):  # type: ignore[no-untyped-def]
        listed = services.activities_preheat()
        self.message_user(request, f"Preheated {listed} flash sale(s).", messages.SUCCESS)

    @admin.action(description="Reload stock to Redis")
    def reload_stock(self, request, queryset):  # type: ignore[no-untyped-def]
        outcome = stock.stock_load(queryset.filter(type=Voucher.Kind.SECKILL))
        self.message_user(request, f"Stock reload: {outcome}", messages.SUCCESS)

    @admin.action(description="Void (cancel the sale)")
    def void(self, request, queryset):  # type: ignore[no-untyped-def]
        for voucher_id in queryset.values_list("pk", flat=True):
            services.voucher_void(voucher_id=voucher_id)
        self.message_user(request, "Voided.", messages.SUCCESS)


@admin.register(VoucherOrder)
class VoucherOrderAdmin(admin.ModelAdmin):
    list_display = ["id", "user", "voucher", "status", "created_at", "paid_at"]
    list_filter = ["status"]
    search_fields = ["id", "user__phone"]
    raw_id_fields = ["user", "voucher"]
    # Orders change only through their services (pay, the pay timeout): editing status or
    # `live` here could give a user two live orders or return a unit twice.
    readonly_fields = [
        "id", "user", "voucher", "status", "live", "created_at", "paid_at", "expires_at",
        "used_at", "cancelled_at",
    ]  # fmt: skip
