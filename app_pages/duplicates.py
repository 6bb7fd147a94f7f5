"""Duplicates: near-duplicate note pairs side by side. Only shown; nothing is ever merged or deleted."""

from __future__ import annotations

import streamlit as st

from app_pages import common
from app_pages.common import t
from rag.errors import NoteError
from rag.surface import DUPLICATE_OVERLAP, DUPLICATE_THRESHOLD, read_note
from rag.web import i18n, untrusted
from rag.web.ui_render import obsidian_url

SHOWN = 25  # pairs drawn at once
PREVIEW_CHARS = 1500


def main() -> None:
    ctx = common.context()
    st.title(t("duplicates.title"))
    st.caption(t("duplicates.caption"))
    language = common.language()
    left, right = st.columns(2)
    # Select sliders, so each value is written the app's language's way (a slider's own format is the browser's
    # locale for percents and always a decimal point for others).
    overlap = left.select_slider(
        t("duplicates.overlap"),
        _steps(0.2, 1.0, 0.05),
        DUPLICATE_OVERLAP,
        format_func=lambda v: i18n.percent(language, v),
        help=t("duplicates.overlap.help"),
    )
    threshold = right.select_slider(
        t("duplicates.threshold"),
        _steps(0.70, 1.0, 0.005),
        DUPLICATE_THRESHOLD,
        format_func=lambda v: i18n.decimal(language, v, 3),
        help=t("duplicates.threshold.help"),
    )
    vectors = common.cached_note_vectors(ctx)
    pairs = ctx.knowledge.duplicates(threshold, min_overlap=overlap)
    if not pairs:
        st.success(t("duplicates.none", n=len(vectors)), icon=":material/check_circle:")
        return
    st.write(t("duplicates.count.more", n=len(pairs), shown=SHOWN) if len(pairs) > SHOWN else t("duplicates.count", n=len(pairs)))
    titles = common.titles(ctx)
    for n, pair in enumerate(pairs[:SHOWN]):
        with st.container(border=True):
            label = common.closeness_text(language, pair.closeness, pair.percentile)
            score = i18n.decimal(language, pair.score, 3)
            st.markdown(t("duplicates.pair", label=label, score=score, overlap=i18n.percent(language, pair.overlap)))
            for column, path in zip(st.columns(2), (pair.a, pair.b)):
                with column:
                    _side(ctx, n, path, titles.get(path, path))


def _steps(low: float, high: float, step: float) -> list[float]:
    return [round(low + i * step, 3) for i in range(round((high - low) / step) + 1)]


def _side(ctx: common.AppContext, n: int, path: str, title: str) -> None:
    st.markdown(f"**{untrusted.text(title)}**")
    st.caption(untrusted.text(path))
    try:
        text = read_note(ctx.settings.vault, path).text
    except NoteError as exc:
        st.warning(untrusted.text(exc))
        return
    st.code(text[:PREVIEW_CHARS] + ("\n…" if len(text) > PREVIEW_CHARS else ""), language="markdown", wrap_lines=True, height=260)
    st.link_button(t("obsidian.open"), obsidian_url(ctx.settings.vault, path), icon=":material/open_in_new:")


main()
