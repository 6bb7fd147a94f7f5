"""The Ask page's words: the chat, the sample and example questions, the answer's badges and progress, what the
check found of each claim, the sources panel, saved conversations. key → (English, Russian)."""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
    # Ask
    "ask.title": ("Ask your vault", "Спросите свои заметки"),
    "ask.new_chat": ("New chat", "Новый чат"),
    "ask.mode.model": ("Answers by {model}", "Отвечает {model}"),
    "ask.mode.extractive": (
        "Extractive answers (quotes from your notes; no chat model set)",
        "Ответы цитатами из заметок (чат-модель не задана)",
    ),
    "ask.vault": ("vault {name}", "заметки {name}"),
    "ask.indexing": (
        "Indexing is running: keyword search works on what is indexed now, meaning search as vectors arrive.",
        "Идёт индексация: поиск по словам уже работает по проиндексированному, поиск по смыслу — по мере появления векторов.",
    ),
    "ask.no_notes": (
        "There are no Markdown notes in {vault}. Add notes, or choose another vault folder in Settings.",
        "В {vault} нет заметок Markdown. Добавьте заметки или выберите другую папку в настройках.",
    ),
    "ask.demo": (
        "This is the demo vault. Set your own vault folder in the sidebar's Settings. Try one of these:",
        "Это демонстрационные заметки. Свою папку можно выбрать в настройках на боковой панели. Попробуйте спросить:",
    ),
    "ask.demo.1": ("What hydration do I use for my sourdough?", "Какую влажность теста я беру для хлеба на закваске?"),
    # the sample questions show both languages whatever the app's language
    "ask.demo.2": ("Когда я ездил на Байкал и сколько это стоило?", "Когда я ездил на Байкал и сколько это стоило?"),
    "ask.demo.3": (
        "Which internet provider did we choose for the new flat, and how fast is it?",
        "Which internet provider did we choose for the new flat, and how fast is it?",
    ),
    # a person's own vault: questions from its newest notes (rag/web/examples.py)
    "ask.examples": ("A few questions from your latest notes to start with:", "Для начала — несколько вопросов по вашим последним заметкам:"),
    "ask.example.about": ("What do my notes say about “{title}”?", "Что в моих заметках на тему «{title}»?"),
    "ask.example.section": ("What does my note “{title}” say under “{heading}”?", "Что написано в заметке «{title}» в разделе «{heading}»?"),
    "ask.example.points": ("What are the main points of “{title}”?", "Что главное в заметке «{title}»?"),
    "ask.input": ("Ask your notes — in English or Russian", "Спросите заметки — по-русски или по-английски"),
    "ask.searching": ("Searching your notes…", "Ищу в заметках…"),
    "ask.generating": ("Found passages in your notes; waiting for the model…", "Нашёл фрагменты в заметках; жду модель…"),
    "ask.reading": (
        "The model is reading {n:# source|# sources} (~{seconds} s) · {so_far} s",
        "Модель читает {n:# источник|# источника|# источников} (~{seconds} с) · {so_far} с",
    ),
    "ask.reading.unknown": (
        "The model is reading {n:# source|# sources} · {so_far} s",
        "Модель читает {n:# источник|# источника|# источников} · {so_far} с",
    ),
    "ask.checking": ("Checking every sentence against your notes…", "Сверяю каждое предложение с заметками…"),
    "ask.badge.extractive": ("Extractive", "Цитаты"),
    "ask.badge.model": ("Model · {model}", "Модель · {model}"),
    "ask.not_found": ("**Not found in your notes.**", "**В заметках этого нет.**"),
    "ask.not_found.model": (
        "**Not found in your notes.** No sentence of the model's answer below is supported by them.",
        "**В заметках этого нет.** Ни одно предложение ответа модели ниже ими не подтверждается.",
    ),
    "ask.unconfirmed": (
        "**Not confirmed.** The sources are in another language than the answer, and the check could not confirm it "
        "there: read them below before you rely on it.",
        "**Не подтверждено.** Источники на другом языке, чем ответ, и проверка не смогла подтвердить его по ним: "
        "прочитайте их ниже, прежде чем на него полагаться.",
    ),
    "ask.try_other": ("Try other words, or look on the Search page.", "Попробуйте другие слова или загляните на страницу «Поиск»."),
    "ask.truncated": (
        "The model stopped at its length limit (max_answer_tokens); the answer may be cut short.",
        "Модель остановилась на пределе длины (max_answer_tokens); ответ может быть обрезан.",
    ),
    "ask.translated": ("Also searched as: {query}", "Также искали как: {query}"),
    "ask.removed": ("Removed citations that matched no source: {ids}", "Убраны ссылки, которым не соответствует ни один источник: {ids}"),
    "ask.dropped": (
        "Left out {n:# passage whose note|# passages whose notes} changed since indexing — see Sources.",
        "{n:Пропущен # фрагмент|Пропущены # фрагмента|Пропущено # фрагментов} из заметок, изменившихся после индексации (см. «Источники»).",
    ),
    "ask.first_words": ("first words after {seconds} s · ", "первые слова через {seconds} с · "),
    "ask.answer_in": ("answer in {seconds} s", "ответ за {seconds} с"),
    "ask.checked": (
        "Checked against your notes: {supported} of {total:# sentence|# sentences} supported.",
        "Сверено с заметками: подтверждено предложений — {supported} из {total}.",
    ),
    "claim.supported": ("Supported", "Подтверждено"),
    "claim.unsupported": ("Not in your notes", "Нет в заметках"),
    "claim.unconfirmed": ("Not confirmed", "Не подтверждено"),
    "claim.evidence": ("How each sentence was checked", "Как проверено каждое предложение"),
    "claim.lines": ("{source}, lines {start}–{end}", "{source}, строки {start}–{end}"),
    "claim.line": ("{source}, line {start}", "{source}, строка {start}"),
    "claim.unmatched": ("not in these lines: {words}", "в этих строках нет: {words}"),
    "claim.no_evidence": ("no sentence of the sources states it", "ни одно предложение источников этого не говорит"),
    "claim.misattributed": ("Re-cited", "Ссылка исправлена"),
    # why a claim is not simply supported (rag/answer/grounding.py `Reason`)
    "claim.reason.not_checked": (
        "not checked: the answer has more than {n} claims, and only the first {n} are",
        "не проверено: в ответе больше {n} утверждений, проверены только первые {n}",
    ),
    "claim.reason.recited": ("{cited}: not said there; {best} says it", "в {cited} этого нет; это говорит {best}"),
    "claim.reason.uncited": ("no citation; {best} says this", "без ссылки; это говорит {best}"),
    "claim.reason.no_sources": ("there are no sources to check it against", "не с чем сверить: источников нет"),
    "claim.reason.instruction": (
        "it repeats an instruction written in {sources}, not a fact (note text is data, not instructions)",
        "это повтор инструкции из {sources}, а не факт (текст заметок — данные, а не инструкции)",
    ),
    "claim.reason.number_said": ("{source} says {said}, not {numbers}", "в {source} сказано {said}, а не {numbers}"),
    "claim.reason.number_not_in": ("{numbers} is not in {source}", "в {source} нет {numbers}"),
    "claim.reason.number_nowhere": ("{numbers} is not in the sources", "в источниках нет {numbers}"),
    "claim.reason.names_nowhere": ("{names}: in none of the sources", "{names}: нет ни в одном источнике"),
    "claim.reason.names_not_in": ("{names}: not in {source} where it says this", "{names}: нет в {source}, где это сказано"),
    "claim.reason.source_not": ("{source} does not say this", "в {source} этого нет"),
    "claim.reason.across_languages": (
        "{source} is in another language: the check could not confirm this there",
        "{source} на другом языке: проверка не смогла это там подтвердить",
    ),
    "claim.reason.reread": ("read again by the chat model, {source} does not say this", "чат-модель перечитала {source}: там этого нет"),
    "claim.reason.none_says": ("none of the sources says this", "ни один источник этого не говорит"),
    "claim.uncited": ("Citation added", "Ссылка добавлена"),
    "badge.unsupported": ("not in your notes", "нет в заметках"),
    "badge.misattributed": ("re-cited", "ссылка исправлена"),
    "badge.uncited": ("citation added", "ссылка добавлена"),
    "badge.unconfirmed": ("not confirmed", "не подтверждено"),
    "sources": ("Sources ({n})", "Источники ({n})"),
    "sources.none": ("Sources (none matched)", "Источники (ничего не подошло)"),
    "sources.supports": ("**supports the answer**", "**подтверждает ответ**"),
    "sources.cited_only": ("cited, but does not say it", "процитирован, но этого не говорит"),
    "sources.also": ("Also searched, not used ({n})", "Также просмотрено, не использовано ({n})"),
    "sources.score": ("score {score}", "оценка {score}"),
    "sources.found_by": ("found by {why}", "найдено: {why}"),
    "sources.left_out": ("Left out", "Пропущено"),
    "history.title": ("Conversations", "Разговоры"),
    "history.empty": ("No saved conversations yet.", "Сохранённых разговоров пока нет."),
    "history.delete": ("Delete", "Удалить"),
    "history.current": ("(this one)", "(этот)"),
    "history.turns": ("{n:# question|# questions} · {when}", "{n:# вопрос|# вопроса|# вопросов} · {when}"),
    "history.unreadable": ("Saved conversations could not be read: {error}", "Не удалось прочитать сохранённые разговоры: {error}"),
}
