"""Speed as a ratio: ``simsuite bench`` of several checkouts of simsuite, interleaved round by
round on the same machine, so that machine noise falls on all of them alike.

    python benchmarks/ab_bench.py --tree base=/work/base --tree main=. \
        --variant school-2016 --policy basic --hands 20000 --rounds 3

A tree may name its own policy, ``--tree main=.@expert-v1``: the same policy under a newer name
(the ``expert`` of older checkouts is ``expert-v1`` now, since ``expert`` was rebuilt). Each checkout
runs with its own numba cache (warm it first: one ``bench`` per checkout). Prints every round's hands/s, the median
per checkout and its ratio to the first checkout's median. Used for the before/after figures in
docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys


def bench(path: str, variant: str, policy: str, hands: int) -> float:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(path))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "simsuite.cli",
            "bench",
            "--variant",
            variant,
            "--policy",
            policy,
            "--hands",
            str(hands),
            "--seed",
            "1",
            "--json",
        ],
        cwd=path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    row = json.loads(done.stdout)
    return float((row[0] if isinstance(row, list) else row)["hands_per_s"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--tree",
        action="append",
        required=True,
        help="NAME=PATH[@POLICY] of a checkout (repeat; first = reference; POLICY overrides --policy)",
    )
    ap.add_argument("--variant", default="school-2016")
    ap.add_argument("--policy", default="basic")
    ap.add_argument("--hands", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    trees = [t.split("=", 1) for t in a.tree]
    policy = {name: (path.split("@", 1)[1] if "@" in path else a.policy) for name, path in trees}
    trees = [(name, path.split("@", 1)[0]) for name, path in trees]
    rates: dict[str, list[float]] = {name: [] for name, _ in trees}
    for r in range(a.rounds):
        for name, path in trees:
            rates[name].append(bench(path, a.variant, policy[name], a.hands))
        print(f"round {r + 1}: " + "  ".join(f"{n} {rates[n][-1]:,.0f}" for n, _ in trees), flush=True)
    ref = statistics.median(rates[trees[0][0]])
    print(f"{a.variant}, {a.policy}, {a.hands:,} hands x {a.rounds} rounds (median hands/s, ratio to {trees[0][0]}):")
    for name, _ in trees:
        med = statistics.median(rates[name])
        print(f"  {name:10s} {policy[name]:10s} {med:10,.0f}  {med / ref:5.2f}x")


if __name__ == "__main__":
    main()
