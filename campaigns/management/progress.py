"""A progress bar for the management commands: a ``progress(done, total)`` callback, the shape
the importers report progress in, drawing a tqdm bar on standard error."""

from __future__ import annotations

from tqdm import tqdm


class ProgressBar:
    """A progress(done, total) callback drawing a tqdm bar on stderr (only on a terminal)."""

    def __init__(self, desc: str, unit: str, stream, enabled: bool) -> None:
        self.desc, self.unit, self.stream, self.enabled = desc, unit, stream, enabled
        self.bar = None

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            self.bar = tqdm(
                total=total,
                desc=self.desc,
                unit=" " + self.unit,
                file=self.stream,
                disable=None if self.enabled else True,  # None: off when not a terminal
                leave=False,
            )
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
