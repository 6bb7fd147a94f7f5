"""Who may call `rag mcp --http`: a bearer token, made once and kept with mode 0600 in the user's config folder
(`~/.config/ask-your-vault/mcp-token`), required on every request. Loopback alone is no boundary: any local process
or user could otherwise read and write the notes with plain curl.

`BearerGate` wraps the SDK's Starlette app: a request without `Authorization: Bearer <token>`, or with another
token, gets 401 before it reaches MCP; the SDK's own check of Host and Origin (DNS rebinding) still runs behind it.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
from pathlib import Path

from rag.config import user_config_path
from rag.errors import ConfigError

TOKEN_NAME = "mcp-token"


def token_path(env=os.environ) -> Path:
    """Where the token lives: beside the user's rag.toml ($XDG_CONFIG_HOME or ~/.config, then ask-your-vault/)."""
    config = user_config_path(env)
    if config is None:
        raise ConfigError("Cannot tell where to keep the MCP token: neither HOME nor XDG_CONFIG_HOME is set.")
    return config.with_name(TOKEN_NAME)


def load_or_create_token(path: Path) -> str:
    """The token in `path`, made (32 random bytes, URL-safe) on first use. A token file others can read is refused:
    whoever reads it can write the notes."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        pass
    except OSError as exc:
        raise ConfigError(f"Cannot create the MCP token file {path}: {exc.strerror}.") from exc
    else:
        with open(fd, "w", encoding="utf-8") as handle:
            handle.write(secrets.token_urlsafe(32) + "\n")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        with open(fd, encoding="utf-8") as handle:
            mode = os.fstat(handle.fileno()).st_mode & 0o777
            token = handle.read().strip()
    except OSError as exc:
        raise ConfigError(f"Cannot read the MCP token file {path}: {exc.strerror}.") from exc
    if mode & 0o077:
        raise ConfigError(f"{path} can be read by other users (mode {mode:o}); run `chmod 600 {path}` and start again.")
    if len(token) < 16:
        raise ConfigError(f"The MCP token in {path} is too short; delete the file to have a new one made.")
    return token


class BearerGate:
    """ASGI middleware: HTTP requests must carry `Authorization: Bearer <token>` (compared in constant time)."""

    def __init__(self, app, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and not self._allowed(scope):
            await _refuse(send)
            return
        await self.app(scope, receive, send)

    def _allowed(self, scope) -> bool:
        given = [v for k, v in scope.get("headers", ()) if k.lower() == b"authorization"]
        return len(given) == 1 and hmac.compare_digest(given[0], self._expected)


async def _refuse(send) -> None:
    body = json.dumps({"error": "unauthorized", "detail": "Send Authorization: Bearer <token> (see `rag mcp --http`)."}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"www-authenticate", b'Bearer realm="ask-your-vault"'),
        (b"content-length", str(len(body)).encode()),
    ]
    await send({"type": "http.response.start", "status": 401, "headers": headers})
    await send({"type": "http.response.body", "body": body})
