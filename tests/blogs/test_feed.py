"""The push feed: delivery to followers only, bounded inboxes, scroll pagination that
neither skips nor repeats, unfollow and follow effects, and a real worker doing the push."""

from __future__ import annotations

from datetime import timedelta

import pytest
import redis

from blogs import feed, keys, tasks
from blogs.models import Blog
from dianping.celery import app
from follows import services as follows
from tests.blogs.feeds import inbox, publish, scroll
from tests.factories import BlogFactory, UserFactory
from tests.helpers import client_for, wait_until
from tests.workers import current_database_url, kill, start_worker
from toolkit import clock


@pytest.mark.django_db(transaction=True)
def test_publishing_reaches_followers_only(user, other_user) -> None:
    author = UserFactory()
    follows.follow(user_id=user.id, target_id=author.id)

    blog_id = publish(client_for(author), "new place")

    page = client_for(user).get("/api/feed").json()
    assert [b["id"] for b in page["results"]] == [blog_id]
    assert page["results"][0]["user"]["id"] == author.id
    assert client_for(other_user).get("/api/feed").json()["results"] == []


@pytest.mark.django_db(transaction=True)  # follows sync Redis after commit
def test_scroll_returns_every_item_once_with_shared_timestamps_and_new_arrivals(
    user, fake_clock
) -> None:
    authors = UserFactory.create_batch(4)
    for author in authors:
        follows.follow(user_id=user.id, target_id=author.id)
    base = clock.now() - timedelta(hours=1)
    same = base + timedelta(minutes=30)
    old = []
    for i in range(100):
        created = same if 40 <= i < 60 else base + timedelta(seconds=i)  # 20 share one ms
        blog = BlogFactory(user=authors[i % 4], created_at=created)
        feed.feed_push_batch(blog.id)
        old.append(blog.id)
    reader = client_for(user)

    def new_post_arrives() -> None:
        fake_clock.advance(1)
        feed.feed_push_batch(BlogFactory(user=authors[0], created_at=clock.now()).id)

    seen = scroll(reader, new_post_arrives)

    assert sorted(seen) == sorted(old)  # every old item, exactly once, none of the new
    assert len(seen) == len(set(seen)) == 100


@pytest.mark.django_db(transaction=True)  # follows sync Redis after commit
def test_unfollow_removes_the_authors_items_and_stops_pushes(user) -> None:
    kept, dropped = UserFactory(), UserFactory()
    follows.follow(user_id=user.id, target_id=kept.id)
    follows.follow(user_id=user.id, target_id=dropped.id)
    keep_id = publish(client_for(kept), "stays")
    publish(client_for(dropped), "goes")

    follows.unfollow(user_id=user.id, target_id=dropped.id)
    later = BlogFactory(user=dropped)
    # A push already on its way (it listed the follower before the unfollow) is refused.
    feed.feed_push_inbox(
        user_id=user.id, author_id=dropped.id, items=[(feed.score_of(later), later.id)]
    )
    feed.feed_push_batch(later.id)

    assert [b["id"] for b in client_for(user).get("/api/feed").json()["results"]] == [keep_id]


@pytest.mark.django_db(transaction=True)  # follows sync Redis after commit
def test_following_backfills_recent_blogs(user, settings) -> None:
    settings.FEED_BACKFILL = 3
    author = UserFactory()
    start = clock.now() - timedelta(days=1)
    blogs = [BlogFactory(user=author, created_at=start + timedelta(minutes=i)) for i in range(5)]

    follows.follow(user_id=user.id, target_id=author.id)

    results = client_for(user).get("/api/feed").json()["results"]
    assert [b["id"] for b in results] == [b.id for b in reversed(blogs[2:])]


@pytest.mark.django_db(transaction=True)  # follows sync Redis after commit
def test_inboxes_stay_bounded_and_big_audiences_are_pushed_in_batches(
    redis_client, settings
) -> None:
    settings.FEED_INBOX_MAX, settings.FEED_PUSH_BATCH = 5, 3
    author = UserFactory()
    fans = UserFactory.create_batch(10)
    for fan in fans:
        follows.follow(user_id=fan.id, target_id=author.id)

    ids = [publish(client_for(author), f"post {i}") for i in range(8)]

    for fan in fans:  # every batch of the chain ran; each inbox kept the 5 newest
        assert inbox(redis_client, fan) == list(reversed(ids))[:5]


