"""The browser app through Streamlit's own harness (`AppTest`): every page's behaviour on a copy of the fixture vault,
a real SQLite index and real files. The embedder is the deterministic fake (the model seam, patched where the
workspace makes it); the chat model, when one is used, is the real OpenAI client against a local wire-protocol server.
"""

from __future__ import annotations

import shutil
from datetime import date

import pytest
from streamlit.testing.v1 import AppTest

from tests.app_harness import answers, ask, idle, shown, texts, unescaped
from tests.openai_server import FakeOpenAI

# --- Ask --------------------------------------------------------------------------------------------------------


def test_a_question_gets_an_extractive_answer_with_citation_links_a_badge_and_sources(app):
    at = ask(app(), "What hydration do I keep for white bread?")
    assert not at.exception
    answer = answers(at)
    assert "72% hydration for white bread" in answer
    assert '<a href="#cite-0-S1">[S1]</a>' in answer  # a citation is a link the app catches
    assert "Extractive" in shown(at.markdown)  # the mode badge
    assert at.expander[0].label.startswith("Sources (")
    assert "Notes/Sourdough.md › Sourdough bread · lines 8–29" in shown(at.markdown)
    assert "found by keyword #1" in shown(at.markdown) and "**supports the answer**" in texts(at.markdown)


def test_showing_a_source_opens_the_passage_with_its_path_heading_and_lines(app):
    at = ask(app(), "What hydration do I keep for white bread?")
    at.button(key="src-0-S1").click().run()
    assert "**S1** · Notes\\/Sourdough\\.md" in texts(at.markdown)  # the source id in bold, the path as text
    assert any("Sourdough bread · lines 8–29" in c.value for c in at.caption)
    html = texts(at.get("html"))
    assert "72% hydration for white bread" in html and "rag-cited" in html
    assert any(b.proto.url.startswith("obsidian://open?vault=vault&file=Notes%2FSourdough.md") for b in at.get("link_button"))


def test_a_follow_up_keeps_the_conversation_and_each_turn_has_its_own_citations(app):
    at = ask(app(), "What hydration do I keep for white bread?")
    at = ask(at, "And for whole wheat?")
    assert [m.name for m in at.chat_message] == ["user", "assistant", "user", "assistant"]
    first, second = (answers(m) for m in at.chat_message if m.name == "assistant")
    assert 'href="#cite-0-S1"' in first and 'href="#cite-1-S' in second and "#cite-1-" not in first
    assert at.button(key="src-1-S1")


def test_the_demo_vault_offers_sample_questions_that_ask_themselves(app, monkeypatch):
    monkeypatch.delenv("RAG_VAULT")  # the default: the demo vault (its index goes to RAG_DB under tmp_path)
    at = app()
    assert "This is the demo vault" in texts(at.info)
    at.button(key="demo-ask.demo.1").click().run()
    at.run()  # the click queued the question; this run answers it
    assert "What hydration do I use for my sourdough?" in shown(at.chat_message[0].markdown)
    assert "This is the demo vault" not in texts(at.info) and 'href="#cite-0-S' in answers(at)


def test_a_question_the_notes_cannot_answer_says_not_found_in_your_notes(app):
    at = ask(app(), "zxqv plorf wibble?")
    assert "Not found in your notes" in texts(at.warning)
    assert "#cite-" not in texts(at.markdown) + answers(at)


def test_an_empty_vault_says_there_are_no_notes(app, vault):
    for child in vault.iterdir():
        shutil.rmtree(child) if child.is_dir() else child.unlink()
    at = app()
    assert "There are no Markdown notes" in texts(at.warning)
    at = ask(at, "Anything there?")
    assert "Not found in your notes" in texts(at.warning)


def test_a_missing_index_is_built_in_the_background_while_the_page_works(app, tmp_path):
    db = tmp_path / "app-index" / "index.db"
    assert not db.exists()
    at = app(wait=False)
    assert not at.exception and db.exists()
    assert "Ask your vault" in texts(at.title)
    idle(at)
    at.run()
    assert "Index up to date" in texts(at.sidebar.caption)
    assert "72%" in answers(ask(at, "What hydration do I keep for white bread?"))


