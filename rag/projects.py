"""The vault as an agent browses it: notes with their tier and project, the projects, the starting context for work
on one project, and dated decision and session notes recorded into a project.

A project is `<projects_folder>/<name>/…` (or a note whose frontmatter names it), as `vault.project_of` defines.
Decisions and sessions live in the project's `Decisions/` and `Sessions/` folders, named `YYYY-MM-DD Title.md`.
Reads the index through `Store`'s public methods and the files through `rag.notes.files`; knows nothing about MCP.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import PurePosixPath

import yaml

from rag.config import Settings
from rag.errors import ConflictError, NoteError, VaultError
from rag.index.records import FileInfo
from rag.index.storage import IndexStore
from rag.limits import NAME_BYTES, cut_to_bytes
from rag.notes.files import Written, confine, create_note, read_text, without_invisible
from rag.notes.vault import project_of, tier_of, walk

DECISIONS = "Decisions"
SESSIONS = "Sessions"
CONTEXT_MAX_CHARS = 12_000
CONTEXT_RECENT = 5  # decisions and sessions each
_MIN_PIECE = 300  # a note is not squeezed into less room than this; it is listed as omitted instead
_UNSAFE = re.compile(r'[\x00-\x1f\x7f-\x9f/\\:*?"<>|#^\[\]]+')
_DATED = re.compile(r"^(\d{4}-\d{2}-\d{2})")


@dataclass(frozen=True)
class NoteEntry:
    path: str
    title: str | None
    size: int  # bytes
    modified: str  # local time, ISO 8601
    tier: int
    project: str | None


@dataclass(frozen=True)
class NoteList:
    notes: tuple[NoteEntry, ...]
    total: int  # notes in the folder; more than len(notes) when the list was cut at the limit


@dataclass(frozen=True)
class ProjectInfo:
    name: str
    notes: int
    decisions: int
    sessions: int
    overview: str | None  # path of its overview note, if it has one
    last_modified: str | None


@dataclass(frozen=True)
class ContextNote:
    path: str
    role: str  # "overview", "profile", "note", "decision" or "session"
    sha256: str
    content: str
    truncated: bool


@dataclass(frozen=True)
class ProjectContext:
    project: str
    notes: tuple[ContextNote, ...]
    omitted: tuple[str, ...]  # paths that did not fit in the size limit; read them one by one
    chars: int


def list_notes(settings: Settings, store: IndexStore, folder: str | None = None, *, limit: int = 500) -> NoteList:
    """Notes on disk (under `folder`, if given), sorted by path, with tier and project from the index when known."""
    prefix = ""
    if folder and folder.strip("/. "):
        rel, full = confine(settings, folder)
        if not full.is_dir():
            raise VaultError(f"There is no folder {rel} in the vault. Give a folder path like Projects/Alpha, or none for all notes.")
        prefix = rel + "/"
    stats = [s for s in walk(settings) if s.path.startswith(prefix)]
    infos = {f.path: f for f in store.files()}
    entries = []
    for stat in stats[:limit]:
        info = infos.get(stat.path)
        entries.append(
            NoteEntry(
                stat.path,
                info.title if info else None,
                stat.size,
                _iso(stat.mtime),
                info.tier if info else tier_of(stat.path, settings),
                info.project if info else project_of(stat.path, settings),
            )
        )
    return NoteList(tuple(entries), len(stats))


def list_projects(settings: Settings, store: IndexStore) -> list[ProjectInfo]:
    """Every project with counts of its notes, decisions and sessions, its overview and its latest change."""
    files = store.files()
    mtimes = {path: state.mtime for path, state in store.file_states().items()}
    projects = []
    for name in known_projects(settings, store, files=files):
        mine = [f for f in files if f.project == name]
        overview = next((f.path for f in _overviews(settings, mine)), None)
        latest = max((mtimes.get(f.path, 0.0) for f in mine), default=0.0)
        projects.append(
            ProjectInfo(
                name,
                len(mine),
                sum(_in(f, DECISIONS) for f in mine),
                sum(_in(f, SESSIONS) for f in mine),
                overview,
                _iso(latest) if latest else None,
            )
        )
    return projects


def known_projects(settings: Settings, store: IndexStore, *, files: list[FileInfo] | None = None) -> list[str]:
    """Project names from the index and from the folders under `projects_folder`, sorted."""
    names = {f.project for f in (store.files() if files is None else files) if f.project}
    return sorted(names | set(_project_folders(settings)), key=str.casefold)


def resolve_project(settings: Settings, store: IndexStore, name: str) -> str:
    """The canonical name of an existing project (aliases and letter case forgiven), or VaultError listing them."""
    known = known_projects(settings, store)
    match = _match(settings, name, known)
    if match is None:
        listed = ", ".join(known) if known else "none yet"
        raise VaultError(f"There is no project named {name!r}. Known projects: {listed}.")
    return match


def _match(settings: Settings, name: str, known: list[str]) -> str | None:
    wanted = settings.project_aliases.get(name.strip(), name.strip())
    if wanted in known:
        return wanted
    return next((k for k in known if k.casefold() == wanted.casefold()), None)


def _project_folders(settings: Settings) -> list[str]:
    root = settings.vault / settings.projects_folder
    if not root.is_dir():
        return []
    return [p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")]


def project_context(
    settings: Settings, store: IndexStore, project: str, *, max_chars: int = CONTEXT_MAX_CHARS, recent: int = CONTEXT_RECENT
) -> ProjectContext:
    """The notes to start work on a project with, read from disk within `max_chars`: the project's overview, the
    vault's profile notes, the project's other tier-1 notes, then its most recent decisions and sessions."""
    name = resolve_project(settings, store, project)
    files = store.files()
    mtimes = {path: state.mtime for path, state in store.file_states().items()}
    mine = [f for f in files if f.project == name]
    overviews = _overviews(settings, mine)
    chosen = [(f.path, "overview") for f in overviews]
    chosen += [(f.path, "profile") for f in files if "/" not in f.path and f.tier == 1 and f.path in settings.tier1_files]
    chosen += [(f.path, "note") for f in mine if f.tier == 1 and f not in overviews and not _in(f, DECISIONS) and not _in(f, SESSIONS)]
    for folder, role in ((DECISIONS, "decision"), (SESSIONS, "session")):
        dated = sorted((f for f in mine if _in(f, folder)), key=lambda f: _recency(f.path, mtimes), reverse=True)
        chosen += [(f.path, role) for f in dated[:recent]]
    return _gather(settings, name, chosen, max_chars)


def _gather(settings: Settings, name: str, chosen: list[tuple[str, str]], max_chars: int) -> ProjectContext:
    notes: list[ContextNote] = []
    omitted: list[str] = []
    used = 0
    for path, role in chosen:
        room = max_chars - used
        if room < _MIN_PIECE:
            omitted.append(path)
            continue
        try:
            text = read_text(settings, path)
        except (NoteError, VaultError):  # vanished or unreadable since it was indexed
            continue
        content = _clip(text.content, room)
        notes.append(ContextNote(path, role, text.sha256, content, text.truncated or content != text.content))
        used += len(content)
    return ProjectContext(name, tuple(notes), tuple(omitted), used)


def _clip(text: str, room: int) -> str:
    """`text` cut to `room` characters: at a line end if that keeps at least half of the room, else mid-line."""
    if len(text) <= room:
        return text
    cut = text.rfind("\n", 0, room) + 1
    return text[:cut] if cut >= room // 2 else text[:room]


def _overviews(settings: Settings, files: list[FileInfo]) -> list[FileInfo]:
    found = [f for f in files if PurePosixPath(f.path).name in settings.tier1_files]
    return sorted(found, key=lambda f: (f.path.count("/"), f.path))


def _in(info: FileInfo, folder: str) -> bool:
    return folder in PurePosixPath(info.path).parts[:-1]


def _recency(path: str, mtimes: dict[str, float]) -> tuple[str, float]:
    dated = _DATED.match(PurePosixPath(path).name)
    return (dated.group(1) if dated else "", mtimes.get(path, 0.0))


def commit_decision(
    settings: Settings, store: IndexStore, title: str, body: str, *, project: str | None = None, now: datetime | None = None
) -> Written:
    """Record a decision as a new dated note in `<project>/Decisions/` (or `Decisions/` without a project)."""
    return _commit(settings, store, DECISIONS, "decision", title, body, project, now)


def commit_session(
    settings: Settings, store: IndexStore, title: str, body: str, *, project: str | None = None, now: datetime | None = None
) -> Written:
    """Record a work-session summary as a new dated note in `<project>/Sessions/` (or `Sessions/`)."""
    return _commit(settings, store, SESSIONS, "session", title, body, project, now)


def _commit(
    settings: Settings, store: IndexStore, folder: str, kind: str, title: str, body: str, project: str | None, now: datetime | None
) -> Written:
    title = " ".join(title.split())
    if not title:
        raise VaultError("Give the note a title: a few words that say what was decided or done.")
    name = None
    if project and project.strip():
        name = _match(settings, project, known_projects(settings, store)) or _safe_name(project)
        folder = f"{settings.projects_folder}/{name}/{folder}"
    now = now or datetime.now().astimezone()
    text = _render(title, body, kind, name, now)
    stem = f"{folder}/{now:%Y-%m-%d} {_safe_name(title)}"
    for n in range(1, 100):
        try:
            return create_note(settings, f"{stem}{'' if n == 1 else f' ({n})'}.md", text, tool="knowledge_commit")
        except ConflictError:
            continue  # that name is taken: never overwrite, take the next one
    raise ConflictError(f"Too many notes named {stem}.md today. Choose a more specific title.")


def _render(title: str, body: str, kind: str, project: str | None, now: datetime) -> str:
    meta = {"title": title, "date": f"{now:%Y-%m-%d}", "kind": kind, "tags": [kind]}
    if project:
        meta["project"] = project
    meta.update(created=now.isoformat(timespec="seconds"), source="agent")
    front = yaml.safe_dump(meta, allow_unicode=True, sort_keys=False, width=1000)
    return f"---\n{front}---\n# {title}\n\n{body.strip()}\n"


def _safe_name(text: str, limit: int = 80) -> str:
    """A file or folder name valid on Linux, macOS and Windows and linkable in Obsidian."""
    name = " ".join(_UNSAFE.sub(" ", without_invisible(text)).split())
    if len(name) > limit:
        name = name[:limit].rsplit(" ", 1)[0] if " " in name[:limit] else name[:limit]
    return cut_to_bytes(name, NAME_BYTES).strip(" .") or "Untitled"  # CJK or emoji: 80 characters can be 320 bytes


def _iso(mtime: float) -> str:
    return datetime.fromtimestamp(mtime).astimezone().isoformat(timespec="seconds")
