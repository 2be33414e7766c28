"""What vouchers tells the rest of the product, without knowing who listens
(notifications depends on vouchers, never the other way round)."""

from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime

from django.dispatch import Signal

# Sent inside the cancelling transaction when an unpaid order was cancelled by its pay
# timeout or the backstop, not by its buyer. Argument: order_id.
order_timed_out = Signal()
# A shop's coupons or write-offs were written: coupons issued (a claim, a drained sale
# order), write-offs made or reversed. Sent inside the writer's transaction, or at once
# when there is none: receivers put their work after the commit. Arguments: shop_id,
# stamps (the rows' `created_at` or `redeemed_at`: the moments whose counts changed).
records_changed = Signal()


def records_written(sender: type, rows: Iterable[tuple[int, datetime]]) -> None:
    """`records_changed` for each shop of `rows` (shop id, stamp), once a shop."""
    stamps: dict[int, set[datetime]] = defaultdict(set)
    for shop_id, stamp in rows:
        stamps[shop_id].add(stamp)
    for shop_id, moments in sorted(stamps.items()):
        records_changed.send(sender=sender, shop_id=shop_id, stamps=sorted(moments))
