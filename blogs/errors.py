"""Every error code the blogs app answers with, in one place (docs/product/blogs.md),
and its errors."""

from __future__ import annotations

from enum import StrEnum

from django.utils.translation import gettext_lazy as _

from toolkit.errors import Conflict, Forbidden, NotFound


class Code(StrEnum):
    BLOG_NOT_FOUND = "blog_not_found"  # 404
    PARENT_NOT_FOUND = "parent_not_found"  # 409: a reply to no comment of this blog
    NOT_AUTHOR = "not_author"  # 403: only the author edits or deletes a blog
    RATING_WITHOUT_SHOP = "rating_without_shop"  # 400: a rating needs the shop it rates
    COMMENT_NOT_FOUND = "comment_not_found"  # 404: no such comment on this note
    NOT_COMMENTER = "not_commenter"  # 403: only its author deletes a comment
    # 409: a report of a note or comment that does not exist (or is hidden already)
    REPORT_TARGET_NOT_FOUND = "report_target_not_found"
    # 404: no visible review (a rated note about a shop) of a shop the caller works at;
    # another shop's member, a plain user and a note that is no review all get it (BOLA:
    # the caller's reviews to answer are a set scoped to them, like their orders).
    REVIEW_NOT_FOUND = "review_not_found"
    REPLY_NOT_FOUND = "reply_not_found"  # 404: the review has no reply to delete
    REPLY_HIDDEN = "reply_hidden"  # 409: a moderator hid the reply; it is not edited back
    # 400: taste, environment and service detail a rating: a note without one carries none
    SUB_SCORE_WITHOUT_RATING = "sub_score_without_rating"
    NOT_A_REVIEW = "not_a_review"  # 409: a helpful vote on a note about no shop
    OWN_REVIEW = "own_review"  # 403: nobody votes their own review helpful


class BlogNotFound(NotFound):
    default_code = Code.BLOG_NOT_FOUND
    default_detail = _("No such blog.")


class CommentNotFound(NotFound):
    default_code = Code.COMMENT_NOT_FOUND
    default_detail = _("No such comment.")


class ReviewNotFound(NotFound):
    default_code = Code.REVIEW_NOT_FOUND
    default_detail = _("No such review of a shop you work at.")


class NotAReview(Conflict):
    default_code = Code.NOT_A_REVIEW
    default_detail = _("Only a review of a shop can be voted helpful.")


class OwnReview(Forbidden):
    default_code = Code.OWN_REVIEW
    default_detail = _("You cannot vote your own review helpful.")


class ReplyNotFound(NotFound):
    default_code = Code.REPLY_NOT_FOUND
    default_detail = _("This review has no reply.")
