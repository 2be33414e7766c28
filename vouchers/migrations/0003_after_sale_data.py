"""After the sale, data: validity counted from the claim, live slots from the `live` flag,
normal vouchers unlimited. Not atomic: one UPDATE per voucher commits on its own (MySQL
cannot roll DDL back anyway), so a failed run is simply run again."""

from datetime import timedelta

from django.db import migrations
from django.db.models import F


def forwards(apps, schema_editor):
    Voucher = apps.get_model("vouchers", "Voucher")
    VoucherOrder = apps.get_model("vouchers", "VoucherOrder")
    # Normal vouchers had no stock before (the column's 0 meant "not a flash sale").
    Voucher.objects.filter(type="normal").update(stock=None)
    VoucherOrder.objects.filter(live__isnull=True).update(live_slot=None)
    for voucher_id, valid_days in Voucher.objects.values_list("id", "valid_days").iterator():
        VoucherOrder.objects.filter(voucher_id=voucher_id).update(
            expires_at=F("created_at") + timedelta(days=valid_days)
        )


def backwards(apps, schema_editor):
    Voucher = apps.get_model("vouchers", "Voucher")
    VoucherOrder = apps.get_model("vouchers", "VoucherOrder")
    Voucher.objects.filter(stock__isnull=True).update(stock=0)
    VoucherOrder.objects.filter(live_slot__isnull=True).update(live=None)


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("vouchers", "0002_after_sale"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
