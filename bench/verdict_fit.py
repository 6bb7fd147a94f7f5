"""Fit the claim check's verdict (rag/answer/verdict_weights.json) on claims labelled by careful readers
(bench/claims_dev/), and report it leave-one-set-out and on the aside third.

    python bench/verdict_fit.py [--pairs-model rag/embed/pair_scorer.npz] [--write] [--json]

1. Every labelled claim is split out of its reply again and every window of every source of its context described by
   `evidence.word_features`; the best windows by words (READ_WIDE of them) are read by the models too (the e5
   cosine, the pair scorer's logit).
2. A window is a positive example when its claim is supported and it is the window on the reader's evidence lines
   that holds most of the claim, a negative one when its claim is unsupported (the supported claims' other windows
   are left out: they may say it too).
   Two logistic regressions (numpy, L2, each set of equal weight): "words" on the rules' signals alone, "full" with
   the models' readings, on the windows the words rank in the top READ_BY_MODELS.
3. A claim is supported when its best window's probability reaches the threshold: the one that maximises the
   smaller of "unsupported" precision and recall on the fitted claims.
Sets fitted on: every labelled set's fit part (bench/dev_split.py, by reply); never the aside third. Leave-one-set-out
fits on the other sets and scores the left-out one. The current check's statuses are reported beside.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from pathlib import Path

import numpy as np

from rag.answer import claim_view, evidence, passage_units, support
from rag.answer import claims as claim_split

sys.path.insert(0, str(Path(__file__).resolve().parent))

import logistic  # noqa: E402
from claim_labels import label_files, load_labels  # noqa: E402
from claim_scores import load_replies, reply_of, with_vectors  # noqa: E402
from dev_split import aside  # noqa: E402
from offline_answers import SETS, questions  # noqa: E402

READ_WIDE = 8  # windows per claim the models read while collecting (the product reads READ_BY_MODELS)
L2 = 0.02
GROUPS = {
    "old-fastapi-en": "fastapi",
    "old-fastapi-ru": "fastapi",
    "fastapi-en": "fastapi",
    "fastapi-ru": "fastapi",
    "xquad-en": "xquad",
    "xquad-ru": "xquad",
    "again-xquad-en": "xquad",
    "again-xquad-ru": "xquad",
}
GROUPS |= {"demo-more": "demo", "jsinfo-en": "jsinfo", "jsinfo-ru": "jsinfo", "diplodoc-en": "docs", "diplodoc-ru": "docs"}
GROUPS |= {"fastapi-more-en": "docs", "fastapi-more-ru": "docs"}
# XQuAD's claims against the other language's notes (`claim_labels.py across`): the same claims as xquad's, one group
GROUPS |= {f"across-{name}": "xquad" for name in ("xquad-en", "xquad-ru", "again-xquad-en", "again-xquad-ru")}


def group_of(reply_id: str) -> str:
    name = reply_id.split(":")[0]
    return GROUPS.get(name, name)


def collect(labels: list[dict], replies: dict, pairs_model: Path | None) -> list[dict]:
    """Per labelled claim: its label, group, aside flag and every window's features (models read on READ_WIDE)."""
    from rag.embed.pairs import PairScorer

    scorer = PairScorer(pairs_model) if pairs_model and pairs_model.exists() else None
    by_reply: dict[str, list[dict]] = {}
    for label in labels:
        by_reply.setdefault(label["reply"], []).append(label)
    sets = {replies[r]["set"] for r in by_reply}
    asked = {name: {q["id"]: q["question"] for q in questions(SETS[name])} for name in sets if name in SETS}
    out: list[dict] = []

    def run(name, vectors):
        for reply_id, rows in by_reply.items():
            if replies[reply_id]["set"] != name:
                continue
            r = reply_of(replies[reply_id], asked)
            passages = {s.id: passage_units.Passage.of(s) for s in r.context.sources}
            labelled = {label["n"]: label for label in rows}
            previous = None
            for n, c in enumerate(claim_split.split(r.reply).claims, 1):
                if c.code:
                    continue
                label = labelled.get(n)
                if label is not None and " ".join(c.text.split()) != " ".join(label["claim"].split()):
                    label = None
                described, previous = _describe(label, c, r.question, passages, vectors, scorer, previous)
                if label is not None:
                    out.append(described)

    with_vectors(sets, run)
    return out


