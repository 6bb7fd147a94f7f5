"""Markdown → chunks. Pure: knows nothing about storage, files or models (token counting is passed in).

Blocks come from markdown-it-py token maps (headings, paragraphs, lists, tables, code fences …). Blocks are
packed into chunks of about `target` tokens; a heading closes a chunk only once it holds `min_tokens`, so tiny
sections merge. A block is never split unless it alone exceeds `hard` tokens (then by lines, then sentences, then
words). Every non-blank body line lands in exactly one chunk, in order. Frontmatter is not chunked.

`count_tokens(text)` must return what the embedder sees for `text` (prefix and special tokens included), so
`chunk.tokens <= hard` means nothing is truncated by the model.

A chunk's heading path is the chain of headings that holds all of its text: a heading and its real ancestors, never
two sibling sections one inside the other. Its parts read as a person sees them (`[[a|b]]` → b, no `**`).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Callable

from markdown_it import MarkdownIt

from rag.notes.vault import Frontmatter, parse_frontmatter
from rag.text.sentences import plain, visible_text

SEPARATOR = " › "
# Bump when how a chunk's heading path reads changes: the index re-derives every note once (its vectors are reused,
# as `index_text` does not change). 1: headings as a reader sees them.
HEADING_PATH_VERSION = 1
_MD = MarkdownIt("commonmark").enable("table")
_PAGE = re.compile(r"p\. (\d+)")  # a PDF page's heading (rag/notes/pdf.py: `# p. N`) as it stands in a heading path
_SENTENCE_END = re.compile(r"(?<=[.!?…;])\s+")


def page_of(heading_path: str) -> int | None:
    """The PDF page a chunk is on, from its heading path ("Paper › p. 3 › Methods" → 3); None for a note's."""
    return next((int(m.group(1)) for part in heading_path.split(SEPARATOR) if (m := _PAGE.fullmatch(part))), None)


@dataclass(frozen=True)
class Chunk:
    id: str  # stable: derived from path and content
    path: str
    heading_path: str  # "Note › Section › Sub": the headings that hold all of the text, as a reader sees them
    start_line: int  # 1-based, inclusive
    end_line: int  # 1-based, inclusive
    start_char: int  # offsets into the note text ("\n" line endings), end exclusive
    end_char: int
    text: str  # the exact slice of the note
    sha256: str  # of `text`: the context builder re-reads the file and compares
    tokens: int  # embedder tokens of `index_text`
    index_text: str  # what is embedded and keyword-indexed: heading context + text with wikilinks resolved
    vector_key: str  # sha256 of `index_text`; vectors are stored per key, so moves and renames reuse them


@dataclass(frozen=True)
class _Block:
    start: int  # 0-based line, inclusive
    end: int  # 0-based line, exclusive
    heading_level: int = 0
    heading: str = ""


@dataclass(frozen=True)
class _Piece:
    start_char: int
    end_char: int
    start_line: int  # 0-based
    end_line: int  # 0-based, inclusive
    headings: tuple[str, ...]
    is_heading: bool = False


def note_title(path: str, text: str, *, frontmatter: Frontmatter | None = None) -> str:
    """Frontmatter title, else the first H1, else the file name without extension. `frontmatter`: `text`'s, when the
    caller has read it already."""
    fm = parse_frontmatter(text) if frontmatter is None else frontmatter
    if fm.title:
        return fm.title
    for block in _blocks(text.split("\n"), fm.line_count):
        if block.heading_level == 1:
            return block.heading
    return PurePosixPath(path).stem


