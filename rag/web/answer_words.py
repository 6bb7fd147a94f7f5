"""The program's own lines in an answer — an extractive answer's lead line, "Not found in your notes" — in the app's
language. The library writes them in the question's language (the CLI and MCP have no other to go by); the app
speaks the language its person chose, so an English question in the Russian app gets «Извлечённый ответ…» above the
quotes. The quoted lines of the notes and a model's reply keep their own words. Pure: knows nothing about Streamlit.
"""

from __future__ import annotations

import dataclasses
import functools

from rag.surface import render_prompt as render
from rag.web.i18n import LANGUAGES


@functools.cache
def _leads() -> dict[str, str]:
    """The extractive answer's first line in each language (rag/chat/prompts/extractive.*.md, without the quotes)."""
    return {language: render(f"extractive.{language}", quotes="").strip() for language in LANGUAGES}


@functools.cache
def _not_found() -> dict[str, str]:
    return {language: render(f"not_found.{language}").strip() for language in LANGUAGES}


def in_language(text: str, claims: tuple, language: str) -> tuple[str, tuple]:
    """An answer's text with the program's lines in `language`, and its claims' spans moved to match (a claim's
    start and end are offsets into the text)."""
    if text in _not_found().values():
        return _not_found()[language], claims
    wanted = _leads()[language]
    for lead in _leads().values():
        if lead != wanted and text.startswith(lead + "\n"):
            shift = len(wanted) - len(lead)
            moved = tuple(dataclasses.replace(c, start=c.start + shift, end=c.end + shift) if c.start >= len(lead) else c for c in claims)
            return wanted + text[len(lead) :], moved
    return text, claims
