"""Writing a note file safely, below the note API (rag/notes/files.py): one writer at a time across threads and
processes (an flock on `writes.lock` beside the index), a compare-and-swap replace, a create that never replaces, and the audit
log `writes.log` beside the index. Knows nothing about paths inside the vault (callers confine them) or about notes' text.

The compare-and-swap: the new text is written to a temp file first; then the current file is hard-linked aside, its
hash re-checked, the temp file renamed over it, and the set-aside inode checked again — an editor that saved into it
in that instant gets its text put back, and the write reports a conflict.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import tempfile
import threading
import time
import uuid
from pathlib import Path

from rag.config import Settings
from rag.errors import ConflictError

_WRITE_LOCK = threading.Lock()  # one write at a time among this process's threads
LOCK_WAIT_SECONDS = 10.0  # how long a write waits for another process's write to finish
LOCK_NAME, LOG_NAME = "writes.lock", "writes.log"


@contextlib.contextmanager
def locked(settings: Settings):
    """One write at a time: threads of this process, and other processes of ours (an flock on writes.lock beside the index)."""
    folder = settings.db_path.parent
    with _WRITE_LOCK:
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / LOCK_NAME, "a+b") as handle:
            deadline = time.monotonic() + LOCK_WAIT_SECONDS
            while True:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise ConflictError(
                            f"Another process has been writing notes for over {LOCK_WAIT_SECONDS:.0f} s; nothing was written. Try again."
                        ) from None
                    time.sleep(0.05)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


def logged(settings: Settings, tool: str, path: str, old_sha: str | None, new_sha: str) -> None:
    """One audit line per write in writes.log beside the index: UTC time, tool, path, old hash (- for a new note), new hash."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    line = "\t".join((stamp, tool, path.replace("\t", " ").replace("\n", " "), old_sha or "-", new_sha))
    with open(settings.db_path.parent / LOG_NAME, "a", encoding="utf-8") as log:
        log.write(line + "\n")


def swap(rel: str, full: Path, data: bytes, expected: str) -> None:
    """Replace `full` with `data` only if it still hashes to `expected`, re-checked immediately before the rename and
    after it (see the module docstring). Raises ConflictError, leaving the other writer's text in place."""
    tmp = _temp_file(full, data)  # written and synced first: the window below is the rename alone
    aside = full.with_name(f".{full.name}.{uuid.uuid4().hex[:8]}.old")
    try:
        try:
            os.link(full, aside)  # the inode as it is now, kept for the check after the rename
        except FileNotFoundError:
            raise ConflictError(f"{rel} was deleted while it was being written; nothing was written.") from None
        except OSError:  # a file system without hard links: check right before the rename only
            if sha256(full.read_bytes()) != expected:
                raise ConflictError(f"{rel} changed while it was being written; nothing was written. Read it again and retry.") from None
            os.replace(tmp, full)
            return
        if sha256(aside.read_bytes()) != expected or os.stat(full).st_ino != os.stat(aside).st_ino:
            raise ConflictError(f"{rel} changed while it was being written; nothing was written. Read it again and retry.")
        os.replace(tmp, full)
        if sha256(aside.read_bytes()) != expected:  # saved into the old inode between the check and the rename
            os.replace(aside, full)
            raise ConflictError(
                f"{rel} was saved by another program while it was being written; its text was kept and nothing was written. Read it again and retry."
            )
    finally:
        Path(tmp).unlink(missing_ok=True)
        aside.unlink(missing_ok=True)


def _temp_file(full: Path, data: bytes) -> str:
    fd, tmp = tempfile.mkstemp(prefix=f".{full.name}.", suffix=".tmp", dir=full.parent)
    try:
        with open(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return tmp


def write_new(full: Path, data: bytes) -> None:
    """Write via a hidden temp file in the same folder, then hard-link it to its new name (never replacing a note),
    so readers never see half a note."""
    full.parent.mkdir(parents=True, exist_ok=True)
    tmp = _temp_file(full, data)
    try:
        _link_new(tmp, full)
    finally:
        Path(tmp).unlink(missing_ok=True)


def _link_new(tmp: str, full: Path) -> None:
    """Give the temp file its final name only if that name is free (FileExistsError otherwise)."""
    try:
        os.link(tmp, full)
    except FileExistsError:
        raise
    except OSError:  # a file system without hard links: check, then rename (a tiny window, but no hard links)
        if os.path.lexists(full):
            raise FileExistsError(str(full)) from None
        os.replace(tmp, full)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