def chunk_note(
    path: str,
    text: str,
    *,
    count_tokens: Callable[[str], int],
    target: int,
    hard: int,
    min_tokens: int,
    pages: bool = False,
    frontmatter: Frontmatter | None = None,
) -> list[Chunk]:
    """`text` as chunks. `pages`: the text is a PDF's (rag/notes/pdf.py), whose top-level headings open its pages: a
    chunk never runs from one page onto the next, so each is cited by its page. `frontmatter`: `text`'s, when the
    caller has read it already (sync reads it once for the chunks, the note's fields and its day)."""
    lines = text.split("\n")
    offsets = _line_offsets(lines)
    fm = parse_frontmatter(text) if frontmatter is None else frontmatter
    content_title = fm.title or next((b.heading for b in _blocks(lines, fm.line_count) if b.heading_level == 1), None)
    title = content_title or PurePosixPath(path).stem
    overhead = count_tokens("")
    pieces = list(_pieces(lines, offsets, fm.line_count, count_tokens, hard - overhead - 32))
    groups = _pack(pieces, text, count_tokens, overhead, target=target, hard_budget=hard - overhead - 32, min_tokens=min_tokens, pages=pages)
    chunks: list[Chunk] = []
    seen: dict[str, int] = {}
    for group in groups:
        chunks.extend(_finish(group, path, text, title, content_title, count_tokens, hard, seen))
    return chunks


def _line_offsets(lines: list[str]) -> list[int]:
    offsets, pos = [], 0
    for line in lines:
        offsets.append(pos)
        pos += len(line) + 1
    offsets.append(pos)
    return offsets


def _blocks(lines: list[str], first: int) -> list[_Block]:
    """Top-level blocks of the body, each extended over following non-blank stray lines (e.g. link definitions)."""
    body = "\n".join(lines[first:])
    tokens = _MD.parse(body)
    raw: list[_Block] = []
    for i, tok in enumerate(tokens):
        if tok.level != 0 or tok.map is None or tok.nesting < 0:
            continue
        start, end = tok.map[0] + first, tok.map[1] + first
        if tok.type == "heading_open":
            raw.append(_Block(start, end, int(tok.tag[1]), tokens[i + 1].content.strip()))
        else:
            raw.append(_Block(start, end))
    blocks: list[_Block] = []
    cursor = first
    for block in raw + [_Block(len(lines), len(lines))]:
        if any(lines[j].strip() for j in range(cursor, block.start)):
            blocks.append(_Block(cursor, block.start))  # lines markdown-it gave no block (link definitions …)
        if block.start < len(lines):
            blocks.append(block)
        cursor = max(cursor, block.end)
    trimmed = (_trim(b, lines) for b in blocks)
    return [b for b in trimmed if b is not None]


def _trim(block: _Block, lines: list[str]) -> _Block | None:
    start, end = block.start, block.end
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    if start >= end:
        return None
    return _Block(start, end, block.heading_level, block.heading)


def _pieces(lines, offsets, first, count_tokens, limit):
    """Blocks as pieces with their heading stack; a block over `limit` tokens is split (lines → sentences → words)."""
    stack: list[tuple[int, str]] = []
    for block in _blocks(lines, first):
        if block.heading_level:
            stack = [h for h in stack if h[0] < block.heading_level] + [(block.heading_level, block.heading)]
        headings = tuple(h for _, h in stack)
        start_char, end_char = offsets[block.start], offsets[block.end] - 1
        text = "\n".join(lines[block.start : block.end])
        if count_tokens(visible_text(text)) <= limit:
            yield _Piece(start_char, end_char, block.start, block.end - 1, headings, bool(block.heading_level))
            continue
        for a, b in _split_span(text, start_char, count_tokens, limit):
            line_a = _line_at(offsets, a)
            yield _Piece(a, b, line_a, _line_at(offsets, max(a, b - 1)), headings)


