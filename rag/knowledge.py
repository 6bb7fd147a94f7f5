"""`Knowledge`: what the adapters (the app, the CLI, the MCP server) may do with a vault — search, ask, read, similar
notes, projects, status — over one `rag.live.LiveIndex`. Adapters talk to this, never to `Store`, `Retriever` or
`VectorIndex`.

Every read first lets the live index check the vault: waiting for the check (`reads_wait`, the MCP server and the
CLI, whose callers expect a note saved a second ago) or only asking the indexer to look (the app, whose pages must
never wait). The chat model is made and closed here, once per answer. Note vectors (for similar notes and
duplicates) are computed once per change of the index and shared by every view of the same index. Status is the live
index's cached counts. Every write made here (notes, commits, agent memory) is re-indexed here, by `changed`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from datetime import date

from rag import projects as project_notes
from rag.answer.ask import Answer, Turn, ask
from rag.chat.configured import make_chat_model
from rag.config import Settings
from rag.errors import RagError
from rag.index.records import FileInfo
from rag.limits import check_query
from rag.live import LiveIndex, Progress
from rag.memory import AgentMemory, FactCache
from rag.notes import files as notes
from rag.search.by_note import FilterChoices, NoteResults, filter_choices, search_notes
from rag.search.filters import Filters
from rag.search.results import SearchResult, relevant
from rag.search.similar import (
    DUPLICATE_OVERLAP,
    DUPLICATE_THRESHOLD,
    DuplicatePair,
    Neighbour,
    NoteVectors,
    duplicate_pairs,
    note_vectors,
    similar_notes,
)
from rag.search.when import timed_hybrid, today_for
from rag.workspace import Workspace

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SavedNote(notes.Written):
    """A note written through `Knowledge`: what was written, and whether the index already holds it."""

    indexed: bool = False  # if False, the background indexer adds it within seconds


class _NoteVectorCache:
    """Note vectors of one index, recomputed when the store's generation or the model changes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._key: tuple | None = None
        self._vectors: NoteVectors | None = None

    def get(self, ws: Workspace) -> NoteVectors:
        key = (ws.store.generation(), ws.embedder.name)
        with self._lock:
            if self._key != key or self._vectors is None:
                self._vectors, self._key = note_vectors(ws.store, ws.embedder.name), key
            return self._vectors


