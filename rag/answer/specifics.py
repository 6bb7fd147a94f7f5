"""The specifics of a text — numbers, dates, months, proper names and code tokens — in forms that compare across
spelling: "38 000", "38,000" and "38 тысяч" are one number; "nine" is 9; «в марте» is March; "Байкале" is Байкал;
"Denver" and «Денвер» are one name; `busy_timeout` is code.

A claim is only as true as its specifics: `grounding` requires every specific of a claim to occur in the passage that
supports it. Pure: knows nothing about claims or sources.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from rag.text import stemming
from rag.text.sounds import skeleton as _skeleton

_NUMBER = re.compile(
    r"(?<![^\W\d_])(?:\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?:[.,]\d+)?(?!\d)|\d+(?:[.,]\d+)*)"
    r"(?:[ \u00a0]?(?P<scale>thousand|million|billion|тыс\.?|тысяч\w*|млн\.?|миллион\w*|млрд\.?|миллиард\w*)(?!\w))?",
    re.IGNORECASE,
)
_SCALES = {"th": 1_000, "ты": 1_000, "mi": 1_000_000, "мл": 1_000_000, "ми": 1_000_000, "bi": 1_000_000_000}
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
_LETTERS = re.compile(r"[^\W\d_]+")
_CODE_SPAN = re.compile(r"`([^`\n]{1,80})`")
_CODE_TOKEN = re.compile(r"(?<![\w.])(?:--?[a-z][\w-]+|[A-Za-z_]\w*(?:[._/]\w+)+|[a-z]+_\w+|\w+\(\))")
_MONTHS_EN = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December")
_MONTHS_RU = ("январ", "феврал", "март", "апрел", "ма(?:й|я|е|ю|ем)\\b", "июн", "июл", "август", "сентябр", "октябр", "ноябр", "декабр")
# English months only capitalised ("may" is a verb); Russian ones in any case and inflection («в марте»).
_MONTH = re.compile(
    r"\b(?:" + "|".join(f"(?P<m{i}>{en}|{en[:3]}\\.?(?=\\s)|(?i:{ru})\\w*)" for i, (en, ru) in enumerate(zip(_MONTHS_EN, _MONTHS_RU), 1)) + r")\b"
)
_NUMBER_WORDS = {
    w: n
    for n, ws in {
        0: "zero ноль нуля",
        1: "one один одна одно одного одной одну",
        2: "two два две двух двум двое двоих двоим",
        3: "three три трех трёх трое троих",
        4: "four четыре четырех четырёх четверо четверых",
        5: "five пять пяти пятеро пятерых",
        6: "six шесть шести",
        7: "seven семь семи",
        8: "eight восемь восьми",
        9: "nine девять девяти",
        10: "ten десять десяти",
        11: "eleven одиннадцать одиннадцати",
        12: "twelve двенадцать двенадцати",
        13: "thirteen тринадцать",
        14: "fourteen четырнадцать",
        15: "fifteen пятнадцать",
        16: "sixteen шестнадцать",
        17: "seventeen семнадцать",
        18: "eighteen восемнадцать",
        19: "nineteen девятнадцать",
        20: "twenty двадцать двадцати",
        30: "thirty тридцать",
        40: "forty сорок",
        50: "fifty пятьдесят",
        60: "sixty шестьдесят",
        70: "seventy семьдесят",
        80: "eighty восемьдесят",
        90: "ninety девяносто",
        100: "hundred сто",
        1000: "thousand тысяча",
    }.items()
    for w in ws.split()
}
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
    for m in _NUMBER.finditer(_CODE_SPAN.sub(" ", text)):
        found.setdefault(m.group(0), Specific(m.group(0).strip(), frozenset(_number_keys(m))))
    for m in _MONTH.finditer(text):
        found.setdefault(m.group(0).lower(), Specific(m.group(0), frozenset({f"month:{_month(m)}"})))
    for m in _FREQUENCY.finditer(text):
        found.setdefault(m.group(0).strip().lower(), Specific(m.group(0).strip(), frozenset({_frequency(m)})))
    defined = {m.group(1) for m in _ABBREVIATION.finditer(text)}  # "reactive oxygen species (ROS)": the claim's own shorthand
    for word in _names(text):
        if not any(word in c for c in code) and word not in defined:
            found.setdefault(word.lower(), Specific(word, frozenset(_name_keys(word)), soft=True))
    for word in stemming.words(text):
        if word in _NUMBER_WORDS and _NUMBER_WORDS[word] != 1:  # "one of the …" is rarely a count
            found.setdefault(word, Specific(word, frozenset({f"num:{_NUMBER_WORDS[word]}"}), soft=True))
    return list(found.values())


def profile(text: str) -> Profile:
    """The keys of every number, month, word and name in `text`."""
    keys: set[str] = set()
    for m in _NUMBER.finditer(text):
        keys |= _number_keys(m)
    for m in _DATE.finditer(text):
        day, month, year = (m.group(1), m.group(2), m.group(3)) if m.group(1) else (m.group(6), m.group(5), m.group(4))
        keys |= {f"num:{int(day)}", f"num:{int(year)}", f"month:{int(month)}"}
    keys |= {f"month:{_month(m)}" for m in _MONTH.finditer(text)}
    keys |= {_frequency(m) for m in _FREQUENCY.finditer(text)}
    for word in set(_WORD.findall(text)):
        keys |= _passage_word_keys(word)
    for pair in _CAPITALISED_PAIR.finditer(text):  # "Super Bowl" is «Супербоул» in Russian
        keys |= _word_keys(pair.group(1) + pair.group(2))
    keys |= {f"num:{_NUMBER_WORDS[w]}" for w in stemming.words(text) if w in _NUMBER_WORDS}
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
        month = _MONTH.fullmatch(word) or _MONTH.fullmatch(word.capitalize())
        if month:
            keys.add(f"month:{_month(month)}")
        out.append(frozenset(keys))
    return out


def number_contexts(text: str, reach: int) -> dict[str, frozenset[str]]:
    """Each number of `text` (by its keys) → the forms of the content words within `reach` words of it: what the
    number counts ("136 career sacks" → career, sack). In a table row ("Item: Housing (Irkutsk 2 nights); Sum: 21 600",
    as `sentences` writes rows) a number counts what its own cell and the row's first cell say, not its neighbour
    cell's words: 21 600 is the housing, the 2 is nights."""
    fields = [f for f in _FIELD_SEPARATOR.split(text) if f.strip()]
    if " | " in text or len(fields) > 1 and all(_LABELLED.match(f) for f in fields):
        label = frozenset().union(*content_words(fields[0]))
        out: dict[str, frozenset[str]] = {}
        for field in fields:
            for key, near in _contexts(field, reach).items():
                out[key] = out.get(key, frozenset()) | near | label
        return out
    return _contexts(text, reach)