def test_a_vault_folder_that_does_not_exist_is_an_error_that_names_the_fix(app, monkeypatch, tmp_path):
    monkeypatch.setenv("RAG_VAULT", str(tmp_path / "nowhere"))
    at = app(wait=False)
    assert "does not exist" in texts(at.error)
    assert "sidebar" in texts(at.caption)
    assert not at.chat_input  # the page stopped


def test_an_unreachable_chat_endpoint_is_shown_with_the_fix(app, monkeypatch):
    monkeypatch.setenv("RAG_CHAT_MODEL", "fake-chat")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    at = ask(app(), "What hydration do I keep for white bread?")
    assert "Cannot reach the chat endpoint" in texts(at.error)


def test_a_model_answer_streams_gets_a_model_badge_and_phantom_citations_are_removed(app, monkeypatch):
    with FakeOpenAI() as server:
        server.script_chat("White bread is at 72% hydration [S1], whole wheat at 80% [S9].")
        monkeypatch.setenv("RAG_CHAT_MODEL", "fake-chat")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        at = ask(app(), "What hydration do I keep for white bread?")
        chat_requests = [r for r in server.requests if r["path"].endswith("/chat/completions")]
    assert chat_requests and chat_requests[-1]["json"]["stream"] is True
    answer = answers(at)
    assert '72% hydration <a href="#cite-0-S1">[S1]</a>' in answer and "S9" not in answer + texts(at.markdown)
    assert "Model · fake-chat" in shown(at.markdown)
    assert "Removed citations that matched no source: S9" in shown(at.caption)


def test_a_translated_question_says_what_it_was_also_searched_as(app, monkeypatch):
    with FakeOpenAI() as server:
        server.script_chat("What hydration do I keep for white bread?", "White bread is at 72% hydration [S1].")
        monkeypatch.setenv("RAG_CHAT_MODEL", "fake-chat")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("RAG_TRANSLATE_QUESTIONS", "1")
        at = ask(app(), "Какую влажность теста я держу для белого хлеба?")
        translate = [r for r in server.requests if r["path"].endswith("/chat/completions")][0]["json"]
    assert "into English" in translate["messages"][0]["content"]
    assert "Also searched as: What hydration do I keep for white bread?" in shown(at.caption)
    assert "72% hydration" in answers(at)


def test_claims_the_notes_do_not_support_are_marked_with_the_reason_and_corrections_shown(app, monkeypatch):
    with FakeOpenAI() as server:
        server.script_chat("White bread is at 72% hydration. Bake it at 300 °C for an hour [S1].")
        monkeypatch.setenv("RAG_CHAT_MODEL", "fake-chat")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        at = ask(app(), "What hydration do I keep for white bread?")
    answer, markdown = answers(at), texts(at.markdown)
    assert '<span class="rag-badge rag-uncited">citation added</span>' in answer  # the uncited 72% got its source
    assert '<mark class="rag-unsupported">Bake it at 300 °C for an hour</mark>' in answer
    assert '<span class="rag-badge rag-unsupported">not in your notes</span>' in answer
    assert "300" in markdown.split("Not in your notes**]")[1]  # the list under the answer says why
    assert "Checked against your notes: 1 of 2 sentences supported." in texts(at.caption)
    assert not at.warning
    checked = next(e for e in at.expander if e.label == "How each sentence was checked")
    evidence = texts(checked.markdown)  # each sentence with the lines that state it, or none
    assert "S1, line 14" in evidence and "hydration for white bread" in evidence.split("S1, line 14")[1]
    assert "no sentence of the sources states it" in texts(checked.caption)


