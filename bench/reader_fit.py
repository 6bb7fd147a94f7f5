"""Fit the extractive reader's weights (rag/answer/reader_weights.json) on QA sets with gold lines, and report how
it does on each set when that set was left out of the fit.

    python bench/reader_fit.py [--sets demo,fastapi-en,fastapi-ru,xquad-en,xquad-ru] [--held-out holdout]
                               [--db-dir /tmp/rag-eval] [--cache /tmp/reader-data] [--write] [--json]

1. Every question of every set is asked as `ask` asks it (same retrieval, same capped context); every candidate unit
   of the context is described by `reader.describe`. A candidate is right when it lies on the gold lines of the
   gold note and holds the answer key (or, where none does, when it lies on the gold lines).
2. The candidate model is a conditional logit (a softmax over one question's candidates, L2-regularised), each set
   weighted alike whatever its size; fitted with numpy.
3. Whether a context answers at all is a logistic regression over the context's features (the best candidate's
   score among them): answerable questions against off-topic ones — the sets' own off-topic questions and every
   other set's questions asked of this vault (a FastAPI question asked of the demo vault has no answer there). Its
   thresholds (for a best passage in the question's language and in the other) are the highest that keep false
   "not found" on answerable training questions ≤ MAX_FALSE_NOT_FOUND.
4. Leave-one-set-out: for each set (the FastAPI sets count as one group, XQuAD's as one), fit on the others and
   measure on it; the held-out sets (--held-out) are never fitted on.
Retrieved contexts are cached per set in --cache (delete it after changing retrieval or the context builder).
--write saves the weights fitted on all --sets.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import random
import sys
from pathlib import Path

import numpy as np

from rag.answer import reader, reader_model
from rag.answer.ask import read_in_period, retrieve_context, text_vectors
from rag.config import load_settings
from rag.workspace import Workspace

sys.path.insert(0, str(Path(__file__).resolve().parent))

import logistic  # noqa: E402
from offline_answers import DEV_SETS, SETS, has_keys, index_path, offtopic_for, on_gold, questions, today_of  # noqa: E402

# Parallel sets (the same paragraphs and questions, translated) count as one.
GROUPS = {"xquad-en": "xquad", "xquad-ru": "xquad", "xquad-ru2en": "xquad", "xquad-en2ru": "xquad", "demo-more": "demo", "time": "demo"}
GROUPS |= {"jsinfo-en": "jsinfo", "jsinfo-ru": "jsinfo", "diplodoc-en": "diplodoc", "diplodoc-ru": "diplodoc"}
GROUPS |= {"fastapi-more-en": "fastapi", "fastapi-more-ru": "fastapi", "fastapi-en": "fastapi", "fastapi-ru": "fastapi"}


def group_of(name: str) -> str:
    base = name.partition("@")[0]
    return GROUPS.get(base, base)


CROSS_PER_SET = 40  # questions of each other set asked of a vault as off-topic
# False "not found" allowed on answerable training questions: where the best passage is in the question's language,
# and where it is in the other (cosines across languages overlap off-topic ones more: bench/reader_fit.py reports it).
MAX_FALSE_NOT_FOUND = 0.03
MAX_FALSE_NOT_FOUND_ACROSS = 0.15
L2 = 0.01


def parted(name: str) -> tuple[str, str]:
    """ "jsinfo-en" → the set's fit part (all of a set without an aside third); "jsinfo-en@aside" → its aside third."""
    base, _, part = name.partition("@")
    return base, part or ("fit" if base in DEV_SETS else "all")


