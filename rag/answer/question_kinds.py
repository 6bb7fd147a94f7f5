"""What a question asks for, in English and Russian: a date, a quantity, a definition, a procedure, a yes or no, a
name (which parameter, package, exception), a reason (why).

An extractive answer quotes what the kind calls for: the sentence with the date, the one with the number, the first
sentences under the term's heading, the whole list of steps, the deciding sentence. A question may ask for two
things ("When did I go to Baikal and how much did it cost?"). Each kind's row in READER_FEATURES names the learned
reader's features it turns on. Pure.
"""

from __future__ import annotations

import re

WHEN, QUANTITY, DEFINITION, PROCEDURE, YESNO, NAME, WHY = "when", "quantity", "definition", "procedure", "yesno", "name", "why"
ALL = (WHEN, QUANTITY, DEFINITION, PROCEDURE, YESNO, NAME, WHY)

# Each kind → the learned reader's features it turns on: (feature, the unit's look it takes when the question asks
# for this kind; 0 otherwise). The looks are the reader's (rag/answer/reader_looks.py, reader.py `_asked_of`):
# "has_date", "has_number", "has_quantity", "number_near" (a number beside a word of the question), "definitional",
# "first" (the first sentence of its section), "titled" (its heading names the term), "steps", "has_code",
# "negation". A new kind is one row here and its detector in `kinds`; its features join the reader's in this order
# (rows, then features), so the weights must be refitted (`python bench/reader_fit.py --write`; loading the old ones
# says so).
READER_FEATURES: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    (WHEN, (("when_date", "has_date"),)),
    (QUANTITY, (("quantity_number", "has_number"), ("quantity_quantity", "has_quantity"), ("quantity_near", "number_near"))),
    (DEFINITION, (("definition_defines", "definitional"), ("definition_first", "first"), ("definition_titled", "titled"))),
    (PROCEDURE, (("procedure_steps", "steps"), ("procedure_code", "has_code"))),
    (NAME, (("name_code", "has_code"),)),
    (YESNO, (("yesno_negation", "negation"), ("yesno_first", "first"))),
    (WHY, ()),  # a reason is quoted as a second part (rag/answer/extractive.py), not scored: "because" is everywhere
)


def reader_features() -> tuple[str, ...]:
    """The reader's features of question kinds, in the table's order."""
    return tuple(feature for _, features in READER_FEATURES for feature, _ in features)


