"""After the sale, data: validity counted from the claim, live slots from the `live` flag,
normal vouchers unlimited, and a redeem code for every coupon already paid. Not atomic:
each step commits on its own (MySQL cannot roll DDL back anyway), so a failed run is
simply run again."""

import secrets
from datetime import timedelta

from django.db import IntegrityError, migrations, transaction
from django.db.models import F

CODE_BATCH = 1000


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
    _give_paid_coupons_codes(VoucherOrder)


def _give_paid_coupons_codes(VoucherOrder):
    """Every paid (or used) coupon shows a redeem code now; the unique index refuses the
    rare repeat, and that batch is simply drawn again."""
    while True:
        batch = list(
            VoucherOrder.objects.filter(status__in=["paid", "used"], redeem_code__isnull=True).only(
                "id"
            )[:CODE_BATCH]
        )
        if not batch:
            return
        for order in batch:
            order.redeem_code = f"{secrets.randbelow(10**12):012d}"
        try:
            with transaction.atomic():
                VoucherOrder.objects.bulk_update(batch, ["redeem_code"])
        except IntegrityError:
            continue


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