class Knowledge:
    """One vault's knowledge for an adapter. `for_settings` gives a session its answer settings over the same index."""

    def __init__(
        self,
        live: LiveIndex,
        *,
        settings: Settings | None = None,
        reads_wait: bool = True,
        _vectors: _NoteVectorCache | None = None,
        _scripts: dict | None = None,
        _facts: FactCache | None = None,
    ) -> None:
        self.live = live
        self.settings = settings or live.settings
        self.reads_wait = reads_wait
        self._vectors = _vectors or _NoteVectorCache()
        self._scripts = _scripts if _scripts is not None else {}  # the script shares at a store generation, shared
        self._facts = _facts or FactCache()  # agent memory's facts of the current index generation, shared
        if _facts is None:  # the first view of this index: the indexer brings the fact table up to date after each pass
            live.after_indexing(lambda ws, progress: self._facts.embed_missing(ws, ws.settings.memory_hrr_dim, progress=progress))

    def for_settings(self, settings: Settings) -> Knowledge:
        """The same index with another session's answer settings (chat model, context limits)."""
        return Knowledge(self.live, settings=settings, reads_wait=self.reads_wait, _vectors=self._vectors, _scripts=self._scripts, _facts=self._facts)

    @property
    def memory(self) -> AgentMemory:
        """Agent memory: facts in Memory/Facts/ to remember, recall, vote on, probe by entity, update and archive."""
        return AgentMemory(self._ws, self._facts, self.changed)

    # --- the index ----------------------------------------------------------------------------------------------

    def _ws(self) -> Workspace:
        ws = self.live.fresh() if self.reads_wait else self.live.check_soon()
        return ws if ws.settings is self.settings else ws.with_settings(self.settings)

    def status(self) -> dict:
        return self.live.status()

    def progress(self) -> Progress:
        return self.live.progress()

    def recovered_from(self):
        """Where a damaged index was moved to when it was rebuilt (None if it was not)."""
        return self.live.workspace().recovered_from

    def index(self, *, progress=None):
        """Bring the index in line with the vault now, vectors included, waiting for it (the `rag index` command);
        agent memory's fact table too, so the first recall after a large import does not embed every fact."""
        ws = self.live.workspace()
        report = ws.sync(progress=progress)
        self._facts.embed_missing(ws, ws.settings.memory_hrr_dim, progress=progress)
        return report

    def compact(self) -> int:
        """Give back the space the index file no longer uses, when it is worth it (after `index`); bytes freed."""
        return self.live.workspace().store.compact()

    def index_parts(self) -> dict[str, int]:
        """The index's bytes on disk by part: text, vectors, vocabulary, token_states, sentence_readings, free."""
        return self.live.workspace().store.size_by_part()

    def reindex(self, *, full: bool = False):
        return self.live.reindex(full=full)

    def check_now(self) -> None:
        """Ask the indexer to look at the vault now (the app's "Re-index" button); returns at once."""
        self.live.check_soon(now=True)

    # --- search -------------------------------------------------------------------------------------------------

    def search(self, query: str, k: int = 10, *, filters: Filters = Filters(), everything: bool = False, read_time: bool = True) -> SearchResult:
        """Keyword and meaning search fused (hybrid): up to `k` hits that reach the relevance floor (`everything`, or
        filters that already narrow the notes: all `k`, however weak). The time the query names ("last week", «в
        марте») filters it unless `read_time` is False (rag/search/when.py); `result.time` says what was kept to."""
        check_query(query)
        result = timed_hybrid(self._ws().retriever, query, k, today=self._today(read_time), filters=filters)
        narrowed = filters.active or (result.time is not None and result.time.narrows)
        return result if everything or narrowed else relevant(result)

    def keyword_search(self, query: str, k: int = 10, *, filters: Filters = Filters()) -> SearchResult:
        check_query(query)
        return self._ws().retriever.keyword(query, k, filters=filters)

    def meaning_search(self, query: str, k: int = 10, *, filters: Filters = Filters()) -> SearchResult:
        check_query(query)
        return self._ws().retriever.dense(query, k, filters=filters)

    def search_notes(
        self, query: str, filters: Filters = Filters(), *, notes: int = 10, passages: int = 3, everything: bool = False, read_time: bool = True
    ) -> NoteResults:
        """The best notes for `query` that pass `filters` (and the time it names, unless `read_time` is False), each
        with its best passages that reach the relevance floor (`everything`: however weak)."""
        check_query(query)
        narrowed = everything or filters.active  # a few filtered notes put fewer candidates behind each z-score
        today = self._today(read_time)
        return search_notes(self._ws().retriever, query, filters, notes=notes, passages=passages, relevant_only=not narrowed, today=today)

    def _today(self, read_time: bool) -> date | None:
        return today_for(self.settings) if read_time else None

    def files(self) -> list[FileInfo]:
        return self.live.workspace().store.files()

    def titles(self) -> dict[str, str]:
        return {f.path: f.title or f.path for f in self.files()}

    def script_shares(self) -> dict[str, int]:
        """Characters of indexed text per script ("latin", "cyrillic"), for choosing the app's language."""
        store = self.live.workspace().store
        generation = store.generation()
        if self._scripts.get("generation") != generation:
            self._scripts.update(generation=generation, shares=store.script_shares())
        return self._scripts["shares"]

    def filter_choices(self) -> FilterChoices:
        return filter_choices(self.live.workspace().store)

    # --- answers ------------------------------------------------------------------------------------------------

    def ask(
        self,
        question: str,
        *,
        turns: Iterable[Turn] = (),
        extractive: bool = False,
        on_text: Callable[[str], None] | None = None,
        on_stage: Callable[[str], None] | None = None,
        read_time: bool = True,
        filters: Filters = Filters(),
        stop: threading.Event | None = None,
    ) -> Answer:
        """Answer from the notes: with the configured chat model (made and closed here), else — or with
        `extractive` — by quoting them. The time the question names narrows the search unless `read_time` is False;
        a date range in `filters` wins over it."""
        check_query(question, what="question")
        chat = None if extractive else make_chat_model(self.settings)
        try:
            today = self._today(read_time)
            return ask(self._ws(), question, turns=turns, chat=chat, on_text=on_text, on_stage=on_stage, today=today, filters=filters, stop=stop)
        finally:
            if chat is not None:
                chat.close()

    # --- similar notes ------------------------------------------------------------------------------------------

    def note_vectors(self) -> NoteVectors:
        return self._vectors.get(self._ws())

    def similar(self, path: str, limit: int = 8) -> list[Neighbour]:
        """The notes nearest to `path`, best first, each with its cosine, closeness label, percentile and text overlap."""
        ws = self._ws()
        return similar_notes(ws.store, ws.embedder.name, path, limit, vectors=self._vectors.get(ws))

    def duplicates(self, threshold: float = DUPLICATE_THRESHOLD, *, min_overlap: float = DUPLICATE_OVERLAP) -> list[DuplicatePair]:
        """Near-duplicate pairs: cosine ≥ `threshold` and at least `min_overlap` of the shorter note's text in the other."""
        ws = self._ws()
        return duplicate_pairs(ws.store, ws.embedder.name, threshold, min_overlap=min_overlap, vectors=self._vectors.get(ws))

    # --- notes and projects (for agents) ------------------------------------------------------------------------

    def read(
        self, path: str, *, start_line: int | None = None, end_line: int | None = None, page: int | None = None, end_page: int | None = None
    ) -> notes.NoteText:
        return notes.read_text(self.settings, path, start_line=start_line, end_line=end_line, page=page, end_page=end_page)

    def write(self, path: str, content: str, *, expected_sha256: str | None = None, tool: str = "write") -> SavedNote:
        return self._saved(notes.write_note(self.settings, path, content, expected_sha256=expected_sha256, tool=tool))

    def append(self, path: str, text: str, *, expected_sha256: str | None = None, tool: str = "append") -> SavedNote:
        return self._saved(notes.append_note(self.settings, path, text, expected_sha256=expected_sha256, tool=tool))

    def resolve_project(self, name: str) -> str:
        return project_notes.resolve_project(self.settings, self._ws().store, name)

    def list_projects(self) -> list:
        return project_notes.list_projects(self.settings, self._ws().store)

    def project_context(self, project: str, *, max_chars: int = project_notes.CONTEXT_MAX_CHARS) -> project_notes.ProjectContext:
        return project_notes.project_context(self.settings, self._ws().store, project, max_chars=max_chars)

    def list_notes(self, folder: str | None = None, *, limit: int = 500) -> project_notes.NoteList:
        return project_notes.list_notes(self.settings, self._ws().store, folder, limit=limit)

    def commit(self, kind: str, title: str, body: str, *, project: str | None = None) -> SavedNote:
        """A dated decision ("decision") or work-session ("session") note."""
        record = project_notes.commit_decision if kind == "decision" else project_notes.commit_session
        return self._saved(record(self.settings, self.live.workspace().store, title, body, project=project))

    def changed(self) -> bool:
        """After a write (every write of this class and of `memory` calls it): re-index now; True if the index holds
        the change. The write stands whatever happens here: an index that cannot take it now is logged and gives False
        (the background indexer catches up)."""
        try:
            return self.live.changed()
        except RagError as exc:
            log.warning("A note was written but could not be re-indexed now: %s", exc)
            return False

    def _saved(self, written: notes.Written) -> SavedNote:
        return SavedNote(**asdict(written), indexed=self.changed())
