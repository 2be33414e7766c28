"""Notification work off the request path: thin tasks taking ids. Each is idempotent
(the dedup key), so a retry after a database blip is safe."""

from __future__ import annotations

from typing import TypedDict

from celery import shared_task
from django.db import OperationalError

from toolkit.periodic import task_succeeded

from . import producers, reminders


class _Retried(TypedDict):
    ignore_result: bool
    autoretry_for: tuple[type[BaseException], ...]
    retry_backoff: int
    max_retries: int


_RETRIED: _Retried = {
    "ignore_result": True,
    "autoretry_for": (OperationalError,),  # a busy or restarting database
    "retry_backoff": 1,
    "max_retries": 5,
}


@shared_task(**_RETRIED)
def notify_followed(follower_id: int, followed_id: int) -> bool:
    return producers.followed(follower_id=follower_id, followed_id=followed_id)


@shared_task(**_RETRIED)
def notify_liked(blog_id: int, liker_id: int) -> bool:
    return producers.liked(blog_id=blog_id, liker_id=liker_id)


@shared_task(**_RETRIED)
def notify_commented(comment_id: int) -> int:
    return producers.commented(comment_id=comment_id)


@shared_task(**_RETRIED)
def notify_review_replied(reply_id: int) -> bool:
    return producers.review_replied(reply_id=reply_id)


@shared_task(**_RETRIED)
def notify_shop_reviewed(blog_id: int) -> int:
    return producers.shop_reviewed(blog_id=blog_id)


@shared_task(**_RETRIED)
def notify_order_cancelled(order_id: int) -> bool:
    return producers.order_cancelled(order_id=order_id)


@shared_task(**_RETRIED)
def notify_claim_decided(claim_id: int) -> bool:
    return producers.claim_decided(claim_id=claim_id)


@shared_task(**_RETRIED)
def notify_offer_decided(offer_id: int) -> int:
    return producers.offer_decided(offer_id=offer_id)


@shared_task(**_RETRIED)
def notify_shop_change_decided(change_id: int) -> int:
    return producers.shop_change_decided(change_id=change_id)


@shared_task(ignore_result=True)
def remind_expiring_coupons() -> int:
    """Beat: coupons expiring within 24 h, each owner told once."""
    return reminders.coupons_expiring_notify()


@shared_task(ignore_result=True)
def remind_starting_sales() -> int:
    """Beat, every minute: watched sales starting within 10 minutes."""
    return reminders.sales_starting_notify()


# The beat entry of notify_shop_sales (settings.CELERY_BEAT_SCHEDULE), as /metrics names it.
SHOP_SALES = "notify-shop-sales"


@shared_task(ignore_result=True)
def notify_shop_sales() -> int:
    """Beat, every minute: owners told of their sales started and sold out; its last
    success is on /metrics, watched by an alert."""
    told = reminders.shop_sales_notify()
    task_succeeded(SHOP_SALES)
    return told
