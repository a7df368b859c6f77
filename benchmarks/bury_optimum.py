"""Does the learned bury sit at the value optimum, or would burying more points (as the search does) pay?

On the held-out deals of a bury collection (hand index ending in 0, never trained on), each
candidate's value is the search's mean over its sampled deals: an unbiased estimate of that
candidate's expected value. A pick made without looking at those values (the model's) is therefore
valued without bias by them; the search's own pick, the best of its noisy means, is not (the
winner's curse: candidates with more points in the bottom vary more, and win the maximum of noisy
means more often than their value earns). This shifts the model's scores by ``beta`` levels per
buried point and reports, per tournament as written and over all rules, the points buried per
hand and the value of the picks, paired against ``beta = 0`` with a 95% interval over hands.
If the model sits at the optimum, no shift gains.

    .venv/bin/python benchmarks/bury_optimum.py results/learn/bury-4701 simsuite/models/learned.npz
"""

from __future__ import annotations

import argparse

import numpy as np
import polars as pl

from simsuite.engine.policies.features import FEATURE_NAMES
from simsuite.engine.policies.model import load_model
from simsuite.learn import collect as C
from simsuite.learn import train as T

BETAS = (-0.005, -0.002, 0.0, 0.002, 0.005, 0.01, 0.02)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("collection", help="a bury collection (simsuite learn collect --mode bury)")
    ap.add_argument("model")
    args = ap.parse_args()
    lf = C.load_decisions(args.collection).filter(pl.col("hand") % T.SPLIT_MOD == T.TEST_DEALS)
    first = lf.filter(pl.col("candidate") == 0).select("base", "drawn").collect()
    d = T.from_frame(lf, args.collection)
    s = T.scores(T.model_parts(load_model(args.model)), d)
    pts = d.X[:, FEATURE_NAMES.index("points")].astype(float)
    groups = [("every rule drawn or written", np.ones(d.n, bool))] + [
        (f"{v} as written", ((first["base"] == v) & ~first["drawn"]).to_numpy())
        for v in ("school-2016", "huizhou", "two-deck-2011", "baiyun-2016")
    ]
    print(f"{args.model} on the held-out bury decisions of {args.collection}; 95% intervals over hands")
    for label, mask in groups:
        sub = d.subset(mask)
        rows = d.rows_of(mask)
        ss, pp = s[rows], pts[rows]
        base_pick = T.picks(ss, sub)
        best = np.array(
            [sub.start[i] + int(np.argmax(sub.chosen[sub.start[i] : sub.start[i + 1]])) for i in range(sub.n)]
        )
        print(f"\n{label}: {sub.n:,} decisions; the search's own picks bury {pp[best].mean():.2f} points a hand")
        print(
            f"  {'shift per point':>15}  {'points buried':>13}  value of the picks minus the model's (levels per hand)"
        )
        for beta in BETAS:
            pick = T.picks(ss + beta * pp, sub)
            diff = sub.value[pick] - sub.value[base_pick]
            half = 1.96 * diff.std(ddof=1) / np.sqrt(sub.n)
            print(
                f"  {beta:>+15.3f}  {pp[pick].mean():>13.2f}  {diff.mean():+.4f} [{diff.mean() - half:+.4f}, {diff.mean() + half:+.4f}]"
            )


if __name__ == "__main__":
    main()
