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

from rag import config, live, surface
from rag.web import i18n, untrusted, webapp

# The library's template → the catalogue key of the app's words for it (the same fields on both sides).
REWORDED = {
    surface.VAULT_MISSING: "error.vault_missing",
    surface.VAULT_NOT_FOLDER: "error.vault_not_folder",
    config.VAULT_EMPTY: "error.vault_empty",
    webapp.VAULT_NOT_TYPED: "error.vault_not_typed",
    webapp.EMBEDDINGS_NEED_ENDPOINT: "error.embeddings_need_endpoint",
    surface.OPENAI_EMBEDDER_NEEDS_ENDPOINT: "error.embeddings_need_endpoint",
    surface.EMBED_MODEL_UNKNOWN: "error.embed_model_unknown",
    surface.EMBED_KEY_REFUSED: "error.embed_key_refused",
    surface.EMBED_FAILED: "error.embed_failed",
    surface.EMBEDDING_STOPPED: "error.embedding_stopped",
    surface.DISK_FULL: "error.disk_full",
    surface.INDEX_HELD: "error.index_held",
    surface.INDEX_HELD_UNKNOWN: "error.index_held_unknown",
    live.RETRYING: "error.retrying",
    surface.INDEX_FOREIGN: "error.index_foreign",
    surface.CHAT_NO_ENDPOINT: "error.chat_no_endpoint",
    surface.CHAT_UNREACHABLE: "error.chat_unreachable",
    surface.CHAT_MODEL_UNKNOWN: "error.chat_model_unknown",
    surface.CHAT_KEY_WITHHELD: "error.chat_key_withheld",
    surface.CHAT_KEY_REFUSED: "error.chat_key_refused",
    surface.OLLAMA_UNREACHABLE: "error.ollama_unreachable",
    surface.OLLAMA_MODEL_MISSING: "error.ollama_model_missing",
    surface.NOTICE_DENSE_DOWN: "notice.dense_down",
    surface.NOTICE_NO_VECTORS: "notice.no_vectors",
    surface.NOTICE_EMPTY_REPLY: "notice.empty_reply",
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
