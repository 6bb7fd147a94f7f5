"""Real claims labelled by careful readers (bench/claims_dev/): packets to label, and the claim check scored on them.

    python bench/claim_labels.py packets DUMP... --out PACKETS      # replies from bench/model_answers.py --dump
    python bench/claim_labels.py scifact                             # SciFact's expert verdicts as labels
    python bench/claim_labels.py across                              # XQuAD's labelled claims, sources in the other language
    python bench/claim_labels.py score [--labels bench/claims_dev/*.jsonl] [--part fit|aside|all] [--json] [--misses]

A packet is one reply as a reader sees it, without anything the check said: the question, the reply, each source
with its note's lines numbered, and the reply's claims (as `claims.split` cuts them). A label row (what the readers
wrote, one per claim):
    {"reply": "fastapi-en:en-01", "n": 1, "claim": "…", "label": "supported" | "unsupported",
     "evidence": [{"source": "S2", "lines": [40, 41]}], "why": "…"}
A label row also carries the reply and where its sources are in the notes, so the check runs again on it without the
model (the notes' text is read from the vaults, never stored here). Scores: "unsupported" precision and recall,
wrong claims shown as supported (and the answers with one), correct claims refused, and for supported claims whether
the evidence the check shows is on the reader's lines.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
from pathlib import Path

from rag.answer import claims as claim_split
from rag.answer.citations import clean
from rag.answer.context import FrozenContext, Source, fence_for
from rag.notes.vault import read_note

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dev_split import PARTS, keep  # noqa: E402
from offline_answers import SETS, questions  # noqa: E402

HERE = Path(__file__).resolve().parent / "claims_dev"
# Rows made from eval data (SciFact's claims) stay outside the repository: `claim_labels.py scifact` writes them here.
DERIVED = Path(os.environ.get("RAG_DEV_CACHE", "/tmp/rag-dev")) / "claims"


def label_files() -> list[Path]:
    return sorted([*HERE.glob("labels-*.jsonl"), *DERIVED.glob("labels-*.jsonl")])


def reply_files() -> list[Path]:
    return sorted([*HERE.glob("replies-*.jsonl"), *DERIVED.glob("replies-*.jsonl")])


def vault_of(set_name: str) -> Path:
    return SETS[set_name].vault


def context_of(vault: Path, sources: list[dict]) -> FrozenContext:
    """The frozen context a reply was written from, read again from the notes."""
    made = []
    for s in sources:
        text = read_note(vault, s["path"]).text[s["start_char"] : s["end_char"]]
        made.append(
            Source(
                s["id"], s["path"], s["heading"], s["start_line"], s["end_line"], "", text, 1.0, start_char=s["start_char"], end_char=s["end_char"]
            )
        )
    return FrozenContext(tuple(made), (), fence_for([m.text for m in made]), 0)


def packets(dumps: list[Path], tag: str = "") -> list[dict]:
    """One packet per reply of the dumps (a dump has a row per claim; the reply and sources repeat); `tag` prefixes
    the reply ids (replies of another run over the same questions)."""
    seen: dict[str, dict] = {}
    asked: dict[str, dict[str, str]] = {}
    for dump in dumps:
        for line in dump.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            key = f"{tag}{row['set']}:{row['id']}"
            if key in seen:
                continue
            if row["set"] not in asked:
                asked[row["set"]] = {q["id"]: q["question"] for q in questions(SETS[row["set"]])}
            context = context_of(vault_of(row["set"]), row["sources"])
            reply = clean(row["reply"], context.ids).text.strip()
            seen[key] = {
                "reply_id": key,
                "question": asked[row["set"]][row["id"]],
                "reply": reply,
                "sources": [{"id": s.id, "path": s.path, "heading": s.heading, "lines": _numbered(s.text, s.start_line)} for s in context.sources],
                "claims": [{"n": n, "text": c.text, "cited": list(c.cited)} for n, c in enumerate(claim_split.split(reply).claims, 1)],
                "where": {"set": row["set"], "id": row["id"], "raw_reply": row["reply"], "sources": row["sources"]},
            }
    return list(seen.values())


def scifact() -> tuple[list[dict], list[dict]]:
    """SciFact's claims as replies citing the abstracts they were written against, and the experts' verdicts as
    labels: SUPPORT is supported by its evidence sentences; CONTRADICT and NOT_ENOUGH_INFO are unsupported."""
    from rag.eval.data import EVAL_DATA

    base = EVAL_DATA / "qa" / "scifact"
    replies, labels = [], []
    for line in (base / "claims.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        sources = []
        for k, doc in enumerate(row["cited_doc_ids"], 1):
            text = read_note(base / "vault", f"{doc}.md").text
            heading = text.split("\n", 1)[0].lstrip("# ").strip()
            n = text.rstrip("\n").count("\n") + 1
            sources.append(
                {
                    "id": f"S{k}",
                    "path": f"{doc}.md",
                    "heading": heading,
                    "start_line": 1,
                    "end_line": n,
                    "start_char": 0,
                    "end_char": len(text.rstrip("\n")),
                }
            )
        reply_id = f"scifact:{row['id']}"
        replies.append(
            {"reply_id": reply_id, "question": "", "set": "scifact", "id": row["id"], "raw_reply": row["claim"] + " [S1]", "sources": sources}
        )
        ids = {s["path"]: s["id"] for s in sources}
        evidence = [{"source": ids[e["file"]], "lines": [e["lines"][0], e["lines"][-1]]} for e in row["evidence"] if e["file"] in ids]
        supported = row["verdict"] == "SUPPORT"
        labels.append(
            {
                "reply": reply_id,
                "n": 1,
                "claim": row["claim"],
                "label": "supported" if supported else "unsupported",
                "evidence": evidence if supported else [],
                "why": f"SciFact's experts: {row['verdict']}",
            }
        )
    return replies, labels


ACROSS = {"xquad-en": "xquad-en2ru", "xquad-ru": "xquad-ru2en"}  # a reply's set → its claims over the other vault


def across() -> tuple[list[dict], list[dict]]:
    """XQuAD's labelled replies with each source taken from the parallel note in the other language (its vault's
    notes have the same names and the same paragraph on the same line): a claim keeps its label, since the other
    paragraph is a translation of the one the reader judged. The claims that a person sees checked against notes in the
    other language, which the readers' sets hardly have. Each row keeps its original reply id in `split_as`, so it is in
    the aside third exactly when its original is."""
    replies, labels = [], []
    read = [
        json.loads(line)
        for f in (HERE / "replies-xquad.jsonl", HERE / "replies-xquad-again.jsonl")
        for line in f.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    originals = {row["reply_id"]: row for row in read}
    for reply_id, row in originals.items():
        target = ACROSS[row["set"]]
        vault = vault_of(target)
        sources = []
        for s in row["sources"]:
            text = read_note(vault, s["path"]).text
            starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
            end_line = min(s["end_line"], len(starts))
            end = starts[end_line] - 1 if end_line < len(starts) else len(text)
            sources.append({**s, "start_char": starts[s["start_line"] - 1], "end_char": end})
        moved = f"across-{reply_id}"
        replies.append({**row, "reply_id": moved, "set": target, "sources": sources, "split_as": reply_id})
    for f in (HERE / "labels-xquad.jsonl", HERE / "labels-xquad-again.jsonl"):
        for line in f.read_text(encoding="utf-8").splitlines():
            if line.strip() and (row := json.loads(line))["reply"] in originals:
                labels.append(
                    {**row, "reply": f"across-{row['reply']}", "split_as": row["reply"], "why": f"as labelled in the original language: {row['why']}"}
                )
    return replies, labels


def _numbered(text: str, start: int) -> str:
    return "\n".join(f"{start + i:>5}  {line}" for i, line in enumerate(text.split("\n")))


def load_labels(files: list[Path], part: str) -> list[dict]:
    rows = []
    for f in files:
        for line in f.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                if row.get("label") in ("supported", "unsupported") and keep(row.get("split_as", row["reply"]), part):
                    rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("packets")
    make.add_argument("dumps", type=Path, nargs="+")
    make.add_argument("--out", type=Path, required=True)
    make.add_argument("--tag", default="", help="prefix of the reply ids")
    make.add_argument("--replies", type=Path, help="also write the replies without note text (for bench/claims_dev/)")
    sub.add_parser(
        "scifact", help="write replies-scifact.jsonl and labels-scifact.jsonl from SciFact's verdicts (to $RAG_DEV_CACHE/claims, not the repo)"
    )
    sub.add_parser(
        "across", help="write replies-across.jsonl and labels-across.jsonl: XQuAD's claims over the other language's notes (to $RAG_DEV_CACHE/claims)"
    )
    score = sub.add_parser("score")
    score.add_argument("--labels", nargs="*", default=[str(p) for p in label_files()])
    score.add_argument("--part", choices=PARTS, default="all")
    score.add_argument("--json", action="store_true")
    score.add_argument("--misses", action="store_true")
    args = parser.parse_args()
    if args.command == "packets":
        made = packets(args.dumps, args.tag)
        with args.out.open("w", encoding="utf-8") as out:
            for p in made:
                out.write(json.dumps(p, ensure_ascii=False) + "\n")
        print(f"{len(made)} replies, {sum(len(p['claims']) for p in made)} claims → {args.out}", file=sys.stderr)
        if args.replies:
            with args.replies.open("w", encoding="utf-8") as out:
                for p in made:
                    out.write(json.dumps({"reply_id": p["reply_id"], "question": p["question"], **p["where"]}, ensure_ascii=False) + "\n")
        return
    if args.command in ("scifact", "across"):
        replies, labels = scifact() if args.command == "scifact" else across()
        for name, rows in ((f"replies-{args.command}.jsonl", replies), (f"labels-{args.command}.jsonl", labels)):
            DERIVED.mkdir(parents=True, exist_ok=True)
            (DERIVED / name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        return
    from claim_scores import score_labels

    files = [Path(p) for pattern in args.labels for p in glob.glob(pattern)]
    report = score_labels(load_labels(files, args.part), misses=args.misses)
    print(json.dumps(report, ensure_ascii=False, indent=2) if args.json else report)


if __name__ == "__main__":
    main()
