"""The Search page's words: results, filters (an empty filter's own placeholder), and the time a question named. key → (English, Russian)."""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
    # Search
    "search.title": ("Search", "Поиск"),
    "search.input": ("Search your notes", "Поиск по заметкам"),
    "search.placeholder": ("sqlite wal · when did I go to Baikal", "sqlite wal · когда я ездил на Байкал"),
    "search.hint": (
        "Keyword and meaning search together; results are grouped by note.",
        "Поиск по словам и по смыслу вместе; результаты сгруппированы по заметкам.",
    ),
    "search.empty_query": ("Type what to look for: the query is empty.", "Введите, что искать: запрос пуст."),
    "search.none": ("No matches in your notes.", "В заметках ничего не нашлось."),
    "search.none.filtered": ("No matches in your notes with these filters.", "С этими фильтрами в заметках ничего не нашлось."),
    "search.weaker": (
        "Show {n:# weaker match|# weaker matches}",
        "Показать {n:# более слабое совпадение|# более слабых совпадения|# более слабых совпадений}",
    ),
    "search.weaker.shown": ("Show weaker matches", "Показывать более слабые совпадения"),
    "search.summary": (
        "{n:# note|# notes}, best first · found by {channels}",
        "{n:# заметка|# заметки|# заметок}, лучшие сверху · найдено: {channels}",
    ),
    "channel.bm25": ("keyword", "по словам"),
    "channel.dense": ("meaning", "по смыслу"),
    "filters": ("Filters", "Фильтры"),
    "filters.folder": ("Folder", "Папка"),
    "filters.tag": ("Tag", "Тег"),
    "filters.project": ("Project", "Проект"),
    "filters.tier": ("Tier", "Уровень"),
    # what an empty filter says (Streamlit's own "Choose options" is English whatever the app's language)
    "filters.folder.any": ("Any folder", "Любая папка"),
    "filters.tag.any": ("Any tag", "Любой тег"),
    "filters.project.any": ("Any project", "Любой проект"),
    "filters.tier.any": ("Any tier", "Любой уровень"),
    "filters.empty": ("None in these notes", "В заметках таких нет"),
    "filters.dates": ("Dates", "Даты"),
    "filters.dates.help": (
        "Only passages from these days: a daily note's day, a dated heading, a chat message's time, the frontmatter date, or a date in the line.",
        "Только фрагменты за эти дни: день ежедневной заметки, дата в заголовке, время сообщения в чате, дата во frontmatter или дата в строке.",
    ),
    "ask.window": (
        "The model's window ({window:# token|# tokens}) held {kept} of the {found} sources found; the others were not sent (a source is never cut).",
        "В окно модели ({window:# токен|# токена|# токенов}) {kept:поместился|поместились|поместились} {kept} из "
        "{found:# найденного источника|# найденных источников|# найденных источников}; остальные не отправлены (источник не обрезается).",
    ),
    # Time in the question (rag/search/when.py)
    "time.searching": ("Searching notes {range} (“{words}”)", "Ищу в заметках {range} («{words}»)"),
    "time.searching.filter": ("Searching notes {range}", "Ищу в заметках {range}"),
    "time.none": ("No notes {range} (“{words}”); searched all dates.", "Нет заметок {range} («{words}»); искал по всем датам."),
    "time.newest": ("Newest first among the best matches (“{words}”)", "Сначала самые новые из лучших совпадений («{words}»)"),
    "time.remove": ("All dates", "Все даты"),
    "time.remove.help": (
        "Search again without the time: “{words}” is then read as plain words.",
        "Искать снова без времени: «{words}» будет прочитано как обычные слова.",
    ),
    "tier.1": ("Curated (profile, memory, overviews)", "Ключевые (профиль, память, обзоры)"),
    "tier.2": ("Other notes", "Остальные заметки"),
    "tier.other": ("Tier {tier}", "Уровень {tier}"),
    "search.project": ("project {name}", "проект {name}"),
    "search.curated": ("curated", "ключевая"),
    "search.similar": ("Similar", "Похожие"),
}