def collect(name: str, db_dir: Path, cache: Path, others: dict[str, list[dict]]) -> dict:
    """Features of every answerable question of set `name` and of its off-topic questions. The retrieved contexts are
    cached in --cache (delete it after changing retrieval or the context builder); features are computed afresh."""
    base, part = parted(name)
    qa = SETS[base]
    settings = load_settings(vault=qa.vault, db_path=index_path(base, db_dir), env={})
    asked = [(item, True) for item in questions(qa, part=part)]
    asked += [(q, False) for q in offtopic_for(qa, part)]
    for other, items in others.items():
        if parted(other)[0] != base and group_of(other) != group_of(name):
            asked += [({"id": f"{other}:{q['id']}", "question": q["question"]}, False) for q in items]
    key = hashlib.sha256(json.dumps([item["question"] for item, _ in asked]).encode()).hexdigest()[:12]
    path = cache / f"{name}-{key}.pickle"
    rows = {
        "X": [],
        "q": [],
        "gold": [],
        "source_gold": [],
        "key": [],
        "chars": [],
        "C": [],
        "answerable": [],
        "ids": [],
        "texts": [],
        "questions": [],
        "across": [],
        "across_names": [],
        "note_kw_cover": [],
    }
    with Workspace.open(settings, create=True) as ws:
        if path.exists():
            contexts = pickle.loads(path.read_bytes())
        else:
            ws.sync()
            contexts = [retrieve_context(ws, item["question"], today=today_of(item)) for item, _ in asked]
            contexts = [(context, result.coverage, result.time) for result, context in contexts]
            cache.mkdir(parents=True, exist_ok=True)
            path.write_bytes(pickle.dumps(contexts))
        vectors = text_vectors(ws)
        for (item, answerable), (context, coverage, *time) in zip(asked, contexts):
            candidates = reader.candidates_of(context)
            if not candidates:
                continue
            question, period = read_in_period(item["question"], time[0] if time else None)
            X, extra = reader.describe(question, candidates, vectors, period=period)
            qid = len(rows["ids"])
            rows["ids"].append(item["id"])
            rows["questions"].append(item["question"])
            rows["texts"].extend(c.unit.scoring for c in candidates)
            rows["answerable"].append(answerable)
            extra["vault_coverage"] = coverage
            rows["C"].append(reader.context_features(question, candidates, 0, 0.0, extra))
            # What the context features take from the best candidate's note, per candidate: `context_matrix` reads
            # them at the best one (as `reader.read` does), not at the context's first.
            across = np.array([reader.across(question, c) for c in candidates])
            rows["across"].append(across)
            names = np.array([extra["note_names"].get(c.source.path, 0.0) if extra["names"] else 0.0 for c in candidates])
            rows["across_names"].append(across * names)
            cover = {path: reader.note_cover(question, candidates, path) for path in {c.source.path for c in candidates}}
            rows["note_kw_cover"].append(np.array([cover[c.source.path] for c in candidates]))
            rows["X"].append(X)
            rows["q"].append(np.full(len(candidates), qid))
            gold = [answerable and _on_gold(c, item) for c in candidates]
            rows["source_gold"].append(np.array([answerable and _on_gold(c, item, whole_source=True) for c in candidates]))
            rows["gold"].append(np.array(gold))
            rows["key"].append(np.array([g and has_keys(c.unit.text, item["keys"]) for g, c in zip(gold, candidates)]))
            rows["chars"].append(np.array([len(c.unit.text) for c in candidates]))
    return {
        "X": np.vstack(rows["X"]),
        "q": np.concatenate(rows["q"]),
        "gold": np.concatenate(rows["gold"]),
        "source_gold": np.concatenate(rows["source_gold"]),
        "key": np.concatenate(rows["key"]),
        "chars": np.concatenate(rows["chars"]),
        "across": np.concatenate(rows["across"]),
        "across_names": np.concatenate(rows["across_names"]),
        "note_kw_cover": np.concatenate(rows["note_kw_cover"]),
        "C": np.array(rows["C"]),
        "answerable": np.array(rows["answerable"]),
        "ids": np.array(rows["ids"]),
        "texts": rows["texts"],
        "questions": rows["questions"],
    }


def _on_gold(c: reader.Candidate, item: dict, *, whole_source: bool = False) -> bool:
    """The candidate's lines (or, with `whole_source`, its source's) overlap the gold lines of the gold note."""
    start, end = (c.source.start_line, c.source.end_line) if whole_source else (c.unit.start_line, c.unit.end_line)
    return on_gold(c.source.path, start, end, item)


def targets(data: dict) -> np.ndarray:
    """Per candidate, whether it is a right answer: on gold and holding the key where any candidate of its question
    does, else on gold; and among those only the shortest (within 2×): a whole paragraph or list that happens to
    hold the answer is not what a reader would quote first when one of its sentences says it."""
    q, gold, key, chars = data["q"], data["gold"], data["key"], data["chars"]
    n = q.max() + 1
    has_key = np.zeros(n, bool)
    np.logical_or.at(has_key, q, key)
    right = np.where(has_key[q], key, gold)
    shortest = np.full(n, np.inf)
    np.minimum.at(shortest, q[right], chars[right])
    return right & (chars <= 2 * shortest[q])


