"""The index: one SQLite file (WAL) with files, chunks, an FTS5 table of stems, sentences, vectors and meta.

Split as the PostgreSQL store is: this core (the connection, transactions, locks, meta, errors), `store_notes` (the
notes' files, chunks and sentences), `store_keywords` (FTS5's ranking), `store_vectors` (the vector tables),
`store_memory` (agent memory's counts) and `store_space` (the file's size by part, compacting), mixed in; with `schema`
(its tables and migrations), the only modules that touch sqlite3. Their records are `records`. The index is disposable: everything in it can be rebuilt from the vault.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
import time
from pathlib import Path

from rag.errors import DiskFull, IndexCorrupt, IndexMissing, IndexNewer, RagError
from rag.index import schema
from rag.index.common import CommonReads
from rag.index.store_keywords import KeywordIndex
from rag.index.store_memory import MemoryStats
from rag.index.store_notes import NoteTables
from rag.index.store_space import IndexSpace
from rag.index.store_vectors import VectorTables

try:
    import fcntl
except ImportError:  # Windows: no embedding lock; SQLite's own locking still keeps the index consistent
    fcntl = None

log = logging.getLogger(__name__)


WAL_WAIT_SECONDS = 30.0  # as long as any other statement waits for a lock (`sqlite3.connect(timeout=30)`)
CLAIM_HANDOVER_SECONDS = 0.005  # after an embedding claim, for another process waiting on it (`embedding_claim`)


def _use_wal(conn: sqlite3.Connection) -> None:
    """Switch a new file to WAL. The switch does not wait for SQLite's busy timeout: two processes creating one
    index at once (the app and an agent's server, started together) would fail with "database is locked"."""
    deadline = time.monotonic() + WAL_WAIT_SECONDS
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


class Store(CommonReads, NoteTables, KeywordIndex, VectorTables, MemoryStats, IndexSpace):
    """Owns one SQLite connection. Safe to share between threads (one lock serialises use of the connection)."""

    has_ann_index = False  # meaning search always scans the vectors in memory

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self.location = str(path)  # what status and messages show as "the index"
        self._conn = conn
        self._lock = threading.RLock()

    @classmethod
    def open(cls, path: Path, *, create: bool = False) -> Store:
        """Open an index. With `create`, make it (and its folder) if missing. Raises IndexMissing / IndexCorrupt; a
        full disk (DiskFull) or a busy index (RagError) is never taken for damage."""
        path = Path(path)
        if not path.exists() and not create:
            raise IndexMissing(f"No index at {path}. Run `python -m rag index` first.")
        if create:
            path.parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = sqlite3.connect(path, timeout=30, check_same_thread=False, isolation_level=None)
            schema.check_identity(conn, path)
            _use_wal(conn)
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
            schema.migrate(conn)
        except IndexNewer:
            conn.close()  # left as it is, for the version that wrote it
            raise
        except sqlite3.DatabaseError as exc:
            if (why := _operational(exc, path)) is not None:  # a full disk or a busy index is no damage: never moved aside
                raise why from exc
            raise IndexCorrupt(f"The index {path} is damaged ({exc}). Run `python -m rag index` to move it aside and rebuild it.") from exc
        return cls(path, conn)

    @staticmethod
    def move_aside(path: Path) -> Path:
        """Rename a damaged index (and its WAL files) out of the way; returns the new name. Nothing is deleted."""
        target = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
        for suffix in ("", "-wal", "-shm"):
            side = Path(f"{path}{suffix}")
            if side.exists():
                side.rename(Path(f"{target}{suffix}"))
        return target

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def size_bytes(self) -> int:
        files = (Path(f"{self.path}{suffix}") for suffix in ("", "-wal", "-shm"))
        return sum(p.stat().st_size for p in files if p.exists())

    @contextlib.contextmanager
    def embedding_claim(self, model: str, keys: list[str]):
        """Claim texts to embed: yields the keys this process may embed now (here all of them, under a lock file
        beside the index held until the block ends), so the app, the MCP server and the CLI never embed the same texts
        twice at once. Writes themselves are serialised by SQLite (BEGIN IMMEDIATE, WAL, 30 s busy timeout), and
        readers are never blocked. The OS releases the lock if the process dies."""
        with open(f"{self.path}.lock", "a+b") as handle:
            if fcntl is not None:
                fcntl.flock(handle, fcntl.LOCK_EX)
            yield list(keys)
        # flock is not fair: released and asked for again at once, the lock goes back to this process, and another
        # one waiting for it could wait out the whole run. A moment's pause hands it over.
        time.sleep(CLAIM_HANDOVER_SECONDS)

    @contextlib.contextmanager
    def transaction(self, *, searchable: bool = True):
        """One write transaction. `searchable` writes (chunks, vectors) bump the generation so caches reload;
        bookkeeping (meta, file stats) does not, so a no-change sync never forces a vector-matrix reload."""
        with self._lock, _translate(self.path):
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
                if searchable:
                    # CAST: a value that is not a whole number (the file is not trusted) becomes one again
                    self._conn.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'")
                self._conn.execute("COMMIT")
            except BaseException:
                _rollback(self._conn)
                raise

    def _read(self, sql: str, params=()) -> list[tuple]:
        with self._lock, _translate(self.path):
            return self._conn.execute(sql, params).fetchall()

    def _read_in(self, sql: str, values: list, *leading) -> list[tuple]:
        """`sql` with `IN ({marks})` run over `values` in parts of 500 (SQLite's bound-parameter limit), after the
        `leading` parameters."""
        rows: list[tuple] = []
        for i in range(0, len(values), 500):
            part = values[i : i + 500]
            rows.extend(self._read(sql.format(marks=",".join("?" * len(part))), [*leading, *part]))
        return rows

    # --- meta -------------------------------------------------------------------------------------------------

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        rows = self._read("SELECT value FROM meta WHERE key = ?", (key,))
        return rows[0][0] if rows else default

    def set_meta(self, key: str, value: str, *, searchable: bool = False) -> None:
        """`searchable` when search reads the value (it reloads its caches then)."""
        with self.transaction(searchable=searchable) as db:
            db.execute("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))

    # --- maintenance ------------------------------------------------------------------------------------------

    def merge_keyword_index(self) -> None:
        """Merge the FTS index into one segment: after every note was rewritten, its deleted rows slow queries down."""
        with self.transaction(searchable=False) as db:
            db.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize')")
            db.execute("INSERT INTO chunks_sounds(chunks_sounds) VALUES ('optimize')")


def _rollback(conn: sqlite3.Connection) -> None:
    """Undo the open transaction, if SQLite has not already: after a full disk (SQLITE_FULL) or an I/O error it rolls
    back by itself, and a second ROLLBACK ("cannot rollback - no transaction is active") must not hide why."""
    if not conn.in_transaction:
        return
    try:
        conn.execute("ROLLBACK")
    except sqlite3.Error as exc:
        log.warning("Could not roll back a failed write to the index: %s", exc)


def _operational(exc: sqlite3.Error, path: Path) -> RagError | None:
    """The error a person can act on for a busy index or a full disk (None for anything else)."""
    if not isinstance(exc, sqlite3.OperationalError):
        return None
    if "locked" in str(exc) or "busy" in str(exc):
        return RagError(f"The index {path} is busy (another indexing run?). Try again in a moment.")
    if getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "database or disk is full" in str(exc):
        return DiskFull(f"The disk is full: the index {path} could not be written (the write was undone). Free space and try again.")
    return None


@contextlib.contextmanager
def _translate(path: Path):
    """sqlite3 failures → errors a person can act on."""
    try:
        yield
    except sqlite3.OperationalError as exc:
        if (why := _operational(exc, path)) is not None:
            raise why from exc
        raise
    except sqlite3.DatabaseError as exc:
        if type(exc) is sqlite3.DatabaseError:  # "file is not a database", "database disk image is malformed"
            raise IndexCorrupt(f"The index {path} is damaged ({exc}). Run `python -m rag index` to move it aside and rebuild it.") from exc
        raise
