"""The browser app's words in English and Russian: one catalogue, one lookup, and the choice of language.

Every text a page shows comes from `CATALOGUE` (rag/web/catalogue/; tests check that both languages hold every key, with the same
placeholders, and that every key a page asks for exists). A count picks its words by the language's plural rule:
`{n:# note|# notes}` in English (one, other), `{n:# заметка|# заметки|# заметок}` in Russian (one, few, many), `#`
standing for the number as the language writes it. Numbers are written the language's way too (`decimal`, `whole`,
`percent`). The library's errors are shown in the app's own words (rag/web/messages.py); answers' reasons keep
their own language.

The language is the person's choice in Settings; "auto" follows the browser's language when it is Russian or English,
else the script most of the vault is written in. Pure: knows nothing about Streamlit.
"""

from __future__ import annotations

import string
from collections.abc import Mapping

from rag.web.catalogue import CATALOGUE

LANGUAGES = ("en", "ru")
# How a date field orders its day, month and year (Streamlit's date_input `format`): ISO in English, as Russian writes.
DATE_FORMATS = {"en": "YYYY-MM-DD", "ru": "DD.MM.YYYY"}
CHOICES = ("auto", *LANGUAGES)  # the Settings options; "auto" is resolved by `choose_language`


def text(language: str, key: str, /, **values) -> str:
    """The catalogue's text for `key` in `language` ("en" or "ru"), with `values` filled in. A missing key raises
    KeyError: a page never shows a raw key."""
    english, russian = CATALOGUE[key]
    template = russian if language == "ru" else english
    return _Filler(language).format(template, **values) if values else template


PLURAL_FORMS = {"en": 2, "ru": 3}  # how many forms a count's words have: one/other; one/few/many


def plural_form(language: str, n: int) -> int:
    """Which of the language's plural forms a count takes (CLDR's rules): English 1 → one, else other; Russian
    1, 21, 101 → one ("заметка"), 2–4, 22–24 → few ("заметки"), 0, 5–20, 25… → many ("заметок")."""
    if language != "ru":
        return 0 if n == 1 else 1
    if n % 10 == 1 and n % 100 != 11:
        return 0
    return 1 if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14 else 2


class _Filler(string.Formatter):
    """str.format, where a field whose format is `form|form…` is a count: the form its number takes, `#` in it
    replaced by the number written the language's way."""

    def __init__(self, language: str) -> None:
        self.language = language

    def format_field(self, value, format_spec: str) -> str:
        if "|" not in format_spec:
            return super().format_field(value, format_spec)
        forms = format_spec.split("|")
        if len(forms) != PLURAL_FORMS.get(self.language, 2) or isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"a count needs an int and {PLURAL_FORMS.get(self.language, 2)} forms: {value!r}, {format_spec!r}")
        return forms[plural_form(self.language, value)].replace("#", whole(self.language, value))


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
