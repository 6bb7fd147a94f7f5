"""The library's messages — errors and notices — as the app says them. The library words a problem with the fix a
terminal user makes ("Pass --vault DIR or set RAG_VAULT", "run `python -m rag index`"), in English; in the app the
fix is made in Settings (or the app makes it itself), in the person's language. Each message below is recognised by
the library's own template (a constant beside the code that writes it, so the two cannot drift apart) and shown as
the catalogue's text, with the values it quoted. A message the app does not know is shown as it is.

Pure: knows nothing about Streamlit. Returns Markdown with every quoted value escaped (`rag.web.untrusted`).
"""

from __future__ import annotations

import functools
import re
import string

from rag import config, live
from rag.answer import ask
from rag.chat import ollama_chat, openai_chat
from rag.embed import openai_embedder
from rag.index import backfill, schema, sync
from rag.notes import vault
from rag.search import retrieve
from rag.web import i18n, untrusted, webapp

# The library's template → the catalogue key of the app's words for it (the same fields on both sides).
REWORDED = {
    vault.VAULT_MISSING: "error.vault_missing",
    vault.VAULT_NOT_FOLDER: "error.vault_not_folder",
    config.VAULT_EMPTY: "error.vault_empty",
    webapp.VAULT_NOT_TYPED: "error.vault_not_typed",
    webapp.EMBEDDINGS_NEED_ENDPOINT: "error.embeddings_need_endpoint",
    openai_embedder.OPENAI_EMBEDDER_NEEDS_ENDPOINT: "error.embeddings_need_endpoint",
    openai_embedder.EMBED_MODEL_UNKNOWN: "error.embed_model_unknown",
    openai_embedder.EMBED_KEY_REFUSED: "error.embed_key_refused",
    openai_embedder.EMBED_FAILED: "error.embed_failed",
    backfill.EMBEDDING_STOPPED: "error.embedding_stopped",
    sync.DISK_FULL: "error.disk_full",
    sync.INDEX_HELD: "error.index_held",
    sync.INDEX_HELD_UNKNOWN: "error.index_held_unknown",
    live.RETRYING: "error.retrying",
    schema.INDEX_FOREIGN: "error.index_foreign",
    openai_chat.CHAT_NO_ENDPOINT: "error.chat_no_endpoint",
    openai_chat.CHAT_UNREACHABLE: "error.chat_unreachable",
    openai_chat.CHAT_MODEL_UNKNOWN: "error.chat_model_unknown",
    openai_chat.CHAT_KEY_WITHHELD: "error.chat_key_withheld",
    openai_chat.CHAT_KEY_REFUSED: "error.chat_key_refused",
    ollama_chat.OLLAMA_UNREACHABLE: "error.ollama_unreachable",
    ollama_chat.OLLAMA_MODEL_MISSING: "error.ollama_model_missing",
    retrieve.NOTICE_DENSE_DOWN: "notice.dense_down",
    retrieve.NOTICE_NO_VECTORS: "notice.no_vectors",
    ask.NOTICE_EMPTY_REPLY: "notice.empty_reply",
}


def shown(language: str, message: Exception | str) -> str:
    """`message` (an exception or its text) as the app says it in `language`, as Markdown: a message of the library
    it knows in the catalogue's words, each value it quoted in them the same way (an error inside an error too);
    any other as it is."""
    message = str(message)
    for template, key in REWORDED.items():
        found = _pattern(template).match(message)
        if found:
            return i18n.text(language, key, **{name: shown(language, value) for name, value in found.groupdict().items()})
    return untrusted.text(message)


@functools.cache
def _pattern(template: str) -> re.Pattern:
    """The template as a regular expression that matches the messages it makes and captures their values (a field
    named twice must hold the same text both times)."""
    parts, named = [], set()
    for literal, field, _, _ in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if field is not None:
            parts.append(f"(?P={field})" if field in named else f"(?P<{field}>.+?)")
            named.add(field)
    return re.compile("".join(parts) + r"\Z", re.S)
