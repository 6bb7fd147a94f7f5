"""Writing a note file safely, below the note API (rag/notes/files.py): one writer at a time across threads and
processes, a compare-and-swap replace, a create that never replaces, and the audit log. The lock and the log belong
to the vault (`<vault>/.ask-your-vault/writes.lock` and `writes.log`), not to an index: two processes serving one
vault with different index folders (--db, RAG_DB, another HOME) still take turns. Knows nothing about paths inside
the vault (callers confine them) or about notes' text.

The compare-and-swap: the new text is written to a temp file first; then the current file is hard-linked aside, its
hash re-checked, the temp file renamed over it, and the set-aside inode checked again — an editor that saved into it
in that instant gets its text put back, and the write reports a conflict. A replaced note keeps its permissions; a
new one gets the user's usual mode (umask). Temp and set-aside names are short and fixed (`.rag-<16 hex>.tmp`, `.old`),
so any note name the file system allows can be rewritten; ones a killed process left behind are swept by the next
index check (`is_leftover`), and no other file ever is.

The lock and the log are opened the same way, before anything is written (`audited`): never through a link, never
blocking on a FIFO, only a plain file; a log line that fails after the write says the note was written.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import re
import stat
import threading
import time
import uuid
from pathlib import Path

from rag.errors import ConflictError, VaultError

_WRITE_LOCK = threading.Lock()  # one write at a time among this process's threads
LOCK_WAIT_SECONDS = 10.0  # how long a write waits for another process's write to finish
VAULT_FOLDER = ".ask-your-vault"  # in the vault (hidden: never indexed, off limits to agents' writes)
LOCK_NAME, LOG_NAME = "writes.lock", "writes.log"
LEFTOVER_SECONDS = 600  # a temp file this old is a killed writer's: a live write holds one for milliseconds
# The one shape of our temp and set-aside names (`_temp_file`, `swap`): a fixed prefix, exactly 16 hex digits, a
# fixed suffix. Nothing broader is ever swept: `.my draft.20240101.old` is a person's file, however old.
LEFTOVER_NAME = re.compile(r"^\.rag-[0-9a-f]{16}\.(?:tmp|old)$")


def _own_name(suffix: str) -> str:
    """A fresh temp (".tmp") or set-aside (".old") name, of the one shape LEFTOVER_NAME sweeps."""
    return f".rag-{uuid.uuid4().hex[:16]}{suffix}"


def vault_folder(vault: Path) -> Path:
    """`<vault>/.ask-your-vault/`, made if missing; refused if something planted a link there (the log would be
    written wherever it led)."""
    folder = vault / VAULT_FOLDER
    try:
        folder.mkdir(exist_ok=True)
    except OSError as exc:
        raise VaultError(f"Cannot make {folder} for the write lock and log ({exc.strerror}); nothing was written.") from exc
    if folder.is_symlink() or not folder.is_dir():
        raise VaultError(f"{folder} is not a plain folder (a symbolic link?); nothing was written. Remove it and try again.")
    return folder


# Why a file of ours in the vault folder could not be opened, by errno, when something else sits at its name.
_NOT_PLAIN = {
    errno.ELOOP: "it is a symbolic link",
    errno.EISDIR: "it is a folder",
    errno.ENXIO: "it is a FIFO",  # opened to write without blocking, with no reader at its other end
}


def _open_own(path: Path, flags: int) -> int:
    """A file of ours in the vault folder (made if missing), as a descriptor: never through a symbolic link (it would
    be written wherever it led), never waiting on a FIFO planted there (opening it to write would block for good,
    holding the lock), and only a plain file. Raises VaultError: it is opened before anything is written."""
    try:
        fd = os.open(path, flags | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError as exc:
        raise VaultError(f"Cannot open {path}: {_NOT_PLAIN.get(exc.errno, exc.strerror)}; nothing was written.{_fix(exc.errno)}") from exc
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise VaultError(f"Cannot open {path}: it is not a plain file (a FIFO, a socket, a device); nothing was written. Remove it and try again.")
    os.set_blocking(fd, True)
    return fd


def _fix(code: int | None) -> str:
    return " Remove it and try again." if code in _NOT_PLAIN else " Check the folder's permissions and free space."


@contextlib.contextmanager
def locked(vault: Path):
    """One write at a time: threads of this process, and every process of ours on this vault, whatever its index
    (an flock on the vault's writes.lock)."""
    with _WRITE_LOCK:
        fd = _open_own(vault_folder(vault) / LOCK_NAME, os.O_RDWR)
        with open(fd, "r+b") as handle:
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


class Audit:
    """The vault's writes.log, open for the writes made under one `audited` lock."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def add(self, tool: str, path: str, old_sha: str | None, new_sha: str) -> str | None:
        """One audit line: UTC time, tool, path, old hash (- for a new note), new hash. None when it was added, else
        why not: the write it records is done by then, so this never raises (the caller says the note was written)."""
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        line = "\t".join((stamp, tool, re.sub(r"[\x00-\x1f\x7f]", " ", path), old_sha or "-", new_sha)) + "\n"
        try:
            os.write(self._fd, line.encode("utf-8", "backslashreplace"))  # one write to an O_APPEND file: a whole line
        except OSError as exc:
            return exc.strerror or str(exc)
        return None


@contextlib.contextmanager
def audited(vault: Path):
    """`locked`, with the vault's writes.log open (opened like the lock, before anything is written: a log that is
    a folder, a link or a FIFO refuses the write up front, truthfully) to `add` a line per write."""
    with locked(vault):
        fd = _open_own(vault_folder(vault) / LOG_NAME, os.O_WRONLY | os.O_APPEND)
        try:
            yield Audit(fd)
        finally:
            os.close(fd)


def is_leftover(name: str, mtime: float, now: float | None = None) -> bool:
    """A temp or set-aside file of ours that a killed process left (and that no live write still holds)."""
    return bool(LEFTOVER_NAME.match(name)) and (now or time.time()) - mtime > LEFTOVER_SECONDS


def swap(rel: str, full: Path, data: bytes, expected: str) -> None:
    """Replace `full` with `data` only if it still hashes to `expected`, re-checked immediately before the rename and
    after it (see the module docstring). Raises ConflictError, leaving the other writer's text in place."""
    tmp = _temp_file(full, data, mode=_mode_of(full))  # written and synced first: the window below is the rename alone
    aside = full.with_name(_own_name(".old"))
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
        # Read through one open handle, not by name: once the rename below drops the note's link, the set-aside name
        # is the inode's only one and its mtime the note's, however old, and another process's index check may sweep
        # it as a killed writer's (`is_leftover`) — the inode stays readable here all the same.
        with open(aside, "rb") as held:
            if sha256(held.read()) != expected or os.stat(full).st_ino != os.fstat(held.fileno()).st_ino:
                raise ConflictError(f"{rel} changed while it was being written; nothing was written. Read it again and retry.")
            os.replace(tmp, full)
            held.seek(0)
            kept = held.read()
        if sha256(kept) != expected:  # saved into the old inode between the check and the rename
            try:
                os.replace(aside, full)
            except FileNotFoundError:  # its name swept meanwhile: the text it holds is put back all the same
                os.replace(_temp_file(full, kept, mode=_mode_of(full)), full)
            raise ConflictError(
                f"{rel} was saved by another program while it was being written; its text was kept and nothing was written. Read it again and retry."
            )
    finally:
        Path(tmp).unlink(missing_ok=True)
        aside.unlink(missing_ok=True)


def _mode_of(full: Path) -> int | None:
    try:
        return stat.S_IMODE(os.stat(full).st_mode)
    except OSError:
        return None


def _temp_file(full: Path, data: bytes, *, mode: int | None = None) -> str:
    """`data` in a new hidden file beside `full`: with `mode` (the replaced note's), else 0666 less the umask."""
    tmp = str(full.with_name(_own_name(".tmp")))
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError as exc:
        raise OSError(exc.errno, f"cannot write in {full.parent.name or full.parent}: {exc.strerror}") from exc
    try:
        with open(fd, "wb") as handle:
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return tmp


def replace(full: Path, data: bytes, *, new_mode: int | None = None) -> None:
    """Write `full` whole (a note only we write, like an imported conversation; the app's saved conversations): via a
    temp file renamed over it, so readers never see half of it; it keeps its permissions, a new file gets `new_mode`
    (else the umask's). Around a note, take `locked`."""
    full.parent.mkdir(parents=True, exist_ok=True)
    mode = _mode_of(full)
    tmp = _temp_file(full, data, mode=new_mode if mode is None else mode)
    try:
        os.replace(tmp, full)
    finally:
        Path(tmp).unlink(missing_ok=True)


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
