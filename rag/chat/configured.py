"""The chat model the settings name, made with the client that speaks to its server best: the kind's own client
where the kinds' table names one (Ollama's native endpoint takes the window the prompt needs), else the
OpenAI-compatible one.

Apart from both clients so that neither imports the other.
"""

from __future__ import annotations

from rag.chat import kinds, servers
from rag.chat.openai_chat import OpenAIChat
from rag.chat.protocol import ChatModel
from rag.config import Settings


def make_chat_model(settings: Settings) -> ChatModel | None:
    """The configured chat model, or None when RAG_CHAT_MODEL is not set (answers are then extractive). A model on a
    server whose kind has its own client is asked through it (rag/chat/ollama_chat.py)."""
    if not settings.chat_model:
        return None
    if settings.openai_base_url:
        model, kind_name = servers.served(settings.openai_base_url, settings.chat_model)
        kind = kinds.named(kind_name)
        if kind is not None and kind.native_chat is not None:
            return kind.native_chat(settings, trained=model.trained_tokens)
    return OpenAIChat(settings)
