"""What vouchers tells the rest of the product, without knowing who listens
(notifications depends on vouchers, never the other way round)."""

from django.dispatch import Signal

# Sent inside the cancelling transaction when an unpaid order was cancelled by its pay
# timeout or the backstop, not by its buyer. Argument: order_id.
order_timed_out = Signal()
