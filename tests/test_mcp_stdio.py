"""End to end: `python -m rag mcp` as a subprocess, spoken to over real stdio by the SDK's client (the legacy
`initialize` handshake that Claude Code, Cursor and Claude Desktop use), with the real default embedder; and the
streamable HTTP transport on 127.0.0.1."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from rag.agents.mcp_server import MEMORY_TOOLS, TOOLS

from .conftest import FIXTURES

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.both_backends
async def test_search_read_and_a_stale_write_over_real_stdio(tmp_path, index_location):
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURES / "vault", vault, symlinks=True)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "rag", "mcp", "--vault", str(vault), "--db", index_location],
        env=None,  # only the SDK's safe variables: rag comes from the install (`pip install -e .`), not PYTHONPATH
        cwd=tmp_path,
    )
    with open(tmp_path / "stderr.log", "w", encoding="utf-8") as errlog:
        started = time.monotonic()
        async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:
            tools = (await client.list_tools()).tools
            handshake = time.monotonic() - started
            with anyio.fail_after(60):
                while (await client.call_tool("knowledge_status", {})).structured_content["notes"] < 11:
                    await anyio.sleep(0.1)
            found = await client.call_tool("knowledge_search", {"query": "sourdough hydration", "limit": 3})
            path = found.structured_content["results"][0]["path"]
            note = await client.call_tool("knowledge_read", {"path": path, "start_line": 1, "end_line": 16})
            (vault / path).write_text("# Sourdough\n\nEdited by the person meanwhile.\n", encoding="utf-8")
            stale = await client.call_tool(
                "knowledge_write", {"path": path, "content": "# Sourdough\n\nAgent text.\n", "expected_sha256": note.structured_content["sha256"]}
            )
    assert [t.name for t in tools] == [*TOOLS, *MEMORY_TOOLS] and handshake < 20
    assert path == "Notes/Sourdough.md" and "72%" in note.structured_content["content"]
    assert stale.is_error and "changed since it was read" in stale.content[0].text
    assert (vault / path).read_text(encoding="utf-8") == "# Sourdough\n\nEdited by the person meanwhile.\n"
    assert "Traceback" not in (tmp_path / "stderr.log").read_text(encoding="utf-8")


@pytest.mark.both_backends
async def test_an_agent_remembers_recalls_in_the_other_language_and_votes_over_real_stdio(tmp_path, index_location):
    vault = tmp_path / "vault"
    vault.mkdir()  # an empty vault: memory needs nothing else
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "rag", "mcp", "--vault", str(vault), "--db", index_location], env=None, cwd=tmp_path
    )
    with open(tmp_path / "stderr.log", "w", encoding="utf-8") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:
            tea = await client.call_tool("memory_remember", {"content": "Anna prefers green tea in the morning.", "category": "preferences"})
            await client.call_tool("memory_remember", {"content": "The staging database runs PostgreSQL 16 on server-b.", "category": "config"})
            with anyio.fail_after(120):  # the background indexer embeds the new facts
                while (await client.call_tool("knowledge_status", {})).structured_content["vectors_missing"]:
                    await anyio.sleep(0.2)
            recalled = await client.call_tool("memory_recall", {"query": "Что Анна пьёт по утрам?", "limit": 3})
            fact_id = tea.structured_content["id"]
            voted = await client.call_tool("memory_feedback", {"id": fact_id, "helpful": True})
            wrong = await client.call_tool("memory_feedback", {"id": "f-unknown", "helpful": False})
    best = recalled.structured_content["results"][0]
    assert best["id"] == fact_id and best["channels"]["semantic"] > 0 and best["path"].startswith("Memory/Facts/preferences/")
    assert voted.structured_content["trust"] == pytest.approx(0.55) and "trust: 0.55" in (vault / best["path"]).read_text(encoding="utf-8")
    assert wrong.is_error and "no fact with id" in wrong.content[0].text
    assert "Traceback" not in (tmp_path / "stderr.log").read_text(encoding="utf-8")


async def test_http_transport_serves_the_same_tools_on_localhost_to_callers_with_the_token_only(tmp_path):
    import httpx2
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/mcp"
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"))
    command = [sys.executable, "-m", "rag", "mcp", "--vault", str(FIXTURES / "vault"), "--db", str(tmp_path / "index.db"), "--http", str(port)]
    server = subprocess.Popen(command, cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True)
    try:
        printed = "".join(server.stderr.readline() for _ in range(4))
        token_file = tmp_path / "config" / "ask-your-vault" / "mcp-token"
        token = token_file.read_text(encoding="utf-8").strip()
        assert oct(token_file.stat().st_mode & 0o777) == "0o600" and f"Authorization: Bearer {token}" in printed
        with anyio.fail_after(30):
            while True:
                try:
                    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
                    async with Client(streamable_http_client(url, http_client=http), mode="legacy") as client:
                        tools = (await client.list_tools()).tools
                        note = await client.call_tool("knowledge_read", {"path": "CONTEXT.md"})
                        outside = await client.call_tool("knowledge_read", {"path": "/etc/passwd"})
                    break
                except Exception:  # not listening yet
                    await anyio.sleep(0.2)
        hello = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        async with httpx2.AsyncClient() as plain:  # what any local process could send with curl
            bare = await plain.post(url, json=hello, headers=accept)
            wrong = await plain.post(url, json=hello, headers=accept | {"Authorization": "Bearer " + "x" * len(token)})
            foreign = await plain.post(url, json=hello, headers=accept | {"Authorization": f"Bearer {token}", "Origin": "http://evil.example"})
    finally:
        server.terminate()
        server.wait(10)
    assert [t.name for t in tools] == [*TOOLS, *MEMORY_TOOLS] and "Ada" in note.structured_content["content"]
    assert outside.is_error and "absolute path" in outside.content[0].text
    assert bare.status_code == 401 and wrong.status_code == 401 and "Bearer" in bare.headers["www-authenticate"]
    assert "Ada" not in bare.text + wrong.text
    assert foreign.status_code in (400, 403)  # another site's page in the browser: refused even with the token
