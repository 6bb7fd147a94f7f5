"""End to end in a real browser: `streamlit run app.py` on a free local port over a copy of the fixture vault (real
default embedder, index built by the app itself), driven by Debian's chromium through Playwright. Asks a question,
clicks a citation, and checks the passage and its path; then the same against the local OpenAI-compatible server
to see the answer stream in before it is final."""

from __future__ import annotations

import math
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.openai_server import FakeOpenAI

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parent.parent
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
QUESTION = "What hydration do I keep for white bread?"

if not Path(CHROMIUM).exists():
    pytest.skip(f"{CHROMIUM} is missing (scripts/test.sh installs Debian's chromium when run as root)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -r requirements-dev.txt)")


@pytest.fixture(scope="module")
def vault_copy(tmp_path_factory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("browser")
    shutil.copytree(Path(__file__).parent / "fixtures" / "vault", base / "vault", symlinks=True)
    return base / "vault", base / "index" / "index.db"


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(vault: Path, db: Path, *, cwd: Path = ROOT, **env) -> tuple[subprocess.Popen, str]:
    port = free_port()
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("RAG_", "OPENAI_"))}
    environ.update(RAG_VAULT=str(vault), RAG_DB=str(db), **env)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(ROOT / "app.py"),
            "--server.port",
            str(port),
            "--server.headless",
            "true",
            "--server.fileWatcherType",
            "none",
            "--browser.gatherUsageStats",
            "false",
        ],
        cwd=cwd,
        env=environ,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited: {proc.stderr.read().decode(errors='replace')[-2000:]}")
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                return proc, url
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError("streamlit did not start within 60 s")


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


def ask_and_open_first_citation(page, url: str, question: str = QUESTION) -> None:
    page.goto(url)
    page.get_by_text("Index up to date").wait_for(timeout=120_000)  # the app indexed the vault in the background
    box = page.get_by_placeholder("Ask your notes")
    box.fill(question)
    box.press("Enter")
    citation = page.locator('a[href^="#cite-0-S"]').first
    citation.wait_for(timeout=60_000)
    citation.click()


def test_asking_in_the_browser_and_clicking_a_citation_shows_the_passage_and_its_path(browser, vault_copy):
    proc, url = start_app(*vault_copy)
    try:
        page = browser.new_page(locale="en-US")
        ask_and_open_first_citation(page, url)
        dialog = page.get_by_role("dialog")
        dialog.wait_for(timeout=30_000)
        sync_api.expect(dialog).to_contain_text("Notes/Sourdough.md")
        sync_api.expect(dialog).to_contain_text("I keep the dough at 72% hydration for white bread")
        sync_api.expect(dialog.get_by_role("link", name="Open in Obsidian")).to_have_attribute(
            "href", "obsidian://open?vault=vault&file=Notes%2FSourdough.md"
        )
    finally:
        stop(proc)


def test_a_model_answer_streams_into_the_page_before_it_is_final(browser, vault_copy):
    reply = "For white bread you keep the dough at 72% hydration [S1], and 80% for whole wheat [S1]. A phantom [S42]. Bake at 300 °C [S1]."
    with FakeOpenAI(chunk_size=3) as server:
        server.delay_first_token = 2.0  # the model "thinks" after retrieval is done
        server.delay_per_chunk = 0.08  # ~3 s of streaming
        server.script_chat(reply)
        proc, url = start_app(*vault_copy, RAG_CHAT_MODEL="fake-chat", OPENAI_BASE_URL=server.base_url)
        try:
            page = browser.new_page(locale="en-US")
            page.goto(url)
            page.get_by_text("Index up to date").wait_for(timeout=120_000)
            box = page.get_by_placeholder("Ask your notes")
            box.fill(QUESTION)
            box.press("Enter")
            page.get_by_text("The model is reading", exact=False).first.wait_for(timeout=60_000)  # while it reads the sources
            page.get_by_text("For white bread you keep", exact=False).first.wait_for(timeout=60_000)
            assert page.get_by_text("Sources (").count() == 0  # text is on screen while the answer is still streaming
            page.get_by_text("Sources (").first.wait_for(timeout=60_000)
            sync_api.expect(page.get_by_text("Removed citations that matched no source: S42")).to_be_visible()
            sync_api.expect(page.get_by_text("not in your notes").first).to_be_visible()  # the 300 °C sentence is marked
            page.locator('a[href="#cite-0-S1"]').first.click()
            dialog = page.get_by_role("dialog")
            sync_api.expect(dialog).to_contain_text("Notes/Sourdough.md")
            sync_api.expect(dialog).to_contain_text("72% hydration for white bread")
        finally:
            stop(proc)
        chats = [r for r in server.requests if r["path"].endswith("/chat/completions")]
    assert chats and chats[0]["json"]["stream"] is True


