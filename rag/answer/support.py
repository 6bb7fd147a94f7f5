"""Does a passage say what a claim says? One passage's verdict on one claim.

The passage is read sentence by sentence (table rows and code lines count as sentences; the heading path goes with
each). A window — one sentence, or a sentence and the next — supports the claim when (a) every specific of the claim
(`specifics`: numbers, dates, months, names, code) occurs in it, and (b) it says the same thing: at least
`OVERLAP_MIN` of the claim's content words are in it, or the claim's vector is within `MEANING_MIN` of one of its
sentences' vectors. Judging by window, not by passage, means a number from another sentence ("11" sacks, when the
claim says 11 interceptions and the interceptions sentence says 24) does not count.

Specifics the question itself names ("… in 2015?") are the person's own premise: a claim that also brings something
of its own need not find them in the passage. Sentences of a passage that address the model ("Ignore all previous
instructions…") are never evidence. How a claim is read is `claim_view`; how a passage is, `passage_units`.
Pure apart from the embedder (through `TextVectors`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.answer.claim_view import ClaimView
from rag.answer.passage_units import Passage, Unit, unit_of
from rag.answer.specifics import Specific, occurs, specifics
from rag.search.text_vectors import TextVectors
from rag.text import sentences

OVERLAP_MIN = 0.6  # share of a claim's content words in one window that says the same thing
# Cosine between a claim and a sentence that says the same thing (multilingual-e5-small), calibrated on the dev QA
# data by bench/grounding_calibration.py: within a language 0.86 (XQuAD-en precision 0.95 / recall 0.97, -ru 0.95 /
# 0.94), across languages 0.84 (ru→en 0.97 / 0.97, en→ru 0.99 / 0.96), where translations sit a little further apart.
MEANING_MIN = 0.86
MEANING_MIN_ACROSS = 0.84
# In the same language a paraphrase still shares some words; without any, a close cosine is a near miss ("Allen
# retired to grow roses" against "he finished his career with 136 sacks"). Across languages the cosine decides alone.
MEANING_WORDS_MIN = 0.34
INSTRUCTION_OVERLAP = 0.5  # a claim this close to an instruction in a note repeats it
# A table row holding every specific of a claim (its number counting what the claim counts) says what the claim says
# when this share of the claim's words are in it: the rest ("costs", "was") is what the column's header means.
ROW_OVERLAP_MIN = 0.34
TABLE_RUN = 6  # rows of one table read together at most
COMPOUND_MIN = 5  # a stem this long found inside a longer word counts («билет» in «авиабилеты», "token" in "tokenizer")
_PRONOUN = re.compile(r"\b(?:he|she|it|they|his|her|its|their|him|them|он|она|оно|они|его|её|ее|их|ему|ей|им)\b", re.I)


@dataclass(frozen=True)
class Verdict:
    missing: tuple[Specific, ...]  # specifics absent from the closest window (empty when one window has them all)
    overlap: float  # best word share among the windows that have every specific
    windows: tuple[tuple[int, ...], ...] = ()  # those windows (unit indices)
    cosine: float | None = None  # best sentence cosine among them, once measured
    same_script: bool = True  # claim and passage are written in one script (language)
    nearest: tuple[int, ...] = ()  # the window sharing most of the claim's words, whether or not it has every specific

    @property
    def supports(self) -> bool:
        if not self.windows:
            return False
        if self.same_script:
            close = (self.cosine or 0.0) >= MEANING_MIN and self.overlap >= MEANING_WORDS_MIN
        else:
            close = (self.cosine or 0.0) >= MEANING_MIN_ACROSS
        return self.overlap >= OVERLAP_MIN or close

    @property
    def strength(self) -> float:
        return max(self.overlap, self.cosine or 0.0) if self.windows else 0.0


def judge(claim: ClaimView, passage: Passage) -> Verdict:
    """The passage's verdict by specifics and shared words (meaning by vectors is `add_meaning`)."""
    if claim.code:
        quoted = claim.text in passage.lowered
        return Verdict((), float(quoted), ((),) if quoted else ())
    same = claim.script is None or passage.script is None or claim.script == passage.script
    everywhere = [passage.heading, *passage.units]
    absent = tuple(s for s in claim.premises if not any(found(s, claim, u, sentence=u is not passage.heading) for u in everywhere))
    if absent:  # the passage is not about what the question names
        elsewhere = tuple(s for s in claim.specifics if not any(occurs(s, u.facts) for u in everywhere))
        return Verdict(absent + elsewhere, 0.0, same_script=same)
    closest: tuple[float, int, tuple[Specific, ...], tuple[int, ...]] = (-1.0, 0, (), ())
    ok: list[tuple[tuple[int, ...], float]] = []
    for window in windows(len(passage.units), passage.rows):
        if not listed(claim, passage, window):
            continue
        units = [passage.heading] + [passage.units[i] for i in window]
        named = named_in(claim, passage, window)
        missing = tuple(
            s
            for s in claim.specifics
            if not any(found(s, claim, u, sentence=u is not passage.heading, window=units) for u in (named if s.soft else units))
        )
        part = share(claim.words, units) if claim.words else float(not missing)
        if not missing and claim.specifics and len(window) == 1 and window[0] in passage.rows and part >= ROW_OVERLAP_MIN:
            part = max(part, OVERLAP_MIN)  # a row says its value of its label: "tickets 46 800" is "| Airfare | 46 800 |"
        if not missing:
            ok.append((window, part))
        if (part, -len(missing)) > closest[:2]:
            closest = (part, -len(missing), missing, window)
    if ok:
        return Verdict((), max(part for _, part in ok), tuple(w for w, _ in ok), same_script=same, nearest=closest[3])
    return Verdict(closest[2], 0.0, same_script=same, nearest=closest[3])


