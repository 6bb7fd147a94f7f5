"""Claude Code session logs (`*.jsonl`, e.g. `~/.claude/projects/<project>/`) → `Conversation`s.

One session file → one conversation; `<session>/subagents/agent-*.jsonl` → a conversation of its own that
names its parent session. Assistant content blocks of one message arrive on separate lines with the same
`message.id` and are grouped into one turn, even when other records come between them. Kept: user prompts
(slash commands as `/name args`), assistant text, thinking (folded), tool calls as one line each (tool name
+ key input, e.g. the command or file path) with a one-line result, and compaction summaries (folded).
Skipped: progress, file-history snapshots, queue operations, system records, meta/hook reminders. The
project is the last folder of the session's `cwd` (normalise worktrees with the alias table).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rag.errors import ImportFormatError
from rag.importers.markdown import Conversation, Turn, callout, fence, inline_code, one_line, parse_time, plain_title
from rag.importers.sources import Progress, Warn

log = logging.getLogger(__name__)

SOURCE = "claude-code"
HINT = "Pass a folder of Claude Code session logs (e.g. ~/.claude/projects/<project>) or one session .jsonl file."
_NOISE_TAGS = re.compile(
    r"^\s*<(local-command-\w+|system-reminder|task-notification|bash-stdout|bash-stderr|"
    r"user-prompt-submit-hook)>"
)
_COMMAND = re.compile(r"<command-name>(.*?)</command-name>", re.DOTALL)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)
_BASH_INPUT = re.compile(r"^\s*<bash-input>(.*?)</bash-input>", re.DOTALL)
_KEY_INPUTS = ("command", "file_path", "notebook_path", "pattern", "query", "url", "description", "prompt", "skill", "task_id", "path")


def read_sessions(source: Path, *, warn: Warn, progress: Progress) -> Iterator[Conversation]:
    """Every session under `source` (main sessions before subagents, so a subagent can link its parent)."""
    files = session_files(source)
    for done, path in enumerate(files, start=1):
        conv = _read_file(path, warn)
        progress(done, len(files))
        if conv is not None:
            yield conv


def session_files(source: Path) -> list[Path]:
    if source.is_file():
        if source.suffix != ".jsonl":
            raise ImportFormatError(f"{source} is not a .jsonl session log. {HINT}")
        return [source]
    files = [p for p in source.rglob("*.jsonl") if p.is_file()]
    if not files:
        raise ImportFormatError(f"No .jsonl session logs in {source}. {HINT}")
    return sorted(files, key=lambda p: (_is_subagent(p), p.as_posix()))


def _is_subagent(path: Path) -> bool:
    return path.parent.name == "subagents"


@dataclass
class _ToolCall:
    name: str
    key: str
    result: str = ""
    error: bool = False


@dataclass
class _Session:
    """Accumulates one session file; private and mutable, frozen into a Conversation at the end."""

    subagent: bool
    turns: list[tuple[str, object, list]] = field(default_factory=list)  # (speaker, time, blocks)
    by_message: dict[str, list] = field(default_factory=dict)
    tools: dict[str, _ToolCall] = field(default_factory=dict)
    meta: dict[str, str] = field(default_factory=dict)
    times: list = field(default_factory=list)

    def record(self, rec: dict) -> None:
        kind = rec.get("type")
        if kind == "custom-title" and rec.get("customTitle"):
            self.meta["title"] = str(rec["customTitle"])
        if kind not in ("user", "assistant") or (rec.get("isSidechain") and not self.subagent):
            return  # older logs kept subagent lines in the main file; they have their own note
        for key in ("sessionId", "agentId", "cwd"):
            if rec.get(key) and key not in self.meta:
                self.meta[key] = str(rec[key])
        message = rec.get("message")
        if not isinstance(message, dict):
            return
        self.times.append(parse_time(rec.get("timestamp")))
        if kind == "assistant":
            self._assistant(rec, message)
        elif rec.get("isCompactSummary"):
            self._turn("Context", rec, [callout("summary", "Summary of the earlier conversation", _text(message.get("content")))])
        elif not rec.get("isMeta"):
            self._user(rec, message.get("content"))

    def _turn(self, speaker: str, rec: dict, blocks: list) -> list:
        self.turns.append((speaker, parse_time(rec.get("timestamp")), blocks))
        return blocks

    def _assistant(self, rec: dict, message: dict) -> None:
        mid = str(message.get("id") or rec.get("uuid") or len(self.turns))
        blocks = self.by_message.get(mid)
        if blocks is None:
            blocks = self.by_message[mid] = self._turn("Claude", rec, [])
        for block in message.get("content") or []:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text" and str(block.get("text") or "").strip():
                blocks.append(str(block["text"]).strip())
            elif kind == "thinking" and str(block.get("thinking") or "").strip():
                blocks.append(callout("thinking", "Thinking", str(block["thinking"])))
            elif kind == "tool_use":
                call = _ToolCall(str(block.get("name") or "tool"), _key_input(block.get("input")))
                self.tools[str(block.get("id"))] = call
                blocks.append(call)

    def _user(self, rec: dict, content: object) -> None:
        parts = [content] if isinstance(content, str) else content if isinstance(content, list) else []
        texts = []
        for part in parts:
            if isinstance(part, dict) and part.get("type") == "tool_result":
                self._result(part)
            elif isinstance(part, dict) and part.get("type") == "image":
                texts.append("[image]")
            elif text := _prompt_text(part.get("text") if isinstance(part, dict) else part):
                texts.append(text)
        if texts:
            self._turn("User", rec, texts)

    def _result(self, part: dict) -> None:
        call = self.tools.get(str(part.get("tool_use_id")))
        if call is not None:
            call.result = one_line(_text(part.get("content")), 120)
            call.error = bool(part.get("is_error"))

    def conversation(self, path: Path) -> Conversation | None:
        turns = [Turn(s, t, tuple(_render_blocks(b))) for s, t, b in self.turns]
        turns = [t for t in turns if t.blocks]
        if not turns:
            return None
        session = self.meta.get("sessionId") or path.stem
        agent = self.meta.get("agentId") or path.stem.removeprefix("agent-")
        first = re.sub(r"`+", "", next((t.blocks[0] for t in turns if t.speaker == "User"), ""))
        title = plain_title(self.meta.get("title") or first, 70) or f"Session {session[:8]}"
        times = [t for t in self.times if t]
        return Conversation(
            source=SOURCE,
            conversation_id=f"{session}/agent-{agent}" if self.subagent else session,
            title=f"Subagent – {title}" if self.subagent else title,
            created=min(times, default=None),
            updated=max(times, default=None),
            project=Path(self.meta["cwd"]).name if self.meta.get("cwd") else None,
            turns=tuple(turns),
            parent_id=session if self.subagent else None,
        )


def _read_file(path: Path, warn: Warn) -> Conversation | None:
    session = _Session(subagent=_is_subagent(path))
    bad = []
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    bad.append(number)
                    continue
                if isinstance(rec, dict):
                    session.record(rec)
    except OSError as exc:
        warn(f"{path}: could not read it ({exc}); skipped it.")
        return None
    if bad:
        lines = ", ".join(map(str, bad[:5])) + (" …" if len(bad) > 5 else "")
        warn(f"{path}: {len(bad)} line(s) are not valid JSON (line {lines}); imported the rest.")
    conv = session.conversation(path)
    if conv is None:
        log.info("%s: no user or assistant messages; nothing to import", path)
    return conv


def _prompt_text(text: object) -> str:
    """A user prompt as shown to a reader: slash commands as `/name args`, tool/hook chatter dropped."""
    text = str(text or "").strip()
    if not text or _NOISE_TAGS.match(text):
        return ""
    if bash := _BASH_INPUT.match(text):
        return inline_code("! " + bash.group(1).strip())
    if command := _COMMAND.search(text):
        args = _COMMAND_ARGS.search(text)
        shown = command.group(1).strip() + (" " + args.group(1).strip() if args and args.group(1).strip() else "")
        return inline_code(one_line(shown, 200)) + ("" if "\n" not in shown else "\n\n" + fence(shown))
    return text


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [str(c.get("text", "")) if c.get("type", "text") == "text" else f"[{c.get('type')}]" for c in content if isinstance(c, dict)]
        return "\n".join(parts)
    return ""


def _key_input(data: object) -> str:
    if not isinstance(data, dict):
        return ""
    if isinstance(data.get("todos"), list):
        return f"{len(data['todos'])} todos"
    if isinstance(data.get("questions"), list) and data["questions"]:
        first = data["questions"][0]
        return one_line(str(first.get("question") if isinstance(first, dict) else first), 160)
    key = next((k for k in _KEY_INPUTS if isinstance(data.get(k), str) and data[k].strip()), None)
    if key is None:
        return ""
    value = one_line(data[key], 160)
    where = data.get("path") if key == "pattern" and isinstance(data.get("path"), str) else ""
    kind = data.get("subagent_type") if key == "description" else ""
    return value + (f" in {where}" if where else "") + (f" ({kind})" if kind else "")


def _render_blocks(blocks: list) -> list[str]:
    """Text blocks as they are; runs of tool calls as one tight list."""
    rendered: list[str] = []
    tools: list[str] = []
    for block in blocks + [None]:
        if isinstance(block, _ToolCall):
            line = f"- **{block.name}**" + (f" {inline_code(block.key)}" if block.key else "")
            result = ("error: " if block.error else "") + (inline_code(block.result) if block.result else "")
            tools.append(line + (f" → {result}" if result else ""))
            continue
        if tools:
            rendered.append("\n".join(tools))
            tools = []
        if block:
            rendered.append(block)
    return rendered
