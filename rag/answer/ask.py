"""One question → an `Answer`: retrieve → frozen context → prompt → streamed reply → citations and claims checked.

With a chat model, the reply streams through a citation filter: every citation is checked against the frozen
context, unknown ids are removed before the person sees them and reported. Once the reply is complete, each of its
claims is checked against the passages (`grounding`): misattributed citations are corrected, missing ones added,
unsupported claims marked with the reason; an answer with no supported claim is "not found". Without a chat model
(the offline default, or on request), the answer is extractive: the best sentences of the context, quoted with their
ids (each a supported claim by construction). A follow-up question is first rewritten into a standalone search
query from the last few turns, then retrieval runs afresh.

The index is read only while retrieving (the hits are plain values once returned); building the context reads the
note files, and streaming touches neither, so indexing can go on during a long answer.
"""

from __future__ import annotations

import re
import threading
from dataclasses import asdict, dataclass, replace
from datetime import date
from typing import Callable, Iterable

from rag.answer import reader, replies, second_reading
from rag.answer.chat import ChatModel, Message
from rag.answer.citations import CitationFilter, clean
from rag.answer.context import ContextLimits, FrozenContext, Source, build_context, fence_for, render_sources
from rag.answer.extractive import Quote, extract
from rag.answer.grounding import STATUSES, SUPPORTING, CheckedClaim, Evidence, check
from rag.answer.prompts import LANGUAGE_NAMES, language_of, render
from rag.answer.translation import merge, translated_question
from rag.embed.pairs import shared as pair_scorer
from rag.errors import AnswerStopped, ChatError, PromptTooLong
from rag.notes.dates import full_date
from rag.notes.pdf import Place, page_json
from rag.search.filters import Filters
from rag.search.results import SearchResult, TimeScope
from rag.search.text_vectors import TextVectors
from rag.search.when import timed_hybrid
from rag.text import stemming
from rag.text.date_labels import day_label
from rag.tokens import count_tokens
from rag.workspace import Workspace

MESSAGE_OVERHEAD_TOKENS = 8  # per chat message (role, separators), plus a margin for the per-context fence
# Of the model's window, the share the prompt may fill: our tokenizer (cl100k) is not the model's, and a prompt one
# token too long is cut at its start by Ollama's OpenAI endpoint, or refused by llama.cpp.
WINDOW_SHARE = 0.9
TURN_CHARS = 600  # of each earlier answer kept for query rewriting and as background
_CITATION = re.compile(r"\s*\[S\d+\]")
_WIKILINK = re.compile(r"\[\[[^\]]*\]\]")  # a link's target names another note, not this line's day
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
class Turn:
    question: str
    answer: str


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
    history: Iterable[Turn] = (),
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
    turns = tuple(history)[-settings.history_turns :] if settings.history_turns > 0 else ()
    query = search_query(question, turns, chat=chat)
    budget = None if chat is None else _source_budget(question, turns, _prompt_room(chat.context_tokens, settings))
    result, context = retrieve_context(workspace, query, max_tokens=budget, today=today, filters=filters, chat=chat)
    emit = on_text or (lambda text: None)
    if chat is None:
        stage(EXTRACTING)
        newest = (result.time.before or today) if result.time is not None and result.time.newest_first else None
        answer = _extractive(question, query, context, workspace, emit, coverage=result.coverage, newest_until=newest, time=result.time)
    else:
        try:
            answer = _generated(
                question, query, context, turns, chat, emit, stage=stage, vectors=text_vectors(workspace), stop=stop, second=settings.second_reading
            )
        except PromptTooLong as exc:  # the server's window is smaller than it said (or than set): fewer sources, once
            chat.context_tokens = exc.window
            context = frozen_context(workspace, result, _source_budget(question, turns, _prompt_room(exc.window, settings)))
            answer = _generated(
                question, query, context, turns, chat, emit, stage=stage, vectors=text_vectors(workspace), stop=stop, second=settings.second_reading
            )
        answer = replace(answer, window=chat.context_tokens)
    answer = replace(answer, time=result.time, translation=result.translation)
    return answer if result.notice is None else replace(answer, notice=result.notice)


