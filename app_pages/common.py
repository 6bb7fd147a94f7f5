"""Streamlit glue shared by the pages of `app.py` (an adapter: no logic, only widgets over `rag/`).

Objects cached with `st.cache_resource` are shared by every session and thread: only the thread-safe `Knowledge`
over one `LiveIndex` per vault (store, embedder, indexer thread and watcher; closed when Streamlit drops it). Pages
talk to `ctx.knowledge` only, never to the store.
Errors from the library are shown once with `st.error`, in the app's words (`rag.web.messages`), and the page stops (`fail`).
"""

from __future__ import annotations

import dataclasses
import functools
import os
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from rag.chat import kinds
from rag.chat.openai_chat import try_model
from rag.chat.servers import find_servers, shown_name
from rag.config import DEMO_VAULT, Settings, allowed_range, load_settings
from rag.errors import NoteError, RagError
from rag.knowledge import Knowledge
from rag.live import LiveIndex, Progress
from rag.notes.vault import pdf_page_image
from rag.search.presentation import why_found
from rag.search.similar import NoteVectors
from rag.text import wikilinks
from rag.web import i18n, messages, saved_choices, untrusted
from rag.web.conversations import is_browser_id, new_browser_id
from rag.web.ui_render import PASSAGE_CSS, obsidian_url, parse_cite_href, passage, passage_html
from rag.web.webapp import NUMBERS, Choices, Secrets, apply_choices, choices_of, index_key, split_secrets

APP_FOLDER = Path(__file__).resolve().parents[1]  # where app.py is: its .streamlit/ is the user's own
LANGUAGE_PICK = "rag_language_pick"  # the Settings language control's state (Streamlit drops it with the control)
LANGUAGE_CHOICE = "rag_language_choice"  # the language clicked, kept for the session
# The settings panel's label of each field of `Choices`, to name the fields the app saved.
_FIELD_LABELS = {
    "vault": "settings.vault",
    "endpoint": "settings.endpoint",
    "chat_model": "settings.chat_model",
    "embedder": "settings.embeddings",
    "embed_model": "settings.embed_model",
    "max_notes": "settings.max_notes",
    "max_chunks_per_note": "settings.max_per_note",
    "max_chars": "settings.max_chars",
    "language": "settings.language",
}
# On the Ask page: clicks on citations reach the app; a note link in an answer gets back its `obsidian://open` address,
# which `st.html`'s sanitizer took out of its href (the renderer kept it in data-obsidian: rag/web/untrusted.py).
_ANSWER_LINKS_JS = """
export default function(component) {
  window.__ragCite = component.setTriggerValue;
  if (!window.__ragCiteListener) {
    window.__ragCiteListener = (event) => {
      const link = event.target.closest && event.target.closest('a[href^="#cite-"]');
      if (!link || !window.__ragCite) return;
      event.preventDefault();
      window.__ragCite('cite', link.getAttribute('href') + '|' + Date.now());
    };
    document.addEventListener('click', window.__ragCiteListener, true);
  }
  if (!window.__ragNoteLinks) {
    const restore = () => document.querySelectorAll('a[data-obsidian^="obsidian://open?"]:not([href])').forEach(
      (link) => link.setAttribute('href', link.getAttribute('data-obsidian')));
    window.__ragNoteLinks = new MutationObserver(restore);
    window.__ragNoteLinks.observe(document.body, {childList: true, subtree: true});
    restore();
  }
}
"""

# Keeps this browser's id (`browser_id`) in a cookie: Streamlit reads cookies but cannot set them. A cookie, not the
# address: a link someone copies or bookmarks never carries it, and a new tab of the same browser has it. When another
# tab of this browser set its id first, this page takes that one, so one browser keeps one list of conversations.
BROWSER_COOKIE = "rag_browser"
_BROWSER_COOKIE_JS = """
export default function(component) {
  const name = 'rag_browser', id = component.data.id;
  const sent = document.cookie.split('; ').find((c) => c.startsWith(name + '='));
  const held = sent && sent.slice(name.length + 1);
  if (held && /^[0-9a-f]{32}$/.test(held) && held !== id) {
    component.setStateValue('id', held);
    return;
  }
  document.cookie = name + '=' + id + '; Path=/; Max-Age=34560000; SameSite=Strict';
}
"""


