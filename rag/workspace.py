"""One vault with its open index: settings, store, embedder and retriever, opened the same way by every adapter.

Owns the store connection; close it (or use it as a context manager) when done.
"""

from __future__ import annotations

import logging
from pathlib import Path

from rag.config import Settings
from rag.embed import Embedder, make_embedder
from rag.errors import IndexCorrupt
from rag.retrieve import Retriever
from rag.store import Store
from rag.sync import Progress, SyncReport, sync
from rag.vault import check_vault

log = logging.getLogger(__name__)


class Workspace:
    def __init__(self, settings: Settings, store: Store, embedder: Embedder, *, recovered_from: Path | None = None) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.retriever = Retriever(settings, store, embedder)
        self.recovered_from = recovered_from  # where a damaged index was moved, if it was

    @classmethod
    def open(cls, settings: Settings, *, create: bool = False, embedder: Embedder | None = None) -> "Workspace":
        """Open the index for this vault. With `create`, a missing index is made and a damaged one is moved aside."""
        check_vault(settings.vault)
        recovered = None
        try:
            store = Store.open(settings.db_path, create=create)
        except IndexCorrupt:
            if not create:
                raise
            recovered = Store.move_aside(settings.db_path)
            log.warning("The index %s was damaged; moved it to %s and rebuilding.", settings.db_path, recovered)
            store = Store.open(settings.db_path, create=True)
        return cls(settings, store, embedder or make_embedder(settings), recovered_from=recovered)

    def sync(self, *, progress: Progress | None = None, embed: bool = True) -> SyncReport:
        return sync(self.settings, self.store, self.embedder, progress=progress, embed=embed)

    def status(self) -> dict:
        counts = self.store.counts(self.embedder.name)
        files = (Path(f"{self.store.path}{suffix}") for suffix in ("", "-wal", "-shm"))
        size = sum(p.stat().st_size for p in files if p.exists())
        last = self.store.get_meta("last_sync")
        return {
            "vault": str(self.settings.vault),
            "index": str(self.store.path),
            "index_bytes": size,
            "model": self.embedder.name,
            "last_sync": float(last) if last else None,
            **counts,
        }

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> "Workspace":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
