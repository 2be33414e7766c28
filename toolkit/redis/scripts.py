"""Lua scripts kept as .lua files, loaded once per process and run by SHA.

redis-py's Script runs EVALSHA and, on NOSCRIPT (e.g. after a Redis restart
or SCRIPT FLUSH), loads the source again and retries, so callers never see it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import redis
from django.conf import settings
from redis.commands.core import Script
from redis.exceptions import NoScriptError

from . import direct
from .client import DEFAULT, get_redis
from .cluster import cluster_client, is_cluster

_registry: list[LuaScript] = []


class LuaScript:
    """A .lua file (after any `prelude` files, e.g. shared functions), run as one script
    on the Redis of `alias` (see client.get_redis).

    Call it with keys and args; pass `client=` to queue it on a pipeline.
    """

    def __init__(
        self, path: Path | str, *, prelude: tuple[Path, ...] = (), alias: str = DEFAULT
    ) -> None:
        self.path = Path(path)
        self.prelude = prelude
        self.alias = alias
        self._script: Script | None = None
        _registry.append(self)

    @property
    def source(self) -> str:
        parts = [*self.prelude, self.path]
        return "\n".join(part.read_text(encoding="utf-8") for part in parts)

    def _bound(self) -> Script:
        # Read lazily: nothing touches the filesystem or Redis at import time.
        if self._script is None:
            self._script = get_redis(self.alias).register_script(self.source)
        return self._script

    def __call__(
        self,
        keys: Sequence[str] = (),
        args: Sequence[Any] = (),
        client: redis.Redis | redis.client.Pipeline | None = None,
    ) -> Any:
        client = client or get_redis(self.alias)
        return self._bound()(keys=list(keys), args=list(args), client=client)

    def run_direct(self, keys: Sequence[str], args: Sequence[Any]) -> Any:
        """`self(keys, args)` on the thread's own connection (see direct.py), for the
        hottest request path. On a Cluster, which routes by key, through the pool."""
        if settings.REDIS_CLUSTER:
            return self(keys, args)
        sha = self._bound().sha
        try:
            return direct.execute("EVALSHA", sha, len(keys), *keys, *args, alias=self.alias)
        except NoScriptError:  # a restarted or flushed Redis: load it and run it again
            get_redis(self.alias).script_load(self.source)
            return direct.execute("EVALSHA", sha, len(keys), *keys, *args, alias=self.alias)

    def run_then_wait(
        self, keys: Sequence[str], args: Sequence[Any], replicas: int, timeout_ms: int
    ) -> tuple[Any, int]:
        """`run_direct`, followed on the same connection by `WAIT replicas timeout_ms`, in
        one round trip: (the script's reply, how many replicas have its writes). On a
        Cluster, in a pipeline to the node of the script's first key."""
        sha = self._bound().sha
        call = ("EVALSHA", sha, len(keys), *keys, *args)
        wait = ("WAIT", replicas, timeout_ms)
        for _ in range(2):
            if settings.REDIS_CLUSTER:
                node = cluster_client().get_node_from_key(keys[0]).redis_connection
                pipe = node.pipeline(transaction=False)
                pipe.execute_command(*call)
                pipe.execute_command(*wait)
                reply, confirmed = pipe.execute(raise_on_error=False)
            else:
                reply, confirmed = direct.execute_together(call, wait, alias=self.alias)
            if not isinstance(reply, NoScriptError):
                break
            get_redis(self.alias).script_load(self.source)  # a restarted or flushed Redis
        if isinstance(reply, Exception):
            raise reply
        return reply, int(confirmed)

    def run_many(self, calls: Sequence[tuple[Sequence[str], Sequence[Any]]]) -> list[Any]:
        """Run the script once per (keys, args), each call's reply or error in order
        (errors are returned, not raised: one bad call must not hide the others). One
        pipelined round trip on a single Redis; one call at a time on a Cluster, whose
        pipelines run no scripts (and whose calls' keys may live on different nodes)."""
        client = get_redis(self.alias)
        if is_cluster(client):
            replies = []
            for keys, args in calls:
                try:
                    replies.append(self(keys, args))
                except redis.RedisError as exc:
                    replies.append(exc)
            return replies
        if not calls:
            return []
        replies = self._pipelined(client, calls)
        if any(isinstance(reply, NoScriptError) for reply in replies):
            client.script_load(self.source)  # a restarted or flushed Redis
            replies = self._pipelined(client, calls)
        return replies

    def _pipelined(
        self, client: redis.Redis, calls: Sequence[tuple[Sequence[str], Sequence[Any]]]
    ) -> list[Any]:
        """Plain EVALSHAs: a pipeline of redis-py Script calls asks SCRIPT EXISTS first,
        one more round trip every time."""
        sha = self._bound().sha
        pipe = client.pipeline(transaction=False)
        for keys, args in calls:
            pipe.evalsha(sha, len(keys), *keys, *args)
        return pipe.execute(raise_on_error=False)

    def __repr__(self) -> str:
        return f"LuaScript({self.path.name})"


TOOLKIT_LUA = Path(__file__).parent / "lua"
FUNNEL_LIB = TOOLKIT_LUA / "funnel_lib.lua"  # defines funnel(key, capacity, rate, quota, now)


def lua(
    module_file: str, name: str, *, prelude: tuple[Path, ...] = (), alias: str = DEFAULT
) -> LuaScript:
    """The script `lua/<name>` that sits beside the calling module (pass `__file__`), run
    on the Redis of `alias`; keeping each script next to its caller keeps them edited together."""
    return LuaScript(Path(module_file).parent / "lua" / name, prelude=prelude, alias=alias)


def all_scripts() -> list[LuaScript]:
    """Every script defined so far (modules register theirs when imported)."""
    return list(_registry)


def load_all(client: redis.Redis | None = None) -> list[str]:
    """SCRIPT LOAD every registered script (on `client`, else on its own Redis); returns
    their SHAs. Fails loudly on a syntax error."""
    return [(client or get_redis(s.alias)).script_load(s.source) for s in _registry]
