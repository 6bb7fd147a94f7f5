"""Where things are: the user's config file, a vault's index (or the PostgreSQL server that holds it), the demo
vault. Pure path arithmetic: nothing is created or read here."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import platformdirs

CONFIG_NAME = "rag.toml"
APP_NAME = "ask-your-vault"
CONFIG_FOLDER = APP_NAME  # under ~/.config (or $XDG_CONFIG_HOME)
DEMO_VAULT = Path(__file__).resolve().parents[1] / "demo_vault"
SERVER_SCHEMES = ("postgresql://", "postgres://")


def user_config_path(env) -> Path | None:
    """Where the user's own config lives: $XDG_CONFIG_HOME or ~/.config, then ask-your-vault/rag.toml (None when
    `env` names no home, as in tests that pass their own env)."""
    base = env.get("XDG_CONFIG_HOME") or (str(Path(env["HOME"]) / ".config") if env.get("HOME") else None)
    return Path(base).expanduser() / CONFIG_FOLDER / CONFIG_NAME if base else None


def default_index_path(vault: Path) -> Path:
    """Where a vault's index lives unless --db / RAG_DB say otherwise: the user's data folder (on Linux
    ~/.local/share/ask-your-vault/<vault name>-<hash of its path>/index.db), never inside the vault, so sync services
    and git do not carry 40 MB of index around."""
    digest = hashlib.sha256(str(vault).encode("utf-8")).hexdigest()[:12]
    name = re.sub(r"[^\w.-]+", "-", vault.name).strip("-.")[:40] or "vault"
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)) / f"{name}-{digest}" / "index.db"


def is_server_url(value) -> bool:
    """An index location that names a PostgreSQL server (`postgresql://…`) rather than an SQLite file."""
    return isinstance(value, str) and value.startswith(SERVER_SCHEMES)


def legacy_index_path(vault: Path) -> Path:
    """Where the index lived before 0.7: inside the vault."""
    return vault / ".rag" / "index.db"
