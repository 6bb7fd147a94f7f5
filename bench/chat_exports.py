"""A year of synthetic chats written as the three real export formats, for bench/year_of_chats.py to import through
the product's importers: a Claude.ai `conversations.json` (both message schemas), a ChatGPT `conversations.json`
(a `mapping` tree) and Claude Code session logs (`<project>/<session>.jsonl`, tool calls and results included).

Seeded: the same seed and size give the same files. Dates: one year, day by day; a week is quiet (no chats) with
probability 0.15, weekends are a third as busy as weekdays, and a day's weight is log-normal, so busy days hold
several sessions. Turns: a conversation has log-normally many exchanges (median 9, a tail past 100); a prompt is
1-2 sentences or a real prompt (median ~150 characters), an answer log-normal (median ~1,500 characters, to 12,000)
of paragraphs in the conversation's language (Russian 30 % of conversations), with a code block in one answer of
five. The text is real (bench/chat_texts.py).
"""

from __future__ import annotations

import json
import random
import re
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from chat_texts import Paragraph, Texts

YEAR = 2025
CHARS_PER_CHUNK = 1000  # measured: the importers' notes make a chunk per ~1,000 characters of chat text
KINDS = (("claude-ai", 0.45), ("chatgpt", 0.35), ("claude-code", 0.20))
PROJECTS = ("notes-app", "thesis", "homelab", "garden-planner", "budget")


@dataclass
class Chat:
    kind: str
    id: str
    title: str
    lang: str
    project: str
    turns: list[tuple[str, datetime, str]] = field(default_factory=list)  # (user | assistant, time, text)


@dataclass
class Year:
    chats: list[Chat]
    used: set[tuple[str, str, int]]  # the XQuAD paragraphs the chats quote
    chars: int


def make_year(texts: Texts, chunks: int, seed: int) -> Year:
    """Chats until their text makes about `chunks` chunks."""
    rng = random.Random(seed)
    year = Year([], set(), 0)
    days = _day_weights(rng)
    while year.chars < chunks * CHARS_PER_CHUNK:
        kind = rng.choices([k for k, _ in KINDS], [w for _, w in KINDS])[0]
        day = rng.choices(range(len(days)), days)[0]
        start = datetime(YEAR, 1, 1, tzinfo=UTC) + timedelta(days=day, hours=rng.uniform(8, 23))
        year.chats.append(_chat(rng, texts, kind, start, year))
    year.chats.sort(key=lambda c: c.turns[0][1])
    return year