def test_evidence_made_of_a_tables_rows_is_shown_one_row_to_a_line(app, vault, monkeypatch):
    pins = "| Signal | ESP32 pin | Notes |\n|---|---|---|\n" + "".join(
        f"| Soil moisture #{n} | GPIO{31 + n} | ADC1 channel {3 + n} |\n" for n in range(1, 5)
    )
    (vault / "Notes" / "Sensor wiring.md").write_text(f"# Sensor wiring\n\n## Pin map\n\n{pins}", encoding="utf-8")
    with FakeOpenAI() as server:
        server.script_chat("GPIO32, GPIO33, GPIO34 and GPIO35 are ADC1 channels 4, 5, 6 and 7 [S1].")
        monkeypatch.setenv("RAG_CHAT_MODEL", "fake-chat")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        at = ask(app(), "Which ESP32 pins are the soil moisture sensors on?")
    checked = next(e for e in at.expander if e.label == "How each sentence was checked")
    evidence = shown(checked.markdown)
    assert "Supported" in evidence and "S1, lines 7–10" in evidence, evidence
    assert "GPIO32; Notes: ADC1 channel 4  \n> Signal: Soil moisture #2" in evidence  # each row a line of the quote


def test_a_model_answer_with_no_supported_claim_is_not_found_and_never_says_nothing_was_made_up(app, monkeypatch):
    with FakeOpenAI() as server:
        server.script_chat("The capital of Australia is Canberra [S1].")
        monkeypatch.setenv("RAG_CHAT_MODEL", "fake-chat")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        at = ask(app(), "What hydration do I keep for white bread?")
    assert "No sentence of the model's answer below is supported" in texts(at.warning)
    assert '<mark class="rag-unsupported">The capital of Australia is Canberra</mark>' in answers(at)
    assert "made up" not in texts(at.caption) + texts(at.warning)


def test_an_english_answer_over_russian_notes_says_not_confirmed_and_to_read_the_source(app, monkeypatch):
    def reply(body):
        ids = [m for m in body["messages"][-1]["content"].split("[") if "38 000" in m]
        return f"The plane tickets to Baikal cost 38,000 rubles for two [{ids[0].split(']')[0]}]." if ids else "No idea."

    with FakeOpenAI() as server:
        server.chat_handler = reply
        monkeypatch.setenv("RAG_CHAT_MODEL", "fake-chat")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        at = ask(app(), "Сколько стоили билеты на самолёт на Байкал?")
    assert "**Not confirmed.** The sources are in another language than the answer" in texts(at.warning)
    assert "No sentence of the model's answer below is supported" not in texts(at.warning)
    assert '<span class="rag-badge rag-unconfirmed">not confirmed</span>' in answers(at)
    assert "is in another language" in texts(at.markdown).split("Not confirmed**]")[1]  # the list under the answer says why


def test_a_source_whose_note_changed_after_indexing_is_left_out_and_reported(app, vault):
    at = app()
    note = vault / "Notes" / "Sourdough.md"
    note.write_text(note.read_text(encoding="utf-8").replace("72%", "74%"), encoding="utf-8")
    at = ask(at, "What hydration do I keep for white bread?")
    assert "Left out 1 passage whose note changed" in texts(at.caption)
    assert "the note changed since it was indexed" in shown(at.markdown)


# --- Search ------------------------------------------------------------------------------------------------------


def search(at: AppTest, query: str) -> AppTest:
    return at.text_input(key="rag_search_query").input(query).run()


def test_search_groups_passages_by_note_with_headings_lines_and_why(app):
    at = search(app("app_pages/search.py"), "hydration")
    assert not at.exception
    markdown = texts(at.markdown)
    assert "**Sourdough bread**" in markdown and "Notes/Sourdough.md" in shown(at.markdown)
    assert ":gray[lines 8–29 · keyword #1" in markdown  # the heading path does not repeat the note's title
    assert "notes, best first · found by keyword + meaning" in shown(at.caption)
    snippets = [m.value for m in at.markdown if ":orange-background[" in m.value]
    assert snippets and ":orange-background[hydration]" in snippets[0]  # the matched word is highlighted
    assert not any("##" in s or "**" in s or "|" in s for s in map(unescaped, snippets))  # plain text, not raw Markdown


