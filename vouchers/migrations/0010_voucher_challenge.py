from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("vouchers", "0009_sale_shards"),
    ]

    operations = [
        migrations.AddField(
            model_name="voucher",
            name="challenge",
            field=models.BooleanField(
                default=False,
                help_text="Buyers answer a short arithmetic picture before they grab (slows scripts down).",
                verbose_name="challenge before the grab",
            ),
        ),
    ]
