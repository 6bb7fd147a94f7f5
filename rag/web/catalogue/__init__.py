"""The browser app's words: every text a page shows, as key → (English, Russian), kept by page or area in the
modules beside this one and joined here into `CATALOGUE`. Looked up through `rag.web.i18n`; placeholders are
str.format fields, the same on both sides (tests/test_app_languages.py checks). A key is in one module only.
"""

from __future__ import annotations

from rag.web.catalogue import ask, index, library, memory, passages, search, sidebar, similar

# key → (English, Russian). Placeholders are str.format fields; both sides name the same ones.
CATALOGUE: dict[str, tuple[str, str]] = (
    sidebar.WORDS | passages.WORDS | ask.WORDS | library.WORDS | search.WORDS | memory.WORDS | similar.WORDS | index.WORDS
)
