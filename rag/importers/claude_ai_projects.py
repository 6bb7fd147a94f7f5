"""Claude.ai `projects.json` and `memories.json` → project and memory notes.

A project note holds the project's description, its custom instructions (`prompt_template`), its memory
and its knowledge documents (`docs[]`), one `##` section each. The account memory becomes one
"Claude memory" note. Both files are optional companions of `conversations.json` (in the zip, the folder,
or beside the file); the starter project Anthropic adds to every account is left out. Malformed entries
are reported and skipped.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rag.importers.markdown import Conversation, Turn, callout, parse_time, plain_title
from rag.importers.sources import Warn, first_byte, iter_array, json_members

SOURCE = "claude-ai"


@dataclass(frozen=True)
class Extras:
    """What the companions of conversations.json add: project names by uuid, and notes to write."""

    project_names: dict[str, str]
    notes: tuple[Conversation, ...]


def load_extras(source: Path, *, warn: Warn) -> Extras:
    """Read projects.json and memories.json if the export has them."""
    memory = _load_memory(source, warn)
    projects = [p for p in _items(source, "projects.json", warn) if _is_user_project(p, warn)]
    names = {str(p["uuid"]): plain_title(str(p.get("name") or "")) or str(p["uuid"]) for p in projects}
    notes = [_project_note(p, names[str(p["uuid"])], memory.projects.get(str(p["uuid"]), "")) for p in projects]
    if memory.account.strip():
        notes.append(
            Conversation(
                source=SOURCE,
                conversation_id="memory",
                title="Claude memory",
                created=None,
                updated=None,
                project=None,
                turns=(Turn("Memory", None, (memory.account,)),),
            )
        )
    return Extras(names, tuple(notes))


def _items(source: Path, name: str, warn: Warn) -> Iterator[object]:
    for member in json_members(source, name, required=False, hint=""):
        prefix = "" if first_byte(member) == b"{" else "item"
        yield from iter_array(member, warn=warn, progress=lambda done, total: None, prefix=prefix)


def _is_user_project(project: object, warn: Warn) -> bool:
    if not isinstance(project, dict) or not project.get("uuid"):
        warn("projects.json: an entry without a uuid was skipped.")
        return False
    return not project.get("is_starter_project")


def _project_note(project: dict, name: str, memory: str) -> Conversation:
    created = parse_time(project.get("created_at"))
    turns = []
    about = [str(project.get("description") or "").strip()]
    if str(project.get("prompt_template") or "").strip():
        about.append(callout("info", "Project instructions", str(project["prompt_template"])))
    if memory.strip():
        about.append(callout("memory", "Project memory", memory))
    if any(about):
        turns.append(Turn("Project", created, tuple(a for a in about if a)))
    for doc in project.get("docs") or []:
        if isinstance(doc, dict) and str(doc.get("content") or "").strip():
            label = f"Document: {doc.get('filename') or doc.get('uuid') or 'untitled'}"
            turns.append(Turn(label, parse_time(doc.get("created_at")), (str(doc["content"]),)))
    return Conversation(
        source=SOURCE,
        conversation_id=f"project-{project['uuid']}",
        title=f"Project {name}",
        created=created,
        updated=parse_time(project.get("updated_at")) or created,
        project=name,
        turns=tuple(turns),
    )


@dataclass(frozen=True)
class _Memory:
    account: str
    projects: dict[str, str]


def _load_memory(source: Path, warn: Warn) -> _Memory:
    account: list[str] = []
    projects: dict[str, str] = {}
    for item in _items(source, "memories.json", warn):
        if not isinstance(item, dict):
            warn("memories.json: an entry that is not a JSON object was skipped.")
            continue
        if isinstance(item.get("conversations_memory"), str):
            account.append(item["conversations_memory"])
        by_project = item.get("project_memories")
        for uuid, text in by_project.items() if isinstance(by_project, dict) else ():
            if isinstance(text, str):
                projects[str(uuid)] = text
    return _Memory("\n\n".join(account), projects)
