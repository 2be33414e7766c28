"""What follows tells the rest of the product, without knowing who listens (the feed lives
in blogs, which depends on follows, never the other way round)."""

from django.dispatch import Signal

# Sent once Redis agrees with a committed follow or unfollow, still inside the pair's sync
# lock (so receivers see the pair's changes in order). Arguments: user_id, target_id,
# following (bool). blogs.receivers fills or empties the follower's feed.
follow_synced = Signal()
