"""What blogs tells the rest of the product, without knowing who listens (notifications
depends on blogs, never the other way round). Each is sent inside the writer's
transaction, or at once when there is none: receivers put their work after the commit."""

from django.dispatch import Signal

# A user's first like of a note (the like script added them, not a repeat). Arguments:
# blog_id, liker_id, shop_id (the shop the note is about; None for none).
note_liked = Signal()
# A comment was posted. Argument: comment_id.
comment_posted = Signal()
# A moderator hid a note, a comment or a shop's reply. Arguments: blog_id, or comment_id,
# or reply_id with review_id (the note it answers); the others absent.
content_hidden = Signal()
# Comments are about to be deleted (a thread, by its author or a moderator), their note's
# row locked. Argument: comment_ids.
comments_deleting = Signal()
# A shop's reply to a review was written (not an edit). Argument: reply_id.
reply_posted = Signal()
# A note about a shop that rates it was published. Argument: blog_id.
review_published = Signal()
# A shop's reviews changed: a note about it was created, edited, deleted, hidden or
# restored (blogs.reviews counted its statistics again). Argument: shop_id.
shop_reviews_changed = Signal()
