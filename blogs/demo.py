"""Demo blogs, likes and follows for `seed_demo`, so the hot list and feeds have content.

Runs once (when no blog exists). Follows come last: each follow backfills the
author's recent blogs into the follower's feed, so no Celery worker is needed.
"""

from __future__ import annotations

import random
from datetime import timedelta

from accounts.models import User
from dianping import clock
from dianping.demo_pictures import demo_picture
from follows import services as follows
from shops.models import Shop

from . import likes
from .models import Blog

NOTES = [
    ("Worth the queue", "Crispy edges, soft middle, and the staff remembered my order."),
    ("Hidden gem near the metro", "Small room, big flavours. Go before 6 pm to get a seat."),
    ("Weekend brunch spot", "Good coffee, generous portions, quiet upstairs tables."),
    ("Spicy, in the best way", "The mala was numbing and fragrant; order the cold noodles too."),
    ("Family dinner done right", "Round tables, fast service, and a fish that fed six."),
    ("Late-night skewers", "Open till 2 am, lamb skewers with cumin, cold beer, no frills."),
]


def seed_blogs(users: list[User]) -> dict[str, int]:
    if Blog.objects.exists() or len(users) < 3:
        return {"blogs": 0, "likes": 0, "follows": 0}
    rng = random.Random(42)
    shops = list(Shop.objects.order_by("id").values_list("id", flat=True)[:50])
    start = clock.now() - timedelta(days=14)
    blogs = Blog.objects.bulk_create(
        Blog(
            user=users[i % len(users)],
            shop_id=rng.choice(shops) if shops else None,
            title=NOTES[i % len(NOTES)][0],
            content=NOTES[i % len(NOTES)][1],
            images=[demo_picture(f"blog-{i}-{k}") for k in range(1 + i % 3)],
            created_at=start + timedelta(hours=8 * i),
            pushed_at=start + timedelta(hours=8 * i),  # nobody follows yet: nothing to push
        )
        for i in range(40)
    )
    liked = 0
    for blog in Blog.objects.filter(pk__in=[b.pk for b in blogs]):
        for fan in rng.sample(users, rng.randint(0, len(users) - 1)):
            likes.blog_like(blog_id=blog.id, user_id=fan.id)
            liked += 1
    followed = 0
    for user in users:
        for author in rng.sample([u for u in users if u != user], 3):
            followed += follows.follow(user_id=user.id, target_id=author.id)
    return {"blogs": len(blogs), "likes": liked, "follows": followed}
