"""The specifics of a text — numbers, dates, months, proper names and code tokens — in forms that compare across
spelling: "38 000", "38,000" and "38 тысяч" are one number; "nine" is 9; «в марте» is March; "Байкале" is Байкал;
"Denver" and «Денвер» are one name; `busy_timeout` is code.

A claim is only as true as its specifics: `grounding` requires every specific of a claim to occur in the passage that
supports it. Numbers are read by `number_forms`; what a number counts is `counted`. Pure: knows nothing about claims
or sources.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from rag.answer.number_forms import NUMBER, NUMBER_WORDS, number_keys
from rag.text import stemming
from rag.text.sounds import skeleton as _skeleton

_DATE = re.compile(r"(?<!\d)(\d{1,2})[./](\d{1,2})[./](\d{2,4})(?!\d)|(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_WORD = re.compile(r"[^\W_][\w'’.-]*[^\W_]|[^\W_]", re.UNICODE)
# How often: "once a month", "every week", "daily", «раз в месяц», «каждую неделю», «ежегодно» — a claim that says
# "once a year" where the note says «раз в месяц» states another thing, though no number differs.
_PERIODS = {
    "day": "day", "days": "day", "daily": "day", "день": "day", "сутки": "day", "ежедневно": "day", "ежедневный": "day",
    "week": "week", "weeks": "week", "weekly": "week", "неделю": "week", "недели": "week", "еженедельно": "week",
    "month": "month", "months": "month", "monthly": "month", "месяц": "month", "месяца": "month", "ежемесячно": "month",
    "year": "year", "years": "year", "yearly": "year", "annually": "year", "год": "year", "года": "year", "ежегодно": "year",
}  # fmt: skip
_FREQUENCY = re.compile(
    r"\b(?:(?:once|twice|\w+ times|one time)\s+(?:a|an|per|every)|every|each|per|(?:\d+|один|два|три|четыре|пять|несколько)?\s*раза?\s+в|кажд(?:ый|ую|ое|ые))\s+"
    r"(days?|weeks?|months?|years?|день|сутки|неделю|месяц|год)\b|\b(daily|weekly|monthly|yearly|annually|ежедневно|еженедельно|ежемесячно|ежегодно)\b",
    re.IGNORECASE,
)
_CAPITALISED_PAIR = re.compile(r"\b([A-ZА-ЯЁ][\w]+) (?=([A-ZА-ЯЁ][\w]+))")
_ABBREVIATION = re.compile(r"\(([A-ZА-Я][\w-]{0,11})\)")
_CODE_SPAN = re.compile(r"`([^`\n]{1,80})`")
_CODE_TOKEN = re.compile(r"(?<![\w.])(?:--?[a-z][\w-]+|[A-Za-z_]\w*(?:[._/]\w+)+|[a-z]+_\w+|\w+\(\))")
_MONTHS_EN = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December")
_MONTHS_RU = ("январ", "феврал", "март", "апрел", "ма(?:й|я|е|ю|ем)\\b", "июн", "июл", "август", "сентябр", "октябр", "ноябр", "декабр")
# English months only capitalised ("may" is a verb); Russian ones in any case and inflection («в марте»).
MONTH = re.compile(
    r"\b(?:" + "|".join(f"(?P<m{i}>{en}|{en[:3]}\\.?(?=\\s)|(?i:{ru})\\w*)" for i, (en, ru) in enumerate(zip(_MONTHS_EN, _MONTHS_RU), 1)) + r")\b"
)
# Words that open a sentence or answer capitalised without being names.
_NOT_NAMES = frozenset("yes no true false correct incorrect да нет верно неверно".split())
_PREFIX = 5


@dataclass(frozen=True)
class Specific:
    text: str  # as written: "56", "Canberra", "марте", "busy_timeout"
    keys: frozenset[str]  # normalised forms; the specific occurs in a text whose keys share one
    # A name or a number word: across scripts only matched by sound or a short word list, which a translation
    # («Суперкубок», «шестикратная») defeats; digits, months and code match in any language.
    soft: bool = False


@dataclass(frozen=True)
class Profile:
    """Everything a text holds in comparable form, to look specifics up in."""

    keys: frozenset[str]
    lowered: str  # for code tokens, which must occur as written (case aside)


def specifics(text: str) -> list[Specific]:
    """The numbers, months, names and code tokens of `text` (one sentence or claim), each once."""
    found: dict[str, Specific] = {}
    code = {m.group(1) for m in _CODE_SPAN.finditer(text)} | {m.group(0) for m in _CODE_TOKEN.finditer(text)}
    for token in code:
        found.setdefault(token.lower(), Specific(token, frozenset({"code:" + token.lower()})))
    for m in NUMBER.finditer(_CODE_SPAN.sub(" ", text)):
        found.setdefault(m.group(0), Specific(m.group(0).strip(), frozenset(number_keys(m))))
    for m in MONTH.finditer(text):
        found.setdefault(m.group(0).lower(), Specific(m.group(0), frozenset({f"month:{_month(m)}"})))
    for m in _FREQUENCY.finditer(text):
        found.setdefault(m.group(0).strip().lower(), Specific(m.group(0).strip(), frozenset({_frequency(m)})))
    defined = {m.group(1) for m in _ABBREVIATION.finditer(text)}  # "reactive oxygen species (ROS)": the claim's own shorthand
    for word in _names(text):
        if not any(word in c for c in code) and word not in defined:
            found.setdefault(word.lower(), Specific(word, frozenset(_name_keys(word)), soft=True))
    for word in stemming.words(text):
        if word in NUMBER_WORDS and NUMBER_WORDS[word] != 1:  # "one of the …" is rarely a count
            found.setdefault(word, Specific(word, frozenset({f"num:{NUMBER_WORDS[word]}"}), soft=True))
    return list(found.values())


def profile(text: str) -> Profile:
    """The keys of every number, month, word and name in `text`."""
    keys: set[str] = set()
    for m in NUMBER.finditer(text):
        keys |= number_keys(m)
    for m in _DATE.finditer(text):
        day, month, year = (m.group(1), m.group(2), m.group(3)) if m.group(1) else (m.group(6), m.group(5), m.group(4))
        keys |= {f"num:{int(day)}", f"num:{int(year)}", f"month:{int(month)}"}
    keys |= {f"month:{_month(m)}" for m in MONTH.finditer(text)}
    keys |= {_frequency(m) for m in _FREQUENCY.finditer(text)}
    for word in set(_WORD.findall(text)):
        keys |= _passage_word_keys(word)
    for pair in _CAPITALISED_PAIR.finditer(text):  # "Super Bowl" is «Супербоул» in Russian
        keys |= _word_keys(pair.group(1) + pair.group(2))
    keys |= {f"num:{NUMBER_WORDS[w]}" for w in stemming.words(text) if w in NUMBER_WORDS}
    return Profile(frozenset(keys), text.lower())


@functools.lru_cache(maxsize=65536)
def _passage_word_keys(word: str) -> frozenset[str]:
    """How a word of a passage can be found: as written, by stem, by prefix (Russian), by sound (names)."""
    lower = word.lower().replace("ё", "е")
    keys = {f"word:{lower}", f"stem:{stemming.stem(lower)}"}
    if len(lower) >= _PREFIX and re.match(r"[а-я]", lower):
        keys.add(f"prefix:{lower[:_PREFIX]}")
    if word[0].isupper() or any(c.isdigit() for c in word):
        keys |= _word_keys(word)  # names are what a claim in the other script spells differently
    return frozenset(keys)


def content_words(text: str) -> list[frozenset[str]]:
    """The content words of `text` (stop words and bare numbers left out), each as the set of forms that match it:
    its stem, a prefix for long Russian words (whose names the stemmer does not always join), its month."""
    out = []
    for word in dict.fromkeys(stemming.words(text)):
        if word in stemming.STOP_WORDS or word.isdigit():
            continue
        keys = {stemming.stem(word)}
        if len(word) >= 6 and re.match(r"[а-я]", word):
            keys.add(f"prefix:{word[:_PREFIX]}")
        month = MONTH.fullmatch(word) or MONTH.fullmatch(word.capitalize())
        if month:
            keys.add(f"month:{_month(month)}")
        out.append(frozenset(keys))
    return out


def _frequency(m: re.Match) -> str:
    return "per:" + _PERIODS[(m.group(1) or m.group(2)).lower()]


def occurs(specific: Specific, where: Profile) -> bool:
    if any(k.startswith("code:") for k in specific.keys):
        return specific.text.lower() in where.lowered
    return not specific.keys.isdisjoint(where.keys)


def _names(text: str) -> list[str]:
    """Capitalised words that are not a sentence's first word (in a claim of three words or fewer, any), all-caps
    words, and words mixing letters and digits: "Jared", "Байкал", "NFL", "ESP32"."""
    prose = re.sub(r"`[^`]*`", " ", text)
    words = list(_WORD.finditer(prose))
    short = len(_WORD.findall(text)) <= 3
    out = []
    for i, m in enumerate(words):
        w, lower = m.group(0), m.group(0).lower()
        if len(w) < 2 or lower in _NOT_NAMES or lower in stemming.STOP_WORDS or lower in NUMBER_WORDS or MONTH.fullmatch(w):
            continue
        first = i == 0 or re.search(r"[.!?:]\s*$", prose[words[i - 1].end() : m.start()]) is not None
        quoted = prose[max(0, m.start() - 1) : m.start()] in ("«", '"', "“", "„")  # «Пантеры» first in a sentence is still a name
        mixed = any(c.isdigit() for c in w) and any(c.isalpha() for c in w)
        if (w[0].isupper() and (short or not first or quoted)) or (w.isupper() and w.isalpha()) or mixed:
            out.append(w)
    return out


def _name_keys(word: str) -> set[str]:
    """A word's own form, its stem, and its sound skeleton for the other script (Latin ↔ Cyrillic)."""
    lower = word.lower().replace("ё", "е").strip("'’.-")
    cyrillic = bool(re.search(r"[а-я]", lower))
    stem = stemming.stem(lower)
    other = "latin" if cyrillic else "cyrillic"
    keys = {f"word:{lower}", f"stem:{stem}"} | {f"{other}:{s}" for s in {_skeleton(lower), _skeleton(stem)} if len(s) >= 2}
    if cyrillic and len(lower) >= 6:
        keys.add(f"prefix:{lower[:_PREFIX]}")  # «Байкале» / «Байкал»: Russian names inflect past what the stemmer joins
    return keys


def _word_keys(word: str) -> set[str]:
    """How a word of a passage is found by a claim word in the other script."""
    lower = word.lower().replace("ё", "е").strip("'’.-")
    script = "cyrillic" if re.search(r"[а-я]", lower) else "latin"
    return {f"{script}:{s}" for s in {_skeleton(lower), _skeleton(stemming.stem(lower))} if len(s) >= 2}


def _month(m: re.Match) -> int:
    return next(i for i in range(1, 13) if m.group(f"m{i}"))
