"""PDFs in the vault (rag/notes/pdf.py): read page by page into the same index as notes, cited by page and line, and
what cannot be read (a scan, a password, a broken or hostile file) skipped with its reason while the rest is indexed.
The fixture PDFs were printed by chromium from our own text (tests/fixtures/pdf/); the encrypted one is that PDF
with a password."""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from rag.agents.mcp_server import VaultTools
from rag.answer.ask import ask
from rag.cli import cli
from rag.devtools.hostile_pdfs import bomb
from rag.errors import NoteError, VaultError
from rag.index.chunking import chunk_note
from rag.knowledge import Knowledge
from rag.live import LiveIndex
from rag.notes import pdf, pdf_markdown
from rag.notes.files import read_text, write_note
from rag.notes.vault import pdf_page_image, read_note
from rag.web.ui_render import passage
from rag.workspace import Workspace

PDFS = Path(__file__).parent / "fixtures" / "pdf"


def read(name: str, **limits) -> str:
    return pdf.read_pdf(str(PDFS / name), name, max_bytes=limits.get("max_bytes", 10**8), max_text_bytes=limits.get("max_text_bytes", 10**7)).text


def test_each_page_opens_with_its_heading_the_pdfs_headings_follow_and_its_lines_stay_lines():
    text = read("manual.pdf")
    lines = text.split("\n")
    assert lines[:3] == ["---", 'title: "Greenhouse controller manual"', "---"]  # the PDF's own title, not page 1
    assert [line for line in lines if line.startswith("#")] == [
        "# p. 1",
        "## Greenhouse controller manual",
        "### Wiring",
        "# p. 2",
        "### Обслуживание",
    ]
    assert "The sensors connect to GPIO 32, 33, 34 and 35, because these" in lines
    assert "Раз в месяц датчики протирают спиртом. Если показания" in lines
    assert "\r" not in text


def test_a_passages_note_lines_are_told_as_lines_on_its_page():
    text = read("manual.pdf")
    lines = text.split("\n")
    gpio = lines.index("The sensors connect to GPIO 32, 33, 34 and 35, because these") + 1
    where = pdf.place(text, gpio, gpio + 1)
    # on page 1: the title, three lines, "Wiring", then this one — blank lines the reading added are not the page's
    assert (where.page, where.line, where.end_line, str(where)) == (1, 6, 7, "p. 1, lines 6-7")
    wipe = lines.index("Раз в месяц датчики протирают спиртом. Если показания") + 1
    across = pdf.place(text, gpio, wipe)
    assert (across.page, across.end_page, across.end_line) == (1, 2, 2) and str(across) == "p. 1, line 6 - p. 2, line 2"
    assert pdf.place("# Plain note\n\nText.\n", 3, 3) is None
    assert pdf.page_json(where) == {"page": 1, "page_lines": [6, 7]} and pdf.page_json(None) == {"page": None, "page_lines": None}


def test_a_word_hyphenated_at_a_lines_end_is_joined_on_the_first_line_and_text_markdown_would_read_as_syntax_is_escaped():
    lines = [
        pdf_markdown.Line(t, 10.0, 700.0 - 12 * i) for i, t in enumerate(["The con-", "troller waters", "# of pumps: 2", "```", "Wi-", "Fi is on"])
    ]
    text = pdf_markdown.render([lines])
    assert text.split("\n")[1:7] == ["The controller", "waters", "\\# of pumps: 2", "\\```", "Wi-", "Fi is on"]


