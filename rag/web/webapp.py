"""What the browser app needs from the library, without Streamlit: the choices a person makes in the settings panel
turned into `Settings`, and which of them need their own index (`index_key`).

A session's answer settings (chat model, context limits) differ per person, but the index (one `rag.live.LiveIndex`
per vault, shared by every browser session), the embedder and the cached vectors are shared: a session sees them
through `rag.knowledge.Knowledge.for_settings`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path

from rag.config import Settings, check_setting, default_index_path
from rag.errors import ConfigError, VaultError
from rag.surface import check_vault

log = logging.getLogger(__name__)

# Settings that only shape answers (and the app's language): per session, no other index or embedder needed.
ANSWER_FIELDS = frozenset(
    {
        "ui_language",
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
    language: str = "auto"  # "auto", "en" or "ru"


VAULT_NOT_TYPED = "The vault path is empty. Type the folder that holds your notes (for example ~/Obsidian/MyVault)."
EMBEDDINGS_NEED_ENDPOINT = "OpenAI-compatible embeddings need an endpoint URL, or OPENAI_API_KEY in the environment or .streamlit/secrets.toml."

# The panel's number fields and the setting each one sets (the form's bounds are that setting's range).
NUMBERS = {"max_notes": "context_max_notes", "max_chunks_per_note": "context_max_chunks_per_note", "max_chars": "context_max_chars"}


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
        language=settings.ui_language,
    )


def apply_choices(base: Settings, choices: Choices) -> Settings:
    """`base` with the panel's choices. Raises VaultError / ConfigError whose message names the fix."""
    if not choices.vault.strip():
        raise VaultError(VAULT_NOT_TYPED)
    vault = Path(choices.vault.strip()).expanduser()
    check_vault(vault)
    vault = vault.resolve()
    db_path = base.db_path if vault == base.vault else default_index_path(vault)
    db_url = base.db_url if vault == base.vault else None  # a server database holds the configured vault's index only
    if choices.embedder not in ("local", "openai"):
        raise ConfigError(f"Embeddings must be 'local' or 'openai', not {choices.embedder!r}.")
    if choices.embedder == "openai" and not choices.endpoint.strip() and not base.openai_api_key:
        raise ConfigError(EMBEDDINGS_NEED_ENDPOINT)
    for field, setting in NUMBERS.items():  # the ranges rag.toml has, the error naming the setting
        check_setting(setting, getattr(choices, field))
    if choices.language not in ("auto", "en", "ru"):
        raise ConfigError(f"The language must be 'auto', 'en' or 'ru', not {choices.language!r}.")
    return base.replace(
        vault=vault,
        db_path=db_path,
        db_url=db_url,
        openai_base_url=choices.endpoint.strip() or None,
        chat_model=choices.chat_model.strip() or None,
        embedder=choices.embedder,
        embed_model=choices.embed_model.strip() or base.embed_model,
        context_max_notes=int(choices.max_notes),
        context_max_chunks_per_note=int(choices.max_chunks_per_note),
        context_max_chars=int(choices.max_chars),
        ui_language=choices.language,
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


@dataclass(frozen=True)
class Secrets:
    """`.streamlit/secrets.toml` values split by whose file they came from."""

    values: dict[str, str]  # top-level values of the user's own files, later files winning (Streamlit's order)
    ignored: dict[Path, dict[str, str]]  # a working folder's file: not the user's, never read for settings

    def distrusted(self) -> dict[str, str]:
        """The values only a working folder's file gives (a key the user's own file sets to the same stays)."""
        out = {k: v for values in self.ignored.values() for k, v in values.items()}
        return {k: v for k, v in out.items() if self.values.get(k) != v}


def split_secrets(files: list[Path], *, home: Path, app_folder: Path) -> Secrets:
    """Streamlit reads `secrets.toml` from ~/.streamlit, from the working folder and from the app's folder, and
    puts their values in the environment. A working folder is not the user's (an app started inside a cloned
    repository would send the key and the notes to the endpoint its file names): like a working-folder `rag.toml`,
    its secrets are not read. The user's own files are ~/.streamlit/ and the app's folder's .streamlit/."""
    own = {(home / ".streamlit").resolve(), (app_folder / ".streamlit").resolve()}
    values: dict[str, str] = {}
    ignored: dict[Path, dict[str, str]] = {}
    for path in files:
        if not path.is_file():
            continue
        try:
            parsed = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue  # Streamlit itself reports a file it cannot read
        scalars = {k: str(v) for k, v in parsed.items() if isinstance(v, (str, int, float)) and not isinstance(v, bool)}
        if path.resolve().parent in own:
            values.update(scalars)
        elif scalars:
            ignored[path] = scalars
    return Secrets(values, ignored)
