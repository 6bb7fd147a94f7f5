"""The sidebar's words: page names, the vault and indexing status, the settings panel (language, the form, the chat
models found here) and the choices kept from earlier visits. key → (English, Russian)."""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
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
}
