"""One live index per vault, for every adapter: the app, the MCP server, `rag watch` and the CLI's freshness check.

Nothing happens on construction. `workspace()` opens the index on first use. `start()` runs the indexer thread: text
first (one transaction per note, so keyword search works at once and grows as notes are read), then vectors in small
batches, so meaning search improves as they arrive; it watches the vault (`rag.index.watch`), so an edit is usually
indexed within a second, and when the embedder is down it retries with growing pauses (one retry policy). Readers
call `fresh()` (an incremental check first if the last one is older than `check_interval`, never waiting for a busy
indexer) or, when they must not block at all, `check_soon()`; writers call `changed()`. `progress()` is a frozen
snapshot, `subscribe()` delivers every change of it, and `status()` is the index's counts, recomputed only when the
index changed. `close()` stops the watcher and the indexer and closes the index: no thread is left. Without
`start()` (a CLI command) no thread is started at all. The thread's work is in `rag.live_indexer`. Knows nothing
about MCP, Streamlit or the terminal.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
import weakref
from dataclasses import dataclass, replace
from typing import Callable

from rag.config import Settings
from rag.embed.embedders import Embedder
from rag.errors import RagError
from rag.index.sync import SyncReport
from rag.index.sync_state import last_sync
from rag.index.watch import Watcher
from rag.live_indexer import WRITE_WAIT, IndexerThread
from rag.workspace import Workspace

log = logging.getLogger(__name__)

BUSY = ("opening", "reading notes", "embedding")
RETRYING = "{error} Retrying in {seconds} s."  # the app says it in its own words (rag/web/messages.py)


@dataclass(frozen=True)
class Progress:
    """What the indexer is doing, as one frozen snapshot for status lines, progress bars and tools."""

    state: str = "not started"  # "not started", "opening", "reading notes", "embedding", "idle", "failed"
    done: int = 0
    total: int = 0
    error: str | None = None  # why opening or embedding failed, with the fix (and when it is retried)
    changes: int = 0  # counts syncs and embedding runs that changed the index: redraw when it moves
    last_report: SyncReport | None = None  # of the latest check of the vault (text only: vectors follow)

    @property
    def running(self) -> bool:
        return self.state in BUSY

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 0.0

    @property
    def label(self) -> str:
        if self.state == "reading notes":
            return f"Reading notes: {self.done} of {self.total}" if self.total else "Checking the vault for changes…"
        if self.state == "embedding":
            return f"Embedding passages, then sentences, for meaning search: {self.fraction:.0%}"
        return "Opening the index…" if self.state == "opening" else self.state.capitalize()


class LiveIndex(IndexerThread):
    """Owns one Workspace (opened on first use) and the thread that keeps its index in line with the vault."""

    def __init__(
        self,
        settings: Settings,
        *,
        embedder: Embedder | None = None,
        interval: float | None = None,
        create: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`create=False`: a missing index is an error that says how to build it (the CLI's reading commands)."""
        self.settings = settings
        self._create = create
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
        self._progress = Progress()
        self._listeners: list[Callable[[Progress], None]] = []
        self._after_pass: list[Callable] = []  # work that follows the index (agent memory's table)
        self._embed_error: str | None = None
        self._retry_in: float | None = None  # seconds until the indexer retries a failed embedder
        self._watcher: Watcher | None = None
        self._status: tuple[int, dict] | None = None  # (progress.changes it was computed at, counts)

    # --- for readers and writers ------------------------------------------------------------------------------

    def workspace(self) -> Workspace:
        """The open workspace, opening it (and the index, created if missing) on first use."""
        with self._open_lock:
            if self._ws is None:
                if self._stop.is_set():
                    raise RagError("The server is shutting down. Start it again.")
                self._ws = Workspace.open(self.settings, create=self._create, embedder=self._embedder)
                self._ws.keep_previous_model_serving()
                if self._ws.recovered_from:
                    log.warning("The index was damaged; it was moved to %s and is being rebuilt.", self._ws.recovered_from)
                last = last_sync(self._ws.store)  # a CLI run checks at most every interval, across runs
                if last is not None:
                    self._checked = self._clock() - max(0.0, time.time() - float(last))
            return self._ws

    def fresh(self) -> Workspace:
        """The workspace, after an incremental check if the last one is older than `interval` and none is running."""
        ws = self.workspace()
        if self._clock() - self._checked >= self.interval:
            self._sync_text(wait=0)
        return ws

    def check_soon(self, *, now: bool = False) -> Workspace:
        """The workspace at once; if the last check is older than `interval` (or `now`), the indexer thread checks
        the vault and embeds what is missing (for pages that must never wait). Without a running indexer: `fresh()`."""
        if self._thread is None:
            return self.fresh()
        ws = self.workspace()
        if now or self._clock() - self._checked >= self.interval:
            self._checked = self._clock()  # asked once per interval, not once per rerun
            self._wake.set()
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
        changed = bool(full or report.files_added or report.files_updated or report.files_removed)
        self._set(replace(self._progress, changes=self._progress.changes + changed, last_report=report))  # status reloads
        self._wake.set()
        return report

    def progress(self) -> Progress:
        progress = self._progress
        if progress.state == "idle" and self._embed_error:
            retry = self._retry_in
            later = RETRYING.format(error=self._embed_error, seconds=f"{retry:.0f}") if retry else self._embed_error
            return replace(progress, error=later)
        return progress

    def after_indexing(self, job: Callable) -> None:
        """Run `job(workspace, progress)` in the indexer thread after each pass (a pass that changed nothing too: a job
        keyed by the index generation returns at once then); `progress(stage, done, total)` shows as "embedding"."""
        self._after_pass.append(job)

    def subscribe(self, listener: Callable[[Progress], None]) -> Callable[[], None]:
        """Call `listener(progress)` on every change (from the indexer thread); returns the function that stops it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def status(self) -> dict:
        """Counts of notes, chunks and vectors, model and index size: recomputed only after the index changed."""
        changes = self._progress.changes
        cached = self._status
        if cached is None or cached[0] != changes or self._progress.running:
            cached = (changes, self.workspace().status())
            self._status = cached
        return cached[1]

    def wait_idle(self, timeout: float = 60.0) -> Progress:
        """Block until the indexer is idle (for scripts and tests); the progress then."""
        deadline = time.monotonic() + timeout
        while self._thread is not None and self._thread.is_alive() and time.monotonic() < deadline:
            # a wake not yet taken up by the indexer is work still to do (a click on "Re-index" just now)
            if not (self._progress.running or self._progress.state == "not started" or self._wake.is_set()):
                break
            time.sleep(0.02)
        return self.progress()

    def _set(self, progress: Progress) -> None:
        self._progress = progress
        for listener in list(self._listeners):
            try:
                listener(self.progress())
            except Exception:  # a listener's bug must not stop indexing
                log.exception("A progress listener failed")

    # --- lifecycle --------------------------------------------------------------------------------------------

    def start(self) -> LiveIndex:
        """Start the background indexer and the watcher (once). Returns at once."""
        with self._open_lock:
            if self._thread is not None or self._stop.is_set():
                return self
            self._thread = threading.Thread(target=self._run, name="rag-indexer", daemon=True)
            self._thread.start()
        atexit.register(_close_at_exit, weakref.ref(self))
        return self

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

    def __enter__(self) -> LiveIndex:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


EXIT_WAIT_SECONDS = 30.0  # at exit, how long to let the indexer finish its batch (8 passages: a few seconds)


def _close_at_exit(ref: weakref.ref) -> None:
    """Stop a still-running indexer before the interpreter goes: a thread left inside ONNX Runtime while the process
    ends aborts it ("terminate called without an active exception")."""
    live = ref()
    if live is not None:
        live.close(timeout=EXIT_WAIT_SECONDS)
