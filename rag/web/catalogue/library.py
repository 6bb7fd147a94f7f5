"""The library's notices and errors in the app's words (rag/web/messages.py matches them to these keys): the fix is
named as it is made in the app, in Settings, never with a flag. key → (English, Russian)."""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
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
}
