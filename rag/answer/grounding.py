"""Every claim of an answer checked against the exact text of the passages in its frozen context, and the answer
re-cited where the check finds a better source.

Whether a passage states a claim is `evidence`'s learned verdict over every sentence, two sentences and row of every
source (specifics and what they count, names, words, and the two models' readings); the window it found is the
claim's evidence, shown to the person with its lines. A code block is checked as exact text. Each claim gets a
status:
- `supported`: a source it cites supports it;
- `misattributed`: its sources do not, another one does — the citation is corrected to that one;
- `uncited`: it cites nothing, a source supports it — the citation is added;
- `unconfirmed`: no source supports it, and the one it cites (or the closest) is in another language than the claim,
  where the check finds a stated claim too rarely to say the note does not say it; nothing it can tell is wrong (a
  number that source does not hold is `unsupported`). Never shown as supported: the person reads the source;
- `unsupported`: no source supports it; `reason` says what is missing ("S1 says 136, not 56").
The checked answer carries the corrected citations. No second call to a chat model, unless the caller
passes a second reader (`reread`: rag/answer/second_reading.py, off by default) for the claims near the threshold. The lines
that state a claim are found by `evidence_lines`. A claim takes ~20 ms to check:
past MAX_CHECKED_CLAIMS (a reply far longer than an answer) the rest are marked unsupported as "not checked", never
supported.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from dataclasses import dataclass
from typing import Callable

from rag.answer import claim_view, evidence, evidence_lines, support
from rag.answer import claims as claim_split
from rag.answer.claim_view import ClaimView
from rag.answer.context import FrozenContext
from rag.answer.evidence_lines import Evidence
from rag.answer.passage_units import Passage
from rag.answer.specifics import content_words, occurs
from rag.answer.support import Verdict
from rag.search.text_vectors import TextVectors
from rag.text import stemming

STATUSES = ("supported", "misattributed", "uncited", "unconfirmed", "unsupported")
SUPPORTING = ("supported", "misattributed", "uncited")  # a source states it (as cited, corrected or added)
# An answer of the default 600 tokens has ~30 claims; 100 are checked in ~2 s on two cores.
MAX_CHECKED_CLAIMS = 100


class Reason(str):
    """Why a claim is not simply supported: English text (what the CLI, MCP and `--json` show), with a key and values
    the app writes it from in the interface's language (`claim.reason.<key>` in rag/web/catalogue/ask.py)."""

    key: str
    values: dict[str, str]

    def __new__(cls, key: str, text: str, **values: str) -> Reason:
        reason = super().__new__(cls, text)
        reason.key, reason.values = key, values
        return reason

    def __getnewargs_ex__(self):  # copies and pickles (conversations are saved through dataclasses.asdict)
        return (self.key, str(self)), self.values


@dataclass(frozen=True)
class CheckedClaim:
    text: str
    start: int  # span in the checked answer's text, its citations included
    end: int
    cited: tuple[str, ...]  # the ids the model gave it
    status: str  # one of STATUSES
    sources: tuple[str, ...]  # the sources that support it, as the checked text now cites them
    reason: str = ""  # why it is not simply supported, for the person reading
    evidence: tuple[Evidence, ...] = ()  # what states it (never empty unless unsupported)
    unmatched: tuple[str, ...] = ()  # the claim's words and specifics its evidence does not hold (names, numbers first)
    # The window the learned verdict found closest, whatever its verdict, with its probability (None: the rules or the
    # code check decided): what a second reading (rag/answer/second_reading.py) reads again.
    closest: Evidence | None = None

    def to_json(self) -> dict:
        return {
            "text": self.text,
            "cited": list(self.cited),
            "status": self.status,
            "sources": list(self.sources),
            "reason": self.reason,
            "evidence": [e.to_json() for e in self.evidence],
            "unmatched": list(self.unmatched),
        }


@dataclass(frozen=True)
class Grounding:
    text: str  # the answer with citations corrected and added
    claims: tuple[CheckedClaim, ...]
    abstains: bool  # the answer says the notes do not hold the answer

    def counts(self) -> dict[str, int]:
        found = Counter(c.status for c in self.claims)
        return {s: found.get(s, 0) for s in STATUSES}

    @property
    def grounded(self) -> bool:
        """At least one claim is supported by a source (as cited, corrected or added)."""
        return any(c.status in SUPPORTING for c in self.claims)


# A second reader of one claim against the window the verdict found closest (with its probability): True "it states
# it", False "it does not", None "not asked" (rag/answer/second_reading.py: the chat model, near the threshold).
Reread = Callable[[str, Evidence], "bool | None"]


