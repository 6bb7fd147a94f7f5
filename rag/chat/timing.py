"""How long a model reads a prompt before its first word: the prompt's tokens, each (server, model)'s measured reading
speed, the wait for a first byte that follows from it, and the expected reading time shown to a person.

Apart because both clients (openai_chat.py, ollama_chat.py) measure and wait alike; neither imports the other.
"""

from __future__ import annotations

from rag.chat.probe import is_loopback
from rag.chat.protocol import Message
from rag.tokens import count_tokens

# A model on this machine reads the prompt before it sends a byte: 35–65 tokens/s for a 1.5B model on 2 quiet cores,
# 10–15 for a 7B, a third of that on a busy machine. Until its first answer says its speed, a local model is given
# this much; the wait for the first byte then covers twice the expected reading time (and request_timeout at least).
ASSUMED_LOCAL_SPEED = 10.0  # prompt tokens per second
_speeds: dict[tuple[str, str], float] = {}  # measured prompt tokens per second, per (server, model)


def prompt_tokens(messages: list[Message]) -> int:
    return sum(count_tokens(m.get("content") or "") + 4 for m in messages)


def reading_seconds(base_url: str, model: str, tokens: int) -> float | None:
    """Expected seconds before the first word: the prompt's tokens at the model's measured reading speed; None until
    the model's first answer has measured it (a guess shown to a person would be minutes off either way)."""
    speed = _speeds.get((base_url.rstrip("/"), model))
    return round(tokens / speed, 1) if speed else None


def first_byte_timeout(base_url: str, model: str, tokens: int, floor: float) -> float:
    """How long to wait for a byte: `floor` (request_timeout), or twice the expected reading time if longer (a local
    model not measured yet: at ASSUMED_LOCAL_SPEED; a remote one: `floor`)."""
    speed = _speeds.get((base_url.rstrip("/"), model)) or (ASSUMED_LOCAL_SPEED if is_loopback(base_url) else None)
    return max(floor, 2 * tokens / speed) if speed else floor


def measured(base_url: str, model: str, tokens: int, seconds: float) -> None:
    """A first word came `seconds` after sending `tokens` of prompt: keep the reading speed (prompts under 200 tokens
    say more about the server's latency than its speed)."""
    if tokens >= 200 and seconds > 0:
        key = (base_url.rstrip("/"), model)
        speed = tokens / seconds
        _speeds[key] = speed if key not in _speeds else 0.5 * (_speeds[key] + speed)