_WHEN = re.compile(
    r"\bwhen\b|\bwhat (?:date|day|time|year|month)\b|\bwhich (?:date|day|year|month)\b|\bhow long ago\b|\bsince when\b|"
    r"\bкогда\b|\bкакого числа\b|\bв како[мй] (?:году|месяце|день)\b|\bс каких пор\b|\bво сколько\b|\bдат[аеуы]\b|\bдень рождени",
    re.IGNORECASE,
)
_QUANTITY = re.compile(
    r"\bhow (?:much|many|long|often|far|big|fast|old|heavy|large|warm|hot|cold)\b|"
    r"\bwhat (?:is the |was the |are the )?(?:price|cost|size|temperature|percentage|ratio|amount|number|speed|weight|"
    r"hydration|budget|total|timeout|version)\b|\bwhat \w+ (?:do|did) (?:i|we) (?:use|set|pay|spend)\b|"
    r"\bсколько\b|\bпочём\b|\bкакой (?:вес|размер|температур\w*|процент|бюджет|объ[её]м)\b|\bкакая (?:цена|стоимость|сумма|температура)\b|"
    r"\bпри какой\b|\bво сколько обош|\bкак (?:долго|часто|много|далеко)\b|\b(?:temperature|температур\w*)\b",
    re.IGNORECASE,
)
_DEFINITION = re.compile(
    r"^\s*(?:what(?:'s| is| are| was| were)\s+(?:an?\s+|the\s+)?[\w\s\-]{1,40}\??\s*$)|\bwhat does \w+ mean\b|\bdefine\b|"
    r"\bmeaning of\b|\bчто (?:такое|значит|означает)\b|\bкто так(?:ой|ая|ие)\b|^\s*что это\b",
    re.IGNORECASE,
)
_PROCEDURE = re.compile(
    r"\bhow (?:do|can|should|did|would) (?:i|you|we|one)\b|\bhow to\b|\bsteps?\b(?: to| for)?|\bprocedure\b|\binstructions?\b|"
    r"\bhow\?|\bwhat(?:'s| is) the (?:mechanism|way|approach|trick)\b|\bis there a way\b|\bwhere (?:should|do|can) (?:i|we) (?:put|place|add)\b|"
    r"\bwhat (?:do|should) (?:i|we) (?:need to |have to )?(?:do|use|write|add|set|change)\b|"
    r"\bкак (?:мне |я |нам |мы )?(?!(?:долго|часто|далеко|много|давно)\b)[а-яё]+(?:ть|ться|ти)\b|\bкаким образом\b|"
    r"\bчто нужно (?:сделать|делать)\b|\bпошагов\w*|\bинструкци\w*|\bпорядок действий\b|^\s*как\s+\S+\s*\??\s*$",
    re.IGNORECASE,
)
_YESNO = re.compile(
    r"^\s*(?:is|are|was|were|do|does|did|can|could|should|will|would|have|has|had)\b|\b(?:ли)\b|^\s*(?:правда|верно)\b",
    re.IGNORECASE,
)
# Which name: an argument, an option, a package … (the answer is usually a code name in the notes).
_NAME = re.compile(
    r"\b(?:which|what)(?: \w+)? (?:argument|parameter|option|setting|flag|exception|error|package|library|module|function|"
    r"method|class|header|field|attribute|keyword|command|variable|type|tool|plugin|extension|format|status code)s?\b|"
    r"\bwhat (?:is it|are they|is that) called\b|\bwhat(?:'s| is) the name of\b|"
    r"\b(?:как(?:ой|ая|ое|ие|ую|им)|чем)(?: \w+)? (?:аргумент|параметр|опци|настройк|флаг|исключени|ошибк|пакет|библиотек|модул|"
    r"функци|метод|класс|заголов|пол[еяю]|атрибут|ключ|команд|переменн|тип|формат|плагин|расширени|статус|код)\w*|"
    r"\bкак (?:он|она|оно|они|это)? ?называ\w+",
    re.IGNORECASE,
)
_WHY = re.compile(
    r"\bwhy\b|\bwhat for\b|\bfor what reason\b|\bwhat(?:'s| is| was| were| are) the reasons?\b|\bhow come\b|"
    r"\bпочему\b|\bзачем\b|\bс какой целью\b|\bпо какой причине\b|\bдля чего\b|\bкакова причина\b|\bв ч[её]м причина\b",
    re.IGNORECASE,
)
_PERSONAL = re.compile(r"\b(?:i|my|me|we|our|us|you|your|я|мой|моя|мои|мы|наш\w*|у меня|мне)\b", re.IGNORECASE)
_QUANTITY_WORDS = re.compile(r"\b(?:price|cost|сто(?:ит|или|ило|ила|имость)|стоил\w*|цен\w*)\b", re.IGNORECASE)


def kinds(question: str) -> tuple[str, ...]:
    """The kinds a question asks for, most specific first; empty for other questions (who, where …). A reason is
    asked last: "Which pins …, and why?" wants the pins first, then why."""
    found = []
    if _PROCEDURE.search(question) and not _QUANTITY.search(question):
        found.append(PROCEDURE)
    if _WHEN.search(question):
        found.append(WHEN)
    if _QUANTITY.search(question) or _QUANTITY_WORDS.search(question):
        found.append(QUANTITY)
    if not found and _DEFINITION.search(question) and not _PERSONAL.search(question):
        found.append(DEFINITION)
    if _NAME.search(question):
        found.append(NAME)
    if not found and _YESNO.search(question):
        found.append(YESNO)
    if _WHY.search(question):
        found.append(WHY)
    return tuple(found)