def _describe(label: dict | None, claim, question: str, passages, vectors, scorer, previous) -> tuple[dict | None, object]:
    """The claim's windows described (None for an unlabelled claim), and its best window by words (for the next)."""
    view = claim_view.view(claim.text, question=question)
    rules = {pid: support.judge(view, p) for pid, p in passages.items()}
    found = [(p, w, evidence.word_features(view, p, w, previous, rules[pid])) for pid, p in passages.items() for w in evidence.windows(p)]
    prior = [f["overlap"] - f["missing"] - f["names_in_heading_only"] - 10 * (not evidence.holds_specifics(f)) for _, _, f in found]
    order = np.argsort(-np.array(prior)) if found else []
    nearest = found[int(order[0])][1] if found else None
    if label is None:
        return None, nearest
    wide = [int(i) for i in order[:READ_WIDE]]
    read = evidence._models(view, [(found[i][0], found[i][1]) for i in wide], vectors, scorer) if wide else None
    rows = []
    for k, (_, w, f) in enumerate(found):
        extra = read[wide.index(k)] if read is not None and k in wide else {}
        on = any(e["source"] == w.source and w.start_line <= e["lines"][-1] and w.end_line >= e["lines"][0] for e in label.get("evidence", []))
        rows.append({"features": {**f, **extra}, "read": bool(extra), "on_evidence": on, "cited": w.source in claim.cited, "source": w.source})
    described = {
        "reply": label["reply"],
        "claim": label["claim"],
        "label": label["label"],
        "group": group_of(label["reply"]),
        "aside": aside(label.get("split_as", label["reply"])),
    }
    return described | {"windows": rows}, nearest


