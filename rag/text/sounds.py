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
