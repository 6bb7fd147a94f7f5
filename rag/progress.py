"""Progress of long work (reading notes, embedding) as tqdm bars on stderr, for the command-line adapters."""

from __future__ import annotations

import sys

from tqdm import tqdm


class ProgressBars:
    """One tqdm bar per stage on stderr, with counts and ETA."""

    def __init__(self) -> None:
        self._bars: dict[str, tqdm] = {}

    def update(self, stage: str, done: int, total: int) -> None:
        if total == 0:
            return
        bar = self._bars.get(stage)
        if bar is None:
            label = {"read": "Reading notes", "embed": "Embedding"}.get(stage, stage)
            bar = self._bars[stage] = tqdm(total=total, desc=label, unit="text" if stage == "embed" else "note", file=sys.stderr, leave=False)
        bar.update(done - bar.n)
        if done >= total:
            bar.close()

    def __enter__(self) -> ProgressBars:
        return self

    def __exit__(self, *exc) -> None:
        for bar in self._bars.values():
            bar.close()