def matrix(claims: list[dict], features: tuple[str, ...], *, read_only: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    X, y, g = [], [], []
    groups = sorted({c["group"] for c in claims})
    for c in claims:
        positive = _evidence_window(c)
        for w in c["windows"]:
            if (read_only and not w["read"]) or not evidence.holds_specifics(w["features"]):
                continue
            if c["label"] == "supported" and w is not positive:
                continue
            X.append([w["features"].get(f, 0.0) for f in features])
            y.append(float(c["label"] == "supported"))
            g.append(groups.index(c["group"]))
    return np.array(X), np.array(y), np.array(g)


def _evidence_window(claim: dict) -> dict | None:
    """Of a supported claim's windows on the reader's evidence lines, the one that holds most of it (fewest specifics
    missing, most words): a window that only touches those lines may not say it."""
    on = [w for w in claim["windows"] if w["on_evidence"]] if claim["label"] == "supported" else []
    return min(on, key=lambda w: (w["features"]["missing"], -w["features"]["overlap"])) if on else None


# The full verdict's features: every one, or the few that carried across sets (leave-one-set-out) when they were chosen
PRESETS = {
    "all": evidence.FEATURES,
    "small": (
        "missing",
        "counts_other",
        "names_in_heading_only",
        "overlap",
        "negation_differs",
        "rules",
        "pair",
        "pair_read",
        "across",
        "across_pair",
    ),
}


def fit(claims: list[dict], full: tuple[str, ...] = evidence.FEATURES) -> dict[str, evidence.Weights]:
    out = {}
    for name, features, read_only in (("words", evidence.WORD_FEATURES, False), ("full", full, True)):
        X, y, g = matrix(claims, features, read_only=read_only)
        if not len(X) or len(set(y)) < 2:
            continue
        beta, mean, scale = logistic.fit(X, y, g, l2=L2, steps=60)
        out[name] = evidence.Weights(beta, mean, scale, 0.5, features)
    verdict = "full" if "full" in out else "words"
    probs = [claim_probability(c, out) for c in claims]
    out[verdict] = evidence.Weights(
        *[getattr(out[verdict], k) for k in ("weights", "mean", "scale")], best_threshold(claims, probs), out[verdict].features
    )
    return out


def claim_probability(claim: dict, weights: dict[str, evidence.Weights]) -> float:
    """As `evidence.judge_claim` decides: the words rank the windows, the models read the best READ_BY_MODELS."""
    words = weights["words"]
    rows = [w for w in claim["windows"] if evidence.holds_specifics(w["features"])]  # as judge_claim: the others state nothing
    if not rows:
        return 0.0
    X = np.array([[w["features"].get(f, 0.0) for f in words.features] for w in rows])
    prior = words.probability(X)
    if "full" not in weights:
        return float(prior.max())
    top = [i for i in np.argsort(-prior)[: evidence.READ_BY_MODELS] if rows[i]["read"]]
    if not top:
        return float(prior.max())
    full = weights["full"]
    F = np.array([[rows[i]["features"].get(f, 0.0) for f in full.features] for i in top])
    confirmed = np.array([evidence.read_across(rows[i]["features"]) for i in top])
    return float((full.probability(F) * confirmed).max())


def best_threshold(claims: list[dict], probs: list[float]) -> float:
    bad = np.array([c["label"] == "unsupported" for c in claims])
    p = np.array(probs)
    best = (-1.0, 0.5)
    for t in np.unique(np.round(p, 3)):
        flagged = p < t
        tp = (flagged & bad).sum()
        prec = tp / max(1, flagged.sum())
        rec = tp / max(1, bad.sum())
        best = max(best, (min(prec, rec), float(t)))
    return best[1]


def scores(claims: list[dict], probs: list[float], threshold: float) -> dict:
    bad = np.array([c["label"] == "unsupported" for c in claims], bool)
    flagged = np.array(probs) < threshold
    tp, fp, fn = int((flagged & bad).sum()), int((flagged & ~bad).sum()), int((~flagged & bad).sum())
    wrong = {c["reply"] for c, f, b in zip(claims, flagged, bad) if b and not f}
    return {
        "claims": len(claims),
        "replies": len({c["reply"] for c in claims}),
        "unsupported": int(bad.sum()),
        "precision": round(tp / (tp + fp), 3) if tp + fp else None,
        "recall": round(tp / (tp + fn), 3) if tp + fn else None,
        "wrong_shown": fn,
        "replies_with_wrong_shown": len(wrong),
        "correct_refused": fp,
    }


def evaluate(claims: list[dict], weights: dict[str, evidence.Weights]) -> dict:
    verdict = weights["full" if "full" in weights else "words"]
    probs = [claim_probability(c, weights) for c in claims]
    return scores(claims, probs, verdict.threshold)


def weights_json(weights: dict[str, evidence.Weights], manifest: dict) -> dict:
    parts = {
        name: {
            "features": list(w.features),
            "weights": [round(float(v), 6) for v in w.weights],
            "mean": [round(float(v), 6) for v in w.mean],
            "scale": [round(float(v), 6) for v in w.scale],
            "threshold": round(w.threshold, 4),
        }
        for name, w in weights.items()
    }
    return {"fitted_by": "bench/verdict_fit.py", **manifest, "verdicts": parts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs-model", type=Path, default=Path(__file__).resolve().parents[1] / "rag" / "embed" / "pair_scorer.npz")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/verdict-data.pkl"))
    parser.add_argument("--fresh", action="store_true", help="describe the claims again (after changing features or the scorer)")
    parser.add_argument("--features", default="all", help=f"the full verdict's features: {' or '.join(PRESETS)}, or names, comma-separated")
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.cache.exists() and not args.fresh:
        claims = pickle.loads(args.cache.read_bytes())
    else:
        claims = collect(load_labels(label_files(), "all"), load_replies(), args.pairs_model)
        args.cache.write_bytes(pickle.dumps(claims))
    fit_part = [c for c in claims if not c["aside"]]
    held = [c for c in claims if c["aside"]]
    report: dict = {"claims": len(claims), "fit": len(fit_part), "aside": len(held)}
    full = PRESETS.get(args.features) or tuple(args.features.split(","))
    weights = fit(fit_part, full)
    report["features"] = list(full)
    report["on_fit"] = evaluate(fit_part, weights)
    report["aside_third"] = evaluate(held, weights)
    report["aside_by_group"] = {g: evaluate([c for c in held if c["group"] == g], weights) for g in sorted({c["group"] for c in held})}
    report["leave_one_set_out"] = {}
    loso_probs = []
    for g in sorted({c["group"] for c in claims}):
        w = fit([c for c in fit_part if c["group"] != g], full)
        report["leave_one_set_out"][g] = evaluate([c for c in claims if c["group"] == g], w)
        loso_probs += [(c, claim_probability(c, w), w["full" if "full" in w else "words"].threshold) for c in claims if c["group"] == g]
    report["leave_one_set_out_pooled"] = scores([c for c, _, _ in loso_probs], [p - t + 0.5 for _, p, t in loso_probs], 0.5)
    if args.write:
        manifest = {"claims_fitted": len(fit_part), "groups": sorted({c["group"] for c in fit_part}), "pair_scorer": args.pairs_model.name}
        evidence.WEIGHTS.write_text(json.dumps(weights_json(weights, manifest), indent=1) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2) if args.json else report)


if __name__ == "__main__":
    main()
