"""Written numbers in comparable form: "38 000", "38,000", "38 тысяч" are one number, "1,5" is 1.5, "1.000" may be 1
or 1000, "nine" and «девять» are 9. Each number becomes keys ("num:38000") that `specifics` and `counted` compare.
Pure.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

# A number starts after neither a letter nor a digit: the digits of "GPIO34", "ADC1" or "COVID19" are part of a name,
# and a number never starts inside another ("34" is not also "4").
NUMBER = re.compile(
    r"(?<![^\W_])(?:\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?:[.,]\d+)?(?!\d)|\d+(?:[.,]\d+)*)"
    r"(?:[ \u00a0]?(?P<scale>thousand|million|billion|тыс\.?|тысяч\w*|млн\.?|миллион\w*|млрд\.?|миллиард\w*)(?!\w))?",
    re.IGNORECASE,
)
_SCALES = {"th": 1_000, "ты": 1_000, "mi": 1_000_000, "мл": 1_000_000, "ми": 1_000_000, "bi": 1_000_000_000}
NUMBER_WORDS = {
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


def number_keys(m: re.Match) -> set[str]:
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
