"""What merchants tells the rest of the product, without knowing who listens
(notifications depends on merchants, never the other way round)."""

from django.dispatch import Signal

# Sent inside the deciding transaction when an operator approved or rejected a shop claim.
# Argument: claim_id.
claim_decided = Signal()

# Sent inside the deciding transaction when an operator published an offer or sent it
# back. Argument: offer_id.
offer_decided = Signal()

# Sent inside the deciding transaction when an operator approved or rejected a change of
# a shop's name, address or position (not when a newer request replaced it). Argument:
# change_id.
change_decided = Signal()
