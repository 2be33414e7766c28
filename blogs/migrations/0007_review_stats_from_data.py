"""Every shop's review count, histogram and score counted from the notes that exist: no
note carried a rating before, so shops have no ratings yet and score 0 (docs/product/reviews.md#reviews)."""

from django.db import migrations
from django.db.models import Count


def count_reviews(apps, schema_editor):
    Blog = apps.get_model("blogs", "Blog")
    Shop = apps.get_model("shops", "Shop")
    reviews = dict(
        Blog.objects.filter(shop__isnull=False, status=0)
        .values("shop_id")
        .annotate(n=Count("id"))
        .values_list("shop_id", "n")
    )
    Shop.objects.update(
        comments=0, score=0, rating_1=0, rating_2=0, rating_3=0, rating_4=0, rating_5=0
    )
    for shop_id, n in reviews.items():
        Shop.objects.filter(pk=shop_id).update(comments=n)


class Migration(migrations.Migration):
    dependencies = [("blogs", "0006_reviews_and_moderation")]

    operations = [migrations.RunPython(count_reviews, migrations.RunPython.noop)]
