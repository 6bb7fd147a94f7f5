#!/usr/bin/env python3
"""Consistency checks for bench/memory_dev3 (standalone, stdlib only).

Usage: python3 bench/memory_dev3/validate.py [--verbose]

Errors (exit code 1):
  - malformed facts or queries (fields, category, kind, created timestamp)
  - duplicate fact or query ids; duplicate ids inside one `relevant` list
  - a `supersedes` that names a missing fact, itself, or a newer fact
  - a `relevant` id that does not exist
  - a superseded query that lists a fact which has been superseded
  - a paraphrase query that shares a lowercase word of 4+ letters with its best fact
  - a paraphrase query in a different language from its best fact, or a
    cross_language query in the same language as its best fact
Warnings (exit code 0):
  - a paraphrase query sharing a 5-letter prefix with its best fact (crude stem check)
"""

import collections
import json
import re
import sys
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
CATEGORIES = {"people", "preferences", "decisions", "config", "work", "health", "finance", "travel", "habits", "projects"}
KINDS = {"paraphrase", "cross_language", "superseded", "keyword", "entity", "multi_entity"}
WORD = re.compile(r"[^\W\d_]+")
CYR = re.compile(r"[а-яё]", re.I)
LAT = re.compile(r"[a-zà-ɏ]", re.I)

errors, warnings = [], []


def err(msg):
    errors.append(msg)


def warn(msg):
    warnings.append(msg)


def load(name):
    rows = []
    with open(HERE / name, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            line = line.strip()
            if not line:
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                err(f"{name}:{n}: bad JSON: {e}")
    return rows


def words(text):
    return {w.replace("ё", "е") for w in WORD.findall(text.lower())}


def lang(text):
    """'ru' if Cyrillic letters outnumber Latin ones, else 'en'."""
    return "ru" if len(CYR.findall(text)) > len(LAT.findall(text)) else "en"


def main():
    verbose = "--verbose" in sys.argv
    facts = load("facts.jsonl")
    queries = load("queries.jsonl")

    # ---- facts ----
    byid = {}
    for f in facts:
        fid = f.get("id")
        if not isinstance(fid, str) or not fid.startswith("f-"):
            err(f"fact id {fid!r} must be a string starting with 'f-'")
            continue
        if fid in byid:
            err(f"duplicate fact id {fid}")
        byid[fid] = f
        if not isinstance(f.get("content"), str) or not f["content"].strip():
            err(f"{fid}: empty content")
        if f.get("category") not in CATEGORIES:
            err(f"{fid}: bad category {f.get('category')!r}")
        if not isinstance(f.get("tags"), list) or not all(isinstance(t, str) for t in f["tags"]):
            err(f"{fid}: tags must be a list of strings")
        if not isinstance(f.get("entities"), list) or not all(isinstance(t, str) for t in f["entities"]):
            err(f"{fid}: entities must be a list of strings")
        try:
            datetime.strptime(f.get("created", ""), "%Y-%m-%dT%H:%M:%SZ")
        except (TypeError, ValueError):
            err(f"{fid}: created must be YYYY-MM-DDTHH:MM:SSZ, got {f.get('created')!r}")
        extra = set(f) - {"id", "content", "category", "tags", "entities", "created", "supersedes"}
        if extra:
            err(f"{fid}: unexpected fields {sorted(extra)}")

    superseded = {}
    for f in byid.values():
        old = f.get("supersedes")
        if old is None:
            continue
        if old == f["id"] or old not in byid:
            err(f"{f['id']}: supersedes unknown or self id {old!r}")
            continue
        if byid[old]["created"] >= f["created"]:
            err(f"{f['id']}: supersedes {old}, which is not older")
        if old in superseded:
            err(f"{old} is superseded twice ({superseded[old]}, {f['id']})")
        superseded[old] = f["id"]

    # ---- queries ----
    qids = set()
    for q in queries:
        qid = q.get("id")
        if not isinstance(qid, str) or not qid.startswith("q-"):
            err(f"query id {qid!r} must be a string starting with 'q-'")
            continue
        if qid in qids:
            err(f"duplicate query id {qid}")
        qids.add(qid)
        if q.get("kind") not in KINDS:
            err(f"{qid}: bad kind {q.get('kind')!r}")
        if not isinstance(q.get("text"), str) or not q["text"].strip():
            err(f"{qid}: empty text")
        rel = q.get("relevant")
        if not isinstance(rel, list) or not rel:
            err(f"{qid}: relevant must be a non-empty list")
            continue
        if len(set(rel)) != len(rel):
            err(f"{qid}: duplicate ids in relevant")
        missing = [r for r in rel if r not in byid]
        if missing:
            err(f"{qid}: unknown relevant ids {missing}")
            continue

        best = byid[rel[0]]
        if q["kind"] == "superseded":
            for r in rel:
                if r in superseded:
                    err(f"{qid}: lists {r}, which is superseded by {superseded[r]}")

        if q["kind"] == "paraphrase":
            if lang(q["text"]) != lang(best["content"]):
                err(f"{qid}: paraphrase language differs from {best['id']}")
            qw, fw = words(q["text"]), words(best["content"])
            shared = sorted(w for w in qw & fw if len(w) >= 4)
            if shared:
                err(f"{qid}: shares words {shared} with {best['id']}")
            qp = {w[:5] for w in qw if len(w) >= 5}
            fp = {w[:5] for w in fw if len(w) >= 5}
            common = sorted(qp & fp)
            if common:
                warn(f"{qid}: shares 5-letter prefixes {common} with {best['id']}")

        if q["kind"] == "cross_language" and lang(q["text"]) == lang(best["content"]):
            err(f"{qid}: cross_language query is in the same language as {best['id']}")

    # ---- report ----
    referenced = {r for q in queries for r in q.get("relevant", []) if isinstance(q.get("relevant"), list)}
    flang = collections.Counter(lang(f["content"]) for f in byid.values())
    fcat = collections.Counter(f["category"] for f in byid.values())
    kinds = collections.defaultdict(collections.Counter)
    for q in queries:
        if isinstance(q.get("text"), str):
            kinds[q.get("kind")][lang(q["text"])] += 1
    print(
        f"facts: {len(byid)} (en {flang['en']}, ru {flang['ru']}); superseded pairs: {len(superseded)}; never relevant: {len(set(byid) - referenced)}"
    )
    print("  categories: " + ", ".join(f"{c} {n}" for c, n in sorted(fcat.items())))
    qlang = collections.Counter(lang(q["text"]) for q in queries if isinstance(q.get("text"), str))
    print(f"queries: {len(queries)} (en {qlang['en']}, ru {qlang['ru']})")
    for k in sorted(kinds):
        c = kinds[k]
        print(f"  {k}: {sum(c.values())} (en {c['en']}, ru {c['ru']})")
    if verbose:
        print("never relevant:", ", ".join(sorted(set(byid) - referenced)))
    for w in warnings:
        print("WARN ", w)
    for e in errors:
        print("ERROR", e)
    print(f"{len(errors)} errors, {len(warnings)} warnings")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
