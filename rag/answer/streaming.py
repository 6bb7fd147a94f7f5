"""A model's reply streamed through the citation filter: what is safe to show is passed on as it comes, unknown source
ids never are; the reply is cut at replies.MAX_REPLY_CHARS whatever the client, and closed when the person stops it.

Apart from `ask` because it is the one loop over a live request: the only place an answer can be stopped.
"""

from __future__ import annotations

import threading
from typing import Callable

from rag.answer.citations import CitationFilter, Cleaned
from rag.chat import replies
from rag.chat.protocol import ChatModel, Message
from rag.errors import AnswerStopped


def streamed(
    chat: ChatModel, messages: list[Message], stream: CitationFilter, emit: Callable[[str], None], stop: threading.Event | None = None
) -> tuple[Cleaned, bool]:
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
