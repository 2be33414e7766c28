"""Guesses a process keeps to save a round trip: what the last request like this one
needed (a token's user, a feed page's blogs), so a request can queue its second reads
on its first round trip. A guess is never trusted: the reply that answers it is checked,
and a wrong guess costs only the second round trip it tried to save."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

Value = TypeVar("Value")


class Guesses(Generic[Value]):
    """A thread-safe map of at most `size` recent guesses; the least recently stored goes."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._data: OrderedDict[Hashable, Value] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Value | None:
        return self._data.get(key)

    def remember(self, key: Hashable, value: Value) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            if len(self._data) > self._size:
                self._data.popitem(last=False)

    def forget(self, key: Hashable) -> None:
        with self._lock:
            self._data.pop(key, None)