def read_in_period(question: str, scope: TimeScope | None) -> tuple[str, reader.Period | None]:
    """What the reader reads when the search kept to a period the question names: the question without the words
    that named it (they did their part in choosing the passages), and the period's days; else the question as is."""
    if scope is None or not scope.narrows:
        return question, None
    period = (scope.after, scope.before)
    words = scope.words
    if not words or words not in question:
        return question, period
    at = question.index(words)
    after = _POSSESSIVE.sub("", question[at + len(words) :], count=1)  # "yesterday's note": "note", not "'s note"
    return " ".join(f"{question[:at]} {after}".split()), period


_POSSESSIVE = re.compile(r"^['’]s\b")


def retrieve_context(
    workspace: Workspace,
    query: str,
    *,
    max_tokens: int | None = None,
    today: date | None = None,
    filters: Filters = Filters(),
    chat: ChatModel | None = None,
) -> tuple[SearchResult, FrozenContext]:
    """The ranked hits for `query` and the frozen context built from them, under the settings' caps (the same with
    a model and without one; `max_tokens` also fits it to a model's window). With `chat` and `translate_questions`,
    the question is also searched in the vault's other language (rag/answer/translation.py)."""
    settings = workspace.settings
    # The only index read: the store's lock is held per query inside, and the hits come back as frozen values.
    n = settings.answer_candidates
    result = timed_hybrid(workspace.retriever, query, n, today=today, filters=filters, candidates=max(100, n))
    if settings.translate_questions and chat is not None:
        translation = translated_question(chat, query, workspace.store.script_shares())
        if translation is not None:
            other = timed_hybrid(workspace.retriever, translation, n, today=today, filters=filters, candidates=max(100, n))
            result = merge(result, other, translation, n)
    return result, frozen_context(workspace, result, max_tokens)


def frozen_context(workspace: Workspace, result: SearchResult, max_tokens: int | None) -> FrozenContext:
    settings = workspace.settings
    limits = ContextLimits.from_settings(settings)
    return build_context(result.hits, vault=settings.vault, outside=settings.outside_folders, limits=limits, max_tokens=max_tokens)


def _prompt_room(window: int, settings) -> int:
    """Tokens the prompt may take of a model's window: its share, less the answer's reserve. A window with none left
    is the settings' fault, not the question's: the error says which to change."""
    room = int(window * WINDOW_SHARE) - settings.max_answer_tokens
    if room <= 0:
        raise ChatError(
            f"The chat model's window ({window} tokens) leaves no room for a prompt once max_answer_tokens "
            f"({settings.max_answer_tokens}) are kept for the answer. Set chat_context_tokens in rag.toml to the model's "
            "real window, or lower max_answer_tokens."
        )
    return room


def text_vectors(workspace: Workspace) -> TextVectors:
    """Sentence vectors as the index has them: its stored vectors, and its language handling and vocabulary when its
    vectors are this embedder's (not while a new model backfills)."""
    model = workspace.embedder.name
    mine = workspace.retriever.embedder is workspace.embedder
    languages = workspace.retriever.vectors if mine else None
    words = workspace.retriever.lexicon.match_scores if mine else None  # the vault's vocabulary, by this embedder
    return TextVectors(
        workspace.embedder,
        stored=lambda keys: workspace.store.vectors_for_keys(model, keys),
        scope=workspace.store.location,
        languages=languages,
        words=words,
    )


