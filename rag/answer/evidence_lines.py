"""The lines of a source that state a claim (`Evidence`), and how the check finds them: the learned verdict's windows
(`evidence`), the rules' when the models cannot read (`support`), a code block as exact text. Apart from `grounding`,
which turns what is found into each claim's status and reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from rag.answer import evidence, support
from rag.answer.claim_view import ClaimView
from rag.answer.passage_units import Passage
from rag.answer.support import Verdict


@dataclass(frozen=True)
class Evidence:
    """The lines of a source that state a claim, as the check matched them."""

    source: str  # source id
    start_line: int
    end_line: int
    text: str  # the sentence(s), row or code as a reader sees them
    probability: float | None  # the learned verdict's probability that this states the claim (None: the rules decided)

    @classmethod
    def of(cls, window: evidence.Window, probability: float | None = None) -> Evidence:
        return cls(window.source, window.start_line, window.end_line, window.text, probability)

    def to_json(self) -> dict:
        p = None if self.probability is None else round(self.probability, 3)
        return {"source": self.source, "lines": [self.start_line, self.end_line], "text": self.text, "probability": p}


def learned(
    view: ClaimView, passages: dict[str, Passage], verdicts: dict[str, Verdict], vectors, pairs, previous
) -> tuple[dict[str, Evidence] | None, object]:
    """source id → its window that states the claim, for the sources whose best window reaches the learned verdict's
    threshold (best first), and the best window whatever its verdict (None: no window); None when the models could
    not read."""
    judged = evidence.judge_claim(view, passages, vectors=vectors, pairs=pairs, previous=previous, rules=verdicts)
    nearest = judged[0] if judged else None
    if not any(j.read for j in judged):
        return (None if judged or pairs is None else {}), nearest
    threshold = evidence.threshold(read_by_models=True)
    out: dict[str, Evidence] = {}
    for j in judged:
        if j.probability >= threshold and j.window.source not in out:
            out[j.window.source] = Evidence.of(j.window, j.probability)
    return out, nearest


def by_rules(view: ClaimView, passages: dict[str, Passage], judged: dict[str, Verdict], vectors) -> dict[str, Evidence]:
    """The rules' verdict (`support.judge`: every specific in one window and most of the claim's words there, or a
    close cosine): source id → the supporting window sharing most of the claim's words, strongest source first."""
    verdicts = dict(judged)  # the cosines measured here decide only this
    if vectors is not None:
        pending = [pid for pid, v in verdicts.items() if v.windows and v.overlap < support.OVERLAP_MIN]
        for pid, verdict in zip(pending, support.add_meaning([(view, passages[pid], verdicts[pid]) for pid in pending], vectors)):
            verdicts[pid] = verdict
    out = {}
    for pid in sorted((pid for pid, v in verdicts.items() if v.supports), key=lambda pid: -verdicts[pid].strength):
        p = passages[pid]
        window = max(verdicts[pid].windows, key=lambda w: support.share(view.words, [p.heading, *(p.units[i] for i in w)]) if view.words else 0.0)
        out[pid] = Evidence.of(evidence.window_of(p, window))
    return out


def as_code(passages: dict[str, Passage], verdicts: dict[str, Verdict], code: str) -> dict[str, Evidence]:
    """A code claim is stated where a source holds it as written: the source's code lines from its first line on."""
    wanted = [line.strip() for line in code.split("\n") if line.strip()]
    out = {}
    for pid, p in passages.items():
        if not wanted or not verdicts[pid].supports:
            continue
        starts = [i for i in range(p.prose, len(p.units)) if p.units[i].text.lower() == wanted[0].lower()]
        starts = starts or [i for i, u in enumerate(p.units) if wanted[0].lower() in u.text.lower()]  # inline code
        if not starts or not p.lines:
            continue
        span = range(starts[0], min(len(p.units), starts[0] + len(wanted)))
        text = "\n".join(p.units[i].text for i in span)
        out[pid] = Evidence(pid, p.lines[span[0]][0], p.lines[span[-1]][1], text, None)
    return out


def nearest(passage: Passage, verdict: Verdict) -> Evidence | None:
    if not verdict.nearest or not passage.lines:
        return None
    return Evidence.of(evidence.window_of(passage, verdict.nearest))
