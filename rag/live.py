"""A workspace kept fresh for a long-running server (the MCP server): opened lazily, indexed in the background,
re-checked before reads at most every `interval` seconds, never blocking a reader on long work.

Nothing happens on construction. `start()` opens the index and indexes in a background thread: text first (one
transaction per note, so keyword search works at once and grows as notes are read), then vectors in small batches,
so meaning search improves as they arrive. `fresh()` gives readers the workspace after an incremental check (a stat
per note when nothing changed) if the last one is older than `interval`; when the indexer is busy the check is
skipped rather than waited for. `changed()` re-indexes after a write. The indexer also watches the vault
(`rag.index.watch`), so an edit is usually indexed within a second, before any read asks. If the embedder is down, it
retries with growing pauses and `indexing()` says so. Knows nothing about MCP.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Callable

from rag.config import Settings
from rag.errors import RagError
from rag.index.embed import Embedder
from rag.index.sync import SyncReport, backfill
from rag.index.watch import Watcher
from rag.workspace import Workspace

log = logging.getLogger(__name__)

RETRY_FIRST, RETRY_MAX = 5.0, 300.0  # seconds before retrying a failed embedder, doubling up to the maximum
WRITE_WAIT = 2.0  # seconds a write waits for a running check before leaving its re-index to the indexer
EMBED_BATCH = 8  # passages per background batch: a search waits for at most one batch to get the embedder


class _Stopped(RagError):
    """Raised from the progress callback to end a sync early when the server shuts down."""


@dataclass(frozen=True)
class Indexing:
    """What the background indexer is doing, for status reports."""

    state: str  # "not started", "opening", "reading notes", "embedding", "idle", "failed"
    done: int = 0
    total: int = 0
    error: str | None = None  # why opening or embedding failed, with the fix


class LiveWorkspace:
    """Owns one Workspace (opened on first use) and the thread that keeps its index in line with the vault."""

    def __init__(
        self, settings: Settings, *, embedder: Embedder | None = None, interval: float | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.settings = settings
        self.interval = settings.check_interval if interval is None else interval
        self._embedder = embedder
        self._clock = clock
        self._ws: Workspace | None = None
        self._open_lock = threading.Lock()
        self._sync_lock = threading.Lock()  # one text sync at a time
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._checked = float("-inf")
        self._status = Indexing("not started")
        self._embed_error: str | None = None
        self._retry_in: float | None = None  # seconds until the indexer retries a failed embedder
        self._watcher: Watcher | None = None

    # --- for readers and writers ------------------------------------------------------------------------------

    def workspace(self) -> Workspace:
        """The open workspace, opening it (and the index, created if missing) on first use."""
        with self._open_lock:
            if self._ws is None:
                if self._stop.is_set():
                    raise RagError("The server is shutting down. Start it again.")
                self._ws = Workspace.open(self.settings, create=True, embedder=self._embedder)
                self._ws.keep_previous_model_serving()
                if self._ws.recovered_from:
                    log.warning("The index was damaged; it was moved to %s and is being rebuilt.", self._ws.recovered_from)
            return self._ws

    def fresh(self) -> Workspace:
        """The workspace, after an incremental check if the last one is older than `interval` and none is running."""
        ws = self.workspace()
        if self._clock() - self._checked >= self.interval:
            self._sync_text(wait=0)
        return ws

    def changed(self) -> bool:
        """After a write: re-index what changed now, waiting up to WRITE_WAIT seconds for a running check (a long
        one catches up by itself). True if the index holds the change (keyword search; vectors follow)."""
        self.workspace()
        indexed = self._sync_text(wait=WRITE_WAIT) is not None
        self._wake.set()
        return indexed

    def reindex(self, *, full: bool = False) -> SyncReport:
        """Check every note now (waiting for a running check). With `full`, every note is read and chunked again;
        vectors are reused by content, so only new text is embedded. Embedding continues in the background."""
        ws = self.workspace()
        with self._sync_lock:
            if full:
                ws.store.remove_files(sorted(ws.store.file_states()))
            report = self._run_text_sync(ws)
        self._wake.set()
        return report

    def indexing(self) -> Indexing:
        status = self._status
        if status.state == "idle" and self._embed_error:
            retry = self._retry_in
            later = f" Retrying in {retry:.0f} s." if retry else ""
            return Indexing("idle", error=f"{self._embed_error}{later}")
        return status

    # --- lifecycle --------------------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the background indexer (once). Returns at once."""
        with self._open_lock:
            if self._thread is not None or self._stop.is_set():
                return
            self._thread = threading.Thread(target=self._run, name="rag-indexer", daemon=True)
            self._thread.start()

    def close(self, timeout: float = 10.0) -> None:
        """Stop the indexer (after its current batch) and close the index."""
        self._stop.set()
        self._wake.set()
        with self._open_lock:
            watcher = self._watcher
        if watcher is not None:
            watcher.stop(timeout)
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                log.warning("The indexer did not stop within %.0fs; leaving it to exit with the process.", timeout)
                return
        with self._open_lock:
            if self._ws is not None:
                self._ws.close()
                self._ws = None

    def __enter__(self) -> LiveWorkspace:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- the indexer ------------------------------------------------------------------------------------------

    def _run(self) -> None:
        self._status = Indexing("opening")
        try:
            ws = self.workspace()
        except RagError as exc:
            log.warning("Cannot open the index: %s", exc)
            self._status = Indexing("failed", error=str(exc))
            return
        self._watch()
        retry = RETRY_FIRST
        while not self._stop.is_set():
            self._wake.clear()
            self._sync_text(wait=None)
            self._backfill(ws)
            self._status = Indexing("idle")
            if self._embed_error is None:
                retry = RETRY_FIRST
                self._wake.wait()
                continue
            self._retry_in = retry  # the embedder is down: try again later, waiting longer each time
            self._wake.wait(retry)
            self._retry_in = None
            retry = min(retry * 2, RETRY_MAX)

    def _watch(self) -> None:
        """Follow file events: a change is indexed a moment after its burst of saves ends. Without events (no inotify
        watches left) the check before reads still catches every change within `interval` seconds."""
        try:
            with self._open_lock:
                if not self._stop.is_set():
                    self._watcher = Watcher(self.settings, self._files_changed).start()
        except OSError as exc:
            log.warning("Not watching %s for changes (%s); reads still check it every %.0f s.", self.settings.vault, exc, self.interval)

    def _files_changed(self) -> bool:
        """For the watcher: index now, or False to be called again after the next quiet period."""
        indexed = self._sync_text(wait=WRITE_WAIT) is not None
        self._wake.set()
        return indexed or self._stop.is_set()

    def _sync_text(self, *, wait: float | None) -> SyncReport | None:
        """One incremental text sync, or None if another one runs for longer than `wait` seconds (None: no limit)."""
        if not self._sync_lock.acquire(timeout=-1 if wait is None else wait):
            return None
        try:
            if self._stop.is_set() or self._ws is None:
                return None
            report = self._run_text_sync(self._ws)
        except _Stopped:
            return None
        except RagError as exc:
            log.warning("Indexing failed: %s", exc)
            return None
        finally:
            self._sync_lock.release()
        if report.files_added or report.files_updated or report.files_removed:
            self._wake.set()
        return report

    def _run_text_sync(self, ws: Workspace) -> SyncReport:
        previous = self._status
        self._status = Indexing("reading notes")

        def progress(stage: str, done: int, total: int) -> None:
            if self._stop.is_set():
                raise _Stopped("The server is shutting down; indexing goes on at the next start.")  # notes read so far are kept
            self._status = Indexing("reading notes", done, total)

        try:
            report = ws.sync(embed=False, progress=progress)
        finally:
            self._status = previous
        self._checked = self._clock()
        for path, reason in report.skipped:
            log.info("skipped %s: %s", path, reason)
        return report

    def _backfill(self, ws: Workspace) -> None:
        """Embed chunk and sentence texts that have no vector yet, a few at a time, until none is missing or we are stopped."""

        def progress(stage: str, done: int, total: int) -> None:
            if self._stop.is_set():
                raise _Stopped("The server is shutting down; embedding goes on at the next start.")
            self._status = Indexing("embedding", done, total)

        try:
            done = backfill(ws.store, ws.embedder, batch_size=EMBED_BATCH, progress=progress)
        except _Stopped:
            return
        self._embed_error = done.error
        if (done.chunks or done.sentences) and done.error is None:
            with self._sync_lock:  # not while a text sync is half-way through moving chunks
                ws.store.drop_orphan_vectors()
