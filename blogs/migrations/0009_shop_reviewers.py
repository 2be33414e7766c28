"""A shop's review count becomes its reviewers, each once however many notes they wrote
about it (decision 286): an index to count them from, and every shop counted again."""

from django.conf import settings
from django.db import migrations, models
from django.db.models import Count


def count_reviewers(apps, schema_editor):
    Blog = apps.get_model("blogs", "Blog")
    Shop = apps.get_model("shops", "Shop")
    reviews = Blog.objects.filter(shop__isnull=False, status=0)
    reviewers = dict(
        reviews.values("shop_id")
        .annotate(n=Count("user_id", distinct=True))
        .values_list("shop_id", "n")
    )
    Shop.objects.exclude(comments=0).exclude(pk__in=reviews.values("shop_id")).update(comments=0)
    for shop_id, n in reviewers.items():
        Shop.objects.filter(pk=shop_id).exclude(comments=n).update(comments=n)


class Migration(migrations.Migration):
    dependencies = [
        ("blogs", "0008_reports"),
        ("shops", "0006_shop_type_english_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddIndex(
            model_name="blog",
            index=models.Index(fields=["shop", "status", "user"], name="blog_shop_reviewers"),
        ),
        migrations.RunPython(count_reviewers, migrations.RunPython.noop),
    ]
