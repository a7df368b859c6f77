"""The exact model against simulated matches: their figures, the differences, equivalence tests (TOST)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import polars as pl

from ...errors import SimsuiteError
from .model import DEFAULT_REPS, exact_results
from .sample import simulated_figures

# Equivalence margins of the validation, fixed before it is run: how far the exact model may stand
# from simulated matches and still count as the same for the uses it is put to (a design's goals are
# stated to a few points of a share and a few percent of a length). A figure is called equivalent
# when TOST (``stats.tost_p``) rejects "|difference| >= margin" at 5%.
VALIDATION_MARGINS = {
    "p_a": ("abs", 0.04),  # the outcome shares: 4 percentage points
    "p_draw": ("abs", 0.04),
    "p_b": ("abs", 0.04),
    "clock_share": ("abs", 0.04),
    "hands_mean": ("rel", 0.02),  # hands and minutes per match: 2% of the simulated value
    "minutes_mean": ("rel", 0.02),
    "lead_changes": ("abs", 0.10),  # lead changes per match: 0.1
}
VALIDATION_ALPHA = 0.05


def equivalence(exact: dict, simulated: dict, margins: Mapping[str, tuple] = VALIDATION_MARGINS) -> dict:
    """Per figure of ``margins``: the difference exact - simulated, its SE (the two 95% intervals'
    half-widths / 1.96, combined as independent), the margin (absolute, or relative to the simulated
    value), TOST's p of "|true difference| >= margin" and whether it is below ``VALIDATION_ALPHA``."""
    from ..stats import Z95, tost_p

    out = {}
    for k, (kind, m) in margins.items():
        e, s = exact.get(k), simulated.get(k)
        if (
            not e
            or not s
            or e.get("value") is None
            or s.get("value") is None
            or e.get("low") is None
            or s.get("low") is None
        ):
            continue
        se = math.hypot((e["high"] - e["low"]) / (2 * Z95), (s["high"] - s["low"]) / (2 * Z95))
        margin = m * abs(s["value"]) if kind == "rel" else m
        diff = e["value"] - s["value"]
        p = tost_p(diff, se, margin)
        out[k] = {"diff": diff, "se": se, "margin": margin, "p_tost": p, "equivalent": p < VALIDATION_ALPHA}
    return out


def validation_rows(
    model_run,
    sim_run,
    overrides: Mapping[str, Any] | None = None,
    reps: int = DEFAULT_REPS,
    seed: int = 0,
    sim_cells: Mapping[str, str] | None = None,
    cells: Sequence[str] | None = None,
    approximate: bool = False,
    margins: Mapping[str, tuple] = VALIDATION_MARGINS,
    progress: Callable[[str, int, int], None] | None = None,
) -> list[dict]:
    """Out-of-sample validation: per cell and figure, the exact model built from ``model_run``'s hands
    (re-scored under ``overrides`` if given; ``approximate``: the bands too, see ``exact_model``)
    beside the matches simulated in ``sim_run``, which must share no seed with it (independent
    deals), with the TOST equivalence test of ``equivalence`` at ``margins``. ``sim_cells`` maps a
    model cell to the simulated cell to compare it with (default: the same id). ``progress``: as
    ``exact_results``'."""
    from ...sim.results import load

    s = load(sim_run)
    sh, sm = s.hands.collect(), s.matches.collect()
    model_seeds = set(load(model_run).matches.select("seed").unique().collect()["seed"].to_list())
    shared = model_seeds & set(sm["seed"].unique().to_list())
    if shared:
        raise SimsuiteError(
            f"validation: the simulated run shares seed(s) {sorted(shared)} with the model's run, so "
            f"the comparison would be in-sample; simulate the matches with another --seed"
        )
    rows = exact_results(
        model_run,
        overrides,
        reps=reps,
        seed=seed,
        cells=cells,
        values=False,
        approximate=approximate,
        progress=progress,
        sample=False,
    )
    sv = s.variants()
    out = []
    for r in rows:
        target = (sim_cells or {}).get(r["cell"], r["cell"])
        if target not in sv and len(sv) == 1:
            target = next(iter(sv))
        h = sh.filter(pl.col("cell") == target)
        m = sm.filter(pl.col("cell") == target)
        if m.height == 0:
            continue
        sim = simulated_figures(h, m, sv[target], seed)
        eq = equivalence(r["figures"], sim, margins)
        for k in margins:
            e, si = r["figures"].get(k), sim.get(k)
            if not e or e.get("value") is None or not si or si.get("value") is None:
                continue
            out.append({"cell": r["cell"], "figure": k, "exact": e, "simulated": si, **(eq.get(k) or {})})
    return out