def _split_span(text: str, base: int, count_tokens, limit: int):
    """Split an oversize span into (start_char, end_char) parts under `limit`, at the coarsest boundary that works."""
    for pattern in (re.compile(r"\n"), _SENTENCE_END, re.compile(r"\s+")):
        parts = _split_keep(text, pattern)
        if len(parts) > 1:
            break
    else:  # one unbreakable run: cut by characters
        step = max(1, len(text) // 2)
        parts = [(i, min(i + step, len(text))) for i in range(0, len(text), step)]
    merged: list[tuple[int, int]] = []
    for a, b in parts:
        if merged and count_tokens(visible_text(text[merged[-1][0] : b])) <= limit:
            merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    for a, b in merged:
        if count_tokens(visible_text(text[a:b])) <= limit or b - a <= 1:
            yield base + a, base + b
        else:
            yield from _split_span(text[a:b], base + a, count_tokens, limit)


def _split_keep(text: str, pattern: re.Pattern) -> list[tuple[int, int]]:
    parts, pos = [], 0
    for m in pattern.finditer(text):
        if m.start() > pos:
            parts.append((pos, m.start()))
        pos = m.end()
    if pos < len(text):
        parts.append((pos, len(text)))
    return parts


def _line_at(offsets: list[int], char: int) -> int:
    lo, hi = 0, len(offsets) - 1
    while lo < hi:  # largest line whose start ≤ char
        mid = (lo + hi + 1) // 2
        if offsets[mid] <= char:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _pack(pieces, text, count_tokens, overhead, *, target, hard_budget, min_tokens, pages=False):
    """Greedy packing into groups of about `target` tokens. A heading closes a group only once it holds
    `min_tokens`, and a group under `min_tokens` (say, a lone heading) may grow up to `hard_budget` instead of
    closing, so a heading stays with its text. With `pages`, a top-level heading (a page's) always closes it."""
    groups: list[list[_Piece]] = []
    current: list[_Piece] = []
    size = 0
    for piece in pieces:
        tokens = count_tokens(visible_text(text[piece.start_char : piece.end_char])) - overhead
        too_big = size + tokens > target and not (size < min_tokens and size + tokens <= hard_budget)
        page = pages and piece.is_heading and len(piece.headings) == 1
        if current and (too_big or (piece.is_heading and size >= min_tokens) or page):
            groups.append(current)
            current, size = [], 0
        current.append(piece)
        size += tokens
    if current:
        groups.append(current)
    return groups


def _common_headings(group: list[_Piece]) -> list[str]:
    """The heading path that covers all of a group's text: the common prefix of its content pieces' stacks."""
    stacks = [p.headings for p in group if not p.is_heading] or [group[-1].headings]
    common = list(stacks[0])
    for stack in stacks[1:]:
        n = 0
        while n < min(len(common), len(stack)) and common[n] == stack[n]:
            n += 1
        common = common[:n]
    return common


def _shown(heading: str) -> str:
    """A heading as a reader sees it ("Call with [[People/Dina|Dina]]" → "Call with Dina"); as written if nothing is left."""
    return plain(heading).strip() or heading


def _finish(group, path, text, title, content_title, count_tokens, hard, seen) -> list[Chunk]:
    first, last = group[0], group[-1]
    body = text[first.start_char : last.end_char]
    headings = _common_headings(group)
    if headings[:1] == [title]:
        headings = headings[1:]
    heading_path = SEPARATOR.join(_shown(h) for h in [title, *headings])
    context = SEPARATOR.join([content_title, *headings] if content_title else headings)
    index_text = f"{context}\n\n{visible_text(body)}" if context else visible_text(body)
    tokens = count_tokens(index_text)
    if tokens > hard and len(group) == 1:  # a very long heading context: keep the text, drop the context
        index_text = visible_text(body)
        tokens = count_tokens(index_text)
    if tokens > hard and len(group) > 1:  # estimates were optimistic: split the group in two and retry
        mid = len(group) // 2
        return _finish(group[:mid], path, text, title, content_title, count_tokens, hard, seen) + _finish(
            group[mid:], path, text, title, content_title, count_tokens, hard, seen
        )
    sha = hashlib.sha256(body.encode("utf-8")).hexdigest()
    dup = seen.get(sha, 0)
    seen[sha] = dup + 1
    chunk_id = hashlib.sha256(f"{path}\x00{sha}\x00{dup}".encode()).hexdigest()[:24]
    return [
        Chunk(
            id=chunk_id,
            path=path,
            heading_path=heading_path,
            start_line=first.start_line + 1,
            end_line=last.end_line + 1,
            start_char=first.start_char,
            end_char=last.end_char,
            text=body,
            sha256=sha,
            tokens=tokens,
            index_text=index_text,
            vector_key=hashlib.sha256(index_text.encode("utf-8")).hexdigest(),
        )
    ]
