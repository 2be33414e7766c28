"""Celery's broker transport: kombu's Redis transport, made to survive a Redis restart.

When the broker's connection drops, Celery closes it before reconnecting, and closing
puts the unacknowledged messages back on the queue. kombu 5.7's Redis channel then builds
a new connection pool from a connection already detached from its settings and raises
AttributeError ('NoneType' object has no attribute 'hostname'), which Celery treats as
unrecoverable: the worker exits, and the flash-sale drain with it (issue 23). Here that
case is the connection error it is: Celery ignores it, reconnects and goes on; the
messages stay in the unacked set, and kombu restores them once the visibility timeout
passes (every task here is safe to run again).
"""

from __future__ import annotations

from typing import Any

import redis
from kombu.transport import redis as kombu_redis


class Channel(kombu_redis.Channel):
    def _connparams(self, asynchronous: bool = False) -> Any:
        if self.connection is None or self.connection.client is None:
            raise redis.ConnectionError("the broker connection was closed meanwhile")
        return super()._connparams(asynchronous=asynchronous)  # type: ignore[misc]  # not in kombu's stubs


class Transport(kombu_redis.Transport):
    Channel = Channel
