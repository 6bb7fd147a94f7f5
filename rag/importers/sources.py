"""Export files as streams: a `.zip`, an unpacked export folder or a single JSON file.

`json_members` finds a named JSON file (e.g. `conversations.json`) in any of those; `iter_array` streams the
objects of a top-level JSON array with ijson, one at a time, so a 150 MB export needs memory for one
conversation, not for the file. Knows nothing about chat formats.
"""

from __future__ import annotations

import contextlib
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, ContextManager

import ijson

from rag.errors import ImportFormatError

Progress = Callable[[int, "int | None"], None]
Warn = Callable[[str], None]
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class Member:
    """One JSON file inside an export, opened on demand."""

    label: str  # for messages: "export.zip:conversations.json"
    size: int | None
    open: Callable[[], ContextManager[BinaryIO]]


def json_members(source: Path, name: str, *, required: bool, hint: str) -> list[Member]:
    """Files named `name` in a zip, in a folder (top level or one below), or `source` itself.

    A `.json` file given directly counts as the requested name when `required`; optional companions
    (projects.json beside conversations.json) are looked up next to it.
    """
    if zipfile.is_zipfile(source):
        found = _zip_members(source, name)
    elif source.is_dir():
        found = [_file_member(p) for p in _folder_candidates(source, name)]
    elif source.is_file() and required:
        found = [_file_member(source)]
    else:
        sibling = source.parent / name
        found = [_file_member(sibling)] if sibling.is_file() and sibling != source else []
    if required and not found:
        raise ImportFormatError(f"No {name} in {source}. {hint}")
    return found


def _folder_candidates(folder: Path, name: str) -> list[Path]:
    direct = folder / name
    if direct.is_file():
        return [direct]
    return sorted(p for p in folder.glob(f"*/{name}") if p.is_file())[:1]


def _file_member(path: Path) -> Member:
    return Member(str(path), path.stat().st_size, lambda: open(path, "rb"))


def _zip_members(archive: Path, name: str) -> list[Member]:
    try:
        with zipfile.ZipFile(archive) as zf:
            infos = [i for i in zf.infolist() if Path(i.filename).name == name and not i.is_dir()]
    except (zipfile.BadZipFile, OSError) as exc:
        raise ImportFormatError(f"{archive} is not a readable zip file ({exc}). Download the export again.") from exc
    infos.sort(key=lambda i: (i.filename.count("/"), i.filename))
    return [_zip_member(archive, info) for info in infos[:1]]


def _zip_member(archive: Path, info: zipfile.ZipInfo) -> Member:
    @contextlib.contextmanager
    def opener() -> Iterator[BinaryIO]:
        with zipfile.ZipFile(archive) as zf, zf.open(info) as stream:
            yield stream

    return Member(f"{archive}:{info.filename}", info.file_size, opener)


class _CountingReader:
    """A binary stream that counts the bytes read (for progress) and drops a leading UTF-8 BOM."""

    def __init__(self, raw: BinaryIO) -> None:
        self._raw = raw
        self.done = 0
        self._first = True

    def read(self, size: int = -1) -> bytes:
        data = self._raw.read(size)
        self.done += len(data)
        if self._first and data:
            self._first = False
            data = data.removeprefix(_BOM)
        return data


def first_byte(member: Member) -> bytes:
    """The first non-blank byte of the member (`[`, `{`, …), or b"" for an empty file."""
    with member.open() as raw:
        return raw.read(4096).removeprefix(_BOM).lstrip()[:1]


def check_array(member: Member, what: str, hint: str) -> None:
    """Raise ImportFormatError unless the member's JSON starts with `[` (a list of `what`)."""
    head = first_byte(member)
    if head != b"[":
        kind = "a JSON object" if head.startswith(b"{") else "not JSON"
        raise ImportFormatError(f"{member.label} is {kind}, not a list of {what}. {hint}")


def iter_array(member: Member, *, warn: Warn, progress: Progress, prefix: str = "item") -> Iterator[object]:
    """Yield each item of the member's top-level JSON array; a broken tail is reported, not raised.

    `prefix=""` yields a top-level object whole instead.
    """
    count = 0
    with member.open() as raw:
        reader = _CountingReader(raw)
        try:
            for item in ijson.items(reader, prefix, use_float=True):
                count += 1
                progress(reader.done, member.size)
                yield item
        except (ijson.JSONError, UnicodeDecodeError, zipfile.BadZipFile, EOFError) as exc:
            warn(_broken_message(member.label, count, exc))
        progress(reader.done, member.size)


def _broken_message(label: str, count: int, exc: BaseException) -> str:
    detail = exc.args[0] if exc.args else type(exc).__name__
    detail = detail.decode("utf-8", "replace") if isinstance(detail, bytes) else str(detail)
    detail = (detail.strip().splitlines() or [type(exc).__name__])[0][:160]
    if count == 0:
        return f"{label} is not valid JSON ({detail}). Export the data again, or check that this is the right file."
    return (
        f"{label}: the JSON is cut off or broken after item {count} ({detail}); the {count} complete items "
        f"before it were imported. Export the data again to get the rest."
    )