_FIELD_SEPARATOR = re.compile(r"; | \| ")  # between cells, as `sentences` writes table rows
_LABELLED = re.compile(r"[^:;]{1,80}: \S")


def _contexts(text: str, reach: int) -> dict[str, frozenset[str]]:
    tokens: list[tuple[int, frozenset[str] | None, set[str]]] = []  # (position, word forms | None, number keys)
    for m in _NUMBER.finditer(text):
        tokens.append((m.start(), None, _number_keys(m)))
    taken = [(m.start(), m.end()) for m in _NUMBER.finditer(text)]
    for m in _LETTERS.finditer(text):
        if any(a <= m.start() < b for a, b in taken):
            continue
        word = m.group(0).lower().replace("ё", "е")
        if word in _NUMBER_WORDS:  # "seven interceptions", «семь перехватов»
            tokens.append((m.start(), None, {f"num:{_NUMBER_WORDS[word]}"}))
        else:
            forms = content_words(word)
            tokens.append((m.start(), forms[0] if forms else frozenset(), set()))
    tokens.sort(key=lambda t: t[0])
    out: dict[str, set[str]] = {}
    for i, (_, forms, keys) in enumerate(tokens):
        if forms is None:
            near = [f for _, f, _ in tokens[max(0, i - reach) : i + reach + 1] if f]
            for key in keys:
                out.setdefault(key, set()).update(*near)
    for run in _enumerations(tokens):  # "GPIO 32, 33, 34 and 35": the 35 counts what the 32 does
        keys = set().union(*(tokens[i][2] for i in run))
        near = set().union(*(out.get(k, set()) for k in keys))
        for key in keys:
            out[key] = near
    return {k: frozenset(v) for k, v in out.items()}