@dataclass(frozen=True)
class AppContext:
    settings: Settings  # this session's settings
    knowledge: Knowledge  # the index shared by all sessions on the same vault, with this session's answer settings
    language: str  # "en" or "ru": the words of every page

    @property
    def is_demo(self) -> bool:
        return self.settings.vault == DEMO_VAULT.resolve()


def fail(exc: Exception) -> None:
    """The one way a page reports a library error: the message in the app's words (it names the fix), then stop."""
    st.error(error_text(exc), icon=":material/error:")
    st.stop()


def context() -> AppContext:
    return st.session_state["rag_app"]


def t(key: str, /, **values) -> str:
    """This session's text for a catalogue key (`rag.web.i18n`), its values shown as text: a path, a heading, an
    error that quotes a note are never read as Markdown (`rag.web.untrusted`). A count (an int) stays a number, for
    the words that follow it ("1 note", "5 заметок")."""
    return i18n.text(language(), key, **{k: v if _is_count(v) else untrusted.text(v) for k, v in values.items()})


def _is_count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def time_chip(scope, *, key: str) -> bool:
    """The time a search kept to, as a line with an "All dates" button when the question's words named it; True when
    that button was clicked (search again without reading the time)."""
    lang = language()
    if not scope.ranged:
        line, icon = t("time.newest", words=scope.words), ":material/history:"
    elif not scope.applied:
        st.info(t("time.none", range=scope.label(lang), words=scope.words), icon=":material/event_busy:")
        return False
    else:
        message = "time.searching" if scope.words else "time.searching.filter"
        line, icon = t(message, range=scope.label(lang), words=scope.words), ":material/calendar_month:"
    left, right = st.columns([4, 1], vertical_alignment="center")
    left.caption(f"{icon} {line}")
    return bool(scope.words) and right.button(t("time.remove"), key=key, icon=":material/close:", help=t("time.remove.help", words=scope.words))


def language() -> str:
    """The session's language ("en" or "ru"), chosen when the app opened the index (`open_context`)."""
    return st.session_state.get("rag_language", "en")


def why(bm25_rank: int | None, dense_rank: int | None, linked_from: str | None = None) -> str:
    """Why a passage was found, in the session's language ("keyword #2 · meaning #1", "linked from Garden.md")."""
    return why_found(bm25_rank, dense_rank, linked_from=linked_from, names=i18n.labels(language(), "why"))


def _choose_language(settings: Settings, knowledge: Knowledge | None) -> str:
    try:
        browser = st.context.locale
    except Exception:  # no browser behind this run (the test harness)
        browser = None
    needs_vault = settings.ui_language == "auto" and i18n.browser_language(browser) is None
    shares = knowledge.script_shares() if needs_vault and knowledge is not None else {}
    return i18n.choose_language(settings.ui_language, browser, shares)


@functools.cache
def _split_secrets() -> Secrets:
    """Which secrets files are the user's; a working folder's values are taken back out of the environment, where
    Streamlit put them at start (once per process)."""
    split = split_secrets([Path(p) for p in st.get_option("secrets.files")], home=Path.home(), app_folder=APP_FOLDER)
    for key, value in split.distrusted().items():
        if os.environ.get(key) == value:
            del os.environ[key]
    return split


def _secrets() -> dict[str, str]:
    """Top-level values of `.streamlit/secrets.toml` (e.g. OPENAI_API_KEY), without those only a working folder's
    file gives."""
    try:
        loaded = {k: str(v) for k, v in st.secrets.items() if isinstance(v, (str, int, float))}
    except FileNotFoundError:
        return {}
    distrusted = _split_secrets().distrusted()
    return {k: v for k, v in loaded.items() if distrusted.get(k) != v}


def ignored_secrets() -> None:
    """Say once per page that a working folder's secrets file was not read, and why."""
    for path, values in _split_secrets().ignored.items():
        st.warning(t("secrets.ignored", path=path, keys=", ".join(sorted(values))), icon=":material/gpp_maybe:")


def base_settings() -> Settings:
    """Defaults → rag.toml → environment → secrets.toml (which Streamlit also puts in the environment, winning)."""
    secrets = _secrets()  # first: it takes a working folder's secrets back out of os.environ
    return load_settings(env={**os.environ, **secrets})


def session_settings() -> Settings:
    """The base settings with this session's choices from the settings panel (at a session's start, those the app
    saved from earlier visits: rag/web/saved_choices.py; once the person chooses, saved for the next ones), in the
    language last clicked."""
    try:
        base = base_settings()
        choices = _session_choices(base)
        settings = base if choices is None else apply_choices(base, choices)
    except RagError as exc:
        fail(exc)
    picked = st.session_state.get(LANGUAGE_CHOICE)
    return settings if picked is None else settings.replace(ui_language=picked)


