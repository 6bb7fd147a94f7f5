"""Calibrate near-duplicate detection and the closeness labels of similar notes on real text.

    python bench/duplicate_calibration.py [--json] [--articles 48] [--scifact 40] [--work DIR]

Builds three vaults from the real data in $RAG_EVAL_DATA/retrieval/ (written to a temporary folder, nothing
is copied into the repo), indexes each with the product's pipeline and default embedder (`LocalEmbedder`), and
labels every pair of notes in each vault:
- near-duplicate (positive): a note and an edited copy of it — the same text under another title, a paragraph
  added, sentences cut (a truncated draft), sentences reordered, a few words changed (about one in fifteen deleted
  or replaced by another word of the note), the note pasted twice into one file, the note pasted into a longer note
  after a paragraph on the same topic;
- same topic (hard negative): different notes on one subject — the paragraphs of one Wikipedia article in XQuAD
  (en and ru; a third of the articles as whole paragraphs, a third as two-sentence notes, a third as one-sentence
  notes), and in SciFact a seed abstract with the four abstracts sharing most of its rare words (BM25-like
  neighbours), written as paper notes from one template;
- other (negative): every other pair of the vault.
Copies take added text only from text that is no note (each article's fifth paragraph, each seed's fifth-nearest
abstract), so no copy contains another note. The demo vault (rag/demo_vault, personal notes) is indexed too, to show
how a real vault's pairs read and that none is flagged.

For each pair the product's own measures are taken (`rag.search.similar`: the cosine of note vectors, the text
overlap of stemmed word runs, the lift above the vault's median pair, the percentile and the label), and the
product's `duplicate_pairs` is run at its defaults. Printed: precision and recall of "near-duplicate" over all pairs
per cosine threshold, alone and with an overlap floor; the best rules at precision ≥ 0.95; the product's own
precision and recall, per set and per kind of copy; how much same-topic pairs share for runs of 2–4 words; and,
for the labels, how many pairs above each lift cut are on one topic. Sentence vectors are off: note vectors are made
from chunk vectors only, so they would change nothing here and cost most of the embedding time. About five minutes
on two busy cores; `--work DIR` keeps the indexes, so a re-run embeds nothing.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import shutil
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from rag.config import load_settings
from rag.embed.embedders import LocalEmbedder
from rag.eval.data import EVAL_DATA
from rag.search import similar
from rag.text import word_runs
from rag.text.sentences import split_sentences
from rag.text.stemming import STOP_WORDS, stem, words
from rag.workspace import Workspace

DATA = EVAL_DATA / "retrieval"
KINDS = ("title", "added", "truncated", "reordered", "reworded", "pasted-twice", "inside-longer")
COSINES = [0.80, 0.85, 0.88, 0.90, 0.92, 0.94, 0.95, 0.96, 0.97, 0.975, 0.98, 0.985, 0.99, 0.995]
OVERLAPS = [0.2, 0.3, 0.5, 0.7]
LIFTS = [0.0, 0.1, 0.15, 0.2, 0.25, 0.28, 0.3, 0.35, 0.4, 0.45, 0.5]
PRECISION_GOAL = 0.95


@dataclass
class Vault:
    name: str
    notes: dict[str, str] = field(default_factory=dict)  # path → Markdown
    topic: dict[str, str] = field(default_factory=dict)  # path → topic id (article, SciFact seed)
    source: dict[str, str] = field(default_factory=dict)  # path of a copy → (path of its original)
    kind: dict[str, str] = field(default_factory=dict)  # path of a copy → kind of edit

    def add(self, path: str, title: str, body: str, topic: str) -> None:
        self.notes[path] = f"# {title}\n\n{body}\n"
        self.topic[path] = topic

    def copy(self, original: str, kind: str, title: str, body: str) -> None:
        path = f"{original[:-3]} ({kind}).md"
        self.add(path, title, body, self.topic[original])
        self.source[path], self.kind[path] = original, kind


# --- building the vaults --------------------------------------------------------------------------------------


def sentences(text: str) -> list[str]:
    return [text[a:b].strip() for a, b in split_sentences(text)]


def title_of(text: str, start: int = 0) -> str:
    return " ".join(w.strip('.,;:()«»"') for w in text.split()[start : start + 6])


def edited_copy(vault: Vault, path: str, body: str, kind: str, extra: str, rng: random.Random, wrap=lambda text: text) -> None:
    """Add to `vault` a copy of the note at `path` edited as `kind`. The note is `wrap(body)`; `extra` is same-topic
    text that is no note of the vault."""
    title = vault.notes[path].split("\n", 1)[0][2:]
    parts = sentences(body)
    if kind == "title":
        vault.copy(path, kind, title_of(body, 8) or "Copy", wrap(body))
    elif kind == "added":
        vault.copy(path, kind, title, wrap(body + "\n\n" + " ".join(sentences(extra)[: max(1, len(parts) // 2)])))
    elif kind == "truncated":
        cut = " ".join(parts[: math.ceil(len(parts) * 0.6)]) if len(parts) > 1 else " ".join(body.split()[: math.ceil(len(body.split()) * 0.6)])
        vault.copy(path, kind, title, wrap(cut))
    elif kind == "reordered":
        vault.copy(path, kind, title, wrap(reorder(parts, rng) if len(parts) > 1 else swap_halves(body)))
    elif kind == "reworded":
        vault.copy(path, kind, title, wrap(reword(body, rng)))
    elif kind == "pasted-twice":
        vault.copy(path, kind, title, wrap(body) + "\n\n" + wrap(body))
    elif kind == "inside-longer":
        vault.copy(path, kind, title_of(extra), extra + "\n\n" + wrap(body))


def reorder(parts: list[str], rng: random.Random) -> str:
    order = list(range(len(parts)))
    while order == sorted(order):
        rng.shuffle(order)
    return " ".join(parts[i] for i in order)


def swap_halves(sentence: str) -> str:
    """One sentence's two halves swapped, at its middle comma if it has one."""
    words_ = sentence.rstrip(".").split(" ")
    commas = [i for i, w in enumerate(words_) if w.endswith(",")]
    cut = min(commas, key=lambda i: abs(i - len(words_) / 2)) + 1 if commas else len(words_) // 2
    return " ".join(words_[cut:] + words_[:cut]).rstrip(",") + "."


