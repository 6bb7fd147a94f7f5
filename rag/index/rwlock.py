"""A writer-preferred read/write lock for in-process shared state (the cached vector matrix).

Any number of readers hold it at once; a writer holds it alone. Once a writer is waiting, new readers wait behind
it, so a steady stream of searches cannot starve a reload. Not reentrant. Knows nothing about what it guards.
"""

from __future__ import annotations

import contextlib
import threading


class RWLock:
    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._readers = 0  # readers holding the lock
        self._writing = False
        self._writers_waiting = 0

    @contextlib.contextmanager
    def read(self):
        with self._cond:
            while self._writing or self._writers_waiting:
                self._cond.wait()
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                if self._readers == 0:
                    self._cond.notify_all()

    @contextlib.contextmanager
    def write(self):
        with self._cond:
            self._writers_waiting += 1
            try:
                while self._writing or self._readers:
                    self._cond.wait()
            finally:
                self._writers_waiting -= 1
            self._writing = True
        try:
            yield
        finally:
            with self._cond:
                self._writing = False
                self._cond.notify_all()
