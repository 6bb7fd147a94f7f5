"""An optional help for agent memory's meaning channel: the question rewritten by the chat model into the words and
language the facts might use, searched beside the question (the channel takes a fact's best match over them).

Off by default (`memory_rewrite`): it costs a chat-model call per recall — seconds with a local CPU model — and
measured on the memory dev sets it is a trade, not a free gain (docs/benchmarks.md). Any failure of the model leaves
the question as it was: recall never fails because of this.
"""

from __future__ import annotations

import logging

from rag.answer.context import fence_for
from rag.chat.prompts import render
from rag.errors import ChatError, ConfigError
from rag.printable import printable
from rag.recent import MISSING, Recent

log = logging.getLogger(__name__)

MAX_REWRITES = 3
MAX_CHARS = 300  # a rewrite longer than this is cut: it is a search text, not an answer
CACHED = 256  # questions remembered per process (an agent often recalls the same question again)
_cache: Recent[tuple[str, str], tuple[str, ...]] = Recent(CACHED)


def rewrites(chat, question: str) -> tuple[str, ...] | None:
    """Up to MAX_REWRITES other wordings of `question` from `chat` (() when it says nothing usable), or None when the
    model fails. The question goes into the prompt fenced; the reply is only ever embedded, never shown as a fact."""
    prompt = render("memory_rewrite", fence=fence_for([question]), question=f"text\n{question}\n")
    try:
        reply = chat.complete([{"role": "user", "content": prompt}])
    except (ChatError, ConfigError) as exc:
        log.warning("Memory recall without the question's rewrites: %s", exc)
        return None
    lines = []
    for line in reply.splitlines():
        text = printable(line).strip().lstrip("-*•0123456789.)( ").strip().strip('"«»')
        if text and text.casefold() != question.strip().casefold() and text not in lines:
            lines.append(text[:MAX_CHARS])
    return tuple(lines[:MAX_REWRITES])


def cached_rewrites(chat, question: str) -> tuple[str, ...]:
    """`rewrites`, remembered per chat model and question (a reply with nothing usable too); () when the model
    failed, which is not remembered."""
    key = (chat.name, question)
    found = _cache.get(key)
    if found is MISSING:
        found = rewrites(chat, question)
        if found is None:
            return ()
        _cache.put(key, found)
    return found