def search_query(question: str, turns: tuple[Turn, ...], *, chat: ChatModel | None) -> str:
    """The question itself, or for a follow-up a standalone query: rewritten by the chat model if there is one,
    else — when it looks like a follow-up — the previous question joined to this one (so "and how much did it
    cost?" keeps its topic, while an unrelated new question is searched on its own)."""
    if not turns:
        return question
    if chat is not None:
        history = _turns_text(turns)
        reply = chat.complete([{"role": "user", "content": render("rewrite", **_fenced(history), question=question)}])
        lines = [line.strip() for line in reply.strip().splitlines() if line.strip()]
        if lines:
            return lines[0].strip("\"'«»“”")[:500]
    return f"{turns[-1].question} {question}" if looks_like_follow_up(question) else question


# Words that point back at an earlier turn ("how much did *it* cost?", "а *там* что?").
_ANAPHORA = frozenset(
    "it its that this these those they them their there he she his her then also same "
    "он она оно они его ее её их это этот эта эти тот та те там тогда туда оттуда тоже такой такая такие".split()
)
_CONTINUATIONS = ("and ", "but ", "what about", "how about", "also", "а ", "и ", "но ", "а что", "ещё", "еще", "тогда")


def looks_like_follow_up(question: str) -> bool:
    """Without a chat model to rewrite it, is this question a follow-up that needs the previous one's topic?
    Yes if it is short, starts like a continuation, or points back with a pronoun; a full new question is not."""
    words = stemming.words(question)
    content = [w for w in words if w not in stemming.STOP_WORDS]
    lowered = question.strip().lower()
    return len(content) <= 2 or lowered.startswith(_CONTINUATIONS) or any(w in _ANAPHORA for w in words)


def messages_for(question: str, context: FrozenContext, turns: tuple[Turn, ...] = ()) -> list[Message]:
    """The chat messages for one question: the system rules, then the fenced sources, background and question."""
    history = _turns_text(turns)
    # One fence for the sources and the earlier turns (answers are model output, questions may quote notes): longer
    # than any backtick run in either, so nothing in them can close it.
    fence = max(context.fence, fence_for([history]), key=len)
    conversation = render("conversation", **_fenced(history, fence)) if turns else ""
    language = LANGUAGE_NAMES[language_of(question)]
    user = render(
        "answer", fence=fence, sources=render_sources(context.sources, fence), conversation=conversation, language=language, question=question
    )
    return [{"role": "system", "content": render("system", fence=fence).strip()}, {"role": "user", "content": user.strip()}]


def _fenced(history: str, fence: str | None = None) -> dict[str, str]:
    """The template variables of fenced earlier turns: the fence, and the turns as the fence's `text` block."""
    fence = fence or fence_for([history])
    return {"fence": fence, "turns": f"text\n{history}\n"}


def _source_budget(question: str, turns: tuple[Turn, ...], window: int) -> int:
    """Tokens left for the sources once the rules, the question and the background are in the prompt."""
    empty = FrozenContext((), (), "```", 0)
    fixed = sum(count_tokens(m["content"]) + MESSAGE_OVERHEAD_TOKENS for m in messages_for(question, empty, turns))
    budget = window - fixed
    if budget <= 0:
        raise ChatError(
            f"The question and conversation take {fixed} tokens, leaving no room for sources in the chat model's window "
            f"({window} tokens after the answer's reserve). Shorten the question, or set chat_context_tokens in rag.toml."
        )
    return budget


