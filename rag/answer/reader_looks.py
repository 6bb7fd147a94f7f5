"""A unit's looks, as the learned reader sees them whatever the question: a date, a number, a quantity with its unit,
code, a definition ("X is …", «X — это …»), a negation, markup (HTML, includes, links, URLs), a line of links. The
question's kinds turn some of them into features (question_kinds.READER_FEATURES: a date for "when"). Pure.
"""

from __future__ import annotations

import functools
import re

from rag.answer.counted import number_contexts
from rag.answer.quotable import Unit
from rag.answer.reader_words import profile_of

_QUANTITY = re.compile(
    r"\d[\d\s.,]*\s?(?:%|₽|\$|€|руб\w*|rub\w*|г\b|гр\b|кг|g\b|kg|ml|мл|l\b|л\b|°|mm|мм|cm|см|km|км|min\w*|мин\w*|h\b|ч\b|"
    r"hours?|час\w*|days?|дн\w*|дней|s\b|sec\w*|сек\w*|ms\b|bytes?|байт\w*|KB|MB|GB|Мбит|Mbit\w*|шт|pcs|×|x\b|times|раз\w*)|"
    r"\b\d{1,3}(?:[ \u00a0]\d{3})+\b|\d+:\d+|\b\d+\s?(?:из|of|/)\s?\d+",
    re.IGNORECASE,
)
_DATE = re.compile(
    r"\b(?:1[89]|20)\d\d\b|\b\d{1,2}:\d\d\b|\b\d{1,2}[./]\d{1,2}(?:[./]\d{2,4})?\b|"
    r"\b(?:mon|tue|wed|thu|fri|sat|sun)\w*\b|\b(?:понедельник|вторник|сред|четверг|пятниц|суббот|воскресень)\w*",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\d")
_CODE = re.compile(r"`[^`\n]+`|\b\w+\(\)|\b[a-z]+_[a-z_]+\b|--[a-z][\w-]+")
_DEFINES = re.compile(
    r"^[^.?!:]{0,80}?\b(?:is|are|means|refers to|stands for|is called|называ\w+|означает|представляет собой|является|являются)\b|"
    r"^[^.?!:]{0,80}?\s[—–-]\s(?:это\b|\w)|\bэто\b",
    re.IGNORECASE,
)
_NEGATION = re.compile(
    r"\b(?:not|no|never|don['’]t|doesn['’]t|isn['’]t|can['’]t|won['’]t|shouldn['’]t|cannot|не|нет|нельзя|никогда)\b", re.IGNORECASE
)
_MARKUP = re.compile(r"<[^>\n]{1,300}>|\{[*!%][^}\n]*[*!%]\}|!?\[[^\]\n]*\]\([^)\n]*\)|https?://\S+|^\s*/{3}.*$|^\s*[┌└├│─.]+.*$", re.MULTILINE)
_LINKS = re.compile(r"!?\[\[[^\]]*\]\]|\[[^\]\n]*\]\([^)\n]*\)|(?<!\w)#[\w/-]+")


@functools.lru_cache(maxsize=16384)
def looks(u: Unit) -> dict[str, float]:
    """How the unit looks, whatever the question: each look 0..1 (markup as a share of its characters)."""
    text = u.scoring
    raw = u.text
    markup = sum(len(m.group(0)) for m in _MARKUP.finditer(raw))
    linked = sum(len(m.group(0)) for m in _LINKS.finditer(raw))
    return {
        "has_number": float(bool(_NUMBER.search(text))),
        "has_quantity": float(bool(_QUANTITY.search(text))),
        "has_date": float(bool(_DATE.search(text)) or any(k.startswith("month:") for k in profile_of(text).keys)),
        "has_code": float(bool(_CODE.search(raw))),
        "definitional": float(bool(_DEFINES.search(text))),
        "negation": float(bool(_NEGATION.search(text))),
        "markup": min(1.0, markup / max(1, len(raw.strip()))),
        "links": float(raw.lstrip("-*+ 0123456789.)").startswith(("[[", "![[")) or linked * 2 >= len(raw.strip())),
    }


@functools.lru_cache(maxsize=16384)
def number_near(text: str, stems: tuple[str, ...]) -> bool:
    """A number of `text` has one of the question's `stems` among the words next to it (or inside one of them)."""
    near = frozenset().union(*number_contexts(text, 4).values()) if _NUMBER.search(text) else frozenset()
    return any(t in form for t in stems for form in near)