def listed(claim: ClaimView, passage: Passage, window: tuple[int, ...]) -> bool:
    """Rows read together state a claim only as a list: every row holds a specific of the claim that no other row
    of the window holds, and in a column they share ("GPIO32–35 — channels 4–7": each row its pin). One row's name
    with the next row's value is no list ("GPIO32 is channel 5": the pin column of one, the notes of the other).
    Two rows that hold the same of the claim's specifics, and sentences read together, are judged as before."""
    if len(window) < 2 or not all(i in passage.rows for i in window):
        return True
    held = [{k for k, s in enumerate(claim.specifics) if found(s, claim, passage.units[i])} for i in window]
    own = [mine - set().union(*(other for j, other in enumerate(held) if j != k)) for k, mine in enumerate(held)]
    if len(window) == 2 and not any(own):
        return True
    if not all(own):
        return False
    columns = []
    for i, mine in zip(window, own):
        cells = sentences.row_cells(passage.units[i].text)
        columns.append({column for column, cell in cells for n in mine if found(claim.specifics[n], claim, unit_of(cell))})
    return bool(set.intersection(*columns))


def named_in(claim: ClaimView, passage: Passage, window: tuple[int, ...]) -> list[Unit]:
    """Where the claim's names may be in a window: the heading and the sentence that says what the claim says of
    them — or, when that sentence refers back ("He is also the oldest…"), the sentence before it too."""
    units = [passage.units[i] for i in window]
    if len(units) != 2:  # one sentence or row; or a run of rows, each naming its own (`listed`)
        return [passage.heading, *units]
    first, second = units
    if share(claim.words, [first]) >= share(claim.words, [second]):
        return [passage.heading, first]
    return [passage.heading, first, second] if _PRONOUN.search(second.text) else [passage.heading, second]


def jointly(claim: ClaimView, parts: list[tuple[Passage, Verdict]]) -> bool:
    """Do the passages a claim cites support it together ("tickets 38 000 [S1], the hotel 27 000 [S2]")? Every
    specific in the window of one of them nearest the claim, and most of its words across those windows."""
    nearest = [[passage.units[i] for i in verdict.nearest] for passage, verdict in parts]
    if not claim.specifics or not all(any(found(s, claim, u) for s in claim.specifics for u in w) for w in nearest):
        return False  # each source brings a specific of its own, or it is not part of the claim
    headings = [passage.heading for passage, _ in parts]
    units = headings + [u for w in nearest for u in w]
    if not all(any(found(s, claim, u, sentence=u not in headings) for u in units) for s in claim.specifics):
        return False
    return bool(claim.words) and share(claim.words, units) >= OVERLAP_MIN


def add_meaning(pending: list[tuple[ClaimView, Passage, Verdict]], vectors: TextVectors) -> list[Verdict]:
    """The verdicts with the best sentence cosine of their windows: for the claims that have every specific in
    some window but too few shared words there (paraphrases, other languages)."""
    if not pending:
        return []
    claims = list(dict.fromkeys(c.text for c, _, _ in pending))
    claim_vectors = dict(zip(claims, vectors.passages(claims)))
    passages = {p.id: p for _, p, _ in pending}
    # Sentences the index holds vectors for (three words or more, `sentences.MIN_WORDS`); shorter ones say too little
    # to be compared by meaning, and embedding them here would cost more than the whole check.
    measurable = {pid: [i for i, u in enumerate(p.units[: p.prose]) if len(u.text.split()) >= sentences.MIN_WORDS] for pid, p in passages.items()}
    unit_vectors = {pid: dict(zip(rows, vectors.passages([passages[pid].units[i].text for i in rows]))) for pid, rows in measurable.items()}
    out = []
    for claim, passage, verdict in pending:
        by_row = unit_vectors[passage.id]
        rows = sorted({i for w in verdict.windows for i in w if i in by_row})
        cosine = float(max(by_row[i] @ claim_vectors[claim.text] for i in rows)) if rows else 0.0
        out.append(Verdict(verdict.missing, verdict.overlap, verdict.windows, cosine, verdict.same_script, verdict.nearest))
    return out


def repeats_instruction(claim: ClaimView, missing: tuple[Specific, ...], passage: Passage) -> bool:
    """The claim restates a sentence of the passage that addresses the model (the injection case)."""
    if not passage.instructions:
        return False
    if missing and all(any(occurs(s, u.facts) for u in passage.instructions) for s in missing):
        return True
    return bool(claim.words) and max(share(claim.words, [u]) for u in passage.instructions) >= INSTRUCTION_OVERLAP


