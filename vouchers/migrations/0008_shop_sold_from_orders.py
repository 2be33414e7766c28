"""Every shop's `sold` counted from its vouchers' paid coupons (paid or used), as the
order services keep it from now on (vouchers.coupons.sold)."""

from django.db import migrations
from django.db.models import Count


def count_sold(apps, schema_editor):
    Shop = apps.get_model("shops", "Shop")
    VoucherOrder = apps.get_model("vouchers", "VoucherOrder")
    sold = dict(
        VoucherOrder.objects.filter(status__in=["paid", "used"])
        .values("voucher__shop_id")
        .annotate(n=Count("id"))
        .values_list("voucher__shop_id", "n")
    )
    Shop.objects.update(sold=0)
    for shop_id, n in sold.items():
        Shop.objects.filter(pk=shop_id).update(sold=n)


class Migration(migrations.Migration):
    dependencies = [
        ("vouchers", "0007_order_status_expiry_index"),
        ("shops", "0004_shop_ratings"),
    ]

    operations = [migrations.RunPython(count_sold, migrations.RunPython.noop)]
