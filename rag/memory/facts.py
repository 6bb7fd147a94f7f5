"""A fact an agent keeps, as a note: `Memory/Facts/<category>/<YYYY-MM-DD> <slug>.md`, the fact as the body and its
bookkeeping as frontmatter (id, category, tags, entities, trust, helpful, unhelpful, created, updated, supersedes).

The vault stays the source of truth: a fact edited in Obsidian is read back as edited. Pure apart from nothing: the
writing is `rag.memory.memory`'s, through the hash-guarded note writes of `rag.notes.files`.
"""

from __future__ import annotations

import functools
import re
import secrets
from dataclasses import dataclass, replace
from datetime import UTC, datetime

import yaml

from rag.notes.vault import parse_frontmatter

FACTS_FOLDER = "Memory/Facts"
ARCHIVE_FOLDER = "Memory/Archive"
DEFAULT_CATEGORY = "general"
DEFAULT_TRUST = 0.5
# Feedback moves trust part of the way to its bound: a helpful fact 10 % of the way to 1, an unhelpful one 20 % of
# the way to 0 (a wrong fact costs more than a right one earns); it never reaches either bound, so one vote can undo
# another.
HELPFUL_STEP = 0.10
UNHELPFUL_STEP = 0.20
TRUST_BOUNDS = (0.05, 0.99)
_SLUG = re.compile(r"[^\w\-]+")


@dataclass(frozen=True)
class Fact:
    id: str
    content: str
    category: str = DEFAULT_CATEGORY
    tags: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    trust: float = DEFAULT_TRUST
    helpful: int = 0
    unhelpful: int = 0
    created: str = ""  # ISO 8601, UTC
    updated: str = ""
    supersedes: str | None = None
    path: str = ""  # vault-relative, once written
    sha256: str = ""  # of the note as read, for a guarded write

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "content": self.content,
            "category": self.category,
            "tags": list(self.tags),
            "entities": list(self.entities),
            "trust": self.trust,
            "helpful": self.helpful,
            "unhelpful": self.unhelpful,
            "created": self.created,
            "updated": self.updated,
            "supersedes": self.supersedes,
            "path": self.path,
            "sha256": self.sha256,
        }


def now_iso() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


@functools.lru_cache(maxsize=65_536)  # recall asks for every candidate's `created`, again on every recall
def parse_time(value: str) -> float | None:
    """Seconds since the epoch of an ISO date or datetime ("2025-03-01", "2025-03-01T10:00:00Z"); None if unreadable."""
    try:
        moment = datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def new_id() -> str:
    return "f-" + secrets.token_hex(6)


def clean_category(category: str | None) -> str:
    """A folder-safe category: letters (any script), digits, `-` and `_`; "general" when nothing is left."""
    cleaned = _SLUG.sub("-", (category or "").strip().lower()).strip("-_")
    return cleaned[:40] or DEFAULT_CATEGORY


def fact_path(fact: Fact, taken) -> str:
    """`Memory/Facts/<category>/<YYYY-MM-DD> <first words>.md`, made unique against `taken(path) -> bool`."""
    day = (fact.created or now_iso())[:10]
    words = _SLUG.sub(" ", fact.content).split()[:6]
    slug = " ".join(words)[:60].strip() or fact.id
    base = f"{FACTS_FOLDER}/{clean_category(fact.category)}/{day} {slug}"
    path, n = f"{base}.md", 2
    while taken(path):
        path, n = f"{base} {n}.md", n + 1
    return path


def render(fact: Fact) -> str:
    """The fact's note: YAML frontmatter, then the content."""
    meta = {
        "id": fact.id,
        "category": fact.category,
        "tags": list(fact.tags),
        "entities": list(fact.entities),
        "trust": round(fact.trust, 4),
        "helpful": fact.helpful,
        "unhelpful": fact.unhelpful,
        "created": fact.created,
        "updated": fact.updated,
    }
    if fact.supersedes:
        meta["supersedes"] = fact.supersedes
    head = yaml.safe_dump(meta, allow_unicode=True, sort_keys=False, default_flow_style=None, width=10_000)
    return f"---\n{head}---\n{fact.content.strip()}\n"


def parse(path: str, text: str, sha256: str) -> Fact | None:
    """The fact a note holds, or None when it is not one (no `id` in its frontmatter)."""
    front = parse_frontmatter(text)
    data = front.data
    if front.error or not front.line_count or not isinstance(data, dict) or not data.get("id"):
        return None
    body = "\n".join(text.split("\n")[front.line_count :]).strip()
    return Fact(
        id=str(data["id"]).strip(),
        content=body,
        category=clean_category(str(data.get("category") or "")),
        tags=tuple(t.lstrip("#") for t in front.tags),
        entities=_names(data.get("entities")),
        trust=_bounded(data.get("trust")),
        helpful=_count(data.get("helpful")),
        unhelpful=_count(data.get("unhelpful")),
        created=_stamp(data.get("created")),
        updated=_stamp(data.get("updated")),
        supersedes=str(data["supersedes"]).strip() if data.get("supersedes") else None,
        path=path,
        sha256=sha256,
    )


def with_feedback(fact: Fact, helpful: bool) -> Fact:
    """The fact after one vote: trust moved by the documented rule, the vote counted, `updated` now."""
    low, high = TRUST_BOUNDS
    if helpful:
        trust = fact.trust + HELPFUL_STEP * (1.0 - fact.trust)
    else:
        trust = fact.trust - UNHELPFUL_STEP * fact.trust
    return replace(
        fact,
        trust=min(high, max(low, trust)),
        helpful=fact.helpful + int(helpful),
        unhelpful=fact.unhelpful + int(not helpful),
        updated=now_iso(),
    )


def _names(value) -> tuple[str, ...]:
    items = value if isinstance(value, (list, tuple)) else [value] if value not in (None, "") else []
    return tuple(dict.fromkeys(str(v).strip() for v in items if str(v).strip()))


def _bounded(value) -> float:
    try:
        trust = float(value)
    except (TypeError, ValueError):
        return DEFAULT_TRUST
    return min(1.0, max(0.0, trust)) if trust == trust else DEFAULT_TRUST  # NaN → default


def _count(value) -> int:
    try:
        return max(0, int(value))
    except (TypeError, ValueError):
        return 0


def _stamp(value) -> str:
    """YAML reads bare dates as datetime objects: back to ISO text."""
    if value is None:
        return ""
    if hasattr(value, "isoformat"):
        text = value.isoformat()
        return text.replace("+00:00", "Z")
    return str(value).strip()
