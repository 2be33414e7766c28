"""The per-thread Redis connection of the hottest path (toolkit/redis/direct.py): one
connection per thread and per process, replies never crossed, and a connection that may
be out of step (server closed it, a read was cut short) never reused."""

from __future__ import annotations

import multiprocessing
import threading

import pytest
import redis
from django.conf import settings

from tests.helpers import wait_until
from toolkit.redis import direct, scripts
from toolkit.redis.scripts import LuaScript

pytestmark = pytest.mark.skipif(
    settings.REDIS_CLUSTER, reason="a single Redis only: a Cluster routes by key"
)


def _client_id() -> int:
    return int(direct.execute("CLIENT", "ID"))


def test_a_thread_keeps_one_connection_of_its_own() -> None:
    mine = _client_id()
    theirs: list[int] = []
    thread = threading.Thread(target=lambda: theirs.extend([_client_id(), _client_id()]))
    thread.start()
    thread.join()

    assert _client_id() == mine  # reused, not checked out of the pool again
    assert theirs[0] == theirs[1] != mine


def test_concurrent_threads_each_read_their_own_replies(redis_client) -> None:
    """16 threads, 200 round trips each, at once: every reply is the caller's own."""
    crossed: list[tuple[int, bytes]] = []
    start = threading.Barrier(16)

    def work(n: int) -> None:
        direct.execute("SET", f"direct:{n}", n)
        start.wait()
        for _ in range(200):
            if (reply := direct.execute("GET", f"direct:{n}")) != str(n).encode():
                crossed.append((n, reply))
            direct.execute("INCR", "direct:total")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert crossed == []
    assert redis_client.get("direct:total") == b"3200"


def test_a_connection_the_server_closed_is_replaced_before_use(redis_client) -> None:
    """What a Redis restart does to an idle connection, without restarting Redis."""
    old = _client_id()
    assert redis_client.client_kill_filter(_id=old) == 1

    assert direct.execute("SET", "after", "kill")  # on a fresh connection, first try
    assert _client_id() != old
    assert redis_client.get("after") == b"kill"


def test_an_error_reply_raises_and_keeps_the_connection(redis_client) -> None:
    before = _client_id()
    redis_client.set("text", "abc")

    with pytest.raises(redis.ResponseError):
        direct.execute("INCR", "text")

    assert _client_id() == before
    assert direct.execute("GET", "text") == b"abc"


def test_a_read_cut_short_drops_the_connection_so_no_reply_is_misread(
    redis_client, monkeypatch
) -> None:
    """A timed-out command's reply may still arrive: read by the next command, it would
    answer that one with the wrong value. The connection must go instead."""
    pool = redis_client.connection_pool
    # A plain connection: a read timeout would open a CircuitConnection's circuit.
    impatient = redis.Connection(**{**pool.connection_kwargs, "socket_timeout": 0.2})
    monkeypatch.setattr(direct._local, "connections", {"default": impatient}, raising=False)

    with pytest.raises(redis.TimeoutError):
        direct.execute("BLPOP", "queue", 5)
    wait_until(lambda: not _blocked(redis_client))  # the server saw the socket close
    redis_client.rpush("queue", "late")  # what the BLPOP would have answered

    assert direct.execute("ECHO", "mine") == b"mine"
    assert redis_client.lrange("queue", 0, -1) == [b"late"]  # nobody took it


def _blocked(client: redis.Redis) -> bool:
    return any(c["cmd"] == "blpop" for c in client.client_list())


def _child_client_id(queue: multiprocessing.Queue[int]) -> None:
    queue.put(_client_id())


def test_a_forked_child_opens_its_own_connection() -> None:
    parent = _client_id()
    queue: multiprocessing.Queue[int] = multiprocessing.get_context("fork").Queue()
    child = multiprocessing.get_context("fork").Process(target=_child_client_id, args=(queue,))
    child.start()
    child.join(timeout=30)

    assert child.exitcode == 0
    assert queue.get(timeout=5) != parent  # never the parent's socket, shared by the fork
    assert _client_id() == parent


def test_a_script_runs_direct_after_redis_forgot_it(redis_client, tmp_path) -> None:
    source = tmp_path / "echo.lua"
    source.write_text("return ARGV[1] .. KEYS[1]", encoding="utf-8")
    script = LuaScript(source)
    scripts._registry.remove(script)  # a throwaway: not one of the project's scripts
    assert script.run_direct(["k"], ["v"]) == b"vk"
    redis_client.script_flush()

    assert script.run_direct(["k"], ["w"]) == b"wk"  # NOSCRIPT: loaded again, run again
