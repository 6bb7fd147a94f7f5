"""How `rag mcp --http` listens: uvicorn on 127.0.0.1, with a bound on open connections and a deadline for a
request's headers, both before any token is checked. Knows nothing of MCP or tokens (rag/agents/http_auth.py).

uvicorn alone waits for ever on a client that connects and sends nothing, or sends its headers a byte at a time:
about a thousand such connections use up the process's file descriptors, and then nobody, token or not, gets in.
Here a connection is *waiting* while no request of it is being answered: just opened, between requests
(keep-alive), or after its answer while the client still sends a body nobody reads. A waiting connection that has
not completed a request's headers within `header_seconds` is closed; trickling bytes does not extend the deadline.
When a new connection would pass `max_connections`, the connection waiting longest is closed to make room (one whose
request is being answered is never cut), so a client that sends its request at once gets in past any number of idle
connections; with none waiting, the new connection is closed instead. A local process that opens connections without
end can still slow others down (some of their connections are closed before their request is read); it can no
longer shut them out.
"""

from __future__ import annotations

import errno
import functools
import logging
import socket
from dataclasses import dataclass

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ConnectionLimits:
    """Far above what a few local agents use (each holds one or two connections), far below the usual file limit
    (1024 on Linux, 256 on macOS). Clients on 127.0.0.1 send their headers within milliseconds."""

    max_connections: int = 64
    header_seconds: float = 10.0


def http_server(app, *, port: int, limits: ConnectionLimits = ConnectionLimits()) -> uvicorn.Server:
    """A uvicorn server for `app` on 127.0.0.1:`port` (0: one the system picks), bounded by `limits`."""
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        http=functools.partial(_BoundedH11Protocol, limits=limits),  # type: ignore[arg-type]
        ws="none",  # nothing here speaks WebSocket; an upgrade would leave the bounds above
        # asyncio accepts up to `backlog` connections in a burst before any is seen here (uvicorn's 2048 would use up
        # the file descriptors at once): open sockets stay under 2 × max_connections
        backlog=limits.max_connections,
    )
    return uvicorn.Server(config)


def port_in_use(port: int) -> bool:
    """Whether another program listens on 127.0.0.1:`port` (bound as uvicorn binds it), so `rag mcp --http` says so
    in one line before it prints where it serves, instead of failing after with Errno 98."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return True
            raise
    return False


class _BoundedH11Protocol(H11Protocol):
    """uvicorn's h11 connection, plus the header deadline and the connection bound of the module docstring."""

    def __init__(self, *args, limits: ConnectionLimits, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.limits = limits
        self.waiting_since: float | None = None  # loop time; None while a request is being answered
        self._deadline = None
        self._lost = False

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._note_state()
        if len(self.connections) > self.limits.max_connections:
            waiting = [c for c in self.connections if c is not self and getattr(c, "waiting_since", None) is not None]
            oldest = min(waiting, key=lambda c: c.waiting_since, default=self)
            log.debug("%d connections open: closing one that waits for a request", len(self.connections))
            oldest.drop()

    def connection_lost(self, exc) -> None:
        self._lost = True
        self._cancel_deadline()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        self._note_state()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._note_state()

    def drop(self) -> None:
        """Close at once (no goodbye: the client sent no complete request, or is past its deadline)."""
        self._cancel_deadline()
        self.connections.discard(self)  # counted out now, not when the loop gets round to connection_lost
        if not self.transport.is_closing():
            self.transport.abort()

    def _note_state(self) -> None:
        answering = self.cycle is not None and not self.cycle.response_complete
        if answering:
            self.waiting_since = None
            self._cancel_deadline()
        elif self.waiting_since is None and not self._lost:  # starts waiting now; more bytes do not restart the clock
            self.waiting_since = self.loop.time()
            self._deadline = self.loop.call_later(self.limits.header_seconds, self._expire)

    def _expire(self) -> None:
        self._deadline = None
        if self.waiting_since is not None:
            log.debug("no complete request within %g s: connection closed", self.limits.header_seconds)
            self.drop()

    def _cancel_deadline(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
