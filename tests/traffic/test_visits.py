"""Visit counting (traffic/visits.py): the buffer a runtime reset writes, a forked child
that starts without its parent's buffer, the background flusher, and the bound on
invented anonymous ids. How a shop's page counts is in tests/shops/test_indexes.py."""

from __future__ import annotations

import os

import pytest

from tests.factories import ShopFactory
from tests.helpers import wait_until
from toolkit import runtime
from traffic import keys, visits


def _uv_pv(redis_client, subject: str) -> tuple[int, int]:
    day = visits.local_day()
    pv = redis_client.get(keys.visits_pv(subject, day))
    return redis_client.pfcount(keys.visits_uv(subject, day)), int(pv or 0)


def test_a_runtime_reset_writes_buffered_views(redis_client) -> None:
    visits.record("shop:1", visits.Visitor("user:1"))

    runtime.reset()

    assert _uv_pv(redis_client, "shop:1") == (1, 1)  # written, not dropped


def test_a_forked_child_never_writes_its_parents_buffered_views(redis_client) -> None:
    runtime.reset()
    visits.record(
        "shop:2", visits.Visitor("user:1")
    )  # buffered in the parent (its flusher may run any time)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: flush whatever it holds, then leave at once
        try:
            visits.flush()
            os.write(write, b"ok")
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    assert os.read(read, 2) == b"ok"

    visits.flush()

    # Had the child inherited the buffer, it would have written the view a second time.
    assert _uv_pv(redis_client, "shop:2") == (1, 1)


@pytest.mark.django_db
def test_a_script_inventing_visitor_ids_adds_a_bounded_number_of_visitors(
    api, user_api, redis_client, fake_clock, settings
) -> None:
    settings.ANON_VISITORS_PER_ADDRESS = 20
    shop = ShopFactory()
    day = visits.local_day()

    for i in range(300):  # one address, a new id (or User-Agent) every time
        api.get(f"/api/shops/{shop.id}", HTTP_X_CLIENT_ID=f"script-{i:06d}", REMOTE_ADDR="6.6.6.6")
        api.get(f"/api/shops/{shop.id}", HTTP_USER_AGENT=f"bot/{i}", REMOTE_ADDR="6.6.6.6")
    api.get(f"/api/shops/{shop.id}", HTTP_X_CLIENT_ID="script-000001", REMOTE_ADDR="6.6.6.6")
    for i in range(5):  # people elsewhere still count, and so do signed-in users
        api.get(
            f"/api/shops/{shop.id}", HTTP_X_CLIENT_ID=f"phone-{i:04d}", REMOTE_ADDR=f"10.0.0.{i}"
        )
    user_api.get(f"/api/shops/{shop.id}", REMOTE_ADDR="6.6.6.6")
    visits.flush()

    # 20 ids of their own, the rest as the one address; 5 phones; 1 user.
    assert redis_client.pfcount(keys.visits_uv(f"shop:{shop.id}", day)) == 20 + 1 + 5 + 1
    assert int(redis_client.get(keys.visits_pv(f"shop:{shop.id}", day))) == 600 + 1 + 5 + 1


@pytest.mark.django_db
def test_invented_visitors_from_one_ipv6_64_are_bounded_together(
    api, redis_client, fake_clock, settings
) -> None:
    settings.ANON_VISITORS_PER_ADDRESS = 20
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    shop = ShopFactory()
    day = visits.local_day()

    for i in range(100):  # one host: a new address of its /64 and a new id every time
        api.get(
            f"/api/shops/{shop.id}",
            HTTP_X_CLIENT_ID=f"script-{i:06d}",
            HTTP_X_FORWARDED_FOR=f"2001:db8:7:7:{i:x}::1",
        )
    for i in range(5):  # other /64s count as before
        api.get(
            f"/api/shops/{shop.id}",
            HTTP_X_CLIENT_ID=f"phone-{i:04d}",
            HTTP_X_FORWARDED_FOR=f"2001:db8:8:{i:x}::1",
        )
    visits.flush()

    # 20 ids of their own, the rest as the one /64; 5 phones.
    assert redis_client.pfcount(keys.visits_uv(f"shop:{shop.id}", day)) == 20 + 1 + 5
    assert int(redis_client.get(keys.visits_pv(f"shop:{shop.id}", day))) == 100 + 5


@pytest.mark.django_db
def test_views_are_written_in_batches_by_the_background_flusher(
    api, redis_client, fake_clock
) -> None:
    shop = ShopFactory()
    day = visits.local_day()

    for i in range(20):
        api.get(f"/api/shops/{shop.id}", HTTP_X_CLIENT_ID=f"device-{i:04d}")

    wait_until(
        lambda: redis_client.get(keys.visits_pv(f"shop:{shop.id}", day)) == b"20", timeout=10
    )
    assert redis_client.pfcount(keys.visits_uv(f"shop:{shop.id}", day)) == 20
