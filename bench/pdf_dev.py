"""PDFs beside notes: a dev vault of real documentation printed to PDF, and how search and offline answers do on it.

    python bench/pdf_dev.py make     # the vault in $RAG_DEV_CACHE/pdf-dev (chromium prints the PDFs), pages.jsonl
    python bench/pdf_dev.py score [--json]

`make` prints ten pages of the FastAPI docs (five English, five Russian; eval data, so the vault stays outside the
repository) to PDF with chromium, as a person saves a page they read, adds a scanned page (an image, no text) and
a broken file, and puts the rest of the FastAPI docs beside them as Markdown notes. It writes each PDF's pages as
the product reads them (`pages.jsonl`) for whoever writes the questions: bench/pdf_dev/questions.jsonl, written by a
reader who never read the code, each with its PDF, the page and the lines on that page that answer it, and the key.

`score` indexes the vault with the default embedder, then per question: hit@5 (a passage of the gold PDF on the gold
page among the first five), and the extractive answer (no chat model) holding the key with its first citation on the
gold page. Also the time and peak memory to index the vault, and what was skipped with why.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rag.eval.data import EVAL_DATA

sys.path.insert(0, str(Path(__file__).resolve().parent))

from markdown_it import MarkdownIt  # noqa: E402

ROOT = Path(os.environ.get("RAG_DEV_CACHE", "/tmp/rag-dev")) / "pdf-dev"
VAULT = ROOT / "vault"
QUESTIONS = Path(__file__).resolve().parent / "pdf_dev" / "questions.jsonl"
DOCS = EVAL_DATA / "qa" / "fastapi-docs"
PRINTED = {
    "en": ["deployment/docker.md", "deployment/concepts.md", "advanced/behind-a-proxy.md", "tutorial/sql-databases.md", "deployment/https.md"],
    "ru": [
        "tutorial/bigger-applications.md",
        "tutorial/response-model.md",
        "advanced/settings.md",
        "tutorial/dependencies/dependencies-with-yield.md",
        "tutorial/security/oauth2-jwt.md",
    ],
}
STYLE = "body{font-family:'DejaVu Sans';font-size:11pt} pre{white-space:pre-wrap;font-size:9pt} table{border-collapse:collapse}"


def make(as_markdown: bool = False) -> None:
    """`as_markdown`: the ten documents as their Markdown originals instead of PDFs (the same place and name), the
    reference the PDFs are measured against."""
    shutil.rmtree(ROOT, ignore_errors=True)
    VAULT.mkdir(parents=True)
    printed = set()
    md = MarkdownIt("commonmark").enable("table")
    with tempfile.TemporaryDirectory() as tmp:
        for lang, paths in PRINTED.items():
            for rel in paths:
                text = (DOCS / f"vault-{lang}" / rel).read_text(encoding="utf-8")
                printed.add(rel)
                if as_markdown:
                    out = VAULT / "PDF" / lang / (Path(rel).stem + ".md")
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_text(text, encoding="utf-8")
                    continue
                html = f'<html lang="{lang}"><head><meta charset="utf-8"><title>{Path(rel).stem}</title><style>{STYLE}</style></head><body>{md.render(text)}</body></html>'
                page = Path(tmp) / "page.html"
                page.write_text(html, encoding="utf-8")
                out = VAULT / "PDF" / lang / (Path(rel).stem + ".pdf")
                out.parent.mkdir(parents=True, exist_ok=True)
                _print(page, out)
        scan = Path(tmp) / "scan.html"
        scan.write_text('<html><body><img src="data:image/png;base64,' + _png_b64() + '" width="600"></body></html>', encoding="utf-8")
        _print(scan, VAULT / "PDF" / "scanned receipt.pdf")
    (VAULT / "PDF" / "broken download.pdf").write_bytes(b"%PDF-1.7\n% the download stopped here")
    for lang in PRINTED:
        for f in sorted((DOCS / f"vault-{lang}").rglob("*.md")):
            rel = f.relative_to(DOCS / f"vault-{lang}").as_posix()
            if rel not in printed:  # nor its translation: the answers are only in the ten documents
                target = VAULT / "Docs" / lang / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(f, target)
    if as_markdown:
        return
    from rag.notes.vault import read_note

    with (ROOT / "pages.jsonl").open("w", encoding="utf-8") as out:
        for pdf in sorted((VAULT / "PDF").rglob("*.pdf")):
            rel = pdf.relative_to(VAULT).as_posix()
            try:
                text = read_note(VAULT, rel).text
            except Exception as exc:  # noqa: BLE001 — the skipped ones are part of the set
                print(f"{rel}: {exc}", file=sys.stderr)
                continue
            for page, lines in _pages(text).items():
                out.write(json.dumps({"pdf": rel, "page": page, "lines": lines}, ensure_ascii=False) + "\n")
    print(f"vault: {VAULT}; pages: {ROOT / 'pages.jsonl'}", file=sys.stderr)


def _pages(text: str) -> dict[int, list[str]]:
    """Each page's lines as the PDF shows them, numbered as citations number them (rag/notes/pdf.py `place`)."""
    from rag.notes.pdf import PAGE_HEADING, printed

    pages: dict[int, list[str]] = {}
    current = None
    for line in text.split("\n"):
        m = PAGE_HEADING.match(line)
        if m:
            current = pages.setdefault(int(m.group(1)), [])
        elif current is not None and printed(line):
            current.append(line.lstrip("#").strip() if line.startswith("#") else line)
    return pages


