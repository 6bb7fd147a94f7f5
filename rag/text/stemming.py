"""Words → stems for the keyword channel, Russian and English (Snowball via PyStemmer).

The FTS5 index stores stemmed text and queries are stemmed the same way, because SQLite's own `porter`
tokenizer knows only English. Each word is stemmed by its script: Cyrillic → Russian, Latin → English.
"""

from __future__ import annotations

import functools
import re
import threading
import unicodedata

import Stemmer

_WORD = re.compile(r"\w+", re.UNICODE)
_TOKEN = re.compile(r"[^\W_]+")  # what SQLite's unicode61 tokenizer keeps: letters and digits (not "_")
_CYRILLIC = re.compile(r"[а-яё]")
_LATIN = re.compile(r"[a-z]")
_local = threading.local()  # PyStemmer objects are not thread-safe

# Function words that carry no topic; removed from queries only (documents keep them for phrase-free BM25).
STOP_WORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being below between both
    but by can could did do does doing down during each few for from further had has have having he her here hers
    herself him himself his how i if in into is it its itself just me more most my myself no nor not of off on once
    only or other our ours ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were what when where which
    while who whom why will with would you your yours yourself yourselves s t don also may might must shall us
    а без более бы был была были было быть в вам вас весь во вот все всего всех вы где да даже для до его ее ей ему
    если есть еще же за здесь и из или им их к как какая какие каким какой какую ко когда кто ли либо мне может мы на
    над надо наш не него нее нет ни них но ну о об однако он она они оно от очень по под при с со так также такой там
    те тем то того тоже той только том ты у уже хотя чего чей чем что чтобы чье чья эта эти это этот я сколько каков
    какова каковы почему зачем который которая которое которые которых котором которой ли разве ведь лишь
    """.split()
)


def _stemmers():
    if not hasattr(_local, "ru"):
        _local.ru = Stemmer.Stemmer("russian")
        _local.en = Stemmer.Stemmer("english")
    return _local.ru, _local.en


def words(text: str) -> list[str]:
    """Lower-cased word tokens; ё is folded to е (Russian text uses both spellings)."""
    return _WORD.findall(text.lower().replace("ё", "е"))


def stem(word: str) -> str:
    ru, en = _stemmers()
    if _CYRILLIC.search(word):
        return ru.stemWord(word)
    if _LATIN.search(word):
        return en.stemWord(word)
    return word


def index_text(text: str) -> str:
    """The stemmed form of a document, as stored in the FTS5 table."""
    return " ".join(stem(w) for w in words(text))


def query_terms(text: str) -> list[str]:
    """Distinct stems of a query, stop words dropped (unless nothing else is left), in order of appearance."""
    tokens = words(text)
    content = [w for w in tokens if w not in STOP_WORDS] or tokens
    seen: dict[str, None] = {}
    for w in content:
        seen.setdefault(stem(w), None)
    return list(seen)


def fts_query(terms: list[str]) -> str | None:
    """An FTS5 MATCH expression: every term quoted (user text is never FTS syntax), OR-ed so BM25 ranks by overlap."""
    if not terms:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def fts_tokens(stems: str) -> list[str]:
    """The tokens SQLite's FTS5 (`unicode61 remove_diacritics 2`) makes of a stemmed text: runs of letters and digits,
    Latin letters without their diacritics. The PostgreSQL index counts these, so both rank alike."""
    return [_fold(t) for t in _TOKEN.findall(stems.lower())]


@functools.lru_cache(maxsize=65536)
def _fold(token: str) -> str:
    if token.isascii():
        return token
    return "".join(_plain_latin(c) for c in token)


def _plain_latin(char: str) -> str:
    if not ("\u00c0" <= char <= "\u024f" or "\u1e00" <= char <= "\u1eff"):  # unicode61 folds Latin letters only
        return char
    return "".join(c for c in unicodedata.normalize("NFD", char) if not unicodedata.combining(c)) or char
