"""Index: what is indexed (notes, chunks, vectors missing, model, last sync), a re-index button with live progress,
and what went wrong with the fix."""

from __future__ import annotations

import time

import streamlit as st

from app_pages import common
from rag.live import Progress


def main() -> None:
    ctx = common.context()
    st.title("Index")
    recovered = ctx.knowledge.recovered_from()
    if recovered:
        st.warning(f"The index was damaged; it was moved to {recovered} and rebuilt.", icon=":material/build:")
    _counts(ctx)
    state = ctx.knowledge.progress()
    if st.button(
        "Re-index now",
        icon=":material/sync:",
        type="primary",
        disabled=state.running,
        help="Reads new and changed notes, then embeds the passages and sentences that have no vector yet.",
    ):
        ctx.knowledge.check_now()
        st.rerun()
    st.fragment(run_every=0.5 if state.running else None)(_progress)(ctx)


def _counts(ctx: common.AppContext) -> None:
    status = ctx.knowledge.status()
    notes, chunks, missing = st.columns(3)
    notes.metric("Notes", status["notes"])
    chunks.metric("Passages (chunks)", status["chunks"])
    missing.metric(
        "Vectors missing",
        status["vectors_missing"] + status["sentence_vectors_missing"],
        help=f"{status['vectors_missing']} passages and {status['sentence_vectors_missing']} of {status['sentences']} sentences "
        "have no vector yet; keyword search covers them meanwhile.",
    )
    engine = f" (engine: {status['engine']})" if status.get("engine") else ""
    last = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(status["last_sync"])) if status["last_sync"] else "never"
    st.markdown(
        f"**Model** `{status['model']}`{engine}  \n**Last sync** {last}  \n**Vault** `{status['vault']}`  \n"
        f"**Index** `{status['index']}` ({status['index_bytes'] / 1e6:.1f} MB)"
    )


def _progress(ctx: common.AppContext) -> None:
    state = ctx.knowledge.progress()
    if state.running:
        st.session_state["rag_index_page_running"] = True
        st.progress(state.fraction, text=state.label)
        return
    if st.session_state.pop("rag_index_page_running", False):
        st.rerun(scope="app")  # the run ended: redraw the counts
    _last_run(state, ctx.knowledge.status()["skipped"])


def _last_run(state: Progress, skipped: list[dict]) -> None:
    if state.error:
        st.error(state.error, icon=":material/error:")
    r = state.last_report
    if r is not None:
        st.success(
            f"Last check of the vault: {r.files_added} added, {r.files_updated} updated, {r.files_removed} removed, "
            f"{r.files_unchanged} unchanged, in {r.seconds:.1f} s. Vectors are embedded after it, in the background.",
            icon=":material/check_circle:",
        )
    if skipped:
        with st.expander(f"{len(skipped)} note(s) skipped", icon=":material/warning:", expanded=True):
            for note in skipped:
                st.markdown(f"- `{note['path']}`: {note['reason']}")


main()
