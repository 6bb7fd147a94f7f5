"""Training pairs for the pair scorer (bench/pair_fit.py), from real text only: "does passage B state what claim A
says" and "does passage B answer question A".

Claims, made from the sentences of real paragraphs (XQuAD's parallel English and Russian Wikipedia paragraphs, and
any vault given), each paired with the sentence it came from:
- stated (1): the sentence itself, one of its clauses, and its translation (the parallel paragraph's sentence that
  carries the same numbers and names), so that a claim in other words or another language still counts;
- not stated (0): the sentence with one thing changed, as a weak model changes it — a number swapped for another of
  the paragraph, the noun a number counts swapped for another one counted there (136 sacks → 136 interceptions), a
  name swapped for another name of the paragraph (Kawann Short → Jared Allen), a negation added or dropped, and the
  first half of one sentence joined to the second half of another; and the claim against the paragraph's other
  sentences.
SciFact's claims against their abstracts' sentences: the expert evidence sentences of SUPPORT claims stated (1),
those of CONTRADICT claims and the other sentences not (0).
Questions: a QA set's question against the units of the notes retrieval gave it, 1 for a unit on the gold lines that
holds an answer key, 0 for one off them (bench/pair_contexts.py writes those).

Every pair says which set it came from and carries the id of the item it was made from, so a fit can leave a set
out and keep the aside third (bench/dev_split.py) out.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from pathlib import Path

from rag.answer.specifics import specifics
from rag.eval.data import EVAL_DATA
from rag.text import sentences, stemming

CLAIM, QUESTION = "claim", "question"


@dataclass(frozen=True)
class Pair:
    task: str  # CLAIM or QUESTION
    a: str  # the claim or the question
    b: str  # the passage's unit
    label: int  # 1: b states a / answers a
    set: str  # where it came from (leave-one-set-out)
    item: str  # the id it was made from (the aside third is chosen by it)
    kind: str = ""  # how it was made ("number", "name", "translation" …)

    def to_json(self) -> dict:
        return self.__dict__


_NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)?(?:½)?(?![\w])")
_WORD = re.compile(r"[^\W\d_]{3,}")
_NAME = re.compile(r"(?<![\w])[A-ZА-ЯЁ][\w'’-]+(?:\s+[A-ZА-ЯЁ][\w'’-]+)*")
_CLAUSE = re.compile(r",\s+(?:while|and|but|which|who|where|after|before|as|although|а|и|но|который|которая|которые|где|после|хотя)\s+|;\s+|\s[—–]\s")
_EN_AUX = re.compile(r"\b(is|are|was|were|can|could|will|would|has|have|had|does|did|do|should|must)\b(?! not)")
_EN_NOT = re.compile(r"\b(is|are|was|were|can|could|will|would|has|have|had|does|did|do|should|must)(?: not|n[’']t)\b")
_RU_NOT = re.compile(r"\bне\s+")
_RU_VERB = re.compile(r"\b([а-яё]{3,}(?:ет|ит|ат|ят|ут|ют|ал|ил|ел|ла|ли|ло|ыл|ыла|ыли))\b")


def paragraphs(vault: Path) -> dict[str, list[tuple[str, list[str]]]]:
    """note → its paragraphs, each (heading, sentences); sentences as `sentences.split` gives them."""
    out = {}
    for path in sorted(vault.rglob("*.md")):
        text = path.read_text(encoding="utf-8", errors="replace")
        title = next((line[2:].strip() for line in text.splitlines() if line.startswith("# ")), path.stem)
        blocks = [b for b in re.split(r"\n\s*\n", text) if b.strip() and not b.lstrip().startswith(("#", "```", "|", "---"))]
        paras = []
        for block in blocks:
            said = [sentences.plain(s.text) for s in sentences.split(block)]
            said = [s for s in said if len(s.split()) >= 5]
            if said:
                paras.append((title, said))
        out[str(path.relative_to(vault))] = paras
    return out


def _numbers(text: str) -> list[re.Match]:
    return list(_NUMBER.finditer(text))


def _names(text: str) -> list[str]:
    """Names in a sentence: capitalised words or runs of them, not the sentence's first word."""
    found = []
    for m in _NAME.finditer(text):
        if m.start() == 0 or text[: m.start()].rstrip().endswith((".", ":", "«", '"')):
            rest = m.group(0).split(maxsplit=1)
            if len(rest) < 2:
                continue
            found.append(rest[1])
            continue
        found.append(m.group(0))
    return [n for n in dict.fromkeys(found) if n.lower() not in stemming.STOP_WORDS]


