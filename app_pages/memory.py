"""Memory: the facts agents keep in `Memory/Facts/` — found by keyword or category, each with its trust, votes and
history; voted on, corrected (never over a change made in Obsidian meanwhile) and archived. Every change goes through
`ctx.knowledge.memory`, which writes the fact's note and re-indexes it; this page only draws and asks.

Actions run as widget callbacks, so a Save carries the note's hash from the run that drew the edit box. What an
action leaves to say about its fact (an edit that met another edit, a library error) is shown on that fact's card,
where the person is looking, and the rest of the page still draws.
"""

from __future__ import annotations

import streamlit as st

from app_pages import common
from app_pages.common import t
from rag.errors import ConflictError, RagError
from rag.surface import Fact, parse_fact
from rag.web import i18n, untrusted
from rag.web.ui_render import obsidian_url

SHOWN = 100  # facts drawn at once, newest first
FOUND = 50  # keyword matches asked of recall
QUERY = "rag_memory_query"
CATEGORY = "rag_memory_category"
MATCHES = "rag_memory_matches"  # (query, category, facts' texts) → the ids recall found for them
NOTICES = "rag_memory_notices"  # fact id → ("conflict", your text, the note's text now) | ("error", message)


def main() -> None:
    ctx = common.context()
    memory = ctx.knowledge.memory
    st.title(t("memory.title"))
    st.caption(t("memory.caption"))
    try:
        facts = _unique(memory.facts())
        newer = memory.table().superseded_by
    except RagError as exc:
        common.fail(exc)
    if not facts:
        st.info(t("memory.empty"), icon=":material/psychology:")
        if ctx.knowledge.progress().running:
            st.caption(t("memory.indexing"))
        return
    query = st.text_input(t("memory.search"), key=QUERY, placeholder=t("memory.placeholder")).strip()
    categories = sorted({f.category for f in facts})
    category = st.pills(t("memory.category"), categories, key=CATEGORY, format_func=untrusted.text)
    shown = _chosen(memory, facts, query, category)
    if not shown:
        st.warning(t("memory.none.filtered") if category else t("memory.none"), icon=":material/search_off:")
        return
    _summary(query, shown)
    try:
        counts = memory.recall_counts()  # read after the search, which counts as a recall of what it found
    except RagError as exc:
        common.fail(exc)
    for fact in shown[:SHOWN]:
        _fact(ctx, fact, newer.get(fact.id), counts.get(fact.id, (0, None))[0])


def _unique(facts: list[Fact]) -> list[Fact]:
    """One fact per id (a note copied with its id: the first path wins, as it does for recall)."""
    by_id: dict[str, Fact] = {}
    for fact in facts:
        by_id.setdefault(fact.id, fact)
    return list(by_id.values())


def _chosen(memory, facts: list[Fact], query: str, category: str | None) -> list[Fact]:
    """A fact's id in the box: that fact. Words: the facts recall finds by keyword. Nothing: all, newest first."""
    by_id = {f.id: f for f in facts}
    if query in by_id:
        return [by_id[query]]
    if query:
        return [by_id[i] for i in _matches(memory, facts, query, category) if i in by_id]
    return sorted((f for f in facts if category in (None, f.category)), key=lambda f: (f.created, f.id), reverse=True)


def _matches(memory, facts: list[Fact], query: str, category: str | None) -> list[str]:
    """The ids recall finds, kept until the query, the category or a fact's text changes: recall counts each fact it
    returns as recalled once more, and a rerun for a vote or a click is not a new search."""
    key = (query, category, frozenset((f.id, f.content) for f in facts))
    kept = st.session_state.get(MATCHES)
    if kept is None or kept[0] != key:
        try:
            found = memory.recall(query, limit=FOUND, category=category, weights={"fts": 1.0})
        except RagError as exc:
            common.fail(exc)
        kept = (key, [r.fact.id for r in found])
        st.session_state[MATCHES] = kept
    return kept[1]


def _summary(query: str, shown: list[Fact]) -> None:
    if query == shown[0].id:
        st.button(t("memory.show_all"), key="memory-show-all", icon=":material/list:", on_click=_focus, args=("",))
    elif query:
        st.caption(t("memory.found", n=len(shown)))
    elif len(shown) > SHOWN:
        st.caption(t("memory.count.more", n=len(shown), shown=SHOWN))
    else:
        st.caption(t("memory.count", n=len(shown)))


def _fact(ctx: common.AppContext, fact: Fact, newer: str | None, recalled: int) -> None:
    with st.container(border=True, key=f"memory-card-{fact.id}"):
        with st.container(horizontal=True, gap="small", vertical_alignment="center"):
            st.badge(untrusted.text(fact.category), icon=":material/label:", color="gray" if newer else "blue")
            if newer:
                st.badge(t("memory.superseded"), icon=":material/history:", color="gray")
            trust = i18n.decimal(common.language(), fact.trust, 2)
            standing = t("memory.trust", trust=trust, helpful=fact.helpful, unhelpful=fact.unhelpful, recalled=recalled)
            st.caption(f"{t('memory.created', date=fact.created[:10])} · {standing}" if fact.created else standing)
        text = untrusted.text(fact.content)
        st.markdown(_grey(text) if newer else text)
        if newer:
            with st.container(horizontal=True, gap="small", vertical_alignment="center"):
                st.caption(t("memory.replaced_by", id=newer), width="content")
                st.button(t("memory.show_newer"), key=f"memory-newer-{fact.id}", icon=":material/arrow_forward:", on_click=_focus, args=(newer,))
        st.caption("  \n".join(_details(fact)))
        _notice(fact)
        _actions(ctx, fact)


