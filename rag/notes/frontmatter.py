"""A note's YAML frontmatter: the block between leading `---` lines, read into its title, aliases, tags, project and
description (and the whole mapping, for readers of other keys). Knows nothing about files, chunks or the index.

Frontmatter is untrusted text, typed by a person or planted by a program, and one note's block must never stop the
vault: every way a YAML loader can fail on it becomes that note's `error`, and the note's body is still indexed. A
date or number Python cannot hold (`date: 2024-02-30`, `title: 0000-01-01`, 5,000 digits) is kept as the text the
person wrote, with a `warning` naming it, so a typo in one value costs neither the note's title nor its tags.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import yaml
from yaml.constructor import SafeConstructor

_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's safe loader: ~10× faster, same results
# What a note's frontmatter may put into the index (a title longer than a line, a thousand tags, is not a title).
MAX_FRONTMATTER_VALUES = 10_000
MAX_TITLE_CHARS = 300
MAX_LIST_ITEMS = 100  # tags, aliases
MAX_ITEM_CHARS = 200
MAX_DESCRIPTION_CHARS = 2_000
# A number written longer than this is kept as text: no count or id is, and a longer one (a 5,000-digit integer, a
# hex run) makes str() and float() raise later, wherever the value is used.
MAX_NUMBER_CHARS = 100
_TYPED_SCALARS = ("bool", "int", "float", "timestamp")  # YAML's typed scalars: each can raise on text that fits its tag


@dataclass(frozen=True)
class Frontmatter:
    title: str | None = None
    aliases: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    project: str | None = None
    description: str | None = None  # a one-line summary some vaults keep (Obsidian Publish, Quartz, Hugo)
    line_count: int = 0  # lines taken by the frontmatter block, fences included (0 if none)
    error: str | None = None  # set when the block cannot be read (not YAML, too big); the body is still indexed
    warning: str | None = None  # set when a value was kept as text (an impossible date, a huge number); the rest is read
    data: dict | None = field(default=None, repr=False, compare=False)  # the whole mapping, for readers of other keys


class _NoteLoader(_SAFE_LOADER):
    """The safe loader, except that a typed scalar Python cannot hold stays its text, listed in `kept_as_text`."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.kept_as_text: list[str] = []


def _or_text(construct, *, max_chars: int | None = None):
    """`construct`, except that a scalar it raises on (or longer than `max_chars`) is kept as its text."""

    def build(loader: _NoteLoader, node):
        if not isinstance(node, yaml.ScalarNode):
            return construct(loader, node)  # `!!int [1]`: the loader's own error, a YAMLError
        try:
            if max_chars is not None and len(node.value) > max_chars:
                raise ValueError("too long")
            return construct(loader, node)
        except (ValueError, OverflowError, TypeError, KeyError, AttributeError):  # 2024-02-30, year 0, `!!bool maybe`
            loader.kept_as_text.append(node.value)
            return node.value

    return build


for _tag in _TYPED_SCALARS:
    _uri = f"tag:yaml.org,2002:{_tag}"
    _NoteLoader.add_constructor(_uri, _or_text(SafeConstructor.yaml_constructors[_uri], max_chars=MAX_NUMBER_CHARS if _tag == "int" else None))


def parse_frontmatter(text: str) -> Frontmatter:
    """YAML frontmatter between leading `---` lines. Whatever the block holds yields an `error` or a `warning`,
    never an exception."""
    if not text.startswith("---\n"):
        return Frontmatter()
    end = text.find("\n---", 3)
    while end != -1 and text[end + 4 : end + 5] not in ("\n", ""):
        end = text.find("\n---", end + 4)
    if end == -1:
        return Frontmatter()
    block = text[4:end]
    line_count = block.count("\n") + 3 if block else 2
    try:
        return _read(block, line_count)
    except yaml.YAMLError as exc:
        return Frontmatter(line_count=line_count, error=f"frontmatter is not valid YAML: {str(exc).splitlines()[0]}")
    except Exception as exc:  # anything else a loader raises (RecursionError, MemoryError…) is this note's problem
        return Frontmatter(line_count=line_count, error=f"frontmatter cannot be read ({type(exc).__name__}); it is ignored")


