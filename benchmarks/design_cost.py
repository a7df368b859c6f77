"""The cost of `simsuite design` against the analyst's baseline (docs/design.md, "Cost against the analyst's baseline").

    python benchmarks/design_cost.py SPEC OUT [JOBS] [REPEAT]

With the engine loaded first, runs the design of SPEC into OUT/design-i and then the baseline into
OUT/baseline-i, REPEAT times alternating (default once), and reports the median time of each.

The baseline is what an analyst does by hand: a fixed-n sweep of the *played* cells alone (the grid
without the clock keys, which the exact model re-scores without play), under every pairing (in
duplicate for a stronger/weaker pairing, as the design plays it), played through the same executor
on the spec's seed, then every parameter set's figures re-scored by the exact model on those hands
(``figures.evaluate``, the design's own figures: delta-method intervals, the per-hand figures'
bootstrap with 1,000 resamples). Its n is the design's ``cost.baseline_matches_per_cell``: the
matches per cell whose screening intervals, all judgements judged at once at the screening's
alpha, are as narrow as the design's where it decided each judgement. Prints hands and seconds
(play, figures) of both and their ratios, and checks the premise: the baseline's screening
half-widths against the design's, judgement by judgement, and the decisions each makes.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from simsuite.analysis.design.figures import evaluate
from simsuite.analysis.design.judge import judge, judgements
from simsuite.analysis.design.search import _play
from simsuite.analysis.design.spec import read_design
from simsuite.analysis.design.store import load_played, pairing_slug
from simsuite.engine.names import pair_text
from simsuite.engine.warm import warm_up
from simsuite.report.design_text import worded_design
from simsuite.sim.spec import ExecOptions


def baseline(spec, out_dir: Path, n: int, jobs: int) -> tuple[int, float, float, dict]:
    """The baseline into ``out_dir`` (fresh): hands, seconds of play, seconds of figures, figures."""
    opts = ExecOptions(jobs, "loky", None, True, False)
    where = lambda pair: out_dir / f"baseline-{pairing_slug(pair)}"  # noqa: E731
    t0 = time.perf_counter()
    _play(
        spec,
        {pair: sorted(spec.played) for pair in spec.pairings},
        n,
        spec.seed,
        where,
        "baseline",
        {"baseline": True},
        opts,
        ["benchmarks/design_cost.py"],
    )
    t_play = time.perf_counter() - t0
    played = load_played(out_dir, spec, 1, lambda _r, pair: where(pair))
    t0 = time.perf_counter()
    figs = evaluate(spec, played, jobs)
    t_fig = time.perf_counter() - t0
    return sum(int(h.height) for h, _ in played.values()), t_play, t_fig, figs


def premise(spec, res: dict, figs: dict) -> dict:
    """Judgement by judgement: the baseline's screening half-width (z_s SE at its n) over the design's
    (z SE where it decided the judgement, else where it last judged it), and the decisions each made."""
    z_s = res["cost"]["baseline_z"]
    sets = {s["id"]: s for s in res["sets"]}
    ratios, base_decided, design_decided, k = [], 0, 0, 0
    for s in spec.sets:
        for gi, pair in judgements(spec, s):
            g, pt = spec.goals[gi], pair_text(pair)
            j = next(x for x in sets[s.id]["by_pairing"][pt] if x["goal"] == g.text())
            k += 1
            design_decided += "decided_round" in j
            fb = figs[s.id][pt].get(g.metric)
            base_decided += judge(g, fb, z_s)["status"] in ("meets", "fails")
            fd = sets[s.id]["figures"][pt].get(g.metric)
            z = res["rounds"][j["decided_round"]]["z"] if "decided_round" in j else j.get("n_needed_z")
            if fb and fd and fb.get("se") and fd.get("se") and z:
                ratios.append((z_s * fb["se"]) / (z * fd["se"]))
    return {"ratios": ratios, "baseline_decided": base_decided, "design_decided": design_decided, "judgements": k}


def main(spec_path: str, out: str, jobs: int = 1, repeat: int = 1) -> None:
    out_dir = Path(out)
    if out_dir.exists() and any(out_dir.iterdir()):
        sys.exit(f"{out}: choose a new or empty folder (each design and baseline is timed from nothing)")
    spec = read_design(spec_path)
    # both sides timed with the engine loaded (the first to run would pay numba's cache load alone)
    warm_up(policies=sorted({",".join(p) for p in spec.pairings}))
    t_designs, t_bases = [], []
    for i in range(repeat):  # alternating, so that the machine's drift falls on both sides alike
        t0 = time.perf_counter()
        res = worded_design(spec_path, out_dir / f"design-{i}", jobs=jobs, quiet=True)
        t_designs.append(time.perf_counter() - t0)
        n = res["cost"]["baseline_matches_per_cell"]
        (out_dir / f"baseline-{i}").mkdir(parents=True)
        base_hands, t_play, t_fig, figs = baseline(spec, out_dir / f"baseline-{i}", n, jobs)
        t_bases.append(t_play + t_fig)
        print(
            f"pair {i + 1}: design {t_designs[-1]:.1f} s, baseline {t_play:.1f} s play + {t_fig:.1f} s figures "
            f"= {t_bases[-1]:.1f} s: {t_bases[-1] / t_designs[-1]:.2f}x",
            flush=True,
        )
    t_design, t_base = statistics.median(t_designs), statistics.median(t_bases)
    c = res["cost"]
    pr = premise(spec, res, figs)
    print(
        f"spec: {spec_path}; {len(spec.sets)} parameter sets, {len(spec.played)} played cells x "
        f"{len(spec.pairings)} pairings; the design's boundary n = {c['boundary_matches_per_cell']:,} matches per "
        f"cell; the baseline's n = {n:,} (z {c['baseline_z']:.2f}); --jobs {jobs}; median of {repeat} "
        "alternating pair(s)"
    )
    print(
        f"design:   {c['design_hands']:>10,} hands ({c['rounds_hands']:,} in {len(res['rounds'])} rounds, "
        f"{c['confirmation_hands']:,} confirming)  {t_design:8.1f} s (play, exact models, the confirmation)"
    )
    print(f"baseline: {base_hands:>10,} hands  {t_base:8.1f} s (play and figures; no confirmation)")
    print(
        f"ratio baseline / design: hands {base_hands / c['design_hands']:.2f}x "
        f"({base_hands / c['rounds_hands']:.2f}x the rounds alone); time {t_base / t_design:.2f}x "
        f"(the design's own estimate of the baseline's hands: {c['baseline_hands']:,})"
    )
    if pr["ratios"]:
        print(
            "screening half-width, baseline / design, judgement by judgement: "
            f"median {statistics.median(pr['ratios']):.2f}, largest {max(pr['ratios']):.2f} "
            f"({len(pr['ratios'])} judgements); decided for sure: baseline {pr['baseline_decided']} of "
            f"{pr['judgements']}, design {pr['design_decided']} of {pr['judgements']} in its rounds"
        )
    print(f"answer: {res['sentence']}")


if __name__ == "__main__":
    main(
        sys.argv[1],
        sys.argv[2],
        int(sys.argv[3]) if len(sys.argv) > 3 else 1,
        int(sys.argv[4]) if len(sys.argv) > 4 else 1,
    )