def test_a_russian_browser_in_a_narrow_window_gets_russian_pages_one_tap_apart_and_a_reload_keeps_the_chat(browser, vault_copy):
    proc, url = start_app(*vault_copy)  # language "auto": the browser's
    try:
        page = browser.new_page(viewport={"width": 390, "height": 844}, locale="ru-RU")
        page.goto(url)
        page.get_by_text("Индекс в порядке").wait_for(state="attached", timeout=120_000)  # in the folded sidebar
        sync_api.expect(page.get_by_role("heading", name="Спросите свои заметки")).to_be_visible(timeout=30_000)
        box = page.get_by_placeholder("Спросите заметки")
        box.fill(QUESTION)
        box.press("Enter")
        page.locator('a[href^="#cite-0-S"]').first.wait_for(timeout=60_000)
        sync_api.expect(page.get_by_text("Источники (").first).to_be_visible(timeout=30_000)
        page.wait_for_function("() => location.search.includes('chat=')", timeout=30_000)
        page.reload()  # the conversation comes back from its file, citations and all
        page.locator('a[href^="#cite-0-S"]').first.wait_for(timeout=60_000)
        # in the chat itself: the folded sidebar's list of conversations names it too, hidden at this width
        sync_api.expect(page.get_by_role("main").get_by_text(QUESTION).first).to_be_visible(timeout=30_000)
        page.locator(".st-key-rag_narrow_nav").get_by_role("link", name="Поиск").click()  # the links row of a narrow window
        sync_api.expect(page.get_by_role("heading", name="Поиск")).to_be_visible(timeout=30_000)

        wide = browser.new_page(viewport={"width": 1280, "height": 900}, locale="en-US")
        wide.goto(url)
        sync_api.expect(wide.get_by_role("heading", name="Ask your vault")).to_be_visible(timeout=60_000)
        sync_api.expect(wide.locator(".st-key-rag_narrow_nav")).to_be_hidden(timeout=30_000)  # the sidebar holds the pages here
        field = _open_settings(wide)
        sync_api.expect(field).to_have_value(str(vault_copy[0]), timeout=30_000)
        assert field.evaluate("el => el.scrollWidth <= el.clientWidth")  # the whole path shows, wrapped, none cut off
    finally:
        stop(proc)


def test_one_click_on_russian_switches_the_sidebar_and_the_page_without_apply(browser, vault_copy):
    proc, url = start_app(*vault_copy, RAG_UI_LANGUAGE="en")
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 900}, locale="en-US")
        page.goto(url)
        page.get_by_text("Index up to date").wait_for(timeout=120_000)
        _open_settings(page)
        russian = page.get_by_role("radio", name="Русский")
        russian.click()  # one click, and no "Apply"
        sync_api.expect(page.get_by_role("heading", name="Спросите свои заметки")).to_be_visible(timeout=30_000)
        sidebar = page.get_by_test_id("stSidebar")
        sync_api.expect(sidebar.get_by_text("Настройки", exact=True)).to_be_visible()  # beside «Забыть эти настройки»: the language is kept
        sync_api.expect(sidebar.get_by_role("link", name="Поиск")).to_be_visible()
        sync_api.expect(sidebar.get_by_text("Индекс в порядке")).to_be_visible()
        sync_api.expect(sidebar.get_by_role("textbox", name="Папка с заметками")).to_be_visible()  # the panel stayed open
        sync_api.expect(page.get_by_placeholder("Спросите заметки")).to_be_visible()
        assert page.get_by_text("Ask your vault").count() == 0 and page.get_by_text("Settings", exact=True).count() == 0
    finally:
        stop(proc)


class PixelServer:
    """A local image host: every request it receives is one the browser should never have made."""

    def __init__(self) -> None:
        import http.server
        import threading

        self.requests: list[str] = []
        seen = self.requests

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - the stdlib's name
                seen.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()


