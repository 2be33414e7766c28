"""Cities (decision 392), step 3 of 3: every shop has its city now, so it is required, and
the list's indexes lead with it (every list is of one city)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("shops", "0012_shops_into_the_default_city"),
    ]

    operations = [
        migrations.AlterField(
            model_name="shop",
            name="city",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="shops",
                to="shops.city",
                verbose_name="city",
            ),
        ),
        migrations.AddIndex(
            model_name="shop",
            index=models.Index(fields=["city", "type", "id"], name="shop_city_type"),
        ),
        migrations.AddIndex(
            model_name="shop",
            index=models.Index(fields=["city", "area", "id"], name="shop_city_area"),
        ),
        migrations.AddIndex(
            model_name="shop",
            index=models.Index(fields=["city", "avg_price", "id"], name="shop_city_price"),
        ),
        migrations.AddIndex(
            model_name="shop",
            index=models.Index(fields=["city", "-score", "id"], name="shop_city_best"),
        ),
        migrations.AddIndex(
            model_name="shop",
            index=models.Index(
                fields=["city", "-comments", "-sold", "id"], name="shop_city_popular"
            ),
        ),
        migrations.AddIndex(
            model_name="shop",
            index=models.Index(fields=["city", "type", "-score", "id"], name="shop_city_type_best"),
        ),
        migrations.RemoveIndex(model_name="shop", name="shops_shop_type_id_f8a82d_idx"),
        migrations.RemoveIndex(model_name="shop", name="shop_area"),
        migrations.RemoveIndex(model_name="shop", name="shop_price"),
        migrations.RemoveIndex(model_name="shop", name="shop_best"),
        migrations.RemoveIndex(model_name="shop", name="shop_popular"),
        migrations.RemoveIndex(model_name="shop", name="shop_type_best"),
    ]
