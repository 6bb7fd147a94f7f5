"""One question → an `Answer`: retrieve → frozen context → prompt → streamed reply → citations and claims checked.

With a chat model, the reply streams through a citation filter: every citation is checked against the frozen
context, unknown ids are removed before the person sees them and reported. Once the reply is complete, each of its
claims is checked against the passages (`grounding`): misattributed citations are corrected, missing ones added,
unsupported claims marked with the reason; an answer with no supported claim is "not found". Without a chat model
(the offline default, or on request), the answer is extractive: the best sentences of the context, quoted with their
ids (each a supported claim by construction). A follow-up question is first rewritten into a standalone search
query from the last few turns, then retrieval runs afresh.

The index is read only while retrieving (the hits are plain values once returned); building the context reads the
note files, and streaming touches neither, so indexing can go on during a long answer. Here: the answer's values and
the two ways to write one; what it is answered from is retrieval.py, the prompt and its room prompt.py, the model's
streamed reply streaming.py, an extractive answer's quotes quoted.py.
"""

from __future__ import annotations

import re
import threading
from dataclasses import asdict, dataclass, replace
from datetime import date
from typing import Callable, Iterable

from rag.answer import second_reading
from rag.answer.citations import CitationFilter, clean
from rag.answer.context import FrozenContext
from rag.answer.extractive import Quote, extract
from rag.answer.grounding import STATUSES, SUPPORTING, CheckedClaim, check
from rag.answer.prompt import CITATION, Turn, messages_for, prompt_room, source_budget
from rag.answer.quoted import quote_block, quoted_claims
from rag.answer.retrieval import frozen_context, read_in_period, retrieve_context, search_query, text_vectors
from rag.answer.streaming import streamed
from rag.chat.prompts import language_of, render
from rag.chat.protocol import ChatModel
from rag.embed.pairs import shared as pair_scorer
from rag.errors import PromptTooLong
from rag.notes.pdf import Place, page_json
from rag.search.filters import Filters
from rag.search.results import SearchResult, TimeScope
from rag.search.text_vectors import TextVectors
from rag.workspace import Workspace

# What `ask` is doing, for `on_stage`: the app says "searching your notes", then "waiting for the model" …
SEARCHING, EXTRACTING, GENERATING, CHECKING = "searching", "extracting", "generating", "checking"


class ModelReading(str):
    """The GENERATING stage with what the model reads first: how many sources, and the seconds that is expected to
    take before its first word (None: its speed is not known). A local CPU model can read for a minute or more."""

    sources: int
    seconds: float | None

    def __new__(cls, sources: int, seconds: float | None) -> ModelReading:
        stage = super().__new__(cls, GENERATING)
        stage.sources, stage.seconds = sources, seconds
        return stage


@dataclass(frozen=True)
class Citation:
    id: str
    path: str
    heading: str
    start_line: int
    end_line: int
    day: str | None = None  # ISO day the passage is from, when the note says it (not a file time)
    place: Place | None = None  # a PDF's passage: its page and the lines on it


