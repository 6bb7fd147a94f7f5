"""Hostile PDFs against the bounded reader: what each costs, and that the rest of a vault is indexed.

    python bench/pdf_hostile.py [--json]

Builds each PDF here (nothing downloaded): a decompression bomb (1.5 MB inflating to 500 MB of text operators),
objects nested 200,000 deep (a dictionary and an array in the page, and a page tree 50,000 levels deep), a page
75 km wide (the largest MediaBox with UserUnit 75) both read and drawn, a reference loop (an object that is itself,
an outline whose entry is its own next), 2 million text-show operators on one page, and 2,001 pages. Each is read
through the product's path (`rag.notes.pdf.read_pdf`: the child process with its 60 s and 2 GB bounds) in a
process of its own, which reports the outcome (read, or skipped with the reason), the seconds and the reader's
peak memory (the child's maximum resident set). Then a vault of all of them and one readable PDF is synced: the
readable one is found, every hostile one is listed as skipped or read, and the sync's time is given.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

from rag.devtools import hostile_pdfs
from rag.devtools.hostile_pdfs import FONT, pdf_file

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "pdf" / "manual.pdf"


def stream(data: bytes, *, deflate: bool = False) -> bytes:
    if deflate:
        packer = zlib.compressobj(9)
        data = packer.compress(data) + packer.flush()
        return b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(data) + data + b"\nendstream"
    return b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"


def one_page(content: bytes, *, page_extra: bytes = b"", mediabox: bytes = b"[0 0 612 792]", deflate: bool = False) -> bytes:
    return pdf_file(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox %s /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> %s >>" % (mediabox, page_extra),
            stream(content, deflate=deflate),
            FONT,
        ]
    )


TEXT = b"BT /F1 12 Tf 72 712 Td (Hostile but polite text) Tj ET\n"


def bomb() -> bytes:
    return hostile_pdfs.bomb(500)


def deep_dictionary() -> bytes:
    depth = 200_000
    return one_page(TEXT, page_extra=b"/Deep " + b"<< /A " * depth + b">> " * depth)


def deep_array() -> bytes:
    depth = 200_000
    return one_page(TEXT + b"[" * depth + b"]" * depth + b" pop\n" + TEXT)


def deep_page_tree() -> bytes:
    """A page under 50,000 nested /Pages nodes."""
    depth = 50_000
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    for n in range(depth):  # object 2 + n is a /Pages node whose kid is the next
        parent = b"/Parent %d 0 R " % (1 + n) if n else b""
        objects.append(b"<< /Type /Pages %s/Kids [%d 0 R] /Count 1 >>" % (parent, 3 + n))
    page = 2 + depth
    objects.append(
        b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R /Resources << /Font << /F1 %d 0 R >> >> >>"
        % (page - 1, page + 1, page + 2)
    )
    objects.append(stream(TEXT))
    objects.append(FONT)
    return pdf_file(objects)


def huge_page() -> bytes:
    """The largest page PDF allows (14,400 units of 75/72 inch: ~38 km a side) with text at its corners."""
    corners = b"".join(b"BT /F1 12 Tf %d %d Td (Corner of a huge page) Tj ET\n" % (x, y) for x in (10, 14000) for y in (10, 14000))
    return one_page(corners, mediabox=b"[0 0 14400 14400]", page_extra=b"/UserUnit 75")


def reference_loop() -> bytes:
    """An object that is itself, a page tree whose node is its own kid, an outline entry that is its own next."""
    return pdf_file(
        [
            b"<< /Type /Catalog /Pages 2 0 R /Outlines 6 0 R /Loop 7 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
            stream(TEXT),
            FONT,
            b"<< /Type /Outlines /First 8 0 R /Last 8 0 R /Count 1 >>",
            b"7 0 R",
            b"<< /Title (Loop) /Parent 6 0 R /Next 8 0 R /Prev 8 0 R /First 8 0 R /Dest [3 0 R /Fit] >>",
        ]
    )


def many_operators() -> bytes:
    """Two million text-show operators on one page (a 3 MB file, deflated)."""
    return one_page(b"BT /F1 1 Tf 10 10 Td " + b"(x) Tj 0.01 0 Td " * 2_000_000 + b"ET\n", deflate=True)


def many_pages() -> bytes:
    pages = 2_001
    kids = b" ".join(b"%d 0 R" % (3 + i) for i in range(pages))
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages)]
    content, font = 3 + pages, 4 + pages
    objects += [
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R /Resources << /Font << /F1 %d 0 R >> >> >>" % (content, font)
    ] * pages
    objects += [stream(TEXT), FONT]
    return pdf_file(objects)


CASES = {
    "bomb": bomb,
    "deep dictionary": deep_dictionary,
    "deep array": deep_array,
    "deep page tree": deep_page_tree,
    "huge page": huge_page,
    "reference loop": reference_loop,
    "two million operators": many_operators,
    "2,001 pages": many_pages,
}

_PROBE = """
import json, resource, sys, time
from rag.errors import NoteError
from rag.notes import pdf
path, draw = sys.argv[1], sys.argv[2] == "draw"
started = time.perf_counter()
try:
    if draw:
        pixels = pdf.render_page(path, "x.pdf", 1, max_bytes=10**9)
        outcome = f"drawn {pixels.shape[1]}x{pixels.shape[0]} px"
    else:
        text = pdf.read_pdf(path, "x.pdf", max_bytes=10**9, max_text_bytes=10**9).text
        outcome = f"read: {len(text):,} characters"