def fit_ranker(
    parts: list[dict], *, steps: int = 600, lr: float = 0.05, l2: float | None = None, shares: list[float] | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Conditional logit: maximise Σ_q w_q log Σ_{right i} softmax(X_q w)_i, every set of equal total weight."""
    X, q, y, wq = [], [], [], []
    offset = 0
    for k, data in enumerate(parts):
        t = targets(data)
        keep_q = np.zeros(data["q"].max() + 1, bool)
        np.logical_or.at(keep_q, data["q"], t)
        keep_q &= data["answerable"]
        rows = keep_q[data["q"]]
        if not rows.any():
            continue
        _, local = np.unique(data["q"][rows], return_inverse=True)
        X.append(data["X"][rows])
        y.append(t[rows])
        q.append(local + offset)
        n_q = local.max() + 1
        wq.append(np.full(n_q, (shares[k] if shares else 1.0) / n_q))
        offset += n_q
    X, q, y, wq = np.vstack(X), np.concatenate(q), np.concatenate(y).astype(float), np.concatenate(wq)
    wq = wq / wq.sum()
    mean, scale = X.mean(0), X.std(0)
    scale[scale < 1e-9] = 1.0
    Z = (X - mean) / scale
    starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
    w = np.zeros(Z.shape[1])
    m, v = np.zeros_like(w), np.zeros_like(w)
    for t in range(1, steps + 1):
        s = Z @ w
        top = np.maximum.reduceat(s, starts)[q]
        e = np.exp(s - top)
        p_all = e / np.add.reduceat(e, starts)[q]
        ey = e * y
        p_pos = ey / np.maximum(np.add.reduceat(ey, starts)[q], 1e-300)
        grad = Z.T @ ((p_all - p_pos) * wq[q]) + 2 * (L2 if l2 is None else l2) * w
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad**2
        w -= lr * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    return w, mean, scale


def best_per_question(data: dict, w, mean, scale) -> tuple[np.ndarray, np.ndarray]:
    """Index of the best candidate of each question, and its score."""
    s = ((data["X"] - mean) / scale) @ w
    n = data["q"].max() + 1
    best = np.full(n, -1)
    score = np.full(n, -np.inf)
    for i, (qi, si) in enumerate(zip(data["q"], s)):
        if si > score[qi]:
            best[qi], score[qi] = i, si
    return best, score


def context_matrix(data: dict, w, mean, scale) -> np.ndarray:
    best, score = best_per_question(data, w, mean, scale)
    C = data["C"].copy()
    C[:, reader.CONTEXT_FEATURES.index("best_score")] = score
    period = C[:, reader.CONTEXT_FEATURES.index("period")]
    C[:, reader.CONTEXT_FEATURES.index("best_in_period")] = period * data["X"][best, reader.FEATURES.index("in_period")]
    across = data["across"][best]
    C[:, reader.CONTEXT_FEATURES.index("across")] = across
    C[:, reader.CONTEXT_FEATURES.index("across_cos")] = across * C[:, reader.CONTEXT_FEATURES.index("best_cos")]
    C[:, reader.CONTEXT_FEATURES.index("across_margin")] = across * C[:, reader.CONTEXT_FEATURES.index("cos_margin")]
    C[:, reader.CONTEXT_FEATURES.index("across_names")] = data["across_names"][best]
    C[:, reader.CONTEXT_FEATURES.index("across_words")] = across * data["X"][best, reader.FEATURES.index("kw_across")]
    C[:, reader.CONTEXT_FEATURES.index("note_kw_cover")] = data["note_kw_cover"][best]
    return C


def fit_answerable(parts: list[dict], w, mean, scale) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[float, float]]:
    """Logistic regression answerable vs not, every set and both classes of equal weight, and the thresholds for "not
    found" (one where the best passage is in the question's language, one where it is in the other: cosines across
    languages run lower, so one threshold would either refuse them or let off-topic questions through)."""
    C = np.vstack([context_matrix(d, w, mean, scale) for d in parts])
    y = np.concatenate([d["answerable"] for d in parts]).astype(float)
    part = np.concatenate([np.full(len(d["answerable"]), k) for k, d in enumerate(parts)])
    beta, cm, cs = logistic.fit(C, y, part, l2=L2, steps=50)
    p = logistic.probability(np.hstack([(C - cm) / cs, np.ones((len(C), 1))]), beta)
    across = C[:, reader.CONTEXT_FEATURES.index("across")] > 0
    thresholds = (_threshold(p, y == 1, part, ~across, MAX_FALSE_NOT_FOUND), _threshold(p, y == 1, part, across, MAX_FALSE_NOT_FOUND_ACROSS))
    return beta, cm, cs, thresholds


def _threshold(p: np.ndarray, answerable: np.ndarray, part: np.ndarray, rows: np.ndarray, allowed: float) -> float:
    """The highest probability that keeps false "not found" on the answerable questions among `rows` at `allowed`,
    averaged over the sets that have at least 5 of them."""
    groups = [p[answerable & rows & (part == k)] for k in np.unique(part)]
    groups = [g for g in groups if len(g) >= 5]
    threshold = 0.0
    for t in np.sort(np.concatenate(groups)) if groups else ():
        if np.mean([np.mean(g < t) for g in groups]) > allowed:
            break
        threshold = float(t)
    return threshold


def evaluate(data: dict, model: dict) -> dict:
    w, mean, scale = model["w"], model["mean"], model["scale"]
    best, _ = best_per_question(data, w, mean, scale)
    C = context_matrix(data, w, mean, scale)
    beta, cm, cs, threshold = model["beta"], model["cm"], model["cs"], model["threshold"]
    Z = np.hstack([(C - cm) / cs, np.ones((len(C), 1))])
    p = 1 / (1 + np.exp(-(Z @ beta)))
    across = C[:, reader.CONTEXT_FEATURES.index("across")] > 0
    found = p >= np.where(across, threshold[1], threshold[0])
    ans = data["answerable"]
    gold_any = np.zeros(len(ans), bool)
    np.logical_or.at(gold_any, data["q"], data["gold"])
    on_gold = data["gold"][best] & found
    source = data["source_gold"][best] & found
    key = data["key"][best] & found
    official = np.array([":" not in str(i) for i in data["ids"]])
    n = max(1, ans.sum())
    return {
        "questions": int(ans.sum()),
        "gold_in_context": round(float(gold_any[ans].sum() / n), 3),
        "top_on_gold": round(float(on_gold[ans].sum() / n), 3),
        "top_source_on_gold": round(float(source[ans].sum() / n), 3),
        "top_on_gold_with_key": round(float(key[ans].sum() / n), 3),
        "false_not_found": round(float((~found[ans]).sum() / n), 3),
        "offtopic_not_found": round(float((~found[~ans & official]).mean()), 3) if (~ans & official).any() else None,
        "cross_set_not_found": round(float((~found[~ans & ~official]).mean()), 3) if (~ans & ~official).any() else None,
    }


def fit(parts: list[dict]) -> dict:
    w, mean, scale = fit_ranker(parts)
    beta, cm, cs, threshold = fit_answerable(parts, w, mean, scale)
    return {"w": w, "mean": mean, "scale": scale, "beta": beta, "cm": cm, "cs": cs, "threshold": threshold}


def without_meaning(data: dict) -> dict:
    """The set as `reader.describe` sees it without sentence vectors (no embedder, or one the weights were not fitted
    for): every cosine 0 and no unit measured."""
    out = dict(data)
    X, C = data["X"].copy(), data["C"].copy()
    for name in reader_model.MEANING_FEATURES:
        X[:, reader.FEATURES.index(name)] = 1.0 if name == "no_vector" else 0.0
    for name in reader_model.MEANING_CONTEXT_FEATURES:
        C[:, reader.CONTEXT_FEATURES.index(name)] = 0.0
    out["X"], out["C"] = X, C
    return out


def _weights_json(model: dict) -> dict:
    return {
        "weights": model["w"].round(6).tolist(),
        "mean": model["mean"].round(6).tolist(),
        "scale": model["scale"].round(6).tolist(),
        "context_weights": model["beta"].round(6).tolist(),
        "context_mean": model["cm"].round(6).tolist(),
        "context_scale": model["cs"].round(6).tolist(),
        "threshold": {"same_language": round(model["threshold"][0], 6), "across_languages": round(model["threshold"][1], 6)},
    }


DUMP_TOP = 12  # candidates per question written as pairs: the first stage's best


def dump_pairs(path: Path, data: dict[str, dict], model: dict) -> None:
    """Each answerable question against its DUMP_TOP best candidates by the first stage, 1 for a right answer."""
    import pair_data

    with path.open("w", encoding="utf-8") as out:
        for name, d in data.items():
            s = ((d["X"] - model["mean"]) / model["scale"]) @ model["w"]
            right = targets(d)
            for qi, question in enumerate(d["questions"]):
                rows = np.flatnonzero(d["q"] == qi)
                if not d["answerable"][qi] or not right[rows].any():
                    continue
                for i in rows[np.argsort(-s[rows])[:DUMP_TOP]]:
                    pair = pair_data.Pair(pair_data.QUESTION, question, d["texts"][i], int(right[i]), name, str(d["ids"][qi]), "context")
                    out.write(json.dumps(pair.to_json(), ensure_ascii=False) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="demo,fastapi-en,fastapi-ru,xquad-en,xquad-ru,xquad-ru2en,xquad-en2ru")
    parser.add_argument("--held-out", default="holdout")
    parser.add_argument("--db-dir", type=Path, default=Path("/tmp/rag-eval"))
    parser.add_argument("--cache", type=Path, default=Path("/tmp/reader-data"))
    parser.add_argument("--write", action="store_true", help=f"save the weights fitted on all --sets to {reader.WEIGHTS}")
    parser.add_argument("--dump-pairs", type=Path, help="write question–unit training pairs for bench/pair_fit.py (the --sets only)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    names = args.sets.split(",")
    held = [h for h in args.held_out.split(",") if h]
    rng = random.Random(7)
    pools = {n: questions(SETS[parted(n)[0]], part=parted(n)[1]) for n in names}  # held-out questions are never seen in a fit, not even as off-topic
    # A question asked on its own day (bench/time_questions) is another question without that day: not asked elsewhere.
    others = {n: rng.sample(items, min(CROSS_PER_SET, len(items))) for n, items in pools.items() if not any("today" in q for q in items)}
    data = {n: collect(n, args.db_dir, args.cache, others) for n in names + held}
    report: dict = {"leave_one_out": {}, "all": {}, "words_only": {}}
    for group in dict.fromkeys(group_of(n) for n in names):
        fitted_on = [data[n] for n in names if group_of(n) != group]
        model = fit(fitted_on)
        for n in names + held:
            if group_of(n) == group:
                report["leave_one_out"][n] = evaluate(data[n], model)
    model = fit([data[n] for n in names])
    if args.dump_pairs:
        dump_pairs(args.dump_pairs, {n: data[n] for n in names}, model)
    for n in names + held:
        report["all"][n] = evaluate(data[n], model)
    words = {n: without_meaning(d) for n, d in data.items()}
    words_model = fit([words[n] for n in names])
    for n in names + held:
        report["words_only"][n] = evaluate(words[n], words_model)
    report["weights"] = dict(zip(reader.FEATURES, np.round(model["w"], 3).tolist()))
    report["context_weights"] = dict(zip(reader.CONTEXT_FEATURES + ("intercept",), np.round(model["beta"], 3).tolist()))
    report["threshold"] = [round(t, 4) for t in model["threshold"]]
    if args.write:
        fitted = {"fitted_on": names, "features": list(reader.FEATURES), "context_features": list(reader.CONTEXT_FEATURES)}
        fitted |= {"with_meaning": _weights_json(model), "words_only": _weights_json(words_model)}
        reader.WEIGHTS.write_text(json.dumps(fitted, indent=1) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return
    for part in ("leave_one_out", "all", "words_only"):
        print(f"{part.replace('_', ' ')}:")
        for n, r in report[part].items():
            print(f"  {n}: {r}")
    print("weights:", ", ".join(f"{k} {v:+.2f}" for k, v in sorted(report["weights"].items(), key=lambda kv: -abs(kv[1]))))
    print("answerable:", report["context_weights"], "threshold", report["threshold"])


if __name__ == "__main__":
    main()
