"""The robustness classifier's power, measured: the figures docs/metrics.md ("Robust, policy-dependent or
undecided") quotes. No play; about half a minute on one core.

    python benchmarks/classifier_power.py [--reps 4000] [--seed 20246]

For docs/findings.md's undecided example (basic and expert 1,000 deals, search +0.078 [-0.028, +0.174] on 24, a
margin of ±0.05), with one conclusion (a Holm family of 4 p-values) and eight (32):

1. the n of one unadjusted two-sided interaction test, 80% power) and how often the
   classifier reaches "robust" (no interaction) and "policy-dependent" (search's effect the others' + margin) there;
2. the n's that ``power_n`` prints now (seed 46) and the classifier's power at them, simulated again on another
   seed (``--seed``);
3. how far the n's move between ten search seeds (the Monte Carlo error of a printed n);
4. eight alike conclusions simulated jointly (Holm over all 32 at once, no interaction) at the printed robust n:
   the share marked robust, which the least favourable case behind the printed n keeps at 80% or more;
5. notebook 03, bottom 6: the others' pooled effects with the old 1e-9 floor on a zero-width SE and now;
6. the time ``classify_all`` takes for eight conclusions, the sizing included.

Each share comes with its Wilson interval and its number of simulated notebooks (for 4., Wilson at the effective
sample size over notebooks, ``stats.cluster_share``: the eight conclusions of one notebook share its Holm family).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from simsuite.analysis.notebooks.robustness import (
    DEPENDENT,
    PAIRINGS,
    POWER_SEED,
    ROBUST,
    classify_all,
    interaction_tests,
    power_n,
    simulate_marks,
)
from simsuite.analysis.stats import Z95, Estimate, cluster_share, wilson

E = Estimate
NOISY = {
    "basic": E(0.10, 0.085, 0.115, 1000),
    "expert": E(0.098, 0.083, 0.113, 1000),
    "search": E(0.078, -0.028, 0.174, 24),
}
BOTTOM6 = {
    "expert": E(-6.937, -7.139, -6.735, 1000),
    "basic": E(0.0, 0.0, 0.0, 1000),
    "search": E(-2.182, -3.153, -1.235, 80),
}
MARGIN = 0.05


def share(hits) -> str:
    hits = np.asarray(hits, bool)
    return wilson(float(hits.sum()), hits.size).fmt(pct=True, digits=3)


def unit(eff) -> np.ndarray:
    return np.array([eff[p].n * ((eff[p].high - eff[p].low) / (2 * Z95)) ** 2 for p in PAIRINGS])


def old_n(eff) -> int:
    """The n the marks printed before: one two-sided interaction test at 5%, 80% power (the hardest pairing)."""
    u = dict(zip(PAIRINGS, unit(eff)))
    per_deal = max(u[p] + 1.0 / sum(1.0 / u[q] for q in PAIRINGS if q != p) for p in PAIRINGS)
    return math.ceil(per_deal * ((1.959964 + 0.841621) / MARGIN) ** 2)


def marks_at(eff, n, family, z) -> tuple[np.ndarray, np.ndarray]:
    """(robust with no interaction, policy-dependent with search's effect the others' + margin), per notebook."""
    c = interaction_tests(eff, +1, MARGIN)["pooled"]
    robust = simulate_marks(np.full(3, c), unit(eff), n, z, +1, MARGIN, family)[0]
    dependent = simulate_marks(np.array([c, c, c + MARGIN]), unit(eff), n, z, +1, MARGIN, family)[1]
    return robust, dependent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=4000, help="simulated notebooks per check (default 4000)")
    ap.add_argument("--seed", type=int, default=20_246, help="the checks' seed, not the search's (default 20246)")
    a = ap.parse_args()
    z = np.random.default_rng(a.seed).standard_normal((a.reps, 3))
    n0 = old_n(NOISY)
    print(f"example: search {NOISY['search'].fmt()}, basic and expert n = 1,000, margin ±{MARGIN}")
    for conclusions in (1, 8):
        fam = 4 * conclusions
        r, d = marks_at(NOISY, n0, fam, z)
        print(f"\n{conclusions} conclusion(s), Holm over {fam} p-values")
        print(f"  old printed n {n0:,}: robust {share(r)}, policy-dependent {share(d)} (seed {a.seed})")
        pw = power_n(NOISY, +1, MARGIN, fam)
        r2 = marks_at(NOISY, pw["robust"], fam, z)[0]
        d2 = marks_at(NOISY, pw["dependent"], fam, z)[1]
        print(
            f"  now (search seed {POWER_SEED}, {pw['reps']:,} notebooks per n): robust {pw['robust']:,} "
            f"({pw['robust'] / n0:.2f}x the old n), policy-dependent {pw['dependent']:,} "
            f"({pw['dependent'] / n0:.2f}x; hardest pairing {pw['hardest']})"
        )
        print(f"  checked on seed {a.seed}: robust at {pw['robust']:,}: {share(r2)}")
        print(f"  checked on seed {a.seed}: policy-dependent at {pw['dependent']:,}: {share(d2)}")
        seeds = [power_n(NOISY, +1, MARGIN, fam, seed=s) for s in range(1, 11)]
        for key in ("robust", "dependent"):
            ns = [s[key] for s in seeds]
            print(
                f"  {key} n over search seeds 1-10: {min(ns):,} to {max(ns):,} (median {int(np.median(ns)):,}, n = 10)"
            )
    # eight alike conclusions at once: Holm over all 32 p-values of the simulated notebook
    pw = power_n(NOISY, +1, MARGIN, 32)
    c = interaction_tests(NOISY, +1, MARGIN)["pooled"]
    se = np.sqrt(unit(NOISY) / pw["robust"])
    rng = np.random.default_rng(a.seed + 1)
    reps = max(a.reps // 4, 200)
    hits = []
    for _ in range(reps):
        x = c + rng.standard_normal((8, 3)) * se
        items = [
            ({p: E(v, v - Z95 * s, v + Z95 * s, pw["robust"]) for p, v, s in zip(PAIRINGS, row, se)}, +1, MARGIN)
            for row in x
        ]
        hits += [m["mark"] == ROBUST for m in classify_all(items, size=False)]
    print(
        f"\neight alike conclusions simulated jointly at the printed robust n {pw['robust']:,} "
        f"(seed {a.seed + 1}): marked robust "
        f"{cluster_share(np.array(hits, float), np.repeat(np.arange(reps), 8)).fmt(pct=True, digits=3)} "
        f"of the conclusions (n = simulated notebooks, 8 conclusions each)"
    )
    # notebook 03, bottom 6
    print("\nnotebook 03, bottom 6 (docs/findings.md): the others' pooled effect of each pairing")
    se6 = {p: max((e.high - e.low) / (2 * Z95), 1e-9) for p, e in BOTTOM6.items()}
    now = interaction_tests(BOTTOM6, -1, 0.5)["tests"]
    for p in BOTTOM6:
        w = {q: 1 / se6[q] ** 2 for q in BOTTOM6 if q != p}
        floor = sum(w[q] * BOTTOM6[q].value for q in w) / sum(w.values())
        print(f"  {p}: with the 1e-9 floor {floor:+.3f}; now {now[p]['others']:+.3f} (SE {now[p]['se']:.3f})")
    t = time.perf_counter()
    out = classify_all([(NOISY, +1, MARGIN)] * 8)
    print(f"\nclassify_all, 8 conclusions with sizing: {time.perf_counter() - t:.2f} s (one run)")
    assert all(o["mark"] != DEPENDENT for o in out)


if __name__ == "__main__":
    main()
