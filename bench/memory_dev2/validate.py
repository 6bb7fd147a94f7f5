"""Validate the memory_dev2 evaluation set (facts.jsonl + queries.jsonl).

Run: python3 bench/memory_dev2/validate.py
Exits non-zero on any hard error. Only reads the two JSONL files next to it.
"""

import json
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
CATEGORIES = {"preferences", "people", "projects", "config", "decisions", "health", "habits", "travel", "finance", "work"}
MINIMUMS = {"paraphrase": 50, "cross_language": 30, "superseded": 20, "keyword": 20, "entity": 20, "multi_entity": 15}
CYR = re.compile(r"[а-яё]", re.I)
WORD = re.compile(r"[^\W\d_]+", re.U)
errors, warnings = [], []


def load(name):
    rows = []
    for n, line in enumerate((HERE / name).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            errors.append(f"{name}:{n}: empty line")
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as e:
            errors.append(f"{name}:{n}: bad JSON: {e}")
    return rows


def lang(text):
    """'ru' if Cyrillic remains after dropping parenthesised glosses.

    English facts give Cyrillic spellings only in parentheses ("Kirill (Кирилл)");
    Russian facts are full of Latin product names, so letter ratios do not work.
    """
    return "ru" if CYR.search(re.sub(r"\([^)]*\)", "", text)) else "en"


def words(text, n=4):
    return {w for w in (m.group(0).lower() for m in WORD.finditer(text)) if len(w) >= n}


facts = load("facts.jsonl")
queries = load("queries.jsonl")
by_id = {}
for f in facts:
    for key in ("id", "content", "category", "tags", "entities", "created"):
        if key not in f:
            errors.append(f"fact {f.get('id')}: missing {key}")
    if f.get("id") in by_id:
        errors.append(f"duplicate fact id {f['id']}")
    by_id[f["id"]] = f
    if not f["id"].startswith("f-"):
        errors.append(f"fact id without f- prefix: {f['id']}")
    if f.get("category") not in CATEGORIES:
        errors.append(f"fact {f['id']}: bad category {f.get('category')}")
    if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", f.get("created", "")):
        errors.append(f"fact {f['id']}: bad created {f.get('created')}")
    elif not ("2023-01" <= f["created"][:7] <= "2025-08"):
        errors.append(f"fact {f['id']}: created outside 2023-01..2025-08")

superseded_ids = set()
for f in facts:
    s = f.get("supersedes")
    if s is None:
        continue
    if s not in by_id:
        errors.append(f"fact {f['id']}: supersedes unknown {s}")
        continue
    superseded_ids.add(s)
    if by_id[s]["created"] >= f["created"]:
        errors.append(f"fact {f['id']}: not newer than the fact it supersedes ({s})")

qids = set()
for q in queries:
    for key in ("id", "text", "kind", "relevant"):
        if key not in q:
            errors.append(f"query {q.get('id')}: missing {key}")
    if q["id"] in qids:
        errors.append(f"duplicate query id {q['id']}")
    qids.add(q["id"])
    if q["kind"] not in MINIMUMS:
        errors.append(f"query {q['id']}: unknown kind {q['kind']}")
    if not q["id"].startswith(f"q-{q['kind']}-"):
        errors.append(f"query {q['id']}: id does not match kind")
    if not q["relevant"] or len(set(q["relevant"])) != len(q["relevant"]):
        errors.append(f"query {q['id']}: empty or duplicated relevant list")
    for r in q["relevant"]:
        if r not in by_id:
            errors.append(f"query {q['id']}: relevant id {r} not in facts")
    if q["kind"] in ("entity", "multi_entity") and not q.get("entities"):
        errors.append(f"query {q['id']}: {q['kind']} query needs entities")
    if q["kind"] == "multi_entity" and len(q.get("entities", [])) < 2:
        errors.append(f"query {q['id']}: multi_entity needs >= 2 entities")
    if q["kind"] == "superseded":
        for r in q["relevant"]:
            if r in superseded_ids:
                errors.append(f"query {q['id']}: relevant {r} is an outdated (superseded) fact")
    if q["kind"] == "cross_language" and q["relevant"][0] in by_id:
        if lang(q["text"]) == lang(by_id[q["relevant"][0]]["content"]):
            errors.append(f"query {q['id']}: cross_language query in the same language as its best fact")
    if q["kind"] == "paraphrase" and q["relevant"][0] in by_id:
        best = by_id[q["relevant"][0]]["content"]
        shared = words(q["text"]) & words(best)
        if shared:
            errors.append(f"paraphrase {q['id']}: shares words {sorted(shared)} with {q['relevant'][0]}")
        # stricter stem heuristic: common 5-letter prefix of words with >= 5 letters
        qp = {w[:5] for w in words(q["text"], 5)}
        fp = {w[:5] for w in words(best, 5)}
        if qp & fp:
            warnings.append(f"paraphrase {q['id']}: shared 5-letter prefix {sorted(qp & fp)}")
        if lang(q["text"]) != lang(best):
            errors.append(f"paraphrase {q['id']}: not in the same language as its best fact")

# entity coverage hints: facts tagged with the entity but not listed
for q in queries:
    if q["kind"] not in ("entity", "multi_entity"):
        continue
    ents = set(q.get("entities", []))
    tagged = {f["id"] for f in facts if ents <= set(f["entities"])}
    missing = tagged - set(q["relevant"])
    if missing:
        warnings.append(f"{q['id']}: facts tagged with {sorted(ents)} not listed: {sorted(missing)}")

kinds = Counter(q["kind"] for q in queries)
for k, m in MINIMUMS.items():
    if kinds[k] < m:
        errors.append(f"kind {k}: {kinds[k]} < {m}")
if len(facts) < 160:
    errors.append(f"only {len(facts)} facts")
if len(queries) < 160:
    errors.append(f"only {len(queries)} queries")
if len(superseded_ids) < 15:
    errors.append(f"only {len(superseded_ids)} superseded facts")

print(f"facts: {len(facts)}  by language: {dict(Counter(lang(f['content']) for f in facts))}")
print(f"  by category: {dict(sorted(Counter(f['category'] for f in facts).items()))}")
print(
    f"  supersedes links: {sum('supersedes' in f for f in facts)}  "
    f"empty entities: {sum(not f['entities'] for f in facts)} "
    f"({100 * sum(not f['entities'] for f in facts) / len(facts):.0f}%)"
)
print(f"queries: {len(queries)}  by language: {dict(Counter(lang(q['text']) for q in queries))}")
for k in MINIMUMS:
    langs = Counter(lang(q["text"]) for q in queries if q["kind"] == k)
    print(f"  {k:15s} {kinds[k]:3d}  en={langs['en']} ru={langs['ru']}")
unused = set(by_id) - {r for q in queries for r in q["relevant"]}
print(f"facts never relevant (pure distractors): {len(unused)}")
for w in warnings:
    print("WARN ", w)
for e in errors:
    print("ERROR", e)
print("OK" if not errors else f"{len(errors)} error(s)")
sys.exit(1 if errors else 0)