def _session_choices(base: Settings) -> Choices | None:
    """This session's choices. Whatever sets `rag_choices` (the panel, the model picker) is saved on the next run."""
    state = st.session_state
    if "rag_choices_kept" not in state:  # the session's first run: the choices of earlier visits
        start = saved_choices.remembered(base)
        state["rag_choices_kept"], state["rag_saved_fields"], state["rag_saved_notices"] = start.choices, start.fields, start.notices
        state.setdefault("rag_choices", start.choices)
    chosen, kept = state.get("rag_choices"), state["rag_choices_kept"]
    if chosen != kept and chosen is not None:
        state["rag_choices_kept"], state["rag_saved_notices"] = chosen, ()
        try:
            state["rag_saved_fields"] = saved_choices.keep(base, before=kept, after=chosen)
        except OSError as exc:  # a full disk or a read-only data folder: the choice still holds for this visit
            state["rag_saved_notices"] = (saved_choices.Notice("not_written", {"error": str(exc)}),)
    return chosen


def _saved_notices() -> None:
    """What the saved choices could not give (a vault folder gone, a value out of range), on every page."""
    for notice in st.session_state.get("rag_saved_notices", ()):
        st.warning(t(f"saved.{notice.kind}", **notice.values), icon=":material/settings_backup_restore:")


def _saved_line() -> None:
    """Which settings come from earlier choices in this panel rather than rag.toml and the environment, and a way
    to go back to those."""
    fields = st.session_state.get("rag_saved_fields") or ()
    if not fields:
        return
    st.caption(t("saved.fields", fields=", ".join(t(_FIELD_LABELS[f]) for f in fields)))
    if st.button(t("saved.forget"), key="rag_forget_choices", icon=":material/restart_alt:", help=t("saved.forget.help")):
        saved_choices.forget()
        for key in ("rag_choices", "rag_choices_kept", "rag_saved_fields", "rag_saved_notices"):
            st.session_state.pop(key, None)
        st.rerun()


@st.cache_resource(show_spinner=False, max_entries=8, on_release=lambda knowledge: knowledge.live.close())
def _shared_knowledge(key: str, _settings: Settings) -> Knowledge:
    live = LiveIndex(_settings)
    live.workspace()  # open now: a broken vault or embedder is reported on this page
    return Knowledge(live.start(), reads_wait=False)  # pages never wait for a check: the indexer looks


def open_context(settings: Settings, settings_box) -> AppContext:
    """Open this session's view of the shared index and choose its language; then draw the settings panel into
    `settings_box` (also when opening fails: the panel is where the fix is made)."""
    if settings.ui_language != "auto" or "rag_language" not in st.session_state:  # the words while the index opens
        st.session_state["rag_language"] = _choose_language(settings, None)
    _saved_notices()
    try:
        with st.spinner(t("progress.opening")):
            knowledge = _shared_knowledge(index_key(settings), settings).for_settings(settings)
    except RagError as exc:
        settings_panel(settings, settings_box, expanded=True)  # open where the fix is made
        st.caption(t("open.fix"))
        fail(exc)
    ctx = AppContext(settings, knowledge, _choose_language(settings, knowledge))
    st.session_state["rag_language"] = ctx.language
    st.session_state["rag_app"] = ctx
    settings_panel(settings, settings_box)
    return ctx


