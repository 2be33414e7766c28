"""After the sale (issue 11), schema part 1: discount rules, per-user limits, optional
stock, live slots, redeem codes, shop orders and write-offs. The data moves in 0003;
0004 drops the old `live` flag."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("shops", "0002_shop_staff"),
        ("vouchers", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="ShopOrder",
            fields=[
                (
                    "id",
                    models.BigIntegerField(
                        help_text="From the global id generator.", primary_key=True, serialize=False
                    ),
                ),
                ("amount", models.PositiveIntegerField(help_text="The bill, in fen.")),
                (
                    "discount",
                    models.PositiveIntegerField(default=0, help_text="What the coupon took off."),
                ),
                (
                    "payable",
                    models.PositiveIntegerField(help_text="amount - discount: what was paid."),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[("paid", "Paid"), ("refunded", "Refunded")],
                        default="paid",
                        max_length=16,
                    ),
                ),
                ("created_at", models.DateTimeField()),
                ("refunded_at", models.DateTimeField(blank=True, null=True)),
                ("idempotency_key", models.CharField(blank=True, max_length=64, null=True)),
            ],
            options={
                "ordering": ["-id"],
            },
        ),
        migrations.CreateModel(
            name="WriteOff",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[("redeem", "Redeem"), ("checkout", "Checkout")], max_length=16
                    ),
                ),
                (
                    "discount",
                    models.PositiveIntegerField(
                        help_text="What the coupon was worth here, in fen."
                    ),
                ),
                ("redeemed_at", models.DateTimeField()),
                ("reversed_at", models.DateTimeField(blank=True, null=True)),
                ("standing", models.BooleanField(default=True, null=True)),
            ],
            options={
                "ordering": ["-redeemed_at", "-id"],
            },
        ),
        migrations.RemoveConstraint(
            model_name="voucher",
            name="seckill_voucher_has_a_sale_window",
        ),
        migrations.AddField(
            model_name="voucher",
            name="amount_condition",
            field=models.PositiveIntegerField(
                default=0, help_text="Threshold in fen: the discount applies from this amount on."
            ),
        ),
        migrations.AddField(
            model_name="voucher",
            name="discount_amount",
            field=models.PositiveIntegerField(
                blank=True, help_text="full_reduction: fen off.", null=True
            ),
        ),
        migrations.AddField(
            model_name="voucher",
            name="discount_rate",
            field=models.PositiveSmallIntegerField(
                blank=True,
                help_text="percentage: the percent of the amount paid (1-99).",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="voucher",
            name="discount_type",
            field=models.CharField(
                choices=[
                    ("cash", "cash (actual_value off)"),
                    ("full_reduction", "full reduction (满减)"),
                    ("percentage", "percentage (折扣)"),
                ],
                default="cash",
                max_length=16,
            ),
        ),
        migrations.AddField(
            model_name="voucher",
            name="max_discount",
            field=models.PositiveIntegerField(
                blank=True, help_text="percentage: the most it takes off, in fen.", null=True
            ),
        ),
        migrations.AddField(
            model_name="voucher",
            name="per_user_limit",
            field=models.PositiveSmallIntegerField(
                default=1, help_text="Live coupons one user may hold (a flash sale: always 1)."
            ),
        ),
        migrations.AddField(
            model_name="voucherorder",
            name="live_slot",
            field=models.PositiveSmallIntegerField(blank=True, default=1, null=True),
        ),
        migrations.AddField(
            model_name="voucherorder",
            name="redeem_code",
            field=models.CharField(blank=True, max_length=12, null=True, unique=True),
        ),
        migrations.AddField(
            model_name="voucherorder",
            name="refunded_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name="voucher",
            name="stock",
            field=models.PositiveIntegerField(
                blank=True,
                help_text="Units left: a flash sale's; a normal voucher's when limited (empty: unlimited).",
                null=True,
            ),
        ),
        migrations.AlterField(
            model_name="voucher",
            name="valid_days",
            field=models.PositiveSmallIntegerField(
                default=30, help_text="Days a coupon is usable, counted from its claim."
            ),
        ),
        migrations.AlterField(
            model_name="voucherorder",
            name="expires_at",
            field=models.DateTimeField(
                blank=True,
                help_text="End of validity: created_at + the voucher's valid_days.",
                null=True,
            ),
        ),
        migrations.AddConstraint(
            model_name="voucher",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("type", "normal"),
                    models.Q(
                        ("begin_time__isnull", False),
                        ("begin_time__lt", models.F("end_time")),
                        ("end_time__isnull", False),
                        ("per_user_limit", 1),
                        ("stock__isnull", False),
                    ),
                    _connector="OR",
                ),
                name="seckill_voucher_has_a_sale_window",
            ),
        ),
        migrations.AddConstraint(
            model_name="voucher",
            constraint=models.CheckConstraint(
                condition=models.Q(("per_user_limit__gte", 1)),
                name="voucher_per_user_limit_positive",
            ),
        ),
        migrations.AddField(
            model_name="shoporder",
            name="coupon",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="shop_orders",
                to="vouchers.voucherorder",
            ),
        ),
        migrations.AddField(
            model_name="shoporder",
            name="shop",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="shop_orders",
                to="shops.shop",
            ),
        ),
        migrations.AddField(
            model_name="shoporder",
            name="user",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="shop_orders",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="writeoff",
            name="order",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="write_offs",
                to="vouchers.voucherorder",
            ),
        ),
        migrations.AddField(
            model_name="writeoff",
            name="redeemed_by",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="writeoff",
            name="shop",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="write_offs",
                to="shops.shop",
            ),
        ),
        migrations.AddField(
            model_name="writeoff",
            name="shop_order",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="write_offs",
                to="vouchers.shoporder",
            ),
        ),
        migrations.AddField(
            model_name="writeoff",
            name="voucher",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="write_offs",
                to="vouchers.voucher",
            ),
        ),
        migrations.AddIndex(
            model_name="shoporder",
            index=models.Index(fields=["user", "id"], name="vouchers_sh_user_id_19bde4_idx"),
        ),
        migrations.AddConstraint(
            model_name="shoporder",
            constraint=models.UniqueConstraint(
                fields=("user", "idempotency_key"), name="one_shop_order_per_idempotency_key"
            ),
        ),
        migrations.AddIndex(
            model_name="writeoff",
            index=models.Index(
                fields=["shop", "redeemed_at"], name="vouchers_wr_shop_id_8c108a_idx"
            ),
        ),
        migrations.AddConstraint(
            model_name="writeoff",
            constraint=models.UniqueConstraint(
                fields=("order", "standing"), name="one_standing_write_off_per_coupon"
            ),
        ),
    ]
