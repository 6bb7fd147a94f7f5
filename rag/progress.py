"""Progress of long work (reading notes, embedding) as tqdm bars on stderr, for the command-line adapters."""

from __future__ import annotations

import sys

from tqdm import tqdm

EMBED_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}]"


class ProgressBars:
    """One tqdm bar per stage on stderr, with counts and ETA."""

    def __init__(self) -> None:
        self._bars: dict[str, tqdm] = {}

    def update(self, stage: str, done: int, total: int) -> None:
        if total == 0:
            return
        bar = self._bars.get(stage)
        if bar is None:
            if stage == "embed":  # counted in units of work (characters), shown as a share with an ETA
                bar = tqdm(total=total, desc="Embedding", file=sys.stderr, leave=False, bar_format=EMBED_FORMAT)
            else:
                bar = tqdm(total=total, desc={"read": "Reading notes"}.get(stage, stage), unit="note", file=sys.stderr, leave=False)
            self._bars[stage] = bar
        bar.update(done - bar.n)
        if done >= total:
            bar.close()

    def __enter__(self) -> ProgressBars:
        return self

    def __exit__(self, *exc) -> None:
        for bar in self._bars.values():
            bar.close()
