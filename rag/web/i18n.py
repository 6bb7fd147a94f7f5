"""The browser app's words in English and Russian: one catalogue, one lookup, and the choice of language.

Every text a page shows comes from `CATALOGUE` (rag/web/catalogue.py; tests check that both languages hold every key, with the same
placeholders, and that every key a page asks for exists). Messages from the library (errors, answers' reasons) keep
their own language: answers follow the question's language, errors are English.

The language is the person's choice in Settings; "auto" follows the browser's language when it is Russian or English,
else the script most of the vault is written in. Pure: knows nothing about Streamlit.
"""

from __future__ import annotations

import string
from collections.abc import Mapping

from rag.web.catalogue import CATALOGUE

LANGUAGES = ("en", "ru")
CHOICES = ("auto", *LANGUAGES)  # the Settings options; "auto" is resolved by `choose_language`


def text(language: str, key: str, /, **values) -> str:
    """The catalogue's text for `key` in `language` ("en" or "ru"), with `values` filled in. A missing key raises
    KeyError: a page never shows a raw key."""
    english, russian = CATALOGUE[key]
    template = russian if language == "ru" else english
    return template.format(**values) if values else template


def labels(language: str, prefix: str) -> dict[str, str]:
    """Every text under `prefix.` as {rest of key: text}, e.g. labels("ru", "badge") → {"unsupported": "нет в заметках", …}."""
    start = prefix + "."
    return {key[len(start) :]: text(language, key) for key in CATALOGUE if key.startswith(start)}


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def browser_language(locale: str | None) -> str | None:
    """ "ru-RU" → "ru", "en_GB" → "en"; None for any language the app does not speak (or no browser)."""
    primary = (locale or "").replace("_", "-").split("-")[0].lower()
    return primary if primary in LANGUAGES else None


def choose_language(setting: str, browser_locale: str | None, script_shares: Mapping[str, int]) -> str:
    """The language to show: the Settings choice unless it is "auto"; then the browser's language when the app
    speaks it, else the script most of the vault's text is in (Cyrillic → Russian)."""
    if setting in LANGUAGES:
        return setting
    return browser_language(browser_locale) or ("ru" if script_shares.get("cyrillic", 0) > script_shares.get("latin", 0) else "en")


def percent(language: str, fraction: float, places: int = 0) -> str:
    """0.42 → "42%" (English) / "42 %" (Russian typography: a space before the sign, a decimal comma)."""
    value = f"{fraction:.{places}%}"
    return value.replace("%", "\u00a0%").replace(".", ",") if language == "ru" else value


def whole(language: str, value: int) -> str:
    """8192 → "8,192" / "8 192" (a narrow no-break space, as Russian writes thousands)."""
    return f"{value:,}".replace(",", "\u202f") if language == "ru" else f"{value:,}"


def decimal(language: str, value: float, places: int = 1) -> str:
    """3.5 → "3.5" / "3,5"."""
    shown = f"{value:.{places}f}"
    return shown.replace(".", ",") if language == "ru" else shown
