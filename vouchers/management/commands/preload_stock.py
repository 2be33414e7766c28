from __future__ import annotations

from collections import Counter
from typing import Any

from django.core.management.base import BaseCommand

from vouchers.models import Voucher
from vouchers.sale import stock


class Command(BaseCommand):
    help = (
        "Write flash-sale stock to Redis: overwrite pending sales, set-if-absent for active ones."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        vouchers = Voucher.objects.filter(type=Voucher.Kind.SECKILL).exclude(
            status__in=[Voucher.Status.ENDED, Voucher.Status.VOID]
        )
        outcome = Counter(stock.stock_load(vouchers.iterator()).values())
        summary = ", ".join(f"{action}: {n}" for action, n in sorted(outcome.items())) or "none"
        self.stdout.write(self.style.SUCCESS(f"stock preload: {summary}"))
