"""Hostile clients of `python -m rag mcp`: connections that never finish a request, lines the SDK cannot read, and
token files that are not what they should be. Real servers, real sockets, real files; every wait has a deadline."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import resource
import select
import socket
import subprocess
import sys
import threading
import time

import anyio
import httpx2 as httpx
import pytest
from click.testing import CliRunner

from rag.cli import cli

from .waiting import wait_for

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)


# --- stdio: a line the SDK cannot read ------------------------------------------------------------------------------


class _StdioSession:
    """`python -m rag mcp` over real pipes, spoken to in raw JSON lines (the SDK's client would not send these)."""

    def __init__(self, tmp_path, vault) -> None:
        command = [sys.executable, "-m", "rag", "mcp", "--vault", str(vault), "--db", str(tmp_path / "index.db")]
        self.errlog = open(tmp_path / "stderr.log", "w", encoding="utf-8")  # noqa: SIM115 (closed in close())
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errlog, cwd=tmp_path)
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line)

    def send(self, line: str) -> None:
        self.process.stdin.write(line.encode("utf-8") + b"\n")
        self.process.stdin.flush()

    def answer(self, timeout: float) -> dict:
        return json.loads(self.lines.get(timeout=timeout))

    def close(self) -> None:
        self.process.stdin.close()  # end of input: the server stops
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            _stop(self.process)
        self.errlog.close()


@pytest.mark.timeout(60)
def test_a_lone_surrogate_in_a_stdio_request_is_served_and_unreadable_lines_are_answered(tmp_path):
    vault = tmp_path / "vault"
    vault.mkdir()
    session = _StdioSession(tmp_path, vault)
    try:
        session.send(json.dumps(INITIALIZE))
        hello = session.answer(timeout=40)
        session.send('{"jsonrpc": "2.0", "method": "notifications/initialized"}')
        arguments = r'{"path": "Cafe.md", "content": "# Caf\u00e9\n\ncaf\ud800e \ud83d\ude00\n"}'  # a lone half, then a whole pair
        session.send(f'{{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {{"name": "knowledge_write", "arguments": {arguments}}}}}')
        written = session.answer(timeout=10)
        session.send('{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "knowledge_')  # cut short
        cut = session.answer(timeout=10)
        session.send('{"jsonrpc": "2.0", "id": 4, "method": 7}')
        malformed = session.answer(timeout=10)
        session.send('{"jsonrpc": "2.0", "id": 5, "method": "tools/list"}')  # the session goes on
        listed = session.answer(timeout=10)
    finally:
        session.close()
    assert hello["id"] == 1 and "result" in hello
    assert written["id"] == 2 and not written["result"]["isError"]
    assert (vault / "Cafe.md").read_text(encoding="utf-8") == "# Café\n\ncaf\ufffde \U0001f600\n"
    assert cut["id"] is None and cut["error"]["code"] == -32700
    assert malformed["id"] == 4 and malformed["error"]["code"] == -32600
    assert listed["id"] == 5 and listed["result"]["tools"]
    log = (tmp_path / "stderr.log").read_text(encoding="utf-8")
    assert "Traceback" not in log and log.count("not a JSON-RPC message") == 2


# --- the token file --------------------------------------------------------------------------------------------------


