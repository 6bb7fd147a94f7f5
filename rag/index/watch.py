"""Watching the vault (watchdog): file events are debounced and coalesced into one incremental sync.

Events only say "something changed"; the incremental sync (a stat per note, a read only where the stat changed)
decides what. So a burst of saves to one note is one re-read once typing stops; a note created and deleted before
the quiet period ends costs nothing; a rename or move is a remove plus an add whose vectors are reused by content
(nothing is embedded again); an editor that saves by writing a temp file and renaming it over the note is just
another event on the note. Hidden files and folders (temp files, `.obsidian`, `.rag`) and non-notes are ignored.

Knows nothing about the index: `apply()` does the work and returns False to be called again after the next quiet
period (for example when an indexer is already running).
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Callable

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from rag.config import Settings
from rag.notes.vault import READ_SUFFIXES

log = logging.getLogger(__name__)

_EVENTS = {"created", "modified", "deleted", "moved", "closed"}
_DIR_EVENTS = {"created", "deleted", "moved"}  # a folder renamed or removed moves or removes its notes


class Watcher:
    """Calls `apply()` from one worker thread, `debounce` seconds after the last relevant event in the vault."""

    def __init__(self, settings: Settings, apply: Callable[[], bool], *, debounce: float | None = None) -> None:
        self.root = Path(settings.vault)
        self.debounce = settings.watch_debounce if debounce is None else debounce
        self._apply = apply
        self._cond = threading.Condition()
        self._dirty = False
        self._last = 0.0
        self._stop = False
        self._observer = None
        self._worker: threading.Thread | None = None
        self.flushes = 0  # calls to apply(), for status and tests

    def start(self) -> Watcher:
        handler = _Handler(self)
        self._observer = Observer()
        self._observer.schedule(handler, str(self.root), recursive=True)
        self._observer.daemon = True
        self._observer.start()
        self._worker = threading.Thread(target=self._run, name="rag-watcher", daemon=True)
        self._worker.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout)
        if self._worker is not None:
            self._worker.join(timeout)

    def kick(self) -> None:
        """Run `apply()` now (without waiting for a quiet period), e.g. for the first check at start."""
        with self._cond:
            self._dirty, self._last = True, float("-inf")
            self._cond.notify_all()

    def pending(self) -> bool:
        with self._cond:
            return self._dirty

    def __enter__(self) -> Watcher:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def _note_event(self) -> None:
        with self._cond:
            self._dirty, self._last = True, time.monotonic()
            self._cond.notify_all()

    def _relevant(self, path: str, *, is_dir: bool) -> bool:
        try:
            parts = Path(path).relative_to(self.root).parts
        except ValueError:
            return False
        if not parts or any(p.startswith(".") for p in parts):
            return False
        return is_dir or parts[-1].lower().endswith(READ_SUFFIXES)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._stop and not self._dirty:
                    self._cond.wait()
                while not self._stop and (quiet := time.monotonic() - self._last) < self.debounce:
                    self._cond.wait(self.debounce - quiet)  # new events push the deadline on
                if self._stop:
                    return
                self._dirty = False
            self.flushes += 1
            try:
                done = self._apply()
            except Exception:  # a bug or a full disk: keep watching, try again after the next quiet period
                log.exception("Re-indexing after a change failed")
                done = False
            if not done:
                with self._cond:
                    self._dirty, self._last = True, time.monotonic()


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: Watcher) -> None:
        self._watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        kinds = _DIR_EVENTS if event.is_directory else _EVENTS
        if event.event_type not in kinds:
            return
        paths = [event.src_path, getattr(event, "dest_path", "") or ""]
        if any(p and self._watcher._relevant(str(p), is_dir=event.is_directory) for p in paths):
            self._watcher._note_event()
