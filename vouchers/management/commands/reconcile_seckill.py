from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from toolkit import identity
from vouchers.sale import heal, reconcile
from vouchers.sale.shard import shard_lock


class Command(BaseCommand):
    help = (
        "Compare flash-sale stock and buyers in Redis with the database; --fix repairs Redis "
        "(without --voucher, it also verifies every shard, as the drain's heal would)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--voucher", type=int, help="Only this voucher id.")
        parser.add_argument("--fix", action="store_true", help="Rewrite Redis from the database.")

    def handle(self, *args: Any, voucher: int | None, fix: bool, **options: Any) -> None:
        if fix:  # never rewrite another database's sale from this one (decision 292)
            try:
                heal.check_belongs_here()
            except identity.RedisOfAnotherDatabase as refused:
                raise CommandError(str(refused)) from None
        drifts = [d for d in reconcile.seckill_drift(voucher_id=voucher) if not d.clean]
        for drift in drifts:
            if fix:
                drift = reconcile.seckill_repair(drift.voucher_id)  # measured again, locked
            self.stdout.write(
                f"voucher {drift.voucher_id}: redis stock {drift.redis_stock}, expected "
                f"{drift.expected_stock}; missing buyers {sorted(drift.missing_buyers)}, "
                f"extra buyers {sorted(drift.extra_buyers)}"
            )
        verdict = "fixed" if fix else "found"
        self.stdout.write(self.style.SUCCESS(f"{len(drifts)} voucher(s) out of line, {verdict}"))
        if fix and voucher is None:
            for shard in range(settings.SECKILL_SHARDS):
                with shard_lock(shard, ttl=30, watchdog=True, wait=60):
                    heal.shard_heal(shard)
            self.stdout.write(f"{settings.SECKILL_SHARDS} shard(s) verified: their sales run")