def test_images_planted_in_notes_and_in_a_model_reply_are_never_fetched(browser, tmp_path):
    pixel = PixelServer()
    vault = tmp_path / "vault"
    shutil.copytree(Path(__file__).parent / "fixtures" / "vault", vault, symlinks=True)
    planted = (
        f'---\ntitle: "Hotel ![t]({pixel.base}/title.png)"\n---\n# Hotel\n\n## Prices ![h]({pixel.base}/heading.png)\n\n'
        f'The Lakeside hotel costs 5200 per night ![b]({pixel.base}/body.png) and <img src="{pixel.base}/raw.png">.\n'
    )
    (vault / "Notes" / "Hotel.md").write_text(planted, encoding="utf-8")
    (vault / "Notes" / "Hotel copy.md").write_text(planted, encoding="utf-8")  # a duplicate pair, titles and all
    reply = f"The Lakeside hotel costs 5200 per night [S1]. ![s]({pixel.base}/reply.png?d=private) [S1]"
    with FakeOpenAI(chunk_size=4) as model:
        model.script_chat(reply)
        proc, url = start_app(vault, tmp_path / "index" / "index.db", RAG_CHAT_MODEL="fake-chat", OPENAI_BASE_URL=model.base_url)
        try:
            page = browser.new_page(locale="en-US")
            page.goto(url)
            page.get_by_text("Index up to date").wait_for(timeout=120_000)
            box = page.get_by_placeholder("Ask your notes")
            box.fill("How much does the Lakeside hotel cost?")
            box.press("Enter")
            page.get_by_text("Sources (").first.wait_for(timeout=60_000)
            sync_api.expect(page.get_by_text(f"({pixel.base}/reply.png?d=private)", exact=False).first).to_be_visible()  # as text
            page.locator('a[href^="#cite-0-S"]').first.click()
            dialog = page.get_by_role("dialog")
            sync_api.expect(dialog).to_contain_text("Lakeside hotel costs 5200")
            page.keyboard.press("Escape")
            page.get_by_role("link", name="Search").first.click()
            query = page.get_by_placeholder("sqlite wal")
            query.fill("Lakeside hotel")
            query.press("Enter")
            sync_api.expect(page.get_by_text("Hotel.md", exact=False).first).to_be_visible(timeout=30_000)
            page.get_by_role("link", name="Duplicates").first.click()
            sync_api.expect(page.get_by_text("Hotel copy.md", exact=False).first).to_be_visible(timeout=60_000)
            page.wait_for_timeout(1500)  # time for any image to be asked for
        finally:
            stop(proc)
            pixel.close()
    assert pixel.requests == []


def test_a_secrets_file_in_the_folder_the_app_starts_from_cannot_redirect_the_key(browser, vault_copy, tmp_path):
    with FakeOpenAI() as attacker:
        attacker.script_chat("Sent to the attacker [S1].")
        cloned = tmp_path / "cloned-repo"
        (cloned / ".streamlit").mkdir(parents=True)
        (cloned / ".streamlit" / "secrets.toml").write_text(f'OPENAI_BASE_URL = "{attacker.base_url}"\nRAG_CHAT_MODEL = "evil"\n', encoding="utf-8")
        proc, url = start_app(*vault_copy, cwd=cloned, OPENAI_API_KEY="sk-the-users-own")
        try:
            page = browser.new_page(locale="en-US")
            page.goto(url)
            page.get_by_text("Index up to date").wait_for(timeout=120_000)
            sync_api.expect(page.get_by_text("Not read:", exact=False).first).to_be_visible()
            box = page.get_by_placeholder("Ask your notes")
            box.fill(QUESTION)
            box.press("Enter")
            page.get_by_text("Sources (").first.wait_for(timeout=60_000)
            sync_api.expect(page.get_by_text("Extractive", exact=False).first).to_be_visible()  # no model: quotes of the notes
        finally:
            stop(proc)
        assert attacker.requests == []  # neither the key nor a passage went there


