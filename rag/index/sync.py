"""Make the index match the vault, incrementally.

Unchanged files cost a stat (mtime and size); a changed stat costs a hash; only changed content is re-chunked,
and only chunks whose text is new are embedded (vectors are keyed by content, so edits, moves and renames reuse
them). Each file's text lands in one transaction, so a killed run leaves a consistent index that the next run
completes. Text is keyword-searchable as soon as its transaction commits; vectors follow in bounded batches.
"""

from __future__ import annotations

import errno
import json
import logging
import time
from dataclasses import asdict, dataclass, field
from typing import Callable

from rag.config import Settings
from rag.embed.embedders import Embedder
from rag.errors import DiskFull, NoteError, RagError
from rag.index import repair
from rag.index.backfill import Backfilled, backfill
from rag.index.chunking import HEADING_PATH_VERSION, SEPARATOR, Chunk, chunk_note, note_title
from rag.index.records import FileInfo, FileState, NoteFields
from rag.index.storage import IndexStore
from rag.index.sync_state import read_skipped, remember_skipped, skipped_notes, still_skipped
from rag.notes import pdf
from rag.notes.dates import note_date, passage_time
from rag.notes.vault import FileStat, Frontmatter, parse_frontmatter, project_of, read_note, tier_of, walk
from rag.text import sentences, stemming

log = logging.getLogger(__name__)

# progress(stage, done, total): stage is "read" (changed files) or "embed" (vectors)
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class SyncReport:
    files_added: int = 0
    files_updated: int = 0
    files_removed: int = 0
    files_unchanged: int = 0
    chunks_total: int = 0
    chunks_embedded: int = 0
    chunks_reused: int = 0
    sentences_embedded: int = 0
    vectors_missing: int = 0
    seconds: float = 0.0
    skipped: tuple[tuple[str, str], ...] = field(default_factory=tuple)  # (path, reason)
    embed_error: str | None = None

    def to_json(self) -> dict:
        data = asdict(self)
        data["skipped"] = [{"path": p, "reason": r} for p, r in self.skipped]
        return data


@dataclass
class _Tally:
    added: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0
    reused: int = 0
    skipped: list = field(default_factory=list)


PDF_READING_KEY = "pdf_reading"  # the PDF reader's version the index's PDFs were read with (rag/notes/pdf.py)
# What a note's keyword fields hold (see `keyword_fields`); part of the rules, so an index made before them, or by
# another version, re-derives every note once (its vectors are reused: chunk texts do not change). 2: the sounds
# of each chunk (schema migration 9).
KEYWORD_FIELDS_VERSION = 2
# How a passage's day is read (rag/notes/dates.py); part of the rules like the keyword fields.
DATES_VERSION = 2  # 2: a dated heading inside a passage adds its day


def sync(settings: Settings, store: IndexStore, embedder: Embedder, *, progress: Progress | None = None, embed: bool = True) -> SyncReport:
    """Bring `store` in line with the vault. With `embed=False`, only text is indexed (vectors are left missing).
    Raises DiskFull, saying what the index holds, when the disk fills up: every write is one transaction (a note, a
    batch of vectors), so what was written stays whole and the rest is done by the next run."""
    try:
        return _sync(settings, store, embedder, progress=progress, embed=embed)
    except DiskFull as exc:
        raise DiskFull(_stopped_full(store, embedder)) from exc
    except OSError as exc:  # the lock file beside the index, a note's folder
        if exc.errno != errno.ENOSPC:
            raise
        raise DiskFull(_stopped_full(store, embedder)) from exc


# Messages the app recognises and says in its own words (rag/web/messages.py): keep them in step.
DISK_FULL = "The disk is full: indexing stopped, and the index is intact ({held}). Free space and run `python -m rag index` again."
INDEX_HELD = "{notes} notes indexed, {embedded} of {chunks} passages embedded"
INDEX_HELD_UNKNOWN = "what was written before stays"


def _stopped_full(store: IndexStore, embedder: Embedder) -> str:
    """The one line for a sync the full disk stopped, with what the index holds (reads work on a full disk)."""
    try:
        counts = store.counts(embedder.name)
        held = INDEX_HELD.format(notes=counts["notes"], embedded=counts["vectors_present"], chunks=counts["chunks"])
    except RagError:
        held = INDEX_HELD_UNKNOWN
    return DISK_FULL.format(held=held)