def _read(block: str, line_count: int) -> Frontmatter:
    loader = _NoteLoader(block)
    try:
        data = loader.get_single_data() or {}
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        return Frontmatter(line_count=line_count, error="frontmatter is not a YAML mapping")
    if not within_values(data, MAX_FRONTMATTER_VALUES):
        error = f"frontmatter holds more than {MAX_FRONTMATTER_VALUES:,} values (YAML aliases repeating a list?); it is ignored"
        return Frontmatter(line_count=line_count, error=error)
    title, project = _scalar(data.get("title"), MAX_TITLE_CHARS), _scalar(data.get("project"), MAX_TITLE_CHARS)
    return Frontmatter(
        title=title,
        project=project,
        aliases=_str_list(data.get("aliases") or data.get("alias"))[:MAX_LIST_ITEMS],
        tags=tuple(t.lstrip("#") for t in _str_list(data.get("tags") or data.get("tag")))[:MAX_LIST_ITEMS],
        description=_text(data.get("description")),
        line_count=line_count,
        warning=_kept_as_text(loader.kept_as_text),
        data=data,
    )


def _kept_as_text(values: list[str]) -> str | None:
    if not values:
        return None
    shown = ", ".join(repr(v if len(v) <= 40 else v[:40] + "…") for v in values[:3]) + (", …" if len(values) > 3 else "")
    return f"frontmatter value {shown} cannot be read as a date or number; it is kept as text"


def within_values(data, limit: int, *, depth: int = 64) -> bool:
    """Whether YAML data holds at most `limit` values counted as if written out, nested at most `depth` deep: aliases
    make a 428-byte block stand for 43 million strings (9 ** 8), which str() and every consumer would walk. A list
    that contains itself (`&a [*a, x]`) counts once. Stops counting at the limit."""
    seen = 0

    def walk(value, ancestors: tuple[int, ...]) -> bool:
        nonlocal seen
        seen += 1
        if seen > limit or len(ancestors) > depth:
            return False
        if isinstance(value, (dict, list, tuple, set)):
            if id(value) in ancestors:
                return True  # a cycle: written out once
            inner = (*ancestors, id(value))
            items = [*value.keys(), *value.values()] if isinstance(value, dict) else value
            return all(walk(item, inner) for item in items)
        return True

    return walk(data, ())


def _scalar(value, limit: int) -> str | None:
    """A frontmatter title or project: a scalar's text, cut at `limit` characters; None when empty or a list."""
    if value in (None, "") or isinstance(value, (dict, list)):
        return None
    return str(value).strip()[:limit].strip() or None


def _str_list(value) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = value[: MAX_LIST_ITEMS * MAX_ITEM_CHARS]
        return (
            tuple(v.strip() for v in value.replace(",", " ").split() if v.strip())
            if " " in value or "," in value
            else (value.strip()[:MAX_ITEM_CHARS],)
        )
    if isinstance(value, (list, tuple)):
        return tuple(str(v).strip()[:MAX_ITEM_CHARS] for v in value[:MAX_LIST_ITEMS] if v not in (None, ""))
    return (str(value)[:MAX_ITEM_CHARS],)


def _text(value) -> str | None:
    """A frontmatter value as plain text: a scalar as written, a list's (or mapping's) scalar items joined by spaces,
    deeper nesting ignored (YAML anchors can even make it circular); None when empty."""
    items = list(value.values()) if isinstance(value, dict) else value if isinstance(value, list) else [value]
    text = " ".join(str(v).strip() for v in items if v is not None and not isinstance(v, (dict, list)))
    return text.strip()[:MAX_DESCRIPTION_CHARS] or None
