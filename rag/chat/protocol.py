"""The chat model seam: `ChatModel`, what every client (OpenAI-compatible, Ollama's own) offers, and `Message`.

Apart so that the answer pipeline, the memory and the clients can all name the seam without importing a client.
"""

from __future__ import annotations

from typing import Generator, Protocol

Message = dict[str, str]  # {"role": "system" | "user" | "assistant", "content": …}


class ChatModel(Protocol):
    name: str
    context_tokens: int  # the model's window: prompt and answer together

    def stream(self, messages: list[Message]) -> Generator[str, None, bool]:
        """Text deltas of the reply, as they arrive; the generator returns True if the reply was cut, at the answer's
        token limit or at replies.MAX_REPLY_CHARS (`reason = yield from chat.stream(…)`). Raises ChatError."""
        ...

    def complete(self, messages: list[Message]) -> str:
        """The whole reply at once (short tasks such as rewriting a follow-up question). Raises ChatError."""
        ...

    def close(self) -> None:
        """Let go of the connection (the caller that made the model closes it: `Knowledge.ask`)."""
        ...