def _sync(settings: Settings, store: IndexStore, embedder: Embedder, *, progress: Progress | None, embed: bool) -> SyncReport:
    started = time.perf_counter()
    progress = progress or (lambda stage, done, total: None)
    tally = _Tally()
    # The index's list before the folder's: a note another indexer adds in between is then new to this sync (read
    # again, harmless), never "gone" from a list read after it was indexed (which would remove it).
    known = store.file_states()
    on_disk = walk(settings)
    rules, previous = _rules(settings, embedder), store.get_meta("rules")
    redo = previous is not None and previous != rules  # chunk sizes, tiers or projects changed: redo every note
    skipped_before, readable = read_skipped(store)
    changed, reading, read_before = _to_read(store, on_disk, known, skipped_before, redo=redo)
    reading_now = {s.path for s in changed}
    skipped_still = sum(1 for s in on_disk if s.path not in known and still_skipped(skipped_before, s) and s.path not in reading_now)
    tally.unchanged = len(on_disk) - len(changed) - skipped_still
    _keep_sentence_rows_current(settings, store)
    for done, stat in enumerate(changed, 1):
        _sync_file(settings, store, embedder, stat, known.get(stat.path), tally, redo=redo)
        progress("read", done, len(changed))
    if previous != rules:
        store.set_meta("rules", rules)
    if read_before != reading:
        store.set_meta(PDF_READING_KEY, reading)
    if redo and changed:
        store.merge_keyword_index()  # every FTS row was deleted and written again (SciFact: 10-12 → 8 ms a keyword query)
    remember_skipped(store, skipped_before if readable else None, tally.skipped, on_disk, changed)
    gone = sorted(set(known) - {s.path for s in on_disk})
    if gone:
        store.remove_files(gone)
        tally.removed += len(gone)
    done = _embed(settings, store, embedder, progress) if embed else Backfilled(0, 0, None)
    counts = store.counts(embedder.name)
    if counts["vectors_missing"] == 0:
        store.set_meta("embed_model", embedder.name)  # the serving model switches only once its vectors are complete
    store.set_meta("last_sync", str(time.time()))
    return _report(store, tally, done, counts, started)


def _to_read(
    store: IndexStore, on_disk: list[FileStat], known: dict[str, FileState], skipped_before: dict, *, redo: bool
) -> tuple[list[FileStat], str, str | None]:
    """(the files to read, the PDF reader's version now, the version the index's PDFs were read with)."""
    # A note skipped before (binary, too large, not UTF-8) is not read again until it changes: one warning, not one a sync.
    changed = on_disk if redo else [s for s in on_disk if _stat_changed(known.get(s.path), s) and not still_skipped(skipped_before, s)]
    reading, read_before = pdf.reading_version(), store.get_meta(PDF_READING_KEY)
    if read_before != reading and not redo:  # the PDF reader changed since: every PDF is read again, and only they
        again = {s.path for s in changed}
        changed = changed + [s for s in on_disk if s.path.lower().endswith(pdf.SUFFIX) and s.path not in again]
    return changed, reading, read_before


def _embed(settings: Settings, store: IndexStore, embedder: Embedder, progress: Progress) -> Backfilled:
    """`rag index`'s vector phase: what search had to leave out is computed again, the missing vectors are embedded,
    and once that went through, vectors no chunk uses are dropped."""
    repair.repair_generation(store)
    repair.drop_unreadable(store, embedder)
    done = backfill(store, embedder, batch_size=settings.embed_batch_size, progress=progress, token_states=settings.token_match)
    if done.error is None:
        store.drop_orphan_vectors()
    return done


def _report(store: IndexStore, tally: _Tally, done: Backfilled, counts: dict, started: float) -> SyncReport:
    return SyncReport(
        files_added=tally.added,
        files_updated=tally.updated,
        files_removed=tally.removed,
        files_unchanged=tally.unchanged,
        chunks_total=counts["chunks"],
        chunks_embedded=done.chunks,
        chunks_reused=tally.reused,
        sentences_embedded=done.sentences,
        vectors_missing=counts["vectors_missing"],
        seconds=round(time.perf_counter() - started, 3),
        skipped=tuple((path, reason) for path, (_, _, reason) in sorted(skipped_notes(store).items())),
        embed_error=done.error,
    )


def _stat_changed(state: FileState | None, stat: FileStat) -> bool:
    return state is None or state.mtime != stat.mtime or state.size != stat.size


def _rules(settings: Settings, embedder: Embedder) -> str:
    """The settings a note's chunks and file row are derived from, besides its text."""
    return json.dumps(
        [
            settings.chunk_target_tokens,
            settings.chunk_hard_tokens,
            settings.chunk_min_tokens,
            embedder.window,
            settings.tier1_folders,
            settings.tier1_files,
            settings.projects_folder,
            sorted(settings.project_aliases.items()),
            HEADING_PATH_VERSION,
            KEYWORD_FIELDS_VERSION,
            DATES_VERSION,
        ],
        ensure_ascii=False,
    )