def settings_panel(settings: Settings, box, *, expanded: bool = False) -> None:
    """The sidebar's settings: the language, switched at a click; then the form of the other choices. Applying
    valid choices reruns the app with them; invalid ones show the fix under the button that applied them."""
    defaults = choices_of(settings)
    # A click on a language redraws the panel under its new title: it stays open where the click was. (The flag
    # stays set: a change of `expanded` alone would fold the panel on the next run, whatever the person did.)
    expanded = expanded or st.session_state.get("rag_language_clicked", False) or bool(st.session_state.get("rag_found_models"))
    expander = box.expander(t("settings.title"), icon=":material/settings:", expanded=expanded)
    st.session_state.setdefault(LANGUAGE_PICK, defaults.language)
    with expander:
        st.segmented_control(
            t("settings.language"),
            i18n.CHOICES,
            key=LANGUAGE_PICK,
            format_func=lambda choice: t(f"settings.language.{choice}"),
            help=t("settings.language.help"),
            on_change=_language_picked,
            args=(settings,),
        )
    with expander, st.form("rag_settings", border=False):
        # A text area wraps a long path instead of cutting it off in the narrow sidebar.
        vault = st.text_area(t("settings.vault"), defaults.vault, height=68, help=t("settings.vault.help"))
        endpoint = st.text_input(t("settings.endpoint"), defaults.endpoint, placeholder="http://localhost:11434/v1", help=t("settings.endpoint.help"))
        chat_model = st.text_input(t("settings.chat_model"), defaults.chat_model, placeholder=t("settings.chat_model.placeholder"))
        embedder = st.radio(
            t("settings.embeddings"),
            ["local", "openai"],
            index=["local", "openai"].index(defaults.embedder),
            horizontal=True,
            help=t("settings.embeddings.help"),
        )
        embed_model = st.text_input(t("settings.embed_model"), defaults.embed_model)
        # Bounds are the settings' own ranges: a value rag.toml may hold is one the form can show.
        notes = st.number_input(t("settings.max_notes"), *allowed_range(NUMBERS["max_notes"]), defaults.max_notes)
        per_note = st.number_input(t("settings.max_per_note"), *allowed_range(NUMBERS["max_chunks_per_note"]), defaults.max_chunks_per_note)
        chars = st.number_input(t("settings.max_chars"), *allowed_range(NUMBERS["max_chars"]), defaults.max_chars, step=1000)
        submitted = st.form_submit_button(t("settings.apply"), type="primary")
        problem = st.empty()  # what is wrong with the choices, right under the button that applied them
        st.caption(t("settings.key", source=_key_source()))
    with expander:
        _saved_line()
        _model_picker(settings)
    if submitted:
        vault = " ".join(vault.splitlines()).strip()  # a path pasted with a line break
        choices = Choices(vault, endpoint, chat_model, embedder, embed_model, int(notes), int(per_note), int(chars), defaults.language)
        try:
            apply_choices(base_settings(), choices)
        except RagError as exc:
            problem.error(error_text(exc), icon=":material/error:")
            return
        st.session_state["rag_choices"] = choices
        st.rerun()


def _language_picked(settings: Settings) -> None:
    """The language clicked becomes this session's at once: the run that follows draws every word in it. It is
    kept apart from the form's choices (applying them later keeps it) and in them, so it is saved for the next
    visits like any choice (rag/web/saved_choices.py)."""
    picked = st.session_state[LANGUAGE_PICK]
    if picked is None:  # a click on the chosen language clears the control: the language stays
        st.session_state[LANGUAGE_PICK] = settings.ui_language
        return
    st.session_state[LANGUAGE_CHOICE] = picked
    chosen = st.session_state.get("rag_choices") or choices_of(settings)
    st.session_state["rag_choices"] = dataclasses.replace(chosen, language=picked)
    st.session_state["rag_language_clicked"] = True


def _model_picker(settings: Settings) -> None:
    """Chat models found on this machine's usual ports (loopback only), to pick one and test it with one request."""
    if st.button(t("models.find"), key="rag_find_models", icon=":material/radar:", help=t("models.find.help", servers=kinds.listed())):
        st.session_state["rag_found_models"] = find_servers()
    found = st.session_state.get("rag_found_models")
    if found is None:
        return
    options = [(server, model) for server in found for model in server.models]
    if not options:
        st.caption(t("models.none"))
        return

    def label(i: int) -> str:  # a select box shows plain text, not Markdown: the name cut, control characters out
        server, model = options[i]
        return f"{shown_name(model.id)} · {server.kind}"

    pick = st.selectbox(t("models.pick"), range(len(options)), format_func=label, key="rag_model_pick")
    server, model = options[pick]
    window = t("models.window", n=model.context_tokens) if model.context_tokens else t("models.window.unknown")
    st.caption(f"{window} · {untrusted.text(server.base_url)}")
    use, test = st.columns(2)
    if test.button(t("models.test"), key="rag_model_test", icon=":material/speed:"):
        try:
            tried = try_model(settings, base_url=server.base_url, model=model.id)
            st.success(t("models.tested", seconds=i18n.decimal(language(), tried.seconds), reply=tried.reply), icon=":material/check:")
        except RagError as exc:
            st.error(error_text(exc), icon=":material/error:")
    if use.button(t("models.use"), key="rag_model_use", type="primary"):
        current = st.session_state.get("rag_choices") or choices_of(settings)
        st.session_state["rag_choices"] = dataclasses.replace(current, endpoint=server.base_url, chat_model=model.id)
        st.rerun()


