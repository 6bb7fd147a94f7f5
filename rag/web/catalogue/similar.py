"""The Similar notes and Duplicates pages' words: how close two notes are, and near-duplicate pairs. key → (English, Russian)."""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
    # Similar notes
    "similar.title": ("Similar notes", "Похожие заметки"),
    "similar.wait": (
        "Similar notes need at least two notes with vectors. Wait for indexing to finish (see the Index page).",
        "Для похожих заметок нужны хотя бы две заметки с векторами. Дождитесь конца индексации (страница «Индекс»).",
    ),
    "similar.note": ("Note", "Заметка"),
    "similar.how_many": ("How many", "Сколько показать"),
    "similar.open": ("Open this note in Obsidian", "Открыть эту заметку в Obsidian"),
    "similar.col.note": ("Note", "Заметка"),
    "similar.col.path": ("Path", "Путь"),
    "similar.col.closeness": ("How close", "Насколько близко"),
    "similar.col.score": ("Cosine", "Косинус"),
    "similar.col.overlap": ("Shared text", "Общий текст"),
    "similar.col.open": ("Open", "Открыть"),
    "similar.caption": (
        "How close: a label calibrated on real near-duplicates against same-topic notes, and the share of this vault's "
        "note pairs that are less alike. Cosine: between note vectors (the mean of each note's passage vectors). Shared "
        "text: the share of the shorter note's word runs found in the other.",
        "«Насколько близко»: метка, откалиброванная на настоящих почти-дубликатах и заметках на одну тему, и доля пар "
        "заметок этого хранилища, которые похожи меньше. Косинус: между векторами заметок (средним векторов их "
        "фрагментов). Общий текст: доля цепочек слов более короткой заметки, которые есть в другой.",
    ),
    "similar.closer_than": ("{label} · closer than {percent} of pairs", "{label} · ближе, чем {percent} пар"),
    "closeness.near-duplicate": ("near-duplicate", "почти дубликат"),
    "closeness.very similar": ("very similar", "очень похожа"),
    "closeness.related": ("related", "связана"),
    "closeness.loosely related": ("loosely related", "слабо связана"),
    "closeness.unrelated": ("unrelated", "не связана"),
    # Duplicates
    "duplicates.title": ("Duplicates", "Дубликаты"),
    "duplicates.caption": (
        "Pairs of notes that say nearly the same thing in nearly the same words. Nothing is merged or deleted here — "
        "open both in Obsidian and decide.",
        "Пары заметок, которые говорят почти одно и то же почти теми же словами. Здесь ничего не объединяется и не "
        "удаляется — откройте обе в Obsidian и решите сами.",
    ),
    "duplicates.overlap": ("Shared text, at least", "Общего текста, не меньше"),
    "duplicates.overlap.help": (
        "The share of the shorter note's word runs that the other note holds too. Copies share 70 % or more; two notes "
        "on one topic rarely over 20 %.",
        "Доля цепочек слов более короткой заметки, которые есть и в другой. У копий — от 70 %, у двух заметок на одну тему — редко больше 20 %.",
    ),
    "duplicates.threshold": ("Meaning (cosine), at least", "Смысл (косинус), не меньше"),
    "duplicates.threshold.help": (
        "Both defaults are calibrated on real near-duplicates against same-topic notes (precision 1.0 on our pairs).",
        "Оба значения по умолчанию откалиброваны на настоящих почти-дубликатах и заметках на одну тему (точность 1,0 на наших парах).",
    ),
    "duplicates.none": (
        "No near-duplicate notes among {n:# note|# notes} at these thresholds.",
        "Среди {n:# заметки|# заметок|# заметок} нет почти-дубликатов при этих порогах.",
    ),
    "duplicates.count": ("{n:# pair|# pairs}.", "{n:# пара|# пары|# пар}."),
    "duplicates.count.more": ("{n} pairs; the {shown} closest are shown.", "Пар: {n}; показаны {shown} самых близких."),
    "duplicates.pair": (
        "**{label}** · cosine {score} · shares {overlap} of the shorter note's text",
        "**{label}** · косинус {score} · общего текста {overlap} от более короткой заметки",
    ),
}