@pytest.mark.django_db(transaction=True)  # follows sync Redis after commit
def test_a_whole_page_of_deleted_blogs_does_not_end_the_scroll(user) -> None:
    author = UserFactory()
    follows.follow(user_id=user.id, target_id=author.id)
    start = clock.now() - timedelta(hours=1)
    blogs = [BlogFactory(user=author, created_at=start + timedelta(seconds=i)) for i in range(25)]
    for blog in blogs:
        feed.feed_push_batch(blog.id)
    Blog.objects.filter(pk__in=[b.id for b in blogs[5:22]]).delete()  # 17 newest but 3

    seen = scroll(client_for(user))

    assert seen == [b.id for b in [*reversed(blogs[22:]), *reversed(blogs[:5])]]


@pytest.mark.django_db(transaction=True)  # follows sync Redis after commit
def test_deleted_blogs_are_skipped(user) -> None:
    author = UserFactory()
    follows.follow(user_id=user.id, target_id=author.id)
    first, second = publish(client_for(author), "a"), publish(client_for(author), "b")

    Blog.objects.filter(pk=second).delete()

    assert [b["id"] for b in client_for(user).get("/api/feed").json()["results"]] == [first]


@pytest.mark.django_db(transaction=True)  # follows sync Redis after commit
def test_a_push_marks_the_blog_pushed_only_when_its_last_batch_is_done(
    user, redis_client, settings
) -> None:
    settings.FEED_PUSH_BATCH = 2
    author = UserFactory()
    for fan in [user, *UserFactory.create_batch(2)]:
        follows.follow(user_id=fan.id, target_id=author.id)
    blog = BlogFactory(user=author)

    after = feed.feed_push_batch(blog.id)  # two of three followers
    assert after is not None
    assert Blog.objects.get(pk=blog.id).pushed_at is None
    assert feed.feed_push_batch(blog.id, after_follower=after) is None

    assert Blog.objects.get(pk=blog.id).pushed_at is not None
    blog_id = publish(client_for(author), "pushed through the task chain")
    assert Blog.objects.get(pk=blog_id).pushed_at is not None


@pytest.mark.django_db(transaction=True)  # follows sync Redis after commit
def test_the_sweep_pushes_blogs_whose_push_was_lost_once_they_are_overdue(
    user, redis_client, fake_clock, settings
) -> None:
    """A blog row without `pushed_at` is exactly what a push lost on its way to the broker
    (or one that gave up retrying) leaves behind: the sweep must deliver it."""
    settings.FEED_PUSH_SWEEP_BATCH = 2
    author = UserFactory()
    follows.follow(user_id=user.id, target_id=author.id)
    now = clock.now()
    lost = [BlogFactory(user=author, created_at=now - timedelta(minutes=10 - i)) for i in range(3)]
    fresh = BlogFactory(user=author, created_at=now)  # its push may still be on its way
    delivered = BlogFactory(user=author, created_at=now - timedelta(hours=1), pushed_at=now)

    assert tasks.push_unpushed_blogs() == 2  # the two oldest first
    assert inbox(redis_client, user) == [lost[1].id, lost[0].id]
    assert tasks.push_unpushed_blogs() == 1
    assert tasks.push_unpushed_blogs() == 0  # the fresh one is not overdue yet
    assert inbox(redis_client, user) == [b.id for b in reversed(lost)]

    fake_clock.advance(settings.FEED_PUSH_RETRY_AFTER)
    assert tasks.push_unpushed_blogs() == 1
    assert inbox(redis_client, user) == [fresh.id, *(b.id for b in reversed(lost))]
    assert delivered.id not in inbox(redis_client, user)  # pushed ones are left alone
    assert not Blog.objects.filter(pushed_at__isnull=True).exists()


@pytest.mark.django_db
def test_the_sweep_retries_a_blog_at_most_once_per_interval_and_skips_past_it(
    fake_clock, settings
) -> None:
    """A blog whose push keeps failing neither gets a new chain every minute nor holds
    up the blogs behind it."""
    settings.FEED_PUSH_SWEEP_BATCH = 1
    old = clock.now() - timedelta(minutes=10)
    stuck, behind = (BlogFactory(created_at=old + timedelta(seconds=i)) for i in range(2))

    assert feed.feed_claim_unpushed(1) == [stuck.id]
    assert feed.feed_claim_unpushed(1) == [behind.id]  # the stuck one does not block it
    assert feed.feed_claim_unpushed(1) == []
    fake_clock.advance(settings.FEED_PUSH_RETRY_AFTER)
    assert feed.feed_claim_unpushed(1) == [stuck.id]  # still unpushed: retried again