def _key_source() -> str:
    if "OPENAI_API_KEY" in _secrets():
        return t("settings.key.secrets")
    return t("settings.key.env") if os.environ.get("OPENAI_API_KEY") else t("settings.key.none")


def index_status(ctx: AppContext) -> None:
    """A small live indexing status in the sidebar; polls only while indexing runs."""
    running = ctx.knowledge.progress().running
    with st.sidebar:
        name = ctx.settings.vault.name + (t("sidebar.demo") if ctx.is_demo else "")
        st.markdown(t("sidebar.vault", name=name), help=untrusted.text(ctx.settings.vault))
        st.fragment(run_every=1.0 if running else None)(_index_status_body)(ctx.knowledge)


def progress_label(state: Progress) -> str:
    """What the indexer is doing, in the session's language."""
    if state.state == "reading notes":
        return t("progress.reading", done=state.done, total=state.total) if state.total else t("progress.checking")
    if state.state == "embedding":
        return t("progress.embedding", percent=i18n.percent(language(), state.fraction))
    return t("progress.opening") if state.state == "opening" else t("progress.other", state=state.state)


def _index_status_body(knowledge: Knowledge) -> None:
    state = knowledge.progress()
    seen = st.session_state.get("rag_seen_changes")
    st.session_state["rag_seen_changes"] = state.changes
    if state.running:
        st.session_state["rag_was_indexing"] = True
        st.progress(state.fraction, text=progress_label(state))
        return
    if st.session_state.pop("rag_was_indexing", False) and (seen != state.changes or state.error):
        st.rerun(scope="app")  # new notes or vectors: redraw the page with them
    if state.error:
        st.caption(":red[:material/error: " + i18n.text(language(), "status.error", error=error_text(state.error)) + "]")
    else:
        st.caption(":green[:material/check_circle:] " + t("status.up_to_date"))


# Shown only when the window is too narrow for the sidebar (Streamlit folds it behind a button below 768 px).
_NARROW_NAV_CSS = """<style>
.st-key-rag_narrow_nav { display: none !important; }
@media (max-width: 767.98px) { .st-key-rag_narrow_nav { display: flex !important; } }
</style>"""


def narrow_navigation(pages) -> None:
    """A row of page links at the top of every page, visible only in a narrow window."""
    st.markdown(_NARROW_NAV_CSS, unsafe_allow_html=True)  # our own constant; drawn at once (st.html loads later: a flash)
    with st.container(key="rag_narrow_nav", horizontal=True, gap="small"):
        for page in pages:
            st.page_link(page, label=page.title, icon=page.icon)


@functools.cache
def _cite_component():
    return st.components.v2.component("rag_citation_links", js=_ANSWER_LINKS_JS)


def browser_id() -> str:
    """This browser's id, under which its conversations are saved (rag/web/conversations.py): the one its cookie
    sent, else a new one that `keep_browser_cookie` gives it. A cookie that is not such an id is not used."""
    if not is_browser_id(st.session_state.get("rag_browser")):
        sent = st.context.cookies.get(BROWSER_COOKIE)
        st.session_state["rag_browser"] = sent if is_browser_id(sent) else new_browser_id()
    return st.session_state["rag_browser"]


@functools.cache
def _browser_cookie_component():
    return st.components.v2.component("rag_browser_cookie", js=_BROWSER_COOKIE_JS)


def keep_browser_cookie() -> None:
    """Mount the (invisible) script that keeps this browser's id in its cookie for 400 days from each visit (the
    most a browser keeps one); take the id another tab of this browser already set."""
    try:
        with st.sidebar:
            result = _browser_cookie_component()(key="rag_browser_cookie", data={"id": browser_id()}, on_id_change=lambda: None, height=0)
    except Exception:  # a harness without custom components (AppTest): the id lasts as long as the session
        return
    held = getattr(result, "id", None)
    if is_browser_id(held) and held != st.session_state["rag_browser"]:
        st.session_state["rag_browser"] = held
        st.rerun()


