"""The app's own small scripts in the browser, where Streamlit has no widget: this browser's id kept in a cookie
(its saved conversations), clicks on citations in an answer, and page links shown only in a narrow window.
"""

from __future__ import annotations

import functools

import streamlit as st

from rag.web.conversations import is_browser_id, new_browser_id
from rag.web.ui_render import parse_cite_href

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


def citation_clicks() -> tuple[int, str] | None:
    """Mount the (invisible) catcher of clicks on `#cite-…` links (it also gives note links in answers their
    address back); the clicked (turn, source id), once."""
    try:
        result = _cite_component()(key="rag_cite_links", on_cite_change=lambda: None, height=0)
    except Exception:  # a harness without custom components (AppTest): the Sources panel buttons still work
        return None
    return parse_cite_href(getattr(result, "cite", None))


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
