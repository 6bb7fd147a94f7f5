"""What the index keeps of a note, whichever backend holds it: the file's state and what was read from it, its stored
chunks, and their rows as both backends write them. Pure; the SQLite store (`store`) and the PostgreSQL one
(`pg_store`) share it."""

from __future__ import annotations

import enum
import json
import time
from dataclasses import dataclass

from rag.text.sentences import script
from rag.text.sounds import sound_text

# The vault's vocabulary embedded word by word (rag/index/vocabulary.py) is kept in `embeddings` under the model name
# WORD_MODELS + the embedder's name: apart from the chunks' vectors (no HNSW index, no orphan cleanup by chunk keys).
WORD_MODELS = "words:"


class PerChunk(enum.Enum):
    """What the index keeps per chunk text besides its vector, each in its own table (the value), keyed like vectors
    by the text's vector key and the model that computed it."""

    TOKEN_STATES = "token_states"  # the embedding model's token states (rag/index/token_blobs.py, search/token_match.py)
    SENTENCE_READINGS = "sentence_readings"  # the aligned model's vectors of the chunk's sentences (rag/embed/aligned.py)


@dataclass(frozen=True)
class FileState:
    path: str
    sha256: str
    mtime: float
    size: int


@dataclass(frozen=True)
class FileInfo:
    path: str
    sha256: str
    title: str | None
    tags: tuple[str, ...]
    aliases: tuple[str, ...]
    tier: int
    project: str | None
    frontmatter_error: str | None = None
    description: str | None = None  # frontmatter `description`


# A note's (title, aliases, description) stems: FTS5 columns of each of its chunks, weighted by `schema.BM25_RANK`.
NoteFields = tuple[str, str, str]


@dataclass(frozen=True)
class FactRow:
    """Agent memory's fact table as the index keeps it: one fact note as last read (`rag/memory/table.py` writes the
    record and reads it back; the index only stores it)."""

    path: str
    sha256: str  # of the note the record was read from: a changed note is read again
    record: str  # JSON: the fact, its stems and entity keys
    hrr: bytes  # uint8 phases
    model: str | None = None  # the embedder of `meaning` (None: not embedded yet)
    meaning: bytes | None = None  # float32
    reading: bytes | None = None  # float32, the aligned model's (rag/memory/meaning.py); None: not read yet


@dataclass(frozen=True)
class StoredChunk:
    rowid: int
    id: str
    path: str
    heading_path: str
    start_line: int
    end_line: int
    start_char: int
    end_char: int
    text: str
    sha256: str
    tier: int
    project: str | None
    day: str | None = None  # ISO date the passage is from (rag/notes/dates.py), None if nothing dates it
    day_source: str | None = None  # where the day was read: one of dates.SOURCES ("file time" is the weakest)


# Open ends of a day range, as ISO text (days are compared as text in both backends).
DAY_MIN, DAY_MAX = "0000-01-01", "9999-12-31"

CHUNK_COLUMNS = (
    # SQLite keeps a chunk's sha256 '' when it is its vector key (its text is its index text: rag/index/text_rows.py)
    "c.rowid, c.id, c.path, c.heading_path, c.start_line, c.end_line, c.start_char, c.end_char, c.text,"
    " COALESCE(NULLIF(c.sha256, ''), c.vector_key), f.tier, f.project,"
    " c.day, c.day_source"
)
FILE_COLUMNS = "path, sha256, title, tags, aliases, tier, project, frontmatter_error, description"


def file_info(r) -> FileInfo:
    return FileInfo(r[0], r[1], r[2], tuple(json.loads(r[3])), tuple(json.loads(r[4])), r[5], r[6], r[7], r[8])


def file_row(state: FileState, info: FileInfo) -> tuple:
    tags, aliases = json.dumps(info.tags, ensure_ascii=False), json.dumps(info.aliases, ensure_ascii=False)
    s, i = state, info
    return (s.path, s.sha256, s.mtime, s.size, i.title, tags, aliases, i.tier, i.project, i.frontmatter_error, time.time(), i.description)


def chunk_row(chunk, path: str, ordinal: int, time=None) -> tuple:
    """A chunk's row; `time` is its `dates.PassageTime` (or None)."""
    c, dated = chunk, time.dated if time else None
    return (
        c.id,
        path,
        ordinal,
        c.heading_path,
        c.start_line,
        c.end_line,
        c.start_char,
        c.end_char,
        c.text,
        c.sha256,
        c.tokens,
        c.index_text,
        c.vector_key,
        script(c.text),
        _iso(dated.day if dated else None),
        dated.source if dated else None,
    )


def _iso(day) -> str | None:
    return day.isoformat() if day else None


def chunk_sounds(chunk, info: FileInfo) -> str:
    """A chunk's row of the keyword channel between scripts: its indexed text, its note's title and aliases, as
    sounds and numbers (rag/text/sounds.py)."""
    return sound_text(" ".join([chunk.index_text, info.title or "", *info.aliases]))