def test_search_filters_by_folder_tag_project_and_tier(app):
    at = search(app("app_pages/search.py"), "greenhouse sensors soil moisture")
    assert "Projects/Alpha" in shown(at.markdown)
    at.multiselect(key="rag_filter_folder").select("Notes").run()  # folder
    assert "Projects/Alpha" not in shown(at.markdown)
    at.multiselect(key="rag_filter_folder").unselect("Notes").run()
    at.multiselect(key="rag_filter_project").select("Alpha").run()  # project
    notes = [unescaped(m.value) for m in at.markdown if ":gray[" in m.value and "/" in m.value and "**" in m.value]
    assert notes and all("Projects/Alpha" in s or "Bread chat" in s for s in notes)
    at.multiselect(key="rag_filter_project").unselect("Alpha").run()
    at.multiselect(key="rag_filter_tag").select("путешествия").run()  # tag
    at = search(at, "Байкал лёд")
    assert "Notes/Байкал.md" in shown(at.markdown) and "Sourdough" not in shown(at.markdown)
    at.multiselect(key="rag_filter_tier").select(2).run()  # tier 2 only: the Байкал note is tier 1 (in Notes/)
    assert "No matches in your notes with these filters" in texts(at.warning)


def test_search_reads_the_time_in_the_query_shows_it_and_searches_all_dates_in_a_click(app, monkeypatch):
    monkeypatch.setenv("RAG_TODAY", "2026-05-08")
    at = search(app("app_pages/search.py"), "what did I decide in March")
    assert "Searching notes from 1–31 March 2026 (“in March”)" in shown(at.caption)
    assert "Projects/Alpha/Decisions/2026-03-14 Use SQLite.md" in shown(at.markdown) and "Notes/Sourdough.md" not in shown(at.markdown)
    assert "· 14 March 2026 ·" in shown(at.markdown)  # the passage's day beside its lines
    at.button(key="rag_search_time").click().run()  # "All dates"
    assert "Searching notes" not in shown(at.caption) and "Notes/" in shown(at.markdown)
    at.date_input(key="rag_filter_dates").set_value((date(2026, 4, 1), date(2026, 4, 30))).run()  # the date filter
    assert "Searching notes from 1–30 April 2026" in shown(at.caption) and "Bread chat" in shown(at.markdown)
    assert "2026-03-14 Use SQLite" not in shown(at.markdown)


def test_ask_says_which_days_it_searched_dates_its_sources_and_asks_again_over_all_dates(app, monkeypatch):
    monkeypatch.setenv("RAG_TODAY", "2026-05-08")
    at = ask(app(), "What did I decide in March about the database?")
    assert "Searching notes from 1–31 March 2026 (“in March”)" in shown(at.caption)
    assert "· 14 March 2026" in shown(at.markdown)  # beside the source in the sources panel
    at.button(key="time-0").click().run()  # "All dates": the same question again, its time words as plain words
    at.run()
    assert len([m for m in at.chat_message if m.name == "user"]) == 2
    assert shown(at.caption).count("Searching notes from 1–31 March 2026") == 1  # only the first answer kept to March


# --- Similar notes and duplicates ----------------------------------------------------------------------------------


def test_similar_notes_lists_the_nearest_notes_with_scores(app, vault):
    shutil.copy(vault / "Notes/SQLite.md", vault / "Notes/SQLite copy.md")
    at = app("app_pages/similar.py")
    at.selectbox(key="rag_similar_pick").select("Notes/SQLite.md").run()
    rows = at.dataframe[0].value
    assert rows["Path"].iloc[0] == "Notes/SQLite copy.md" and rows["Cosine"].iloc[0] == pytest.approx(1.0)
    assert rows["How close"].iloc[0].startswith("near-duplicate · closer than") and rows["Shared text"].iloc[0] == pytest.approx(1.0)
    assert list(rows["Cosine"]) == sorted(rows["Cosine"], reverse=True)
    assert "Notes/SQLite.md" not in list(rows["Path"])


