"""Hands per second of school-2016 with basic and expert: play_batch of 3,000 hands (seed 1), three
times per policy, the best rate printed. Used for the before/after pairing in docs/performance.md."""

import time

from simsuite.engine.api import play_batch
from simsuite.rules.variant import load_variant

v = load_variant("school-2016")
for pol in ("basic", "expert"):
    play_batch(v, 1, 10, pol)
    best = 0
    for _ in range(3):
        t = time.perf_counter()
        play_batch(v, 1, 3000, pol)
        best = max(best, 3000 / (time.perf_counter() - t))
    print(pol, round(best))