def citation_clicks() -> tuple[int, str] | None:
    """Mount the (invisible) catcher of clicks on `#cite-…` links (it also gives note links in answers their
    address back); the clicked (turn, source id), once."""
    try:
        result = _cite_component()(key="rag_cite_links", on_cite_change=lambda: None, height=0)
    except Exception:  # a harness without custom components (AppTest): the Sources panel buttons still work
        return None
    return parse_cite_href(getattr(result, "cite", None))


def lines_label(where, start: int, end: int) -> str:
    """ "lines 12–18", or for a PDF's passage (`where`: its rag/notes/pdf.py Place) "p. 3, lines 12–18"."""
    if where is None:
        return t("lines", start=start, end=end)
    if where.end_page != where.page:
        return t("page_span", page=where.page, start=where.line, end_page=where.end_page, end=where.end_line)
    return t("page_lines", page=where.page, start=where.line, end=where.end_line)


@st.cache_data(max_entries=8, show_spinner=False)
def _page_image(vault: str, path: str, page: int, outside: tuple[str, ...]):
    """A PDF's page as drawn (a few of them kept: the dialog is drawn again on every rerun)."""
    return pdf_page_image(Path(vault), path, page, outside=outside)


def passage_dialog(vault, **passage_args) -> None:
    """The cited passage in a dialog (its title in the session's language)."""
    st.dialog(t("passage.title"), width="large")(_passage_body)(vault, **passage_args)


def _passage_body(
    vault, *, source_id: str, path: str, heading: str, start: int, end: int, text: str, why: str, quoted=(), outside: tuple[str, ...] = ()
) -> None:
    st.markdown(f"**{untrusted.text(source_id)}** · {untrusted.text(path)}" if source_id else untrusted.text(path))
    shown = passage(vault, path, start, end, text, quoted_lines=quoted, outside=outside)
    if shown.place is not None:
        st.caption(t("passage.where_page", heading=heading, lines=lines_label(shown.place, start, end), why=why))
    else:
        st.caption(t("passage.where", heading=heading, start=start, end=end, why=why))
    if shown.changed:
        st.warning(t("passage.changed"), icon=":material/history:")
    st.html(PASSAGE_CSS + passage_html(shown))
    if shown.place is not None:
        with st.expander(t("passage.page_image", page=shown.place.page), icon=":material/picture_as_pdf:"):
            try:
                st.image(_page_image(str(vault), path, shown.place.page, tuple(outside)), width="stretch")
            except NoteError as exc:
                st.caption(untrusted.text(str(exc)))
    page = shown.place.page if shown.place else None
    st.link_button(t("obsidian.open"), obsidian_url(vault, path, page), icon=":material/open_in_new:")


def cached_note_vectors(ctx: AppContext) -> NoteVectors:
    """Note vectors, recomputed only when the index changed (shared and read-only)."""
    return ctx.knowledge.note_vectors()


def titles(ctx: AppContext) -> dict[str, str]:
    """Each note's title as a person reads it: a wikilink in it shows as its alias or the note's name."""
    return {path: wikilinks.readable(title) for path, title in ctx.knowledge.titles().items()}


def closeness_text(language: str, label: str, percentile: float | None) -> str:
    """ "very similar · closer than 98.7% of pairs" (the rank left out in a vault too small to rank against)."""
    words = i18n.text(language, f"closeness.{label}")
    if percentile is None:
        return words
    return i18n.text(language, "similar.closer_than", label=words, percent=i18n.percent(language, percentile / 100, places=1))


def localized_table(rows: list[dict], *, decimals: dict[str, int], percents: dict[str, int]):
    """Rows for `st.dataframe` whose numbers read the session's language's way ("0,941", "6 %") and still sort as
    numbers: a pandas Styler's display text (pandas is Streamlit's own dependency). A column's own `format` would
    not do: "percent" and "localized" follow the browser's locale, a printf format always writes a decimal point."""
    import pandas as pd

    lang = language()
    formats = {column: functools.partial(i18n.decimal, lang, places=places) for column, places in decimals.items()}
    formats |= {column: functools.partial(i18n.percent, lang, places=places) for column, places in percents.items()}
    table = pd.DataFrame(rows)
    return table.style.format({column: shown for column, shown in formats.items() if column in table.columns})


def notice(text: str) -> str:
    """A notice from the library in the session's language (its own wording when it is not one of the known ones)."""
    return messages.shown(language(), text)


def error_text(exc: Exception | str) -> str:
    """A library error in the app's words and the session's language: the fix is made in Settings, not with a flag."""
    return messages.shown(language(), exc)
