"""Chunking: Markdown → chunks with heading paths, line ranges and offsets, never over the embedder's window."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rag.index.chunking import chunk_note, note_title
from rag.notes.vault import decode
from rag.text.sentences import visible_text

from .conftest import FIXTURES
from .fakes import FakeEmbedder

GOLDEN = Path(__file__).parent / "golden" / "chunking"
count = FakeEmbedder().count_tokens


def chunks_of(text: str, path: str = "note.md", *, target=60, hard=120, min_tokens=20, counter=count):
    return chunk_note(path, text, count_tokens=counter, target=target, hard=hard, min_tokens=min_tokens)


def fixture_notes() -> list[Path]:
    root = FIXTURES / "vault"
    return sorted(p for p in root.rglob("*.md") if not any(part.startswith(".") for part in p.relative_to(root).parts))


@pytest.mark.parametrize("path", fixture_notes(), ids=lambda p: p.name)
def test_chunks_match_golden_files(path):
    rel = path.relative_to(FIXTURES / "vault").as_posix()
    chunks = chunks_of(decode(path.read_bytes(), rel), rel)
    got = [
        {
            "heading_path": c.heading_path,
            "lines": [c.start_line, c.end_line],
            "chars": [c.start_char, c.end_char],
            "tokens": c.tokens,
            "id": c.id,
            "index_text": c.index_text,
        }
        for c in chunks
    ]
    golden = GOLDEN / (rel.replace("/", "__") + ".json")
    if os.environ.get("RAG_REGEN_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(json.dumps(got, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    assert got == json.loads(golden.read_text(encoding="utf-8"))


def assert_round_trip(text: str, chunks) -> None:
    """Every non-blank body line lies in some chunk, in order, and the chunk text is the exact slice."""
    lines = text.split("\n")
    covered = []
    for c in chunks:
        assert text[c.start_char : c.end_char] == c.text
        assert c.text.split("\n")[0] in lines[c.start_line - 1]
        covered.extend(range(c.start_line, c.end_line + 1))
    assert covered == sorted(covered), "chunks out of order or overlapping"
    fm_end = 0
    if text.startswith("---\n"):
        fm_end = text.split("\n").index("---", 1) + 1
    for number, line in enumerate(lines, 1):
        if number > fm_end and line.strip():
            assert number in covered, f"line {number} {line!r} is in no chunk"


@pytest.mark.parametrize("path", fixture_notes(), ids=lambda p: p.name)
def test_every_non_blank_line_lies_in_a_chunk_in_order(path):
    text = decode(path.read_bytes(), path.name)
    assert_round_trip(text, chunks_of(text, path.name))


def test_round_trip_on_a_long_generated_note():
    parts = ["---\ntitle: Long\n---", "# Long"]
    for i in range(40):
        parts.append(f"## Section {i}\n\n" + " ".join(f"word{i}x{j}" for j in range(i * 3 % 50 + 1)))
        if i % 7 == 0:
            parts.append("```python\n" + "\n".join(f"x{j} = {j}" for j in range(i + 2)) + "\n```")
        if i % 5 == 0:
            parts.append("| a | b |\n|---|---|\n" + "\n".join(f"| {j} | {j * j} |" for j in range(8)))
    parts.append("[ref]: http://example.com/link-definition")
    text = "\n\n".join(parts) + "\n"
    chunks = chunks_of(text)
    assert len(chunks) > 5
    assert_round_trip(text, chunks)
    assert all(c.tokens <= 120 for c in chunks)


def test_code_fence_and_table_are_never_split_when_they_fit():
    code = "```python\n" + "\n".join(f"value_{i} = {i}" for i in range(25)) + "\n```"
    table = "| k | v |\n|---|---|\n" + "\n".join(f"| key{i} | val{i} |" for i in range(20))
    text = f"# T\n\nIntro words here.\n\n{code}\n\nMiddle paragraph.\n\n{table}\n"
    chunks = chunks_of(text, target=40, hard=200, min_tokens=5)
    assert any(code in c.text for c in chunks)
    assert any(table in c.text for c in chunks)


def test_a_block_over_the_hard_limit_is_split_and_nothing_is_lost():
    code = "```\n" + "\n".join(f"line number {i} with some words" for i in range(200)) + "\n```"
    text = f"# Big\n\n{code}\n"
    chunks = chunks_of(text, target=60, hard=120)
    assert len(chunks) > 5
    assert all(c.tokens <= 120 for c in chunks)
    assert_round_trip(text, chunks)


def test_one_huge_line_is_split_by_sentences_then_words():
    text = "# Wall\n\n" + " ".join(f"Sentence {i} has several words in it." for i in range(300)) + " " + "x" * 50 + "\n"
    chunks = chunks_of(text, target=60, hard=120)
    assert all(c.tokens <= 120 for c in chunks)
    assert "".join("".join(c.text.split()) for c in chunks) == "".join(text.split())


def test_real_embedder_never_sees_more_than_its_window(real_embedder):
    para = "Москва — столица России, крупнейший город страны. Moscow is the capital of Russia. " * 400
    text = f"# Очень длинная заметка\n\n{para}\n\n## Section\n\n" + "| a | b |\n|---|---|\n" + "| 1 | 2 |\n" * 300
    chunks = chunk_note("big.md", text, count_tokens=real_embedder.count_tokens, target=300, hard=real_embedder.window, min_tokens=100)
    assert len(chunks) > 10
    assert max(real_embedder.count_tokens(c.index_text) for c in chunks) <= 512
    assert_round_trip(text, chunks)


def test_tiny_sections_merge_until_min_tokens():
    text = "# Note\n\n## A\n\nalpha one.\n\n## B\n\nbeta two.\n\n## C\n\ngamma three.\n"
    chunks = chunks_of(text, target=100, hard=200, min_tokens=50)
    assert len(chunks) == 1
    assert chunks[0].heading_path == "Note"


def test_a_heading_closes_a_chunk_once_it_holds_min_tokens():
    body = " ".join(["word"] * 30)
    text = f"# Note\n\n## A\n\n{body}\n\n## B\n\n{body}\n"
    chunks = chunks_of(text, target=200, hard=300, min_tokens=20)
    assert [c.heading_path for c in chunks] == ["Note › A", "Note › B"]
    assert chunks[1].start_line == 7


def test_heading_path_line_numbers_and_frontmatter_skipped():
    text = "---\ntitle: My note\ntags: [a]\n---\n# My note\n\n## Part\n\n### Sub\n\nText here.\n"
    (chunk,) = chunks_of(text)
    assert chunk.start_line == 5 and chunk.end_line == 11
    assert "title:" not in chunk.text and "title:" not in chunk.index_text
    assert chunk.heading_path == "My note › Part › Sub"


def test_wikilinks_keep_their_visible_text():
    assert visible_text("See [[Target note|the target]] and [[Other]] and [[Page#Heading]].") == "See the target and Other and Page."
    (chunk,) = chunks_of("# N\n\nRead [[Deep/Path/Note|this]] now.\n")
    assert "Read this now." in chunk.index_text
    assert "[[Deep/Path/Note|this]]" in chunk.text


def test_ids_are_stable_and_depend_on_path_and_content():
    text = "# A\n\nSame paragraph.\n"
    first, again, moved = chunks_of(text, "a.md")[0], chunks_of(text, "a.md")[0], chunks_of(text, "b.md")[0]
    assert first.id == again.id
    assert first.id != moved.id
    assert first.vector_key == moved.vector_key  # a move reuses the vector


def test_crlf_text_after_decoding_has_the_same_lines():
    text = decode(b"# T\r\n\r\nline one\r\nline two\r\n", "t.md")
    (chunk,) = chunks_of(text)
    assert chunk.text == "# T\n\nline one\nline two"
    assert (chunk.start_line, chunk.end_line) == (1, 4)


def test_empty_and_frontmatter_only_notes_give_no_chunks():
    assert chunks_of("") == []
    assert chunks_of("\n\n  \n") == []
    assert chunks_of("---\ntitle: x\n---\n") == []


def test_title_comes_from_frontmatter_then_h1_then_file_name():
    assert note_title("a/b.md", "---\ntitle: T\n---\n# H\n") == "T"
    assert note_title("a/b.md", "# H\n\ntext") == "H"
    assert note_title("a/b.md", "text only") == "b"
