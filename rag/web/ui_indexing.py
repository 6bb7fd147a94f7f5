"""Indexing in the background, so a page never waits for it: one worker thread per workspace runs `sync` while
readers keep searching (keyword search sees each note as soon as it is stored, meaning search as vectors arrive).

Thread-safe: any number of sessions may start it or read its progress; at most one run happens at a time.
Knows nothing about the UI; `progress()` is a frozen snapshot to draw.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, replace

from rag.errors import RagError
from rag.index.sync import SyncReport
from rag.workspace import Workspace

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class IndexProgress:
    running: bool = False
    stage: str | None = None  # "read" (changed notes) or "embed" (vectors)
    done: int = 0
    total: int = 0
    started: float | None = None  # time.time() of the current or last run
    finished: float | None = None
    report: SyncReport | None = None  # of the last finished run
    error: str | None = None  # why the last run failed, with the fix

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 0.0

    @property
    def label(self) -> str:
        if not self.running:
            return "Idle"
        if self.stage == "read":
            return f"Reading notes: {self.done} of {self.total}"
        if self.stage == "embed":
            return f"Embedding passages, then sentences, for meaning search: {self.done} of {self.total}"
        return "Checking the vault for changes…"


class BackgroundIndexer:
    """Runs `workspace.sync()` in a daemon thread on request."""

    def __init__(self, workspace: Workspace) -> None:
        self._workspace = workspace
        self._lock = threading.Lock()
        self._state = IndexProgress()
        self._thread: threading.Thread | None = None

    def start(self) -> bool:
        """Start a run unless one is going; True if this call started it."""
        with self._lock:
            if self._state.running:
                return False
            self._state = replace(self._state, running=True, stage=None, done=0, total=0, started=time.time(), error=None)
            self._thread = threading.Thread(target=self._run, name="rag-indexer", daemon=True)
            self._thread.start()
            return True

    def start_if_stale(self, max_age: float) -> bool:
        """Start a run if none is going and the last one ended more than `max_age` seconds ago (or never ran)."""
        state = self.progress()
        if state.running or (state.finished is not None and time.time() - state.finished < max_age):
            return False
        return self.start()

    def progress(self) -> IndexProgress:
        with self._lock:
            return self._state

    def wait(self, timeout: float | None = None) -> IndexProgress:
        """Block until the current run ends (for tests and scripts)."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return self.progress()

    def _on_progress(self, stage: str, done: int, total: int) -> None:
        with self._lock:
            self._state = replace(self._state, stage=stage, done=done, total=total)

    def _run(self) -> None:
        report, error = None, None
        try:
            report = self._workspace.sync(progress=self._on_progress)
            error = report.embed_error
        except RagError as exc:
            error = str(exc)
        except Exception as exc:  # a bug: keep the app alive, say where to look
            log.exception("Indexing failed")
            error = f"Indexing failed unexpectedly ({exc!r}). The terminal running the app shows the details."
        with self._lock:
            self._state = replace(self._state, running=False, finished=time.time(), report=report or self._state.report, error=error)
