"""A note read as numbered lines: its bytes (or the sentence saying why not), a range of its lines (1-based,
inclusive) cut to whole lines within a size limit, and a PDF's pages as the line ranges that hold them (its text
opens each page with `# p. N`).

Apart from rag/notes/files.py, whose `read_text` confines the path first and then takes its lines here.
"""

from __future__ import annotations

from pathlib import Path

from rag.errors import NoteError, VaultError
from rag.notes import pdf


def page_lines(rel: str, text: str, page: int, end_page: int) -> tuple[int, int]:
    """The note lines (1-based, inclusive) that hold pages `page` to `end_page` of a PDF's text."""
    lines = text.split("\n")
    starts = {int(m.group(1)): n for n, line in enumerate(lines, 1) if (m := pdf.PAGE_HEADING.match(line))}
    pages = max(starts, default=0)
    if not 1 <= page <= pages or end_page < page:
        raise VaultError(f"{rel} has {pages} page{'s' if pages != 1 else ''}; ask for pages 1 to {pages}, the first not after the last.")
    after = starts.get(min(end_page, pages) + 1)
    return starts[page], (after - 1 if after else len(lines))


def read_bytes(rel: str, full: Path) -> bytes:
    try:
        return full.read_bytes()
    except FileNotFoundError as exc:
        raise VaultError(f"There is no note at {rel}. Check the path; paths are relative to the vault, like Notes/Topic.md.") from exc
    except IsADirectoryError as exc:
        raise VaultError(f"{rel} is a folder, not a note. Give the path of a .md file inside it.") from exc
    except OSError as exc:
        raise NoteError(f"Cannot read {rel}: {exc.strerror}. Check its permissions.") from exc


def split_lines(text: str) -> list[str]:
    """The note's lines, each with its "\n" (the last one without, if the file does not end in a newline)."""
    if not text:
        return []
    pieces = text.split("\n")
    ends = pieces[-1] == ""
    if ends:
        pieces.pop()
    return [p + "\n" for p in pieces[:-1]] + [pieces[-1] + ("\n" if ends else "")]


def line_range(rel: str, total: int, start: int | None, end: int | None) -> tuple[int, int]:
    first = 1 if start is None else start
    last = total if end is None else min(end, total)
    if first < 1 or (end is not None and end < first):
        raise VaultError(f"Line ranges are 1-based with start_line ≤ end_line; got {start}–{end}.")
    if total == 0 and start is None:
        return 1, 0
    if first > total:
        raise VaultError(f"{rel} has only {total} lines; ask for a range within 1–{total}.")
    return first, last


def take(lines: list[str], first: int, last: int, max_chars: int) -> tuple[str, int, bool]:
    """The lines first..last joined, cut to whole lines within `max_chars` (a single longer line is cut)."""
    taken: list[str] = []
    size = 0
    for number in range(first, last + 1):
        line = lines[number - 1]
        if size + len(line) > max_chars:
            if not taken:
                return line[:max_chars], number, True
            return "".join(taken), number - 1, True
        taken.append(line)
        size += len(line)
    return "".join(taken), last, False
