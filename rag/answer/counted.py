"""What a number counts: the words beside each number of a text ("136 career sacks" → career, sack; a table row's
number → its cell's and its row label's words), runs of numbers that count one thing ("GPIO 32, 33, 34 and 35"), and
the noun written right after a number ("136 interceptions", «136 перехватов»). The claim check compares these so
that a number counting something else ("11" sacks against 11 interceptions) does not count. Pure.
"""

from __future__ import annotations

import re

from rag.answer.number_forms import NUMBER, NUMBER_WORDS, number_keys
from rag.answer.specifics import MONTH, content_words
from rag.text import stemming

_LETTERS = re.compile(r"[^\W\d_]+")


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
    for m in NUMBER.finditer(text):
        tokens.append((m.start(), None, number_keys(m)))
    taken = [(m.start(), m.end()) for m in NUMBER.finditer(text)]
    for m in _LETTERS.finditer(text):
        if any(a <= m.start() < b for a, b in taken):
            continue
        word = m.group(0).lower().replace("ё", "е")
        if word in NUMBER_WORDS:  # "seven interceptions", «семь перехватов»
            tokens.append((m.start(), None, {f"num:{NUMBER_WORDS[word]}"}))
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
    for m in NUMBER.finditer(text):
        run = _AFTER_NUMBER.match(text, m.end())
        if not run:
            continue
        words = [w.lower().replace("ё", "е") for w in run.group(0).split()][:3]
        cut = next((i for i, w in enumerate(words) if w in stemming.STOP_WORDS or w in _UNIT_WORDS or MONTH.fullmatch(w.capitalize())), len(words))
        if cut == 0:
            continue
        head = words[0] if re.match(r"[а-я]", words[0]) else words[cut - 1]
        forms = content_words(head)
        if forms:
            for key in number_keys(m):
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
