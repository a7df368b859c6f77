"""The rebuilt ``expert`` against the frozen ``expert-v1`` and ``basic`` (duplicate duels), and its
self-play figures beside ``expert-v1``'s, on every shipped variant (docs/policies.md).

    .venv/bin/python benchmarks/expert_check.py [--pairs 2000] [--hands 4000] [--seed 1]

Every figure carries its n and a 95% interval.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from simsuite.analysis.stats import mean_ci, wilson
from simsuite.compete.duel import duel
from simsuite.engine import hand as H
from simsuite.engine.api import play_batch
from simsuite.rules.variant import load_variant

IDS = ["two-deck-2011", "school-2016", "huizhou", "baiyun-2016", "guangxi-2012"]


def _est(e) -> str:
    return f"{e.value:.3f} [{e.low:.3f}, {e.high:.3f}]"


def _share(k: int, n: int) -> str:
    e = wilson(k, n)
    return f"{100 * e.value:.1f}% [{100 * e.low:.1f}, {100 * e.high:.1f}]"


def self_play(v, policy: str, hands: int, seed: int) -> str:
    r = play_batch(v, seed, hands, policy)
    take = int(r[:, H.R_TAKEOVER].sum())
    pts = mean_ci(r[:, H.R_FINAL_POINTS].astype(float))
    rich = int((r[:, H.R_BOTTOM_POINTS] > 0).sum())
    cap = mean_ci(np.abs(r[:, H.R_CAPTURE_POINTS]).astype(float))
    return (
        f"take-over {_share(take, hands)}, defender points {pts.value:.1f} [{pts.low:.1f}, {pts.high:.1f}], "
        f"bottoms with points {_share(rich, hands)}, |capture points| {cap.value:.2f} [{cap.low:.2f}, {cap.high:.2f}]"
        f" (n = {hands})"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=2000)
    ap.add_argument("--hands", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--variant", action="append")
    a = ap.parse_args()
    for vid in a.variant or IDS:
        v = load_variant(vid)
        t = time.time()
        for other in ("expert-v1", "basic"):
            d = duel(v, "expert", other, a.pairs, a.seed)
            print(
                f"{vid}: expert vs {other}: net levels {_est(d.net_levels)}, pairs won {_share(round(d.pair_win.value * d.pairs), d.pairs)}, "
                f"lost {_share(round(d.pair_loss.value * d.pairs), d.pairs)} (n = {d.pairs})",
                flush=True,
            )
        for pol in ("expert", "expert-v1"):
            print(f"{vid}: {pol} self-play: {self_play(v, pol, a.hands, a.seed)}", flush=True)
        print(f"{vid}: {time.time() - t:.0f} s", flush=True)


if __name__ == "__main__":
    main()
