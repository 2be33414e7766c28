"""Cities (decision 392), step 2 of 3: Shanghai, the one city every shop was in, and every
existing shop into it. Not atomic: the rows are updated in slices of the primary key, each
its own short transaction, so a big table is never locked whole (MariaDB) nor rewritten in
one transaction (SQLite); re-running it resumes where it stopped."""

from django.db import migrations
from django.db.models import Max, Min

BATCH = 5000
SHANGHAI = {
    "name": "上海",
    "name_en": "Shanghai",
    "x": 121.4737,
    "y": 31.2304,
    "sort": 1,
}


def shops_into_shanghai(apps, schema_editor):
    City, Shop = apps.get_model("shops", "City"), apps.get_model("shops", "Shop")
    city, _ = City.objects.get_or_create(code="shanghai", defaults=SHANGHAI)
    bounds = Shop.objects.filter(city__isnull=True).aggregate(low=Min("id"), high=Max("id"))
    if bounds["low"] is None:
        return
    for start in range(bounds["low"], bounds["high"] + 1, BATCH):
        Shop.objects.filter(id__gte=start, id__lt=start + BATCH, city__isnull=True).update(
            city_id=city.id
        )
    # Rows an older process inserted meanwhile (rolling deploys): few, in one statement.
    Shop.objects.filter(city__isnull=True).update(city_id=city.id)


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("shops", "0011_city"),
    ]

    operations = [
        migrations.RunPython(shops_into_shanghai, migrations.RunPython.noop, elidable=False),
    ]