def _counted(text: str) -> list[tuple[str, str]]:
    """(number, the word after it) pairs: "136 sacks", «11 мешками»."""
    return [(m.group(1), m.group(2)) for m in re.finditer(r"(\d+(?:[.,]\d+)?½?)\s+([^\W\d_]{4,})", text)]


def perturbations(sentence: str, paragraph: list[str], rng: random.Random) -> list[tuple[str, str]]:
    """The sentence changed in one thing each way a weak model changes it: (kind, text) for each way that applies."""
    others = [s for s in paragraph if s != sentence]
    out: list[tuple[str, str]] = []
    numbers = _numbers(sentence)
    pool = [m.group(0) for s in others for m in _numbers(s)]
    mine = {m.group(0) for m in numbers}
    if numbers:
        m = rng.choice(numbers)
        choices = [n for n in pool if n not in mine] or [
            str(int(float(m.group(0).replace(",", ".").rstrip("½") or 0)) + rng.choice([1, 2, 3, 5, 10]))
        ]
        out.append(("number", sentence[: m.start()] + rng.choice(choices) + sentence[m.end() :]))
    counted = _counted(sentence)
    other_nouns = [w for s in others for _, w in _counted(s)]
    if counted and other_nouns:
        number, noun = rng.choice(counted)
        stem = stemming.stem(noun.lower())
        swaps = [w for w in other_nouns if stemming.stem(w.lower()) != stem]
        if swaps:
            out.append(("counted", sentence.replace(f"{number} {noun}", f"{number} {rng.choice(swaps)}", 1)))
    names = _names(sentence)
    other_names = [n for s in others for n in _names(s) if n not in names and not any(n in x or x in n for x in names)]
    if names and other_names:
        name = rng.choice(names)
        out.append(("name", sentence.replace(name, rng.choice(other_names), 1)))
    negated = _negated(sentence)
    if negated:
        out.append(("negation", negated))
    if others:
        cut_a = _halves(sentence)
        cut_b = _halves(rng.choice(others))
        if cut_a and cut_b:
            out.append(("spliced", cut_a[0] + " " + cut_b[1]))
    return out


def _negated(sentence: str) -> str | None:
    if _EN_NOT.search(sentence):
        return _EN_NOT.sub(lambda m: m.group(1), sentence, count=1)
    if _EN_AUX.search(sentence):
        return _EN_AUX.sub(lambda m: m.group(1) + " not", sentence, count=1)
    if _RU_NOT.search(sentence):
        return _RU_NOT.sub("", sentence, count=1)
    m = _RU_VERB.search(sentence)
    return sentence[: m.start()] + "не " + sentence[m.start() :] if m else None


def _halves(sentence: str) -> tuple[str, str] | None:
    words = sentence.rstrip(".").split()
    if len(words) < 8:
        return None
    mid = len(words) // 2
    return " ".join(words[:mid]), " ".join(words[mid:]) + "."


def clauses(sentence: str) -> list[str]:
    """The sentence's clauses of five words or more: what a model keeps when it shortens it."""
    parts = [p.strip(" ,;.") for p in _CLAUSE.split(sentence)]
    return [p + "." for p in parts if len(p.split()) >= 5 and p != sentence.strip(" .")]


def align(en: list[str], ru: list[str]) -> list[tuple[str, str]]:
    """Sentences of two parallel paragraphs that translate each other: in order, same count, and the same numbers
    where they have any (a paragraph split differently in the translation is left out)."""
    if len(en) != len(ru):
        return []
    pairs = []
    for e, r in zip(en, ru):
        ne = sorted(re.sub(r"\D", "", m.group(0)) for m in _numbers(e))
        nr = sorted(re.sub(r"\D", "", m.group(0)) for m in _numbers(r))
        if ne == nr:
            pairs.append((e, r))
    return pairs


