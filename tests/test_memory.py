"""Agent memory: facts as notes, HRR entity questions, four-channel recall × trust × recency, feedback and the
hash-guarded writes, import, the CLI on an empty vault. Real files and SQLite; the real default embedder where
meaning matters (cross-language recall), the fake one elsewhere."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from rag.cli import cli
from rag.config import load_settings
from rag.errors import ConflictError, VaultError
from rag.knowledge import Knowledge
from rag.live import LiveIndex
from rag.memory import entities, facts, hrr
from rag.memory.recall import CHANNELS, REFERENCE_WEIGHTS, TUNED_WEIGHTS, WITHOUT_SEMANTIC, weights_for


@pytest.fixture
def memory_vault(tmp_path, index_location) -> tuple[Path, str]:
    vault = tmp_path / "vault"
    vault.mkdir()
    return vault, index_location


def _opened(memory_vault, monkeypatch, embedder):
    monkeypatch.setattr("rag.workspace.make_embedder", lambda settings: embedder)
    vault, db = memory_vault
    with LiveIndex(load_settings(vault=vault, db_path=db, env={})) as live:
        yield Knowledge(live)


@pytest.fixture
def knowledge(memory_vault, monkeypatch, fake_embedder):
    yield from _opened(memory_vault, monkeypatch, fake_embedder)


@pytest.fixture
def real_knowledge(memory_vault, monkeypatch, real_embedder):
    yield from _opened(memory_vault, monkeypatch, real_embedder)


# --- a fact is a note -------------------------------------------------------------------------------------------


def test_a_fact_note_reads_back_as_written_and_odd_frontmatter_does_not_break_it():
    fact = facts.Fact(
        "f-1", "Anna prefers green tea.", "preferences", ("drinks",), ("Anna",), 0.7, 2, 1, "2025-03-01T10:00:00Z", "2025-03-02T10:00:00Z", "f-0"
    )
    again = facts.parse("Memory/Facts/preferences/x.md", facts.render(fact), "sha")
    assert again == facts.Fact(**{**fact.__dict__, "path": "Memory/Facts/preferences/x.md", "sha256": "sha"})
    odd = "---\nid: f-2\ntrust: lots\nhelpful: -3\ncreated: 2025-01-05\nentities: nginx\n---\nBody.\n"
    parsed = facts.parse("p.md", odd, "s")
    assert (parsed.trust, parsed.helpful, parsed.created, parsed.entities) == (0.5, 0, "2025-01-05", ("nginx",))
    assert facts.parse("p.md", "---\ntitle: a note\n---\nNot a fact.\n", "s") is None
    assert facts.clean_category("Config / Servers!") == "config-servers" and facts.clean_category("  ") == "general"


def test_feedback_moves_trust_by_the_documented_rule_and_never_past_its_bounds():
    fact = facts.Fact("f-1", "x")
    up = facts.with_feedback(fact, True)
    down = facts.with_feedback(fact, False)
    assert up.trust == pytest.approx(0.55) and up.helpful == 1 and down.trust == pytest.approx(0.4) and down.unhelpful == 1
    for _ in range(100):
        up, down = facts.with_feedback(up, True), facts.with_feedback(down, False)
    assert up.trust == facts.TRUST_BOUNDS[1] and down.trust == facts.TRUST_BOUNDS[0]


# --- entities and HRR -------------------------------------------------------------------------------------------


def test_entities_are_read_from_both_scripts_and_one_name_is_one_key_across_them():
    assert entities.extract("Anna prefers green tea.") == ["Anna"]
    assert entities.extract("Мы перенесли nginx на сервер «Берёза», порт 8443.") == ["Берёза", "nginx"]
    assert entities.extract("Встреча с Иваном Петровым в Казани.")[-2:] == ["Иваном Петровым", "Казани"]
    assert "/etc/nginx/nginx.conf" in entities.extract("The config is /etc/nginx/nginx.conf on server-a.")
    assert entities.key("Anna") == entities.key("Анна") and entities.key("Ivan Petrov") == entities.key("Иваном Петровым")
    assert entities.key("server-a") != entities.key("server-b")


def test_hrr_binds_entities_so_a_probe_finds_its_facts_and_nothing_else():
    a = hrr.encode_fact(["listen", "port"], ["ngnks", "server-a"])
    b = hrr.encode_fact(["backup", "night"], ["pstgrs", "server-a"])
    c = hrr.encode_fact(["green", "tea"], ["an"])
    matrix = np.stack([a, b, c])
    nginx = hrr.similarities(matrix, hrr.entity_probe("ngnks"))
    server = hrr.similarities(matrix, hrr.entity_probe("server-a"))
    assert nginx[0] > 0.3 and abs(nginx[1]) < 0.1 and abs(nginx[2]) < 0.1
    assert min(server[:2]) > 0.3 and abs(server[2]) < 0.1
    assert hrr.similarity(hrr.atom("x"), hrr.atom("x")) == pytest.approx(1.0) and abs(hrr.similarity(hrr.atom("x"), hrr.atom("y"))) < 0.1
    assert np.array_equal(hrr.unbind(hrr.bind(hrr.atom("r"), hrr.atom("v")), hrr.atom("r")), hrr.atom("v"))


def test_missing_channels_hand_their_weight_on():
    every = set(CHANNELS)
    assert weights_for(every) == TUNED_WEIGHTS and weights_for(every, REFERENCE_WEIGHTS) == REFERENCE_WEIGHTS
    assert weights_for(every - {"semantic"}) == WITHOUT_SEMANTIC and weights_for(every - {"hrr"}) == TUNED_WEIGHTS
    assert weights_for({"fts", "jaccard"}, REFERENCE_WEIGHTS) == pytest.approx({"fts": 0.6, "jaccard": 0.4})
    assert weights_for({"fts"}, {"fts": 1.0, "semantic": 0.0}) == {"fts": 1.0}


# --- recall -----------------------------------------------------------------------------------------------------


@pytest.mark.both_backends
def test_recall_across_languages_and_paraphrase_with_the_real_model(real_knowledge):
    memory = real_knowledge.memory
    tea = memory.remember("Anna prefers green tea in the morning and never drinks coffee after four.", category="preferences")
    memory.remember("The nginx reverse proxy on server-a listens on port 8080.", category="config", entities=["nginx", "server-a"])
    memory.remember("Мой стоматолог — доктор Смирнова, приём раз в полгода.", category="health")
    real_knowledge.index()
    found = memory.recall("Что Анна пьёт по утрам?", 3)  # Russian, over an English fact
    assert found[0].fact.id == tea.id and "semantic" in found[0].found_by
    dentist = memory.recall("Who is my dentist?", 3)  # English over a Russian fact: no shared word
    assert "стоматолог" in dentist[0].fact.content and dentist[0].channels["fts"] == 0
    assert set(found[0].to_json()["channels"]) == set(CHANNELS)


@pytest.mark.xfail(
    strict=True,
    reason="the aligned model (multilingual USE) reads 'do for a living' closer to the parents' visit (cosine 0.49) and "
    "the birthday (0.44) than to the job (0.38), and outweighs e5's lead of 0.004; on the dev sets its reading wins "
    "13 / loses 6 first places (memory_dev2) and wins 19 / loses 6 (memory_dev3, never fitted): docs/benchmarks.md",
)
def test_meaning_outranks_a_shared_name_with_the_real_models(real_knowledge):
    """The independent dev set's failure of the old fusion, in small: a fact that shares the question's name but not
    its meaning won over the one that answers in other words."""
    memory = real_knowledge.memory
    job = memory.remember("My wife Marta is a landscape architect; she designs parks for the city.", category="people", tags=["family", "wife"])
    memory.remember("Marta's birthday is on 14 March; she only likes peonies.", category="people", entities=["Marta"])
    memory.remember("Marta's parents live in Gdańsk and visit every summer.", category="people", entities=["Marta"])
    real_knowledge.index()
    spouse = memory.recall("What does Marta do for a living?", 3)
    assert spouse[0].fact.id == job.id and spouse[0].channels["semantic"] > 0 and spouse[0].channels["entities"] == 1.0


def test_an_identifier_confirms_meaning_with_the_real_models(real_knowledge):
    """The independent dev set's other failure of the old fusion: an exact port lost to a fact about the same box."""
    memory = real_knowledge.memory
    memory.remember("My wife Marta is a landscape architect; she designs parks for the city.", category="people", tags=["family", "wife"])
    port = memory.remember("Router: MikroTik hAP ax3; WireGuard listens on UDP 51820.", category="config")
    memory.remember("The MikroTik router got RouterOS 7.18 in June; the guest Wi-Fi is on VLAN 30.", category="config")
    real_knowledge.index()
    udp = memory.recall("which service listens on 51820?", 3)
    assert udp[0].fact.id == port.id and udp[0].channels["exact"] == 1.0 and "exact" in udp[0].found_by


