"""Chat exports → Markdown notes in the vault. Writes notes only, never the index.

Public API (the CLI adapter `python -m rag import KIND SOURCE [--vault] [--dry-run] [--json]` calls this)::

    import_export(kind, source, vault, *, dry_run=False, project_aliases=None, progress=None) -> ImportReport

- `kind`: "claude-ai" (export .zip, its folder, or conversations.json; plus projects.json/memories.json),
  "claude-code" (a folder of session .jsonl logs such as ~/.claude/projects/<project>, or one .jsonl),
  "chatgpt" (export .zip, its folder, or conversations.json).
- `project_aliases`: raw project name → canonical name, matched case-insensitively (one project often has
  several names: worktree folders, ChatGPT project ids `g-p-…`, renamed Claude.ai projects).
- `progress(done, total)`: called as the import advances; bytes of the JSON file for claude-ai/chatgpt,
  session files for claude-code; `total` may be None.
- `ImportReport`: `created`, `updated`, `unchanged`, `skipped_edited` are tuples of vault-relative POSIX
  paths (INDEX.md included), `errors` human-readable problems that did not stop the import;
  `to_json()` gives `{"created": n, "updated": n, "unchanged": n, "skipped_edited": n, "errors": [...]}`.
- Raises `ImportFormatError` when nothing at all can be imported (wrong kind of file, unreadable zip,
  not JSON), `VaultError` when the vault folder is missing. Nothing is written before the first valid
  conversation, and a file is only replaced whole, atomically.

Layout: `Conversations/<kind>/<project or General>/<YYYY-MM-DD> <title>.md` (kind = the frontmatter
`source`: claude-ai, claude-code, chatgpt) and an `INDEX.md` per source. A re-import adds new conversations and refreshes notes whose stamp shows nobody
edited them (see `writer`); an edited note is reported in `skipped_edited` and left as it is; a note is
never shrunk by an older export that has fewer messages than the note.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from rag.errors import ImportFormatError, VaultError
from rag.importers import chatgpt, claude_ai, claude_code
from rag.importers.markdown import GENERAL, Conversation, IndexEntry, day, render_index, render_note
from rag.importers.writer import INDEX_NAME, is_untouched, read_text, safe_name, scan_notes, stamp, write_atomic
from rag.notes.vault import resolves_inside

log = logging.getLogger(__name__)

Reader = Callable[..., Iterator[Conversation]]
SOURCES: dict[str, tuple[Reader, str]] = {
    "claude-ai": (claude_ai.read_export, "Claude.ai"),
    "claude-code": (claude_code.read_sessions, "Claude Code"),
    "chatgpt": (chatgpt.read_export, "ChatGPT"),
}


@dataclass(frozen=True)
class ImportReport:
    """What one import did (or, with dry_run, would do)."""

    created: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    skipped_edited: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {
            "created": len(self.created),
            "updated": len(self.updated),
            "unchanged": len(self.unchanged),
            "skipped_edited": len(self.skipped_edited),
            "errors": list(self.errors),
        }


def import_export(
    kind: str,
    source: Path,
    vault: Path,
    *,
    dry_run: bool = False,
    project_aliases: Mapping[str, str] | None = None,
    progress: Callable[[int, int | None], None] | None = None,
) -> ImportReport:
    """Import one export into the vault; see the module docstring."""
    if kind not in SOURCES:
        raise ImportFormatError(f"Unknown export kind {kind!r}. Use one of: {', '.join(SOURCES)}.")
    reader, label = SOURCES[kind]
    source, vault = Path(source).expanduser(), Path(vault).expanduser()
    if not source.exists():
        raise ImportFormatError(f"{source} does not exist. Pass the path of the {label} export.")
    if not vault.is_dir():
        raise VaultError(f"Vault folder {vault} does not exist. Create it or pass --vault DIR.")
    run = _Run(vault, f"Conversations/{kind}", kind, _fold(project_aliases or {}), dry_run)
    for conv in reader(source, warn=run.warn, progress=progress or _ignore):
        run.add(conv)
    if not run.seen and run.errors:
        raise ImportFormatError(
            f"Nothing could be imported from {source}: {run.errors[0]} Check that it is a "
            f"{label} export, or pick the matching kind: {', '.join(SOURCES)}."
        )
    run.write_index(label)
    report = run.report()
    log.info("import %s: %s", kind, {k: v for k, v in report.to_json().items() if k != "errors"})
    return report


def _ignore(done: int, total: int | None) -> None:
    return None


def _fold(aliases: Mapping[str, str]) -> dict[str, str]:
    return {str(k).strip().casefold(): str(v).strip() for k, v in aliases.items() if str(v).strip()}


@dataclass
class _Run:
    """The state of one import: notes already there, paths taken, and what happened to each file."""

    vault: Path
    folder: str
    source: str
    aliases: dict[str, str]
    dry_run: bool
    seen: int = 0
    errors: list[str] = field(default_factory=list)
    outcomes: dict[str, list[str]] = field(default_factory=lambda: {k: [] for k in _OUTCOMES})

    def __post_init__(self) -> None:
        self.existing = scan_notes(self.vault, self.folder, self.source)
        self.entries: dict[str, IndexEntry] = {cid: note.entry for cid, note in self.existing.items()}
        self.taken = {note.path.casefold() for note in self.existing.values()}

    def warn(self, message: str) -> None:
        log.warning("%s", message)
        self.errors.append(message)

    def add(self, conv: Conversation) -> None:
        self.seen += 1
        conv = replace(conv, title=_encodable(conv.title))  # the title becomes a file name
        project = self.project(_encodable(conv.project or ""))
        rel = self.place(conv, project)
        parent = self.entries.get(conv.parent_id) if conv.parent_id else None
        text = stamp(_encodable(render_note(conv, project=project, parent_note=parent and parent.path)))
        previous = self.existing.get(conv.conversation_id)
        outcome = self.write(rel, text, conv.messages, previous.entry.messages if previous else 0)
        if outcome in ("skipped_edited", "error"):
            if previous is None:
                self.entries.pop(conv.conversation_id, None)
            return
        self.entries[conv.conversation_id] = IndexEntry(rel, conv.title, conv.created, project, conv.messages)

    def project(self, raw: str | None) -> str:
        name = (raw or "").strip()
        return self.aliases.get(name.casefold(), name) if name else GENERAL

    def place(self, conv: Conversation, project: str) -> str:
        """The note's path: where it already is, else a new unique name (suffixed by an id hash on clashes)."""
        if conv.conversation_id in self.entries:
            return self.entries[conv.conversation_id].path
        date = f"{day(conv.created)} " if conv.created else ""
        base = f"{self.folder}/{safe_name(project)}/{date}{safe_name(conv.title)}"
        digest = hashlib.sha256(conv.conversation_id.encode("utf-8")).hexdigest()
        for rel in (f"{base}.md", f"{base} ({digest[:8]}).md", f"{base} ({digest[:16]}).md"):
            if rel.casefold() not in self.taken and not (self.vault / rel).exists():
                break
        self.taken.add(rel.casefold())
        return rel

    def write(self, rel: str, text: str, messages: int, previous_messages: int) -> str:
        path = self.vault / rel
        if not resolves_inside(self.vault, path):
            self.warn(
                f"Not writing {rel}: a symbolic link on the way leads outside the vault, to {path.resolve()}. "
                "Imports only write inside the vault; replace the link with a folder."
            )
            return "error"
        current = read_text(path) if path.exists() else None
        if not path.exists():
            outcome = "created"
        elif current == text:
            outcome = "unchanged"
        elif current is None or not is_untouched(current):
            outcome = "skipped_edited"
        elif messages < previous_messages:
            self.warn(f"{rel}: kept the note; it has {previous_messages} messages and this export only {messages} (an older export?).")
            outcome = "unchanged"
        else:
            outcome = "updated"
        if outcome in ("created", "updated") and not self.dry_run:
            try:
                write_atomic(self.vault, path, text)
            except (OSError, VaultError) as exc:
                self.warn(f"Could not write {rel} ({exc}). Check the vault folder's permissions and free space.")
                return "error"
        self.outcomes[outcome].append(rel)
        return outcome

    def write_index(self, label: str) -> None:
        if self.entries:
            text = stamp(_encodable(render_index(label, self.source, list(self.entries.values()))))
            self.write(f"{self.folder}/{INDEX_NAME}", text, 0, 0)

    def report(self) -> ImportReport:
        lists = {k: tuple(v) for k, v in self.outcomes.items()}
        return ImportReport(**lists, errors=tuple(self.errors))


_OUTCOMES = ("created", "updated", "unchanged", "skipped_edited")


def _encodable(text: str) -> str:
    """Text that encodes as UTF-8: escaped surrogate pairs joined, lone surrogates replaced."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
