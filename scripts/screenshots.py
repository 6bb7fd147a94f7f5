"""Screenshots of every page of the app, in English and Russian, as a person sees them (for reviews and reports).

    .venv/bin/python scripts/screenshots.py --out /tmp/shots [--vault DIR] [--db FILE] [--width 1280]

Starts `streamlit run app.py` on a free port (the demo vault unless --vault), waits for the index, asks one
question, opens a cited passage, and saves `<page>-<language>.png` for Ask, the passage, Search, Memory, Similar
notes, Duplicates and Index, plus `search-filters-<language>.png` (the Search page with its filters open) and
`ask-narrow-<language>.png` at phone width. Needs Debian's chromium and playwright.

    OPENAI_BASE_URL=… OPENAI_API_KEY=… RAG_CHAT_MODEL=… .venv/bin/python scripts/screenshots.py --out DIR --checked

`--checked`: only the Ask page with the chat model of the environment: the answer with "How each sentence was
checked" open (each claim, its status and the lines that state it), `ask-checked-<language>.png`.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]  # fmt: skip
WORDS = {  # what to wait for and click, per language
    "en": {"ready": "Index up to date", "ask": "Ask your notes", "question": "What hydration do I use for my sourdough?",
           "pages": ["Search", "Memory", "Similar notes", "Duplicates", "Index"], "search": "Search your notes", "query": "hydration", "filters": "Filters",
           "checked": "How each sentence was checked"},
    "ru": {"ready": "Индекс в порядке", "ask": "Спросите заметки", "question": "Когда я ездил на Байкал и сколько это стоило?",
           "pages": ["Поиск", "Память", "Похожие", "Дубликаты", "Индекс"], "search": "Поиск по заметкам", "query": "Байкал", "filters": "Фильтры",
           "checked": "Как проверено каждое предложение"},
}  # fmt: skip


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(language: str, vault: Path | None, db: Path, *, model: bool = False) -> tuple[subprocess.Popen, str]:
    port = free_port()
    kept = ("OPENAI_", "RAG_CHAT_MODEL") if model else ()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAG_", "OPENAI_")) or k.startswith(kept)}
    env.update(RAG_DB=str(db), RAG_UI_LANGUAGE=language, **({"RAG_VAULT": str(vault)} if vault else {}))
    env["XDG_DATA_HOME"] = str(db.parent / "data")  # not the choices you saved in your own app's Settings
    command = [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.port", str(port), "--server.headless", "true",
               "--browser.gatherUsageStats", "false"]  # fmt: skip
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            urllib.request.urlopen(f"{url}/_stcore/health", timeout=2)
            return proc, url
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit("streamlit did not start")


def shoot(browser, url: str, language: str, out: Path, width: int) -> None:
    words = WORDS[language]
    page = browser.new_page(viewport={"width": width, "height": 900}, locale=f"{language}-{language.upper()}")
    page.goto(url)
    page.get_by_text(words["ready"]).wait_for(timeout=1_800_000)  # a first index of a big vault takes minutes
    page.screenshot(path=out / f"ask-empty-{language}.png", full_page=True)
    box = page.get_by_placeholder(words["ask"])
    box.fill(words["question"])
    box.press("Enter")
    page.locator('a[href^="#cite-0-S"]').first.wait_for(timeout=120_000)
    page.wait_for_timeout(1500)
    page.screenshot(path=out / f"ask-{language}.png", full_page=True)
    page.locator('a[href^="#cite-0-S"]').first.click()
    page.get_by_role("dialog").wait_for(timeout=30_000)
    page.wait_for_timeout(800)
    page.screenshot(path=out / f"passage-{language}.png")
    page.keyboard.press("Escape")
    for slug, name in zip(("search", "memory", "similar", "duplicates", "index"), words["pages"]):
        page.locator('[data-testid="stSidebarNav"]').get_by_text(name, exact=True).click()
        page.wait_for_timeout(2500)
        if name == words["pages"][0]:
            field = page.get_by_role("textbox", name=words["search"])
            field.fill(words["query"])
            field.press("Enter")
            page.wait_for_timeout(2500)
        page.screenshot(path=out / f"{slug}-{language}.png", full_page=True)
        if name == words["pages"][0]:  # the filters open: their empty state and the date field's order
            page.get_by_text(words["filters"], exact=True).first.click()
            page.wait_for_timeout(1000)
            page.screenshot(path=out / f"search-filters-{language}.png")
            page.get_by_text(words["filters"], exact=True).first.click()
    narrow = browser.new_page(viewport={"width": 390, "height": 844}, locale=f"{language}-{language.upper()}")
    narrow.goto(url)
    narrow.get_by_placeholder(words["ask"]).wait_for(timeout=120_000)
    narrow.wait_for_timeout(1500)
    narrow.screenshot(path=out / f"ask-narrow-{language}.png")


def shoot_checked(browser, url: str, language: str, out: Path, width: int) -> None:
    """A chat model's answer with each claim's evidence open, as a person checks it."""
    words = WORDS[language]
    page = browser.new_page(viewport={"width": width, "height": 900}, locale=f"{language}-{language.upper()}")
    page.goto(url)
    page.get_by_text(words["ready"]).wait_for(timeout=1_800_000)
    box = page.get_by_placeholder(words["ask"])
    box.fill(words["question"])
    box.press("Enter")
    page.get_by_text(words["checked"]).first.wait_for(timeout=600_000)  # a local model on 2 cores: minutes
    page.get_by_text(words["checked"]).first.click()
    page.wait_for_timeout(1500)
    page.screenshot(path=out / f"ask-checked-{language}.png", full_page=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--vault", type=Path)
    parser.add_argument("--db", type=Path, help="index file (default: <out>/index/index.db)")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--checked", action="store_true", help="only the answer of the environment's chat model, its claims' evidence open")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    db = args.db or args.out / "index" / "index.db"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        for language in ("en", "ru"):
            proc, url = start(language, args.vault, db, model=args.checked)
            try:
                (shoot_checked if args.checked else shoot)(browser, url, language, args.out, args.width)
            finally:
                proc.terminate()
                proc.wait(10)
        browser.close()
    print("\n".join(sorted(str(p) for p in args.out.glob("*.png"))))


if __name__ == "__main__":
    main()