def test_servers_started_at_once_make_one_token_and_all_read_it(tmp_path):
    from rag.agents.http_auth import make_token, read_token

    def start(path, barrier, made, read, failed) -> None:
        barrier.wait()
        try:
            made.append(make_token(path))
            read.append(read_token(path))
        except Exception as exc:  # noqa: BLE001 (any failure is the finding)
            failed.append(exc)

    for round_ in range(100):  # the race lost 23 of 600 starts
        path = tmp_path / str(round_) / "mcp-token"
        made, read, failed = [], [], []
        barrier = threading.Barrier(4)
        threads = [threading.Thread(target=start, args=(path, barrier, made, read, failed)) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        assert not failed and made.count(True) == 1 and len(read) == 4 and len(set(read)) == 1
        assert [p.name for p in path.parent.iterdir()] == ["mcp-token"]  # no temp file left behind


def _token_file(tmp_path):
    path = tmp_path / "config" / "ask-your-vault" / "mcp-token"
    path.parent.mkdir(parents=True)
    return path


def _put(content: bytes):
    def put(path) -> None:
        path.write_bytes(content)
        path.chmod(0o600)

    return put


def _link_to_a_token(path) -> None:
    _put(b"t" * 43)(path.with_name("elsewhere"))
    path.symlink_to(path.with_name("elsewhere"))


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("make", "why"),
    [
        (_put(b"\xff\xfe\x00\x01binary\x80\x81" * 4), "binary"),
        (_put(b""), "empty"),
        (_put(b"two words, not a token\n"), "a token is one line"),
        (_put(b"x" * 5000), "larger than"),
        (lambda path: path.mkdir(), "not a regular file"),
        (_link_to_a_token, "symbolic link"),
    ],
    ids=["binary", "empty", "words", "large", "folder", "link"],
)
def test_a_token_file_that_holds_no_token_stops_the_start_with_one_line(tmp_path, make, why):
    path = _token_file(tmp_path)
    make(path)
    result = CliRunner().invoke(cli, ["mcp", "--http", str(_free_port())], env={"XDG_CONFIG_HOME": str(tmp_path / "config")})
    assert result.exit_code == 1 and not isinstance(result.exception, UnicodeError), result.output
    assert result.output.count("\n") == 1 and why in result.output and "Delete it" in result.output
    assert os.path.lexists(path)  # what to do is said; nothing is deleted behind the user's back


@pytest.mark.timeout(60)
def test_a_fifo_in_place_of_the_token_file_is_refused_at_once(tmp_path):
    path = _token_file(tmp_path)
    os.mkfifo(path, 0o600)
    command = [sys.executable, "-m", "rag", "mcp", "--http", str(_free_port())]
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"))
    begun = time.monotonic()
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("the start waited on the FIFO")
    assert done.returncode == 1 and "not a regular file" in done.stderr and done.stderr.count("\n") == 1
    assert time.monotonic() - begun < 30


# --- rag mcp --http: bounded connections, a deadline for headers -----------------------------------------------------


def _half_open(port: int, count: int) -> list[socket.socket]:
    """Connections that never finish a request: half say nothing, half stop in the middle of their headers. Connected
    all at once (a full accept queue drops a connect for a second or more)."""
    held = []
    for _ in range(count):
        sock = socket.socket()
        sock.setblocking(False)
        sock.connect_ex(("127.0.0.1", port))
        held.append(sock)
    for sock in held[1::2]:
        select.select([], [sock], [], 5)
        with contextlib.suppress(OSError):  # closed already to make room: that is the server's right
            sock.send(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    return held


def _closed_by_server(sock: socket.socket, timeout: float) -> bool:
    sock.settimeout(timeout)
    try:
        return sock.recv(1) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def _limit_files(count: int):
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (count, count))

    return limit


@pytest.mark.timeout(60)
def test_a_flood_of_half_open_connections_does_not_lock_out_a_client_with_the_token(tmp_path):
    vault = tmp_path / "vault"
    vault.mkdir()
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"))
    token = CliRunner().invoke(cli, ["mcp", "--show-token"], env={"XDG_CONFIG_HOME": env["XDG_CONFIG_HOME"]}).output.strip()
    port = _free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    command = [sys.executable, "-m", "rag", "mcp", "--vault", str(vault), "--db", str(tmp_path / "index.db"), "--http", str(port)]
    # 200 file descriptors instead of the usual 1024: 250 idle connections then do what 1,100 did there
    server = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True, preexec_fn=_limit_files(200))
    held = []
    try:
        started = server.stderr.readline()
        authorised = MCP_HEADERS | {"Authorization": f"Bearer {token}"}
        wait_for(lambda: _answers(url, authorised), timeout=30)
        held = _half_open(port, 250)
        begun = time.monotonic()
        with httpx.Client(timeout=5) as client:
            served = client.post(url, json=INITIALIZE, headers=authorised)
            waited = time.monotonic() - begun
            bare = client.post(url, json=INITIALIZE, headers=MCP_HEADERS)
    finally:
        for sock in held:
            sock.close()
        _stop(server)
    assert len(token) >= 43 and token == (tmp_path / "config" / "ask-your-vault" / "mcp-token").read_text(encoding="utf-8").strip()
    assert served.status_code == 200 and '"id":1' in served.text and waited < 5
    assert bare.status_code == 401  # the bound comes before the token; the token is still required
    assert token not in started and "mcp-token" in started and "--show-token" in started  # a later start: where, not what


