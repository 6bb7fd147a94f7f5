"""Failures a person can act on. Every message is a sentence that names the fix.

Adapters translate these one way each: CLI → click.ClickException, Streamlit → st.error, MCP → tool error.
Anything that is not a RagError is a bug and may show a traceback — but an OSError (the file system refusing a name
or a write) is shown by the adapters as one line (`os_error_text`).
"""

from __future__ import annotations

import os


def os_error_text(exc: OSError) -> str:
    """An error of the file system in one line: what it said and about which file, without a traceback."""
    name = f" ({os.path.basename(str(exc.filename))})" if exc.filename else ""
    return f"The file system refused: {exc.strerror or exc}{name}. Check the name, the folder's permissions and free space."


class RagError(Exception):
    """Base class: a user-facing problem with a message that says what to do."""


class ConfigError(RagError):
    """The configuration (env, rag.toml, flags) is invalid or incomplete."""


class VaultError(RagError):
    """The vault folder is missing, unreadable, or a path escapes it."""


class NoteError(RagError):
    """One note cannot be read (not UTF-8, binary, vanished)."""


class IndexMissing(RagError):
    """There is no index yet at the configured path."""


class IndexCorrupt(RagError):
    """The index file is damaged or is not an index of this program."""


class IndexNewer(RagError):
    """The index was written by a newer version of this program; it is never moved aside or changed (a version
    downgraded by mistake must not cost the index its embeddings)."""


class IndexForeign(RagError):
    """The index path holds a file of another program; it is never modified."""


class DiskFull(RagError):
    """The disk (or the database's size limit) is full: a write to the index was refused and rolled back."""


class EmbedderError(RagError):
    """The embedding model failed or is unreachable."""


class ChatError(RagError):
    """The chat model endpoint failed, is unreachable, or does not know the model."""


class AnswerStopped(ChatError):
    """The person stopped the answer; the model's request was closed."""


class PromptTooLong(ChatError):
    """The server refused the prompt as longer than its window, and said the window (`window`, in tokens)."""

    def __init__(self, message: str, window: int) -> None:
        super().__init__(message)
        self.window = window


class ImportFormatError(RagError):
    """An export file to import is malformed or of the wrong kind."""


class ConflictError(RagError):
    """A write named a hash that no longer matches the file on disk."""


class QueryError(RagError):
    """A search or question that cannot be run as given (an empty query)."""