def test_duplicates_shows_a_copied_note_pair_side_by_side_and_changes_nothing(app, vault):
    shutil.copy(vault / "Notes/SQLite.md", vault / "Notes/SQLite copy.md")
    before = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))
    at = app("app_pages/duplicates.py")
    assert "1 pair." in shown(at.markdown) and "**near-duplicate" in shown(at.markdown) and "shares 100%" in shown(at.markdown)
    paths = [unescaped(c.value) for c in at.caption]
    assert [p for p in paths if p.startswith("Notes/")] == ["Notes/SQLite copy.md", "Notes/SQLite.md"]
    assert len(at.code) == 2
    at.select_slider[0].set_value(1.0).run()  # the whole text shared: still the pair
    at.select_slider[1].set_value(1.0).run()
    assert "1 pair." in shown(at.markdown)
    assert sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md")) == before


def test_no_duplicates_is_said_plainly(app):
    at = app("app_pages/duplicates.py")
    assert "No near-duplicate notes" in texts(at.success)


# --- Index ---------------------------------------------------------------------------------------------------------


def test_the_index_page_shows_counts_model_and_last_sync(app):
    at = app("app_pages/index.py")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Notes"] == "11" and metrics["Vectors missing"] == "0" and int(metrics["Passages (chunks)"]) >= 10
    assert "fake-embedder-v1" in shown(at.markdown) and "Last sync" in shown(at.markdown)


def test_the_index_page_says_which_engine_embeds_and_on_what_cpu(app, fake_embedder, monkeypatch):
    cpu = {"cpu": "Intel(R) Xeon(R) Platinum 8480+", "cpu_features": ["AMX-INT8", "AVX-512 VNNI"], "cores": 2}
    monkeypatch.setattr(fake_embedder, "to_json", lambda: {"engine": "onnx", "precision": "int8", **cpu}, raising=False)
    line = "ONNX Runtime, int8 · Intel(R) Xeon(R) Platinum 8480+ (AMX-INT8, AVX-512 VNNI; 2 cores)"
    at = app("app_pages/index.py")
    assert not at.exception, at.exception
    assert "**Embedding on** " + line in shown(at.markdown).replace("\\", "")


def test_reindex_runs_in_the_background_and_embedding_errors_are_shown_with_the_fix(app, vault, fake_embedder):
    at = app("app_pages/index.py")
    (vault / "Notes" / "New.md").write_text("# New\n\nA brand new note about kombucha.\n", encoding="utf-8")
    fake_embedder.fail = True
    at.button[0].click().run()
    idle(at)
    at.run()
    assert "the missing vectors are added once embedding works again" in shown(at.error)  # the app's words, not the CLI's
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Notes"] == "12" and metrics["Vectors missing"] != "0"


# --- Settings ------------------------------------------------------------------------------------------------------


def test_settings_find_the_local_model_servers_test_a_model_and_use_it(app, monkeypatch):
    with FakeOpenAI(models=("qwen2.5:7b", "llama3.2:3b")) as server:
        server.kind, server.model_num_ctx = "ollama", 8192
        monkeypatch.setattr("rag.chat.servers.LOCAL_PORTS", ((server.port, "Ollama"),))
        at = app()
        at.button(key="rag_find_models").click().run()
        picker = at.selectbox(key="rag_model_pick")
        assert picker.options == ["qwen2.5:7b · Ollama", "llama3.2:3b · Ollama"]
        picker.select_index(1).run()
        assert "window 8,192 tokens · " in texts(at.sidebar.caption)  # the number as English writes it
        server.script_chat("OK")
        at.button(key="rag_model_test").click().run()
        assert "Replied in" in texts(at.sidebar.success) and texts(at.sidebar.success).endswith(": OK")
        at.button(key="rag_model_use").click().run()
        settings = at.session_state["rag_app"].settings
        assert (settings.chat_model, settings.openai_base_url) == ("llama3.2:3b", server.base_url)
        assert "Model · llama3.2:3b" in shown(at.markdown) or "llama3.2:3b" in shown(at.caption)


def test_settings_reject_a_missing_vault_folder_and_keep_the_current_vault(app, tmp_path):
    at = app()
    at.sidebar.text_area[0].input(str(tmp_path / "missing"))
    at.sidebar.button[0].click().run()  # the form's Apply
    assert "does not exist" in texts(at.sidebar.error)
    assert "Notes/" not in texts(at.sidebar.error) and at.session_state["rag_app"].settings.vault.name == "vault"