def _details(fact: Fact) -> list[str]:
    """The lines under a fact: the fact it replaces; its tags and entities; its note and id."""
    lines = [t("memory.replaces", id=fact.supersedes)] if fact.supersedes else []
    about = [untrusted.text(f"#{tag}") for tag in fact.tags] + ([t("memory.entities", names=", ".join(fact.entities))] if fact.entities else [])
    if about:
        lines.append(" · ".join(about))
    return [*lines, f"{untrusted.text(fact.path)} · {untrusted.text(fact.id)}"]


def _grey(text: str) -> str:
    """Escaped text greyed line by line (a colour directive does not span lines)."""
    return "\n".join(f":gray[{line}]" if line.strip() else line for line in text.split("\n"))


def _actions(ctx: common.AppContext, fact: Fact) -> None:
    with st.container(horizontal=True, gap="small", vertical_alignment="center"):
        st.button("", key=f"memory-up-{fact.id}", icon=":material/thumb_up:", help=t("memory.helpful"), on_click=_vote, args=(fact.id, True))
        st.button("", key=f"memory-down-{fact.id}", icon=":material/thumb_down:", help=t("memory.unhelpful"), on_click=_vote, args=(fact.id, False))
        with st.popover(t("memory.edit"), icon=":material/edit:"):
            with st.form(f"memory-edit-{fact.id}", border=False):
                box = f"memory-text-{fact.id}-{fact.sha256}"  # a new version of the note: a new box, prefilled with it
                st.text_area(t("memory.edit.label"), fact.content, key=box, height=160)
                st.form_submit_button(t("memory.save"), type="primary", on_click=_save, args=(fact.id, fact.path, fact.sha256, box))
        with st.popover(t("memory.archive"), icon=":material/archive:"):
            st.caption(t("memory.archive.confirm"))
            st.button(t("memory.archive.yes"), key=f"memory-archive-{fact.id}", type="primary", on_click=_archive, args=(fact.id,))
        st.link_button(t("obsidian.open"), obsidian_url(ctx.settings.vault, fact.path), icon=":material/open_in_new:")


def _notice(fact: Fact) -> None:
    notice = st.session_state.get(NOTICES, {}).get(fact.id)
    if notice is None:
        return
    if notice[0] == "conflict":
        _, yours, now = notice
        st.warning(t("memory.conflict"), icon=":material/sync_problem:")
        st.caption(t("memory.conflict.now"))
        st.code(now, language=None, wrap_lines=True)
        st.caption(t("memory.conflict.yours"))
        st.code(yours, language=None, wrap_lines=True)
    else:
        st.error(untrusted.text(notice[1]), icon=":material/error:")
    st.button(t("memory.dismiss"), key=f"memory-dismiss-{fact.id}", on_click=_settle, args=(fact.id,))


# --- actions (widget callbacks: they run before the page is drawn again) -------------------------------------------


def _settle(fact_id: str, notice: tuple | None = None) -> None:
    notices = st.session_state.setdefault(NOTICES, {})
    notices.pop(fact_id, None)
    if notice is not None:
        notices[fact_id] = notice


def _focus(fact_id: str) -> None:
    st.session_state[QUERY] = fact_id
    st.session_state[CATEGORY] = None


def _vote(fact_id: str, helpful: bool) -> None:
    try:
        fact = common.context().knowledge.memory.feedback(fact_id, helpful)
    except RagError as exc:
        return _settle(fact_id, ("error", str(exc)))
    _settle(fact_id)
    st.toast(t("memory.voted", trust=i18n.decimal(common.language(), fact.trust, 2)), icon=":material/thumbs_up_down:")


def _save(fact_id: str, path: str, sha256: str, box: str) -> None:
    """Replace the fact's text if its note still has the hash it had when the edit box was drawn; else keep both
    texts on the card and let the index take the other edit in, so the box offers the note as it is now."""
    knowledge = common.context().knowledge
    text = st.session_state.get(box, "")
    try:
        knowledge.memory.update(fact_id, text, sha256)
    except ConflictError as exc:
        knowledge.changed()
        now = _text_now(knowledge, path)
        return _settle(fact_id, ("conflict", text, now) if now is not None else ("error", str(exc)))
    except RagError as exc:
        return _settle(fact_id, ("error", str(exc)))
    _settle(fact_id)
    st.toast(t("memory.saved"), icon=":material/check_circle:")


def _text_now(knowledge, path: str) -> str | None:
    """The fact's statement as its note holds it now (read from the vault, not the index); None if it is gone."""
    try:
        note = knowledge.read(path)
    except RagError:
        return None
    fact = parse_fact(note.path, note.content, note.sha256)
    return fact.content if fact is not None else note.content


def _archive(fact_id: str) -> None:
    try:
        path = common.context().knowledge.memory.forget(fact_id)
    except RagError as exc:
        return _settle(fact_id, ("error", str(exc)))
    _settle(fact_id)
    st.toast(t("memory.archived", path=path), icon=":material/archive:")


main()