def numbers_near(claim: ClaimView, missing: tuple[Specific, ...], passage: Passage) -> list[str]:
    """What the passage's sentence closest to the claim counts where the claim's missing numbers should be: "136"
    for "56 career sacks" (the numbers next to the same words), else that sentence's other numbers."""
    mine = {k for s in specifics(claim.text) for k in s.keys}
    wanted = frozenset().union(*(claim.numbers.get(k, frozenset()) for s in missing for k in s.keys))
    best: tuple[float, list[str]] = (-1.0, [])
    for u in passage.units:
        numbers = [s for s in specifics(u.text) if any(k.startswith("num:") for k in s.keys) and s.keys.isdisjoint(mine)]
        beside = [s for s in numbers if any(not wanted.isdisjoint(u.numbers.get(k, frozenset())) for k in s.keys)]
        closeness = (share(claim.words, [u]) if claim.words else 0.0) + (1.0 if beside else 0.0)
        if numbers and closeness > best[0]:
            best = (closeness, [s.text for s in (beside or numbers)][:3])
    return best[1]


def found(specific: Specific, claim: ClaimView, unit: Unit, *, sentence: bool = True, window: list[Unit] = ()) -> bool:
    """In the unit — a number next to what it counts in the claim — or a name or number word of a claim in the other
    script than this sentence, which only meaning can confirm (a heading in another script is no such sentence)."""
    if occurs(specific, unit.facts):
        return _counts_the_same(specific, claim, unit, window or [unit])
    other = claim.script is not None and unit.script is not None and claim.script != unit.script
    return sentence and specific.soft and other


def _counts_the_same(specific: Specific, claim: ClaimView, unit: Unit, window: list[Unit]) -> bool:
    """A number of the claim stands, in this unit, next to one of the words it stands next to in the claim ("11
    interceptions" is not "sacks with 11": there 24 stands next to interceptions), unless no number of the unit stands
    next to those words in the window. Across languages, and for a bare number, occurring is enough."""
    keys = [k for k in specific.keys if k.startswith("num:")]
    needs = frozenset().union(*(claim.numbers.get(k, frozenset()) for k in keys))
    if not keys or not needs or claim.script != unit.script:
        return True
    noun = next((claim.counts[k] for k in keys if k in claim.counts), None)
    if noun is not None:
        if not any(word_in(noun, u.words) for u in window):
            return False  # "136 career interceptions" is not stated where interceptions are never named
        if _beside_other(noun, keys, window) and not _beside(noun, keys, unit):
            return False  # the noun it counts stands beside another number there ("interceptions with 24")
    return _beside(needs, keys, unit) or not _beside_other(needs, keys, window)


def _beside(words: frozenset[str], keys: list[str], unit: Unit) -> bool:
    """One of `words` stands next to the number (`keys`) in `unit`."""
    return any(_related(words, unit.numbers.get(k, frozenset())) for k in keys)


def _beside_other(words: frozenset[str], keys: list[str], window: list[Unit]) -> bool:
    """One of `words` stands next to another number than `keys` somewhere in `window`."""
    return any(_related(words, around) for u in window for k, around in u.numbers.items() if k not in keys)


def _related(words: frozenset[str], others: frozenset[str]) -> bool:
    """A word in common, one the start of the other ("old" / "oldest": stems do not always join them), or one inside
    the other (a compound: «билет» / «авиабилет»)."""
    if not words.isdisjoint(others):
        return True
    return any(
        (len(a) >= 3 and len(b) >= 3 and (a.startswith(b) or b.startswith(a))) or _inside(a, b) for a in words for b in others if ":" not in a + b
    )


def _inside(a: str, b: str) -> bool:
    return (len(a) >= COMPOUND_MIN and a in b) or (len(b) >= COMPOUND_MIN and b in a)


def windows(n: int, rows: frozenset[int] = frozenset()) -> list[tuple[int, ...]]:
    """Each unit, each two in a row, and each run of three to TABLE_RUN rows of one table: a claim may list what
    several rows say ("GPIO32–35 are ADC1 channels 4–7" is four rows of a pin map)."""
    runs = [tuple(range(i, i + k)) for i in sorted(rows) for k in range(3, TABLE_RUN + 1) if all(j in rows for j in range(i, i + k))]
    return [(i,) for i in range(n)] + [(i, i + 1) for i in range(n - 1)] + runs or [()]


def share(words: tuple[frozenset[str], ...], units: list[Unit]) -> float:
    """The share of a claim's content words found in `units`: the same form, or a long stem inside a compound."""
    if not words:
        return 0.0
    forms = frozenset().union(*(u.words for u in units))
    return sum(word_in(w, forms) for w in words) / len(words)


def word_in(word: frozenset[str], forms: frozenset[str]) -> bool:
    if not word.isdisjoint(forms):
        return True
    stems = [f for f in word if ":" not in f and len(f) >= COMPOUND_MIN]
    return bool(stems) and any(s in f for s in stems for f in forms if ":" not in f and len(f) > len(s))
