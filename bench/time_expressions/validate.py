#!/usr/bin/env python3
"""Check bench/time_expressions/expressions.jsonl against the conventions in README.md.

Standard library only. Usage:
    python3 bench/time_expressions/validate.py [path/to/expressions.jsonl]
Prints counts per language and kind; exits 1 on any failure.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from datetime import date
from pathlib import Path

DEFAULT_TODAY = "2026-04-15"
EPOCH = date(1970, 1, 1)
MAX_OTHER_TODAY = 10
MIN_LINES, MIN_PER_LANG, MIN_NEGATIVES = 130, 60, 25
KEYS = {"id", "lang", "text", "today", "expected", "order", "kind", "time_words"}
ORDERS = {None, "newest"}
CYRILLIC = re.compile(r"[А-Яа-яЁё]")
LATIN = re.compile(r"[A-Za-z]")
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
KIND = re.compile(r"^[a-z][a-z-]*$")
ID = re.compile(r"^(en|ru)-\d{3}$")


def parse_date(value):
    """A date from a strict YYYY-MM-DD string, or None."""
    if not isinstance(value, str) or not ISO_DATE.match(value):
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        return None


def check_row(row, where, errors):
    def fail(msg):
        errors.append(f"{where}: {msg}")

    if not isinstance(row, dict):
        fail("not a JSON object")
        return
    if set(row) != KEYS:
        fail(f"keys {sorted(row)} != {sorted(KEYS)}")
        return
    rid, lang, text, kind = row["id"], row["lang"], row["text"], row["kind"]
    if lang not in ("en", "ru"):
        fail(f"lang {lang!r} is not en or ru")
    if not isinstance(rid, str) or not ID.match(rid):
        fail(f"id {rid!r} is not like en-001 / ru-001")
    elif rid[:2] != lang:
        fail(f"id {rid!r} does not start with its lang {lang!r}")
    if not isinstance(text, str) or not text.strip():
        fail("text is empty or not a string")
        return
    if lang == "ru" and not CYRILLIC.search(text):
        fail("lang ru but the text has no Cyrillic letters")
    if lang == "en" and (CYRILLIC.search(text) or not LATIN.search(text)):
        fail("lang en but the text has Cyrillic letters or no Latin ones")
    if not isinstance(kind, str) or not KIND.match(kind):
        fail(f"kind {kind!r} is not a short lower-case label")

    today = parse_date(row["today"])
    if today is None:
        fail(f"today {row['today']!r} is not a valid YYYY-MM-DD date")

    expected = row["expected"]
    if expected is not None:
        if not isinstance(expected, dict) or set(expected) != {"after", "before"}:
            fail(f"expected must be null or {{after, before}}, got {expected!r}")
        else:
            after, before = parse_date(expected["after"]), parse_date(expected["before"])
            if after is None or before is None:
                fail(f"expected has an invalid date: {expected!r}")
            else:
                if after > before:
                    fail(f"after {after} > before {before}")
                if after < EPOCH:
                    fail(f"after {after} is earlier than {EPOCH} (the open-ended start)")
                if today is not None and before > today:
                    fail(f"before {before} is after today {today}: ranges must end by today")

    order = row["order"]
    if order not in ORDERS:
        fail(f"order {order!r} not in {ORDERS}")

    tw = row["time_words"]
    no_time = expected is None and order is None
    if tw is None:
        if not no_time:
            fail("time_words is null but expected or order is set")
    elif not isinstance(tw, str) or not tw.strip():
        fail("time_words must be null or a non-empty string")
    else:
        if no_time:
            fail("time_words is set but expected and order are both null")
        if tw not in text:
            fail(f"time_words {tw!r} is not an exact substring of the text")
        if tw != tw.strip():
            fail(f"time_words {tw!r} has surrounding spaces")

    if (kind == "negative") != no_time:
        fail("kind 'negative' must be used exactly for lines with expected, order and time_words null")
    if kind in ("last-time", "latest") and not (expected is None and order == "newest"):
        fail(f"kind {kind} needs expected null and order 'newest'")
    if kind == "recent" and (expected is None or order != "newest"):
        fail("kind recent needs a range and order 'newest'")


def main(argv):
    path = Path(argv[1]) if len(argv) > 1 else Path(__file__).with_name("expressions.jsonl")
    errors = []
    rows = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        print(f"FAIL: cannot read {path}: {exc}")
        return 1
    for n, line in enumerate(lines, 1):
        if not line.strip():
            errors.append(f"line {n}: empty line")
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"line {n}: not JSON ({exc})")
            continue
        where = f"line {n} ({row.get('id') if isinstance(row, dict) else '?'})"
        check_row(row, where, errors)
        if isinstance(row, dict):
            rows.append(row)

    ids = Counter(r.get("id") for r in rows)
    errors += [f"id {i!r} occurs {c} times" for i, c in ids.items() if c > 1]
    pairs = Counter((r.get("text"), r.get("today")) for r in rows)
    errors += [f"text {t!r} with today {d} occurs {c} times" for (t, d), c in pairs.items() if c > 1]

    other_today = sum(1 for r in rows if r.get("today") != DEFAULT_TODAY)
    if other_today > MAX_OTHER_TODAY:
        errors.append(f"{other_today} lines use a today other than {DEFAULT_TODAY} (at most {MAX_OTHER_TODAY})")
    by_lang = Counter(r.get("lang") for r in rows)
    negatives = sum(1 for r in rows if r.get("kind") == "negative")
    if len(rows) < MIN_LINES:
        errors.append(f"{len(rows)} lines, need at least {MIN_LINES}")
    for lang in ("en", "ru"):
        if by_lang[lang] < MIN_PER_LANG:
            errors.append(f"{by_lang[lang]} {lang} lines, need at least {MIN_PER_LANG}")
    if negatives < MIN_NEGATIVES:
        errors.append(f"{negatives} negative lines, need at least {MIN_NEGATIVES}")

    kinds = sorted({r.get("kind") for r in rows if isinstance(r.get("kind"), str)})
    by = Counter((r.get("kind"), r.get("lang")) for r in rows)
    width = max([len(k) for k in kinds] + [5])
    print(f"{'kind':<{width}}    en    ru  total")
    for k in kinds:
        en, ru = by[(k, "en")], by[(k, "ru")]
        print(f"{k:<{width}} {en:5d} {ru:5d} {en + ru:6d}")
    print(f"{'total':<{width}} {by_lang['en']:5d} {by_lang['ru']:5d} {len(rows):6d}")
    print(
        f"negatives: {negatives}; lines with today != {DEFAULT_TODAY}: {other_today}; "
        f"order=newest: {sum(1 for r in rows if r.get('order') == 'newest')}"
    )

    if errors:
        print(f"\nFAIL: {len(errors)} problem(s)")
        for e in errors:
            print("  " + e)
        return 1
    print("\nOK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
