"""Which third of a development set is kept aside: never fitted on, reported on its own.

Every question, fact query and labelled claim written for fitting (bench/reading_dev/, bench/memory_dev3/,
bench/claims_dev/) is in the aside third when a hash of its id says so: stable across runs and machines, and
independent of anything about the item.
"""

from __future__ import annotations

import hashlib

PARTS = ("fit", "aside", "all")


def aside(item_id: str) -> bool:
    return int(hashlib.sha256(item_id.encode("utf-8")).hexdigest(), 16) % 3 == 0


def keep(item_id: str, part: str) -> bool:
    """Does the item belong to `part` ("fit": the two thirds fitted on, "aside": the third never fitted on, "all")?"""
    if part not in PARTS:
        raise ValueError(f"part must be one of {PARTS}, not {part!r}")
    return part == "all" or aside(item_id) == (part == "aside")