@pytest.mark.both_backends
def test_a_superseded_fact_ranks_below_the_newer_and_trust_and_age_weigh(knowledge):
    memory = knowledge.memory
    old = memory.remember("nginx on server-a listens on port 8080.", entities=["nginx", "server-a"])
    new = memory.remember("nginx on server-a listens on port 8443 now.", entities=["nginx", "server-a"], supersedes=old.id)
    knowledge.index()
    ranked = memory.recall("which port does nginx on server-a listen on", 5)
    ids = [r.fact.id for r in ranked]
    assert ids.index(old.id) == ids.index(new.id) + 1 and ranked[ids.index(old.id)].superseded_by == new.id  # right below
    assert memory.recall("port 8080", 5)[0].fact.id == new.id  # even where the old one's words match better
    memory.feedback(old.id, False)
    aged = memory.import_file(_jsonl(knowledge, [{"id": "f-old", "content": "Dina likes hiking.", "created": "2019-01-01T00:00:00Z"}]))
    fresh = memory.remember("Dina likes hiking.")  # the same words: only age tells them apart
    knowledge.index()
    hiking = {r.fact.id: r for r in memory.recall("Dina hiking", 5)}
    floor = knowledge.settings.memory_decay_floor  # seven years at a 180-day half-life: down to the floor, not to zero
    assert aged[0] == 1 and hiking["f-old"].decay == pytest.approx(floor, abs=1e-3) and hiking[fresh.id].decay > 0.99
    assert hiking["f-old"].score < hiking[fresh.id].score


