"""The table of chat server kinds (rag/chat/kinds.py) is the one list: discovery knocks on its ports and tries its
signs, and every list of ports a person reads says the same ports and names."""

import re
from pathlib import Path

from rag.chat import kinds, servers

ROOT = Path(__file__).resolve().parent.parent


def test_discovery_knocks_on_the_ports_of_the_table_in_its_order():
    assert servers.LOCAL_PORTS == tuple((k.port, k.name) for k in kinds.KINDS if k.port is not None)
    assert [k.name for k in kinds.KINDS] == ["Ollama", "LM Studio", "llama.cpp", "vLLM", "OpenAI-compatible"]


def test_every_kind_is_recognised_once_and_any_server_last():
    assert sorted(k.name for k in kinds.RECOGNITION) == sorted(k.name for k in kinds.KINDS)
    assert [k.name for k in kinds.RECOGNITION] == ["Ollama", "vLLM", "llama.cpp", "LM Studio", "OpenAI-compatible"]
    assert kinds.recognise(lambda path, body=None: {}, [{"id": "m"}], until=0.0) == ("OpenAI-compatible", {})


def test_a_kind_with_its_own_client_is_named_in_the_table():
    assert [k.name for k in kinds.KINDS if k.native_chat is not None] == ["Ollama"]
    assert kinds.named("Ollama") is kinds.OLLAMA and kinds.named("") is None


def test_the_readme_lists_the_ports_and_kinds_of_the_table():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = re.search(r"looks on the usual local ports — (.+?),\s+on 127\.0\.0\.1 only", readme, re.DOTALL)
    assert listed, "the README's sentence on the ports `rag models` probes"
    text = " ".join(listed.group(1).split())
    assert sorted(map(int, re.findall(r"\b\d{4,5}\b", text))) == sorted(k.port for k in kinds.KINDS if k.port is not None)
    for kind in (k for k in kinds.KINDS if k.port is not None):
        assert all(name in text for name in (kind.name, *kind.also)), kind.name
        assert re.search(rf"{re.escape(kind.name)}[^,]*\b{kind.port}\b", text), f"{kind.name} {kind.port}"


def test_the_cli_and_the_app_list_the_ports_from_the_table():
    assert kinds.listed() == "Ollama (11434), LM Studio (1234), llama.cpp/LocalAI (8080), vLLM (8000)"
    assert kinds.listed("{names} {port}") == "Ollama 11434, LM Studio 1234, llama.cpp/LocalAI 8080, vLLM 8000"
    for path in ("rag/cli/models.py", "rag/web/catalogue/sidebar.py", "rag/chat/servers.py"):
        assert "11434" not in (ROOT / path).read_text(encoding="utf-8").replace("127.0.0.1:11434", ""), path
