"""After the sale, schema part 2: `live_slot` (filled by 0003) replaces the `live` flag in
the one-live-order constraint; every order has its `expires_at` now."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("vouchers", "0003_after_sale_data"),
    ]

    operations = [
        migrations.AlterField(
            model_name="voucherorder",
            name="expires_at",
            field=models.DateTimeField(
                help_text="End of validity: created_at + the voucher's valid_days."
            ),
        ),
        migrations.RemoveConstraint(
            model_name="voucherorder",
            name="one_live_order_per_user_and_voucher",
        ),
        migrations.RemoveField(
            model_name="voucherorder",
            name="live",
        ),
        migrations.AddConstraint(
            model_name="voucherorder",
            constraint=models.UniqueConstraint(
                fields=("user", "voucher", "live_slot"),
                name="live_orders_per_user_and_voucher_within_limit",
            ),
        ),
    ]
