"""The first ten minutes, in the person's language: a language switches at a click and stays; an error says the
app's fix (Settings) in the app's language, under the button that caused it; counts take the plural their number
needs; numbers, filters and dates are written the interface's way; the program's lines in an answer ("Extractive
answer…", "Not found…") follow the interface, not the question."""

from __future__ import annotations

import re
import socket
import string

import pyarrow as pa
import pytest

from rag.answer.grounding import CheckedClaim
from rag.chat.prompts import render
from rag.web import i18n
from tests.app_harness import answers, ask, idle, shown, texts, unescaped

CYRILLIC = re.compile(r"[а-яё]", re.I)
CLI_ADVICE = re.compile(r"--\w|python -m rag|RAG_VAULT|RAG_CHAT_MODEL|RAG_EMBED_MODEL|rag index")


def search(at, query: str):
    return at.text_input(key="rag_search_query").input(query).run()


# --- counts ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "english", "russian"),
    [(1, "1 note", "1 заметка"), (2, "2 notes", "2 заметки"), (5, "5 notes", "5 заметок"), (11, "11 notes", "11 заметок"),
     (21, "21 notes", "21 заметка"), (24, "24 notes", "24 заметки"), (0, "0 notes", "0 заметок"), (1001, "1,001 notes", "1\u202f001 заметка")],
)  # fmt: skip
def test_a_count_takes_the_plural_its_number_needs_in_both_languages(n, english, russian):
    assert i18n.text("en", "search.summary", n=n, channels="keyword") == f"{english}, best first · found by keyword"
    assert i18n.text("ru", "search.summary", n=n, channels="по словам") == f"{russian}, лучшие сверху · найдено: по словам"


def test_every_count_in_the_catalogue_has_each_plural_form_of_its_language():
    counted = 0
    for key, (english, russian) in i18n.CATALOGUE.items():
        for language, template in (("en", english), ("ru", russian)):
            for _, _field, spec, _ in string.Formatter().parse(template):
                if spec and "|" in spec:
                    counted += 1
                    assert len(spec.split("|")) == i18n.PLURAL_FORMS[language], f"{key} ({language}): {spec}"
        assert "(s)" not in english, f"{key}: a plural left to the reader"
    assert counted >= 20


def test_the_search_summary_of_one_note_says_one_note(app):
    at = app("app_pages/search.py")
    at.multiselect(key="rag_filter_folder").select("Projects/Alpha/Decisions").run()  # one note there
    at = search(at, "SQLite")
    assert "1 note, best first · found by" in shown(at.caption)


def test_the_russian_search_summary_declines_the_count(app, monkeypatch):
    monkeypatch.setenv("RAG_UI_LANGUAGE", "ru")
    at = app("app_pages/search.py")
    at.multiselect(key="rag_filter_folder").select("Projects/Alpha/Decisions").run()  # one note there
    at = search(at, "SQLite")
    assert "1 заметка, лучшие сверху" in shown(at.caption) and "Заметок:" not in shown(at.caption)


# --- the interface's way with filters and numbers --------------------------------------------------------------------


def test_search_filters_speak_russian_and_take_dates_the_russian_way(app, monkeypatch):
    monkeypatch.setenv("RAG_UI_LANGUAGE", "ru")
    at = app("app_pages/search.py")
    placeholders = {m.proto.placeholder for m in at.multiselect}
    assert placeholders == {"Любая папка", "Любой тег", "Любой проект", "Любой уровень"}  # not Streamlit's "Choose options"
    assert at.date_input(key="rag_filter_dates").proto.format == "DD.MM.YYYY"


def test_search_filters_speak_english_in_english(app):
    at = app("app_pages/search.py")
    assert {m.proto.placeholder for m in at.multiselect} == {"Any folder", "Any tag", "Any project", "Any tier"}
    assert at.date_input(key="rag_filter_dates").proto.format == "YYYY-MM-DD"


def _shown_cells(dataframe) -> dict[str, list[str]]:
    """The text each cell shows (the Styler's display values), by column."""
    display = pa.ipc.open_stream(dataframe.proto.arrow_data.styler.display_values).read_all()
    data = pa.ipc.open_stream(dataframe.proto.arrow_data.data).read_all()
    return {name: display.column(i).to_pylist() for i, name in enumerate(data.column_names) if not name.startswith("__")}


