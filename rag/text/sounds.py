"""Names by sound, across Latin and Cyrillic: a word's consonant skeleton ("Denver", «Денвера» → "dnvr"; "Anna",
«Анна» → "an"), so a name written in either script is one name. Pure."""

from __future__ import annotations

import functools
import re

_TRANSLIT = str.maketrans(
    {
        "а": "a",
        "б": "b",
        "в": "v",
        "г": "g",
        "д": "d",
        "е": "e",
        "ё": "e",
        "ж": "j",
        "з": "z",
        "и": "i",
        "й": "i",
        "к": "k",
        "л": "l",
        "м": "m",
        "н": "n",
        "о": "o",
        "п": "p",
        "р": "r",
        "с": "s",
        "т": "t",
        "у": "u",
        "ф": "f",
        "х": "h",
        "ц": "c",
        "ч": "ch",
        "ш": "sh",
        "щ": "sh",
        "ъ": "",
        "ы": "i",
        "ь": "",
        "э": "e",
        "ю": "u",
        "я": "a",
    }
)
_SOUNDS = tuple(
    (re.compile(p), sound)
    for p, sound in (
        (r"(?<=[aeiou])w", ""),
        (r"dzh|dj|zh", "j"),
        (r"kh", "h"),
        (r"ph", "f"),
        (r"ck|q|c(?=[aouklr]|$)", "k"),
        (r"ts|tz|c", "c"),
        (r"x", "ks"),
        (r"w", "v"),
        (r"y", "i"),
        (r"sch|sh", "s"),
        (r"th", "t"),
        (r"(?<=[^aeiouckszt])h", ""),
    )
)
_NOT_LATIN = re.compile(r"[^a-z]")
_VOWELS = re.compile(r"[aeiou]")
_DOUBLES = re.compile(r"(.)\1+")


def sound_key(word: str) -> str:
    """A word's sound in either script as Latin consonants ("Anna", «Анна» → "an"): names matched across scripts."""
    return skeleton(word.lower().replace("ё", "е"))


@functools.lru_cache(maxsize=65536)
def skeleton(word: str) -> str:
    """Consonants of the word's Latin spelling, sounds merged: "Denver", «Денвера» → "dnvr"."""
    latin = word.translate(_TRANSLIT)
    for pattern, sound in _SOUNDS:
        latin = pattern.sub(sound, latin)
    latin = _NOT_LATIN.sub("", latin)
    if not latin:
        return ""
    return _DOUBLES.sub(r"\1", latin[0] + _VOWELS.sub("", latin[1:]))


# --- words that cross scripts: the keyword channel between languages (rag/search/retrieve.py) ------------------

_WORD = re.compile(r"[^\W\d_]+|\d+")
_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
_SENTENCE_START = re.compile(r"(?:^|[.!?…:;]\s+|\n)\W*$")


def sound_text(text: str) -> str:
    """Every word of a passage as its sound ("Panthers" → "pntrs", «Пэнтерс» → "pntrs") and every number as written:
    what a question in the other script can share with it."""
    keys = (word if word.isdigit() else sound_key(word) for word in _WORD.findall(text))
    return " ".join(k for k in keys if len(k) >= 2 or k.isdigit())


def crossing_keys(question: str) -> list[str]:
    """The sounds of the words in a question that a passage in the other script can also contain, as `sound_text`
    writes them: names (capitalised, not opening a sentence; acronyms), words in the other script than most of the
    question's words (code, product names in Latin inside Russian), and numbers. Distinct, in order."""
    words = [w for w in _WORD.findall(question) if not w.isdigit()]
    cyrillic = sum(bool(_CYRILLIC.search(w)) for w in words) * 2 > len(words)  # most of its words
    keys: dict[str, None] = {}
    for match in _WORD.finditer(question):
        word = match.group()
        if word.isdigit():
            keys.setdefault(word, None)
            continue
        foreign = bool(_CYRILLIC.search(word)) != cyrillic
        opening = bool(_SENTENCE_START.search(question[: match.start()]))
        name = word[0].isupper() and (not opening or (len(word) > 1 and word.isupper()))
        if foreign or name:
            key = sound_key(word)
            if len(key) >= 2:
                keys.setdefault(key, None)
    return list(keys)