@dataclass(frozen=True)
class Answer:
    question: str
    query: str  # what was searched: the question, or its standalone rewrite for a follow-up
    mode: str  # "llm" or "extractive"
    text: str
    citations: tuple[Citation, ...]  # valid citations, in order of first appearance
    context: FrozenContext
    removed_citations: tuple[str, ...]  # ids the model cited that were not in the context (never shown)
    not_found: bool
    quotes: tuple[Quote, ...] = ()  # extractive answers: the quoted sentences with their lines
    notice: str | None = None  # a retrieval channel was unavailable
    claims: tuple[CheckedClaim, ...] = ()  # each claim of the answer with its status against the sources
    abstained: bool = False  # the answer itself says the notes do not hold the answer
    truncated: bool = False  # the model stopped at max_answer_tokens
    time: TimeScope | None = None  # the time the search kept to (rag/search/when.py)
    window: int | None = None  # with a model: its context window in tokens, which the prompt was sized to
    translation: str | None = None  # the question as also searched in the vault's other language (translate_questions)

    @property
    def used(self) -> frozenset[str]:
        """The sources the answer quotes, cites or rests on; the rest of the context was searched, not used."""
        return frozenset(
            {c.id for c in self.citations}
            | {q.source_id for q in self.quotes}
            | {s for c in self.claims if c.status in SUPPORTING for s in c.sources}
        )

    def grounding(self) -> dict[str, int]:
        """How many claims are supported, misattributed (re-cited), uncited (cited now), unconfirmed (a source in another
        language) and unsupported."""
        counts = dict.fromkeys(STATUSES, 0)
        for c in self.claims:
            counts[c.status] += 1
        return counts

    def _claim_json(self, claim: CheckedClaim) -> dict:
        """A claim as `to_json` gives it; the evidence from a PDF with its page and the lines on it."""
        out = claim.to_json()
        for shown, e in zip(out["evidence"], claim.evidence):
            source = self.context.get(e.source)
            shown.update(page_json(source.place_of(e.start_line, e.end_line) if source is not None else None))
        return out

    def to_json(self) -> dict:
        return {
            "question": self.question,
            "mode": self.mode,
            "answer": self.text,
            "citations": [{**{k: v for k, v in asdict(c).items() if k != "place"}, **page_json(c.place)} for c in self.citations],
            "sources": [
                {
                    "id": s.id,
                    "path": s.path,
                    "heading": s.heading,
                    "start_line": s.start_line,
                    "end_line": s.end_line,
                    "chars": len(s.text),
                    "used": s.id in self.used,
                    "score": round(s.score, 4),
                    "day": s.day,
                    "day_source": s.day_source,
                    **page_json(s.place),
                }
                for s in self.context.sources
            ],
            "removed_citations": list(self.removed_citations),
            "dropped_sources": [{"path": d.path, "reason": d.reason} for d in self.context.dropped],
            "not_found": self.not_found,
            "claims": [self._claim_json(c) for c in self.claims],
            "grounding": self.grounding(),
            "truncated": self.truncated,
            "time": None if self.time is None else self.time.to_json(),
            "window": None if self.window is None else {"tokens": self.window, "sources_left_out": self.context.left_out},
        }


NOTICE_EMPTY_REPLY = "The chat model returned no answer text; this is the program's own reply."


def ask(
    workspace: Workspace,
    question: str,
    *,
    turns: Iterable[Turn] = (),
    chat: ChatModel | None = None,
    on_text: Callable[[str], None] | None = None,
    on_stage: Callable[[str], None] | None = None,
    today: date | None = None,
    filters: Filters = Filters(),
    stop: threading.Event | None = None,
) -> Answer:
    """Answer `question` from the vault (with `today`, the time it names narrows the search: rag/search/when.py;
    a date range in `filters` wins; `stop` set: the model's request is closed, AnswerStopped raised). With `chat`, the model writes the answer; without, it is extractive.
    `on_text` receives the answer as it streams (already citation-checked); the returned Answer holds it all, with
    its claims checked. `on_stage` hears SEARCHING, then EXTRACTING (no model) or GENERATING (the model is writing)
    and CHECKING."""
    settings = workspace.settings
    stage = on_stage or (lambda name: None)
    stage(SEARCHING)
    turns = tuple(turns)[-settings.history_turns :] if settings.history_turns > 0 else ()  # the last few, as set
    query = search_query(question, turns, chat=chat)
    budget = None if chat is None else source_budget(question, turns, prompt_room(chat.context_tokens, settings))
    result, context = retrieve_context(workspace, query, max_tokens=budget, today=today, filters=filters, chat=chat)
    emit = on_text or (lambda text: None)
    if chat is None:
        stage(EXTRACTING)
        newest = (result.time.before or today) if result.time is not None and result.time.newest_first else None
        answer = _extractive(question, query, context, workspace, emit, coverage=result.coverage, newest_until=newest, time=result.time)
    else:
        answer = _within_window(workspace, question, query, result, context, turns, chat, emit, stage=stage, stop=stop)
    answer = replace(answer, time=result.time, translation=result.translation)
    return answer if result.notice is None else replace(answer, notice=result.notice)


