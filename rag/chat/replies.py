"""A chat server's reply read with bounds, in the two wire forms the chat clients speak: OpenAI's server-sent events
(and its whole-reply JSON) and Ollama's JSON lines.

A reply is untrusted bytes. It is read a line at a time, never a line longer than MAX_LINE_BYTES nor more than
MAX_REPLY_BYTES in all, and each piece must have its protocol's shape: anything else is `Malformed`, which a client
turns into one ChatError naming the server. The text kept is at most MAX_REPLY_CHARS (`Cap`): a model that does not
stop, or a server that streams a book, is cut there and the reply says it was cut — the claim check and the screen
never get more. Knows nothing of HTTP: the clients hand it the bytes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Iterable, Iterator

# ~8,000 tokens: thirteen times the default max_answer_tokens (600), more than any answer from a page of notes needs.
MAX_REPLY_CHARS = 32_000
# On the wire a streamed token costs ~150–300 bytes of JSON around it: 32,000 characters are ~2 MB of events.
MAX_REPLY_BYTES = 16_000_000
MAX_LINE_BYTES = 1_000_000  # one event or JSON line; a real one is a few hundred bytes


class Malformed(ValueError):
    """The reply is not in its protocol's shape; the message says how, for "… sent a reply that is not … (how)"."""


class ServerFailed(Exception):
    """The server said in its reply that it failed (an `error` in the stream); the message is what it said."""


@dataclass(frozen=True)
class Delta:
    text: str  # the next piece of the reply ("" for a piece that carries none)
    finish: str | None = None  # why the model stopped, on the last piece ("length": at the answer's token limit)
    read: tuple[int, float] | None = None  # Ollama's last line: (prompt tokens, seconds it took to read them)


class Cap:
    """A reply's characters counted: `take(text)` is the part of `text` within MAX_REPLY_CHARS, and once it drops
    anything, `cut` is True and the client stops reading."""

    def __init__(self, limit: int | None = None) -> None:
        self.room = MAX_REPLY_CHARS if limit is None else limit
        self.cut = False

    def take(self, text: str) -> str:
        if len(text) > self.room:
            self.cut = True
        kept = text[: self.room]
        self.room -= len(kept)
        return kept


def lines(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """The lines of a byte stream, without their `\\n` or `\\r\\n`. Linear in the bytes however they are split."""
    line, total = bytearray(), 0
    for chunk in chunks:
        total += len(chunk)
        if total > MAX_REPLY_BYTES:
            raise Malformed(f"more than {MAX_REPLY_BYTES:,} bytes without finishing")
        start = 0
        while (end := chunk.find(b"\n", start)) != -1:
            line += chunk[start:end]
            yield _finished(line)
            line.clear()
            start = end + 1
        line += chunk[start:]
        if len(line) > MAX_LINE_BYTES:
            raise Malformed(f"a line longer than {MAX_LINE_BYTES:,} bytes")
    if line:
        yield _finished(line)


def whole(chunks: Iterable[bytes]) -> bytes:
    """A reply read to its end, at most MAX_REPLY_BYTES."""
    body, total = [], 0
    for chunk in chunks:
        total += len(chunk)
        if total > MAX_REPLY_BYTES:
            raise Malformed(f"more than {MAX_REPLY_BYTES:,} bytes")
        body.append(chunk)
    return b"".join(body)


def sse_deltas(chunks: Iterable[bytes]) -> Iterator[Delta]:
    """The pieces of an OpenAI-compatible streamed reply: its server-sent events' `data`, up to `[DONE]`."""
    data: list[bytes] = []
    for line in lines(chunks):
        if line.startswith(b":"):  # a comment: a keep-alive
            continue
        if line:
            field, _, value = line.partition(b":")
            if field == b"data":  # `event`, `id` and `retry` carry nothing a chat reply needs
                data.append(value[1:] if value.startswith(b" ") else value)
            continue
        if data:  # a blank line ends an event
            event, data = b"\n".join(data), []
            if event.strip() == b"[DONE]":
                return
            yield _chunk_delta(parsed(event))
    if data and b"\n".join(data).strip() != b"[DONE]":  # the stream ended without the blank line
        yield _chunk_delta(parsed(b"\n".join(data)))


def completion_text(body: bytes) -> str | None:
    """The reply text of a whole (not streamed) chat completion; None when it has no choices."""
    reply = parsed(body)
    if not isinstance(reply, dict):
        raise Malformed("a reply that is not a JSON object")
    _raise_error(reply)
    choices = reply.get("choices")
    if not choices:
        return None
    message = _object(choices[0] if isinstance(choices, list) else None, "choice").get("message")
    return _text(_object(message or {}, "message").get("content"))


def ollama_deltas(chunks: Iterable[bytes]) -> Iterator[Delta]:
    """The pieces of Ollama's streamed `/api/chat` reply, one JSON object a line, up to the one that says `done`."""
    for line in lines(chunks):
        if not line.strip():
            continue
        part = parsed(line)
        if not isinstance(part, dict):
            raise Malformed("a line that is not a JSON object")
        _raise_error(part)
        text = _text(_object(part.get("message") or {}, "message").get("content"))
        if not part.get("done"):
            yield Delta(text)
            continue
        finish = part.get("done_reason") if isinstance(part.get("done_reason"), str) else None
        tokens, nanoseconds = part.get("prompt_eval_count"), part.get("prompt_eval_duration")
        read = (tokens, nanoseconds / 1e9) if _positive(tokens) and _positive(nanoseconds) else None
        yield Delta(text, finish, read)
        return


def parsed(data: bytes | bytearray) -> object:
    """JSON, or Malformed (not JSON, not UTF-8, or nested past what Python's parser recurses into)."""
    try:
        return json.loads(data)
    except RecursionError:
        raise Malformed("JSON nested too deep") from None
    except ValueError as exc:  # UnicodeDecodeError is one
        raise Malformed(f"not JSON: {str(exc)[:100]}") from None


def _finished(line: bytearray) -> bytes:
    return bytes(line[:-1] if line.endswith(b"\r") else line)


def _chunk_delta(chunk: object) -> Delta:
    if not isinstance(chunk, dict):
        raise Malformed("an event that is not a JSON object")
    _raise_error(chunk)
    choices = chunk.get("choices")
    if not choices:  # a usage-only chunk, or a server's own bookkeeping
        return Delta("")
    choice = _object(choices[0] if isinstance(choices, list) else None, "choice")
    finish = choice.get("finish_reason")
    return Delta(_text(_object(choice.get("delta") or {}, "delta").get("content")), finish if isinstance(finish, str) else None)


def _raise_error(part: dict) -> None:
    error = part.get("error")
    if error:
        message = error.get("message") if isinstance(error, dict) else error
        raise ServerFailed(" ".join(message[:300].split()) if isinstance(message, str) and message.strip() else "an error")


def _object(value: object, what: str) -> dict:
    if not isinstance(value, dict):
        raise Malformed(f"a {what} that is not a JSON object")
    return value


def _text(value: object) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise Malformed("content that is not text")
    return value


def _positive(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < 1e18
