"""The Memory page's words: facts, their trust and votes, editing and archiving. key → (English, Russian)."""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
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
}
