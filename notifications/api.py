"""What other apps call when something worth telling happens: one line at the event,
inside its transaction. The task is enqueued only after commit (a rolled back event
tells nobody), robustly (a broker outage never fails the event), and does its work
off the request path."""

from __future__ import annotations

from collections.abc import Callable

from django.db import transaction


def followed(*, follower_id: int, followed_id: int) -> None:
    _after_commit(lambda tasks: tasks.notify_followed.delay(follower_id, followed_id))


def liked(*, blog_id: int, liker_id: int) -> None:
    """A first like by this user (the like script changed the set)."""
    _after_commit(lambda tasks: tasks.notify_liked.delay(blog_id, liker_id))


def commented(*, comment_id: int) -> None:
    _after_commit(lambda tasks: tasks.notify_commented.delay(comment_id))


def order_cancelled(*, order_id: int) -> None:
    """An unpaid order cancelled by the pay timeout or its backstop (not by its buyer)."""
    _after_commit(lambda tasks: tasks.notify_order_cancelled.delay(order_id))


def hidden(*, blog_id: int | None = None, comment_id: int | None = None) -> None:
    """A moderator hid the note or comment: what was said about it goes with it, in the
    hider's transaction (restoring it does not bring those back)."""
    from .services import notifications_drop

    notifications_drop(blog_id=blog_id, comment_id=comment_id)


def _after_commit(enqueue: Callable[..., object]) -> None:
    def run() -> None:
        from . import tasks  # tasks import the producers' models: only when sending

        enqueue(tasks)

    transaction.on_commit(run, robust=True)
