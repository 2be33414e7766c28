"""Demo notifications for `seed_demo`: demo user 1 (13800000001) finds an inbox waiting,
made by the producers their tasks call (no worker needed) from the demo's real follows,
likes, a comment and a watched sale. Safe to re-run: every producer tells once (the dedup
key), and the comment is written once."""

from __future__ import annotations

from datetime import timedelta
from typing import cast

from accounts.models import User
from blogs import keys
from blogs import services as blogs
from blogs.models import Blog, BlogComment
from follows.models import Follow
from toolkit import clock
from toolkit.redis.client import get_redis
from vouchers.models import Voucher

from . import producers, reminders, watches
from .models import Notification

COMMENT = "看起来好好吃，周末就去！"
FOOD = "美食"  # the demo type the comment is about


def seed_notifications(users: list[User]) -> int:
    if len(users) < 2:
        return 0
    me, friend = users[0], users[1]
    for follower_id in Follow.objects.filter(followed=me).values_list("user_id", flat=True):
        producers.followed(follower_id=follower_id, followed_id=me.id)
    mine = list(Blog.objects.filter(user=me).order_by("created_at").values_list("id", flat=True))
    for blog_id in mine:
        for liker in cast("list[bytes]", get_redis().zrange(keys.blog_likes(blog_id), 0, -1)):
            producers.liked(blog_id=blog_id, liker_id=int(liker))
    said = BlogComment.objects.filter(user=friend, content=COMMENT).first()
    food = Blog.objects.filter(user=me, shop__type__name=FOOD).order_by("-created_at").first()
    if food is not None and said is None:  # "looks delicious" fits a note about food only
        said = blogs.comment_create(blog_id=food.id, user_id=friend.id, content=COMMENT)
    if said is not None:
        producers.commented(comment_id=said.id)
    now = clock.now()
    soon = (
        Voucher.objects.filter(
            type=Voucher.Kind.SECKILL,
            status=Voucher.Status.PENDING,
            begin_time__gt=now,
            begin_time__lte=now + timedelta(hours=1),
        )
        .order_by("begin_time")
        .first()
    )
    if soon is not None:
        watches.sale_watch(user_id=me.id, voucher_id=soon.id)
        reminders.sales_starting_notify()  # within 10 minutes: now; else the beat job will
    return Notification.objects.filter(recipient=me).count()  # waiting in the inbox