def test_links_addresses_and_a_30000_character_word_from_notes_and_a_reply(browser, tmp_path):
    vault = tmp_path / "vault"
    shutil.copytree(Path(__file__).parent / "fixtures" / "vault", vault, symlinks=True)
    word = "Lakeside" + "x" * 30_000
    name = "Contact www.hotel-example.org.md"
    (vault / "Notes" / name).write_text(
        '---\ntitle: "Booking at www.title-example.org"\n---\n# Lakeside hotel\n\n'
        f"## Desk desk@hotel-example.org or https://hotel-example.org/book, room {'Y' * 3000}\n\n"
        f"The Lakeside hotel costs 5200 per night. Its booking code is {word}.\n",
        encoding="utf-8",
    )
    note_link = "obsidian://open?vault=vault&file=Notes%2FSourdough.md"
    actions = (
        "[a](obsidian://new?vault=vault&file=Notes%2FSourdough&content=x&overwrite=true) "
        "[b](obsidian://advanced-uri?vault=vault&commandid=app%253Areload) [c](obsidian://open?vault=other&file=a.md)"
    )
    reply = [f"The Lakeside hotel costs 5200 per night [S1]. See [Sourdough]({note_link}), not {actions}. Code: ", word, " [S1]."]
    with FakeOpenAI() as model:
        model.script_chat(reply)
        proc, url = start_app(vault, tmp_path / "index" / "index.db", RAG_CHAT_MODEL="fake-chat", OPENAI_BASE_URL=model.base_url)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900}, locale="en-US")
            page.goto(url)
            page.get_by_text("Index up to date").wait_for(timeout=120_000)
            box = page.get_by_placeholder("Ask your notes")
            box.fill("How much does the Lakeside hotel cost?")
            box.press("Enter")
            page.get_by_text("Sources (").first.wait_for(timeout=60_000)
            # The one note link of the reply keeps its address (st.html took it out of the href; the page puts it back).
            sync_api.expect(page.locator(".rag-answer a", has_text="Sourdough")).to_have_attribute("href", note_link, timeout=10_000)
            sync_api.expect(
                page.locator(".rag-answer").get_by_text("(obsidian://new?vault=vault&file=Notes%2FSourdough&content=x&overwrite=true)")
            ).to_be_visible()
            page.get_by_text("Sources (").first.click()  # the path and heading, with their addresses, on screen
            sync_api.expect(page.get_by_text("desk@", exact=False).first).to_be_visible()
            _no_foreign_links_and_no_sideways_scroll(page)
            page.locator('a[href="#cite-0-S1"]').first.click()
            dialog = page.get_by_role("dialog")
            sync_api.expect(dialog).to_contain_text("5200 per night")
            sync_api.expect(dialog.get_by_role("link", name="Open in Obsidian")).to_have_attribute(
                "href", "obsidian://open?vault=vault&file=Notes%2FContact%20www.hotel-example.org.md"
            )
            _no_foreign_links_and_no_sideways_scroll(page)
            page.keyboard.press("Escape")
            page.get_by_role("link", name="Search").first.click()
            query = page.get_by_placeholder("sqlite wal")
            query.fill("Lakeside hotel")
            query.press("Enter")
            sync_api.expect(page.get_by_text("title-example.org", exact=False).first).to_be_visible(timeout=30_000)
            _no_foreign_links_and_no_sideways_scroll(page)
        finally:
            stop(proc)


def _no_foreign_links_and_no_sideways_scroll(page) -> None:
    """Every link on the page goes to the page, the app, or a note of this vault in Obsidian; nothing is wider than
    the window."""
    hrefs = page.evaluate("() => Array.from(document.querySelectorAll('a[href]'), a => a.href)")  # resolved
    own = (page.evaluate("() => location.origin") + "/", "obsidian://open?vault=vault&file=")
    assert not [h for h in hrefs if not h.startswith(own)], hrefs
    # Streamlit scrolls its main area itself: the document, that area, each answer and a dialog must all fit.
    boxes = "document.scrollingElement, ...document.querySelectorAll('[data-testid=stMain], [data-testid=stMainBlockContainer], .rag-answer, [role=dialog]')"
    wide = page.evaluate(f"() => [{boxes}].filter(b => b.scrollWidth > b.clientWidth + 1).map(b => b.className + ' ' + b.scrollWidth)")
    assert not wide, wide


def _open_settings(page):
    """The sidebar's Settings, opened and ready to type in. A click on the title toggles the panel, so it is clicked
    only while the panel is shut (a click while it is open, or while a rerun still folds it, would shut it), and the
    field is waited for until it takes input: a folding panel's field is still visible for a moment, but inert."""
    field = page.get_by_role("textbox", name="Vault folder")
    panel = page.get_by_test_id("stSidebar").get_by_test_id("stExpander").filter(has_text="Settings").locator("details").first
    for _ in range(5):
        if panel.get_attribute("open") is None:
            panel.locator("summary").click()
        try:
            sync_api.expect(field).to_be_editable(timeout=10_000)
            return field
        except AssertionError:
            continue
    raise AssertionError("the Settings panel did not open")