def test_similar_notes_write_scores_and_shares_with_the_interfaces_decimal_comma(app, vault, monkeypatch):
    monkeypatch.setenv("RAG_UI_LANGUAGE", "ru")
    (vault / "Notes" / "SQLite copy.md").write_bytes((vault / "Notes" / "SQLite.md").read_bytes())
    at = app("app_pages/similar.py")
    at.selectbox(key="rag_similar_pick").select("Notes/SQLite.md").run()
    rows = at.dataframe[0].value
    assert rows["Косинус"].iloc[0] == pytest.approx(1.0)  # the numbers stay numbers: the table sorts by them
    cells = _shown_cells(at.dataframe[0])
    score, overlap = cells["Косинус"], cells["Общий текст"]
    assert score[0] == "1,000" and all(re.fullmatch(r"-?\d,\d{3}", s) for s in score), score
    assert overlap[0] == "100\u00a0%" and all(s.endswith("\u00a0%") for s in overlap), overlap
    assert all("," in label for label in rows["Насколько близко"] if "%" in label)  # beside "ближе, чем 6,4 % пар"


def test_duplicates_thresholds_are_written_the_interfaces_way(app, monkeypatch):
    monkeypatch.setenv("RAG_UI_LANGUAGE", "ru")
    at = app("app_pages/duplicates.py")
    overlap, threshold = at.select_slider
    assert overlap.value == 0.5 and threshold.value == 0.85
    assert "50\u00a0%" in overlap.options and "0,850" in threshold.options and not any("." in o for o in threshold.options)


# --- the program's lines in an answer follow the interface ----------------------------------------------------------


def test_the_extractive_lead_line_follows_the_interface_not_the_question(app, monkeypatch):
    monkeypatch.setenv("RAG_UI_LANGUAGE", "ru")
    at = ask(app(), "What hydration do I keep for white bread?")
    html = answers(at)
    assert "Извлечённый ответ (без языковой модели)" in html and "Extractive answer" not in html
    assert "72% hydration for white bread" in html and 'href="#cite-0-S1"' in html  # the quotes are the notes' own


def test_not_found_and_its_hint_follow_the_interface_not_the_question(app):
    at = ask(app(), "Какая гидратация у белого хлеба?")  # English app, Russian question: not found by words alone
    warning = shown(at.warning)
    assert "Not found in your notes" in warning and not CYRILLIC.search(warning)
    assert "Try other words, or look on the Search page." in shown(at.caption)


def test_not_found_in_the_russian_app_is_russian_whatever_the_question(app, monkeypatch):
    monkeypatch.setenv("RAG_UI_LANGUAGE", "ru")
    at = ask(app(), "What is the airspeed velocity of an unladen swallow?")
    warning = shown(at.warning)
    assert "В ваших заметках ответа нет" in warning and "Not found" not in warning
    assert "Попробуйте другие слова" in shown(at.caption) and "Try other words" not in shown(at.caption)


def test_a_new_lead_line_moves_the_quoted_claims_with_it():
    from rag.web import answer_words

    blocks = "Sourdough › Bread [S1]\n> I keep the dough at 72% hydration."
    text = render("extractive.en", quotes=blocks).strip()
    start = text.index(blocks)
    claim = CheckedClaim("I keep the dough at 72% hydration.", start, start + len(blocks), ("S1",), "supported", ("S1",))
    russian, (moved,) = answer_words.in_language(text, (claim,), "ru")
    assert russian.startswith("Извлечённый ответ") and russian[moved.start : moved.end] == blocks
    assert answer_words.in_language(text, (claim,), "en") == (text, (claim,))
    not_found = render("not_found.ru").strip()
    assert answer_words.in_language(not_found, (), "en")[0] == render("not_found.en").strip()


# --- the language switches at a click, and stays ---------------------------------------------------------------------


def test_a_click_on_russian_switches_the_whole_app_without_apply(app):
    at = app()
    assert at.title[0].value == "Ask your vault"
    at.sidebar.segmented_control[0].set_value("ru").run()  # no click on Apply
    assert at.title[0].value == "Спросите свои заметки" and at.chat_input[0].placeholder.startswith("Спросите")
    assert at.sidebar.expander[0].label == "Настройки" and "Индекс в порядке" in shown(at.sidebar.caption)
    assert at.sidebar.expander[0].proto.expanded  # the panel stays open where the click was
    at.switch_page("app_pages/search.py").run()
    assert at.title[0].value == "Поиск"


def test_the_language_clicked_stays_when_the_other_settings_are_applied(app):
    at = app()
    at.sidebar.segmented_control[0].set_value("ru").run()
    at.sidebar.number_input[0].set_value(3)
    at.sidebar.button[0].click().run()  # the form's Apply
    assert at.session_state["rag_app"].settings.context_max_notes == 3
    assert at.title[0].value == "Спросите свои заметки" and at.sidebar.segmented_control[0].value == "ru"
    at.sidebar.segmented_control[0].set_value("en").run()  # and back, the applied settings kept
    assert at.title[0].value == "Ask your vault" and at.session_state["rag_app"].settings.context_max_notes == 3