@pytest.mark.both_backends
def test_recall_without_the_embedder_still_finds_by_keywords_and_entities(knowledge, fake_embedder):
    memory = knowledge.memory
    fact = memory.remember("PostgreSQL 16 runs on server-b with nightly backups.", category="config")
    knowledge.index()
    fake_embedder.fail = True
    found = memory.recall("postgresql backups", 5)
    assert found[0].fact.id == fact.id and "semantic" not in found[0].found_by
    assert memory.recall("postgresql", 5, category="people") == []  # the category filter


@pytest.mark.both_backends
def test_probe_reason_and_related_answer_entity_questions(knowledge):
    memory = knowledge.memory
    a = memory.remember("nginx on server-a terminates TLS.", entities=["nginx", "server-a"])
    b = memory.remember("PostgreSQL on server-a is backed up nightly.", entities=["PostgreSQL", "server-a"])
    c = memory.remember("Анна отвечает за nginx.", entities=["Анна", "nginx"])
    knowledge.index()
    assert {r.fact.id for r in memory.probe("nginx")} == {a.id, c.id}
    assert [r.fact.id for r in memory.probe("Anna")] == [c.id]  # the other script
    assert [r.fact.id for r in memory.reason(["nginx", "server-a"])] == [a.id]
    related = {name: facts_ for name, _, facts_ in memory.related("server-a")}
    assert set(related) == {"nginx", "PostgreSQL"} and related["PostgreSQL"] == (b.id,)


# --- writes -----------------------------------------------------------------------------------------------------


