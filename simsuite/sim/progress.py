"""The progress bar of a run: one line on stderr, redrawn as chunks finish."""

from __future__ import annotations

import datetime as _dt
import math
import sys
import time


class Progress:
    """A one-line progress bar on stderr: matches done, hands per second, ETA."""

    def __init__(self, total: int, enabled: bool, stream=None):
        self.stream = stream or sys.stderr
        self.total = max(total, 1)
        self.enabled = enabled
        self.matches = 0
        self.hands = 0
        self.t0 = time.perf_counter()
        self.last = 0.0

    def update(self, matches: int, hands: int) -> None:
        self.matches += matches
        self.hands += hands
        now = time.perf_counter()
        if self.enabled and (now - self.last > 0.1 or self.matches >= self.total):
            self.last = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        secs = max(now - self.t0, 1e-9)
        rate = self.hands / secs
        frac = min(self.matches / self.total, 1.0)
        eta = (self.total - self.matches) * secs / self.matches if self.matches else float("nan")
        bar = "#" * int(frac * 24) + "." * (24 - int(frac * 24))
        eta_s = "?" if math.isnan(eta) else str(_dt.timedelta(seconds=int(eta)))
        self.stream.write(f"\r[{bar}] {self.matches:,}/{self.total:,} matches  {rate:,.0f} hands/s  ETA {eta_s} ")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self._draw(time.perf_counter())
            self.stream.write("\n")
            self.stream.flush()