def _day_weights(rng: random.Random) -> list[float]:
    weeks = [0.0 if rng.random() < 0.15 else rng.lognormvariate(0, 0.6) for _ in range(53)]
    first = datetime(YEAR, 1, 1).weekday()
    return [weeks[(d + first) // 7] * (1.0 if (d + first) % 7 < 5 else 0.33) * rng.lognormvariate(0, 0.8) for d in range(365)]


def _chat(rng: random.Random, texts: Texts, kind: str, start: datetime, year: Year) -> Chat:
    lang = "ru" if rng.random() < 0.3 else "en"
    pools = texts.russian if lang == "ru" else texts.english
    weights = {"en": {"scifact": 0.85, "xquad": 0.1, "chats": 0.05}, "ru": {"xquad": 0.4, "docs": 0.6}}[lang]

    def paragraph() -> str:
        chosen: Paragraph = rng.choice(pools[rng.choices(list(weights), list(weights.values()))[0]])
        if chosen.key:
            year.used.add(chosen.key)
        return chosen.text

    exchanges = min(150, max(1, round(rng.lognormvariate(2.2, 1.0))))
    first = paragraph()
    chat = Chat(kind, str(uuid.UUID(int=rng.getrandbits(128))), " ".join(re.findall(r"\w+", first)[:6]), lang, rng.choice(PROJECTS))
    when = start
    for n in range(exchanges):
        prompt = _prompt(rng, texts, lang, first if n == 0 else paragraph())
        answer = _answer(rng, texts, paragraph)
        chat.turns.append(("user", when, prompt))
        when += timedelta(seconds=rng.uniform(5, 90))
        chat.turns.append(("assistant", when, answer))
        when += timedelta(seconds=rng.uniform(30, 600))
        year.chars += len(prompt) + len(answer)
    return chat


def _prompt(rng: random.Random, texts: Texts, lang: str, paragraph: str) -> str:
    if lang == "en" and rng.random() < 0.1:
        return rng.choice(texts.prompts)
    sentences = re.split(r"(?<=[.!?])\s+", paragraph)
    return " ".join(sentences[: rng.choice((1, 1, 2))])


def _answer(rng: random.Random, texts: Texts, paragraph) -> str:
    target = min(12_000, max(100, int(rng.lognormvariate(7.3, 0.8))))
    parts, size = [], 0
    while size < target:
        parts.append(paragraph())
        size += len(parts[-1])
    if rng.random() < 0.2:
        lang, code = rng.choice(texts.code)
        parts.insert(rng.randint(1, len(parts)), f"```{lang.lower()}\n{code}\n```")
    return "\n\n".join(parts)


def write_exports(year: Year, folder: Path) -> dict[str, Path]:
    """The three exports under `folder`; returns kind → the path to pass to `rag import KIND`."""
    by_kind = {kind: [c for c in year.chats if c.kind == kind] for kind, _ in KINDS}
    paths = {"claude-ai": folder / "claude-ai" / "conversations.json", "chatgpt": folder / "chatgpt" / "conversations.json"}
    for kind, render in (("claude-ai", _claude_ai), ("chatgpt", _chatgpt)):
        paths[kind].parent.mkdir(parents=True, exist_ok=True)
        paths[kind].write_text(json.dumps([render(c) for c in by_kind[kind]], ensure_ascii=True), encoding="utf-8")
    paths["claude-code"] = folder / "claude-code"
    for chat in by_kind["claude-code"]:
        path = paths["claude-code"] / f"-home-me-projects-{chat.project}" / f"{chat.id}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in _claude_code(chat)), encoding="utf-8")
    return paths


def _iso(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _claude_ai(chat: Chat) -> dict:
    """Even conversations in the 2024 schema (`text`), odd ones in the newer one (`content` blocks)."""
    newer = int(chat.id[-1], 16) % 2 == 1
    messages = []
    for n, (who, when, text) in enumerate(chat.turns):
        message = {"uuid": f"{chat.id[:28]}{n:08d}", "text": text, "sender": "human" if who == "user" else "assistant"}
        message |= {"created_at": _iso(when), "updated_at": _iso(when), "attachments": [], "files": []}
        if newer:
            message["content"] = [{"type": "text", "text": text}]
        messages.append(message)
    first, last = _iso(chat.turns[0][1]), _iso(chat.turns[-1][1])
    return {"uuid": chat.id, "name": chat.title, "created_at": first, "updated_at": last, "account": {"uuid": "bench"}, "chat_messages": messages}


def _chatgpt(chat: Chat) -> dict:
    mapping = {"root": {"id": "root", "message": None, "parent": None, "children": []}}
    parent = "root"
    for n, (who, when, text) in enumerate(chat.turns):
        node = f"n{n}"
        message = {"id": node, "author": {"role": who, "name": None, "metadata": {}}, "create_time": when.timestamp(), "update_time": None}
        message |= {"content": {"content_type": "text", "parts": [text]}, "status": "finished_successfully", "metadata": {}, "recipient": "all"}
        mapping[node] = {"id": node, "message": message, "parent": parent, "children": []}
        mapping[parent]["children"].append(node)
        parent = node
    times = (chat.turns[0][1].timestamp(), chat.turns[-1][1].timestamp())
    return {"title": chat.title, "create_time": times[0], "update_time": times[1], "mapping": mapping, "current_node": parent, "id": chat.id}


def _claude_code(chat: Chat) -> list[dict]:
    """A session log: user prompts, assistant text, and after every third answer a Bash call with its result."""
    base = {"isSidechain": False, "userType": "external", "cwd": f"/home/me/projects/{chat.project}", "sessionId": chat.id, "version": "2.1.39"}
    records: list[dict] = []
    for n, (who, when, text) in enumerate(chat.turns):
        stamp = {"timestamp": _iso(when), "uuid": f"{chat.id[:28]}{n:08d}"}
        if who == "user":
            records.append(base | stamp | {"type": "user", "message": {"role": "user", "content": text}})
            continue
        message = {"id": f"msg_{chat.id[:8]}{n}", "type": "message", "role": "assistant", "model": "claude-opus-4-6"}
        records.append(base | stamp | {"type": "assistant", "message": message | {"content": [{"type": "text", "text": text}]}})
        if n % 6 == 1:
            tool = {
                "type": "tool_use",
                "id": f"toolu_{chat.id[:8]}{n}",
                "name": "Bash",
                "input": {"command": f"git log --oneline -3 -- {chat.project}"},
            }
            records.append(base | stamp | {"type": "assistant", "message": message | {"content": [tool]}})
            result = {"type": "tool_result", "tool_use_id": tool["id"], "content": f"a1b2c3d Notes on {chat.title[:40]}", "is_error": False}
            records.append(base | stamp | {"type": "user", "message": {"role": "user", "content": [result]}})
    return records
