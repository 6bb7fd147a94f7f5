"""PDFs written byte by byte, for the tests and bench/pdf_hostile.py: a file of given objects, and a decompression
bomb. For tests and benchmarks only: the product never imports it."""

from __future__ import annotations

import zlib

FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def pdf_file(objects: list[bytes]) -> bytes:
    """A PDF of these objects (object 1 is the catalog), with its cross-reference table."""
    out, offsets = [b"%PDF-1.7\n"], []
    for n, body in enumerate(objects, 1):
        offsets.append(sum(map(len, out)))
        out.append(b"%d 0 obj\n" % n + body + b"\nendobj\n")
    xref = sum(map(len, out))
    out.append(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1) + b"".join(b"%010d 00000 n \n" % o for o in offsets))
    out.append(b"trailer << /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    return b"".join(out)


def bomb(megabytes: int) -> bytes:
    """A one-page PDF of ~0.3% its size whose page's text stream inflates to `megabytes` (a decompression bomb)."""
    packer = zlib.compressobj(9)
    ops = b"BT /F1 12 Tf 72 712 Td (a) Tj ET\n" * 30_000
    data = b"".join(packer.compress(ops) for _ in range(megabytes * 1_000_000 // len(ops))) + packer.flush()
    return pdf_file(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
            b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(data) + data + b"\nendstream",
            FONT,
        ]
    )
