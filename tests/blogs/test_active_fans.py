"""Active fans (decision 480): a pulled author's new blog is still pushed to the
followers who read their feed within FEED_ACTIVE_DAYS, and only pulled by the others;
either way each follower's feed shows it exactly once. The feed read keeps the set, at
most once per FEED_ACTIVE_MARK_EVERY per reader and at most FEED_ACTIVE_FANS_MAX fans."""

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

DAY = 86_400


@pytest.fixture(autouse=True)
def _threshold(settings) -> None:
    settings.FEED_PUSH_MAX_FOLLOWERS = 2
    settings.FEED_ACTIVE_DAYS = 7


def _big_author(fans: int):
    """An author above the threshold, with `fans` followers and a first (pulled) blog, so
    the followers' feed reads know the author is pulled."""
    author, followers = UserFactory(), UserFactory.create_batch(fans)
    for fan in followers:
        follows.follow(user_id=fan.id, target_id=author.id)
    author_api = client_for(author)
    first = publish(author_api, "the first pulled note")
    assert Blog.objects.get(pk=first).pulled
    return author_api, followers, first


def test_an_active_fan_is_pushed_an_inactive_one_pulls_both_see_it_once(redis_client) -> None:
    author_api, (active, inactive, _), first = _big_author(3)
    assert inbox(redis_client, active) == []  # nobody has read their feed yet
    assert scroll(client_for(active)) == [first]  # the read marks them active

    note = publish(author_api, "pushed to the active fan only")

    assert inbox(redis_client, active) == [note]
    assert inbox(redis_client, inactive) == []
    assert scroll(client_for(active)) == [note, first]  # in the inbox and pulled: once
    assert scroll(client_for(inactive)) == [note, first]


def test_a_fan_who_stops_reading_for_the_active_days_is_pulled_again(
    fake_clock, redis_client
) -> None:
    author_api, (fan, *_), first = _big_author(3)
    scroll(client_for(fan))

    fake_clock.advance(7 * DAY - 60)
    still_active = publish(author_api, "within seven days of the read")
    assert inbox(redis_client, fan) == [still_active]

    fake_clock.advance(120)  # seven days and a minute since the read
    lapsed = publish(author_api, "after seven days without a read")

    assert inbox(redis_client, fan) == [still_active]  # not pushed
    assert redis_client.zscore(keys.feed_active_fans(_author_id(lapsed)), fan.id) is None
    assert scroll(client_for(fan)) == [lapsed, still_active, first]  # pulled, once each


def _author_id(blog_id: int) -> int:
    return Blog.objects.get(pk=blog_id).user_id


def test_reads_mark_a_fan_once_per_interval_and_the_set_keeps_the_newest(
    fake_clock, redis_client, settings
) -> None:
    settings.FEED_ACTIVE_FANS_MAX = 2
    _, fans, first = _big_author(3)
    active = keys.feed_active_fans(_author_id(first))
    for fan in fans:
        scroll(client_for(fan))
        fake_clock.advance(1)

    assert [int(m) for m in redis_client.zrange(active, 0, -1)] == [f.id for f in fans[1:]]
    marked_at = redis_client.zscore(active, fans[2].id)
    scroll(client_for(fans[2]))  # within FEED_ACTIVE_MARK_EVERY: no second write
    assert redis_client.zscore(active, fans[2].id) == marked_at
    redis_client.delete(keys.feed_active_mark(fans[2].id))  # the interval has passed
    scroll(client_for(fans[2]))
    assert redis_client.zscore(active, fans[2].id) > marked_at


def test_a_push_to_many_active_fans_goes_in_batches(redis_client, settings) -> None:
    settings.FEED_PUSH_BATCH = 2
    author_api, fans, _ = _big_author(5)
    for fan in fans:
        scroll(client_for(fan))

    note = publish(author_api, "to every active fan")

    assert all(note in inbox(redis_client, fan) for fan in fans)
    assert Blog.objects.get(pk=note).pushed_at is not None  # the chain finished


def test_unfollowing_takes_a_pushed_pulled_blog_out_of_the_inbox(redis_client) -> None:
    author_api, (fan, *_), _ = _big_author(3)
    reader = client_for(fan)
    scroll(reader)
    note = publish(author_api, "pushed, then unfollowed")
    assert inbox(redis_client, fan) == [note]

    follows.unfollow(user_id=fan.id, target_id=_author_id(note))

    assert inbox(redis_client, fan) == []
    assert scroll(reader) == []


def test_pushed_and_pulled_copies_scroll_once_across_pages_with_shared_timestamps(
    user, fake_clock, redis_client
) -> None:
    big, small = UserFactory(), UserFactory()
    for author in (big, small):
        follows.follow(user_id=user.id, target_id=author.id)
    feed.mark_pull_author(big.id)
    feed.mark_active(user_id=user.id, authors=[big.id])
    base = clock.now() - timedelta(hours=1)
    rng = random.Random(5)
    expected = []
    for i in range(60):
        created = base + timedelta(minutes=30) if 20 <= i < 40 else base + timedelta(seconds=i)
        pulled = rng.random() < 0.7
        blog = BlogFactory(user=big if pulled else small, created_at=created, pulled=pulled)
        feed.feed_push_batch(blog.id)  # a pulled one reaches the active reader's inbox too
        expected.append((feed.score_of(blog), str(blog.id), blog.id))
    assert len(inbox(redis_client, user)) == 60  # every pulled one is also in the inbox

    def a_new_pulled_note_arrives() -> None:
        fake_clock.advance(1)
        feed.feed_push_batch(BlogFactory(user=big, created_at=clock.now(), pulled=True).id)

    seen = scroll(client_for(user), a_new_pulled_note_arrives)

    assert seen == [blog_id for *_, blog_id in sorted(expected, reverse=True)]
