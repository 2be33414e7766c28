from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from shops import services


class Command(BaseCommand):
    help = (
        "Rebuild the GEO indexes (one per city and type) and the shop-id Bloom filter from "
        "the database."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        counts, bloom = services.shop_indexes_rebuild(progress=options["verbosity"] > 0)
        cities = len({city_id for city_id, _ in counts})
        self.stdout.write(
            self.style.SUCCESS(
                f"GEO: {sum(counts.values())} shops in {len(counts)} sets of a city and type "
                f"({cities} cities); Bloom: {bloom} ids"
            )
        )