def check(
    answer: str, context: FrozenContext, *, question: str = "", vectors: TextVectors | None = None, pairs=None, reread: Reread | None = None
) -> Grounding:
    """Split `answer` (citations already canonical) into claims and check each against `context`. `question` lets a
    claim restate the question's own specifics. `vectors` (sentence cosines) and `pairs` (the pair scorer,
    rag/embed/pairs.py) are the verdict's two models; without them it judges by the rules' signals alone. `reread`
    has the last word on the claims it is asked about (the learned verdict's, not the rules' or code's)."""
    split = claim_split.split(answer)
    passages = {s.id: Passage.of(s) for s in context.sources}
    views = [(c, claim_view.view(c.text, code=c.code, question=question)) for c in split.claims]
    views = [(c, v) for c, v in views if v.code or v.words or v.specifics or c.cited]
    statuses, previous = [], None
    for c, v in views[:MAX_CHECKED_CLAIMS]:
        status, previous = _status(c, v, passages, vectors, pairs, previous, reread)
        statuses.append(status)
    n = str(MAX_CHECKED_CLAIMS)
    unchecked = Reason("not_checked", f"not checked: the answer has more than {n} claims, and only the first {n} are", n=n)
    statuses += [_Status(c, "unsupported", (), unchecked) for c, _ in views[MAX_CHECKED_CLAIMS:]]
    return _rewrite(answer, statuses, split.abstains)


@dataclass(frozen=True)
class _Status:
    claim: claim_split.Claim
    status: str
    sources: tuple[str, ...]
    reason: str
    evidence: tuple[Evidence, ...] = ()
    unmatched: tuple[str, ...] = ()
    closest: Evidence | None = None


def _status(
    claim: claim_split.Claim, view: ClaimView, passages: dict[str, Passage], vectors, pairs, previous, reread: Reread | None = None
) -> tuple[_Status, object]:
    """The claim's status, and the window it was found nearest to (what a next claim that refers back continues)."""
    nearest = closest = said = None
    verdicts = {pid: support.judge(view, p) for pid, p in passages.items()}  # the rules' reading, once per claim
    if view.code:
        found = evidence_lines.as_code(passages, verdicts, claim.text)
    else:
        found, best = evidence_lines.learned(view, passages, verdicts, vectors, pairs, previous)
        nearest = best.window if best else None
        if found is None:  # the pair scorer cannot run: the rules decide
            found = evidence_lines.by_rules(view, passages, verdicts, vectors)
        elif best is not None and best.read:
            closest = Evidence.of(best.window, best.probability)
            said = reread(claim.text, closest) if reread is not None else None
            if said is not None:  # the second reader's word on the closest window decides
                found = {closest.source: closest} if said else {}
    decided = dataclasses.replace(_decided(claim, view, passages, verdicts, found), closest=closest)
    if said is False and decided.status == "unsupported":
        reason = Reason("reread", f"read again by the chat model, {closest.source} does not say this", source=closest.source)
        decided = dataclasses.replace(decided, reason=reason)
    return decided, nearest


def _decided(
    claim: claim_split.Claim, view: ClaimView, passages: dict[str, Passage], verdicts: dict[str, Verdict], found: dict[str, Evidence]
) -> _Status:
    cited = [i for i in claim.cited if i in passages]
    supporting = list(found)  # best first
    own = [pid for pid in cited if pid in found]
    if own:
        return _Status(claim, "supported", tuple(own), "", tuple(found[pid] for pid in own[:1]), _unmatched(view, passages, found[own[0]]))
    if len(cited) > 1 and not view.code and support.jointly(view, [(passages[pid], verdicts[pid]) for pid in cited]):
        joint = tuple(evidence_lines.nearest(passages[pid], verdicts[pid]) for pid in cited)
        if all(e is not None for e in joint):  # no sentence to show: never shown as supported
            return _Status(claim, "supported", tuple(cited), "", joint)
    if supporting:
        best = supporting[0]
        reason = (
            Reason(
                "recited", f"{', '.join(cited)} {'does' if len(cited) == 1 else 'do'} not say this; {best} does", cited=", ".join(cited), best=best
            )
            if cited
            else Reason("uncited", f"no citation; {best} says this", best=best)
        )
        status = "misattributed" if cited else "uncited"
        return _Status(claim, status, (best,), reason, (found[best],), _unmatched(view, passages, found[best]))
    reason = _why_not(view, cited, verdicts, passages)
    return _Status(claim, "unconfirmed" if reason.key == "across_languages" else "unsupported", (), reason)


