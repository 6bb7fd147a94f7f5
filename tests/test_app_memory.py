"""The Memory page through Streamlit's own harness (`AppTest`): agent facts listed, searched, voted on, edited behind
the hash guard, archived and shown as superseded — on a copy of the fixture vault, with real fact notes on disk and
the real SQLite index (the embedder is the deterministic fake)."""

from __future__ import annotations

import yaml
from streamlit.testing.v1 import AppTest

from rag.memory import Fact
from tests.app_harness import shown, texts, unescaped

PAGE = "app_pages/memory.py"


def _open(app, *statements: dict) -> tuple[AppTest, list[Fact]]:
    """The app on the Memory page, with the given facts remembered first (keyword arguments of `remember`)."""
    at = app()
    memory = at.session_state["rag_app"].knowledge.memory
    facts = []
    for fact in statements:
        facts.append(memory.remember(**{**fact, "supersedes": facts[fact["supersedes"]].id} if "supersedes" in fact else fact))
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    return at, facts


def _ids(at: AppTest) -> list[str]:
    return [b.key.removeprefix("memory-up-") for b in at.button if b.key and b.key.startswith("memory-up-")]


def _frontmatter(vault, path: str) -> dict:
    text = (vault / path).read_text(encoding="utf-8")
    return yaml.safe_load(text.split("---\n")[1])


def _save_button(at: AppTest, fact_id: str):
    return next(b for b in at.button if b.proto.form_id == f"memory-edit-{fact_id}")


TEA = {"content": "The user drinks green tea without sugar.", "category": "preferences", "tags": ["drinks"]}
SERVER = {"content": "The staging server runs PostgreSQL 16 on port 5433.", "category": "infrastructure", "entities": ["Staging"]}


def test_the_page_lists_every_fact_with_its_category_badge_trust_and_note(app):
    at, (tea, server) = _open(app, TEA, SERVER)
    markdown = texts(at.markdown)
    assert "The user drinks green tea without sugar." in shown(at.markdown) and "PostgreSQL 16 on port 5433" in shown(at.markdown)
    assert ":blue-badge[:material/label: preferences]" in markdown and ":blue-badge[:material/label: infrastructure]" in markdown
    captions = texts(at.caption)
    assert "2 facts, newest first" in captions
    assert "trust 0.50 · :material/thumb_up: 0 · :material/thumb_down: 0 · recalled 0×" in shown(at.caption)
    assert "\\#drinks" in captions and "mentions Staging" in captions  # a tag from the note is text, not a heading
    assert "Memory/Facts/preferences/" in shown(at.caption)
    links = [b.proto.url for b in at.get("link_button")]
    assert any(url.startswith("obsidian://open?vault=vault&file=Memory%2FFacts%2Fpreferences%2F") for url in links)


def test_fact_text_is_shown_as_text_never_as_markdown(app):
    at, _ = _open(app, {"content": "Remember **this** and [click](javascript:alert(1)) :red[now]"})
    markdown = texts(at.markdown)
    assert "\\*\\*this\\*\\*" in markdown and "\\[click\\]" in markdown and "\\:red\\[now\\]" in markdown
    assert "[click](javascript" not in markdown


def test_searching_narrows_the_facts_to_those_with_the_words_and_the_category_filter_narrows_them(app):
    at, (tea, server) = _open(app, TEA, SERVER)
    at.text_input(key="rag_memory_query").input("postgresql port").run()
    assert _ids(at) == [server.id]
    captions = texts(at.caption)
    assert "1 fact with these words, best first" in captions and "recalled 1×" in captions  # this search counts
    at.text_input(key="rag_memory_query").input("").run()
    assert sorted(_ids(at)) == sorted([tea.id, server.id])
    at.get("button_group")[0].set_value("preferences").run()
    assert _ids(at) == [tea.id]


def test_words_no_fact_has_say_so(app):
    at, _ = _open(app, TEA)
    at.text_input(key="rag_memory_query").input("zxqv plorf").run()
    assert not _ids(at) and "No fact matches these words." in texts(at.warning)


def test_a_rerun_for_a_vote_is_not_counted_as_another_recall(app):
    at, (tea, _) = _open(app, TEA, SERVER)
    memory = at.session_state["rag_app"].knowledge.memory
    at.text_input(key="rag_memory_query").input("green tea").run()
    at.button(key=f"memory-up-{tea.id}").click().run()
    assert memory.recall_counts()[tea.id][0] == 1
    assert "recalled 1×" in texts(at.caption)