def _enumerations(tokens: list[tuple[int, frozenset[str] | None, set[str]]]) -> list[list[int]]:
    """Runs of two numbers or more with no content word between them ("32, 33, 34 and 35", «с 35 до 60»)."""
    runs, run = [], []
    for i, (_, forms, _) in enumerate(tokens):
        if forms is None:
            run.append(i)
        elif forms:  # a content word ends the run; "and", «и», "to" do not
            runs.append(run)
            run = []
    runs.append(run)
    return [r for r in runs if len(r) > 1]


def counted_nouns(text: str) -> dict[str, frozenset[str]]:
    """Each number of `text` (by its keys) → the forms of the noun it counts, when the words right after it say:
    "136 career interceptions" → interception (English puts the noun last), «136 перехватов в карьере» → перехват
    (Russian's counted noun comes first). Nothing for a number followed by a unit ("27 °C", "8 minutes", "20 г"),
    punctuation or a function word: what it counts is then not written beside it."""
    out: dict[str, frozenset[str]] = {}
    for m in _NUMBER.finditer(text):
        run = _AFTER_NUMBER.match(text, m.end())
        if not run:
            continue
        words = [w.lower().replace("ё", "е") for w in run.group(0).split()][:3]
        cut = next((i for i, w in enumerate(words) if w in stemming.STOP_WORDS or w in _UNIT_WORDS or _MONTH.fullmatch(w.capitalize())), len(words))
        if cut == 0:
            continue
        head = words[0] if re.match(r"[а-я]", words[0]) else words[cut - 1]
        forms = content_words(head)
        if forms:
            for key in _number_keys(m):
                out[key] = forms[0]
    return out


# The words right after a number, up to punctuation: words of two letters or more (a unit symbol, a one-letter unit or
# a second number ends it; "thousand", «тыс.» are part of the number).
_AFTER_NUMBER = re.compile(r"(?:[ \u00a0]+[^\W\d_]{2,}(?:-[^\W\d_]+)?)+")
_UNIT_WORDS = frozenset(
    """percent per degrees degree times days day hours hour minutes minute seconds second weeks week months month years year
    kg mg ml km cm mm gb mb kb bytes mbit rubles roubles ruble dollars dollar euros euro pieces pcs процентов процента
    процент градусов градуса градус раз раза дней дня день часов часа час минут минуты минута секунд недель недели неделю
    месяцев месяца месяц лет года год кг мг мл км см мм гб мб кб мбит рублей рубля рубль руб долларов доллара доллар евро
    штук штуки шт""".split()
)


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
        if len(w) < 2 or lower in _NOT_NAMES or lower in stemming.STOP_WORDS or lower in _NUMBER_WORDS or _MONTH.fullmatch(w):
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


def _number_keys(m: re.Match) -> set[str]:
    raw = m.group(0)[: m.start("scale") - m.start()] if m.group("scale") else m.group(0)
    values = _values(raw.strip())
    keys = {f"num:{v}" for v in values}
    if m.group("scale"):
        scale = _SCALES[m.group("scale").lower()[:2]]
        keys |= {f"num:{_canonical(Decimal(v) * scale)}" for v in values}
    return keys


def _values(raw: str) -> set[str]:
    """A written number's possible values: "38 000" → 38000; "38,000" → 38000; "1,5" → 1.5; "1.000" → 1 or 1000."""
    digits = re.sub(r"[ \u00a0\u202f]", "", raw)
    groups = re.split(r"[.,]", digits)
    candidates = {digits.replace(",", ".")} if len(groups) == 2 else set()
    if len(groups) > 1 and all(len(g) == 3 for g in groups[1:]):
        candidates.add("".join(groups))  # thousands separators
    if "," in digits and "." in digits:
        sep = max(digits.rfind(","), digits.rfind("."))
        candidates.add(re.sub(r"[.,]", "", digits[:sep]) + "." + digits[sep + 1 :])
    if len(groups) == 1:
        candidates.add(digits)
    if not candidates:
        candidates = {g for g in groups if g}  # "1.2.3": a version or a list; each part
    out = set()
    for c in candidates:
        try:
            out.add(_canonical(Decimal(c)))
        except InvalidOperation:
            continue
    return out


def _canonical(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _month(m: re.Match) -> int:
    return next(i for i in range(1, 13) if m.group(f"m{i}"))
