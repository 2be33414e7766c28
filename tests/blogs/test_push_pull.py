"""The push-pull feed (seed 000 §3): an author with more than FEED_PUSH_MAX_FOLLOWERS
followers is not pushed to every inbox; followers' feeds pull that author's blogs at
read time and merge them into the inbox's scroll, skipping and repeating nothing. The
threshold is tested from both sides, and an author crossing it both ways."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest

from blogs import feed, keys
from blogs.models import Blog
from follows import services as follows
from tests.blogs.feeds import inbox, publish, scroll
from tests.factories import BlogFactory, UserFactory
from tests.helpers import client_for
from toolkit import clock

pytestmark = pytest.mark.django_db(transaction=True)  # follows sync Redis after commit


@pytest.fixture(autouse=True)
def _threshold(settings) -> None:
    settings.FEED_PUSH_MAX_FOLLOWERS = 2


def _feed(reader) -> list[int]:
    return scroll(client_for(reader))


def test_an_author_crossing_the_threshold_both_ways_loses_no_blog(redis_client) -> None:
    author = UserFactory()
    fans = UserFactory.create_batch(3)
    author_api = client_for(author)
    for fan in fans[:2]:
        follows.follow(user_id=fan.id, target_id=author.id)

    at_threshold = publish(author_api, "two followers: pushed")
    assert not Blog.objects.get(pk=at_threshold).pulled
    assert inbox(redis_client, fans[0]) == [at_threshold]

    follows.follow(user_id=fans[2].id, target_id=author.id)  # three: above it
    above = publish(author_api, "three followers: pulled")
    assert Blog.objects.get(pk=above).pulled
    assert all(above not in inbox(redis_client, fan) for fan in fans)  # pushed nowhere
    assert [_feed(fan) for fan in fans] == [[above, at_threshold]] * 3

    follows.unfollow(user_id=fans[2].id, target_id=author.id)  # two again: below it
    below = publish(author_api, "two followers again: pushed")
    assert not Blog.objects.get(pk=below).pulled
    assert [_feed(fan) for fan in fans[:2]] == [[below, above, at_threshold]] * 2
    assert _feed(fans[2]) == []  # unfollowed: neither pushed nor pulled items


def test_pulled_and_pushed_items_scroll_once_each_with_shared_timestamps(
    user, fake_clock, redis_client
) -> None:
    big, small = UserFactory(), UserFactory()
    for author in (big, small):
        follows.follow(user_id=user.id, target_id=author.id)
    feed.mark_pull_author(big.id)
    base = clock.now() - timedelta(hours=1)
    same = base + timedelta(minutes=30)
    rng = random.Random(3)
    expected = []
    for i in range(90):
        created = same if 30 <= i < 55 else base + timedelta(seconds=i)  # 25 share one ms
        pulled = rng.random() < 0.5
        blog = BlogFactory(user=big if pulled else small, created_at=created, pulled=pulled)
        if not pulled:
            feed.feed_push_batch(blog.id)
        expected.append((feed.score_of(blog), str(blog.id), blog.id))
    reader = client_for(user)

    def new_posts_arrive() -> None:
        fake_clock.advance(1)
        BlogFactory(user=big, created_at=clock.now(), pulled=True)
        feed.feed_push_batch(BlogFactory(user=small, created_at=clock.now()).id)

    seen = scroll(reader, new_posts_arrive)

    assert seen == [blog_id for *_, blog_id in sorted(expected, reverse=True)]  # once, in order
    assert redis_client.sismember(keys.feed_pull_authors(), big.id)


def test_a_pulled_author_s_deleted_blogs_are_gone_and_readers_of_others_pay_nothing(
    user, other_user, django_assert_max_num_queries
) -> None:
    big = UserFactory()
    follows.follow(user_id=user.id, target_id=big.id)
    feed.mark_pull_author(big.id)
    kept = BlogFactory(user=big, pulled=True)
    BlogFactory(user=big, pulled=True).delete()

    assert _feed(user) == [kept.id]
    reader = client_for(other_user)  # follows no pulled author
    with django_assert_max_num_queries(1):  # the token's user; no pull query
        assert reader.get("/api/feed").json()["results"] == []
