"""The choices a person made in the app's Settings (vault, language, chat model, endpoint, embeddings, context
limits), kept for the next visit and the next start of the app.

Only what was chosen in the app is kept: the environment and the user's rag.toml stay the base (`load_settings`),
and a saved choice applies on top of it only for a field the person set in the panel; a field set back to the base's
value is dropped again, so the base leads it once more. One small JSON file for the user of this machine, in the
user's data folder beside the indexes (`~/.local/share/ask-your-vault/app-settings.json` on Linux), never in the
vault (a synced or shared folder) and never in the config folder (that is the person's own rag.toml's); mode 0600,
as it names the vault and the model endpoint; written whole and atomically. No API key is ever saved.

The file is read like any config, every value through the same checks as the panel's (`apply_choices`): a value of
another type, out of its range, or a vault folder that is gone is not used, and a `Notice` says so; the rest still
apply. A file that cannot be read is said once and replaced at the next choice. Knows nothing about Streamlit.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from rag.config import APP_NAME, Settings, check_setting
from rag.errors import ConfigError, RagError, VaultError
from rag.surface import check_vault, disk
from rag.web.webapp import NUMBERS, Choices, apply_choices, choices_of

log = logging.getLogger(__name__)

FILE_NAME = "app-settings.json"
FORMAT = 1
FIELDS = tuple(f.name for f in dataclasses.fields(Choices))
_SETTING_OF = {"embedder": "embedder", "language": "ui_language"}  # fields with a fixed set of values; NUMBERS: ranges


@dataclass(frozen=True)
class Notice:
    """Something about the saved choices the person should know: its kind (the catalogue's `saved.<kind>`) and values."""

    kind: str  # "unreadable", "dropped", "vault_gone"; the page adds "not_written"
    values: dict[str, str]


@dataclass(frozen=True)
class Remembered:
    choices: Choices | None  # the base's choices with the saved ones on top; None when nothing saved applies
    fields: tuple[str, ...]  # the fields those came from the app for, in the panel's order
    notices: tuple[Notice, ...] = ()


def choices_path() -> Path:
    """Where the saved choices live: the user's data folder (platformdirs), which also holds the indexes."""
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)) / FILE_NAME


def remembered(base: Settings, path: Path | None = None) -> Remembered:
    """The saved choices that apply on top of `base`, each checked as the panel checks it; what is not used, said."""
    path = path or choices_path()
    try:
        saved = _read(path)
    except (OSError, ValueError) as exc:
        return Remembered(None, (), (Notice("unreadable", {"path": str(path), "error": str(exc)}),))
    valid, notices = _checked(base, saved)
    if not valid:
        return Remembered(None, (), tuple(notices))
    choices = dataclasses.replace(choices_of(base), **valid)
    try:
        apply_choices(base, choices)  # each value is fine alone; together too? (openai embeddings need an endpoint)
    except RagError as exc:
        return Remembered(None, (), (*notices, Notice("dropped", {"error": str(exc)})))
    return Remembered(choices, tuple(f for f in FIELDS if f in valid), tuple(notices))


def keep(base: Settings, *, before: Choices | None, after: Choices, path: Path | None = None) -> tuple[str, ...]:
    """Save what the person changed from `before` (the panel as it showed; None: the base) to `after`, over the
    choices saved so far that are still valid; a field now equal to the base's value is dropped. Returns the saved
    fields. Raises OSError when the file cannot be written."""
    path = path or choices_path()
    try:
        saved, _ = _checked(base, _read(path))
    except (OSError, ValueError):  # a damaged file (said when the session started) is replaced
        saved = {}
    try:
        was = _plain(base, before)
    except RagError:  # the session's folder went away meanwhile: what differs from the base counts as chosen
        was = _plain(base, None)
    now = _plain(base, after)
    default = dataclasses.asdict(choices_of(base))
    merged = {**saved, **{k: v for k, v in now.items() if v != was[k]}}
    kept = {k: v for k, v in merged.items() if v != default[k]}
    _write(path, kept)
    return tuple(f for f in FIELDS if f in kept)


def forget(path: Path | None = None) -> None:
    """Drop every saved choice: the base leads every setting again."""
    (path or choices_path()).unlink(missing_ok=True)


def _plain(base: Settings, choices: Choices | None) -> dict:
    """The choices as the panel shows them once applied (a vault as its full path, trimmed texts)."""
    return dataclasses.asdict(choices_of(base if choices is None else apply_choices(base, choices)))


def _checked(base: Settings, saved: dict) -> tuple[dict, list[Notice]]:
    """The saved values the panel would take, each checked alone; a notice for each it would not take."""
    valid, notices = {}, []
    default = choices_of(base)
    for name in FIELDS:
        if name not in saved:
            continue
        value, kind = saved[name], type(getattr(default, name))
        try:
            if type(value) is not kind:  # `type`, not isinstance: JSON's true is no number here
                raise ConfigError(f"Setting {name} must be {'a whole number' if kind is int else 'a text value'}, got {value!r}.")
            _check(name, value)
        except VaultError as exc:
            gone = not Path(value).expanduser().exists()
            values = {"vault": value, "default": str(base.vault)}
            notices.append(Notice("vault_gone", values) if gone else Notice("dropped", {"error": str(exc)}))
            continue
        except RagError as exc:
            notices.append(Notice("dropped", {"error": str(exc)}))
            continue
        valid[name] = value
    return valid, notices


def _check(name: str, value) -> None:
    """The panel's check of one field (`apply_choices`), without the others: a ConfigError or VaultError names the fix."""
    if name == "vault":
        if not value.strip():
            raise VaultError("The saved vault path is empty.")
        check_vault(Path(value.strip()).expanduser())
    elif name in NUMBERS:
        check_setting(NUMBERS[name], value)
    elif name in _SETTING_OF:
        check_setting(_SETTING_OF[name], value)


def _read(path: Path) -> dict:
    """The file's choices as stored (names and JSON values); a missing file is none. Raises ValueError or OSError."""
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path} is not text") from exc
    data = json.loads(raw)
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("choices"), dict):
        raise ValueError(f"{path} is not a settings file of format {FORMAT}")
    unknown = sorted(set(data["choices"]) - set(FIELDS))
    if unknown:  # a later version's: kept out of this one, not an error
        log.info("%s: not used by this version: %s", path, ", ".join(unknown))
    return data["choices"]


def _write(path: Path, choices: dict) -> None:
    text = json.dumps({"format": FORMAT, "choices": choices}, ensure_ascii=False, indent=1)
    disk.replace(path, text.encode("utf-8"), new_mode=0o600)  # names the vault and the endpoint: the user's only
