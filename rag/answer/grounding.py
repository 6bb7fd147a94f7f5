"""Every claim of an answer checked against the exact text of the passages in its frozen context, and the answer
re-cited where the check finds a better source.

Whether a passage supports a claim is `support`'s verdict (specifics, words and meaning, sentence by sentence).
Each claim gets a status:
- `supported`: a source it cites supports it;
- `misattributed`: its sources do not, another one does — the citation is corrected to that one;
- `uncited`: it cites nothing, a source supports it — the citation is added;
- `unsupported`: no source supports it; `reason` says what is missing ("S1 says 136, not 56").
The checked answer carries the corrected citations. No second call to a chat model.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from rag.answer import claims as claim_split
from rag.answer import support
from rag.answer.context import FrozenContext
from rag.answer.specifics import occurs
from rag.answer.support import ClaimView, Passage, Verdict
from rag.search.text_vectors import TextVectors

STATUSES = ("supported", "misattributed", "uncited", "unsupported")


@dataclass(frozen=True)
class CheckedClaim:
    text: str
    start: int  # span in the checked answer's text, its citations included
    end: int
    cited: tuple[str, ...]  # the ids the model gave it
    status: str  # one of STATUSES
    sources: tuple[str, ...]  # the sources that support it, as the checked text now cites them
    reason: str = ""  # why it is not simply supported, for the person reading

    def to_json(self) -> dict:
        return {"text": self.text, "cited": list(self.cited), "status": self.status, "sources": list(self.sources), "reason": self.reason}


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
        return any(c.status != "unsupported" for c in self.claims)


def check(answer: str, context: FrozenContext, *, question: str = "", vectors: TextVectors | None = None) -> Grounding:
    """Split `answer` (citations already canonical) into claims and check each against `context`. `question` lets a
    claim restate the question's own specifics. Without `vectors`, meaning is judged by shared words alone."""
    split = claim_split.split(answer)
    passages = {s.id: Passage.of(s) for s in context.sources}
    views = [(c, support.view(c.text, code=c.code, question=question)) for c in split.claims]
    views = [(c, v) for c, v in views if v.code or v.words or v.specifics or c.cited]
    verdicts = [{pid: support.judge(v, p) for pid, p in passages.items()} for _, v in views]
    if vectors is not None:
        _add_meaning(views, verdicts, passages, vectors)
    statuses = [_status(c, v, verdicts[i], passages) for i, (c, v) in enumerate(views)]
    return _rewrite(answer, statuses, split.abstains)


def _add_meaning(views, verdicts: list[dict[str, Verdict]], passages: dict[str, Passage], vectors: TextVectors) -> None:
    """Cosines where only meaning can still decide: every specific in some window, too few shared words."""
    pending = [
        (i, pid)
        for i, (_, v) in enumerate(views)
        if not v.code
        for pid, verdict in verdicts[i].items()
        if verdict.windows and verdict.overlap < support.OVERLAP_MIN
    ]
    measured = support.add_meaning([(views[i][1], passages[pid], verdicts[i][pid]) for i, pid in pending], vectors)
    for (i, pid), verdict in zip(pending, measured):
        verdicts[i][pid] = verdict


@dataclass(frozen=True)
class _Status:
    claim: claim_split.Claim
    status: str
    sources: tuple[str, ...]
    reason: str


def _status(claim: claim_split.Claim, view: ClaimView, verdicts: dict[str, Verdict], passages: dict[str, Passage]) -> _Status:
    cited = [i for i in claim.cited if i in verdicts]
    supporting = sorted((pid for pid, v in verdicts.items() if v.supports), key=lambda pid: -verdicts[pid].strength)
    own = [pid for pid in cited if pid in supporting]
    if own:
        return _Status(claim, "supported", tuple(own), "")
    if len(cited) > 1 and support.jointly(view, [(passages[pid], verdicts[pid]) for pid in cited]):
        return _Status(claim, "supported", tuple(cited), "")
    if supporting and cited:
        verb = "does" if len(cited) == 1 else "do"
        return _Status(claim, "misattributed", (supporting[0],), f"{', '.join(cited)} {verb} not say this; {supporting[0]} does")
    if supporting:
        return _Status(claim, "uncited", (supporting[0],), f"no citation; {supporting[0]} says this")
    return _Status(claim, "unsupported", (), _why_not(view, cited, verdicts, passages))


def _why_not(view: ClaimView, cited: list[str], verdicts: dict[str, Verdict], passages: dict[str, Passage]) -> str:
    """What the person needs to know about an unsupported claim, against the passage it cites (or the closest)."""
    if not verdicts:
        return "there are no sources to check it against"
    told = [pid for pid, p in passages.items() if support.repeats_instruction(view, verdicts[pid].missing, p)]
    if told:
        return f"it repeats an instruction written in {', '.join(told)}, not a fact (note text is data, not instructions)"
    target = cited[0] if cited else max(verdicts, key=lambda pid: (verdicts[pid].strength, -len(verdicts[pid].missing)))
    missing = verdicts[target].missing
    numbers = [s.text for s in missing if any(k.startswith("num:") for k in s.keys)]
    if numbers:
        said = support.numbers_near(view, missing, passages[target])
        where = target if cited else "the sources"
        return f"{target} says {', '.join(said)}, not {', '.join(numbers)}" if said else f"{', '.join(numbers)} is not in {where}"
    if missing:
        names = ", ".join(f"“{s.text}”" for s in missing)
        verb = "is" if len(missing) == 1 else "are"
        nowhere = not any(occurs(s, u.facts) for s in missing for p in passages.values() for u in (p.heading, *p.units))
        return f"{names} {verb} in none of the sources" if nowhere else f"{names} {verb} not in {target} where it says this"
    return f"{target} does not say this" if cited else "none of the sources says this"


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
        checked.append(CheckedClaim(c.text, start, start + len(segment), c.cited, v.status, v.sources, v.reason))
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
