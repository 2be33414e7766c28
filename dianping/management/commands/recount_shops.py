"""Count every shop's reviews, ratings, score, sub-scores and `sold` again from the database."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from blogs import reviews
from vouchers.coupons import sold


class Command(BaseCommand):
    help = (
        "Count every shop's review count, rating histogram, score, sub-scores and sold again "
        "from the notes and paid coupons (safe to re-run; the services keep them otherwise)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        shops = reviews.recount_all(progress=options["verbosity"] > 0)
        with_vouchers = sold.count_all_sold()
        self.stdout.write(
            self.style.SUCCESS(f"reviews counted for {shops} shops; sold for {with_vouchers}")
        )
