"""A call that reports text through a callback (like `ask(..., on_text=...)`), turned into an iterator of pieces
that a UI can stream, with the call's result (or its exception) afterwards. Timing is kept for the UI to show; the
call's stage reports (`ask(..., on_stage=...)`) reach `on_stage` in the reading thread, where a UI may draw.

Knows nothing about answers or Streamlit.
"""

from __future__ import annotations

import queue
import threading
import time
from typing import Callable, Generic, Iterator, TypeVar

T = TypeVar("T")
_END = object()


class _Stage:
    """A stage report travelling in the queue of pieces (the report itself, which may carry more than its name)."""

    def __init__(self, report) -> None:
        self.report = report


class StreamedCall(Generic[T]):
    """Runs `fn(emit, stage)` in a worker thread; iterate to get what it emits, then `result()`."""

    def __init__(
        self,
        fn: Callable[[Callable[[str], None], Callable[[str], None]], T],
        *,
        on_stage: Callable[[str], None] | None = None,
        on_wait: Callable[[float], None] | None = None,
    ) -> None:
        self.on_stage = on_stage
        self.on_wait = on_wait  # called about once a second while nothing arrives, with the seconds since the start
        self._pieces: queue.Queue = queue.Queue()
        self._result: T | None = None
        self._error: BaseException | None = None
        self.started = time.perf_counter()
        self.first_piece: float | None = None  # seconds from start to the first non-empty piece
        self.finished: float | None = None  # seconds from start to the end of the call
        self._thread = threading.Thread(target=self._run, args=(fn,), name="rag-answer", daemon=True)
        self._thread.start()

    def _run(self, fn) -> None:
        try:
            self._result = fn(self._emit, lambda name: self._pieces.put(_Stage(name)))
        except BaseException as exc:  # handed to the reader in result()
            self._error = exc
        finally:
            self.finished = time.perf_counter() - self.started
            self._pieces.put(_END)

    def _emit(self, piece: str) -> None:
        if piece:
            if self.first_piece is None:
                self.first_piece = time.perf_counter() - self.started
            self._pieces.put(piece)

    def __iter__(self) -> Iterator[str]:
        while True:
            try:
                piece = self._pieces.get(timeout=1.0)
            except queue.Empty:
                if self.on_wait is not None:
                    self.on_wait(time.perf_counter() - self.started)
                continue
            if piece is _END:
                return
            if isinstance(piece, _Stage):
                if self.on_stage is not None:
                    self.on_stage(piece.report)
                continue
            yield piece

    def result(self) -> T:
        """The call's return value once it has ended; re-raises its exception."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._result  # type: ignore[return-value]