def test_a_vault_chosen_in_settings_survives_a_reload_and_a_restart_of_the_app(browser, vault_copy, tmp_path):
    other = tmp_path / "tea-notes"
    other.mkdir()
    (other / "Tea.md").write_text("# Tea\n\nPu-erh is brewed at 95 degrees for thirty seconds.\n", encoding="utf-8")
    proc, url = start_app(*vault_copy)  # RAG_VAULT: the fixture vault, the base a restart starts from again
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 900}, locale="en-US")
        page.goto(url)
        page.get_by_text("Index up to date").wait_for(timeout=120_000)
        sidebar = page.get_by_test_id("stSidebar")
        for _ in range(3):  # a fill or a click that lands while the page still reruns is undone by the rerun
            try:
                _open_settings(page).fill(str(other), timeout=10_000)
                page.get_by_role("button", name="Apply").click(timeout=10_000)
                sidebar.get_by_text("Vault · tea-notes").wait_for(timeout=30_000)
                break
            except sync_api.TimeoutError:
                continue
        sync_api.expect(sidebar.get_by_text("Vault · tea-notes")).to_be_visible(timeout=60_000)
        page.reload()
        sync_api.expect(sidebar.get_by_text("Vault · tea-notes")).to_be_visible(timeout=60_000)
        sync_api.expect(_open_settings(page)).to_have_value(str(other.resolve()), timeout=30_000)
    finally:
        stop(proc)
    proc, url = start_app(*vault_copy)
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 900}, locale="en-US")
        page.goto(url)
        sync_api.expect(page.get_by_test_id("stSidebar").get_by_text("Vault · tea-notes")).to_be_visible(timeout=60_000)
    finally:
        stop(proc)


def test_a_citation_of_a_pdf_opens_its_page_with_the_lines_numbered_as_on_it(browser, tmp_path):
    vault = tmp_path / "vault"
    vault.mkdir()
    shutil.copy(Path(__file__).parent / "fixtures" / "pdf" / "manual.pdf", vault / "Greenhouse manual.pdf")
    (vault / "Garden.md").write_text("# Garden\n\nThe tomatoes go in the east bed.\n", encoding="utf-8")
    proc, url = start_app(vault, tmp_path / "index" / "index.db")
    try:
        page = browser.new_page(locale="en-US")
        ask_and_open_first_citation(page, url, "Чем протирают датчики раз в месяц?")
        dialog = page.get_by_role("dialog")
        dialog.wait_for(timeout=30_000)
        sync_api.expect(dialog).to_contain_text("Greenhouse manual.pdf")
        sync_api.expect(dialog).to_contain_text("p. 2, lines")
        sync_api.expect(dialog).to_contain_text("Раз в месяц датчики протирают спиртом")
        dialog.get_by_text("Page 2 as printed").click()  # the page itself, drawn
        sync_api.expect(dialog.locator("img").first).to_be_visible(timeout=30_000)
        sync_api.expect(dialog.get_by_role("link", name="Open in Obsidian")).to_have_attribute(
            "href", "obsidian://open?vault=vault&file=Greenhouse%20manual.pdf%23page%3D2"
        )
    finally:
        stop(proc)


def test_two_browsers_each_see_only_their_own_conversations(browser, vault_copy):
    proc, url = start_app(*vault_copy)
    try:
        mine = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")  # a browser: its own cookies
        page = mine.new_page()
        ask_and_open_first_citation(page, url)
        page.wait_for_function("() => location.search.includes('chat=')", timeout=30_000)
        chat = page.evaluate("() => new URLSearchParams(location.search).get('chat')")
        history = page.get_by_test_id("stSidebar").get_by_role("button", name=QUESTION)
        sync_api.expect(history).to_be_visible(timeout=30_000)

        theirs = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
        other = theirs.new_page()
        other.goto(url)
        other.get_by_text("Index up to date").wait_for(timeout=60_000)
        sync_api.expect(other.get_by_text("No saved conversations yet.")).to_be_attached(timeout=30_000)  # folded: none
        other.goto(f"{url}/?chat={chat}")  # even with the link to it
        sync_api.expect(other.get_by_role("heading", name="Ask your vault")).to_be_visible(timeout=30_000)
        other.get_by_text("Index up to date").wait_for(timeout=60_000)
        sync_api.expect(other.get_by_text("No saved conversations yet.")).to_be_attached(timeout=30_000)  # folded: none
        other.get_by_placeholder("Ask your notes").wait_for(timeout=30_000)  # drawn after the chat, were there one
        assert other.get_by_text(QUESTION).count() == 0

        again = mine.new_page()  # a new tab of the first browser, without the link: the cookie says whose it is
        again.goto(url)
        again.get_by_text("Index up to date").wait_for(timeout=60_000)
        sync_api.expect(again.get_by_test_id("stSidebar").get_by_role("button", name=QUESTION)).to_be_visible(timeout=30_000)
        mine.close()
        theirs.close()
    finally:
        stop(proc)


