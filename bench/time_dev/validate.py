# ruff: noqa: UP031  (a helper's checker, kept as written)
"""Check the form of bench/time_dev/questions.jsonl against bench/time_dev/vault/.

Standard library only. Exits 1 and lists every problem if a check fails, then prints counts.
It checks form and internal consistency only; whether a gold span really answers its question
was checked by reading (see README.md). bench/time_dev2/validate.py runs the same checks (`check`)
with its own ids, minimums and rule for a line's day.
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


def read_lines(vault, path):
    with open(os.path.join(vault, path), encoding="utf-8") as f:
        return f.read().split("\n")[:-1]


def note_day(lines, path, line):
    """Frontmatter `date:`, else a YYYY-MM-DD in the file name, else the nearest `## YYYY-MM-DD` heading above."""
    if lines and lines[0] == "---":
        for text in lines[1:]:
            if text == "---":
                break
            m = re.match(r"date:\s*(\d{4}-\d\d-\d\d)", text)
            if m:
                return dt.date.fromisoformat(m.group(1))
    m = re.search(r"(\d{4}-\d\d-\d\d)", os.path.basename(path))
    if m:
        return dt.date.fromisoformat(m.group(1))
    for i in range(line - 1, -1, -1):
        m = re.match(r"#+\s+(\d{4}-\d\d-\d\d)\s*$", lines[i])
        if m:
            return dt.date.fromisoformat(m.group(1))
    return None


def main(path):
    return check(path, vault=VAULT, note_day=note_day, prefix="td", minimums=(100, 35, 15, 5))


def check(path, *, vault, note_day, prefix, minimums):
    """Every check on the questions file `path` over `vault`; `note_day(lines, path, line)` gives a gold line's day;
    `minimums`: lines, reported_later, unanswerable, distinct todays."""
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
            if not re.fullmatch(prefix + r"-(en|ru)-\d{3}", q["id"]) or q["id"][len(prefix) + 1 : len(prefix) + 3] != q["lang"]:
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
                if not os.path.isfile(os.path.join(vault, p)):
                    errs.append(f"{qid}: no file {p}")
                    continue
                lines = read_lines(vault, p)
                s, e = g["start_line"], g["end_line"]
                if not 1 <= s <= e <= len(lines):
                    errs.append("%s: lines %d-%d outside %s (%d lines)" % (qid, s, e, p, len(lines)))
                    continue
                texts.append("\n".join(lines[s - 1 : e]))
                day = note_day(lines, p, s)
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
    counts = (len(rows), rl, un, len(todays))
    if any(n < least for n, least in zip(counts, minimums)):
        errs.append(
            "minimums: %d lines (%d), %d reported_later (%d), %d unanswerable (%d), %d todays (%d)"
            % tuple(x for pair in zip(counts, minimums) for x in pair)
        )
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
