"""ChatGPT data export (`.zip`, its folder, or `conversations.json`) → `Conversation`s.

Each conversation is a `mapping` tree of nodes; the branch the person last saw is followed from
`current_node` up to the root (edits and regenerations on other branches are left out). Skipped: empty
and visually hidden messages (system prompts, hidden tool calls), custom-instruction and memory context
(`user_editable_context`, `model_editable_context`), reasoning recaps. Kept: text, code (fenced, with the
tool it was sent to), multimodal parts (text, audio transcriptions; images as `[image]`), thoughts
(folded), tool output as one line. A conversation in a ChatGPT project keeps the project id (`g-p-…`) as
its project; give it a name in the alias table. Streams `conversations.json` one conversation at a time.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from rag.errors import ImportFormatError
from rag.importers.markdown import Conversation, Turn, callout, fence, inline_code, one_line, parse_time, plain_title
from rag.importers.sources import Progress, Warn, check_array, iter_array, json_members

log = logging.getLogger(__name__)

SOURCE = "chatgpt"
HINT = "Pass the ChatGPT export .zip (Settings → Data controls → Export data) or the conversations.json inside it."
SPEAKERS = {"user": "User", "assistant": "ChatGPT", "tool": "ChatGPT", "system": "System"}
_HIDDEN_TYPES = {"user_editable_context", "model_editable_context", "reasoning_recap"}
_CITATION = re.compile("\ue200[^\ue201]*\ue201")


def read_export(source: Path, *, warn: Warn, progress: Progress) -> Iterator[Conversation]:
    """Every non-empty conversation of the export, following each one's current branch."""
    for member in json_members(source, "conversations.json", required=True, hint=HINT):
        check_array(member, "ChatGPT conversations", HINT)
        for number, item in enumerate(iter_array(member, warn=warn, progress=progress), start=1):
            if number == 1 and isinstance(item, dict) and "chat_messages" in item and "mapping" not in item:
                raise ImportFormatError(f"{member.label} is a Claude.ai export. Run `python -m rag import claude-ai` on it instead.")
            conv = _safe_conversation(item, number, warn)
            if conv is not None:
                yield conv


def _safe_conversation(item: object, number: int, warn: Warn) -> Conversation | None:
    if not isinstance(item, dict):
        warn(f"ChatGPT conversation #{number} is not a JSON object; skipped it.")
        return None
    cid = str(item.get("conversation_id") or item.get("id") or "")
    try:
        if not cid:
            raise ValueError("it has no id")
        if not isinstance(item.get("mapping"), dict):
            raise ValueError("it has no mapping of messages")
        return _conversation(item, cid, warn)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        warn(f"ChatGPT conversation #{number} {cid}: skipped it, {exc}.")
        return None


def _conversation(item: dict, cid: str, warn: Warn) -> Conversation | None:
    mapping: dict = item["mapping"]
    current = item.get("current_node")
    if current not in mapping:
        warn(f"ChatGPT conversation {cid}: its current_node is missing; followed the newest branch instead.")
        current = _newest_leaf(mapping)
    unknown: Counter[str] = Counter()
    turns = [t for node in branch(mapping, current) if (t := _turn(mapping[node].get("message"), unknown))]
    if unknown:
        kinds = ", ".join(f"{k} ×{n}" for k, n in sorted(unknown.items()))
        warn(f"ChatGPT conversation {cid}: left out messages of unknown content type ({kinds}).")
    if not turns:
        log.debug("ChatGPT conversation %s has no visible messages; skipped", cid)
        return None
    gizmo = str(item.get("gizmo_id") or "")
    first_user = next((t.blocks[0] for t in turns if t.speaker == "User"), "")
    return Conversation(
        source=SOURCE,
        conversation_id=cid,
        title=plain_title(str(item.get("title") or "")) or plain_title(first_user) or "Untitled",
        created=parse_time(item.get("create_time")) or turns[0].time,
        updated=parse_time(item.get("update_time")) or turns[-1].time,
        project=gizmo if gizmo.startswith("g-p-") else None,
        turns=tuple(turns),
    )


def branch(mapping: dict, leaf: str | None) -> list[str]:
    """Node ids from the root down to `leaf` (cycles and dangling parents end the walk)."""
    path: list[str] = []
    node = leaf
    while node is not None and node in mapping and node not in path:
        path.append(node)
        node = mapping[node].get("parent") if isinstance(mapping[node], dict) else None
    return path[::-1]


def _newest_leaf(mapping: dict) -> str | None:
    leaves = [k for k, v in mapping.items() if isinstance(v, dict) and not v.get("children")]

    def created(node_id: str) -> float:
        message = mapping[node_id].get("message") or {}
        stamp = message.get("create_time") if isinstance(message, dict) else None
        return float(stamp) if isinstance(stamp, (int, float)) else 0.0

    return max(leaves, key=created, default=None)


def _turn(message: object, unknown: Counter[str]) -> Turn | None:
    if not isinstance(message, dict):
        return None
    metadata, content, author = (_dict(message.get(k)) for k in ("metadata", "content", "author"))
    kind = str(content.get("content_type") or "")
    if metadata.get("is_visually_hidden_from_conversation") or kind in _HIDDEN_TYPES:
        return None
    role = str(author.get("role") or "")
    if role == "tool":
        block = _tool_output(message, content)
    else:
        block = _content(content, kind, str(message.get("recipient") or "all"), unknown)
    if not block.strip():
        return None
    return Turn(SPEAKERS.get(role, role.capitalize() or "Unknown"), parse_time(message.get("create_time")), (block,))


def _dict(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def _content(content: dict, kind: str, recipient: str, unknown: Counter[str]) -> str:
    if kind in ("text", "multimodal_text"):
        return "\n\n".join(p for p in map(_part, content.get("parts") or []) if p.strip())
    if kind == "code":
        lang = str(content.get("language") or "")
        block = fence(str(content.get("text") or ""), "" if lang == "unknown" else lang)
        return f"**Tool call → {recipient}**\n\n{block}" if recipient != "all" else block
    if kind == "thoughts":
        thoughts = [t for t in content.get("thoughts") or [] if isinstance(t, dict)]
        text = "\n\n".join(str(t.get("content") or t.get("summary") or "") for t in thoughts)
        return callout("thinking", "Thinking", text) if text.strip() else ""
    unknown[kind or "(none)"] += 1
    return ""


def _part(part: object) -> str:
    if isinstance(part, str):
        return _CITATION.sub("", part).strip()
    if not isinstance(part, dict):
        return ""
    kind = str(part.get("content_type") or "")
    if kind == "image_asset_pointer":
        return "[image]"
    if isinstance(part.get("text"), str):
        return part["text"].strip()
    return ""


def _tool_output(message: dict, content: dict) -> str:
    name = str(_dict(message.get("author")).get("name") or "tool")
    kind = str(content.get("content_type") or "")
    if kind in ("text", "multimodal_text"):
        text = "\n".join(_part(p) for p in content.get("parts") or [])
    else:
        text = str(content.get("text") or content.get("result") or content.get("summary") or "")
    brief = one_line(text, 200)
    return f"*Tool result ({name}):* {inline_code(brief)}" if brief else ""