def _sync_file(
    settings: Settings, store: IndexStore, embedder: Embedder, stat: FileStat, old: FileState | None, tally: _Tally, *, redo: bool = False
) -> None:
    try:
        note = read_note(
            settings.vault, stat.path, outside=settings.outside_folders, max_bytes=settings.max_note_bytes, max_pdf_bytes=settings.max_pdf_bytes
        )
    except NoteError as exc:
        log.warning("%s", exc)
        tally.skipped.append((stat.path, str(exc)))
        if old is not None:  # its old text no longer matches the file: it must not be served
            store.remove_files([stat.path])
            tally.removed += 1
        return
    state = FileState(stat.path, note.sha256, note.mtime, note.size)
    if old is not None and old.sha256 == note.sha256 and not redo:
        store.touch_file(stat.path, note.mtime, note.size, sha256=note.sha256)
        tally.unchanged += 1
        return
    frontmatter = parse_frontmatter(note.text)  # once: the chunks, the note's fields and its day read it
    chunks = chunk_note(
        stat.path,
        note.text,
        count_tokens=embedder.count_tokens,
        target=settings.chunk_target_tokens,
        hard=min(settings.chunk_hard_tokens, embedder.window),
        min_tokens=settings.chunk_min_tokens,
        pages=stat.path.lower().endswith(pdf.SUFFIX),
        frontmatter=frontmatter,
    )
    info = _file_info(settings, note.path, frontmatter, note.sha256, note.text)
    stems = [stemming.index_text(_keyword_text(c, info.title)) for c in chunks]
    units = [sentences.for_vectors(c.text, c.start_line) for c in chunks] if settings.sentence_vectors else None
    day = note_date(stat.path, frontmatter.data, note.mtime)
    days = [passage_time(day, tuple(c.heading_path.split(SEPARATOR)), c.text) for c in chunks]
    store.replace_file(state, info, chunks, stems, units, fields=keyword_fields(info), days=days)
    tally.reused += len(store.known_vector_keys(embedder.name, [c.vector_key for c in chunks]))
    if old is None:
        tally.added += 1
    else:
        tally.updated += 1


def _file_info(settings: Settings, path: str, fm: Frontmatter, sha256: str, text: str) -> FileInfo:
    if fm.error:
        log.warning("%s: %s; the note body is indexed anyway.", path, fm.error)
    elif fm.warning:
        log.warning("%s: %s.", path, fm.warning)
    project = project_of(path, settings) or (settings.project_aliases.get(fm.project, fm.project) if fm.project else None)
    problem = fm.error or fm.warning
    return FileInfo(
        path, sha256, note_title(path, text, frontmatter=fm), fm.tags, fm.aliases, tier_of(path, settings), project, problem, fm.description
    )


def keyword_fields(info: FileInfo) -> NoteFields:
    """A note's title (its frontmatter title, first H1 or file name), aliases and description, stemmed like its text:
    keyword fields of every one of its chunks, so the passage that also matches the rest of a query wins."""
    return stemming.index_text(info.title or ""), stemming.index_text(" ".join(info.aliases)), stemming.index_text(info.description or "")


def _keyword_text(chunk: Chunk, title: str | None) -> str:
    """A chunk's text for the keyword index: its `index_text` without the note's title leading its heading context.
    The title field holds it; counted in both, it would lengthen every passage (BM25 reads that as diluted text)."""
    for end in ("\n\n", SEPARATOR):
        if title and chunk.index_text.startswith(title + end):
            return chunk.index_text[len(title) :]
    return chunk.index_text


def _keep_sentence_rows_current(settings: Settings, store: IndexStore) -> None:
    """Sentence rows and scripts follow the setting and the splitter's version: an index made before them, or by
    another version, is re-derived here from the stored chunk texts (vectors of unchanged sentences are reused)."""
    wanted = sentences.VERSION if settings.sentence_vectors else f"off-{sentences.VERSION}"
    if store.get_meta("sentences") == wanted:
        return
    rows = store.chunk_texts()
    for i in range(0, len(rows), 2000):
        store.replace_sentences(
            [
                (rowid, sentences.script(text), sentences.for_vectors(text, line) if settings.sentence_vectors else [])
                for rowid, text, line in rows[i : i + 2000]
            ]
        )
    store.set_meta("sentences", wanted)
