"""The development vaults that the reading and claim-check dev sets are written over, rebuilt from public sources
(none of their text is kept in this repository; the question files in bench/reading_dev/ point into them).

    python bench/dev_vaults.py [--out ../dev-vaults] [--mirrors /work/.mirror]

Vaults (each a folder of Markdown notes under --out):
- `jsinfo-en`, `jsinfo-ru`: The Modern JavaScript Tutorial (javascript.info, CC BY-NC-SA 4.0), the same chapters in
  English and Russian, one note per article; from the public repositories javascript-tutorial/en.javascript.info
  and javascript-tutorial/ru.javascript.info at the commits below.
- `diplodoc-en`, `diplodoc-ru`: the documentation of the Diplodoc platform (diplodoc-platform/docs, MIT), a product
  manual in both languages.
- `chats`: the chat exports in $RAG_EVAL_DATA/chat-exports imported by `rag import` (Claude.ai and Claude Code).
A repository is read from a git mirror (`git --git-dir <mirror>/<owner>+<name>/repo`), as the session's fetch tool
leaves it; the commit is pinned so the gold lines stay true.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
JSINFO_CHAPTERS = (
    "1-js/02-first-steps",
    "1-js/04-object-basics",
    "1-js/05-data-types",
    "1-js/06-advanced-functions",
    "1-js/08-prototypes",
    "1-js/09-classes",
    "1-js/11-async",
)
SOURCES = {
    "jsinfo-en": ("javascript-tutorial+en.javascript.info", "ff804bc19351b72bc5df7766f4b9eb8249a3cb11", JSINFO_CHAPTERS, "article.md"),
    "jsinfo-ru": ("javascript-tutorial+ru.javascript.info", "c7f78764cda47a52b7116e17f9b543b213e535bc", JSINFO_CHAPTERS, "article.md"),
    "diplodoc-en": ("diplodoc-platform+docs", "b05f9f2a785a3fdf0fd80437a7144e5b8de72b1a", ("en",), ".md"),
    "diplodoc-ru": ("diplodoc-platform+docs", "b05f9f2a785a3fdf0fd80437a7144e5b8de72b1a", ("ru",), ".md"),
}


def _git(mirror: Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(mirror), *args], check=True, capture_output=True, text=True).stdout


def note_name(vault: str, path: str) -> str:
    """Where a file of the repository goes in the vault: javascript.info's `1-js/02-first-steps/04-variables/article.md`
    becomes `02-first-steps/04-variables.md`; Diplodoc's `en/syntax/lists.md` becomes `syntax/lists.md`."""
    parts = path.split("/")
    if vault.startswith("jsinfo"):
        return f"{parts[1]}/{parts[2]}.md"
    return "/".join(parts[1:])


def build_repo_vault(name: str, mirrors: Path, out: Path) -> int:
    repo, commit, folders, suffix = SOURCES[name]
    mirror = mirrors / repo / "repo"
    if not mirror.exists():
        sys.exit(f"No mirror of {repo} at {mirror}: fetch github:{repo.replace('+', '/')} first.")
    target = out / name
    shutil.rmtree(target, ignore_errors=True)
    count = 0
    for path in _git(mirror, "ls-tree", "-r", "--name-only", commit, *folders).splitlines():
        if not path.endswith(suffix) or "/_includes/" in path:
            continue
        dest = target / note_name(name, path)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(subprocess.run(["git", "--git-dir", str(mirror), "show", f"{commit}:{path}"], check=True, capture_output=True).stdout)
        count += 1
    return count


def build_chats(out: Path, eval_data: Path) -> int:
    target = out / "chats"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    exports = eval_data / "chat-exports"
    sources = [("claude-ai", exports / "claude-ai" / name) for name in ("example.json", "artifacts.json")]
    for kind, source in [*sources, ("claude-code", exports / "claude-code" / "marot-spotter")]:
        cmd = [sys.executable, "-m", "rag", "import", kind, str(source), "--vault", str(target), "--db", str(out / "chats-import.db")]
        subprocess.run(cmd, check=True, cwd=ROOT, capture_output=True)
    return sum(1 for _ in target.rglob("*.md"))


def main() -> None:
    from rag.eval.data import EVAL_DATA

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT.parent / "dev-vaults")
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name in SOURCES:
        print(f"{name}: {build_repo_vault(name, args.mirrors, args.out)} notes", file=sys.stderr)
    print(f"chats: {build_chats(args.out, EVAL_DATA)} notes", file=sys.stderr)


if __name__ == "__main__":
    main()
