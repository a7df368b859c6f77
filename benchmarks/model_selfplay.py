"""Self-play outcomes of two learned models on the same deals: take-over rate, defenders' final points and
points in the bottom, per variant, with the paired difference (model A minus model B, deal by deal, 95%
normal intervals over deals).

    .venv/bin/python benchmarks/model_selfplay.py simsuite/models/lineage/first.npz --hands 2000 --seed 5
"""

from __future__ import annotations

import argparse

from simsuite.analysis.stats import mean_ci
from simsuite.engine.api import play_batch
from simsuite.engine.core import Work
from simsuite.engine.hand import RECORD_FIELDS
from simsuite.engine.policies.model import SHIPPED
from simsuite.learn.train import playable_words
from simsuite.rules.variant import known_ids, load_variant

FIGURES = (
    ("takeover", "take-over", 100.0),
    ("final_points", "defenders' points", 1.0),
    ("bottom_points", "points in the bottom", 1.0),
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("other", help="model B (.npz with its card)")
    ap.add_argument("--model", default=str(SHIPPED), help="model A (default: the shipped one)")
    ap.add_argument("--hands", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    a, b = playable_words(args.model), playable_words(args.other)  # a first-format model is widened
    print(f"learned self-play, {args.hands} deals a variant (seed {args.seed}): A {args.model}, B {args.other}")
    for vid in known_ids():
        v = load_variant(vid)
        ra = play_batch(v, args.seed, args.hands, "learned", work=Work(a).arrays())
        rb = play_batch(v, args.seed, args.hands, "learned", work=Work(b).arrays())
        parts = []
        for col, name, scale in FIGURES:
            i = RECORD_FIELDS.index(col)
            x, y = ra[:, i] * scale, rb[:, i] * scale
            d = mean_ci(x - y)
            parts.append(f"{name} {x.mean():.1f} vs {y.mean():.1f}, {d.value:+.1f} [{d.low:+.1f}, {d.high:+.1f}]")
        print(f"{vid:<14} " + "; ".join(parts))


if __name__ == "__main__":
    main()
