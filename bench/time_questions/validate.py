#!/usr/bin/env python3
"""Check bench/time_questions/questions.jsonl against the demo vault.

Standard library only. Usage (from the repository root or anywhere):

    python3 bench/time_questions/validate.py [path/to/questions.jsonl]

Exits 1 and lists every problem if a check fails; otherwise prints counts.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
VAULT = REPO / "rag" / "demo_vault"

FIELDS = [
    "id",
    "lang",
    "question",
    "today",
    "time_words",
    "gold",
    "answer_contains",
    "without_time_is_ambiguous",
    "kind",
]
GOLD_FIELDS = {"path", "start_line", "end_line"}
MIN_LINES = 40
MIN_PER_LANG = 15
MAX_TODAYS = 5
MIN_LAST_TIME = 8
MIN_CHAT = 5
CYRILLIC = re.compile(r"[\u0400-\u04FF]")
ID_RE = re.compile(r"^tq-(en|ru)-\d{2,}$")


def vault_lines(rel: str, cache: dict[str, list[str]]) -> list[str] | None:
    if rel not in cache:
        p = VAULT / rel
        try:
            inside = p.resolve().is_relative_to(VAULT.resolve())
        except AttributeError:  # Python < 3.9
            inside = str(p.resolve()).startswith(str(VAULT.resolve()))
        if not inside or not p.is_file():
            cache[rel] = None  # type: ignore[assignment]
        else:
            # Same line numbering as an editor: split on \n, drop the empty piece after a final newline.
            text = p.read_text(encoding="utf-8")
            lines = text.split("\n")
            if text.endswith("\n"):
                lines.pop()
            cache[rel] = lines
    return cache[rel]


def main(argv: list[str]) -> int:
    path = Path(argv[1]) if len(argv) > 1 else HERE / "questions.jsonl"
    errors: list[str] = []
    rows: list[dict] = []
    cache: dict[str, list[str]] = {}

    if not VAULT.is_dir():
        print(f"FAIL: vault not found at {VAULT}")
        return 1

    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip():
            errors.append(f"line {n}: empty line")
            continue
        try:
            r = json.loads(raw)
        except json.JSONDecodeError as e:
            errors.append(f"line {n}: not JSON ({e})")
            continue
        if not isinstance(r, dict):
            errors.append(f"line {n}: not a JSON object")
            continue
        where = f"line {n} ({r.get('id', '?')})"
        missing = [f for f in FIELDS if f not in r]
        extra = [f for f in r if f not in FIELDS]
        if missing or extra:
            errors.append(f"{where}: missing fields {missing}, unexpected fields {extra}")
            continue
        rows.append(r)

        # id and language
        rid, lang, q = r["id"], r["lang"], r["question"]
        m = ID_RE.match(rid) if isinstance(rid, str) else None
        if not m:
            errors.append(f"{where}: id must look like tq-en-01 / tq-ru-01")
        elif m.group(1) != lang:
            errors.append(f"{where}: id prefix does not match lang {lang!r}")
        if lang not in ("en", "ru"):
            errors.append(f"{where}: lang must be 'en' or 'ru'")
        if not isinstance(q, str) or not q.strip():
            errors.append(f"{where}: question must be a non-empty string")
            continue
        has_cyr = bool(CYRILLIC.search(q))
        if lang == "ru" and not has_cyr:
            errors.append(f"{where}: ru question has no Cyrillic")
        if lang == "en" and has_cyr:
            errors.append(f"{where}: en question contains Cyrillic")

        # today
        try:
            dt.date.fromisoformat(r["today"])
            if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", r["today"]):
                raise ValueError
        except (TypeError, ValueError):
            errors.append(f"{where}: today {r['today']!r} is not YYYY-MM-DD")

        # time words
        tw = r["time_words"]
        if not isinstance(tw, str) or not tw:
            errors.append(f"{where}: time_words must be a non-empty string")
        elif tw not in q:
            errors.append(f"{where}: time_words {tw!r} is not a substring of the question")

        if not isinstance(r["without_time_is_ambiguous"], bool):
            errors.append(f"{where}: without_time_is_ambiguous must be true/false")
        if not isinstance(r["kind"], str) or not re.fullmatch(r"[a-z][a-z-]*", r["kind"]):
            errors.append(f"{where}: kind must be a short lower-case label")

        # gold spans
        gold = r["gold"]
        if not isinstance(gold, list) or not gold:
            errors.append(f"{where}: gold must be a non-empty list")
            continue
        span_texts: list[str] = []
        for i, g in enumerate(gold):
            gw = f"{where} gold[{i}]"
            if not isinstance(g, dict) or set(g) != GOLD_FIELDS:
                errors.append(f"{gw}: must have exactly {sorted(GOLD_FIELDS)}")
                continue
            p, s, e = g["path"], g["start_line"], g["end_line"]
            if not isinstance(p, str) or p.startswith("/") or ".." in Path(p).parts:
                errors.append(f"{gw}: path must be vault-relative: {p!r}")
                continue
            lines = vault_lines(p, cache)
            if lines is None:
                errors.append(f"{gw}: no such file under rag/demo_vault: {p!r}")
                continue
            if not (isinstance(s, int) and isinstance(e, int)) or isinstance(s, bool) or isinstance(e, bool):
                errors.append(f"{gw}: start_line/end_line must be integers")
                continue
            if not (1 <= s <= e <= len(lines)):
                errors.append(f"{gw}: lines {s}-{e} out of range 1-{len(lines)} in {p}")
                continue
            span_texts.append("\n".join(lines[s - 1 : e]))

        ac = r["answer_contains"]
        if not isinstance(ac, list) or not ac or not all(isinstance(a, str) and a for a in ac):
            errors.append(f"{where}: answer_contains must be a non-empty list of non-empty strings")
        elif span_texts:
            for a in ac:
                if not any(a in t for t in span_texts):
                    errors.append(f"{where}: answer_contains {a!r} not found verbatim in the gold lines")

    # set-level checks
    ids = Counter(r["id"] for r in rows)
    for rid, c in ids.items():
        if c > 1:
            errors.append(f"id {rid} used {c} times")
    dup_q = Counter((r["question"], r["today"]) for r in rows)
    for (qq, t), c in dup_q.items():
        if c > 1:
            errors.append(f"question repeated {c} times with today {t}: {qq!r}")
    langs = Counter(r["lang"] for r in rows)
    todays = Counter(r["today"] for r in rows)
    kinds = Counter((r["kind"], r["lang"]) for r in rows)
    last_time = sum(1 for r in rows if r["kind"] == "last-time")
    chat = sum(
        1
        for r in rows
        if isinstance(r["gold"], list) and any(isinstance(g, dict) and str(g.get("path", "")).startswith("Conversations/") for g in r["gold"])
    )
    ambiguous = sum(1 for r in rows if r["without_time_is_ambiguous"] is True)

    if len(rows) < MIN_LINES:
        errors.append(f"only {len(rows)} lines, need at least {MIN_LINES}")
    for lg in ("en", "ru"):
        if langs[lg] < MIN_PER_LANG:
            errors.append(f"only {langs[lg]} {lg} lines, need at least {MIN_PER_LANG}")
    if len(todays) > MAX_TODAYS:
        errors.append(f"{len(todays)} distinct today values, at most {MAX_TODAYS} allowed")
    if last_time < MIN_LAST_TIME:
        errors.append(f"only {last_time} last-time lines, need at least {MIN_LAST_TIME}")
    if chat < MIN_CHAT:
        errors.append(f"only {chat} lines with a gold span in Conversations/, need at least {MIN_CHAT}")

    # report
    print(f"{path}: {len(rows)} lines (en {langs['en']}, ru {langs['ru']})")
    print(f"without_time_is_ambiguous: true {ambiguous}, false {len(rows) - ambiguous}")
    print(f"last-time lines: {last_time}; lines with gold in Conversations/: {chat}")
    print(
        "today values: "
        + ", ".join(
            f"{t} ({dt.date.fromisoformat(t).strftime('%a')}) {c}" for t, c in sorted(todays.items()) if re.fullmatch(r"\d{4}-\d{2}-\d{2}", t)
        )
    )
    print(f"\n{'kind':<16}{'en':>5}{'ru':>5}{'total':>7}")
    for k in sorted({k for k, _ in kinds}):
        en, ru = kinds[(k, "en")], kinds[(k, "ru")]
        print(f"{k:<16}{en:>5}{ru:>5}{en + ru:>7}")
    print(f"{'total':<16}{langs['en']:>5}{langs['ru']:>5}{len(rows):>7}")

    if errors:
        print(f"\nFAIL: {len(errors)} problem(s)")
        for e in errors:
            print("  - " + e)
        return 1
    print("\nOK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
