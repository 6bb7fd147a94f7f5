"""Who may call `rag mcp --http`: a bearer token, made once and kept with mode 0600 in the user's config folder
(`~/.config/ask-your-vault/mcp-token`), required on every request. Loopback alone is no boundary: any local process
or user could otherwise read and write the notes with plain curl. The token is shown when it is made and on request
(`rag mcp --show-token`), never on every start: a server's stderr ends up in logs that others read.

`BearerGate` wraps the SDK's Starlette app: a request without `Authorization: Bearer <token>`, or with another
token, gets 401 before it reaches MCP; the SDK's own check of Host and Origin (DNS rebinding) still runs behind it.
"""

from __future__ import annotations

import contextlib
import errno
import hmac
import json
import os
import re
import secrets
import stat
import tempfile
from pathlib import Path

from rag.config import user_config_path
from rag.errors import ConfigError

TOKEN_NAME = "mcp-token"
MAX_TOKEN_FILE_BYTES = 1024
_TOKEN = re.compile(rb"[A-Za-z0-9._~+/-]{16,512}=*")  # RFC 6750 b64token: what may follow "Bearer "
_REMAKE = "Delete it to have a new token made at the next start (clients then need the new token)."


def token_path(env=os.environ) -> Path:
    """Where the token lives: beside the user's rag.toml ($XDG_CONFIG_HOME or ~/.config, then ask-your-vault/)."""
    config = user_config_path(env)
    if config is None:
        raise ConfigError("Cannot tell where to keep the MCP token: neither HOME nor XDG_CONFIG_HOME is set.")
    return config.with_name(TOKEN_NAME)


def make_token(path: Path) -> bool:
    """Make the token (32 random bytes, URL-safe) unless `path` holds one already; True when this call made it.

    The token is written whole to a private temp file beside `path`, then hard-linked to `path`: the link either
    lands or finds a file there, so servers started at once agree on one token and none reads a half-written one."""
    if os.path.lexists(path):
        return False
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=f".{TOKEN_NAME}-", dir=path.parent)  # mode 0600
    except OSError as exc:
        raise ConfigError(f"Cannot create the MCP token file {path}: {exc.strerror}.") from exc
    try:
        with open(fd, "w", encoding="utf-8") as handle:
            handle.write(secrets.token_urlsafe(32) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.link(temp, path)
    except FileExistsError:
        return False
    except OSError as exc:
        raise ConfigError(f"Cannot create the MCP token file {path}: {exc.strerror}.") from exc
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temp)
    return True


def read_token(path: Path) -> str:
    """The token in `path`. Refused, each with one line that says what to do: a file others can read or that another
    user owns (whoever can read or replace it can write the notes), a link, anything but a regular file (a FIFO
    would block the start), and content that is not one token."""
    try:  # O_NONBLOCK: opening a FIFO must not wait for a writer
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        why = "it is a symbolic link" if exc.errno == errno.ELOOP else exc.strerror
        raise ConfigError(f"Cannot read the MCP token file {path}: {why}. {_REMAKE}") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ConfigError(f"The MCP token file {path} is not a regular file. {_REMAKE}")
        if info.st_uid != os.geteuid():
            raise ConfigError(f"The MCP token file {path} belongs to another user. {_REMAKE}")
        if info.st_mode & 0o077:
            raise ConfigError(f"{path} can be read by other users (mode {info.st_mode & 0o777:o}); run `chmod 600 {path}` and start again.")
        with open(fd, "rb", closefd=False) as handle:
            data = handle.read(MAX_TOKEN_FILE_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_TOKEN_FILE_BYTES or not _TOKEN.fullmatch(data.strip()):
        raise ConfigError(f"The MCP token file {path} does not hold a token: {_what(data)}. {_REMAKE}")
    return data.strip().decode("ascii")


def _what(data: bytes) -> str:
    """Why `data` is not a token, in a few words."""
    if len(data) > MAX_TOKEN_FILE_BYTES:
        return f"it is larger than {MAX_TOKEN_FILE_BYTES} bytes"
    if not data.strip():
        return "it is empty"
    if not data.isascii() or b"\0" in data:
        return "it is binary or not ASCII"
    return "a token is one line of 16 to 512 letters, digits and - _ . ~ + /"


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
    body = json.dumps({"error": "unauthorized", "detail": "Send Authorization: Bearer <token> (`rag mcp --show-token` prints it)."}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"www-authenticate", b'Bearer realm="ask-your-vault"'),
        (b"content-length", str(len(body)).encode()),
    ]
    await send({"type": "http.response.start", "status": 401, "headers": headers})
    await send({"type": "http.response.body", "body": body})