def _within_window(workspace: Workspace, question, query, result: SearchResult, context, turns, chat: ChatModel, emit, *, stage, stop) -> Answer:
    """The model's answer; when its server says the prompt was longer than its window (smaller than it said, or than
    set), once more with fewer sources, fitted to the window it named."""
    settings = workspace.settings
    try:
        answer = _generated(
            question, query, context, turns, chat, emit, stage=stage, vectors=text_vectors(workspace), stop=stop, second=settings.second_reading
        )
    except PromptTooLong as exc:
        chat.context_tokens = exc.window
        context = frozen_context(workspace, result, source_budget(question, turns, prompt_room(exc.window, settings)))
        answer = _generated(
            question, query, context, turns, chat, emit, stage=stage, vectors=text_vectors(workspace), stop=stop, second=settings.second_reading
        )
    return replace(answer, window=chat.context_tokens)


def _generated(
    question, query, context: FrozenContext, turns, chat: ChatModel, emit, *, stage, vectors: TextVectors, stop=None, second: bool = False
) -> Answer:
    if not context.sources:  # nothing to answer from: the model is not asked, so it cannot answer from memory
        return Answer(question, query, "llm", _not_found_text(question, emit), (), context, (), not_found=True)
    messages = messages_for(question, context, turns)
    reading = getattr(chat, "reading_seconds", None)
    stage(ModelReading(len(context.sources), reading(messages) if reading else None))
    cleaned, truncated = streamed(chat, messages, CitationFilter(context.ids), emit, stop)
    if not re.search(r"\w", CITATION.sub("", cleaned.text)):  # an empty reply, or citations alone: nothing to show or check
        text = _not_found_text(question, emit)
        return Answer(question, query, "llm", text, (), context, cleaned.removed, not_found=True, notice=NOTICE_EMPTY_REPLY, truncated=truncated)
    stage(CHECKING)
    reread = second_reading.reader(chat, context) if second else None
    grounded = check(cleaned.text.strip(), context, question=question, vectors=vectors, pairs=pair_scorer(), reread=reread)
    citations = tuple(_citation(context, i) for i in clean(grounded.text, context.ids).cited)  # as now shown
    found = {"not_found": not grounded.grounded, "claims": grounded.claims, "abstained": grounded.abstains, "truncated": truncated}
    return Answer(question, query, "llm", grounded.text, citations, context, cleaned.removed, **found)


def _extractive(
    question,
    query,
    context: FrozenContext,
    workspace: Workspace,
    emit,
    *,
    coverage: float | None = None,
    newest_until: date | None = None,
    time: TimeScope | None = None,
) -> Answer:
    coverage = 1.0 if coverage is None else coverage
    read_as, period = read_in_period(question, time)
    found = extract(read_as, context, vectors=text_vectors(workspace), coverage=coverage, newest_until=newest_until, period=period)
    if found.not_found:
        return Answer(question, query, "extractive", _not_found_text(question, emit), (), context, (), not_found=True)
    lang = language_of(question)
    blocks = [quote_block(q, context.get(q.source_id), lang) for q in found.quotes]
    text = render(f"extractive.{lang}", quotes="\n\n".join(blocks)).strip()
    emit(text)
    cited = dict.fromkeys(q.source_id for q in found.quotes)
    citations = tuple(_citation(context, i) for i in cited)
    return Answer(
        question,
        query,
        "extractive",
        text,
        citations,
        context,
        (),
        not_found=False,
        quotes=found.quotes,
        claims=quoted_claims(text, blocks, found.quotes),
    )


def _not_found_text(question: str, emit) -> str:
    text = render(f"not_found.{language_of(question)}").strip()
    emit(text)
    return text


def _citation(context: FrozenContext, source_id: str) -> Citation:
    s = context.get(source_id)
    return Citation(s.id, s.path, s.heading, s.start_line, s.end_line, s.dated.isoformat() if s.dated else None, s.place)