# Lines of `text` as the grid wraps it in `width` px (glide-data-grid: at the last space that fits, else between
# characters), measured with the font the grid draws with.
_GRID_LINES = """([texts, width, font]) => {
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = font;
  const fits = (s) => ctx.measureText(s).width <= width;
  return texts.map((text) => {
    let lines = 0, rest = text;
    while (rest.length) {
      lines += 1;
      if (fits(rest)) break;
      let n = 1;
      while (n < rest.length && fits(rest.slice(0, n + 1))) n += 1;
      const space = rest.lastIndexOf(' ', n);
      if (rest[n] !== ' ' && space > 0) n = space;
      rest = rest.slice(n).trimStart();
    }
    return lines;
  });
}"""


_GRID = """() => {
  const grid = document.querySelector('[data-testid=stDataFrame]');
  const scroller = grid.querySelector('.dvn-scroller');
  const heads = [...grid.querySelectorAll('table[role=grid] thead th')].map((th) => th.textContent);
  const rows = [...grid.querySelectorAll('table[role=grid] tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent));
  const style = getComputedStyle(grid.querySelector('.stDataFrameGlideDataEditor'));
  return {
    heads, rows,
    height: grid.querySelector('canvas').getBoundingClientRect().height,
    overflow: [scroller.scrollWidth - scroller.clientWidth, scroller.scrollHeight - scroller.clientHeight],
    font: `${style.getPropertyValue('--gdg-base-font-style')} ${style.getPropertyValue('--gdg-font-family')}`,
  };
}"""


def test_a_quotes_wikilinks_read_as_names_and_similar_notes_show_whole_paths_at_1280_px(browser, tmp_path):
    import importlib

    from rag.web import table_fit

    widths = importlib.import_module("app_pages.similar").WIDTHS
    vault = tmp_path / "vault"
    shutil.copytree(Path(__file__).parent / "fixtures" / "vault", vault, symlinks=True)
    (vault / "Notes" / "Flour.md").write_text("# Mill\n\nT55 and T65.\n", encoding="utf-8")
    long_path = "Projects/Alpha/Decisions/2026-05-02 Move the sensor logger to the Raspberry Pi in the greenhouse.md"
    (vault / long_path).write_text((vault / "CONTEXT.md").read_text(encoding="utf-8") + "\nAlso in Kazan.\n", encoding="utf-8")
    proc, url = start_app(vault, tmp_path / "index" / "index.db")
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 900}, locale="en-US")
        page.goto(url)
        page.get_by_text("Index up to date").wait_for(timeout=120_000)
        box = page.get_by_placeholder("Ask your notes")
        box.fill("Where are my tools and flour?")
        box.press("Enter")
        answer = page.locator(".rag-answer").first
        sync_api.expect(answer).to_contain_text("See my tools and Flour.", timeout=60_000)
        flour = "obsidian://open?vault=vault&file=Notes%2FFlour.md"
        sync_api.expect(answer.locator("a", has_text="Flour")).to_have_attribute("href", flour, timeout=10_000)
        assert "[[" not in answer.inner_text()
        page.get_by_role("link", name="Similar notes").first.click()  # the same page load: the app's own navigation
        page.locator('[data-testid="stDataFrame"] table[role=grid] tbody tr').first.wait_for(state="attached", timeout=60_000)
        grid = page.evaluate(_GRID)
        paths = [row[grid["heads"].index("Path")] for row in grid["rows"]]
        assert long_path in paths, paths
        assert grid["overflow"] == [0, 0], "every column and row is in sight, none scrolled out of the table"
        row = (grid["height"] - table_fit.HEADER_PX) / len(grid["rows"])
        fits = math.floor((row - table_fit.PADDING_Y - table_fit.FONT_PX) / table_fit.LINE_PX) + 1
        for column, head in (("path", "Path"), ("note", "Note"), ("closeness", "How close")):
            texts = [r[grid["heads"].index(head)] for r in grid["rows"]]
            lines = page.evaluate(_GRID_LINES, [texts, widths[column] - 2 * table_fit.PADDING_X, grid["font"]])
            assert max(lines) <= fits, f"{column}: {list(zip(texts, lines))} in rows of {row:.0f} px hold {fits} lines"
    finally:
        stop(proc)