def _print(html: Path, pdf: Path) -> None:
    subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer", f"--print-to-pdf={pdf}", str(html)],
        check=True,
        capture_output=True,
        timeout=120,
    )


def _png_b64() -> str:
    import base64
    import struct
    import zlib

    w, h = 300, 120
    raw = b"".join(b"\x00" + bytes(200 if (x // 12 + y // 12) % 2 else 50 for x in range(w)) for y in range(h))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    png = (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    )
    return base64.b64encode(png).decode()


def score() -> dict:
    from rag.answer.ask import ask
    from rag.config import load_settings
    from rag.embed.embedders import LocalEmbedder
    from rag.notes import pdf as pdfs
    from rag.notes.vault import read_note
    from rag.workspace import Workspace

    questions = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    db = ROOT / "index.db"
    for stale in ROOT.glob("index.db*"):
        stale.unlink()
    settings = load_settings(vault=VAULT, db_path=db, env={})
    embedder = LocalEmbedder()
    started = time.perf_counter()
    with Workspace.open(settings, create=True, embedder=embedder) as ws:
        report = ws.sync()
    seconds = time.perf_counter() - started
    texts = {}
    hits5 = key = on_page = 0
    rows = []
    with Workspace.open(settings, embedder=embedder) as ws:
        for q in questions:
            found = []
            for hit in ws.retriever.hybrid(q["question"], k=5).hits:
                c = hit.chunk
                if c.path not in texts:
                    texts[c.path] = read_note(VAULT, c.path).text if c.path.endswith(".pdf") else ""
                where = pdfs.place(texts[c.path], c.start_line, c.end_line) if texts[c.path] else None
                found.append((c.path, where))
            markdown = q["pdf"].removesuffix(".pdf") + ".md"
            hit = any(p == q["pdf"] and w is not None and w.page <= q["page"] <= w.end_page or p == markdown for p, w in found)
            answer = ask(ws, q["question"])
            first = answer.citations[0] if answer.citations else None
            said = answer.text.casefold()
            has_key = not answer.not_found and all(any(k.casefold() in said for k in group) for group in q["keys"])
            cited = first is not None and (
                first.path == q["pdf"] and first.place is not None and first.place.page <= q["page"] <= first.place.end_page or first.path == markdown
            )
            hits5, key, on_page = hits5 + hit, key + has_key, on_page + cited
            rows.append({"id": q["id"], "hit@5": hit, "key": has_key, "cited_page": cited, "first": first and f"{first.path} {first.place}"})
    n = len(questions)
    by_lang = {}
    for lang in ("en", "ru"):
        sub = [r for r, q in zip(rows, questions) if q["lang"] == lang]
        by_lang[lang] = {k: round(sum(r[k] for r in sub) / len(sub), 3) if sub else None for k in ("hit@5", "key", "cited_page")} | {
            "questions": len(sub)
        }
    return {
        "questions": n,
        "hit@5": round(hits5 / n, 3),
        "answer_key": round(key / n, 3),
        "first_citation_on_gold_page": round(on_page / n, 3),
        "by_language": by_lang,
        "index_seconds": round(seconds, 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "pdf_children_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024),
        "files": {"added": report.files_added, "skipped": dict(report.skipped)},
        "misses": [r for r in rows if not (r["hit@5"] and r["key"] and r["cited_page"])],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["make", "score"])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--as-markdown", action="store_true", help="make: the documents as Markdown, the reference (hits are then on the document)")
    args = parser.parse_args()
    if args.command == "make":
        make(args.as_markdown)
        return
    report = score()
    print(json.dumps(report, ensure_ascii=False, indent=2) if args.json else report)


if __name__ == "__main__":
    main()
