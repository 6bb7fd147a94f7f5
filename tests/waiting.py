"""Polling with a deadline, for tests of background work (watchers, indexers): no fixed sleeps."""

from __future__ import annotations

import time


def wait_for(condition, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.02)
