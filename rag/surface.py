"""The adapters' one door besides `Knowledge`: the values they show and the helpers that word them.

The CLI (rag/cli/), the MCP server (rag/agents/) and the app (app.py, app_pages/, rag/web/) call `Knowledge` (or
`LiveIndex` for status and progress) for what the library does, and take from here what they share: the value
types an answer, a search or a note comes back as, the helpers that turn them into words (a day, a page, why a
passage was found), the few things an adapter does before a vault is open (check a folder, find the chat servers on
this machine), and the library's message templates the app words in its own language. They import nothing else
below them (`rag.knowledge`, `rag.live`, `rag.surface`, `rag.config`, `rag.errors`): tests/test_door.py holds them
to it, so a room can be rearranged without editing an adapter.
"""

from __future__ import annotations

from rag.answer.ask import CHECKING, GENERATING, NOTICE_EMPTY_REPLY, SUPPORTING, Answer, Citation, ModelReading, Turn
from rag.answer.grounding import CheckedClaim
from rag.chat import kinds
from rag.chat.ollama_chat import OLLAMA_MODEL_MISSING, OLLAMA_UNREACHABLE
from rag.chat.openai_chat import CHAT_KEY_REFUSED, CHAT_KEY_WITHHELD, CHAT_MODEL_UNKNOWN, CHAT_NO_ENDPOINT, CHAT_UNREACHABLE, try_model
from rag.chat.prompts import render as render_prompt
from rag.chat.servers import ModelServer, find_servers, shown_name
from rag.embed.openai_embedder import EMBED_FAILED, EMBED_KEY_REFUSED, EMBED_MODEL_UNKNOWN, OPENAI_EMBEDDER_NEEDS_ENDPOINT
from rag.endpoints import api_key_for, same_endpoint
from rag.importers import import_export
from rag.index.backfill import EMBEDDING_STOPPED
from rag.index.schema import INDEX_FOREIGN
from rag.index.sync import DISK_FULL, INDEX_HELD, INDEX_HELD_UNKNOWN
from rag.limits import MAX_QUERY_CHARS
from rag.memory import Fact, Recalled
from rag.memory.facts import parse as parse_fact
from rag.notes import disk, pdf
from rag.notes.files import NoteText, confine
from rag.notes.links import note_for, obsidian_url
from rag.notes.pdf import Place, page_json
from rag.notes.vault import VAULT_MISSING, VAULT_NOT_FOLDER, check_vault, pdf_page_image, pdf_place, read_note
from rag.printable import printable
from rag.progress import ProgressBars
from rag.projects import CONTEXT_MAX_CHARS, NoteList, ProjectContext, ProjectInfo
from rag.search.by_note import Filters as NoteFilters
from rag.search.by_note import NoteMatch
from rag.search.filters import Filters
from rag.search.presentation import block_excerpt, heading_without_title, snippet, why_found
from rag.search.results import Hit, SearchResult, TimeScope
from rag.search.retrieve import NOTICE_DENSE_DOWN, NOTICE_NO_VECTORS
from rag.search.similar import DUPLICATE_OVERLAP, DUPLICATE_THRESHOLD, Neighbour, NoteVectors
from rag.search.when import hit_day
from rag.text import stemming, wikilinks
from rag.text.date_labels import day_label
from rag.text.stemming import query_terms
from rag.text.wikilinks import ReadableStream, readable

__all__ = [
    # what an answer comes back as
    "Answer", "Citation", "CheckedClaim", "ModelReading", "Turn", "CHECKING", "GENERATING", "SUPPORTING",
    # what a search, similar notes and duplicates come back as, and how they are worded
    "Hit", "SearchResult", "TimeScope", "Filters", "NoteFilters", "NoteMatch", "Neighbour", "NoteVectors",
    "DUPLICATE_OVERLAP", "DUPLICATE_THRESHOLD", "block_excerpt", "heading_without_title", "snippet", "why_found",
    "hit_day", "day_label", "query_terms", "stemming", "MAX_QUERY_CHARS",
    # notes, pages and links as shown (read from the vault, confined to it)
    "NoteText", "NoteList", "ProjectContext", "ProjectInfo", "CONTEXT_MAX_CHARS", "Place", "pdf", "page_json",
    "pdf_place", "pdf_page_image", "read_note", "confine", "check_vault", "obsidian_url", "note_for", "wikilinks",
    "readable", "ReadableStream", "printable", "disk",
    # agent memory's values
    "Fact", "Recalled", "parse_fact",
    # before a vault is open: the chat servers on this machine, an export to import, progress on a terminal
    "kinds", "ModelServer", "find_servers", "try_model", "shown_name", "api_key_for", "same_endpoint", "render_prompt",
    "import_export", "ProgressBars",
    # the library's message templates, which the app words in its own language (rag/web/messages.py)
    "VAULT_MISSING", "VAULT_NOT_FOLDER", "OPENAI_EMBEDDER_NEEDS_ENDPOINT", "EMBED_MODEL_UNKNOWN", "EMBED_KEY_REFUSED",
    "EMBED_FAILED", "EMBEDDING_STOPPED", "DISK_FULL", "INDEX_HELD", "INDEX_HELD_UNKNOWN", "INDEX_FOREIGN",
    "CHAT_NO_ENDPOINT", "CHAT_UNREACHABLE", "CHAT_MODEL_UNKNOWN", "CHAT_KEY_WITHHELD", "CHAT_KEY_REFUSED",
    "OLLAMA_UNREACHABLE", "OLLAMA_MODEL_MISSING", "NOTICE_DENSE_DOWN", "NOTICE_NO_VECTORS", "NOTICE_EMPTY_REPLY",
]  # fmt: skip
