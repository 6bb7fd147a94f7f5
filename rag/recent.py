"""The recently used: a bounded mapping that drops its least recently used item first, safe across threads (the app's
sessions share one retriever). What the search channels and memory keep between questions. Knows nothing else."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, Hashable, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
MISSING = object()  # `get`'s default: a cache may hold None as a value


class Recent(Generic[K, V]):
    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K, default=MISSING):
        """The value of `key`, now the most recently used; `default` when it is not kept."""
        with self._lock:
            if key not in self._items:
                return default
            self._items.move_to_end(key)
            return self._items[key]

    def __getitem__(self, key: K) -> V:
        if (value := self.get(key)) is MISSING:
            raise KeyError(key)
        return value

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        return len(self._items)
