"""What the browser app needs from the library, without Streamlit: the choices a person makes in the settings panel
turned into `Settings`, and the index shared by every browser session (one workspace and one background indexer per
index, both thread-safe).

A session's answer settings (chat model, context limits) differ per person, but the index, the embedder and the
cached vectors are shared: `session_workspace` gives a session its own settings over the shared parts.
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
from dataclasses import dataclass, fields
from pathlib import Path

from rag.config import Settings
from rag.errors import ConfigError, VaultError
from rag.index.store import Store
from rag.index.vault import check_vault
from rag.index.watch import Watcher
from rag.web.ui_indexing import BackgroundIndexer
from rag.workspace import Workspace

log = logging.getLogger(__name__)

RECHECK_SECONDS = 10.0  # a page that reads the index first checks the vault for changes at most this often
# Settings that only shape answers: they are per session and do not need another index or embedder.
ANSWER_FIELDS = frozenset(
    {
        "chat_model",
        "context_max_chunks_per_note",
        "context_max_notes",
        "context_max_chars",
        "chat_context_tokens",
        "temperature",
        "max_answer_tokens",
        "seed",
        "answer_candidates",
        "history_turns",
        "request_timeout",
        "max_retries",
    }
)


@dataclass(frozen=True)
class Choices:
    """The settings panel's fields, as typed."""

    vault: str
    endpoint: str  # OpenAI-compatible base URL for chat (and for embeddings when `embedder` is "openai")
    chat_model: str  # empty → extractive answers
    embedder: str  # "local" or "openai"
    embed_model: str
    max_notes: int
    max_chunks_per_note: int
    max_chars: int


def choices_of(settings: Settings) -> Choices:
    return Choices(
        vault=str(settings.vault),
        endpoint=settings.openai_base_url or "",
        chat_model=settings.chat_model or "",
        embedder=settings.embedder,
        embed_model=settings.embed_model,
        max_notes=settings.context_max_notes,
        max_chunks_per_note=settings.context_max_chunks_per_note,
        max_chars=settings.context_max_chars,
    )


def apply_choices(base: Settings, choices: Choices) -> Settings:
    """`base` with the panel's choices. Raises VaultError / ConfigError whose message names the fix."""
    if not choices.vault.strip():
        raise VaultError("The vault path is empty. Type the folder that holds your notes (for example ~/Obsidian/MyVault).")
    vault = Path(choices.vault.strip()).expanduser()
    check_vault(vault)
    vault = vault.resolve()
    db_path = base.db_path if vault == base.vault else vault / ".rag" / "index.db"
    if choices.embedder not in ("local", "openai"):
        raise ConfigError(f"Embeddings must be 'local' or 'openai', not {choices.embedder!r}.")
    if choices.embedder == "openai" and not choices.endpoint.strip() and not base.openai_api_key:
        raise ConfigError("OpenAI-compatible embeddings need an endpoint URL, or OPENAI_API_KEY in the environment or .streamlit/secrets.toml.")
    if min(choices.max_notes, choices.max_chunks_per_note, choices.max_chars) < 1:
        raise ConfigError("Context limits must be at least 1.")
    return base.replace(
        vault=vault,
        db_path=db_path,
        openai_base_url=choices.endpoint.strip() or None,
        chat_model=choices.chat_model.strip() or None,
        embedder=choices.embedder,
        embed_model=choices.embed_model.strip() or base.embed_model,
        context_max_notes=int(choices.max_notes),
        context_max_chunks_per_note=int(choices.max_chunks_per_note),
        context_max_chars=int(choices.max_chars),
    )


def index_key(settings: Settings) -> str:
    """Identifies what a shared index depends on: everything but the answer settings (the API key only by hash)."""
    values = {}
    for f in fields(settings):
        if f.name in ANSWER_FIELDS:
            continue
        value = getattr(settings, f.name)
        if f.name == "openai_api_key":
            value = hashlib.sha256(value.encode()).hexdigest() if value else None
        values[f.name] = value
    return json.dumps(values, sort_keys=True, default=str, ensure_ascii=False)


class SharedIndex:
    """One vault's open index and its background indexer, shared by every session. Opening it starts a check of
    the vault in the background, so a missing index is built while the page is already usable."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.indexer = BackgroundIndexer(workspace)
        self.watcher: Watcher | None = None  # re-indexes a moment after notes are saved (rag.index.watch)

    @classmethod
    def open(cls, settings: Settings, *, embedder=None) -> SharedIndex:
        shared = cls(Workspace.open(settings, create=True, embedder=embedder))
        shared.workspace.keep_previous_model_serving()
        shared.indexer.start()
        try:  # a busy indexer returns False: the watcher asks again after the next quiet period
            shared.watcher = Watcher(settings, shared.indexer.start).start()
        except OSError as exc:  # no inotify watches left: the check before reads still catches changes
            log.warning("Not watching %s for changes (%s).", settings.vault, exc)
        return shared

    @property
    def store(self) -> Store:
        return self.workspace.store

    def refresh(self) -> None:
        """Before reading: look for edited notes in the background, at most every RECHECK_SECONDS."""
        self.indexer.start_if_stale(RECHECK_SECONDS)

    def session_workspace(self, settings: Settings) -> Workspace:
        """The shared workspace seen with one session's answer settings; store, embedder and retriever are shared.
        Never close it (that would close the shared store)."""
        view = copy.copy(self.workspace)
        view.settings = settings
        return view
