"""What one question is answered from: the query searched (a follow-up rewritten into a standalone one), the hits and
the frozen context built from them, the sentence vectors the context is read with, and the question as the reader
reads it when the search kept to a period it names.

The index is read only here, while retrieving (the hits are plain values once returned); building the context reads
the note files. Apart from `ask` so that benchmarks and tests can retrieve exactly as an answer does.
"""

from __future__ import annotations

import re
from datetime import date

from rag.answer import reader
from rag.answer.context import ContextLimits, FrozenContext, build_context
from rag.answer.prompt import Turn, fenced, turns_text
from rag.answer.translation import merge, translated_question
from rag.chat.prompts import render
from rag.chat.protocol import ChatModel
from rag.search.filters import Filters
from rag.search.results import SearchResult, TimeScope
from rag.search.text_vectors import TextVectors
from rag.search.when import timed_hybrid
from rag.text import stemming
from rag.workspace import Workspace

_POSSESSIVE = re.compile(r"^['’]s\b")
# Words that point back at an earlier turn ("how much did *it* cost?", "а *там* что?").
_ANAPHORA = frozenset(
    "it its that this these those they them their there he she his her then also same "
    "он она оно они его ее её их это этот эта эти тот та те там тогда туда оттуда тоже такой такая такие".split()
)
_CONTINUATIONS = ("and ", "but ", "what about", "how about", "also", "а ", "и ", "но ", "а что", "ещё", "еще", "тогда")


def search_query(question: str, turns: tuple[Turn, ...], *, chat: ChatModel | None) -> str:
    """The question itself, or for a follow-up a standalone query: rewritten by the chat model if there is one,
    else — when it looks like a follow-up — the previous question joined to this one (so "and how much did it
    cost?" keeps its topic, while an unrelated new question is searched on its own)."""
    if not turns:
        return question
    if chat is not None:
        earlier = turns_text(turns)
        reply = chat.complete([{"role": "user", "content": render("rewrite", **fenced(earlier), question=question)}])
        lines = [line.strip() for line in reply.strip().splitlines() if line.strip()]
        if lines:
            return lines[0].strip("\"'«»“”")[:500]
    return f"{turns[-1].question} {question}" if looks_like_follow_up(question) else question


def looks_like_follow_up(question: str) -> bool:
    """Without a chat model to rewrite it, is this question a follow-up that needs the previous one's topic?
    Yes if it is short, starts like a continuation, or points back with a pronoun; a full new question is not."""
    words = stemming.words(question)
    content = [w for w in words if w not in stemming.STOP_WORDS]
    lowered = question.strip().lower()
    return len(content) <= 2 or lowered.startswith(_CONTINUATIONS) or any(w in _ANAPHORA for w in words)


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


def read_in_period(question: str, scope: TimeScope | None) -> tuple[str, reader.Period | None]:
    """What the reader reads when the search kept to a period the question names, or put its passages newest first
    ("when did I last …", «последний раз»): the question without the words that named it (they did their part in
    choosing and ordering the passages; as words no note says they only counted against the answer), and the period's
    days (None for an order alone); else the question as is."""
    if scope is None or not (scope.narrows or scope.newest_first):
        return question, None
    period = (scope.after, scope.before) if scope.narrows else None
    words = scope.words
    if not words or words not in question:
        return question, period
    at = question.index(words)
    after = _POSSESSIVE.sub("", question[at + len(words) :], count=1)  # "yesterday's note": "note", not "'s note"
    return " ".join(f"{question[:at]} {after}".split()), period