# --- errors in the app's words, where the person is looking ----------------------------------------------------------


def test_a_missing_vault_typed_in_settings_is_explained_under_apply_in_the_apps_words(app, tmp_path):
    at = app()
    at.sidebar.text_area[0].input(str(tmp_path / "missing"))
    at.sidebar.button[0].click().run()
    errors = [e.value for e in at.sidebar.error]
    assert len(errors) == 1 and "Choose the folder that holds your notes in Settings" in errors[0]
    assert not CLI_ADVICE.search(errors[0]), errors[0]
    assert [e.value for e in at.sidebar.expander[0].form[0].error] == errors  # in the form, under the Apply just pressed


def test_a_missing_vault_is_explained_in_russian_in_the_russian_app(app, tmp_path, monkeypatch):
    monkeypatch.setenv("RAG_UI_LANGUAGE", "ru")
    at = app()
    at.sidebar.text_area[0].input(str(tmp_path / "missing"))
    at.sidebar.button[0].click().run()
    assert "Выберите в настройках папку" in shown(at.sidebar.error) and not CLI_ADVICE.search(texts(at.sidebar.error))


def test_an_app_started_on_a_missing_vault_opens_settings_and_says_to_choose_one_there(app, tmp_path, monkeypatch):
    monkeypatch.setenv("RAG_VAULT", str(tmp_path / "gone"))
    at = app(wait=False)
    assert "Choose the folder that holds your notes in Settings" in shown(at.error) and not CLI_ADVICE.search(texts(at.error))
    assert at.sidebar.expander[0].proto.expanded and at.sidebar.text_area  # the panel is open at the field


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens once it is closed


@pytest.mark.parametrize("language", ["en", "ru"])
def test_a_chat_server_that_cannot_be_reached_is_explained_in_the_apps_words(app, monkeypatch, language):
    monkeypatch.setenv("RAG_UI_LANGUAGE", language)
    at = app()
    at.sidebar.text_input[0].input(f"http://127.0.0.1:{_closed_port()}/v1")
    at.sidebar.text_input[1].input("some-model")
    at.sidebar.button[0].click().run()
    at = ask(at, "What hydration do I keep for white bread?")
    error = shown(at.error)
    assert {"en": "fix its address in Settings", "ru": "исправьте адрес в настройках"}[language] in error
    assert not CLI_ADVICE.search(error) and "OPENAI_BASE_URL" not in error, error


def test_an_embedding_failure_in_the_sidebar_and_on_the_index_page_gives_no_terminal_advice(app, vault, fake_embedder):
    at = app("app_pages/index.py")
    (vault / "Notes" / "New.md").write_text("# New\n\nA brand new note about kombucha.\n", encoding="utf-8")
    fake_embedder.fail = True
    at.button[0].click().run()
    idle(at)
    at.run()
    for where in (texts(at.error), texts(at.sidebar.caption)):
        assert "fake embedder is down" in where and "the missing vectors are added once embedding works again" in unescaped(where)
        assert not CLI_ADVICE.search(where), where


LIBRARY_SAMPLES = {"path": "/home/me/Notes", "url": "http://127.0.0.1:11434/v1", "model": "'qwen'", "name": "qwen", "detail": "boom",
                   "endpoint": "https://api.openai.com/v1", "seconds": "30", "error": "fake embedder is down", "held": "what was written before stays",
                   "notes": "3", "embedded": "4", "chunks": "5"}  # fmt: skip


@pytest.mark.parametrize("language", ["en", "ru"])
def test_every_library_message_the_app_knows_is_said_in_its_own_words(language):
    from rag.web import messages

    for template, key in messages.REWORDED.items():
        fields = {name for _, name, _, _ in string.Formatter().parse(template) if name}
        message = template.format(**{name: LIBRARY_SAMPLES[name] for name in fields})
        said = messages.shown(language, message)
        if key != "error.vault_empty":  # the one the app cannot fix itself: it was started with an empty RAG_VAULT
            assert not CLI_ADVICE.search(said), (key, said)
        assert bool(CYRILLIC.search(said)) == (language == "ru"), (key, said)
        plain = unescaped(said).replace("\u2060", "")  # as a reader sees it (rag.web.untrusted)
        assert all(LIBRARY_SAMPLES[name] in plain for name in fields - {"error", "held"}), (key, plain)
    assert messages.shown(language, "Something the app does not know.") == "Something the app does not know\\."
