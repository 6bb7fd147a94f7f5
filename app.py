"""Ask your vault — the browser app. Run it with `streamlit run app.py`.

A thin adapter over `rag/`: it reads this session's settings (sidebar), opens the index shared by all sessions
(indexing starts in the background, so the page is usable at once), and hands over to one of the pages in
`app_pages/`. Without configuration it works offline on the demo vault: local embeddings, extractive answers.
"""

import streamlit as st

from app_pages import common
from app_pages.browser_scripts import keep_browser_cookie, narrow_navigation
from app_pages.session_settings import ignored_secrets, session_settings
from app_pages.shared_index import index_status, open_context

st.set_page_config(page_title="Ask your vault", page_icon="📚", layout="centered")

settings = session_settings()
settings_box = st.sidebar.container()  # the settings panel, drawn once the session's language is known
ctx = open_context(settings, settings_box)
keep_browser_cookie()  # this browser's id, which its saved conversations belong to
index_status(ctx)
ignored_secrets()  # a working folder's .streamlit/secrets.toml is not read: say so

t = common.t
page_list = [
    st.Page("app_pages/ask.py", title=t("nav.ask"), icon=":material/forum:", default=True),
    st.Page("app_pages/search.py", title=t("nav.search"), icon=":material/search:"),
    st.Page("app_pages/memory.py", title=t("nav.memory"), icon=":material/psychology:"),
    st.Page("app_pages/similar.py", title=t("nav.similar"), icon=":material/hub:"),
    st.Page("app_pages/duplicates.py", title=t("nav.duplicates"), icon=":material/content_copy:"),
    st.Page("app_pages/index.py", title=t("nav.index"), icon=":material/database:"),
]
pages = st.navigation(page_list, position="sidebar")
narrow_navigation(page_list)  # a narrow window folds the sidebar away: the pages stay one tap away
pages.run()
