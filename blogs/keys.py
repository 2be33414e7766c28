"""The notes' Redis keys: likes, "helpful" marks, a user's pages of notes, and the feed.

Every key is a row of docs/redis-keys.md (tests/toolkit/test_keys.py); the toolkit's
own keys and the conventions they share are in toolkit/redis/keys.py."""

from __future__ import annotations


def blog_likes(blog_id: int) -> str:
    """Sorted set of a blog's likers: user id scored by like time (ms). Also read by the
    notifications' `liked` task."""
    return f"blog:{{b{blog_id}}}:likes"


def blog_likes_version(blog_id: int) -> str:
    """Counter bumped by every like change; orders the `liked` count writes to the DB."""
    return f"blog:{{b{blog_id}}}:likes-ver"


def blog_helpful(blog_id: int) -> str:
    """Sorted set of the readers who found a review helpful: user id scored by vote time
    (ms)."""
    return f"blog:{{b{blog_id}}}:helpful"


def blog_helpful_version(blog_id: int) -> str:
    """Counter bumped by every helpful vote's change; orders the `helpful` count writes."""
    return f"blog:{{b{blog_id}}}:helpful-ver"


def user_blog_page(user_id: int, page: int) -> str:
    """Hash {v: the user's version it was built at, data: JSON} of one cached page of a
    user's blogs (random TTL, extended on hits)."""
    return f"blog:{{u{user_id}}}:page:{page}"


def user_blog_pages(user_id: int) -> str:
    """Set of the page numbers of a user's blogs that were cached (what a rebuild visits)."""
    return f"blog:{{u{user_id}}}:pages"


def user_blog_count(user_id: int) -> str:
    """A user's cached blog count."""
    return f"blog:{{u{user_id}}}:count"


def user_blog_version(user_id: int) -> str:
    """Bumped after every committed blog change of a user: a page built from an older
    read is never stored."""
    return f"blog:{{u{user_id}}}:ver"


def feed_inbox(user_id: int) -> str:
    """Sorted set of blog ids pushed to a user, scored by the blog's time (ms); bounded.
    Shares the user's tag with `following`, so a push checks and writes in one script."""
    return f"feed:{{u{user_id}}}"


def feed_pull_authors() -> str:
    """Set of the authors who ever published a blog that was not pushed (they had more
    than FEED_PUSH_MAX_FOLLOWERS followers then): readers pull those authors' blogs."""
    return "feed:pull-authors"


def feed_active_fans(author_id: int) -> str:
    """Sorted set of a pulled author's followers who read their feed lately: follower id
    → when they last did (ms); the newest FEED_ACTIVE_FANS_MAX kept. Their inboxes still
    get the author's blogs pushed."""
    return f"feed:{{a{author_id}}}:active-fans"


def feed_active_mark(user_id: int) -> str:
    """Set (NX, FEED_ACTIVE_MARK_EVERY seconds) when a feed read marks its reader active,
    so a reader writes the authors' active sets at most once per interval."""
    return f"feed:{{u{user_id}}}:active-mark"
