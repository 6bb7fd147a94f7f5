"""Every setting's value checked against the type `Settings` declares and its section's range and choices: a wrong
one is a ConfigError of one line naming the key and the form it takes. Strings (from env vars) become numbers and
booleans, lists (from TOML) tuples. Knows no setting by name but the chunk sizes and the answer's share of the window,
which are checked against each other.
"""

from __future__ import annotations

import types
import typing
from pathlib import Path

from rag.config.settings import CHOICES, RANGES, Settings
from rag.errors import ConfigError

_BOOLEANS = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False, "off": False}


def allowed_range(name: str) -> tuple:
    """The inclusive range the numeric setting `name` allows (a form's bounds are these, not bounds of its own)."""
    return RANGES[name]


def check_setting(name: str, value):
    """`value` as the setting `name` takes it (type and range), for a value from a form or a server; else a
    ConfigError naming the setting and what it allows."""
    return checked(name, value, hints()[name])


def hints() -> dict:
    return typing.get_type_hints(Settings)


def checked(name: str, value, hint):
    """`value` as the type `hint` (a Settings annotation) asks for, or a ConfigError naming the key and the form.
    Strings (from env vars) are converted to numbers and booleans; lists (from TOML) to tuples."""
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, types.UnionType):  # `int | None` and the like
        if value is None:
            return None
        hint = next(a for a in args if a is not type(None))
        args = typing.get_args(hint)
    origin = typing.get_origin(hint) or hint
    if hint is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in _BOOLEANS:
            return _BOOLEANS[value.strip().lower()]
        raise ConfigError(f"Setting {name} must be true or false, got {value!r}.")
    if hint in (int, float):
        number = _number(name, value, hint)
        low, high = RANGES.get(name, (None, None))
        if low is not None and not low <= number <= high:
            raise ConfigError(f"Setting {name} must be between {low} and {high}, got {value!r}.")
        return number
    if hint is str or hint is Path:
        if not isinstance(value, (str, Path)) or not str(value).strip():
            raise ConfigError(f'Setting {name} must be a text value, like {name} = "…", got {value!r}.')
        value = str(value)
        if name in CHOICES and value not in CHOICES[name]:
            raise ConfigError(f"Setting {name} must be one of {', '.join(map(repr, CHOICES[name]))}, got {value!r}.")
        return value
    if origin is tuple:
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f'Setting {name} must be a list of strings, like {name} = ["Templates/*"], got {value!r}.')
        return tuple(value)
    if origin is dict:
        if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
            raise ConfigError(f'Setting {name} must be a table of names to names, like {name} = {{ "old" = "new" }}, got {value!r}.')
        return dict(value)
    raise ConfigError(f"Setting {name} has a type this version cannot check ({hint}).")  # a new Settings field


def _number(name: str, value, hint):
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ConfigError(f"Setting {name} must be {'a whole number' if hint is int else 'a number'}, got {value!r}.")
    try:
        if hint is int:
            if isinstance(value, float) and not value.is_integer():
                raise ValueError
            return int(value)
        return float(value)
    except ValueError as exc:
        raise ConfigError(f"Setting {name} must be {'a whole number' if hint is int else 'a number'}, got {value!r}.") from exc


def check_sizes(s: Settings) -> None:
    if not 0 < s.chunk_min_tokens <= s.chunk_target_tokens <= s.chunk_hard_tokens:
        raise ConfigError(
            "Chunk sizes must satisfy 0 < chunk_min_tokens ≤ chunk_target_tokens ≤ chunk_hard_tokens; "
            f"got {s.chunk_min_tokens}/{s.chunk_target_tokens}/{s.chunk_hard_tokens}."
        )
    if s.chat_context_tokens is not None and s.max_answer_tokens >= s.chat_context_tokens:
        raise ConfigError(
            f"max_answer_tokens must be at least 16 and below chat_context_tokens ({s.chat_context_tokens}); got {s.max_answer_tokens}."
        )
