"""The indexer thread of a `LiveIndex` (mixed into it): its loop — the vault's text first, then the missing vectors
in small batches, then the jobs that follow the index — the watcher that wakes it on file events, and one retry
policy for a failed embedder (RETRY_FIRST seconds, doubling up to RETRY_MAX).

Apart from rag/live.py, which is what readers and writers call (open, check, re-index, progress, status, close): this
is the work done on the thread, and the text sync both share. Knows nothing about MCP, Streamlit or the terminal.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from rag.errors import RagError
from rag.index.backfill import backfill
from rag.index.sync import SyncReport
from rag.index.watch import Watcher
from rag.workspace import Workspace

log = logging.getLogger(__name__)

RETRY_FIRST, RETRY_MAX = 5.0, 300.0  # seconds before retrying a failed embedder, doubling up to the maximum
WRITE_WAIT = 2.0  # seconds a write waits for a running check before leaving its re-index to the indexer
EMBED_BATCH = 8  # passages per background batch: a search waits for at most one batch to get the embedder


class _Stopped(RagError):
    """Raised from the progress callback to end a sync early when the server shuts down."""


class IndexerThread:
    """`_run` (the thread's loop) and the passes it makes (methods of `LiveIndex`, whose state they use: the
    workspace, the locks and events, the progress)."""

    def _run(self) -> None:
        self._set(replace(self._progress, state="opening"))
        try:
            ws = self.workspace()
        except RagError as exc:
            log.warning("Cannot open the index: %s", exc)
            self._set(replace(self._progress, state="failed", error=str(exc)))
            return
        self._watch()
        retry = RETRY_FIRST
        while not self._stop.is_set():
            self._wake.clear()
            self._sync_text(wait=None)
            self._backfill(ws)
            self._run_after_pass(ws)
            self._set(replace(self._progress, state="idle", done=0, total=0, error=None))
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
        changed = bool(report.files_added or report.files_updated or report.files_removed)
        self._set(replace(self._progress, changes=self._progress.changes + changed, last_report=report))
        if changed:
            self._wake.set()
        return report

    def _run_text_sync(self, ws: Workspace) -> SyncReport:
        previous = self._progress.state
        self._set(replace(self._progress, state="reading notes", done=0, total=0))

        def progress(stage: str, done: int, total: int) -> None:
            if self._stop.is_set():
                raise _Stopped("The server is shutting down; indexing goes on at the next start.")  # notes read so far are kept
            self._set(replace(self._progress, state="reading notes", done=done, total=total))

        try:
            report = ws.sync(embed=False, progress=progress)
        finally:
            self._set(replace(self._progress, state=previous, done=0, total=0))
        self._checked = self._clock()
        for path, reason in report.skipped:
            log.info("skipped %s: %s", path, reason)
        return report

    def _run_after_pass(self, ws: Workspace) -> None:
        def progress(stage: str, done: int, total: int) -> None:
            if self._stop.is_set():
                raise _Stopped("The server is shutting down.")
            self._set(replace(self._progress, state="embedding", done=done, total=total))

        for job in list(self._after_pass):
            try:
                job(ws, progress)
            except _Stopped:
                return
            except RagError as exc:  # the job's reader does the same work on demand and reports the error there
                log.warning("After indexing: %s", exc)

    def _backfill(self, ws: Workspace) -> None:
        """Embed chunk and sentence texts that have no vector yet, a few at a time, until none is missing or we are stopped."""

        def progress(stage: str, done: int, total: int) -> None:
            if self._stop.is_set():
                raise _Stopped("The server is shutting down; embedding goes on at the next start.")
            self._set(replace(self._progress, state="embedding", done=done, total=total))

        try:
            done = backfill(ws.store, ws.embedder, batch_size=EMBED_BATCH, progress=progress, token_states=ws.settings.token_match)
        except _Stopped:
            return
        except RagError as exc:  # the index refused a write (a full disk, a busy file): retried like a failed embedder
            log.warning("Embedding stopped: %s", exc)
            self._embed_error = str(exc)
            return
        self._embed_error = done.error
        if (done.chunks or done.sentences) and done.error is None:
            with self._sync_lock:  # not while a text sync is half-way through moving chunks
                ws.store.drop_orphan_vectors()
        if done.chunks or done.sentences:
            self._set(replace(self._progress, changes=self._progress.changes + 1))
