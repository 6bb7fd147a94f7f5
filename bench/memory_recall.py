"""Agent memory recall: quality on the dev sets, latency at 1k and 10k facts, and the MCP server's memory.

    python bench/memory_recall.py [--json] [--scale 1000,10000] [--skip-scale | --skip-dev] [--half-life DAYS]
                                  [--dev bench/memory_dev2] [--grid] [--rewrite]

Quality (bench/memory_dev/: 94 hand-written facts, 84 questions, 14 of each of six kinds; or `--dev
bench/memory_dev2`: 171 facts and 176 queries written without reading the recall code, most of them paraphrases;
report both). The facts are imported into a fresh temporary vault through `Knowledge.memory.import_file` (ids kept)
and indexed with the real local embedder. Their `created` dates are moved by (today − 2025-09-01), so every fact
has the same age on every run and recency weighs the same whenever the bench runs. Every question is recalled with
each channel alone (a weights dict naming one channel: its coverage and precision@1 too), the reference design's
weights (fts .3, jaccard .2, hrr .2, semantic .3), the default fusion (`recall.TUNED_WEIGHTS`), the default
without each of its channels in turn, and with HRR at 0.1. `--grid`: also every split of ten tenths over the four score channels (286
points), chosen by mean (Recall@5 + MRR@10) / 2 on the tuning half (of each kind, the first half of the ids in
SHA-256 order) and reported on the held-out half as well as on all. Recall@5 = relevant facts in the top 5 / min(5,
number relevant), so a perfect ranking scores 1 even when an entity has 11 facts; MRR@10 = 1 / rank of the first
relevant fact in the top 10 (0 if none). For `superseded` questions only the newer fact is relevant;
`newer_first` is the share of them where the fact it replaced ranks below it (or is not returned). For the entity
kinds, HRR's own questions — `memory.probe(entity)` and `memory.reason(entities)`, relevant = every fact bound to
them — are set against FTS alone on the question and FTS alone on the entity names: what HRR adds. `--half-life
36500` all but turns recency off. `--rewrite`: recall with `memory_rewrite` on, through the chat model of the
environment (one model call per question, cached).

Scale (`--scale`): N synthetic facts (EN and RU templates, entities from a pool, 5 % superseding an older one)
are imported into a fresh vault and indexed (every fact embedded by the real model: minutes at 10k), then 50
recalls of distinct questions are timed, each embedding its question (none is in the query cache), and the first
recall of a second process over the same index (the fact table read from the index, not rebuilt). The MCP
server's memory: `python -m rag mcp` on the largest vault, spoken to over stdio by the SDK's client, a few
`memory_recall` calls, then VmRSS and VmHWM from /proc/<pid>/status. Targets: p50 ≤ 50 ms, RSS ≤ 300 MB.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import itertools
import json
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from rag.config import load_settings
from rag.knowledge import Knowledge
from rag.live import LiveIndex
from rag.memory.recall import CHANNELS as RECALL_CHANNELS
from rag.memory.recall import TUNED_WEIGHTS
from rag.progress import ProgressBars

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dev_split import aside  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEV = ROOT / "bench" / "memory_dev"
CHANNELS = RECALL_CHANNELS
GRID_CHANNELS = ("fts", "jaccard", "hrr", "semantic")  # the reference design's four, for --grid
REFERENCE = {"fts": 0.3, "jaccard": 0.2, "hrr": 0.2, "semantic": 0.3}
KINDS = ("paraphrase", "keyword", "cross_language", "entity", "multi_entity", "superseded")
LIMIT = 10
GRID_STEPS = 10  # weights in tenths
ANCHOR = "2025-09-01T00:00:00+00:00"  # the dev set's "today": two days after its newest fact


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


@contextlib.contextmanager
def opened(vault: Path, db: Path, overrides: dict):
    """A Knowledge over `vault` the way the MCP server builds one (reads check the vault first), no indexer thread."""
    live = LiveIndex(load_settings(vault=vault, db_path=db, env={}, **overrides))
    try:
        yield Knowledge(live)
    finally:
        live.close()


def load_facts(knowledge: Knowledge, path: Path) -> dict:
    """Import a JSONL of facts and index them, vectors included; seconds for each step."""
    started = time.perf_counter()
    imported, skipped, problems = knowledge.memory.import_file(path)
    if problems:
        raise SystemExit(f"{len(problems)} facts were not imported, first: {problems[0]}")
    imported_at = time.perf_counter()
    with ProgressBars() as bars:
        knowledge.index(progress=bars.update)
    return {
        "imported": imported,
        "skipped": skipped,
        "import_s": round(imported_at - started, 2),
        "index_s": round(time.perf_counter() - imported_at, 2),
    }


# --- scoring ----------------------------------------------------------------------------------------------------


def recall_at(ranked: list[str], relevant: list[str], k: int = 5) -> float:
    return len(set(ranked[:k]) & set(relevant)) / min(k, len(relevant))


def reciprocal_rank(ranked: list[str], relevant: list[str], k: int = LIMIT) -> float:
    return next((1.0 / rank for rank, fact_id in enumerate(ranked[:k], 1) if fact_id in relevant), 0.0)


def summary(rows: list[tuple[str, float, float]]) -> dict:
    """rows of (kind, recall@5, rr@10) → per kind and overall means."""
    out = {}
    for kind in (*KINDS, "overall"):
        picked = rows if kind == "overall" else [r for r in rows if r[0] == kind]
        if picked:
            out[kind] = {
                "recall@5": round(statistics.fmean(r[1] for r in picked), 3),
                "mrr@10": round(statistics.fmean(r[2] for r in picked), 3),
                "n": len(picked),
            }
    return out


def tuning_half(queries: list[dict]) -> set[str]:
    """The ids of the tuning half: of each kind, the first half in order of the ids' SHA-256."""
    chosen = set()
    for kind in KINDS:
        ids = sorted((q["id"] for q in queries if q["kind"] == kind), key=lambda i: hashlib.sha256(i.encode("utf-8")).hexdigest())
        chosen.update(ids[: len(ids) // 2])
    return chosen


def shifted(source: Path, target: Path) -> None:
    """The facts with every `created` moved by (now − ANCHOR), so each fact has the same age on every run."""
    offset = time.time() - datetime.fromisoformat(ANCHOR).timestamp()
    with open(target, "w", encoding="utf-8") as out:
        for fact in read_jsonl(source):
            created = datetime.fromisoformat(fact["created"].replace("Z", "+00:00")).timestamp() + offset
            fact["created"] = datetime.fromtimestamp(created, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            out.write(json.dumps(fact, ensure_ascii=False) + "\n")


# --- the dev set ------------------------------------------------------------------------------------------------


def rankings(knowledge: Knowledge, queries: list[dict], weights: dict[str, float] | None) -> dict[str, list[str]]:
    return {q["id"]: [r.fact.id for r in knowledge.memory.recall(q["text"], LIMIT, weights=weights)] for q in queries}


def scored(queries: list[dict], ranked: dict[str, list[str]]) -> list[tuple[str, float, float]]:
    return [(q["kind"], recall_at(ranked[q["id"]], q["relevant"]), reciprocal_rank(ranked[q["id"]], q["relevant"])) for q in queries]


def objective(queries: list[dict], ranked: dict[str, list[str]]) -> float:
    return statistics.fmean((r + m) / 2 for _, r, m in scored(queries, ranked))


def grid() -> list[dict[str, float]]:
    """Every split of ten tenths over the reference design's four channels (286 points)."""
    points = []
    for parts in itertools.product(range(GRID_STEPS + 1), repeat=len(GRID_CHANNELS)):
        if sum(parts) == GRID_STEPS:
            points.append({c: p / GRID_STEPS for c, p in zip(GRID_CHANNELS, parts) if p})
    return points


def tune(knowledge: Knowledge, queries: list[dict]) -> tuple[dict[str, float], float]:
    """The grid point with the best objective on `queries`; ties go to the point nearest the reference weights."""
    best, best_key, points = None, None, grid()
    for n, weights in enumerate(points, 1):
        value = objective(queries, rankings(knowledge, queries, weights))
        distance = sum(abs(weights.get(c, 0.0) - REFERENCE[c]) for c in GRID_CHANNELS)
        if best_key is None or (value, -distance) > best_key:
            best, best_key = weights, (value, -distance)
        if n % 50 == 0:
            log(f"  grid {n}/{len(points)}: best so far {best} ({best_key[0]:.3f})")
    return best, round(best_key[0], 3)


def newer_first(queries: list[dict], ranked: dict[str, list[str]], replaced: dict[str, str]) -> float | None:
    """Share of superseded questions where the fact the relevant one replaced ranks below it, or is not returned."""
    checks = []
    for q in queries:
        if q["kind"] != "superseded":
            continue
        newer, ids = q["relevant"][0], ranked[q["id"]]
        older = replaced[newer]
        checks.append(newer in ids and (older not in ids or ids.index(older) > ids.index(newer)))
    return round(statistics.fmean(checks), 3) if checks else None


def entity_questions(knowledge: Knowledge, queries: list[dict], fts_ranked: dict[str, list[str]]) -> dict:
    """HRR's probe / reason against FTS alone (on the question, and on the entity names), per entity kind."""
    out = {}
    for kind in ("entity", "multi_entity"):
        picked = [q for q in queries if q["kind"] == kind and q.get("entities")]  # a set may not name them (memory_dev3)
        if not picked:
            continue
        hrr = {}
        for q in picked:
            found = knowledge.memory.probe(q["entities"][0], LIMIT) if kind == "entity" else knowledge.memory.reason(q["entities"], LIMIT)
            hrr[q["id"]] = [r.fact.id for r in found]
        names = rankings(knowledge, [{"id": q["id"], "text": " ".join(q["entities"])} for q in picked], {"fts": 1.0})
        out[kind] = {
            "probe" if kind == "entity" else "reason": summary(scored(picked, hrr))[kind],
            "fts_question": summary(scored(picked, fts_ranked))[kind],
            "fts_entity_names": summary(scored(picked, names))[kind],
        }
    return out


@contextlib.contextmanager
def fresh_vault(prefix: str, overrides: dict):
    """A Knowledge over a new empty vault and index in a temporary folder: (knowledge, folder)."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        folder = Path(tmp)
        (folder / "vault").mkdir()
        with opened(folder / "vault", folder / "index.db", overrides) as knowledge:
            yield knowledge, folder


def dev_set(overrides: dict, dev: Path = DEV, *, grid_search: bool = False) -> dict:
    facts, queries = read_jsonl(dev / "facts.jsonl"), read_jsonl(dev / "queries.jsonl")
    tuning_ids = tuning_half(queries)
    tuning = [q for q in queries if q["id"] in tuning_ids]
    with fresh_vault("memory-dev-", overrides) as (knowledge, folder):
        shifted(dev / "facts.jsonl", folder / "facts.jsonl")
        loaded = load_facts(knowledge, folder / "facts.jsonl")
        log(f"dev set: {loaded['imported']} facts imported in {loaded['import_s']} s, indexed in {loaded['index_s']} s")
        configs: dict[str, dict | None] = {f"{c} alone": {c: 1.0} for c in CHANNELS} | {"reference": REFERENCE, "default": None}
        configs |= {f"default-{c}": {k: w for k, w in TUNED_WEIGHTS.items() if k != c} for c in TUNED_WEIGHTS}
        configs["default+hrr"] = TUNED_WEIGHTS | {"hrr": 0.1}  # the channel the default leaves out
        tuned, tuned_objective = None, None
        if grid_search:
            log(f"tuning {len(grid())} weightings of {', '.join(GRID_CHANNELS)} on {len(tuning)} questions")
            tuned, tuned_objective = tune(knowledge, tuning)
            configs["grid best"] = tuned
        ranked_by = {name: rankings(knowledge, queries, weights) for name, weights in configs.items()}
        entities = entity_questions(knowledge, queries, ranked_by["fts alone"])
    replaced = {f["id"]: f["supersedes"] for f in facts if f.get("supersedes")}
    return {
        "facts": len(facts),
        "queries": len(queries),
        "split": {"tuning": len(tuning), "held_out": len(queries) - len(tuning)},
        "default_weights": dict(TUNED_WEIGHTS),
        "tuned_weights": tuned,
        "tuned_objective_on_tuning_half": tuned_objective,
        "configs": {name: evaluation(queries, tuning_ids, configs[name], ranked_by[name], replaced) for name in configs},
        "channel_precision": {c: precision(queries, ranked_by[f"{c} alone"]) for c in CHANNELS},
        "entity_questions": entities,
        "misses": misses(queries, ranked_by["default"]),
    }


def precision(queries: list[dict], ranked: dict[str, list[str]]) -> dict:
    """A channel alone: on how many questions it finds anything (coverage), and how often its first fact is a relevant
    one when it does (precision@1), overall and per kind."""
    out = {}
    for kind in (*KINDS, "overall"):
        picked = [q for q in queries if kind in ("overall", q["kind"])]
        found = [q for q in picked if ranked[q["id"]]]
        if picked:
            out[kind] = {
                "coverage": round(len(found) / len(picked), 3),
                "precision@1": round(statistics.fmean(ranked[q["id"]][0] in q["relevant"] for q in found), 3) if found else None,
            }
    return out


def evaluation(
    queries: list[dict], tuning_ids: set[str], weights: dict[str, float] | None, ranked: dict[str, list[str]], replaced: dict[str, str]
) -> dict:
    held_out = [q for q in queries if q["id"] not in tuning_ids]
    kept_aside = [q for q in queries if aside(q["id"])]
    return {
        "weights": weights,
        "all": summary(scored(queries, ranked)),
        "held_out": summary(scored(held_out, ranked)),
        "aside": summary(scored(kept_aside, ranked)),  # bench/dev_split.py's third: never fitted on
        "newer_first": newer_first(queries, ranked, replaced),
    }


def misses(queries: list[dict], ranked: dict[str, list[str]]) -> list[dict]:
    """Questions where the reference fusion puts no relevant fact first: what it returned instead."""
    return [
        {"id": q["id"], "kind": q["kind"], "text": q["text"], "relevant": q["relevant"][:3], "got": ranked[q["id"]][:3]}
        for q in queries
        if not ranked[q["id"]] or ranked[q["id"]][0] not in q["relevant"]
    ]


# --- scale: synthetic facts -------------------------------------------------------------------------------------

PEOPLE = [("Anna", "Анна"), ("Oleg", "Олег"), ("Lena", "Лена"), ("Dmitry", "Дмитрий"), ("Irina", "Ирина"), ("Pavel", "Павел"),
          ("Olga", "Ольга"), ("Sergey", "Сергей"), ("Nikita", "Никита"), ("Vera", "Вера"), ("Boris", "Борис"), ("Maria", "Мария")]  # fmt: skip
CITIES = [("Kazan", "Казань"), ("Samara", "Самара"), ("Lisbon", "Лиссабон"), ("Tbilisi", "Тбилиси"), ("Perm", "Пермь"), ("Riga", "Рига")]
TOOLS = ["nginx", "PostgreSQL", "Redis", "Grafana", "Caddy", "MySQL", "Kafka", "RabbitMQ", "Prometheus", "Traefik", "ClickHouse", "MinIO"]
PROJECTS = ["Ledger", "Sadovod", "Atlas", "Kompas", "Orbita", "Mayak", "Tundra", "Vesna"]
FOODS = [("buckwheat", "гречку"), ("oatmeal", "овсянку"), ("pelmeni", "пельмени"), ("salad", "салат"), ("soup", "суп"), ("fish", "рыбу")]
DAYS = [("Monday", "понедельник"), ("Tuesday", "вторник"), ("Wednesday", "среду"), ("Thursday", "четверг"), ("Friday", "пятницу")]
CATEGORIES = ["config", "preferences", "people", "decisions", "projects"]  # of the five templates, in order
REASONS = [
    ("licence costs", "дорогая лицензия"),
    ("slow backups", "медленные бэкапы"),
    ("write locks", "блокировки записи"),
    ("memory use", "расход памяти"),
]


def synthetic_fact(n: int, rng: random.Random) -> dict:
    """One fact from ten templates (five English, five Russian); entities given for four facts in five."""
    person, city, food, day, reason = (rng.choice(x) for x in (PEOPLE, CITIES, FOODS, DAYS, REASONS))
    tool, tool2, project = rng.choice(TOOLS), rng.choice(TOOLS), rng.choice(PROJECTS)
    server, port, hour = f"srv-{rng.randrange(300):03d}", rng.randrange(1024, 65000), rng.randrange(8, 20)
    russian = n % 2 == 1
    templates = [
        (f"{tool} on {server} listens on port {port}; the config is in /etc/{tool.lower()}/{project.lower()}.conf.", [tool, server]),
        (f"{person[0]} prefers {food[0]} for lunch and moved to {city[0]} last year.", [person[0], city[0]]),
        (f"Meeting with {person[0]} about {project} moved to {day[0]} at {hour}:00.", [person[0], project]),
        (f"Decided to move {project} from {tool} to {tool2} because of {reason[0]}.", [project, tool, tool2]),
        (f"{person[0]} keeps the {project} runbook; ask before restarting {tool} on {server}.", [person[0], project, tool, server]),
    ]
    if russian:
        templates = [
            (f"{tool} на {server} слушает порт {port}, конфиг лежит в /etc/{tool.lower()}/{project.lower()}.conf.", [tool, server]),
            (f"{person[1]} любит {food[1]} на обед; с прошлого года живёт в городе {city[1]}.", [person[0], city[0]]),
            (f"Встречу с {person[1]} по проекту {project} перенесли на {day[1]}, {hour}:00.", [person[0], project]),
            (f"Решил перевести {project} с {tool} на {tool2}: {reason[1]}.", [project, tool, tool2]),
            (f"{person[1]} ведёт инструкцию по {project}; перед перезапуском {tool} на {server} спросить.", [person[0], project, tool, server]),
        ]
    kind = rng.randrange(len(templates))
    content, entities = templates[kind]
    day_offset = rng.randrange(730)
    fact = {
        "id": f"f-s{n:05d}",
        "content": content,
        "category": CATEGORIES[kind],
        "tags": [rng.choice(["work", "home", "infra", "family"])],
        "entities": entities if rng.random() < 0.8 else [],
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 86_400 * (30 + day_offset))),
    }
    if n >= 100 and rng.random() < 0.05:
        fact["supersedes"] = f"f-s{rng.randrange(n):05d}"
    return fact


def synthetic_queries(count: int, rng: random.Random) -> list[str]:
    """`count` distinct questions in both languages, so each one is embedded (none is in the query cache)."""
    seen: dict[str, None] = {}
    while len(seen) < count:
        person, city, tool, project = rng.choice(PEOPLE), rng.choice(CITIES), rng.choice(TOOLS), rng.choice(PROJECTS)
        server = f"srv-{rng.randrange(300):03d}"
        seen.setdefault(
            rng.choice(
                [
                    f"which port does {tool} use on {server}",
                    f"на каком порту {tool} на {server}",
                    f"what does {person[0]} like to eat",
                    f"где живёт {person[1]} и что любит на обед",
                    f"when is the {project} meeting with {person[0]}",
                    f"почему {project} ушёл с {tool}",
                    f"who knows how to restart {tool} for {project}",
                    f"кто живёт в городе {city[1]}",
                ]
            ),
            None,
        )
    return list(seen)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 1)


def timed(call) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def scale(n: int, folder: Path, overrides: dict) -> dict:
    """Import and index n synthetic facts into folder/vault, then time recalls (question embedding included) and
    entity probes. The vault and index stay, for the MCP server's memory."""
    rng = random.Random(n)
    source = folder / "facts.jsonl"
    with open(source, "w", encoding="utf-8") as out:
        for i in range(n):
            out.write(json.dumps(synthetic_fact(i, rng), ensure_ascii=False) + "\n")
    (folder / "vault").mkdir()
    with opened(folder / "vault", folder / "index.db", overrides) as knowledge:
        log(f"scale {n}: importing and indexing (every fact embedded by the local model)")
        loaded = load_facts(knowledge, source)
        first = timed(lambda: knowledge.memory.recall("warm-up: nginx port on srv-001", LIMIT))  # builds the fact table
        questions = synthetic_queries(50, rng)
        recalls = [timed(lambda q=q: knowledge.memory.recall(q, LIMIT)) for q in questions]
        probes = [timed(lambda p=p: knowledge.memory.probe(p[0], LIMIT)) for p in PEOPLE + [(t,) for t in TOOLS]]
    with opened(folder / "vault", folder / "index.db", overrides) as knowledge:  # the next process: the table from the index
        next_process = timed(lambda: knowledge.memory.recall("warm-up: nginx port on srv-001", LIMIT))
    log(f"scale {n}: recall p50 {percentile(recalls, 0.5)} ms, p95 {percentile(recalls, 0.95)} ms")
    return loaded | {
        "facts": n,
        "first_recall_ms": round(first, 1),
        "next_process_first_recall_ms": round(next_process, 1),
        "recall_p50_ms": percentile(recalls, 0.5),
        "recall_p95_ms": percentile(recalls, 0.95),
        "recall_max_ms": round(max(recalls), 1),
        "probe_p50_ms": percentile(probes, 0.5),
        "queries": len(recalls),
    }


# --- the MCP server's memory ------------------------------------------------------------------------------------


def proc_status_mb(pid: int) -> dict:
    fields = {}
    with open(f"/proc/{pid}/status", encoding="utf-8") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                fields[name] = round(int(value.split()[0]) / 1024, 1)  # kB
    return fields


async def mcp_memory(folder: Path, facts: int) -> dict:
    """`python -m rag mcp` over real stdio on an indexed vault: a few memory_recall calls, then the server's RSS."""
    import anyio
    import psutil
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "rag", "mcp", "--vault", str(folder / "vault"), "--db", str(folder / "index.db")],
        env=None,  # only the SDK's safe variables, as an agent's client starts it
        cwd=folder,
    )
    with open(folder / "mcp-stderr.log", "w", encoding="utf-8") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:
            names = [t.name for t in (await client.list_tools()).tools]
            if "memory_recall" not in names:
                return {"error": "the server has no memory_recall tool", "tools": names}
            times = []
            for question in [
                "which port does nginx use on srv-010",
                "что любит Анна на обед",
                "who keeps the Atlas runbook",
                "почему Ledger ушёл с MySQL",
            ]:
                started = time.perf_counter()
                with anyio.fail_after(300):
                    result = await client.call_tool("memory_recall", {"query": question, "limit": LIMIT})
                times.append(round((time.perf_counter() - started) * 1000, 1))
                if result.is_error:
                    return {"error": result.content[0].text}
            server = [p for p in psutil.Process().children(recursive=True) if "mcp" in p.cmdline()]
            memory = proc_status_mb(server[0].pid)
    return {"facts": facts, "vm_rss_mb": memory.get("VmRSS"), "vm_hwm_mb": memory.get("VmHWM"), "call_ms": times}


# --- output -----------------------------------------------------------------------------------------------------


def table(configs: dict, part: str, metric: str) -> str:
    names = list(configs)
    rows = [f"{metric} ({part})".ljust(18) + "".join(n.rjust(17) for n in names)]
    for kind in (*KINDS, "overall"):
        cells = [configs[n][part].get(kind, {}).get(metric) for n in names]
        count = next((configs[n][part][kind]["n"] for n in names if kind in configs[n][part]), 0)
        rows.append(f"{kind} ({count})".ljust(18) + "".join(("-" if c is None else f"{c:.3f}").rjust(17) for c in cells))
    return "\n".join(rows)


def report(results: dict) -> str:
    lines = []
    dev = results.get("dev")
    if dev:
        lines.append(
            f"Dev set: {dev['facts']} facts, {dev['queries']} questions (tuning half {dev['split']['tuning']}, held out {dev['split']['held_out']})"
        )
        lines.append(f"Default weights: {dev['default_weights']}; grid best: {dev['tuned_weights']}")
        for part in ("all", "held_out"):
            for metric in ("recall@5", "mrr@10"):
                lines += ["", table(dev["configs"], part, metric)]
        lines.append(
            "\nnewer fact above the one it replaced (superseded questions): "
            + ", ".join(f"{n} {c['newer_first']}" for n, c in dev["configs"].items())
        )
        lines.append("\nEach channel alone: coverage / precision@1 (overall; paraphrase; cross-language; keyword; entity)")
        for c, by in dev["channel_precision"].items():
            cells = [by[k] for k in ("overall", "paraphrase", "cross_language", "keyword", "entity") if k in by]
            lines.append(f"  {c}: " + "; ".join(f"{m['coverage']:.2f} / {m['precision@1'] if m['precision@1'] is not None else '-'}" for m in cells))
        lines.append("\nEntity questions (recall@5 / mrr@10):")
        for kind, by in dev["entity_questions"].items():
            lines.append(f"  {kind}: " + "; ".join(f"{how} {m['recall@5']:.3f} / {m['mrr@10']:.3f}" for how, m in by.items()))
        lines.append(f"\nDefault fusion: {len(dev['misses'])} questions without a relevant fact first")
    for row in results.get("scale", []):
        lines.append(
            f"\n{row['facts']} facts: import {row['import_s']} s, index {row['index_s']} s, first recall {row['first_recall_ms']} ms "
            f"(in the next process {row['next_process_first_recall_ms']} ms), "
            f"recall p50 {row['recall_p50_ms']} ms p95 {row['recall_p95_ms']} ms, probe p50 {row['probe_p50_ms']} ms"
        )
    if "mcp" in results:
        lines.append(f"\nMCP server: {results['mcp']}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="Print one JSON object instead of tables.")
    parser.add_argument("--scale", default="1000,10000", help="Comma-separated fact counts for the latency runs.")
    parser.add_argument("--skip-scale", action="store_true", help="Only the dev set: no latency runs, no MCP server.")
    parser.add_argument("--skip-dev", action="store_true", help="Only the latency runs and the MCP server.")
    parser.add_argument(
        "--dev", type=Path, default=DEV, help="The dev set's folder (facts.jsonl, queries.jsonl): bench/memory_dev or bench/memory_dev2."
    )
    parser.add_argument("--grid", action="store_true", help="Also search the 286 weightings of the four score channels (~10 min).")
    parser.add_argument(
        "--rewrite",
        action="store_true",
        help="Recall with memory_rewrite on, through the chat model in RAG_CHAT_MODEL / OPENAI_BASE_URL / OPENAI_API_KEY.",
    )
    parser.add_argument("--half-life", type=float, default=None, help="memory_half_life_days (default: the settings' default).")
    parser.add_argument("--decay-floor", type=float, default=None, help="memory_decay_floor (default: the settings' default).")
    args = parser.parse_args()
    overrides = {k: v for k, v in (("memory_half_life_days", args.half_life), ("memory_decay_floor", args.decay_floor)) if v is not None}
    if args.rewrite:
        if not os.environ.get("RAG_CHAT_MODEL"):
            raise SystemExit("--rewrite needs a chat model: set RAG_CHAT_MODEL (and OPENAI_BASE_URL for a local server).")
        overrides |= {
            "memory_rewrite": True,
            "chat_model": os.environ["RAG_CHAT_MODEL"],
            "openai_base_url": os.environ.get("OPENAI_BASE_URL"),
            "openai_api_key": os.environ.get("OPENAI_API_KEY"),
            "request_timeout": 600.0,
        }
    results: dict = {"settings": {k: v for k, v in overrides.items() if k != "openai_api_key"}}
    if not args.skip_dev:
        results["dev"] = dev_set(overrides, args.dev, grid_search=args.grid)
    if not args.skip_scale:
        import anyio

        sizes = [int(s) for s in args.scale.split(",") if s.strip()]
        with tempfile.TemporaryDirectory(prefix="memory-scale-") as tmp:
            results["scale"] = []
            for n in sizes:
                (Path(tmp) / str(n)).mkdir()
                results["scale"].append(scale(n, Path(tmp) / str(n), overrides))
            results["mcp"] = anyio.run(mcp_memory, Path(tmp) / str(max(sizes)), max(sizes))
    print(json.dumps(results, ensure_ascii=False, indent=2) if args.json else report(results))


if __name__ == "__main__":
    main()
