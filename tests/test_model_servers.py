"""Chat model servers found, not typed (rag/chat/servers.py, `rag models`): each kind of local server recognised
through its own endpoints with the window it runs a model with, against the test server behaving like it; nothing
listening is quick to say so; only loopback is probed; `--test` times one request."""

from __future__ import annotations

import json
import socket
import time

import pytest
from click.testing import CliRunner

from rag.chat import servers
from rag.chat.servers import describe, find_servers, is_loopback, window_in_error
from rag.cli import cli
from tests.openai_server import FakeOpenAI


@pytest.mark.parametrize(
    "kind, setup, expected_kind, window",
    [
        ("ollama", {}, "Ollama", 4096),  # Ollama's default num_ctx: what a plain OpenAI-endpoint request gets
        ("ollama", {"model_num_ctx": 8192}, "Ollama", 8192),  # the model's Modelfile sets it
        ("llama.cpp", {"context_tokens": 2048}, "llama.cpp", 2048),
        ("vllm", {"context_tokens": 32768}, "vLLM", 32768),
        (None, {}, "OpenAI-compatible", None),  # says nothing about its window
    ],
)
def test_each_kind_of_server_is_recognised_with_the_window_it_runs_a_model_with(kind, setup, expected_kind, window):
    with FakeOpenAI(models=("qwen2.5:7b",)) as server:
        server.kind = kind
        for name, value in setup.items():
            setattr(server, name, value)
        url = server.base_url
        found = describe(url)
    assert found.kind == expected_kind and found.base_url == url
    assert found.models[0].id == "qwen2.5:7b" and found.models[0].context_tokens == window


def test_the_usual_ports_are_probed_on_loopback_only_and_a_silent_machine_answers_quickly(monkeypatch):
    with FakeOpenAI(models=("local",)) as server:
        server.kind = "llama.cpp"
        with socket.socket() as closed:
            closed.bind(("127.0.0.1", 0))
            free = closed.getsockname()[1]  # nothing listens here once closed
        started = time.perf_counter()
        found = find_servers(((server.port, "llama.cpp"), (free, "Ollama")))
        assert time.perf_counter() - started < 3
    assert [(s.kind, s.models[0].context_tokens) for s in found] == [("llama.cpp", 4096)]
    assert all(r["headers"].get("host", "").startswith("127.0.0.1") for r in server.requests)
    assert all(url.startswith("http://127.0.0.1:") for url in (f"http://127.0.0.1:{p}/v1" for p, _ in servers.LOCAL_PORTS))
    assert is_loopback("http://localhost:11434/v1") and is_loopback("http://[::1]:8080/v1") and not is_loopback("http://10.0.0.5:11434/v1")


def test_a_window_is_read_from_the_errors_servers_give():
    assert window_in_error("This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.") == 4096
    assert window_in_error("the request exceeds the available context size (2048 tokens), try increasing it") == 2048
    assert window_in_error("Requested tokens (9000) exceed context window of 8192") == 8192
    assert window_in_error("model 'x' not found") is None


def test_rag_models_lists_servers_and_their_windows_and_times_a_test(vault, tmp_path, monkeypatch):
    with FakeOpenAI(models=("qwen2.5:7b", "llama3.2:3b")) as server:
        server.kind, server.model_num_ctx = "ollama", 8192
        monkeypatch.setattr(servers, "LOCAL_PORTS", ((server.port, "Ollama"),))
        place = ["--vault", str(vault), "--db", str(tmp_path / "index.db")]
        listed = CliRunner().invoke(cli, ["models", *place], env={"OPENAI_BASE_URL": ""}, catch_exceptions=False)
        assert listed.exit_code == 0, listed.output
        assert f"Ollama at {server.base_url}" in listed.output and "qwen2.5:7b  (window 8,192 tokens)" in listed.output
        data = json.loads(CliRunner().invoke(cli, ["models", *place, "--json"], env={"OPENAI_BASE_URL": ""}).output)
        assert data[0]["kind"] == "Ollama" and {m["id"] for m in data[0]["models"]} == {"qwen2.5:7b", "llama3.2:3b"}
        server.script_chat("OK")
        tested = CliRunner().invoke(cli, ["models", *place, "--test", "llama3.2:3b"], env={"OPENAI_BASE_URL": ""}, catch_exceptions=False)
        assert tested.exit_code == 0 and "llama3.2:3b at" in tested.output and "replied in" in tested.output and tested.output.strip().endswith("OK")
        assert server.requests[-1]["json"]["max_tokens"] == 8  # one short request
        missing = CliRunner().invoke(cli, ["models", *place, "--test", "nope"], env={"OPENAI_BASE_URL": ""})
        assert missing.exit_code == 1 and "No server here serves 'nope'" in missing.output
