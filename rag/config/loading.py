"""Settings loaded: built-in defaults → the user's `rag.toml` → environment → an adapter's overrides (later wins),
each value checked (rag/config/checks.py) before `Settings` is made. The only module here that reads a file or the
environment.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import tomllib
from pathlib import Path

from rag.config.checks import check_sizes, checked, hints
from rag.config.paths import CONFIG_NAME, DEMO_VAULT, default_index_path, is_server_url, user_config_path
from rag.config.settings import ENV, Settings
from rag.errors import ConfigError

log = logging.getLogger(__name__)


def load_settings(*, config_file: Path | None = None, env: dict | None = None, **overrides) -> Settings:
    """Build Settings. `overrides` with value None are ignored (so adapters can pass optional flags straight in)."""
    env = os.environ if env is None else env
    values: dict = {}
    path = config_file or _find_config_file(env)
    if path is not None:
        values.update(_read_toml(path))
    for var, name in ENV.items():
        if env.get(var):
            values[name] = env[var]
    values.update({k: v for k, v in overrides.items() if v is not None})
    if "RAG_VAULT" in env and not env["RAG_VAULT"].strip() and overrides.get("vault") is None:
        values["vault"] = ""  # set but empty (`RAG_VAULT=$UNSET`): an error, not the demo vault
    return _build(values)


def _find_config_file(env) -> Path | None:
    if env.get("RAG_CONFIG"):
        path = Path(env["RAG_CONFIG"]).expanduser()
        if not path.is_file():
            raise ConfigError(f"RAG_CONFIG points to {path}, which does not exist. Fix the path or unset RAG_CONFIG.")
        return path
    user = user_config_path(env)
    local = Path(CONFIG_NAME)
    if local.is_file() and (user is None or local.resolve() != user.resolve()):
        log.warning(
            "%s in the working folder is not read: a config file could come from an untrusted repository. "
            "Put your settings in %s, or point RAG_CONFIG at the file.",
            local.absolute(),
            user or "~/.config/ask-your-vault/rag.toml",
        )
    return user if user is not None and user.is_file() else None


def _read_toml(path: Path) -> dict:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"Cannot read config file {path}: {exc}. Fix it or remove it.") from exc
    if "openai_api_key" in data:
        raise ConfigError(f"{path} contains openai_api_key. Keep secrets out of files: set OPENAI_API_KEY instead.")
    known = {f.name for f in dataclasses.fields(Settings)} - {"openai_key_endpoint"}  # follows the key, never set
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"Unknown setting(s) in {path}: {', '.join(unknown)}. Known settings: {', '.join(sorted(known))}.")
    return data


VAULT_EMPTY = "The vault is empty: give the folder that holds your notes (--vault ~/Notes, or RAG_VAULT)."  # the app words it its way


def _build(values: dict) -> Settings:
    vault = values.pop("vault", DEMO_VAULT)
    if not str(vault).strip():  # `--vault "$UNSET"` must not open the working folder (Path("") is ".")
        raise ConfigError(VAULT_EMPTY)
    vault = Path(checked("vault", vault, Path)).expanduser()
    vault = vault.resolve() if vault.exists() else vault.absolute()
    db = values.pop("db_path", None)
    if is_server_url(db):
        values["db_url"], db = str(db), None
    db_path = Path(checked("db_path", db, Path)).expanduser().absolute() if db else default_index_path(vault)
    declared = hints()
    for name in list(values):
        values[name] = checked(name, values[name], declared[name])
    settings = Settings(vault=vault, db_path=db_path, **values)
    check_sizes(settings)
    return settings