def claim_pairs(name: str, paras: list[tuple[str, list[str]]], rng: random.Random, *, item: str, translated=None) -> list[Pair]:
    """Pairs for one note's paragraphs; `translated`: sentence → (its translation, the translated paragraph)."""
    out: list[Pair] = []
    for _title, said in paras:
        for i, s in enumerate(said):
            key = f"{item}#{i}:{s[:40]}"
            claims = [("same", s)] + [("clause", c) for c in clauses(s)[:2]]
            if translated and s in translated:
                claims.append(("translation", translated[s][0]))
            for kind, c in claims:
                if kind == "same" and rng.random() < 0.5:
                    continue  # a claim copied whole is the easy case: half of them are enough
                out.append(Pair(CLAIM, c, s, 1, name, key, kind))
            made = {}
            for _ in range(2):  # two draws: a sentence with several numbers or names gets two different swaps
                made |= {wrong: kind for kind, wrong in perturbations(s, said, rng)}
            for wrong, kind in made.items():
                out.append(Pair(CLAIM, wrong, s, 0, name, key, kind))
            if translated and s in translated:
                made = {}
                for _ in range(2):
                    made |= {wrong: kind for kind, wrong in perturbations(*translated[s], rng) if kind in ("number", "counted", "name")}
                for wrong, kind in made.items():
                    out.append(Pair(CLAIM, wrong, s, 0, name, key, kind + "-translation"))
            others = [x for x in said if x != s]
            if others:
                c = rng.choice(claims)[1]
                out.append(Pair(CLAIM, c, rng.choice(others), 0, name, key, "other-sentence"))
    return out


def xquad_pairs(rng: random.Random) -> list[Pair]:
    """Claims over XQuAD's parallel paragraphs, each language against its own and against the other."""
    base = EVAL_DATA / "qa" / "xquad"
    en, ru = paragraphs(base / "vault-en"), paragraphs(base / "vault-ru")
    out: list[Pair] = []
    for note in sorted(set(en) & set(ru)):
        en_ru, ru_en = {}, {}
        for (_, e), (_, r) in zip(en[note], ru[note]):
            for a, b in align(e, r):
                en_ru[a], ru_en[b] = (b, r), (a, e)
        item = "xquad:" + note.split(" ")[0]
        out += claim_pairs("xquad-en", en[note], rng, item=item, translated=en_ru)
        out += claim_pairs("xquad-ru", ru[note], rng, item=item, translated=ru_en)
    return out


def vault_pairs(name: str, vault: Path, rng: random.Random, *, limit: int = 400) -> list[Pair]:
    """Claims over a vault's prose paragraphs (no translation), at most `limit` sentences' worth."""
    out: list[Pair] = []
    notes = paragraphs(vault)
    for note, paras in sorted(notes.items()):
        out += claim_pairs(name, paras, rng, item=f"{name}:{note}")
        if len({p.item for p in out}) >= limit:
            break
    return out


