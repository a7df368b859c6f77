"""The cost of ``simsuite exact`` in several checkouts, interleaved round by round on the same machine,
so that machine noise falls on all of them alike; and whether their figures agree.

    python benchmarks/exact_cost.py --tree base=../base --tree new=. --rounds 5 results/ex-run

Each round runs ``simsuite exact RESULTS --json`` (and any ``--arg``) once per checkout, each in its
own process with ``PYTHONPATH`` set to the checkout (its own numba cache: run each once first, to
compile). Prints every round's wall and CPU seconds (the child's user + system time: the bootstrap's
threads add up there), the median per checkout and its ratio to the first checkout's, and the largest
difference between the first checkout's figures (value, low, high of every figure of every cell) and
each other's. Used for the before/after figures of ``simsuite exact`` in docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time


def run(path: str, results: str, extra: list[str]) -> tuple[float, float, list]:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(path))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "simsuite.cli", "exact", results, "--json", *extra],
        cwd=path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, json.loads(done.stdout)


def largest_difference(a: list, b: list) -> float:
    worst = 0.0
    for ra, rb in zip(a, b, strict=True):
        for key, fa in ra["figures"].items():
            fb = rb["figures"][key]
            for part in ("value", "low", "high"):
                if fa.get(part) is None and fb.get(part) is None:
                    continue
                worst = max(worst, abs(fa[part] - fb[part]))
    return worst


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="results folder")
    ap.add_argument("--tree", action="append", required=True, help="NAME=PATH of a checkout (first = reference)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--arg", action="append", default=[], help="one more argument of exact (repeat)")
    a = ap.parse_args()
    trees = [t.split("=", 1) for t in a.tree]
    walls: dict[str, list[float]] = {n: [] for n, _ in trees}
    cpus: dict[str, list[float]] = {n: [] for n, _ in trees}
    figures: dict[str, list] = {}
    for r in range(a.rounds):
        for name, path in trees:
            wall, cpu, rows = run(path, a.results, a.arg)
            walls[name].append(wall)
            cpus[name].append(cpu)
            figures[name] = rows
        print(
            f"round {r + 1}: " + "  ".join(f"{n} {walls[n][-1]:.1f} s wall, {cpus[n][-1]:.1f} s CPU" for n, _ in trees),
            flush=True,
        )
    ref = trees[0][0]
    w0, c0 = statistics.median(walls[ref]), statistics.median(cpus[ref])
    print(f"simsuite exact {a.results} {' '.join(a.arg)}: median of {a.rounds} rounds (ratio to {ref})")
    for name, _ in trees:
        w, c = statistics.median(walls[name]), statistics.median(cpus[name])
        diff = largest_difference(figures[ref], figures[name])
        print(
            f"  {name:8s} {w:6.1f} s wall ({w0 / w:4.2f}x faster)  {c:6.1f} s CPU ({c0 / c:4.2f}x less)  "
            f"largest figure difference from {ref}: {diff:.1e}"
        )


if __name__ == "__main__":
    main()