@pytest.mark.parametrize(
    ("name", "content", "words"),
    [
        ("scan.pdf", None, "no text layer"),
        ("encrypted.pdf", None, "protected by a password"),
        ("broken.pdf", b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >>\nendobj\ntrailer <<>>\n%%EOF", "not a readable PDF"),
        ("empty.pdf", b"", "not a readable PDF"),
    ],
)
def test_what_cannot_be_read_is_said_with_the_reason(tmp_path, name, content, words):
    path = tmp_path / name
    path.write_bytes(content if content is not None else (PDFS / name).read_bytes())
    with pytest.raises(NoteError, match=words):
        pdf.read_pdf(str(path), name, max_bytes=10**8, max_text_bytes=10**7)


def test_a_pdf_over_the_size_limit_or_a_reader_over_its_time_or_memory_is_skipped(monkeypatch):
    with pytest.raises(NoteError, match="over the 10 kB limit for a PDF.*max_pdf_bytes"):
        read("manual.pdf", max_bytes=10_000)
    with pytest.raises(NoteError, match="limit for a note"):
        read("manual.pdf", max_text_bytes=100)
    pdf._cache.clear()
    monkeypatch.setattr(pdf, "SECONDS", 0.01)
    with pytest.raises(NoteError, match="took more than 0 s to read"):
        read("manual.pdf")


def test_a_decompression_bomb_stops_at_the_readers_memory_bound_and_the_rest_of_the_vault_is_indexed(workspace, monkeypatch):
    monkeypatch.setattr(pdf, "MEMORY_BYTES", 100_000_000)  # 2 GB in use; 150 MB of text operators pass that here
    vault = workspace.settings.vault
    (vault / "Bomb.pdf").write_bytes(bomb(150))
    shutil.copy(PDFS / "manual.pdf", vault / "Manual.pdf")
    started = time.perf_counter()
    report = workspace.sync()
    assert time.perf_counter() - started < 60
    assert "100.0 MB memory bound" in dict(report.skipped)["Bomb.pdf"] and "a damaged or hostile PDF" in dict(report.skipped)["Bomb.pdf"]
    assert workspace.retriever.keyword("GPIO").hits[0].chunk.path == "Manual.pdf"


def test_the_sync_indexes_pdfs_beside_notes_skips_the_unreadable_with_their_reasons_and_reuses_a_moved_ones_vectors(workspace):
    vault = workspace.settings.vault
    (vault / "Papers").mkdir()
    shutil.copy(PDFS / "manual.pdf", vault / "Papers" / "Manual.pdf")
    shutil.copy(PDFS / "scan.pdf", vault / "Papers" / "Scan.pdf")
    (vault / "Papers" / "Broken.pdf").write_bytes(b"%PDF-1.4 nothing else")
    report = workspace.sync()
    skipped = dict(report.skipped)
    assert "no text layer" in skipped["Papers/Scan.pdf"] and "not a readable PDF" in skipped["Papers/Broken.pdf"]
    assert {s["path"] for s in workspace.status()["skipped"]} >= {"Papers/Scan.pdf", "Papers/Broken.pdf"}
    hits = workspace.retriever.keyword("GPIO").hits
    assert hits and hits[0].chunk.path == "Papers/Manual.pdf" and hits[0].chunk.heading_path.startswith("Greenhouse controller manual › p. 1")
    embedded = len(workspace.embedder.embedded)
    (vault / "Papers" / "Manual.pdf").rename(vault / "Manual moved.pdf")
    moved = workspace.sync()
    assert moved.files_added == 1 and moved.files_removed == 1
    assert workspace.retriever.keyword("GPIO").hits[0].chunk.path == "Manual moved.pdf"
    assert len(workspace.embedder.embedded) == embedded  # its chunks' vectors are reused, nothing embedded again
    shutil.copy(PDFS / "encrypted.pdf", vault / "Manual moved.pdf")  # changed on disk: read again, and now refused
    changed = workspace.sync()
    assert "protected by a password" in dict(changed.skipped)["Manual moved.pdf"]
    assert not workspace.retriever.keyword("GPIO").hits  # its old text is no longer served


def test_a_pdf_is_read_by_line_range_or_by_page_but_never_written(settings, workspace):
    vault = settings.vault
    shutil.copy(PDFS / "manual.pdf", vault / "Manual.pdf")
    got = read_text(settings, "Manual.pdf", start_line=4, end_line=5)
    assert got.content == "# p. 1\n## Greenhouse controller manual\n" and got.total_lines > 20
    second = read_text(settings, "Manual.pdf", page=2)  # a page whole, as an agent asks for the page a hit gave
    assert second.content.startswith("# p. 2\n") and "Раз в месяц" in second.content and second.end_line == second.total_lines
    both = read_text(settings, "Manual.pdf", page=1, end_page=2)
    assert both.content.startswith("---") is False and both.content.startswith("# p. 1\n") and "# p. 2\n" in both.content
    with pytest.raises(VaultError, match="has 2 pages"):
        read_text(settings, "Manual.pdf", page=3)
    with pytest.raises(VaultError, match="no pages"):
        read_text(settings, "Notes/SQLite.md", page=1)
    with pytest.raises(VaultError):
        write_note(settings, "Manual.pdf", "# overwritten\n")
    assert (vault / "Manual.pdf").read_bytes() == (PDFS / "manual.pdf").read_bytes()


def test_the_citation_dialog_numbers_a_pdfs_lines_as_on_its_page(tmp_path):
    shutil.copy(PDFS / "manual.pdf", tmp_path / "Manual.pdf")
    text = read_note(tmp_path, "Manual.pdf").text
    lines = text.split("\n")
    n = lines.index("Раз в месяц датчики протирают спиртом. Если показания") + 1
    shown = passage(tmp_path, "Manual.pdf", n, n + 1, "\n".join(lines[n - 1 : n + 1]))
    assert str(shown.place) == "p. 2, lines 2-3"
    cited = [(row.number, row.text) for row in shown.lines if row.cited]
    assert cited == [(2, lines[n - 1]), (3, lines[n])]
    assert not any(pdf.PAGE_HEADING.match(row.text) for row in shown.lines)


@pytest.fixture(scope="module")
def pdf_vault(tmp_path_factory, real_embedder):
    root = tmp_path_factory.mktemp("pdfs")
    vault = root / "vault"
    vault.mkdir()
    shutil.copy(PDFS / "manual.pdf", vault / "Greenhouse manual.pdf")
    (vault / "Garden.md").write_text("# Garden\n\nThe tomatoes go in the east bed. See [[Greenhouse manual.pdf]].\n", encoding="utf-8")
    from rag.config import load_settings

    settings = load_settings(vault=vault, db_path=root / "index.db", env={})
    with Workspace.open(settings, create=True, embedder=real_embedder) as ws:
        ws.sync()
    return settings


@pytest.mark.parametrize(
    ("question", "page", "words"),
    [("Which GPIO pins do the sensors connect to?", 1, "GPIO 32"), ("Чем протирают датчики раз в месяц?", 2, "спиртом")],
)
def test_an_answer_from_a_pdf_cites_its_page_and_lines_with_the_real_embedder(pdf_vault, real_embedder, question, page, words):
    with Workspace.open(pdf_vault, embedder=real_embedder) as ws:
        answer = ask(ws, question)
    assert not answer.not_found and words in answer.text
    first = answer.citations[0]
    assert first.path == "Greenhouse manual.pdf" and first.place is not None and first.place.page == page
    data = answer.to_json()
    assert data["citations"][0]["page"] == page and data["citations"][0]["page_lines"] == [first.place.line, first.place.end_line]
    assert f"p. {page}" in answer.context.get(first.id).label  # the model is told the page too


def test_cli_search_and_mcp_search_give_the_page(pdf_vault, real_embedder, monkeypatch):
    monkeypatch.setattr("rag.workspace.make_embedder", lambda settings: real_embedder)
    args = ["--vault", str(pdf_vault.vault), "--db", str(pdf_vault.db_path)]
    out = CliRunner().invoke(cli, ["search", "GPIO pins", *args], catch_exceptions=False).output
    assert "1. Greenhouse manual.pdf · p. 1, lines " in out
    hits = json.loads(CliRunner().invoke(cli, ["search", "GPIO pins", "--json", *args], catch_exceptions=False).output)
    assert hits[0]["page"] == 1 and len(hits[0]["page_lines"]) == 2
    live = LiveIndex(pdf_vault, embedder=real_embedder)
    try:
        found = VaultTools(Knowledge(live)).knowledge_search("GPIO pins")
        page = VaultTools(Knowledge(live)).knowledge_read("Greenhouse manual.pdf", page=found.results[0].page)
    finally:
        live.close()
    first = found.results[0]
    assert first.path == "Greenhouse manual.pdf" and first.page == 1 and first.page_lines[0] >= 1
    assert page.content.startswith("# p. 1\n") and "GPIO 32" in page.content and "# p. 2" not in page.content  # the hit's page


def test_a_heading_wrapped_onto_two_lines_names_its_section_whole_and_the_pages_lines_still_count():
    sizes = [16.0, 16.0, 10.0, 10.0, 10.0]
    texts = [
        "Settings and environment",
        "variables { #settings }",
        "The first line of the body text.",
        "Body two, as long as a line of text.",
        "The third line of the body.",
    ]
    lines = [pdf_markdown.Line(t, size, 700.0 - 14 * i) for i, (t, size) in enumerate(zip(texts, sizes))]
    text = pdf_markdown.render([lines])
    assert text.split("\n")[1:4] == [
        "## Settings and environment variables { #settings }",
        "variables { #settings }",
        "The first line of the body text.",
    ]
    body = text.split("\n").index("Body two, as long as a line of text.") + 1
    assert pdf.place(text, body, body).line == 4  # the fourth line of the page, as the PDF shows it


def test_a_page_is_drawn_for_the_dialog_in_the_bounded_reader_and_only_a_vaults_pdf(tmp_path):
    shutil.copy(PDFS / "manual.pdf", tmp_path / "Manual.pdf")
    image = pdf_page_image(tmp_path, "Manual.pdf", 2)
    assert image.ndim == 3 and image.shape[2] == 3 and image.shape[1] in (pdf.PAGE_WIDTH, pdf.PAGE_WIDTH + 1)
    assert image.min() < 100 < 250 < image.max()  # text on a white page
    with pytest.raises(NoteError, match="could not be drawn"):
        pdf_page_image(tmp_path, "Manual.pdf", 3)  # it has two
    (tmp_path / "Notes.md").write_text("# not a PDF\n", encoding="utf-8")
    with pytest.raises(NoteError, match="not a PDF of the vault"):
        pdf_page_image(tmp_path, "../Manual.pdf", 1)


def test_the_search_page_shows_a_pdfs_passage_by_page_its_index_page_lists_the_scan_it_skipped_and_similar_notes_its_page(app, vault):
    from tests.app_harness import shown

    shutil.copy(PDFS / "manual.pdf", vault / "Manual.pdf")
    shutil.copy(PDFS / "scan.pdf", vault / "Scan.pdf")
    at = app("app_pages/search.py")
    at.text_input(key="rag_search_query").input("GPIO pins analogue converter").run()
    markdown = shown(at.markdown)
    assert "p. 1, lines " in markdown and "Manual.pdf" in markdown
    index = app("app_pages/index.py")
    assert "Scan.pdf has no text layer" in shown(index.markdown) + shown(index.caption) + shown(index.warning)
    similar = app("app_pages/similar.py")
    similar.selectbox(key="rag_similar_pick").select("Notes/SQLite.md").run()
    rows = similar.dataframe[0].value
    manual = [p for p in rows["Path"] if p.startswith("Manual.pdf")]
    assert manual and manual[0] in ("Manual.pdf · p. 1", "Manual.pdf · p. 2"), list(rows["Path"])  # the PDF with its page
    opens = rows["Open"][list(rows["Path"]).index(manual[0])]
    assert opens.endswith(f"file=Manual.pdf%23page%3D{manual[0][-1]}")  # Obsidian opens it at that page


def test_a_pdf_over_the_page_limit_is_skipped_before_its_pages_are_read(tmp_path):
    import io

    import pypdfium2

    made = pypdfium2.PdfDocument.new()
    for _ in range(pdf.MAX_PAGES + 1):
        made.new_page(50, 50)
    data = io.BytesIO()
    made.save(data)
    (tmp_path / "Book.pdf").write_bytes(data.getvalue())
    with pytest.raises(NoteError, match="has 2,001 pages, over the 2,000-page limit"):
        read_note(tmp_path, "Book.pdf")


def test_headings_set_in_the_body_texts_size_come_from_the_pdfs_outline():
    text = read("outlined.pdf")  # chromium's outline of <h1>/<h2> set at 12pt, like the text
    assert [line for line in text.split("\n") if line.startswith("#")] == [
        "# p. 1",
        "## Pump service log",
        "### March service",
        "### September service",
    ]


def test_a_pdf_a_found_note_links_to_is_found_with_it_on_the_linked_page(workspace):
    vault = workspace.settings.vault
    shutil.copy(PDFS / "manual.pdf", vault / "Greenhouse manual.pdf")
    (vault / "Schematic.md").write_text("# Schematic\n\nWhere I filed the schematic: ![[Greenhouse manual.pdf#page=2]]\n", encoding="utf-8")
    workspace.sync()
    hits = workspace.retriever.hybrid("where did I file the schematic", k=4).hits
    paths = [h.chunk.path for h in hits]
    assert len(hits) == 4 and "Greenhouse manual.pdf" in paths, paths  # its own words share nothing with the question
    linked = hits[paths.index("Greenhouse manual.pdf")]
    assert paths[paths.index("Greenhouse manual.pdf") - 1] == "Schematic.md" and linked.linked_from == "Schematic.md"
    assert "p. 2" in linked.chunk.heading_path.split(" › ")  # the page the link names
    assert workspace.retriever.hybrid("sourdough hydration", k=4).hits[0].linked_from is None
    out = CliRunner().invoke(cli, ["search", "where did I file the schematic", "--vault", str(vault), "--db", str(workspace.settings.db_path)])
    assert "linked from Schematic.md" in out.output


def test_a_claim_from_a_pdf_is_checked_against_its_page_and_its_evidence_says_the_page(settings, fake_embedder, srv):
    from rag.chat.openai_chat import OpenAIChat

    shutil.copy(PDFS / "manual.pdf", settings.vault / "Manual.pdf")
    srv.chat_handler = lambda body: (
        "Раз в месяц датчики протирают спиртом [S1]. Датчик заменяют, если показания прыгают больше чем на 50 процентов [S1]."
    )
    chat = OpenAIChat(settings.replace(chat_model="fake-chat", openai_base_url=srv.base_url, request_timeout=5.0, max_retries=0))
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()
        try:
            answer = ask(ws, "Чем и как часто протирают датчики?", chat=chat)
        finally:
            chat.close()
    assert answer.context.get("S1").path == "Manual.pdf"
    right, wrong = answer.claims
    assert right.status == "supported" and wrong.status == "unsupported"
    (evidence,) = answer.to_json()["claims"][0]["evidence"]
    assert evidence["page"] == 2 and evidence["page_lines"] == [2, 2] and "спиртом" in evidence["text"]


def test_a_new_pdf_reading_reads_the_pdfs_again_and_nothing_else(workspace, monkeypatch):
    vault = workspace.settings.vault
    shutil.copy(PDFS / "manual.pdf", vault / "Manual.pdf")
    first = workspace.sync()
    assert workspace.sync().files_updated == 0
    monkeypatch.setattr(pdf, "READING_VERSION", pdf.READING_VERSION + 1)
    pdf._cache.clear()
    again = workspace.sync()
    assert again.files_updated == 1 and again.files_unchanged == first.files_added - 1  # the PDF only
    assert workspace.sync().files_updated == 0


def test_a_table_is_read_as_rows_under_its_header_and_an_answer_quotes_the_row(tmp_path, real_embedder):
    text = read("parts.pdf")
    assert "| Part | Supplier | Price |\n| --- | --- | --- |\n| Capacitive sensor | Robotdyn | 4.50 EUR |" in text
    lines = text.split("\n")
    pump = lines.index("| Peristaltic pump | Kamoer | 12 EUR |") + 1
    assert str(pdf.place(text, pump, pump)) == "p. 1, line 5"  # the delimiter row is not a line of the page
    vault = tmp_path / "vault"
    vault.mkdir()
    shutil.copy(PDFS / "parts.pdf", vault / "Parts.pdf")
    from rag.config import load_settings

    settings = load_settings(vault=vault, db_path=tmp_path / "index.db", env={})
    with Workspace.open(settings, create=True, embedder=real_embedder) as ws:
        ws.sync()
        answer = ask(ws, "How much does the peristaltic pump cost?")
    assert "12 EUR" in answer.text and "Price" in answer.text  # the row, with the header that says what 12 EUR is
    assert str(answer.citations[0].place).startswith("p. 1")


def test_similar_notes_give_a_pdfs_page_most_like_the_note_with_the_real_embedder(tmp_path, real_embedder, monkeypatch):
    from rag.config import load_settings

    vault = tmp_path / "vault"
    vault.mkdir()
    shutil.copy(PDFS / "manual.pdf", vault / "Greenhouse manual.pdf")
    (vault / "Sensor care.md").write_text(
        "# Уход за датчиками\n\nДатчики влажности раз в месяц протирать спиртом, сломанные менять.\n", encoding="utf-8"
    )
    (vault / "Wiring.md").write_text("# Wiring\n\nThe moisture sensors are wired to the ADC pins GPIO 32–35 of the ESP32.\n", encoding="utf-8")
    (vault / "Bread.md").write_text("# Bread\n\nSourdough at 75% hydration, baked at 240 °C.\n", encoding="utf-8")
    settings = load_settings(vault=vault, db_path=tmp_path / "index.db", env={})
    monkeypatch.setattr("rag.workspace.make_embedder", lambda settings: real_embedder)
    args = ["--vault", str(vault), "--db", str(settings.db_path)]
    CliRunner().invoke(cli, ["index", *args], catch_exceptions=False)

    def near(note: str) -> dict:
        out = CliRunner().invoke(cli, ["similar", note, "--json", *args], catch_exceptions=False).output
        return {n["path"]: n for n in json.loads(out)}

    assert near("Sensor care.md")["Greenhouse manual.pdf"]["page"] == 2
    assert near("Wiring.md")["Greenhouse manual.pdf"]["page"] == 1
    assert near("Wiring.md")["Bread.md"]["page"] is None  # a note has no page
    assert near("Greenhouse manual.pdf")["Wiring.md"]["page"] is None  # a PDF's neighbours are asked of it whole
    out = CliRunner().invoke(cli, ["similar", "Sensor care.md", *args], catch_exceptions=False).output
    assert "Greenhouse manual.pdf · p. 2" in out


def test_lines_set_in_a_fixed_pitch_font_are_a_code_block_indented_as_printed_and_its_fences_are_not_lines_of_the_page():
    text = read("code.pdf")
    block = "```\ndef water(bed):\n    if bed.moisture() < DRY_PERCENT:\n        bed.valve.open()\n        # the pump stops itself at 60 percent\n"
    assert block in text
    assert "\n\\```not a fence\n    return bed.valve.close()\n```\n" in text  # a page's own fence-like line cannot close it
    assert "A single line of code stays in its sentence: make flash.\n" in text  # inline code stays in its sentence
    assert "\nmake flash PORT=/dev/ttyUSB0\n" in text  # one line is not a block
    lines = text.split("\n")
    opened = lines.index("        bed.valve.open()") + 1
    assert str(pdf.place(text, opened, opened)) == "p. 1, line 6"  # the fence is not a line of the page
    chunks = chunk_note("Code.pdf", text, count_tokens=lambda s: len(s.split()), target=400, hard=800, min_tokens=1, pages=True)
    assert not any("pump stops" in c.heading_path for c in chunks)  # a comment in the code is no heading
    folder = Path(tempfile.mkdtemp())
    shutil.copy(PDFS / "code.pdf", folder / "Code.pdf")
    shown = passage(folder, "Code.pdf", opened - 3, opened, "\n".join(lines[opened - 4 : opened]))
    assert [(row.number, row.text) for row in shown.lines if row.cited] == [(4, "def water(bed):"), (5, lines[opened - 2]), (6, lines[opened - 1])]
    assert "```" not in [row.text for row in shown.lines]  # the dialog shows the page's lines, not the fences


def test_numbers_set_flush_right_are_a_tables_column_and_an_empty_cell_keeps_the_row_in_its_columns(tmp_path, real_embedder):
    text = read("invoice.pdf")  # an invoice printed by chromium: amounts right-aligned, no borders, empty cells
    table = (
        "| Item | Qty | Unit price | Amount |\n| --- | --- | --- | --- |\n| Capacitive soil sensor | 4 | 4.50 EUR | 18.00 EUR |\n"
        "| Peristaltic pump | 1 | 12.00 EUR | 12.00 EUR |\n| Silicone tube, 5 m | 2 | 3.25 EUR | 6.50 EUR |\n"
        "| Shipping |  |  | 9.90 EUR |\n| Total |  |  | 46.40 EUR |\n"
    )
    assert table in text
    lines = text.split("\n")
    total = lines.index("| Total |  |  | 46.40 EUR |") + 1
    assert str(pdf.place(text, total, total)) == "p. 1, line 8"
    vault = tmp_path / "vault"
    vault.mkdir()
    shutil.copy(PDFS / "invoice.pdf", vault / "Invoice 2026-117.pdf")
    from rag.config import load_settings

    with Workspace.open(load_settings(vault=vault, db_path=tmp_path / "index.db", env={}), create=True, embedder=real_embedder) as ws:
        ws.sync()
        answer = ask(ws, "How many soil sensors did I order?")
    assert "| Item | Qty |" in answer.text and "| Capacitive soil sensor | 4 |" in answer.text  # the row under its own header
