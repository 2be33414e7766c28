"""`Idempotency-Key` on `POST /api/blogs`: a retry answers the first publication again,
racing duplicates included; the same key with another body is a 409; keys are checked."""

from __future__ import annotations

import pytest

from blogs.models import Blog
from tests.helpers import client_for, run_concurrently, throttle_rates
from toolkit.api.idempotency import REPLAYED
from toolkit.redis import keys
from toolkit.redis.ratelimit import parse_rate

pytestmark = pytest.mark.django_db(transaction=True)

BODY = {"title": "Soup dumplings", "content": "Juicy."}


def _post(api, key: str, body=BODY):
    return api.post("/api/blogs", body, format="json", HTTP_IDEMPOTENCY_KEY=key)


def test_a_retry_answers_the_first_publication(user, user_api) -> None:
    first = _post(user_api, "k-1")
    again = _post(user_api, "k-1")

    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    assert again[REPLAYED] == "true"
    assert REPLAYED not in first
    assert Blog.objects.count() == 1
    assert _post(user_api, "k-2").json()["id"] != first.json()["id"]  # another key: new
    assert user_api.post("/api/blogs", BODY, format="json").status_code == 201  # no key
    assert Blog.objects.count() == 3


def test_keys_belong_to_their_user(user, user_api, other_user) -> None:
    mine = _post(user_api, "shared")
    theirs = _post(client_for(other_user), "shared")

    assert theirs.json()["id"] != mine.json()["id"]
    assert theirs.json()["user"]["id"] == other_user.id


def test_the_same_key_with_another_body_is_a_conflict(user_api) -> None:
    _post(user_api, "k")

    reused = _post(user_api, "k", {**BODY, "title": "Another"})

    assert (reused.status_code, reused.json()["code"]) == (409, "idempotency_key_reused")
    assert Blog.objects.count() == 1


def test_a_refused_request_leaves_the_key_free(user_api) -> None:
    assert _post(user_api, "k", {"title": "", "content": "c"}).status_code == 400

    assert _post(user_api, "k").status_code == 201
    assert Blog.objects.count() == 1


@pytest.mark.parametrize("key", ["", "x" * 65, "has space", "é", "tab\there"])
def test_bad_keys_are_400(user_api, key) -> None:
    response = _post(user_api, key)

    assert response.status_code == 400, response.content
    assert "Idempotency-Key" in response.json()["errors"]
    assert not Blog.objects.exists()


def test_racing_duplicates_publish_once(user) -> None:
    apis = [client_for(user) for _ in range(8)]

    responses = run_concurrently(lambda i: _post(apis[i], "race"), workers=8)

    assert [r.status_code for r in responses] == [201] * 8
    assert len({r.json()["id"] for r in responses}) == 1
    assert Blog.objects.count() == 1
    assert sum(REPLAYED in r for r in responses) == 7


def test_racing_replays_of_a_stored_key_get_its_answer_and_use_no_write_budget(
    user, settings, redis_client
) -> None:
    throttle_rates(settings, blog_user="2/hour")
    api = client_for(user)
    first = _post(api, "stored")
    apis = [client_for(user) for _ in range(20)]

    replays = run_concurrently(lambda i: _post(apis[i], "stored"), workers=20)

    assert [r.status_code for r in replays] == [201] * 20
    assert all(r.json() == first.json() and r[REPLAYED] == "true" for r in replays)
    counted = keys.sliding_window("blog_user", f"user:{user.id}", parse_rate("2/hour")[1] * 1000)
    assert redis_client.zcard(counted) == 1  # the publication alone
    assert _post(api, "another").status_code == 201  # the second of two
    assert _post(api, "a-third").status_code == 429
    assert Blog.objects.count() == 2


def test_a_duplicate_that_outwaits_the_first_gets_in_progress(user, settings) -> None:
    """The first request still holds the key's lock: a duplicate that may not wait gets a
    409 at once and writes nothing."""
    import hashlib

    from toolkit.redis import keys
    from toolkit.redis.lock import RedisLock

    settings.IDEMPOTENCY_WAIT = 0
    digest = hashlib.sha256(b"slow").hexdigest()
    lock = RedisLock(keys.idempotency_lock("blog", user.id, digest), ttl=30)
    assert lock.acquire()
    try:
        busy = _post(client_for(user), "slow")
    finally:
        lock.release()

    assert (busy.status_code, busy.json()["code"]) == (409, "idempotency_in_progress")
    assert not Blog.objects.exists()


def test_a_retry_after_the_note_was_deleted_is_a_conflict_not_a_dead_id(user_api) -> None:
    """Replaying the first answer would hand out the id of a note that is gone (found by
    schemathesis' stateful run: created, then 404 on delete)."""
    first = _post(user_api, "k").json()["id"]
    assert user_api.delete(f"/api/blogs/{first}").status_code == 204

    again = _post(user_api, "k")

    assert (again.status_code, again.json()["code"]) == (409, "idempotency_key_spent")
    assert not Blog.objects.exists()  # and nothing published twice
    assert _post(user_api, "k-new").status_code == 201
