"""Claude.ai data export (`.zip`, its folder, or `conversations.json`) → `Conversation`s.

Both schemas: the 2024 one (`chat_messages[].text` with artifacts inline as `<antArtifact …>` tags) and the
newer one (`chat_messages[].content[]` blocks: text, thinking, tool_use, tool_result, voice_note,
token_budget). Attachments keep their `extracted_content`; `files` are listed by name. Messages are put in
time order (the export does not always list them so). Project notes and memory come from
`claude_ai_projects`. Streams `conversations.json` one conversation at a time.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from rag.errors import ImportFormatError
from rag.importers import claude_ai_projects
from rag.importers.markdown import Conversation, Turn, callout, fence, inline_code, one_line, parse_time, plain_title
from rag.importers.sources import Progress, Warn, check_array, iter_array, json_members

log = logging.getLogger(__name__)

SOURCE = "claude-ai"
HINT = "Pass the Claude.ai export .zip (Settings → Privacy → Export data) or the conversations.json inside it."
SPEAKERS = {"human": "User", "assistant": "Claude"}
_ARTIFACT = re.compile(r"<antArtifact\b([^>]*)>(.*?)(?:</antArtifact>|\Z)", re.DOTALL)
_THINKING = re.compile(r"<antThinking>(.*?)(?:</antThinking>|\Z)", re.DOTALL)
_ATTR = re.compile(r'(\w+)="([^"]*)"')
_ARTIFACT_LANG = {
    "text/html": "html",
    "text/markdown": "markdown",
    "image/svg+xml": "svg",
    "application/vnd.ant.mermaid": "mermaid",
    "application/vnd.ant.react": "jsx",
}
_SILENT_BLOCKS = {"token_budget"}


def read_export(source: Path, *, warn: Warn, progress: Progress) -> Iterator[Conversation]:
    """Every non-empty conversation of the export, then its project and memory notes."""
    members = json_members(source, "conversations.json", required=True, hint=HINT)
    extras = claude_ai_projects.load_extras(source, warn=warn)
    for member in members:
        check_array(member, "Claude.ai conversations", HINT)
        for number, item in enumerate(iter_array(member, warn=warn, progress=progress), start=1):
            if number == 1:
                _refuse_other_formats(item, member.label)
            conv = _safe_conversation(item, number, warn, extras.project_names)
            if conv is not None:
                yield conv
    yield from extras.notes


def _refuse_other_formats(item: object, label: str) -> None:
    if isinstance(item, dict) and "mapping" in item and "chat_messages" not in item:
        raise ImportFormatError(f"{label} is a ChatGPT export. Run `python -m rag import chatgpt` on it instead.")


def _safe_conversation(item: object, number: int, warn: Warn, projects: dict[str, str]) -> Conversation | None:
    """One conversation, or None (with a warning) when it is malformed or empty."""
    if not isinstance(item, dict):
        warn(f"Claude.ai conversation #{number} is not a JSON object; skipped it.")
        return None
    cid = str(item.get("uuid") or "")
    try:
        if not cid:
            raise ValueError("it has no uuid")
        messages = item.get("chat_messages")
        if not isinstance(messages, list):
            raise ValueError("it has no chat_messages list")
        return _conversation(item, cid, messages, warn, projects)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        warn(f"Claude.ai conversation #{number} {cid}: skipped it, {exc}.")
        return None


def _conversation(item: dict, cid: str, messages: list, warn: Warn, projects: dict[str, str]) -> Conversation | None:
    ordered = sorted(
        enumerate(m for m in messages if isinstance(m, dict)),
        key=lambda pair: (parse_time(pair[1].get("created_at")) is None, parse_time(pair[1].get("created_at")) or 0, pair[0]),
    )
    unknown: Counter[str] = Counter()
    turns = [t for _, m in ordered if (t := _turn(m, unknown)) is not None]
    if unknown:
        kinds = ", ".join(f"{k} ×{n}" for k, n in sorted(unknown.items()))
        warn(f"Claude.ai conversation {cid}: left out content blocks of unknown type ({kinds}).")
    if not turns:
        log.debug("Claude.ai conversation %s has no messages; skipped", cid)
        return None
    title = plain_title(str(item.get("name") or "")) or plain_title(_first_text(turns)) or "Untitled"
    return Conversation(
        source=SOURCE,
        conversation_id=cid,
        title=title,
        created=parse_time(item.get("created_at")) or turns[0].time,
        updated=parse_time(item.get("updated_at")) or turns[-1].time,
        project=_project_of(item, projects),
        turns=tuple(turns),
        summary=str(item.get("summary") or ""),
    )


def _project_of(item: dict, projects: dict[str, str]) -> str | None:
    project = item.get("project")
    if isinstance(project, dict):
        return str(project.get("name") or projects.get(str(project.get("uuid")), "")) or None
    uuid = item.get("project_uuid")
    return projects.get(str(uuid)) if uuid else None


def _first_text(turns: list[Turn]) -> str:
    return next((t.blocks[0] for t in turns if t.blocks and t.speaker == "User"), "")


def _turn(message: dict, unknown: Counter[str]) -> Turn | None:
    sender = str(message.get("sender") or "")
    content = message.get("content")
    if isinstance(content, list) and content:
        blocks = [b for block in content if (b := _block(block, unknown))]
    else:
        blocks = [legacy_text(str(message.get("text") or ""))]
    blocks += _attachments(message)
    blocks = [b for b in blocks if b.strip()]
    if not blocks:
        return None
    speaker = SPEAKERS.get(sender, sender.capitalize() or "Unknown")
    return Turn(speaker, parse_time(message.get("created_at")), tuple(blocks))


def legacy_text(text: str) -> str:
    """2024-schema message text: `<antArtifact>` → fenced block with a title; `<antThinking>` → callout."""
    text = text.replace("\x00", "")
    text = _THINKING.sub(lambda m: "\x00" + callout("thinking", "Thinking", m.group(1)) + "\x00", text)
    text = _ARTIFACT.sub(lambda m: "\x00" + _artifact_block(m.group(1), m.group(2)) + "\x00", text)
    return re.sub(r"\s*(?:\x00\s*)+", "\n\n", text).strip()


def _artifact_block(attributes: str, body: str) -> str:
    attrs = dict(_ATTR.findall(attributes))
    kind = attrs.get("type", "")
    lang = attrs.get("language") or _ARTIFACT_LANG.get(kind, "")
    label = attrs.get("title") or attrs.get("identifier") or "Artifact"
    return artifact(label, kind, lang, body)


def artifact(title: str, kind: str, lang: str, body: str) -> str:
    """An artifact as a bold title line and a fenced block."""
    detail = f" · {inline_code(kind)}" if kind else ""
    return f"**Artifact: {title}**{detail}\n\n{fence(body, lang)}"


def _block(block: object, unknown: Counter[str]) -> str:
    if not isinstance(block, dict):
        unknown[type(block).__name__] += 1
        return ""
    kind = str(block.get("type") or "")
    if kind == "text":
        return legacy_text(str(block.get("text") or ""))
    if kind == "thinking":
        summaries = "\n".join(
            s if isinstance(s, str) else str(s.get("summary", "")) for s in block.get("summaries") or [] if isinstance(s, (str, dict))
        )
        return callout("thinking", "Thinking", str(block.get("thinking") or summaries))
    if kind == "voice_note":
        return f"*Voice note:* {block.get('transcript') or block.get('text') or ''}".rstrip()
    if kind == "tool_use":
        return _tool_use(str(block.get("name") or "tool"), block.get("input") or {})
    if kind == "tool_result":
        return _tool_result(block)
    if kind not in _SILENT_BLOCKS:
        unknown[kind or "(no type)"] += 1
    return ""


def _tool_use(name: str, data: object) -> str:
    data = data if isinstance(data, dict) else {}
    if isinstance(data.get("content"), str) and data["content"].strip():
        title = str(data.get("title") or data.get("path") or data.get("id") or name)
        lang = str(data.get("language") or _ARTIFACT_LANG.get(str(data.get("type")), ""))
        return artifact(title, str(data.get("type") or ""), lang, data["content"])
    if isinstance(data.get("code"), str):
        return f"**Tool: {name}**\n\n{fence(data['code'], str(data.get('language') or ''))}"
    key = next((k for k in ("command", "query", "path", "url", "expression") if data.get(k) not in (None, "")), None)
    detail = f" {inline_code(one_line(str(data[key]), 160))}" if key else ""
    return f"**Tool: {name}**{detail}"


def _tool_result(block: dict) -> str:
    content = block.get("content")
    if isinstance(content, list):
        content = "\n".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
    brief = one_line(str(content or ""), 200)
    shown = ("error: " if block.get("is_error") else "") + (inline_code(brief) if brief else "")
    name = f" ({block['name']})" if block.get("name") else ""
    return f"*Tool result{name}:* {shown}" if shown else ""


def _attachments(message: dict) -> list[str]:
    blocks = []
    for att in message.get("attachments") or []:
        if not isinstance(att, dict):
            continue
        name = str(att.get("file_name") or "attachment")
        content = att.get("extracted_content")
        head = f"**Attachment: {name}**"
        blocks.append(f"{head}\n\n{fence(content, 'text')}" if isinstance(content, str) and content.strip() else head)
    names = [str(f.get("file_name") if isinstance(f, dict) else f) for f in message.get("files") or []]
    names = [n for n in names if n and n != "None"]
    if names:
        blocks.append("*Files:* " + ", ".join(names))
    return blocks
