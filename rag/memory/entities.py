"""Entities of a fact: the names, code tokens and quoted words it is about, in Latin and Cyrillic text, and the key
that makes one entity the same across scripts and letter case ("Anna", «Анна», "anna" → one key).

Used when an agent stores a fact without naming its entities, and to read entities out of a query.
"""

from __future__ import annotations

import re

from rag.text.sentences import script
from rag.text.sounds import sound_key
from rag.text.stemming import STOP_WORDS, stem

_QUOTED = re.compile(r"[«\"“]([^«»\"“”\n]{2,60})[»\"”]|`([^`\n]{2,60})`")
# A code-like token: letters or digits joined by . _ / : - (nginx.conf, /etc/nginx, server-a, v1.2, user_id)
_CODE = re.compile(r"(?<![\w/])(?:/?[\w]+(?:[._/:\-][\w]+)+/?|[a-z]+[A-Z]\w*|[A-Z]{2,}\w*|\w*\d\w*[A-Za-zА-Яа-я]\w*)(?![\w/])")
_WORD = re.compile(r"[A-Za-zА-Яа-яЁё][\w\-]*")
_TOKEN = re.compile(r"\w[\w.\-/:@]*\w")
_JOINED = re.compile(r"[._/@-]")
_DIGIT = re.compile(r"\d")
_SENTENCE_END = re.compile(r"[.!?…]\s*$|^\s*$|[:;]\s*$")
_LATIN_ONLY = re.compile(r"^[A-Za-z][A-Za-z\-]*$")
# Capitalised only because they open a sentence (beyond the stop words).
_OPENERS = frozenset(
    "yesterday today tomorrow now then also after before since when while because although every each our my their "
    "his her its please use never always usually sometimes вчера сегодня завтра теперь потом также после перед пока "
    "когда потому каждый каждое наш мой их его её всегда никогда обычно иногда".split()
)


def extract(text: str) -> list[str]:
    """Entities in order of first mention: quoted words, code tokens, capitalised words (runs of them are one name;
    a sentence's first word only if more follow it capitalised), and Latin words inside Russian text."""
    found: list[str] = []
    for m in _QUOTED.finditer(text):
        found.append((m.group(1) or m.group(2)).strip())
    for m in _CODE.finditer(text):
        token = m.group(0).rstrip("/:.-")
        if not token.isdigit() and len(token) >= 2:
            found.append(token)
    russian = script(text) == "cyrillic"
    run: list[str] = []
    run_first = False
    for m in _WORD.finditer(text):
        word = m.group(0)
        first = bool(_SENTENCE_END.search(text[: m.start()]))
        if word[0].isupper() and word.lower() not in STOP_WORDS:
            if not run:
                run_first = first
            run.append(word)
            continue
        _close(run, run_first, found)
        run = []
        if russian and _LATIN_ONLY.match(word) and word.lower() not in STOP_WORDS and len(word) >= 2:
            found.append(word)  # a Latin word in Russian text is a name or a tool
    _close(run, run_first, found)
    seen: dict[str, str] = {}
    for name in found:
        seen.setdefault(key(name), name)
    return list(seen.values())


def identifiers(text: str) -> frozenset[str]:
    """The tokens a question can hinge on as written (folded): any with a digit (a port, an address, a version, a
    model number, a date) and any of 4+ characters joined by . _ / @ or - (a path, a host, a handle, a bucket)."""
    return frozenset(t.casefold() for t in _TOKEN.findall(text) if any(c.isdigit() for c in t) or (len(t) >= 4 and _JOINED.search(t)))


def _close(run: list[str], at_start: bool, found: list[str]) -> None:
    if not run:
        return
    if at_start and len(run) == 1 and run[0].casefold() in _OPENERS:
        return  # "Yesterday …": a capitalised word opening a sentence that is not a name
    found.append(" ".join(run[1:] if at_start and len(run) > 1 and run[0].lower() in STOP_WORDS else run))


def key(name: str) -> str:
    """One entity's key across scripts and case: words of letters by their sound, other tokens as written (folded)."""
    parts = []
    for word in name.split():
        folded = word.casefold().replace("ё", "е")
        if word.isalpha():
            sound = sound_key(stem(folded))  # «Иваном» and "Ivan" both → "ivn"
            parts.append(sound if len(sound) >= 2 else folded)
        else:
            parts.append(folded)
    return " ".join(parts)