def test_settings_switch_to_another_vault_which_is_indexed_and_answered_from(app, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "Tea.md").write_text("# Tea\n\nPu-erh is brewed at 95 degrees for thirty seconds.\n", encoding="utf-8")
    at = app()
    at.sidebar.text_area[0].input(str(other))
    at.sidebar.button[0].click().run()
    idle(at)
    at.run()
    switched = at.session_state["rag_app"].settings
    assert switched.vault == other.resolve() and switched.db_path.exists() and not (other / ".rag").exists()  # not in the vault
    assert "95 degrees" in answers(ask(at, "How hot is the water for pu-erh brewed?"))


def test_a_chat_model_chosen_in_settings_answers_in_this_session(app):
    with FakeOpenAI() as server:
        server.script_chat("White bread: 72% hydration [S1].")
        at = app()
        at.sidebar.text_input[0].input(server.base_url)
        at.sidebar.text_input[1].input("fake-chat")
        at.sidebar.button[0].click().run()
        at = ask(at, "What hydration do I keep for white bread?")
    assert "Model · fake-chat" in shown(at.markdown) and '72% hydration <a href="#cite-0-S1">[S1]</a>' in answers(at)


def test_an_api_key_from_secrets_reaches_the_endpoint_and_never_the_vault(app, vault):
    with FakeOpenAI(api_key="sk-from-secrets") as server:
        server.script_chat("White bread: 72% hydration [S1].")
        at = app(wait=False)
        at.secrets["OPENAI_API_KEY"] = "sk-from-secrets"
        at.secrets["OPENAI_BASE_URL"] = server.base_url
        at.secrets["RAG_CHAT_MODEL"] = "fake-chat"
        at.run()
        idle(at)
        at = ask(at.run(), "What hydration do I keep for white bread?")
        auth = [r["headers"].get("authorization") for r in server.requests if r["path"].endswith("/chat/completions")]
    assert auth == ["Bearer sk-from-secrets"] and "Model · fake-chat" in shown(at.markdown)
    assert "API key: from .streamlit/secrets.toml" in shown(at.sidebar.caption)
    assert not any(b"sk-from-secrets" in p.read_bytes() for p in vault.rglob("*") if p.is_file())


def test_new_chat_is_offered_right_after_the_first_answer_and_clears_the_conversation(app):
    at = app()
    assert not [b for b in at.button if b.key == "rag_new_chat"]  # nothing to clear yet
    at = ask(at, "What hydration do I keep for white bread?")
    new_chat = [b for b in at.button if b.key == "rag_new_chat"]
    assert new_chat and new_chat[0].label == "New chat"
    at = new_chat[0].click().run()
    assert not at.chat_message and not [b for b in at.button if b.key == "rag_new_chat"]


def test_search_shows_a_title_and_heading_with_a_wikilink_as_a_person_reads_them(app, vault):
    (vault / "Notes" / "Linked.md").write_text(
        "---\ntitle: Notes on [[Sourdough|my bread]]\n---\n# Notes on [[Sourdough|my bread]]\n\n"
        "## Flour from [[Mill notes]]\n\nThe rye flour for the starter comes from the mill by the river.\n",
        encoding="utf-8",
    )
    at = search(app("app_pages/search.py"), "rye flour mill river")
    assert not at.exception
    seen = shown(at.markdown)
    assert "Notes on my bread" in seen and "Flour from Mill notes" in seen
    assert "[[" not in seen


def test_similar_notes_list_a_title_with_a_wikilink_by_its_alias(app, vault):
    (vault / "Notes" / "SQLite copy.md").write_text(
        "---\ntitle: Copy of [[SQLite|the SQLite note]]\n---\n" + (vault / "Notes" / "SQLite.md").read_text(encoding="utf-8"), encoding="utf-8"
    )
    at = app("app_pages/similar.py")
    at.selectbox(key="rag_similar_pick").select("Notes/SQLite.md").run()
    titles = list(at.dataframe[0].value.iloc[:, 0])
    assert "Copy of the SQLite note" in titles and not any("[[" in str(t) for t in titles)