@pytest.mark.both_backends
def test_update_is_hash_guarded_forget_archives_and_a_hand_edit_is_read_back(knowledge, memory_vault):
    vault, _ = memory_vault
    memory = knowledge.memory
    fact = memory.remember("Max likes espresso.", category="people")
    (vault / fact.path).write_text((vault / fact.path).read_text(encoding="utf-8").replace("espresso", "ristretto"), encoding="utf-8")
    with pytest.raises(ConflictError):
        memory.update(fact.id, "Max likes latte.", fact.sha256)
    assert "ristretto" in (vault / fact.path).read_text(encoding="utf-8")
    assert memory.get(fact.id).content == "Max likes ristretto."  # the hand edit, through the normal sync
    current = memory.get(fact.id)
    updated = memory.update(fact.id, "Max likes latte.", current.sha256)
    assert memory.get(fact.id).content == "Max likes latte." and updated.sha256 != current.sha256
    archived = memory.forget(fact.id)
    assert archived.startswith("Memory/Archive/people/") and (vault / archived).exists() and not (vault / fact.path).exists()
    with pytest.raises(VaultError, match="no fact with id"):
        memory.get(fact.id)
    assert memory.recall("Max latte", 5) == []


def test_bad_facts_are_refused_with_the_reason(knowledge):
    memory = knowledge.memory
    with pytest.raises(VaultError, match="empty"):
        memory.remember("   ")
    with pytest.raises(VaultError, match="to supersede"):
        memory.remember("A fact.", supersedes="f-nope")
    imported, skipped, problems = memory.import_file(
        _jsonl(knowledge, [{"id": "f-a", "content": "One."}, {"id": "f-a", "content": "Again."}, {"content": ""}, ["not", "an", "object"]])
    )
    assert (imported, skipped) == (1, 1) and len(problems) == 2 and "line 3" in problems[0]


def test_an_import_file_with_a_line_that_is_not_utf8_imports_the_rest_and_names_the_line(knowledge):
    path = knowledge.settings.db_path.parent / "mixed.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b'\xef\xbb\xbf{"content": "First."}\n\xff\xfe broken\n{"content": "Third."}\n')
    imported, skipped, problems = knowledge.memory.import_file(path)
    assert (imported, skipped) == (2, 0) and problems == ["line 2: not UTF-8 text (save the file as UTF-8)"]


@pytest.mark.both_backends
def test_the_cli_remembers_recalls_and_votes_on_an_empty_vault(memory_vault, monkeypatch, fake_embedder):
    monkeypatch.setattr("rag.workspace.make_embedder", lambda settings: fake_embedder)
    vault, db = memory_vault
    where = ["--vault", str(vault), "--db", str(db)]
    run = CliRunner().invoke
    added = run(cli, ["memory", "add", "Anna prefers green tea.", "--category", "preferences", "--tags", "drinks,tea", "--json", *where])
    assert added.exit_code == 0, added.output
    fact = json.loads(added.stdout)
    assert fact["entities"] == ["Anna"] and fact["tags"] == ["drinks", "tea"] and fact["path"].startswith("Memory/Facts/preferences/")
    recalled = json.loads(run(cli, ["memory", "recall", "green tea", "--k", "3", "--json", *where]).stdout)
    assert recalled[0]["id"] == fact["id"] and set(recalled[0]) >= {"id", "content", "path", "score", "channels", "trust", "decay"}
    assert json.loads(run(cli, ["memory", "probe", "Анна", "--json", *where]).stdout)[0]["id"] == fact["id"]
    assert json.loads(run(cli, ["memory", "reason", "Anna", "--json", *where]).stdout)[0]["id"] == fact["id"]
    voted = run(cli, ["memory", "feedback", fact["id"], "--unhelpful", *where])
    assert voted.exit_code == 0 and "trust 0.400" in voted.output
    missing = run(cli, ["memory", "feedback", "f-nope", "--helpful", *where])
    assert missing.exit_code == 1 and "no fact with id" in missing.output


def _jsonl(knowledge, items) -> Path:
    path = knowledge.settings.db_path.parent / f"facts-{len(items)}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(i, ensure_ascii=False) for i in items) + "\n", encoding="utf-8")
    return path
