"""With a chat model and `translate_questions` on: a question is also searched in the vault's other language.

The local model matches a question with a passage in the other language less well than in its own (XQuAD hybrid
nDCG@10 ~0.937 across languages, ~0.98 within), and keywords cannot cross scripts at all. A question written in
another script than a language the vault holds (at least MIN_SHARE of its text) is translated by the chat model,
both are searched, and each passage keeps its better score (both are fused z-scores, so the relevance floor means
the same). Off by default: one model call before every search (bench/translated_search.py measures both).
"""

from __future__ import annotations

import logging
from dataclasses import replace

from rag.answer.context import fence_for
from rag.chat.prompts import render
from rag.chat.protocol import ChatModel
from rag.errors import ChatError
from rag.search.results import SearchResult
from rag.text import sentences

log = logging.getLogger(__name__)

LANGUAGES = {"latin": "English", "cyrillic": "Russian"}  # script → the language searched in it
MIN_SHARE = 0.2  # of the vault's text in a script, for that script's language to be one the vault is written in
MAX_CHARS = 500


def target_script(question: str, shares: dict[str, int]) -> str | None:
    """The script to translate the question into: a language of the vault's other than the question's; None when
    the vault is all in the question's script (or the question has no letters)."""
    mine = sentences.script(question)
    total = sum(shares.values())
    if mine is None or not total:
        return None
    others = [s for s, chars in shares.items() if s != mine and s in LANGUAGES and chars / total >= MIN_SHARE]
    return max(others, key=shares.get) if others else None


def translate(chat: ChatModel, question: str, script: str) -> str | None:
    """The model's translation of `question` into the language of `script`, or None when its reply is not one (an
    answer in the question's language, several lines of talk, an empty reply). Raises ChatError."""
    fence = fence_for([question])
    reply = chat.complete([{"role": "user", "content": render("translate", language=LANGUAGES[script], fence=fence, question=f"text\n{question}\n")}])
    # the backtick fence a model wraps a reply in is not the translation (backticks only, not `markdown.FENCE`: this
    # strips a model's wrapping, it does not read Markdown)
    lines = [line.strip().strip("\"'«»“”`").strip() for line in reply.strip().splitlines() if line.strip() and not line.strip().startswith("```")]
    if not lines or len(lines[0]) > MAX_CHARS or sentences.script(lines[0]) != script:
        return None
    return lines[0]


def translated_question(chat: ChatModel, question: str, shares: dict[str, int]) -> str | None:
    """`translate` into the vault's other language when there is one; a failing model costs only the translation."""
    script = target_script(question, shares)
    if script is None:
        return None
    try:
        return translate(chat, question, script)
    except ChatError as exc:
        log.warning("The question was not translated (%s); searching it as written.", exc)
        return None


def merge(original: SearchResult, translated: SearchResult, translation: str, k: int) -> SearchResult:
    """The hits of both searches, each passage at its better score, best first (`original`'s notices and time);
    `translation` the question as the second search read it."""
    best: dict[str, object] = {}
    for hit in (*original.hits, *translated.hits):
        kept = best.get(hit.chunk.id)
        if kept is None or hit.score > kept.score:
            best[hit.chunk.id] = hit
    hits = sorted(best.values(), key=lambda h: -h.score)[:k]
    return replace(original, hits=tuple(hits), pool=max(original.pool, translated.pool), translation=translation)
