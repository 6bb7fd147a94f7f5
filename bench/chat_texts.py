"""Real text to recombine into a year of synthetic chats (bench/year_of_chats.py): paragraphs in English and Russian,
people's prompts and code, each paragraph with the XQuAD key (language, file, line) it came from, so questions can be
drawn from the paragraphs a vault really holds.

- English: SciFact abstracts (one paragraph each, lines joined), XQuAD-en paragraphs, the assistant texts of the
  real Claude Code sessions in chat-exports/.
- Russian: XQuAD-ru paragraphs and the prose paragraphs of the FastAPI docs' Russian translation (XQuAD-ru alone is
  456 KB; a year of chats needs several MB of Russian, so paragraphs recur: see `year_of_chats.py`'s docstring).
- Prompts: the real user prompts of the chat exports (Claude Code and Claude.ai), short ones.
- Code: the code fences of the FastAPI docs and of the exports' texts, the Claude.ai export's artifacts, the shell
  commands of the Claude Code sessions.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from rag.eval.data import EVAL_DATA

QA = EVAL_DATA / "qa"
EXPORTS = EVAL_DATA / "chat-exports"
_FENCE = re.compile(r"```(\w*)\n(.*?)```", re.S)
_ARTIFACT = re.compile(r"<antArtifact\b[^>]*?(?:language=\"(\w+)\")?[^>]*>(.*?)</antArtifact>", re.S)


@dataclass(frozen=True)
class Paragraph:
    text: str
    key: tuple[str, str, int] | None = None  # ("en" | "ru", XQuAD file, 1-based line) for XQuAD paragraphs


@dataclass(frozen=True)
class Texts:
    english: dict[str, list[Paragraph]]  # pool name → paragraphs
    russian: dict[str, list[Paragraph]]
    prompts: list[str]
    code: list[tuple[str, str]]  # (language, code)


def load() -> Texts:
    """Every pool, in a fixed order (so a seed gives the same vault)."""
    records = list(_session_records())
    return Texts(
        english={"scifact": _scifact(), "xquad": _xquad("en"), "chats": [Paragraph(t) for t in _assistant_texts(records)]},
        russian={"xquad": _xquad("ru"), "docs": [Paragraph(t) for t in _docs_prose(QA / "fastapi-docs" / "vault-ru")]},
        prompts=[p for p in _prompts(records) if 10 <= len(p) <= 600],
        code=_code(records),
    )


def _xquad(lang: str) -> list[Paragraph]:
    out = []
    for path in sorted((QA / "xquad" / f"vault-{lang}").glob("*.md")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if len(line.strip()) > 80 and not line.startswith("#"):
                out.append(Paragraph(line.strip(), (lang, path.name, number)))
    return out


def _scifact() -> list[Paragraph]:
    out = []
    for path in sorted((QA / "scifact" / "vault").glob("*.md")):
        body = path.read_text(encoding="utf-8").split("\n\n", 1)[-1]
        text = " ".join(line.strip() for line in body.splitlines() if line.strip())
        if len(text) > 80:
            out.append(Paragraph(text))
    return out


def _docs_prose(folder: Path) -> list[str]:
    """Paragraphs of mostly Cyrillic prose (no code, tables, headings or lists)."""
    out = []
    for path in sorted(folder.rglob("*.md")):
        text = _FENCE.sub("", path.read_text(encoding="utf-8"))
        for para in (p.strip() for p in text.split("\n\n")):
            if len(para) > 80 and para[0] not in "#|{<!*-/>" and len(re.findall("[а-яё]", para, re.I)) > 2 * len(re.findall("[a-z]", para, re.I)):
                out.append(para)
    return out


def _session_records() -> list[dict]:
    out = []
    for path in sorted((EXPORTS / "claude-code").rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line) if line.strip() else None
            if isinstance(record, dict) and isinstance(record.get("message"), dict):
                out.append(record)
    return out


def _blocks(record: dict) -> list[dict]:
    content = record["message"].get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _assistant_texts(records: list[dict]) -> list[str]:
    texts = [b["text"].strip() for r in records if r.get("type") == "assistant" for b in _blocks(r) if b.get("type") == "text"]
    paragraphs = [p.strip() for t in texts for p in _FENCE.sub("", t).split("\n\n")]
    return sorted({p for p in paragraphs if len(p) > 80})


def _prompts(records: list[dict]) -> list[str]:
    code_prompts = [r["message"]["content"] for r in records if r.get("type") == "user" and isinstance(r["message"].get("content"), str)]
    chats = json.loads((EXPORTS / "claude-ai" / "artifacts.json").read_text(encoding="utf-8"))
    chats += json.loads((EXPORTS / "claude-ai" / "example.json").read_text(encoding="utf-8"))
    ai_prompts = [m["text"] for c in chats for m in c["chat_messages"] if m.get("sender") == "human"]
    return sorted({p.strip() for p in code_prompts + ai_prompts if not p.lstrip().startswith("<")})


def _code(records: list[dict]) -> list[tuple[str, str]]:
    """Code blocks of at most 40 lines, from real sources (see the module docstring)."""
    found: list[tuple[str, str]] = []
    for path in sorted((QA / "fastapi-docs").rglob("*.md")):
        found += [(lang or "python", body) for lang, body in _FENCE.findall(path.read_text(encoding="utf-8"))]
    for chat in json.loads((EXPORTS / "claude-ai" / "artifacts.json").read_text(encoding="utf-8")):
        found += [(lang or "html", body) for m in chat["chat_messages"] for lang, body in _ARTIFACT.findall(m["text"])]
    for record in records:
        for block in _blocks(record):
            if block.get("type") == "tool_use" and block.get("name") == "Bash" and isinstance(block.get("input"), dict):
                found.append(("bash", str(block["input"].get("command") or "")))
            elif block.get("type") == "text":
                found += [(lang, body) for lang, body in _FENCE.findall(str(block.get("text") or ""))]
    out = {(lang, "\n".join(body.strip("\n").splitlines()[:40])) for lang, body in found if len(body.strip()) > 20}
    return sorted(out)
