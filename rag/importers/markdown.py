"""Conversation values and their Markdown rendering. Pure: knows nothing about files, exports or the vault.

A `Conversation` is what every importer produces: turns of already-rendered Markdown blocks. `render_note`
turns it into the note text (YAML frontmatter + `# title` + one `## Speaker · time` heading per turn;
consecutive turns of the same speaker share one heading). `render_index` lists notes by project and date.
The small block helpers (`fence`, `callout`, `inline_code`, `one_line`) are shared by the importers so that
code, artifacts, thinking and tool calls look the same whatever the source.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime

GENERAL = "General"
_NOT_YAML_PRINTABLE = re.compile("[^\t\n\r\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


@dataclass(frozen=True)
class Turn:
    """One message of a conversation: who spoke, when, and its content as Markdown blocks."""

    speaker: str
    time: datetime | None
    blocks: tuple[str, ...]


@dataclass(frozen=True)
class Conversation:
    """One conversation as read from an export, before it has a place in the vault."""

    source: str  # "claude-ai" | "claude-code" | "chatgpt"
    conversation_id: str
    title: str
    created: datetime | None
    updated: datetime | None
    project: str | None  # the raw project name found in the export; None means no project
    turns: tuple[Turn, ...]
    summary: str = ""
    parent_id: str | None = None  # a Claude Code subagent names the session that started it

    @property
    def messages(self) -> int:
        return len(self.turns)


@dataclass(frozen=True)
class IndexEntry:
    """One line of INDEX.md."""

    path: str  # vault-relative POSIX path of the note
    title: str
    created: datetime | None
    project: str
    messages: int


def parse_time(value: object) -> datetime | None:
    """ISO-8601 string or epoch seconds → aware UTC datetime; anything else → None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).astimezone(UTC)
    try:
        if isinstance(value, (int, float)):
            return datetime.fromtimestamp(float(value), tz=UTC)
        if isinstance(value, str) and value.strip():
            parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
            if parsed.tzinfo is None:
                parsed = parsed.replace(tzinfo=UTC)
            return parsed.astimezone(UTC)
    except (ValueError, OverflowError, OSError):
        return None
    return None


def iso(moment: datetime | None) -> str | None:
    """`2024-10-17T03:28:33Z`, or None."""
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ") if moment else None


def day(moment: datetime | None) -> str:
    """`2024-10-17`, or `undated`."""
    return moment.strftime("%Y-%m-%d") if moment else "undated"


def fence(text: str, lang: str = "") -> str:
    """A fenced code block whose fence is longer than any backtick run inside the text."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{text.strip(chr(10))}\n{ticks}"


def callout(kind: str, title: str, text: str) -> str:
    """A folded Obsidian callout (`> [!kind]- title`) holding `text`."""
    lines = [f"> [!{kind}]- {title}"]
    lines += [f"> {line}" if line else ">" for line in text.strip("\n").split("\n")]
    return "\n".join(lines)


def one_line(text: str, limit: int) -> str:
    """First non-empty line, shortened to `limit` characters with an ellipsis."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    more = len([ln for ln in text.splitlines() if ln.strip()]) > 1
    if len(line) > limit:
        return line[: limit - 1].rstrip() + "…"
    return line + (" …" if more else "")


def inline_code(text: str) -> str:
    """An inline code span that survives backticks inside the text."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def plain_title(text: str, limit: int = 80) -> str:
    """A one-line title: whitespace collapsed, shortened at a word boundary."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    cut = line[:limit].rsplit(" ", 1)[0] or line[:limit]
    return cut.rstrip(" .,;:") + "…"


def render_note(conv: Conversation, *, project: str, parent_note: str | None = None) -> str:
    """The note text for one conversation (without the import hash, which the writer adds)."""
    meta = {
        "source": conv.source,
        "conversation_id": conv.conversation_id,
        "title": conv.title,
        "created": iso(conv.created),
        "updated": iso(conv.updated),
        "project": project,
        "messages": conv.messages,
    }
    if conv.parent_id:
        meta["parent"] = conv.parent_id
    parts = [frontmatter(meta), f"# {conv.title}"]
    if parent_note:
        parts.append(f"Subagent of [[{parent_note.removesuffix('.md')}]].")
    if conv.summary.strip():
        parts.append(callout("summary", "Summary", conv.summary))
    parts += _render_turns(conv.turns)
    return "\n\n".join(parts) + "\n"


def _render_turns(turns: tuple[Turn, ...]) -> list[str]:
    parts: list[str] = []
    previous: str | None = None
    for turn in turns:
        if turn.speaker != previous:
            when = turn.time.strftime("%Y-%m-%d %H:%M") if turn.time else ""
            parts.append(f"## {turn.speaker} · {when}" if when else f"## {turn.speaker}")
            previous = turn.speaker
        parts += [block for block in turn.blocks if block.strip()]
    return parts


def frontmatter(meta: dict) -> str:
    """YAML frontmatter between `---` lines, keys in the given order.

    Strings are written double-quoted (a JSON string is a valid YAML one), so a title such as `yes`,
    `2024-01-01` or `a: b # c` stays a string, and the bytes do not depend on which YAML library is installed.
    """
    return "---\n" + "".join(f"{key}: {_scalar(value)}\n" for key, value in meta.items()) + "---"


def _scalar(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    quoted = json.dumps(str(value), ensure_ascii=False)
    return _NOT_YAML_PRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted)


def render_index(label: str, source: str, entries: list[IndexEntry]) -> str:
    """INDEX.md for one source: a section per project, newest conversations first."""
    meta = {"source": source, "title": f"{label} conversations", "conversations": len(entries)}
    parts = [frontmatter(meta), f"# {label} conversations"]
    projects = sorted({e.project for e in entries}, key=lambda p: (p != GENERAL, p.casefold()))
    for project in projects:
        rows = [e for e in entries if e.project == project]
        rows.sort(key=lambda e: (e.created.timestamp() if e.created else 0.0, e.title), reverse=True)
        lines = [f"- {day(e.created)} [[{e.path.removesuffix('.md')}|{_link_text(e.title)}]] · {e.messages} messages" for e in rows]
        parts += [f"## {project}", "\n".join(lines)]
    return "\n\n".join(parts) + "\n"


def _link_text(title: str) -> str:
    return re.sub(r"[\[\]|]", " ", title).strip() or "Untitled"