def test_thumbs_up_raises_trust_and_writes_it_to_the_note(app, vault):
    at, (tea,) = _open(app, TEA)
    at.button(key=f"memory-up-{tea.id}").click().run()
    assert not at.exception
    assert "trust 0.55 · :material/thumb_up: 1 · :material/thumb_down: 0 · recalled 0×" in shown(at.caption)
    assert [unescaped(toast.value) for toast in at.toast] == ["Thanks — trust is now 0.55."]
    front = _frontmatter(vault, tea.path)
    assert front["trust"] == 0.55 and front["helpful"] == 1 and front["unhelpful"] == 0


def test_thumbs_down_lowers_trust(app, vault):
    at, (tea,) = _open(app, TEA)
    at.button(key=f"memory-down-{tea.id}").click().run()
    assert "trust 0.40 · :material/thumb_up: 0 · :material/thumb_down: 1" in shown(at.caption)
    assert _frontmatter(vault, tea.path)["trust"] == 0.4


def test_an_edit_is_saved_through_the_hash_guard(app, vault):
    at, (tea,) = _open(app, TEA)
    box = at.text_area(key=f"memory-text-{tea.id}-{tea.sha256}")
    assert box.value == TEA["content"]
    box.input("The user drinks black tea with lemon.")
    _save_button(at, tea.id).click().run()
    assert not at.exception and not at.warning
    assert "The user drinks black tea with lemon." in shown(at.markdown)
    assert "The user drinks black tea with lemon." in (vault / tea.path).read_text(encoding="utf-8")
    assert [toast.value for toast in at.toast] == ["Saved to the note."]


def test_an_edit_over_a_change_made_meanwhile_warns_and_leaves_the_note_as_the_other_edit_made_it(app, vault):
    at, (tea,) = _open(app, TEA)
    at.text_area(key=f"memory-text-{tea.id}-{tea.sha256}").input("The user drinks coffee.")
    note = vault / tea.path
    obsidian = note.read_text(encoding="utf-8").replace("green tea without sugar", "rooibos, never after 6 pm")
    note.write_text(obsidian, encoding="utf-8")  # edited in Obsidian while the edit box was open
    _save_button(at, tea.id).click().run()
    assert not at.exception
    assert note.read_text(encoding="utf-8") == obsidian
    assert "Not saved: this fact's note was changed" in texts(at.warning)
    code = texts(at.code)
    assert "The user drinks rooibos, never after 6 pm." in code and "The user drinks coffee." in code
    boxes = [a for a in at.text_area if (a.key or "").startswith(f"memory-text-{tea.id}-")]
    assert [a.value for a in boxes] == ["The user drinks rooibos, never after 6 pm."]  # the box offers the note as it is
    at.button(key=f"memory-dismiss-{tea.id}").click().run()
    assert not at.warning


def test_archive_asks_first_then_moves_the_note_to_the_archive(app, vault):
    at, (tea, server) = _open(app, TEA, SERVER)
    confirm = at.button(key=f"memory-archive-{tea.id}")
    assert confirm.label == "Yes, archive it"  # the only archive button is inside the Archive popover
    assert "The note moves to Memory/Archive/" in texts(at.caption)
    confirm.click().run()
    assert not at.exception
    assert not (vault / tea.path).exists()
    archived = list((vault / "Memory" / "Archive" / "preferences").glob("*.md"))
    assert len(archived) == 1 and tea.id in archived[0].read_text(encoding="utf-8")
    assert _ids(at) == [server.id]


def test_a_superseded_fact_is_greyed_with_a_link_to_the_newer_one(app):
    old = {"content": "The user drinks black coffee.", "category": "preferences"}
    new = {"content": "The user switched from coffee to green tea.", "category": "preferences", "supersedes": 0}
    at, (older, newer) = _open(app, old, new)
    markdown = texts(at.markdown)
    assert ":gray[The user drinks black coffee\\.]" in markdown  # greyed, its text escaped
    assert ":gray-badge[:material/history: replaced]" in markdown
    assert f"Replaced by the newer fact {newer.id}." in shown(at.caption)
    assert ":gray[The user switched" not in markdown
    at.button(key=f"memory-newer-{older.id}").click().run()
    assert _ids(at) == [newer.id] and at.text_input(key="rag_memory_query").value == newer.id
    assert f"Replaces {older.id}." in shown(at.caption)
    at.button(key="memory-show-all").click().run()
    assert sorted(_ids(at)) == sorted([older.id, newer.id])


def test_with_no_facts_the_page_says_how_agents_add_them(app):
    at, _ = _open(app)
    info = texts(at.info)
    assert "No facts yet" in info and "memory_remember" in info and "python -m rag memory add" in info
    assert "rag_memory_query" not in [box.key for box in at.text_input]  # nothing to search yet
