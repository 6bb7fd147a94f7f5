"""Words for a passage wherever a page shows one: the passage dialog, why it was found, its lines or PDF page, and
the link to open it in Obsidian. Shared by the Ask and Search pages. key → (English, Russian)."""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
    # the passage dialog and "why found"
    "passage.title": ("Cited passage", "Цитируемый фрагмент"),
    "passage.where": ("{heading} · lines {start}–{end} · found by {why}", "{heading} · строки {start}–{end} · найдено: {why}"),
    "passage.page_image": ("Page {page} as printed", "Страница {page}, как в PDF"),
    "passage.where_page": ("{heading} · {lines} · found by {why}", "{heading} · {lines} · найдено: {why}"),
    "passage.changed": (
        "This note changed since; showing the passage as it was cited.",
        "Заметка с тех пор изменилась; показан фрагмент в том виде, в каком его цитировали.",
    ),
    "obsidian.open": ("Open in Obsidian", "Открыть в Obsidian"),
    "obsidian.short": ("Obsidian", "Obsidian"),
    "why.keyword": ("keyword", "по словам"),
    "why.meaning": ("meaning", "по смыслу"),
    "why.only": (" only", " — только так"),
    "why.boosted": ("boosted (curated note)", "поднято (ключевая заметка)"),
    "why.linked": ("linked from {note}", "по ссылке из {note}"),
    "lines": ("lines {start}–{end}", "строки {start}–{end}"),
    "page_short": ("p. {page}", "с. {page}"),
    "page_lines": ("p. {page}, lines {start}–{end}", "с. {page}, строки {start}–{end}"),
    "page_span": ("p. {page}, line {start} – p. {end_page}, line {end}", "с. {page}, строка {start} – с. {end_page}, строка {end}"),
    "show": ("Show", "Показать"),
    "show.help": ("Show the passage in its note", "Показать фрагмент в заметке"),
}