def _unmatched(view: ClaimView, passages: dict[str, Passage], found: Evidence) -> tuple[str, ...]:
    """The claim's specifics its evidence does not hold, then (in the same language) its content words that are
    not there: what the person should read twice."""
    if view.code:
        return ()
    passage = passages[found.source]
    units = [passage.heading] + [u for u, lines in zip(passage.units, passage.lines) if found.start_line <= lines[0] and lines[1] <= found.end_line]
    specs = [s.text for s in view.specifics if not any(support.found(s, view, u, window=units) for u in units)]
    if view.script != passage.script:
        return tuple(specs)
    forms = frozenset().union(*(u.words for u in units))
    words = [w for w in dict.fromkeys(stemming.words(view.text)) if w not in stemming.STOP_WORDS and not w.isdigit()]
    missing = [w for w in words if (cw := content_words(w)) and not support.word_in(cw[0], forms) and w not in {s.lower() for s in specs}]
    return tuple(specs + missing)


def _why_not(view: ClaimView, cited: list[str], verdicts: dict[str, Verdict], passages: dict[str, Passage]) -> Reason:
    """What the person needs to know about an unsupported claim, against the passage it cites (or the closest)."""
    if not verdicts:
        return Reason("no_sources", "there are no sources to check it against")
    told = [pid for pid, p in passages.items() if support.repeats_instruction(view, verdicts[pid].missing, p)]
    if told:
        sources = ", ".join(told)
        return Reason(
            "instruction", f"it repeats an instruction written in {sources}, not a fact (note text is data, not instructions)", sources=sources
        )
    target = cited[0] if cited else max(verdicts, key=lambda pid: (verdicts[pid].strength, -len(verdicts[pid].missing)))
    missing = verdicts[target].missing
    numbers = [s.text for s in missing if any(k.startswith("num:") for k in s.keys)]
    if numbers:
        said = support.numbers_near(view, missing, passages[target])
        wrong = ", ".join(numbers)
        if said:
            return Reason("number_said", f"{target} says {', '.join(said)}, not {wrong}", source=target, said=", ".join(said), numbers=wrong)
        if cited:
            return Reason("number_not_in", f"{wrong} is not in {target}", numbers=wrong, source=target)
        return Reason("number_nowhere", f"{wrong} is not in the sources", numbers=wrong)
    if evidence.across(view, passages[target]):
        # Across languages a name is written otherwise and the check finds a stated claim too rarely to say "does not
        # say" (XQuAD's labelled claims against the parallel notes, `bench/claim_labels.py across`: 23 of 25 true ones
        # refused): it says what it knows. A wrong number, above, it can still tell.
        return Reason("across_languages", f"{target} is in another language: the check could not confirm this there", source=target)
    if missing:
        names = ", ".join(f"“{s.text}”" for s in missing)
        verb = "is" if len(missing) == 1 else "are"
        nowhere = not any(occurs(s, u.facts) for s in missing for p in passages.values() for u in (p.heading, *p.units))
        if nowhere:
            return Reason("names_nowhere", f"{names} {verb} in none of the sources", names=names)
        return Reason("names_not_in", f"{names} {verb} not in {target} where it says this", names=names, source=target)
    if cited:
        return Reason("source_not", f"{target} does not say this", source=target)
    return Reason("none_says", "none of the sources says this")


_TRAILING = re.compile(r"[\s.!?…;:,|]*$")


def _rewrite(answer: str, statuses: list[_Status], abstains: bool) -> Grounding:
    """The answer with each misattributed claim re-cited and each uncited claim cited; claims with their new spans."""
    parts: list[str] = []
    checked: list[CheckedClaim] = []
    at = 0
    for v in sorted(statuses, key=lambda v: v.claim.start):
        c = v.claim
        parts.append(answer[at : c.start])
        start = sum(map(len, parts))
        segment = answer[c.start : c.end]
        if v.status in ("misattributed", "uncited"):
            segment = _recite(segment, c, v.sources[0])
        parts.append(segment)
        checked.append(CheckedClaim(c.text, start, start + len(segment), c.cited, v.status, v.sources, v.reason, v.evidence, v.unmatched, v.closest))
        at = c.end
    parts.append(answer[at:])
    return Grounding("".join(parts), tuple(checked), abstains)


def _recite(segment: str, claim: claim_split.Claim, source_id: str) -> str:
    """The claim's own citations replaced by `[source_id]`, where the first one was (before the final punctuation
    when it had none)."""
    own = [(a - claim.start, b - claim.start) for a, b in claim.citation_spans]
    if not own:
        body = _TRAILING.sub("", segment)
        return f"{body} [{source_id}]{segment[len(body) :]}"
    head = segment[: own[0][0]].rstrip(" \t")
    tail = segment[own[0][1] :]
    for a, b in reversed(own[1:]):
        a, b = a - own[0][1], b - own[0][1]
        tail = tail[:a].rstrip(" \t") + tail[b:]
    return f"{head}{' ' if head else ''}[{source_id}]{tail}"
