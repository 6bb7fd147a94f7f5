"""A claim as the check reads it (`ClaimView`): the specifics that must occur in a passage, its content words other
than its names (what it says of them), the words beside its numbers, and what the question already names — the
person's premise, not the notes' to state. Apart from `support`, which judges such a view against a passage. Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rag.answer.counted import counted_nouns, number_contexts
from rag.answer.specifics import Specific, content_words, specifics
from rag.text import sentences


@dataclass(frozen=True)
class ClaimView:
    """A claim as the check reads it: what must occur, and the words that should (its content words other than its
    names: what it says of them; a name that is not said to do what the claim says proves nothing)."""

    text: str
    script: str | None
    specifics: tuple[Specific, ...]  # to be found in the passage (the question's premises taken out, see `view`)
    words: tuple[frozenset[str], ...]
    code: bool = False
    numbers: dict[str, frozenset[str]] = field(default_factory=dict)  # each number → the words next to it in the claim
    counts: dict[str, frozenset[str]] = field(default_factory=dict)  # each number → the noun it counts, where written beside it
    premises: tuple[Specific, ...] = ()  # names taken from the question: the passage must mention them
    said: str = ""  # what it says beyond the question: without a lead-in that restates it ("To run it behind a proxy, …")


def view(text: str, *, code: bool = False, question: str = "") -> ClaimView:
    """The claim `text` for judging. Its own specifics must be in one window of a passage, with what it says of its
    names (its content words other than names). Specifics it repeats from the question are the person's premise:
    numbers and dates ("… in 2015?") need not be in the passage, names must be somewhere in it."""
    if code:
        return ClaimView(" ".join(text.lower().split()), None, (), (), code=True)
    specs, words = specifics(text), content_words(text)
    names = {k.split(":", 1)[1] for sp in specs if sp.soft for k in sp.keys if k.startswith(("stem:", "word:"))}
    words = [w for w in words if w.isdisjoint(names)] or words  # what is said of the names, not the names again
    premises: list[Specific] = []
    if question:
        asked = {k for s in specifics(question) for k in s.keys} | {k for w in content_words(question) for k in w}
        own_specs = [s for s in specs if s.keys.isdisjoint(asked)]
        if own_specs or any(w.isdisjoint(asked) for w in words):  # an answer, not a restatement of the question
            premises = [s for s in specs if s.soft and not s.keys.isdisjoint(asked)]
            specs = own_specs
    said = beyond_question(text, question)
    return ClaimView(
        text,
        sentences.script(text),
        tuple(specs),
        tuple(words),
        numbers=number_contexts(text, 3),
        counts=counted_nouns(text),
        premises=tuple(premises),
        said=said,
    )


_PURPOSE = re.compile(
    r"^\s*(?:to|in order to|if you want to|if you need to|when you want to|for|чтобы|для того,? чтобы|если (?:вы )?(?:хотите|нужно|надо)|для)\b"
    r"(?P<lead>[^,:;]{3,200})[,:]\s*(?P<rest>\S.*)$",
    re.IGNORECASE | re.DOTALL,
)
PREMISE_SHARE = 0.6  # a lead-in whose content words are this much the question's restates it


def beyond_question(text: str, question: str) -> str:
    """The claim without a lead-in of purpose that restates the question ("To swap the user in tests, use
    `dependency_overrides`" → "use `dependency_overrides`"): the question is the person's, not the notes' to state."""
    m = _PURPOSE.match(text)
    if not question or m is None:
        return text
    lead = content_words(m.group("lead"))
    asked = {k for w in content_words(question) for k in w}
    if not lead or sum(not w.isdisjoint(asked) for w in lead) / len(lead) < PREMISE_SHARE:
        return text
    rest = m.group("rest")
    return rest[:1].upper() + rest[1:]
