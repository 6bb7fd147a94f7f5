# ruff: noqa: UP031  (a helper's checker, kept as written)
"""Check the form of bench/time_dev2/questions.jsonl against bench/time_dev2/vault/.

Standard library only. Exits 1 and lists every problem if a check fails, then prints counts.
It checks form and internal consistency only; whether a gold span really answers its question
was checked by reading (see README.md).
"""

import collections
import datetime as dt
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VAULT = os.path.join(HERE, "vault")
FIELDS = {"id", "lang", "question", "today", "time_words", "gold", "answer_contains", "reported_later", "kind"}
CYR = re.compile("[\u0400-\u04ff]")


def read_lines(path):
    with open(os.path.join(VAULT, path), encoding="utf-8") as f:
        return f.read().split("\n")[:-1]


D = dt.date.fromisoformat
MONTHS_EN = {
    m: i
    for i, m in enumerate(
        ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"], 1
    )
}
MONTHS_RU = {
    m: i
    for i, m in enumerate(["января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа", "сентября", "октября", "ноября", "декабря"], 1)
}


def note_day(path, line):
    """The day of one line: a date that starts the line (a table row `| YYYY-MM-DD |` or a list item
    `- YYYY-MM-DD:`), else the nearest dated heading above (`## YYYY-MM-DD ...`, or `## Monday 3 November` with
    the year from frontmatter `week:`), else frontmatter `date:`, else a date in the file name (YYYY-MM-DD or
    DD.MM.YYYY), else None (undated)."""
    lines = read_lines(path)
    text = lines[line - 1]
    m = re.match(r"\s*(?:\||-)\s*(\d{4}-\d\d-\d\d)\b", text)
    if m:
        return D(m.group(1))
    fm = {}
    if lines and lines[0] == "---":
        for x in lines[1:]:
            if x == "---":
                break
            if ":" in x:
                k, v = x.split(":", 1)
                fm[k.strip()] = v.strip()
    for i in range(line - 1, -1, -1):
        m = re.match(r"#{2,}\s+(\d{4}-\d\d-\d\d)\b", lines[i])
        if m:
            return D(m.group(1))
        m = re.match(r"#{2,}\s+\S+\s+(\d{1,2})\s+(\S+)\s*$", lines[i])
        if m and "week" in fm:
            mo = MONTHS_EN.get(m.group(2)) or MONTHS_RU.get(m.group(2))
            if mo:
                return dt.date(int(fm["week"][:4]), mo, int(m.group(1)))
    if "date" in fm:
        return D(fm["date"])
    b = os.path.basename(path)
    m = re.search(r"(\d{4}-\d\d-\d\d)", b)
    if m:
        return D(m.group(1))
    m = re.match(r"(\d\d)\.(\d\d)\.(\d{4})", b)
    if m:
        return dt.date(int(m.group(3)), int(m.group(2)), int(m.group(1)))
    return None


def main(path):
    errs = []
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            try:
                q = json.loads(raw)
            except ValueError as e:
                errs.append("line %d: not JSON (%s)" % (n, e))
                continue
            rows.append(q)
            qid = q.get("id", "line %d" % n)
            if set(q) != FIELDS:
                errs.append(f"{qid}: fields {sorted(set(q) ^ FIELDS)}")
                continue
            if not re.fullmatch(r"t2-(en|ru)-\d{3}", q["id"]) or q["id"][3:5] != q["lang"]:
                errs.append(f"{qid}: bad id or lang")
            has_cyr = bool(CYR.search(q["question"]))
            if has_cyr != (q["lang"] == "ru"):
                errs.append(f"{qid}: script does not match lang")
            try:
                today = dt.date.fromisoformat(q["today"])
            except ValueError:
                errs.append(f"{qid}: bad today")
                continue
            if not q["time_words"] or q["time_words"] not in q["question"]:
                errs.append(f"{qid}: time_words not in question")
            if not isinstance(q["reported_later"], bool):
                errs.append(f"{qid}: reported_later not bool")
            if q["kind"] == "unanswerable":
                if q["gold"] or q["answer_contains"] or q["reported_later"]:
                    errs.append(f"{qid}: unanswerable line has gold, answer_contains or reported_later")
                continue
            if not q["gold"] or not 1 <= len(q["answer_contains"]) <= 3:
                errs.append(f"{qid}: needs gold and 1-3 answer_contains")
            texts = []
            for g in q["gold"]:
                p = g["path"]
                if not os.path.isfile(os.path.join(VAULT, p)):
                    errs.append(f"{qid}: no file {p}")
                    continue
                lines = read_lines(p)
                s, e = g["start_line"], g["end_line"]
                if not 1 <= s <= e <= len(lines):
                    errs.append("%s: lines %d-%d outside %s (%d lines)" % (qid, s, e, p, len(lines)))
                    continue
                texts.append("\n".join(lines[s - 1 : e]))
                day = note_day(p, s)
                if day is not None and not day < today:
                    errs.append(f"{qid}: gold note day {day} is not before today {today}")
            for a in q["answer_contains"]:
                if not any(a in t for t in texts):
                    errs.append(f"{qid}: answer_contains {a!r} not in gold spans")
    ids = [q.get("id") for q in rows]
    for i, c in collections.Counter(ids).items():
        if c > 1:
            errs.append(f"duplicate id {i}")
    seen = collections.Counter((q.get("question"), q.get("today")) for q in rows)
    for k, c in seen.items():
        if c > 1:
            errs.append(f"question repeated with the same today: {k!r}")
    rl = sum(1 for q in rows if q.get("reported_later") is True)
    un = sum(1 for q in rows if q.get("kind") == "unanswerable")
    todays = {q.get("today") for q in rows}
    if len(rows) < 130 or rl < 25 or un < 40 or len(todays) < 5:
        errs.append("minimums: %d lines (130), %d reported_later (25), %d unanswerable (40), %d todays (5)" % (len(rows), rl, un, len(todays)))
    for e in errs:
        print("ERROR", e)

    c = collections.Counter((q["kind"], q["lang"]) for q in rows)
    print("%-15s %4s %4s %6s" % ("kind", "en", "ru", "total"))
    for k in sorted({k for k, _ in c}):
        print("%-15s %4d %4d %6d" % (k, c[(k, "en")], c[(k, "ru")], c[(k, "en")] + c[(k, "ru")]))
    en = sum(q["lang"] == "en" for q in rows)
    print("%-15s %4d %4d %6d" % ("total", en, len(rows) - en, len(rows)))
    r = collections.Counter((q["lang"], q["reported_later"]) for q in rows)
    print("reported_later true: en %d, ru %d, total %d" % (r[("en", True)], r[("ru", True)], rl))
    print("today:", ", ".join("%s (%d)" % kv for kv in sorted(collections.Counter(q["today"] for q in rows).items())))
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "questions.jsonl")))
