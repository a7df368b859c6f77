"""How noisy is a search setting? Two independent runs of it on the same decisions.

The labeller ``label-k<K>-c<C>-s<salt>`` plays ``learned``'s choices and weighs the decisions it
labels from a random stream of its own (``engine.policies.search``), so two labellers that differ
only in the salt weigh the very same decisions with independent sampled deals. For each setting this
collects the same hands twice (salts 1 and 2) and reports, over the decisions both weighed:

- agreement: the share where the two runs choose the same candidate;
- levels given up: run 2's choice valued by run 1's estimates, against run 1's own choice (what
  trusting one run costs by the other's account; 0 when they agree);
- the correlation of the two runs' candidate values, each centred on its decision's mean (how much
  of a candidate's estimated advantage is signal).

Each figure has a 95% interval over hands (a hand's decisions share its deal). Whole hands label
the bury, the last tricks (8 cards or fewer in hand) and one decision in eight of the rest; with
``--mode bury`` every decision is a bury.

    .venv/bin/python benchmarks/reference_noise.py --hands 300 --seed 4801 --jobs 2
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np
import polars as pl

from simsuite.learn.collect import collect, load_decisions
from simsuite.learn.train import LEVEL, _hand_interval

KEYS = ["hand", "decision", "candidate"]


def run(folder: Path, hands: int, seed: int, policy: str, mode: str, jobs: int) -> pl.DataFrame:
    collect(folder, hands=hands, seed=seed, policy=policy, mode=mode, jobs=jobs, chunk=max(hands // 8, 1), quiet=True)
    f = load_decisions(folder).collect()
    return f.select([*KEYS, "kind", "chosen", (pl.col("value_sum") / pl.col("samples") / LEVEL).alias("value")])


def compare(a: pl.DataFrame, b: pl.DataFrame) -> dict:
    j = a.join(b, on=KEYS, suffix="_2").sort(KEYS)
    dec = j.group_by(["hand", "decision"], maintain_order=True).agg(
        pl.col("value"),
        pl.col("value_2"),
        pl.col("chosen"),
        pl.col("chosen_2"),
        pl.first("kind"),
    )
    agree, lost, hands, x1, x2 = [], [], [], [], []
    for row in dec.iter_rows(named=True):
        v1, v2 = np.array(row["value"]), np.array(row["value_2"])
        c1, c2 = int(np.argmax(row["chosen"])), int(np.argmax(row["chosen_2"]))
        agree.append(float(c1 == c2))
        lost.append(v1[c1] - v1[c2])
        hands.append(row["hand"])
        x1.extend(v1 - v1.mean())
        x2.extend(v2 - v2.mean())
    hands = np.array(hands)
    return {
        "decisions": len(agree),
        "agreement": _hand_interval(np.array(agree), hands, 0.0, 1.0),
        "levels_given_up": _hand_interval(np.array(lost), hands),
        "value_correlation": float(np.corrcoef(x1, x2)[0, 1]) if len(x1) > 2 else float("nan"),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hands", type=int, default=300)
    ap.add_argument("--seed", type=int, default=4801)
    ap.add_argument("--settings", default="k8-c6,k16-c6,k32-c6", help="search settings, comma-separated")
    ap.add_argument("--mode", default="hands", choices=("hands", "bury"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for setting in args.settings.split(","):
            runs = [
                run(
                    Path(tmp) / f"{setting}-s{salt}",
                    args.hands,
                    args.seed,
                    f"label-{setting}-s{salt}",
                    args.mode,
                    args.jobs,
                )
                for salt in (1, 2)
            ]
            out[setting] = compare(*runs)
    if args.json:
        print(json.dumps(out, indent=1))
        return
    print(
        f"two independent runs of each search setting on the same decisions ({args.mode} mode, {args.hands} "
        f"hands of seed {args.seed}); 95% intervals over hands"
    )
    print(f"{'setting':<10} {'decisions':>9}  {'agreement':<22} {'levels given up':<26} value correlation")
    for setting, r in out.items():
        a, g = r["agreement"], r["levels_given_up"]
        print(
            f"{setting:<10} {r['decisions']:>9,}  {100 * a['mean']:.1f}% [{100 * a['lo']:.1f}, {100 * a['hi']:.1f}]"
            f"{'':<4} {g['mean']:.4f} [{g['lo']:.4f}, {g['hi']:.4f}]   {r['value_correlation']:.3f}"
        )


if __name__ == "__main__":
    main()
