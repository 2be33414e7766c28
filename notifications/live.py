"""The push side of the inbox: after every committed change to a user's unread rows, one
SPUBLISH on the user's channel pokes their open streams (notifications.stream), which
read what changed from the database (decision 385). The poke rides on the pipeline that
evicts the cached unread count (notifications.unread), so it costs no round trip of its
own; sharded pub/sub, so on a Cluster it goes to the channel's node alone."""

from __future__ import annotations

from typing import Any

from . import keys

POKE = b"1"  # the message says nothing: the stream reads the store


def channel(user_id: int) -> bytes:
    return keys.notify_channel(user_id).encode()


def queue_poke(pipe: Any, user_id: int) -> None:
    """Queue the poke of `user_id`'s streams on a pipeline."""
    pipe.spublish(channel(user_id), POKE)
