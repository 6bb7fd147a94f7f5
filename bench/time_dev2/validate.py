# ruff: noqa: UP031  (a helper's checker, kept as written)
"""Check the form of bench/time_dev2/questions.jsonl against bench/time_dev2/vault/.

Standard library only. The checks are bench/time_dev/validate.py's (`check`), with this set's ids (`t2-`), its
minimums and its rule for a line's day (`note_day`). Exits 1 and lists every problem if a check fails, then prints
counts. Whether a gold span really answers its question was checked by reading (see README.md).
"""

import datetime as dt
import importlib.util
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VAULT = os.path.join(HERE, "vault")
_spec = importlib.util.spec_from_file_location("time_dev_validate", os.path.join(HERE, "..", "time_dev", "validate.py"))
first_set = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(first_set)


D = dt.date.fromisoformat
MONTHS_EN = {
    m: i
    for i, m in enumerate(
        ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"], 1
    )
}
MONTHS_RU = {
    m: i
    for i, m in enumerate(["января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа", "сентября", "октября", "ноября", "декабря"], 1)
}


def note_day(lines, path, line):
    """The day of one line: a date that starts the line (a table row `| YYYY-MM-DD |` or a list item
    `- YYYY-MM-DD:`), else the nearest dated heading above (`## YYYY-MM-DD ...`, or `## Monday 3 November` with
    the year from frontmatter `week:`), else frontmatter `date:`, else a date in the file name (YYYY-MM-DD or
    DD.MM.YYYY), else None (undated)."""
    text = lines[line - 1]
    m = re.match(r"\s*(?:\||-)\s*(\d{4}-\d\d-\d\d)\b", text)
    if m:
        return D(m.group(1))
    fm = {}
    if lines and lines[0] == "---":
        for x in lines[1:]:
            if x == "---":
                break
            if ":" in x:
                k, v = x.split(":", 1)
                fm[k.strip()] = v.strip()
    for i in range(line - 1, -1, -1):
        m = re.match(r"#{2,}\s+(\d{4}-\d\d-\d\d)\b", lines[i])
        if m:
            return D(m.group(1))
        m = re.match(r"#{2,}\s+\S+\s+(\d{1,2})\s+(\S+)\s*$", lines[i])
        if m and "week" in fm:
            mo = MONTHS_EN.get(m.group(2)) or MONTHS_RU.get(m.group(2))
            if mo:
                return dt.date(int(fm["week"][:4]), mo, int(m.group(1)))
    if "date" in fm:
        return D(fm["date"])
    b = os.path.basename(path)
    m = re.search(r"(\d{4}-\d\d-\d\d)", b)
    if m:
        return D(m.group(1))
    m = re.match(r"(\d\d)\.(\d\d)\.(\d{4})", b)
    if m:
        return dt.date(int(m.group(3)), int(m.group(2)), int(m.group(1)))
    return None


def main(path):
    return first_set.check(path, vault=VAULT, note_day=note_day, prefix="t2", minimums=(130, 25, 40, 5))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "questions.jsonl")))
