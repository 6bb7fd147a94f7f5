"""Which endpoint the API key belongs to, and whether two addresses name the same endpoint.

OPENAI_API_KEY is given for one endpoint: OPENAI_BASE_URL as the settings were loaded (environment, the user's
config or secrets file), or OpenAI's own when none is set (`Settings.openai_key_endpoint`). It is sent there and
nowhere else: not to a server found on a local port, not to a model picked from one, not to another address typed
in the app later. A local program that lists a well-known model name ("gpt-4o-mini") must not collect the key by
being tested or chosen. Addresses are compared as endpoints, not as strings: scheme and host in any case, the
default port written or not, the path with or without its trailing slash.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from rag.config import OPENAI_ENDPOINT, Settings

_DEFAULT_PORTS = {"http": 80, "https": 443}


def endpoint(url: str) -> tuple[str, str, int | None, str]:
    """(scheme, host, port, path) of `url`, each as two spellings of one endpoint share it."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    try:
        port = parts.port or _DEFAULT_PORTS.get(scheme)
    except ValueError:  # a port that is not a number: no endpoint is the same as it
        port = -1
    return scheme, (parts.hostname or "").lower(), port, parts.path.rstrip("/")


def same_endpoint(a: str | None, b: str | None) -> bool:
    return bool(a and b) and endpoint(a) == endpoint(b)


def api_key_for(settings: Settings, url: str | None) -> str | None:
    """The API key to send to `url` (None: OpenAI's endpoint): the configured key if `url` is the endpoint it was
    given for, else None."""
    if not settings.openai_api_key:
        return None
    return settings.openai_api_key if same_endpoint(url or OPENAI_ENDPOINT, settings.openai_key_endpoint) else None
