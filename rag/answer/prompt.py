"""The chat messages for one question, and the room they leave in a model's window: the system rules, the fenced
sources, the earlier turns as background (their source ids stripped, each answer shortened) and the question; the
tokens the prompt may take of a window, and those left for the sources.

Apart from `ask` because the follow-up rewrite (retrieval.py) fills a prompt from the same turns, and a prompt's
size decides how many sources are retrieved before any model is asked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.answer.context import FrozenContext, fence_for, render_sources
from rag.chat.prompts import LANGUAGE_NAMES, language_of, render
from rag.chat.protocol import Message
from rag.errors import ChatError
from rag.tokens import count_tokens

MESSAGE_OVERHEAD_TOKENS = 8  # per chat message (role, separators), plus a margin for the per-context fence
# Of the model's window, the share the prompt may fill: our tokenizer (cl100k) is not the model's, and a prompt one
# token too long is cut at its start by Ollama's OpenAI endpoint, or refused by llama.cpp.
WINDOW_SHARE = 0.9
TURN_CHARS = 600  # of each earlier answer kept for query rewriting and as background
CITATION = re.compile(r"\s*\[S\d+\]")  # a source id as an answer cites it


@dataclass(frozen=True)
class Turn:
    question: str
    answer: str


def messages_for(question: str, context: FrozenContext, turns: tuple[Turn, ...] = ()) -> list[Message]:
    """The chat messages for one question: the system rules, then the fenced sources, background and question."""
    earlier = turns_text(turns)
    # One fence for the sources and the earlier turns (answers are model output, questions may quote notes): longer
    # than any backtick run in either, so nothing in them can close it.
    fence = max(context.fence, fence_for([earlier]), key=len)
    conversation = render("conversation", **fenced(earlier, fence)) if turns else ""
    language = LANGUAGE_NAMES[language_of(question)]
    user = render(
        "answer", fence=fence, sources=render_sources(context.sources, fence), conversation=conversation, language=language, question=question
    )
    return [{"role": "system", "content": render("system", fence=fence).strip()}, {"role": "user", "content": user.strip()}]


def fenced(earlier: str, fence: str | None = None) -> dict[str, str]:
    """The template variables of fenced earlier turns: the fence, and the turns as the fence's `text` block."""
    fence = fence or fence_for([earlier])
    return {"fence": fence, "turns": f"text\n{earlier}\n"}


def turns_text(turns: tuple[Turn, ...]) -> str:
    """Earlier turns as plain text; their answers lose their (now meaningless) source ids and are shortened."""
    parts = []
    for t in turns:
        answer = CITATION.sub("", t.answer).strip()
        answer = answer if len(answer) <= TURN_CHARS else answer[:TURN_CHARS].rsplit(" ", 1)[0] + " …"
        parts.append(f"Q: {t.question}\nA: {answer}")
    return "\n\n".join(parts)


def prompt_room(window: int, settings) -> int:
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


def source_budget(question: str, turns: tuple[Turn, ...], window: int) -> int:
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
