"""The cost of `simsuite design` against the brute-force sweep of the same grid (docs/performance.md).

    python benchmarks/design_cost.py SPEC OUT [JOBS] [REPEAT]

With the engine loaded first, runs the design of SPEC into OUT/design-i and then the brute force into
OUT/brute-i, REPEAT times alternating (default once), and reports the median time of each. The brute force: for every pairing, a sweep that simulates every parameter set of the grid at the
most matches the design gave any cell (the n at the boundary; in duplicate for a stronger/weaker
pairing, as the design plays it), and the summary of every cell (simulated figures with their
intervals, bootstrap over deals with the design's ``BOOT_REPS`` = 1,000 resamples, the least any
reported interval uses). Prints hands played and seconds (play, and play with the figures) of both, their
ratios, and the interval widths of the goals' figures at the design's boundary cells in both.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from simsuite.analysis.design.figures import BOOT_REPS
from simsuite.analysis.design.spec import METRIC_BY_KEY, defined, read_design
from simsuite.analysis.metrics import summarise
from simsuite.engine.names import pair_text
from simsuite.engine.warm import warm_up
from simsuite.errors import toml_value
from simsuite.report.design_text import worded_design
from simsuite.sim.results import load
from simsuite.sim.run import sweep


def brute_spec(spec, pair, matches: int) -> str:
    lines = [
        f"base = {toml_value(spec.base)}",
        f"seed = {spec.seed}",
        f"matches = {matches}",
        f"policies = {toml_value(','.join(pair))}",
        f"duplicate = {toml_value(pair[0] != pair[1])}",
        f"chunk = {spec.chunk}",
        "",
        "[grid]",
    ]
    lines += [f"{k} = {toml_value(v)}" for k, v in spec.grid.items()]
    if spec.raw.get("decks_scaling"):
        lines += ["", "[decks_scaling]"] + [f"{k} = {toml_value(v)}" for k, v in spec.raw["decks_scaling"].items()]
    return "\n".join(lines) + "\n"


def boundary_widths(res: dict, rows: dict, n: int) -> dict[str, list[float]]:
    """Interval width / estimate of every goal's figure of the sets the design played to ``n`` matches
    (the cells at the boundary), in the design and in the brute force (the same set, pairing and n)."""
    widths: dict[str, list[float]] = {"design": [], "brute force": []}
    for s in res["sets"]:
        for g in res["goals"]:
            metric = g.split()[0]
            pair = res["primary"][metric]
            fd = s["figures"][pair].get(metric)
            dm = METRIC_BY_KEY[metric]
            fb = rows.get((s["id"], pair), {}).get(dm.fallback or dm.source_key)
            if (
                fd
                and fd["n"] == n
                and fd["value"]
                and fb
                and fb.get("low") is not None
                and defined(metric, tuple(pair.split(",")))
            ):
                widths["design"].append((fd["high"] - fd["low"]) / abs(fd["value"]))
                widths["brute force"].append((fb["high"] - fb["low"]) / abs(fb["value"]))
    return widths


def brute_force(spec, out_dir: Path, n: int, jobs: int) -> tuple[int, float, float, dict]:
    """The brute force into ``out_dir`` (fresh): hands, seconds of play, seconds of figures, rows."""
    brute_hands, t_play, t_fig = 0, 0.0, 0.0
    rows = {}
    for pair in spec.pairings:
        f = out_dir / f"brute-force-{'-'.join(pair)}.toml"
        f.write_text(brute_spec(spec, pair, n))
        t0 = time.perf_counter()
        run = sweep(f, out_dir / f.stem, jobs=jobs, quiet=True)
        t_play += time.perf_counter() - t0
        r = load(run)
        h, m = r.hands.collect(), r.matches.collect()
        brute_hands += h.height
        t0 = time.perf_counter()
        for row in summarise(h, m, by="cell", variants=r.variants(), seed=spec.seed, reps=BOOT_REPS):
            rows[(row["cell"], pair_text(pair))] = row
        t_fig += time.perf_counter() - t0
    return brute_hands, t_play, t_fig, rows


def main(spec_path: str, out: str, jobs: int = 1, repeat: int = 1) -> None:
    out_dir = Path(out)
    if out_dir.exists() and any(out_dir.iterdir()):
        sys.exit(f"{out}: choose a new or empty folder (each design and brute force is timed from nothing)")
    spec = read_design(spec_path)
    # both sides timed with the engine loaded (the first to run would pay numba's cache load alone)
    warm_up(policies=sorted({",".join(p) for p in spec.pairings}))
    t_designs, t_brutes = [], []
    for i in range(repeat):  # alternating, so that the machine's drift falls on both sides alike
        t0 = time.perf_counter()
        res = worded_design(spec_path, out_dir / f"design-{i}", jobs=jobs, quiet=True)
        t_designs.append(time.perf_counter() - t0)
        n = res["cost"]["brute_force_matches_per_cell"]
        (out_dir / f"brute-{i}").mkdir(parents=True)
        brute_hands, t_play, t_fig, rows = brute_force(spec, out_dir / f"brute-{i}", n, jobs)
        t_brutes.append(t_play + t_fig)
        print(
            f"pair {i + 1}: design {t_designs[-1]:.1f} s, brute force {t_play:.1f} s play + {t_fig:.1f} s figures "
            f"= {t_brutes[-1]:.1f} s: {t_brutes[-1] / t_designs[-1]:.2f}x",
            flush=True,
        )
    t_design, t_brute = statistics.median(t_designs), statistics.median(t_brutes)
    widths = boundary_widths(res, rows, n)
    d_hands = res["cost"]["design_hands"]
    print(
        f"spec: {spec_path}; {len(spec.sets)} parameter sets x {len(spec.pairings)} pairings; "
        f"boundary n = {n:,} matches per cell; --jobs {jobs}; median of {repeat} alternating pair(s)"
    )
    print(
        f"design:      {d_hands:>10,} hands  {t_design:8.1f} s (play, exact models and the confirmation on fresh "
        f"deals; {len(res['rounds'])} rounds)"
    )
    print(f"brute force: {brute_hands:>10,} hands  {t_brute:8.1f} s (play and figures)")
    print(
        f"ratio brute force / design: hands {brute_hands / d_hands:.2f}x; time {t_brute / t_design:.2f}x "
        f"(design's own estimate of the hands: {res['cost']['brute_force_hands']:,})"
    )
    if widths["design"]:
        print(
            "relative 95% interval width at the boundary (median over the goals' figures of the sets the design "
            "played to the boundary's n): "
            f"design {statistics.median(widths['design']):.3f}, brute force {statistics.median(widths['brute force']):.3f} "
            f"({len(widths['design'])} figures)"
        )
    print(f"answer: {res['sentence']}")


if __name__ == "__main__":
    main(
        sys.argv[1],
        sys.argv[2],
        int(sys.argv[3]) if len(sys.argv) > 3 else 1,
        int(sys.argv[4]) if len(sys.argv) > 4 else 1,
    )
