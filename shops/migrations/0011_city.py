"""Cities (decision 392), step 1 of 3: the city table and a nullable `Shop.city`, so the
column is added without touching the rows (0010 fills it in batches, 0011 requires it)."""

import django.core.validators
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("shops", "0010_shop_favourites"),
    ]

    operations = [
        migrations.CreateModel(
            name="City",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "code",
                    models.CharField(
                        help_text='What clients name it by: lowercase letters, digits and hyphens ("shanghai").',
                        max_length=32,
                        unique=True,
                        validators=[django.core.validators.RegexValidator("^[a-z0-9-]{1,32}$")],
                        verbose_name="code",
                    ),
                ),
                ("name", models.CharField(max_length=32, unique=True, verbose_name="name")),
                (
                    "name_en",
                    models.CharField(
                        blank=True,
                        default="",
                        help_text="What English readers see; blank: the name.",
                        max_length=32,
                        verbose_name="English name",
                    ),
                ),
                (
                    "x",
                    models.FloatField(
                        help_text="Where lists start when the reader gives no point.",
                        validators=[
                            django.core.validators.MinValueValidator(-180),
                            django.core.validators.MaxValueValidator(180),
                        ],
                        verbose_name="centre longitude",
                    ),
                ),
                (
                    "y",
                    models.FloatField(
                        validators=[
                            django.core.validators.MinValueValidator(-85.05112878),
                            django.core.validators.MaxValueValidator(85.05112878),
                        ],
                        verbose_name="centre latitude",
                    ),
                ),
                (
                    "sort",
                    models.PositiveIntegerField(
                        default=0, help_text="Lower comes first.", verbose_name="sort order"
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="created at")),
                ("updated_at", models.DateTimeField(auto_now=True, verbose_name="updated at")),
            ],
            options={
                "verbose_name": "city",
                "verbose_name_plural": "cities",
                "ordering": ["sort", "id"],
            },
        ),
        migrations.AddField(
            model_name="shop",
            name="city",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="shops",
                to="shops.city",
                verbose_name="city",
            ),
        ),
    ]