def _generated(
    question, query, context: FrozenContext, turns, chat: ChatModel, emit, *, stage, vectors: TextVectors, stop=None, second: bool = False
) -> Answer:
    if not context.sources:  # nothing to answer from: the model is not asked, so it cannot answer from memory
        return Answer(question, query, "llm", _not_found_text(question, emit), (), context, (), not_found=True)
    messages = messages_for(question, context, turns)
    reading = getattr(chat, "reading_seconds", None)
    stage(ModelReading(len(context.sources), reading(messages) if reading else None))
    cleaned, truncated = _streamed(chat, messages, CitationFilter(context.ids), emit, stop)
    if not re.search(r"\w", _CITATION.sub("", cleaned.text)):  # an empty reply, or citations alone: nothing to show or check
        text = _not_found_text(question, emit)
        return Answer(question, query, "llm", text, (), context, cleaned.removed, not_found=True, notice=NOTICE_EMPTY_REPLY, truncated=truncated)
    stage(CHECKING)
    reread = second_reading.reader(chat, context) if second else None
    grounded = check(cleaned.text.strip(), context, question=question, vectors=vectors, pairs=pair_scorer(), reread=reread)
    citations = tuple(_citation(context, i) for i in clean(grounded.text, context.ids).cited)  # as now shown
    found = {"not_found": not grounded.grounded, "claims": grounded.claims, "abstained": grounded.abstains, "truncated": truncated}
    return Answer(question, query, "llm", grounded.text, citations, context, cleaned.removed, **found)


def _streamed(chat: ChatModel, messages, stream: CitationFilter, emit, stop: threading.Event | None = None) -> tuple:
    """Stream the model's reply through the citation filter, emitting what is safe to show; (cleaned, truncated).
    Once `stop` is set, the next piece closes the request (a server stops generating when its client hangs up). The
    reply is cut at replies.MAX_REPLY_CHARS whatever the chat model (the clients cut there too)."""
    reply, cap = chat.stream(messages), replies.Cap()
    while True:
        try:
            piece = stream.feed(cap.take(next(reply)))
        except StopIteration as end:
            truncated = bool(end.value)
            break
        if stop is not None and stop.is_set():
            reply.close()
            raise AnswerStopped("The answer was stopped.")
        if piece:
            emit(piece)
        if cap.cut:  # a chat model that does not cut its own reply
            reply.close()
            truncated = True
            break
    tail = stream.tail()
    if tail:
        emit(tail)
    return stream.finish(), truncated


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
    blocks = [_quoted(q, context.get(q.source_id), lang) for q in found.quotes]
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
        claims=_quoted_claims(text, blocks, found.quotes),
    )


def _quoted(q: Quote, source: Source | None, lang: str) -> str:
    """A quote as its label (which note and section, the day it is from when the note says it and the lines do not,
    and the source id) above the note's lines in a blockquote."""
    label = " ".join(q.label.split())
    dated = source is not None and source.dated and not full_date(_WIKILINK.sub("", q.text))  # a log's row says its own
    day = f" · {day_label(source.dated, lang)}" if dated else ""
    return f"{label}{day} [{q.source_id}]\n" + "\n".join(f"> {line}" for line in q.text.split("\n"))


def _quoted_claims(text: str, blocks: list[str], quotes: tuple[Quote, ...]) -> tuple[CheckedClaim, ...]:
    """Each quote is a claim its own source supports: it is that source's text, its own evidence."""
    out, at = [], 0
    for block, q in zip(blocks, quotes):
        start = text.index(block, at)
        at = start + len(block)
        shown = (Evidence(q.source_id, q.line, q.end_line, q.text, None),)
        out.append(CheckedClaim(q.text, start, at, (q.source_id,), "supported", (q.source_id,), evidence=shown))
    return tuple(out)


def _not_found_text(question: str, emit) -> str:
    text = render(f"not_found.{language_of(question)}").strip()
    emit(text)
    return text


def _citation(context: FrozenContext, source_id: str) -> Citation:
    s = context.get(source_id)
    return Citation(s.id, s.path, s.heading, s.start_line, s.end_line, s.dated.isoformat() if s.dated else None, s.place)


def _turns_text(turns: tuple[Turn, ...]) -> str:
    """Earlier turns as plain text; their answers lose their (now meaningless) source ids and are shortened."""
    parts = []
    for t in turns:
        answer = _CITATION.sub("", t.answer).strip()
        answer = answer if len(answer) <= TURN_CHARS else answer[:TURN_CHARS].rsplit(" ", 1)[0] + " …"
        parts.append(f"Q: {t.question}\nA: {answer}")
    return "\n\n".join(parts)