def _answers(url: str, headers: dict) -> bool:
    try:
        return httpx.post(url, json=INITIALIZE, headers=headers, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


async def _slow_ok(scope, receive, send) -> None:
    """A stand-in for the MCP app behind BearerGate: /slow answers after 1.5 s, anything else at once."""
    if scope["type"] != "http":
        return
    if scope["path"] == "/slow":
        await anyio.sleep(1.5)
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"ok"})


@contextlib.contextmanager
def _bounded_server(limits):
    from rag.agents.http_auth import BearerGate
    from rag.agents.http_server import http_server

    server = http_server(BearerGate(_slow_ok, "t" * 43), port=0, limits=limits)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_for(lambda: server.started, timeout=10)
        yield server, server.servers[0].sockets[0].getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.mark.timeout(30)
def test_past_the_connection_cap_the_longest_waiting_connection_goes_not_a_request_being_answered():
    from rag.agents.http_server import ConnectionLimits

    token = {"Authorization": "Bearer " + "t" * 43}
    with _bounded_server(ConnectionLimits(max_connections=20, header_seconds=30)) as (server, port):
        results = {}
        slow = threading.Thread(target=lambda: results.update(slow=httpx.get(f"http://127.0.0.1:{port}/slow", headers=token, timeout=10)))
        slow.start()
        wait_for(lambda: len(server.server_state.tasks) == 1, timeout=5)  # its request is being answered
        held = _half_open(port, 40)
        try:
            begun = time.monotonic()
            served = httpx.get(f"http://127.0.0.1:{port}/", headers=token, timeout=5)
            waited = time.monotonic() - begun
            open_now = len(server.server_state.connections)
            first_closed = _closed_by_server(held[0], timeout=2)
            slow.join(10)
        finally:
            for sock in held:
                sock.close()
    assert served.status_code == 200 and waited < 3
    assert open_now <= 20 and first_closed
    assert results["slow"].status_code == 200 and results["slow"].text == "ok"


@pytest.mark.timeout(30)
def test_a_client_sending_its_headers_a_byte_at_a_time_is_cut_off_at_the_header_deadline():
    from rag.agents.http_server import ConnectionLimits

    with _bounded_server(ConnectionLimits(max_connections=20, header_seconds=1.5)) as (_server, port):
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            begun = time.monotonic()
            request = b"GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + b"t" * 43 + b"\r\nX-Pad: " + b"a" * 100
            closed_at = None
            for byte in request:  # one byte each 0.3 s: about 45 s for the headers, were it allowed
                try:
                    sock.sendall(bytes([byte]))
                except (BrokenPipeError, ConnectionResetError):
                    closed_at = time.monotonic() - begun
                    break
                if _closed_by_server(sock, timeout=0.3):
                    closed_at = time.monotonic() - begun
                    break
                if time.monotonic() - begun > 6:
                    break
    assert closed_at is not None and 1.4 < closed_at < 3


def test_a_busy_port_is_one_line_before_anything_is_printed_or_made(tmp_path):
    """`rag mcp --http` on a port another program listens on used to print "Serving…" and the token, then fail with
    Errno 98: now one line says so, and no token is made or shown."""
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        result = CliRunner().invoke(cli, ["mcp", "--http", str(port)], env={"XDG_CONFIG_HOME": str(tmp_path / "config")})
    assert result.exit_code == 1, result.output
    assert result.output.count("\n") == 1 and f"Port {port}" in result.output and "in use" in result.output
    assert "Serving" not in result.output and not _token_file(tmp_path).exists()