def scifact_pairs() -> list[Pair]:
    """SciFact's claims against the sentences of the abstracts they cite (one sentence per line in its vault)."""
    base = EVAL_DATA / "qa" / "scifact"
    out: list[Pair] = []
    for line in (base / "claims.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        evidence = {(e["file"], n) for e in row["evidence"] for n in range(e["lines"][0], e["lines"][-1] + 1)}
        for doc in row["cited_doc_ids"]:
            lines = (base / "vault" / f"{doc}.md").read_text(encoding="utf-8").splitlines()
            for n, text in enumerate(lines, 1):
                if len(text.split()) < 5 or text.startswith("#"):
                    continue
                stated = row["verdict"] == "SUPPORT" and (f"{doc}.md", n) in evidence
                kind = "evidence" if (f"{doc}.md", n) in evidence else "abstract"
                out.append(Pair(CLAIM, row["claim"], text, int(stated), "scifact", f"scifact:{row['id']}", kind))
    return out


def specifics_of(text: str) -> int:
    return len(specifics(text))


def xquad_question_pairs(rng: random.Random) -> list[Pair]:
    """XQuAD's questions against the sentences of their paragraph (1: the sentence holding the answer at its offset),
    in their own language and in the other one (a Russian question against the English paragraph)."""
    base = EVAL_DATA / "qa" / "xquad"
    rows = {lang: [json.loads(x) for x in (base / f"qa.{lang}.jsonl").read_text(encoding="utf-8").splitlines()] for lang in ("en", "ru")}
    by_id = {lang: {r["id"]: r for r in rs} for lang, rs in rows.items()}
    out: list[Pair] = []
    cache: dict[tuple[str, str, int], list[tuple[str, bool]]] = {}
    for lang, other in (("en", "ru"), ("ru", "en")):
        for r in rows[lang]:
            for side in (lang, other):
                target = by_id[side].get(r["id"])
                if target is None or (side != lang and rng.random() < 0.5):
                    continue
                said = _answer_sentences(base / f"vault-{side}", target, cache)
                kind = "question" if side == lang else "question-across"
                for text, holds in said:
                    out.append(Pair(QUESTION, r["question"], text, int(holds), f"xquad-{side}", "xquad:" + target["gold_file"].split(" ")[0], kind))
    return out


def _answer_sentences(vault: Path, row: dict, cache) -> list[tuple[str, bool]]:
    """The sentences of a question's gold paragraph, each with whether it holds the answer at its offset."""
    key = (str(vault), row["gold_file"], row["gold_line_start"])
    lines = (vault / row["gold_file"]).read_text(encoding="utf-8").splitlines()
    paragraph = "\n".join(lines[row["gold_line_start"] - 1 : row["gold_line_end"]])
    if key not in cache:
        cache[key] = [(s.text, s.start, s.end) for s in _spans(paragraph)]
    at = row["answers"][0]["answer_start"]
    answer = row["answers"][0]["text"]
    found = [(text, a <= at < b and answer in text) for text, a, b in cache[key]]
    return found if any(h for _, h in found) else [(t, answer in t) for t, _, _ in cache[key]]


@dataclass(frozen=True)
class _Span:
    text: str
    start: int
    end: int


def _spans(paragraph: str) -> list[_Span]:
    return [_Span(paragraph[a:b], a, b) for a, b in sentences.segment(paragraph) if len(paragraph[a:b].split()) >= 3]


def xquad_answer_claims(rng: random.Random) -> list[Pair]:
    """Claims made of a question and its answer ("How many points did the Panthers defense surrender: 308."), against
    the sentence that holds the answer: stated with the right answer, not stated with another question's answer on
    the same paragraph (a name, a number, a date of the same text that answers something else); in the question's
    language and across."""
    base = EVAL_DATA / "qa" / "xquad"
    rows = {lang: [json.loads(x) for x in (base / f"qa.{lang}.jsonl").read_text(encoding="utf-8").splitlines()] for lang in ("en", "ru")}
    by_id = {lang: {r["id"]: r for r in rs} for lang, rs in rows.items()}
    out: list[Pair] = []
    cache: dict = {}
    for lang, other in (("en", "ru"), ("ru", "en")):
        paragraph_answers: dict[tuple[str, int], list[str]] = {}
        for r in rows[lang]:
            paragraph_answers.setdefault((r["gold_file"], r["gold_line_start"]), []).append(r["answers"][0]["text"])
        for r in rows[lang]:
            answer = r["answers"][0]["text"]
            wrong = [
                a
                for a in paragraph_answers[(r["gold_file"], r["gold_line_start"])]
                if a.lower() not in answer.lower() and answer.lower() not in a.lower()
            ]
            for side in (lang, other):
                target = by_id[side].get(r["id"])
                if target is None:
                    continue
                said = [t for t, holds in _answer_sentences(base / f"vault-{side}", target, cache) if holds]
                if not said:
                    continue
                kind = "answer" if side == lang else "answer-across"
                item = "xquad:" + target["gold_file"].split(" ")[0]
                question = r["question"].rstrip(" ?")
                out.append(Pair(CLAIM, f"{question}: {answer}.", said[0], 1, f"xquad-{side}", item, kind))
                if wrong:
                    out.append(Pair(CLAIM, f"{question}: {rng.choice(wrong)}.", said[0], 0, f"xquad-{side}", item, kind + "-wrong"))
    return out


WRITTEN = Path(__file__).resolve().parent / "pairs_dev"  # claim pairs written by helpers (pairs_dev/README.md)
_MARKUP = (
    (re.compile(r"!?\[([^\]]*)\]\([^)]*\)"), r"\1"),  # links and images → their text
    (re.compile(r"^\s*(?:#+|[-*+]|\d+[.)]|>|:)\s+"), ""),  # heading, list, quote and definition markers
    (re.compile(r"\*\*|__|(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])"), ""),  # bold and emphasis
    (re.compile(r"\s+"), " "),
)


def plain(line: str) -> str:
    """A note line without its Markdown markup (what the pair's window reads)."""
    for pattern, to in _MARKUP:
        line = pattern.sub(to, line)
    return line.strip()


def _window(vault: Path, item: str, start: str, end: str) -> str | None:
    """The window a written pair points at: from the words `start` to the words `end`, in the note lines from the
    item's line on (markup stripped); None when the note no longer holds them."""
    path, _, line = item.rpartition(":")
    note = vault / path
    if not note.is_file() or not line.isdigit():
        return None
    lines = note.read_text(encoding="utf-8").splitlines()[int(line) - 1 : int(line) + 5]
    text = " ".join(plain(x) for x in lines)
    at = text.find(start)
    stop = text.find(end, max(at, at + len(start) - len(end))) if at >= 0 else -1
    return text[at : stop + len(end)] if at >= 0 and stop >= 0 else None


def pack(rows: list[dict], vault: Path) -> tuple[list[dict], int]:
    """Helper-written pairs as the repository keeps them: the window replaced by its first and last words (the
    notes' text stays out of the repository), kept only when `_window` finds it again. Returns (rows, dropped)."""
    out, dropped = [], 0
    for row in rows:
        words = row["b"].split()
        start, end = " ".join(words[:5]), " ".join(words[-5:])
        found = _window(vault, row["item"], start, end)
        if found is None:
            dropped += 1
            continue
        out.append({k: v for k, v in row.items() if k != "b"} | {"b_start": start, "b_end": end})
    return out, dropped


def written_pairs(vaults: Path) -> list[Pair]:
    """The helper-written pairs (bench/pairs_dev/*.jsonl) with their windows read from the dev vaults."""
    pairs = []
    for f in sorted(WRITTEN.glob("*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            b = _window(vaults / row["set"], row["item"], row["b_start"], row["b_end"])
            if b is not None:
                pairs.append(Pair(row["task"], row["a"], b, row["label"], row["set"], row["item"], "written-" + row["kind"]))
    return pairs


def main() -> None:
    import argparse
    import os

    parser = argparse.ArgumentParser(description="Write the pair scorer's training pairs (JSON lines).")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--vaults", type=Path, default=Path(os.environ.get("RAG_DEV_VAULTS", Path(__file__).resolve().parents[2] / "dev-vaults")))
    parser.add_argument("--per-vault", type=int, default=250, help="sentences' worth of claims from each dev vault")
    parser.add_argument("--written", type=int, default=3, help="times each helper-written pair is repeated (their weight)")
    parser.add_argument("--pack", type=Path, nargs="*", help="helper files (with windows) to store in bench/pairs_dev/ instead")
    args = parser.parse_args()
    if args.pack:
        for f in args.pack:
            rows = [json.loads(x) for x in f.read_text(encoding="utf-8").splitlines() if x.strip()]
            kept, dropped = pack(rows, args.vaults / rows[0]["set"])
            (WRITTEN / f.name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in kept), encoding="utf-8")
            print(f"{f.name}: {len(kept)} kept, {dropped} not found again in the vault")
        return
    rng = random.Random(0)
    pairs = xquad_pairs(rng) + xquad_question_pairs(rng) + xquad_answer_claims(rng) + scifact_pairs()
    for name in ("jsinfo-en", "jsinfo-ru", "diplodoc-en", "diplodoc-ru"):
        if (args.vaults / name).exists():
            pairs += vault_pairs(name, args.vaults / name, rng, limit=args.per_vault)
    pairs += written_pairs(args.vaults) * args.written
    with args.out.open("w", encoding="utf-8") as out:
        for p in pairs:
            out.write(json.dumps(p.to_json(), ensure_ascii=False) + "\n")
    counts: dict[tuple[str, str], int] = {}
    for p in pairs:
        counts[(p.set, p.task)] = counts.get((p.set, p.task), 0) + 1
    print(f"{len(pairs)} pairs: {counts}")


if __name__ == "__main__":
    main()
