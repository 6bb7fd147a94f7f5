"""A server's own endpoints asked for JSON, bounded: within a wall-clock deadline (a server may send a byte a
second, which no socket timeout catches) and up to MAX_REPLY_BYTES; no proxy, no redirect followed. Also what an
address is: loopback or not, and a server's root under its /v1.

Apart from discovery (servers.py) because the kinds' readers, discovery and the clients' pacing all need it, and it
knows nothing of models or kinds.
"""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import threading
import time
from urllib.parse import urlsplit

MAX_REPLY_BYTES = 2_000_000  # one reply of a server about itself (a list of 3,000 models is ~1 MB)
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})  # urlsplit gives "::1" for "[::1]"


class TooSlow(Exception):
    """The deadline passed before the server finished its reply."""


class Unreadable(Exception):
    """The server's reply is too long, or JSON nested deeper than can be read."""


def is_loopback(url: str) -> bool:
    return (urlsplit(url).hostname or "") in LOOPBACK


def root_of(base_url: str) -> str:
    """The server's own address: `http://127.0.0.1:11434/v1` → `http://127.0.0.1:11434`."""
    url = base_url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


def request_json(url: str, *, api_key: str | None = None, body: dict | None = None, timeout: float, until: float):
    """Parsed JSON from `url` (a POST of `body` if given), or None when nothing (or no JSON) answers there. Raises
    TooSlow once `until` passes — the connection is then closed under the read, however slowly the server sends —
    and Unreadable for a reply over MAX_REPLY_BYTES or nested past what can be parsed. Talks to the address itself:
    no proxy, no redirect followed."""
    remaining = until - time.monotonic()
    if remaining <= 0:
        raise TooSlow
    parts = urlsplit(url)
    try:
        host, port = parts.hostname, parts.port
    except ValueError:  # a port that is not a number
        return None
    if not host:
        return None
    if parts.scheme == "https":
        connection = http.client.HTTPSConnection(host, port, timeout=min(timeout, remaining), context=ssl.create_default_context())
    elif parts.scheme == "http":
        connection = http.client.HTTPConnection(host, port, timeout=min(timeout, remaining))
    else:
        return None
    hung_up, held = threading.Event(), []
    cut = threading.Timer(remaining, _hang_up, (held, hung_up))
    cut.daemon = True
    cut.start()
    try:
        connection.connect()
        held.append(connection.sock)  # the connection lets go of it once a reply says it will close
        if hung_up.is_set():
            _hang_up(held, hung_up)
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"} if data else {}
        connection.request(
            "POST" if data else "GET", parts.path + (f"?{parts.query}" if parts.query else ""), body=data, headers={**headers, **_headers(api_key)}
        )
        with connection.getresponse() as response:
            reply = response.read(MAX_REPLY_BYTES + 1) if response.status == 200 else b""
    except (OSError, http.client.HTTPException, ValueError):
        reply = None
    finally:
        cut.cancel()
        connection.close()
    if hung_up.is_set():
        raise TooSlow
    if not reply:
        return None
    if len(reply) > MAX_REPLY_BYTES:
        raise Unreadable
    try:
        return json.loads(reply)
    except RecursionError:
        raise Unreadable from None
    except ValueError:
        return None


def _hang_up(held: list[socket.socket], hung_up: threading.Event) -> None:
    """The deadline: a read blocked on the connection's socket returns at once."""
    hung_up.set()
    for sock in held:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:  # closed meanwhile
            pass


def _headers(api_key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}"} if api_key else {}