def reword(text: str, rng: random.Random, share: float = 1 / 15) -> str:
    """About `share` of the words deleted or replaced by another word of the same text."""
    tokens = text.split(" ")
    pool = [t for t in tokens if len(t) > 3 and t.isalpha()] or tokens
    out = []
    for token in tokens:
        r = rng.random()
        if r < share / 2:
            continue
        out.append(rng.choice(pool) if r < share else token)
    return " ".join(out)


def xquad_vault(language: str, articles: int, rng: random.Random) -> Vault:
    """Four notes per article, two of them copied with edits. A third of the articles give whole paragraphs, a third
    the first two sentences of each paragraph (short notes), a third one sentence each, taken in order from the
    first paragraphs (tiny notes, closest in topic). The fifth paragraph only ever appears inside a copy."""
    rows = [json.loads(line) for line in (DATA / f"xquad-{language}" / "corpus.jsonl").read_text(encoding="utf-8").splitlines()]
    by_article: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        by_article[row["article"]].append(row["text"].lstrip("\ufeff").strip())
    vault = Vault(f"xquad-{language}")
    for a, (article, paragraphs) in enumerate(list(by_article.items())[:articles]):
        size = ("Long", "Short", "Tiny")[a % 3]
        if size == "Long":
            bodies, extra = paragraphs[:4], paragraphs[4]
        elif size == "Short":
            bodies, extra = [" ".join(sentences(p)[:2]) for p in paragraphs[:4]], " ".join(sentences(paragraphs[4])[:2])
        else:
            bodies, extra = [s for p in paragraphs[:4] for s in sentences(p)][:4], sentences(paragraphs[4])[0]
        paths = []
        for i, body in enumerate(bodies):
            paths.append(f"{size}/{a:02d}-{i}.md")
            vault.add(paths[-1], title_of(body), body, article)
        # one copy may use the extra paragraph, the other never does (so no two copies share text)
        edited_copy(vault, paths[0], bodies[0], ("title", "added", "pasted-twice", "inside-longer")[a // 3 % 4], extra, rng)
        edited_copy(vault, paths[2], bodies[2], ("truncated", "reordered", "reworded")[a // 3 % 3], extra, rng)
    return vault


def scifact_vault(seeds: int, rng: random.Random) -> Vault:
    """Seed abstracts, each with the four abstracts sharing most of its rare words (same topic, other studies) and an
    edited copy of the seed; the fifth-nearest abstract only ever appears inside a copy. Notes follow a template
    (an abstract section and a takeaway), as paper notes in a vault often do."""
    rows = [json.loads(line) for line in (DATA / "scifact" / "corpus.jsonl").read_text(encoding="utf-8").splitlines()]
    rows = [r for r in rows if 600 <= len(r["text"]) <= 1800]
    stems = [{stem(w) for w in words(r["title"] + " " + r["text"]) if w not in STOP_WORDS and not w.isdigit()} for r in rows]
    df = Counter(s for doc in stems for s in doc)
    idf = {s: math.log(len(rows) / n) for s, n in df.items()}
    used: set[int] = set()
    vault = Vault("scifact")
    for seed in rng.sample(range(len(rows)), len(rows)):
        if len(vault.source) == seeds:
            break
        ranked = sorted((i for i in range(len(rows)) if i != seed), key=lambda i: -sum(idf[s] for s in stems[seed] & stems[i]))[:5]
        if used & {seed, *ranked}:
            continue
        used |= {seed, *ranked}
        for i in (seed, *ranked[:4]):
            vault.add(f"Papers/{rows[i]['id']}.md", rows[i]["title"].rstrip("."), paper_note(rows[i]["text"]), rows[seed]["id"])
        kind = KINDS[len(vault.source) % len(KINDS)]
        extra = rows[ranked[4]]["text"]
        edited_copy(vault, f"Papers/{rows[seed]['id']}.md", rows[seed]["text"], kind, extra, rng, wrap=paper_note)
    return vault


def paper_note(abstract: str) -> str:
    return f"## Abstract\n\n{abstract}\n\n## Takeaway\n\n- {sentences(abstract)[-1]}"


# --- measuring --------------------------------------------------------------------------------------------------


def index_vault(name: str, notes: dict[str, str], work: Path, embedder: LocalEmbedder):
    """Write the notes as a vault under `work/name` and index it with the product's pipeline; returns the note
    vectors, each note's word runs (for 2, 3 and 4 words) and the product's duplicate pairs at its defaults."""
    root = work / name
    shutil.rmtree(root / "vault", ignore_errors=True)  # a kept work folder: this run's notes only
    for path, text in notes.items():
        (root / "vault" / path).parent.mkdir(parents=True, exist_ok=True)
        (root / "vault" / path).write_text(text, encoding="utf-8")
    settings = load_settings(vault=root / "vault", db_path=root / "index.db", env={}, sentence_vectors=False)
    with Workspace.open(settings, create=True, embedder=embedder) as ws:
        report = ws.sync()
        print(f"{name}: {len(notes)} notes, {report.chunks_total} chunks, {report.chunks_embedded} embedded", file=sys.stderr)
        vectors = similar.note_vectors(ws.store, embedder.name)
        texts = {p: similar.note_text(ws.store, p) for p in vectors.paths}
        flagged = {(d.a, d.b) for d in similar.duplicate_pairs(ws.store, embedder.name, vectors=vectors)}
    runs = {size: {p: word_runs.shingles(t, size) for p, t in texts.items()} for size in (2, 3, 4)}
    return vectors, runs, flagged


def measure(vault: Vault, work: Path, embedder: LocalEmbedder) -> list[dict]:
    """Every pair of notes of the vault with its measures and labels."""
    vectors, runs, flagged = index_vault(vault.name, vault.notes, work, embedder)
    cosines = vectors.matrix @ vectors.matrix.T
    typical = vectors.typical()
    paths = vectors.paths
    pairs = []
    for i in range(len(paths)):
        for j in range(i + 1, len(paths)):
            a, b = paths[i], paths[j]
            copy = a if vault.source.get(a) == b else b if vault.source.get(b) == a else None
            cosine = min(float(cosines[i, j]), 1.0)
            overlaps = {k: word_runs.text_overlap(runs[k][a], runs[k][b]) for k in runs}
            pairs.append(
                {
                    "set": vault.name,
                    "a": a,
                    "b": b,
                    "cosine": cosine,
                    "overlap": overlaps[word_runs.SHINGLE_WORDS],
                    "overlap_by_size": overlaps,
                    "lift": (cosine - typical) / (1 - typical),
                    "percentile": vectors.percentile(cosine),
                    "closeness": similar.closeness(cosine, overlaps[word_runs.SHINGLE_WORDS], typical),
                    "flagged": (a, b) in flagged,
                    "duplicate": copy is not None,
                    "kind": vault.kind[copy] if copy else "",
                    "same_topic": vault.topic[a] == vault.topic[b] and copy is None,
                }
            )
    return pairs


def scores(pairs: list[dict], predict) -> dict:
    """Precision and recall of "near-duplicate" over all pairs, false positives split by same topic or not."""
    tp = sum(1 for p in pairs if p["duplicate"] and predict(p))
    fp_topic = sum(1 for p in pairs if p["same_topic"] and predict(p))
    fp_other = sum(1 for p in pairs if not p["duplicate"] and not p["same_topic"] and predict(p))
    positives = sum(1 for p in pairs if p["duplicate"])
    flagged = tp + fp_topic + fp_other
    return {
        "tp": tp,
        "fp_same_topic": fp_topic,
        "fp_other": fp_other,
        "fn": positives - tp,
        "precision": round(tp / flagged, 3) if flagged else 1.0,
        "recall": round(tp / positives, 3) if positives else 1.0,
    }


def best_rule(pairs: list[dict]) -> dict:
    """Of cosine ≥ t and overlap ≥ o over the grid: the best recall at precision ≥ PRECISION_GOAL; ties go to the
    lowest cut points that still reach it (the widest margin from what is not a copy is read off the tables)."""
    rules = [
        {"cosine": t, "overlap": o, **scores(pairs, lambda p, t=t, o=o: p["cosine"] >= t and p["overlap"] >= o)} for t in COSINES for o in OVERLAPS
    ]
    good = [r for r in rules if r["precision"] >= PRECISION_GOAL]
    return max(good, key=lambda r: (r["recall"], -r["cosine"], -r["overlap"])) if good else {}


def label_cuts(pairs: list[dict]) -> list[dict]:
    """For cut points on the lift: how many pairs above it are on one topic (or copies), and what share of each."""
    rows = []
    topic = sum(1 for p in pairs if p["same_topic"])
    other = sum(1 for p in pairs if not p["same_topic"] and not p["duplicate"])
    for cut in LIFTS:
        above = [p for p in pairs if p["lift"] >= cut]
        near = sum(1 for p in above if p["same_topic"] or p["duplicate"])
        rows.append(
            {
                "lift": cut,
                "precision_same_topic": round(near / len(above), 3) if above else 1.0,
                "same_topic_above": round(sum(1 for p in above if p["same_topic"]) / topic, 3),
                "other_above": round(sum(1 for p in above if not p["same_topic"] and not p["duplicate"]) / other, 4),
            }
        )
    return rows


def spread(values: list[float]) -> dict:
    values = sorted(values)
    return {q: round(values[min(len(values) - 1, int(q / 100 * len(values)))], 3) for q in (1, 5, 50, 95, 99)} | {"max": round(values[-1], 3)}


def demo_check(work: Path, embedder: LocalEmbedder) -> dict:
    """The demo vault (personal notes written for the app): how its pairs read, and that none is flagged."""
    demo = Path(similar.__file__).resolve().parent.parent / "demo_vault"
    notes = {p.relative_to(demo).as_posix(): p.read_text(encoding="utf-8") for p in sorted(demo.rglob("*.md"))}
    vectors, runs, flagged = index_vault("demo", notes, work, embedder)
    cosines = vectors.matrix @ vectors.matrix.T
    n = len(vectors)
    top = sorted(((float(cosines[i, j]), vectors.paths[i], vectors.paths[j]) for i in range(n) for j in range(i + 1, n)), reverse=True)[:5]
    shingle = runs[word_runs.SHINGLE_WORDS]
    return {
        "notes": n,
        "median_pair_cosine": round(vectors.typical(), 3),
        "flagged": len(flagged),
        "closest": [
            {
                "a": a,
                "b": b,
                "cosine": round(c, 3),
                "overlap": round(word_runs.text_overlap(shingle[a], shingle[b]), 3),
                "closeness": similar.closeness(c, word_runs.text_overlap(shingle[a], shingle[b]), vectors.typical()),
                "percentile": vectors.percentile(c),
            }
            for c, a, b in top
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--articles", type=int, default=48, help="XQuAD articles per language (of 48)")
    parser.add_argument("--scifact", type=int, default=40, help="SciFact seed abstracts (each brings four neighbours and a copy)")
    parser.add_argument("--work", type=Path, help="keep vaults and indexes here (a re-run embeds nothing new)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not DATA.exists():
        sys.exit(f"No data at {DATA}: this benchmark reads $RAG_EVAL_DATA/retrieval (see its README).")
    rng = random.Random(18)
    vaults = [xquad_vault("en", args.articles, rng), xquad_vault("ru", args.articles, rng), scifact_vault(args.scifact, rng)]
    embedder = LocalEmbedder()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        pairs = [p for v in vaults for p in measure(v, work, embedder)]
        demo = demo_check(work, embedder)
    print(json.dumps(report(pairs, demo), indent=2, ensure_ascii=False) if args.json else text(report(pairs, demo)))


def report(pairs: list[dict], demo: dict) -> dict:
    copies = [p for p in pairs if p["duplicate"]]
    topic = [p for p in pairs if p["same_topic"]]
    other = [p for p in pairs if not p["same_topic"] and not p["duplicate"]]
    product = {"cosine": similar.DUPLICATE_THRESHOLD, "overlap": similar.DUPLICATE_OVERLAP, **scores(pairs, lambda p: p["flagged"])}
    chosen = lambda p: p["flagged"]  # noqa: E731  (the product's own duplicate_pairs at its defaults)
    return {
        "notes": {"pairs": len(pairs), "near_duplicates": len(copies), "same_topic": len(topic), "other": len(other)},
        "cosine_only": [{"cosine": t, **scores(pairs, lambda p, t=t: p["cosine"] >= t)} for t in COSINES],
        "cosine_and_overlap": {
            o: [{"cosine": t, **scores(pairs, lambda p, t=t, o=o: p["cosine"] >= t and p["overlap"] >= o)} for t in COSINES] for o in OVERLAPS
        },
        "best_cosine_only": max(
            (r for r in [{"cosine": t, **scores(pairs, lambda p, t=t: p["cosine"] >= t)} for t in COSINES] if r["precision"] >= PRECISION_GOAL),
            key=lambda r: r["recall"],
            default={},
        ),
        "best_combined": best_rule(pairs),
        "product": product,
        "product_by_set": {s: scores([p for p in pairs if p["set"] == s], chosen) for s in sorted({p["set"] for p in pairs})},
        "product_recall_by_kind": {k: scores([p for p in copies if p["kind"] == k], chosen)["recall"] for k in KINDS},
        "word_runs": {
            size: {"copies": spread([p["overlap_by_size"][size] for p in copies]), "same_topic": spread([p["overlap_by_size"][size] for p in topic])}
            for size in (2, 3, 4)
        },
        "cosine": {
            "copies": spread([p["cosine"] for p in copies]),
            "same_topic": spread([p["cosine"] for p in topic]),
            "other": spread([p["cosine"] for p in other]),
        },
        "lift": {
            "copies": spread([p["lift"] for p in copies]),
            "same_topic": spread([p["lift"] for p in topic]),
            "other": spread([p["lift"] for p in other]),
        },
        "lift_by_set": {
            s: {
                "same_topic": spread([p["lift"] for p in topic if p["set"] == s])[50],
                "other": spread([p["lift"] for p in other if p["set"] == s])[50],
            }
            for s in sorted({p["set"] for p in pairs})
        },
        "label_cuts": label_cuts(pairs),
        "closeness": {
            name: dict(Counter(p["closeness"] for p in group)) for name, group in (("copies", copies), ("same_topic", topic), ("other", other))
        },
        "percentile": {
            "copies": spread([p["percentile"] for p in copies]),
            "same_topic": spread([p["percentile"] for p in topic]),
            "other": spread([p["percentile"] for p in other]),
        },
        "demo_vault": demo,
    }


def text(r: dict) -> str:
    n = r["notes"]
    out = [f"{n['pairs']} note pairs: {n['near_duplicates']} near-duplicates, {n['same_topic']} same-topic, {n['other']} other"]
    out += ["", "precision / recall of near-duplicate (fp: false pairs, same topic + other)"]
    out += ["  cosine >=   alone                         " + "".join(f"and overlap >= {o:<4}  " for o in OVERLAPS)]
    for k, alone in enumerate(r["cosine_only"]):
        cells = "".join(f"{rows[k]['precision']:.3f} / {rows[k]['recall']:.3f}     " for rows in r["cosine_and_overlap"].values())
        fp = f"fp {alone['fp_same_topic']}+{alone['fp_other']}"
        out.append(f"  {alone['cosine']:<9.3f}  {alone['precision']:.3f} / {alone['recall']:.3f}  {fp:<16}  {cells}")
    out += ["", f"best cosine alone at precision >= {PRECISION_GOAL}: {_rule(r['best_cosine_only'])}"]
    out += [f"best combined (lowest cut points at the best recall): {_rule(r['best_combined'])}"]
    out += [f"product defaults, by duplicate_pairs itself: {_rule(r['product'])}"]
    out += [f"  {s}: {_rule(v)}" for s, v in r["product_by_set"].items()]
    out += ["  recall by kind: " + ", ".join(f"{k} {v}" for k, v in r["product_recall_by_kind"].items())]
    out += ["", "overlap of word runs by run length (quantiles %):"]
    out += [f"  {k} words: copies {v['copies']}  same topic {v['same_topic']}" for k, v in r["word_runs"].items()]
    out += ["", "cosine quantiles (%):"] + [f"  {k}: {v}" for k, v in r["cosine"].items()]
    out += ["lift = (cosine - vault median) / (1 - vault median), quantiles (%):"] + [f"  {k}: {v}" for k, v in r["lift"].items()]
    out += ["median lift by set: " + ", ".join(f"{s} {v}" for s, v in r["lift_by_set"].items())]
    out += ["", "lift cut   P(same topic)   same topic above   other above"]
    out += [
        f"{c['lift']:8.2f}   {c['precision_same_topic']:13.3f}   {c['same_topic_above']:16.3f}   {c['other_above']:11.4f}" for c in r["label_cuts"]
    ]
    out += ["", "closeness labels (product):"] + [f"  {k}: {v}" for k, v in r["closeness"].items()]
    out += ["percentile in own vault, quantiles (%):"] + [f"  {k}: {v}" for k, v in r["percentile"].items()]
    d = r["demo_vault"]
    out += [
        "",
        f"demo vault: {d['notes']} notes, median pair cosine {d['median_pair_cosine']}, {d['flagged']} flagged as near-duplicates; closest pairs:",
    ]
    out += [f"  {c['cosine']:.3f}  overlap {c['overlap']:.3f}  {c['closeness']:15}  {c['percentile']}%  {c['a']} <-> {c['b']}" for c in d["closest"]]
    return "\n".join(out)


def _rule(r: dict) -> str:
    if not r:
        return "none"
    cut = (f"cosine >= {r['cosine']}" if "cosine" in r else "") + (f" and overlap >= {r['overlap']}" if "overlap" in r else "")
    return f"{cut + ': ' if cut else ''}precision {r['precision']:.3f}, recall {r['recall']:.3f} (tp {r['tp']}, fp {r['fp_same_topic']} same topic + {r['fp_other']} other, fn {r['fn']})"


if __name__ == "__main__":
    main()