except NoteError as exc:
    outcome = "skipped: " + str(exc).replace("x.pdf", "it", 1)
seconds = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
print(json.dumps({"outcome": outcome, "seconds": round(seconds, 2), "reader_peak_mb": round(peak / 1e6)}))
"""


def probe(path: Path, *, draw: bool = False) -> dict:
    done = subprocess.run([sys.executable, "-c", _PROBE, str(path), "draw" if draw else "read"], capture_output=True, text=True, timeout=300)
    if done.returncode:
        return {"outcome": f"the probe failed: {done.stderr.strip()[-300:]}"}
    return json.loads(done.stdout)


def vault_sync(folder: Path, files: dict[str, Path]) -> dict:
    """Sync a vault of every hostile PDF and one readable one; the readable one must be found."""
    from rag.config import load_settings
    from rag.devtools.fake_embedder import FakeEmbedder
    from rag.workspace import Workspace

    vault = folder / "vault"
    vault.mkdir()
    for name, path in files.items():
        shutil.copy(path, vault / f"{name}.pdf")
    shutil.copy(FIXTURE, vault / "Manual.pdf")
    settings = load_settings(vault=vault, db_path=folder / "index.db", env={})
    started = time.perf_counter()
    with Workspace.open(settings, create=True, embedder=FakeEmbedder()) as ws:
        report = ws.sync()
        found = ws.retriever.keyword("GPIO").hits
    return {
        "seconds": round(time.perf_counter() - started, 1),
        "readable_found": bool(found) and found[0].chunk.path == "Manual.pdf",
        "skipped": {path: why for path, why in report.skipped},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files, rows = {}, []
        for name, make in CASES.items():
            data = make()
            path = folder / f"{name}.pdf"
            path.write_bytes(data)
            files[name] = path
            rows.append({"case": name, "file_mb": round(len(data) / 1e6, 2), **probe(path)})
        huge = next(row for row in rows if row["case"] == "huge page")
        rows.append({"case": "huge page, drawn", "file_mb": huge["file_mb"], **probe(files["huge page"], draw=True)})
        result = {"cases": rows, "vault": vault_sync(folder, files)}
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
        return
    for row in result["cases"]:
        print(
            f"{row['case']:<24} {row['file_mb']:>7.2f} MB  {row.get('seconds', '?'):>6} s  {row.get('reader_peak_mb', '?'):>5} MB  {row['outcome'][:110]}"
        )
    v = result["vault"]
    print(f"\nvault of all of them + Manual.pdf: synced in {v['seconds']} s; Manual.pdf found: {v['readable_found']}; skipped {len(v['skipped'])}")


if __name__ == "__main__":
    main()
