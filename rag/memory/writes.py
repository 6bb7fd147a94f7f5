"""Changing agent memory: remember a fact (a new note), vote on it, rewrite it, archive it, import many. Every
change is a note write through `rag.notes.files` (confined to the vault, hash-guarded, logged), so hand edits in
Obsidian and these writes never overwrite each other silently.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import replace
from pathlib import Path

from rag.config import Settings
from rag.errors import ConflictError, VaultError
from rag.memory import entities as entity_names
from rag.memory import facts as fact_notes
from rag.memory.facts import Fact
from rag.notes import disk
from rag.notes import files as notes

MAX_FACT_CHARS = 4_000  # a fact is a statement, not a document: longer text belongs in a note
FEEDBACK_RETRIES = 3  # a note edited while a vote is written is read again

log = logging.getLogger(__name__)


def remember(
    settings: Settings,
    content: str,
    *,
    category: str | None = None,
    tags=(),
    entities=None,
    supersedes: str | None = None,
    known_ids=frozenset(),
    fact_id: str | None = None,
    created: str | None = None,
    trust: float | None = None,
    helpful: int = 0,
    unhelpful: int = 0,
) -> Fact:
    """Write a new fact note. `entities` None: read them from the content. Raises VaultError for an empty or huge fact
    or an id already taken."""
    text = (content or "").strip()
    if not text:
        raise VaultError("The fact is empty: give the statement to remember.")
    if len(text) > MAX_FACT_CHARS:
        raise VaultError(f"The fact is {len(text):,} characters; a fact is at most {MAX_FACT_CHARS:,}. Put longer text in a note.")
    fact_id = (fact_id or "").strip() or fact_notes.new_id()
    if fact_id in known_ids:
        raise VaultError(f"A fact with id {fact_id} already exists; update it with memory_update instead.")
    stamp = (created or "").strip() or fact_notes.now_iso()
    names = tuple(entity_names.extract(text)) if entities is None else _clean(entities)
    fact = Fact(
        id=fact_id,
        content=text,
        category=fact_notes.clean_category(category),
        tags=tuple(t.lstrip("#") for t in _clean(tags)),
        entities=names,
        trust=fact_notes.DEFAULT_TRUST if trust is None else min(1.0, max(0.0, float(trust))),
        helpful=helpful,
        unhelpful=unhelpful,
        created=stamp,
        updated=stamp,
        supersedes=(supersedes or "").strip() or None,
    )
    path = fact_notes.fact_path(fact, lambda p: (settings.vault / p).exists())
    written = notes.create_note(settings, path, fact_notes.render(fact), tool="memory_remember")
    return replace(fact, path=written.path, sha256=written.sha256)


def feedback(settings: Settings, fact: Fact, helpful: bool) -> Fact:
    """One vote on a fact: trust moves by `facts.with_feedback`'s rule, written to the note if it is unchanged (read
    again and retried when it changed meanwhile)."""
    for attempt in range(FEEDBACK_RETRIES):
        current = _reread(settings, fact)
        changed = fact_notes.with_feedback(current, helpful)
        try:
            written = notes.write_note(settings, current.path, fact_notes.render(changed), expected_sha256=current.sha256, tool="memory_feedback")
        except ConflictError:
            if attempt == FEEDBACK_RETRIES - 1:
                raise
            continue
        return replace(changed, sha256=written.sha256)
    raise AssertionError("unreachable")


def update(settings: Settings, fact: Fact, content: str, expected_sha256: str) -> Fact:
    """Replace a fact's statement, if its note still has `expected_sha256` (ConflictError otherwise). Entities that
    were read from the old statement are read from the new one; entities given by hand are kept."""
    text = (content or "").strip()
    if not text:
        raise VaultError("The new statement is empty; use memory_forget to archive a fact.")
    current = _reread(settings, fact)
    derived = tuple(entity_names.extract(current.content))
    names = tuple(entity_names.extract(text)) if current.entities in ((), derived) else current.entities
    changed = replace(current, content=text, entities=names, updated=fact_notes.now_iso())
    written = notes.write_note(settings, current.path, fact_notes.render(changed), expected_sha256=expected_sha256, tool="memory_update")
    return replace(changed, sha256=written.sha256)


def forget(settings: Settings, fact: Fact) -> str:
    """Move the fact's note to `Memory/Archive/<category>/` (never deleted: the vault keeps it). The new path."""
    rel, full = notes.confine(settings, fact.path, write=True)
    name = Path(rel).name
    target_rel = f"{fact_notes.ARCHIVE_FOLDER}/{fact.category}/{name}"
    n = 2
    while (settings.vault / target_rel).exists():
        target_rel = f"{fact_notes.ARCHIVE_FOLDER}/{fact.category}/{Path(name).stem} {n}.md"
        n += 1
    target_rel, target = notes.confine(settings, target_rel, write=True)
    with disk.audited(settings.vault) as audit:
        if not full.exists():
            raise VaultError(f"{rel} no longer exists; it may have been moved or archived already.")
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(full, target)
        problem = audit.add("memory_forget", f"{rel} -> {target_rel}", fact.sha256 or None, fact.sha256 or "")
    if problem:  # the note is moved: said as done, never as a failure to retry
        log.warning("%s was moved to %s, but its line in writes.log could not be added (%s).", rel, target_rel, problem)
    return target_rel


def import_jsonl(settings: Settings, path: Path, known_ids: set[str]) -> tuple[int, int, list[str]]:
    """Facts from a JSON Lines file (one object per line with `content` and any of the frontmatter fields; an `id`
    or `created` given is kept). (imported, skipped as already present, problems by line)."""
    imported = skipped = 0
    problems: list[str] = []
    with open(path, "rb") as lines:  # read as bytes: a line that is not UTF-8 is one problem, not the end of the import
        for number, raw in enumerate(lines, 1):
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError:
                problems.append(f"line {number}: not UTF-8 text (save the file as UTF-8)")
                continue
            if not line.strip():
                continue
            try:
                item = json.loads(line)
                if not isinstance(item, dict):
                    raise ValueError("not a JSON object")
                if item.get("id") and str(item["id"]).strip() in known_ids:
                    skipped += 1
                    continue
                fact = remember(
                    settings,
                    str(item.get("content") or ""),
                    category=item.get("category"),
                    tags=item.get("tags") or (),
                    entities=item.get("entities"),
                    supersedes=item.get("supersedes"),
                    known_ids=known_ids,
                    fact_id=item.get("id"),
                    created=item.get("created"),
                    trust=item.get("trust"),
                    helpful=int(item.get("helpful") or 0),
                    unhelpful=int(item.get("unhelpful") or 0),
                )
            except (ValueError, TypeError, VaultError) as exc:
                problems.append(f"line {number}: {exc}")
                continue
            known_ids.add(fact.id)
            imported += 1
    return imported, skipped, problems


def _reread(settings: Settings, fact: Fact) -> Fact:
    note = notes.read_text(settings, fact.path, max_chars=10**9)
    current = fact_notes.parse(note.path, note.content, note.sha256)
    if current is None or current.id != fact.id:
        raise VaultError(f"{fact.path} no longer holds fact {fact.id}.")
    return current


def _clean(values) -> tuple[str, ...]:
    items = [values] if isinstance(values, str) else list(values or ())
    return tuple(dict.fromkeys(str(v).strip() for v in items if str(v).strip()))
