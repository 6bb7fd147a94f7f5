"""Ask your vault — the browser app. Run it with `streamlit run app.py`.

A thin adapter over `rag/`: it reads this session's settings (sidebar), opens the index shared by all sessions
(indexing starts in the background, so the page is usable at once), and hands over to one of the pages in
`app_pages/`. Without configuration it works offline on the demo vault: local embeddings, extractive answers.
"""

import streamlit as st

from app_pages import common

st.set_page_config(page_title="Ask your vault", page_icon="📚", layout="centered")

settings = common.session_settings()
common.settings_panel(settings)
ctx = common.open_context(settings)
st.session_state["rag_app"] = ctx
common.index_status(ctx)

pages = st.navigation(
    [
        st.Page("app_pages/ask.py", title="Ask", icon=":material/forum:", default=True),
        st.Page("app_pages/search.py", title="Search", icon=":material/search:"),
        st.Page("app_pages/similar.py", title="Similar notes", icon=":material/hub:"),
        st.Page("app_pages/duplicates.py", title="Duplicates", icon=":material/content_copy:"),
        st.Page("app_pages/index.py", title="Index", icon=":material/database:"),
    ],
    position="top",
)
pages.run()
