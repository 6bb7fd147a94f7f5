"""How tall the rows of an `st.dataframe` must be for wrapped text (a note's path, its title) to show whole.

The grid draws on a canvas: a cell cuts whatever does not fit, without an ellipsis a person would notice. It wraps a
text cell only when rows are taller than 4rem, by words, breaking a word longer than the column by characters (as
glide-data-grid does). So the page gives its columns fixed widths and asks here for a row height that holds the
longest text it shows. Widths of characters are the 14px Source Sans the grid draws with, rounded up (measured in
Chromium; a script the font lacks is taken as wide), so an estimate errs towards a taller row, never a cut one.

Pure: no Streamlit. The browser test measures the real font to hold these numbers to account.
"""

from __future__ import annotations

import math
import unicodedata

PADDING_X = 8  # px either side of a cell's text (the grid's cellHorizontalPadding)
PADDING_Y = 3  # px above and below (cellVerticalPadding)
FONT_PX = 13  # the drawn height of a line of 14px text
LINE_PX = 18.2  # from one line to the next (lineHeight 1.4 × FONT_PX)
WRAPS_ABOVE = 64  # px: the grid wraps text only in rows taller than this (4rem)
HEADER_PX = 35  # the header row
SLACK_PX = 6  # beyond the last line: rounding in the browser must not cut it
_WIDE = frozenset("mwWMЖЩшщюыЮЫ%@")  # the widest of their script (10-12.3 px)


def char_px(ch: str) -> float:
    """An upper estimate of `ch`'s width in px."""
    if ch == " ":
        return 2.8
    if ch in _WIDE or unicodedata.east_asian_width(ch) in ("W", "F"):
        return 14.0
    if ch.isascii():
        if ch.isupper():
            return 9.0
        return 7.2 if ch.isalnum() else 5.5
    if "CYRILLIC" in unicodedata.name(ch, ""):
        return 10.0 if ch.isupper() else 8.6
    return 11.0


def lines(text: str, width: int) -> int:
    """How many lines `text` takes in a column `width` px wide (padding included), wrapped as the grid wraps."""
    room = width - 2 * PADDING_X
    count, used = 0, 0.0
    for paragraph in text.split("\n"):
        count += 1
        used = 0.0
        for n, word in enumerate(paragraph.split(" ")):
            size = sum(char_px(c) for c in word)
            gap = char_px(" ") if n else 0.0
            if used and used + gap + size > room:  # the word goes to a new line
                count, used, gap = count + 1, 0.0, 0.0
            used += gap
            for c in word:  # a word longer than the line breaks between characters
                if used + char_px(c) > room and used:
                    count, used = count + 1, 0.0
                used += char_px(c)
    return max(count, 1)


def row_px(cells: list[tuple[str, int]]) -> int:
    """The row height that shows every (text, column width) of `cells` whole: tall enough to wrap at all."""
    most = max((lines(text, width) for text, width in cells), default=1)
    needed = FONT_PX + LINE_PX * (most - 1) + PADDING_Y + SLACK_PX
    return max(WRAPS_ABOVE + 1, math.ceil(needed))


def table_px(rows: int, row: int) -> int:
    """The height of a grid that shows `rows` rows of `row` px without scrolling (its border included)."""
    return HEADER_PX + rows * row + 3