@pytest.mark.django_db(transaction=True)  # follows sync Redis after commit
def test_one_followers_broken_inbox_neither_stops_the_others_nor_the_blog(
    user, other_user, redis_client, caplog
) -> None:
    author = UserFactory()
    for fan in (user, other_user):
        follows.follow(user_id=fan.id, target_id=author.id)
    redis_client.set(keys.feed_inbox(other_user.id), "not a sorted set")
    blog = BlogFactory(user=author)

    assert feed.feed_push_batch(blog.id) is None

    assert inbox(redis_client, user) == [blog.id]
    assert Blog.objects.get(pk=blog.id).pushed_at is not None
    assert f"refused for followers: {{{other_user.id}: " in caplog.text


@pytest.mark.django_db(transaction=True)  # follows sync Redis after commit
def test_a_push_redis_refuses_for_everyone_leaves_the_blog_for_the_sweep(
    user, redis_client
) -> None:
    author = UserFactory()
    follows.follow(user_id=user.id, target_id=author.id)
    redis_client.set(keys.feed_inbox(user.id), "not a sorted set")
    blog = BlogFactory(user=author)

    with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
        feed.feed_push_batch(blog.id)

    assert Blog.objects.get(pk=blog.id).pushed_at is None


@pytest.mark.django_db(transaction=True)  # follows sync Redis after commit
def test_a_second_run_of_a_finished_push_stops_at_once(user, redis_client) -> None:
    author = UserFactory()
    blog = BlogFactory(user=author)
    assert feed.feed_push_batch(blog.id) is None  # nobody follows yet: done
    follows.follow(user_id=user.id, target_id=author.id)
    redis_client.delete(keys.feed_inbox(user.id))  # forget the follow's backfill

    assert feed.feed_push_batch(blog.id) is None  # a sweep's late duplicate

    assert inbox(redis_client, user) == []


def test_the_sweep_runs_every_minute_on_beat_and_drops_stale_runs(settings) -> None:
    schedule = settings.CELERY_BEAT_SCHEDULE["push-unpushed-blogs"]
    assert schedule["task"] == tasks.push_unpushed_blogs.name
    assert schedule["schedule"] == 60.0
    assert schedule["options"]["expires"] < 60


@pytest.mark.django_db(transaction=True)  # follows sync Redis after commit
def test_is_liked_is_live_when_the_page_is_read_again(user, other_user) -> None:
    """A page read again asks for its last blogs' like states on the token's round trip
    (feed._served): a like or unlike in between, a blog new on the page, and another
    reader of the same page must each still read true."""
    author = UserFactory()
    for reader in (user, other_user):
        follows.follow(user_id=reader.id, target_id=author.id)
    writer, reader = client_for(author), client_for(user)
    first, second = publish(writer, "first"), publish(writer, "second")

    def liked() -> dict[int, bool]:
        return {b["id"]: b["is_liked"] for b in reader.get("/api/feed").json()["results"]}

    assert liked() == {second: False, first: False}
    assert reader.post(f"/api/blogs/{first}/like").status_code == 200
    assert liked() == {second: False, first: True}
    third = publish(writer, "third")
    assert reader.post(f"/api/blogs/{third}/like").status_code == 200
    assert liked() == {third: True, second: False, first: True}
    assert reader.delete(f"/api/blogs/{first}/like").status_code == 200
    assert liked() == {third: True, second: False, first: False}
    others = client_for(other_user).get("/api/feed").json()["results"]
    assert [(b["id"], b["is_liked"], b["liked"]) for b in others] == [
        (third, False, 1),
        (second, False, 0),
        (first, False, 0),
    ]


@pytest.mark.django_db(transaction=True)  # follows sync Redis after commit
def test_feed_needs_login_and_whole_numbers(api, user_api) -> None:
    assert api.get("/api/feed").status_code == 401
    assert user_api.get("/api/feed", {"max_time": "-1"}).status_code == 400
    assert user_api.get("/api/feed", {"offset": "x"}).status_code == 400
    assert user_api.get("/api/feed").json() == {"results": [], "min_time": 0, "offset": 0}


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_pushes_through_the_broker(user, tmp_path) -> None:
    app.conf.task_always_eager = False  # this one goes through Redis to a worker process
    author = UserFactory()
    follows.follow(user_id=user.id, target_id=author.id)
    log = tmp_path / "worker.log"
    worker = start_worker(current_database_url(), log=log)
    try:
        blog_id = publish(client_for(author), "via the broker")
        reader = client_for(user)
        wait_until(lambda: reader.get("/api/feed").json()["results"], timeout=60, interval=0.2)
    finally:
        kill(worker, 15)
        print(log.read_text(errors="replace"))  # pytest shows it with a failure
    assert [b["id"] for b in reader.get("/api/feed").json()["results"]] == [blog_id]
