"""One `Settings` value, built in one place from defaults, the user's `rag.toml`, env vars and adapter overrides.

Precedence (later wins): built-in defaults → the user's `rag.toml` → environment → explicit overrides from an adapter.
The config file is the user's own: `$RAG_CONFIG`, else `~/.config/ask-your-vault/rag.toml` (`$XDG_CONFIG_HOME`
honoured). A `rag.toml` in the working folder is never read: an agent may start us inside an untrusted repository,
and that file could send the API key and note passages to a URL of its choosing. Secrets (API keys) come only from
the environment, never from a file or the vault. Every value is checked against the type `Settings` declares and
its range; a wrong one is a one-line error naming the key and the expected form. Nothing runs at import time.

The package: the declarations by section (`sections.py`: index, search, answer, chat, memory, app), `Settings` that
joins them flat (`settings.py`), the checks (`checks.py`), the loading (`loading.py`), the paths (`paths.py`). What
callers import is named here.
"""

from rag.config.checks import allowed_range, check_setting
from rag.config.loading import VAULT_EMPTY, load_settings
from rag.config.paths import (
    APP_NAME,
    CONFIG_FOLDER,
    CONFIG_NAME,
    DEMO_VAULT,
    SERVER_SCHEMES,
    default_index_path,
    is_server_url,
    legacy_index_path,
    user_config_path,
)
from rag.config.sections import DEFAULT_TIER1_FILES, DEFAULT_TIER1_FOLDERS
from rag.config.settings import CONNECT_TIMEOUT, OPENAI_ENDPOINT, Settings

__all__ = [
    "APP_NAME",
    "CONFIG_FOLDER",
    "CONFIG_NAME",
    "CONNECT_TIMEOUT",
    "DEFAULT_TIER1_FILES",
    "DEFAULT_TIER1_FOLDERS",
    "DEMO_VAULT",
    "OPENAI_ENDPOINT",
    "SERVER_SCHEMES",
    "VAULT_EMPTY",
    "Settings",
    "allowed_range",
    "check_setting",
    "default_index_path",
    "is_server_url",
    "legacy_index_path",
    "load_settings",
    "user_config_path",
]
