"""Prompt files (`prompts/*.md`) filled with `string.Template`, and the language an answer must be written in.

A prompt names its variables as `$name`; a missing or unexpected variable is an error, never a silent gap.
Values are inserted as they are (`$` inside a note is not re-read as a variable). No prompt prose lives in code.
"""

from __future__ import annotations

import functools
import re
import string
from pathlib import Path

from rag.errors import ConfigError

PROMPTS_DIR = Path(__file__).resolve().with_name("prompts")
LANGUAGE_NAMES = {"en": "English", "ru": "Russian (по-русски)"}
_CYRILLIC = re.compile(r"[А-Яа-яЁё]")
_LETTER = re.compile(r"[^\W\d_]")


def render(name: str, **values: str) -> str:
    """Fill `prompts/<name>.md`. Raises ConfigError if the file is missing or a variable is missing or unknown."""
    template = _template(name)
    expected = set(template.get_identifiers())
    missing, unknown = sorted(expected - set(values)), sorted(set(values) - expected)
    if missing or unknown:
        raise ConfigError(
            f"The prompt {PROMPTS_DIR / (name + '.md')} does not match the program "
            f"(missing: {', '.join(missing) or '-'}; unexpected: {', '.join(unknown) or '-'}). Restore it from the repository."
        )
    return template.substitute(values)


@functools.cache
def _template(name: str) -> string.Template:
    path = PROMPTS_DIR / f"{name}.md"
    try:
        return string.Template(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"The prompt file {path} cannot be read ({exc.strerror}). Restore it from the repository.") from exc


def language_of(text: str) -> str:
    """ "ru" if at least a third of the letters are Cyrillic, else "en" (the two languages the app answers in)."""
    letters = _LETTER.findall(text)
    if not letters:
        return "en"
    return "ru" if len(_CYRILLIC.findall(text)) * 3 >= len(letters) else "en"
