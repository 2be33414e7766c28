"""What shops tells the rest of the product, without knowing who listens (vouchers and
blogs depend on shops, never the other way round). Each is sent inside the writer's
transaction: receivers put their work after the commit."""

from django.dispatch import Signal

# A shop was moved to another city (an edit of its city, decision 392). Arguments: shop_id,
# old_city_id, city_id.
shop_moved = Signal()
