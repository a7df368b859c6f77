"""Rule settings side by side: the organiser's figures of every cell of a run, each cell's paired
difference from a baseline over the deals they share, and which settings meet an organiser's goals
(``simsuite compare``; docs/compare.md).

The figures are ``metrics.summarise``'s (its intervals and n = deals); the draws' share is
``stats.cluster_share`` over deals. A difference is a figure minus the baseline's figure, both taken
over the deals the two cells share (a sweep's cells play the same deals: match i of seed S), with a
percentile bootstrap over those deals (``stats.cluster_bootstrap``: a resample draws whole deals, so
each cell's figure and the baseline's move together) and a two-sided p from the bootstrap's standard
error (``stats.normal_p``); Holm's correction (``stats.holm``) runs over the differences of one
section (one printed table). Returns data; ``report.settings_text`` writes it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from ..errors import SimsuiteError
from ..rules.words import FIELD_WORDS, cell_words
from .design.spec import OPS, Goal, read_goal
from .metrics import BOOTSTRAP_REPS, count_once, deal_ids, level_change, n_star_net, policy_pair, summarise
from .stats import Z95, cluster_bootstrap, cluster_share, holm, normal_p

ALPHA = 0.05
DEAL = ("seed", "match")  # a deal shared by the cells of one run: match i of seed S


@dataclass(frozen=True)
class Figure:
    """One organiser's figure: its key (the design goal's metric where there is one), words, section (its
    printed table), where ``summarise`` keeps it (None: computed here), its unit, and whether it is a share."""

    key: str
    label: str
    section: str
    source: str | None
    unit: str
    share: bool
    shown: bool = True


FIGURES: tuple[Figure, ...] = (
    Figure("match_minutes", "minutes per match", "match length", "minutes_per_match", "min", False),
    Figure("hands_per_match", "hands per match", "match length", "hands_per_match", "hands", False),
    Figure("clock_share", "ended by the clock", "match length", "clock_share", "", True),
    Figure("draws", "drawn", "match length", None, "", True),
    Figure("level_change_mean", "|level change| per hand", "swing", "level_change_mean", "levels", False),
    Figure("big_swing_share", "hands swinging 2+ levels", "swing", "big_swing_share", "", True),
    Figure("takeover_rate", "hands taken over", "swing", "takeover_rate", "", True),
    Figure("lead_changes", "lead changes per match", "swing", "lead_changes", "", False),
    Figure("stronger_wins", "stronger pair wins", "luck", "policy_a_win", "", True),
    Figure("n_star", "N* (matches)", "luck", "n_star", "matches", False),
    Figure("first_declarers_win", "first declarers win", "luck", "first_declarer_win", "", True),
    Figure("weaker_wins", "weaker pair wins", "luck", "policy_b_win", "", True, shown=False),
)
FIGURE_BY_KEY = {f.key: f for f in FIGURES}
SECTIONS = ("match length", "swing", "luck")


def words(cell: str) -> str:
    """A cell id (``bottom_size=6,capture_per_card=3``) in words (``bottom 6, capture ×3``): ``rules.words``."""
    return cell_words(cell)


def parse_goal(text: str) -> Goal:
    """``--goal METRIC<=BOUND`` or ``METRIC>=BOUND``: a design spec's goal (docs/design.md) on one word."""
    at = [(text.find(op), op) for op in OPS if op in text]
    if not at:
        raise SimsuiteError(
            f"--goal {text!r}: write METRIC<=BOUND or METRIC>=BOUND, e.g. match_minutes<=90 or stronger_wins>=0.75"
        )
    i, op = min(at)
    metric = text[:i].strip().rstrip("=").strip()
    goal, problem = read_goal(metric, text[i:].strip().strip('"'))
    if problem:
        raise SimsuiteError(f"--goal {problem.removeprefix('goals: ').removeprefix('goals.')}")
    return goal


# --- per-deal sums ---------------------------------------------------------------------------------


def _deal_sums(h: pl.DataFrame, m: pl.DataFrame, timed: bool, pair: tuple[str, str] | None) -> pl.DataFrame:
    """Per deal (seed, match): each figure's numerator and denominator summed over the deal's tables
    (``{key}_n``, ``{key}_d``), and the pair's tables, A's wins and B's wins for N*."""
    winner = pl.col("winner").cast(pl.Int64)
    if pair is None:
        in_pair = pl.lit(0.0)
        a_won = b_won = pl.lit(0.0)
    else:
        a, b = pair
        ns, ew = pl.col("policy_ns"), pl.col("policy_ew")
        in_pair = (((ns == a) & (ew == b)) | ((ns == b) & (ew == a))).cast(pl.Float64)
        a_won = in_pair * (((winner == 0) & (ns == a)) | ((winner == 1) & (ew == a))).cast(pl.Float64)
        b_won = in_pair * (((winner == 0) & (ns == b)) | ((winner == 1) & (ew == b))).cast(pl.Float64)
    decided = (winner >= 0).cast(pl.Float64)
    one = pl.lit(1.0)
    match_cols = {
        "match_minutes": (pl.col("minutes").cast(pl.Float64), one),
        "hands_per_match": (pl.col("hands").cast(pl.Float64), one),
        "clock_share": ((pl.col("ended_by") == "clock").cast(pl.Float64) * float(timed), pl.lit(float(timed))),
        "draws": ((winner < 0).cast(pl.Float64), one),
        "lead_changes": (pl.col("lead_changes").cast(pl.Float64), one),
        "stronger_wins": (a_won, in_pair),
        "weaker_wins": (b_won, in_pair),
        "first_declarers_win": (
            decided * (winner == pl.col("first_declarers").cast(pl.Int64)).cast(pl.Float64),
            decided,
        ),
    }
    ms = m.group_by(DEAL).agg(
        [e.sum().alias(f"{k}_n") for k, (e, _) in match_cols.items()]
        + [d.sum().alias(f"{k}_d") for k, (_, d) in match_cols.items()]
    )
    change = level_change().cast(pl.Float64)
    hs = h.group_by(DEAL).agg(
        change.sum().alias("level_change_mean_n"),
        (change >= 2).cast(pl.Float64).sum().alias("big_swing_share_n"),
        pl.col("takeover").cast(pl.Float64).sum().alias("takeover_rate_n"),
        pl.len().cast(pl.Float64).alias("_hands"),
    )
    hs = hs.with_columns(
        **{f"{k}_d": pl.col("_hands") for k in ("level_change_mean", "big_swing_share", "takeover_rate")}
    ).drop("_hands")
    return ms.join(hs, on=list(DEAL), how="left").fill_null(0.0)


def _ratio_difference(t: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return t[..., 0] / t[..., 1] - t[..., 2] / t[..., 3]


_n_star = np.vectorize(n_star_net, otypes=[float])


def _n_star_difference(t: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        a = _n_star(t[..., 1] / t[..., 0], t[..., 2] / t[..., 0])
        b = _n_star(t[..., 4] / t[..., 3], t[..., 5] / t[..., 3])
        return a - b


def _clean(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def paired_differences(
    cell: pl.DataFrame, base: pl.DataFrame, keys: Sequence[str], reps: int = BOOTSTRAP_REPS, seed: int = 0
) -> dict[str, dict | None]:
    """Per figure key: the cell's figure minus the baseline's over the deals both played, with a
    percentile bootstrap interval over those deals, its SE, the two-sided p and n (shared deals where
    the figure is defined on both sides); None where it is undefined on either side."""
    j = cell.join(base, on=list(DEAL), how="inner", suffix="_b").sort(list(DEAL))
    out: dict[str, dict | None] = {}
    for key in keys:
        if key == "n_star":
            cols = ["stronger_wins_d", "stronger_wins_n", "weaker_wins_n"]
            cols = cols + [f"{c}_b" for c in cols]
            stat, den = _n_star_difference, ("stronger_wins_d", "stronger_wins_d_b")
        else:
            cols = [f"{key}_n", f"{key}_d", f"{key}_n_b", f"{key}_d_b"]
            stat, den = _ratio_difference, (f"{key}_d", f"{key}_d_b")
        if j.height == 0 or j[den[0]].sum() == 0 or j[den[1]].sum() == 0:
            out[key] = None
            continue
        used = j.filter((pl.col(den[0]) > 0) | (pl.col(den[1]) > 0))
        est, boots = cluster_bootstrap(used.select(cols).to_numpy().astype(float), stat, reps, seed)
        finite = boots[np.isfinite(boots)]
        se = float(np.std(finite, ddof=1)) if finite.size > 1 and finite.size == boots.size else float("nan")
        p = normal_p(est.value, se) if math.isfinite(est.value) and math.isfinite(se) else None
        out[key] = {
            "value": _clean(est.value),
            "low": _clean(est.low),
            "high": _clean(est.high),
            "n": int(est.n),
            "se": _clean(se),
            "p": p,
        }
    return out


# --- the comparison --------------------------------------------------------------------------------


def _base_cell(manifest: dict, cells: list[str]) -> str | None:
    """The cell whose every grid value is the base variant's own (a sweep with one ``base``); None if none."""
    from ..rules.variant import load_variant
    from ..sim.sweep import cell_value

    spec = manifest.get("sweep") or {}
    if not isinstance(spec.get("base"), str):
        return None
    try:
        base = load_variant(spec["base"])
    except (SimsuiteError, OSError):
        return None
    own = {"policies": cell_value("policies", spec.get("policies", "expert,basic")), "decks": str(base.decks)}
    for cid in cells:
        pairs = [p.partition("=") for p in cid.split(",")]
        if not all(sep for _, sep, _ in pairs):
            continue
        if all(value == own.get(k, cell_value(k, getattr(base, k, None))) for k, _, value in pairs):
            return cid
    return None


def find_baseline(given: str | None, cells: list[str], base: str | None) -> str:
    """``--baseline``: a cell id, or its words, or its ``key=value`` pairs in any order; by default the base
    variant's own setting where the run has it, else the first cell."""
    if given is None:
        return base or cells[0]
    want = {p.strip() for p in given.split(",")}
    for cid in cells:
        if given in (cid, words(cid)) or want == set(cid.split(",")):
            return cid
    from ..errors import did_you_mean

    raise SimsuiteError(
        f"--baseline {given!r} is not a setting of this run{did_you_mean(given, cells)}; its settings: "
        + "; ".join(cells[:6])
        + (f"; and {len(cells) - 6} more" if len(cells) > 6 else "")
    )


def _goal_status(fig: dict | None, goal: Goal) -> dict:
    """A goal judged on one figure: meets (the whole 95% interval on the right side), likely (the
    estimate on it), unlikely, fails (the whole interval on the wrong side); z = (estimate - bound) / SE,
    signed so that positive is the right side."""
    if not fig or fig.get("value") is None:
        return {"status": "undefined", "z": None}
    v, lo, hi = fig["value"], fig.get("low"), fig.get("high")
    s = goal.sign
    right = (v - goal.bound) * s >= 0
    if lo is None or hi is None:
        return {"status": "likely" if right else "unlikely", "z": None}
    near, far = (lo, hi) if s > 0 else (hi, lo)
    if (near - goal.bound) * s >= 0:
        status = "meets"
    elif (far - goal.bound) * s < 0:
        status = "fails"
    else:
        status = "likely" if right else "unlikely"
    se = (hi - lo) / (2 * Z95)
    z = (v - goal.bound) * s / se if se > 0 else None
    return {"status": status, "z": z}


def compare(
    run: str,
    baseline: str | None = None,
    goals: Sequence[Goal] = (),
    reps: int = BOOTSTRAP_REPS,
    seed: int = 0,
) -> dict:
    """The comparison of a run's settings (its cells): see the module's docstring; every figure with its
    95% interval and n, every difference with its interval, n, p and Holm-adjusted p."""
    from ..sim.results import load

    r = load(run)
    manifest = r.manifest
    cells = [c["id"] for c in manifest.get("cells", [])]
    if len(cells) < 2:
        raise SimsuiteError(
            f"{run} has one setting ({cells[0] if cells else 'no cell'}); compare needs a run of several: "
            "simsuite sweep --variant V --grid KEY=V1,V2"
        )
    base_cell = _base_cell(manifest, cells)
    ref = find_baseline(baseline, cells, base_cell)
    variants = r.variants()
    hands, matches = r.hands.collect(), r.matches.collect()
    rows = {row["cell"]: row for row in summarise(hands, matches, by="cell", variants=variants, seed=seed, reps=reps)}
    played = [c for c in cells if c in rows]
    if ref not in rows:
        raise SimsuiteError(f"{run}: the baseline {words(ref)} has no match played yet; run the sweep's command again")
    sums: dict[str, pl.DataFrame] = {}
    pairs: dict[str, Any] = {}
    figures: dict[str, dict] = {}
    for cid in played:
        h, m, _ = count_once(hands.filter(pl.col("cell") == cid), matches.filter(pl.col("cell") == cid))
        v = variants.get(cid)
        timed = bool(v is not None and v.match_minutes > 0)
        pairs[cid] = policy_pair(m)
        sums[cid] = _deal_sums(h, m, timed, pairs[cid])
        row = rows[cid]
        figs = {}
        for f in FIGURES:
            if f.source is not None:
                figs[f.key] = dict(row[f.source])
            else:  # drawn matches: a share over deals
                e = cluster_share((m["winner"] < 0).to_numpy().astype(float), deal_ids(m), reps, seed)
                figs[f.key] = {"value": _clean(e.value), "low": _clean(e.low), "high": _clean(e.high), "n": e.n}
        figures[cid] = figs
    settings = []
    for cid in played:
        diffs = (
            paired_differences(sums[cid], sums[ref], [f.key for f in FIGURES], reps, seed)
            if cid != ref and pairs[cid] == pairs[ref]
            else {}
        )
        for f in FIGURES:
            figures[cid][f.key]["difference"] = diffs.get(f.key)
        row = rows[cid]
        settings.append(
            {
                "cell": cid,
                "words": words(cid),
                "baseline": cid == ref,
                "base_rules": cid == base_cell,
                "matches": row["n_matches"],
                "deals": row["n_deals"],
                "hands": row["n_hands"],
                "pair": list(pairs[cid]) if pairs[cid] else None,
                "figures": figures[cid],
            }
        )
    for section in SECTIONS:  # Holm within each table
        family = [
            s["figures"][f.key]["difference"]
            for s in settings
            for f in FIGURES
            if f.section == section and f.shown and s["figures"][f.key].get("difference")
        ]
        family = [d for d in family if d.get("p") is not None]
        for d, adj in zip(family, holm([d["p"] for d in family]) if family else []):
            d["p_holm"] = float(adj)
            d["family"] = section
    goal_rows, judged = _judge(settings, goals)
    return {
        "run": str(run),
        "complete": r.complete,
        "run_seed": manifest.get("seed"),
        "duplicate": manifest.get("duplicate"),
        "command": manifest.get("command"),
        "baseline": ref,
        "baseline_words": words(ref),
        "base_cell": base_cell,
        "base_variant": (manifest.get("sweep") or {}).get("base"),
        "reps": reps,
        "seed": seed,
        "settings": settings,
        "not_played": [c for c in cells if c not in rows],
        **judged,
        "goals": goal_rows,
    }


def _judge(settings: list[dict], goals: Sequence[Goal]) -> tuple[list[dict], dict]:
    """Each goal's status per setting; the settings whose estimates meet every goal, and the best of them:
    first those whose every 95% interval clears its bound, then the largest smallest z over the goals."""
    rows = []
    for g in goals:
        per = {s["cell"]: _goal_status(s["figures"].get(g.metric), g) for s in settings}
        rows.append(
            {
                "goal": g.text(),
                "metric": g.metric,
                "label": FIGURE_BY_KEY[g.metric].label,
                "op": g.op,
                "bound": g.bound,
                "by_setting": per,
                "met_by": [c for c, st in per.items() if st["status"] in ("meets", "likely")],
                "met_surely_by": [c for c, st in per.items() if st["status"] == "meets"],
            }
        )
    if not goals:
        return rows, {"meets_all": [], "best": None}
    meets_all = [s["cell"] for s in settings if all(s["cell"] in g["met_by"] for g in rows)]

    def rank(cell):
        sts = [g["by_setting"][cell] for g in rows]
        unsure = sum(st["status"] != "meets" for st in sts)
        zs = [st["z"] for st in sts if st["z"] is not None]
        return (unsure, -(min(zs) if zs else math.inf))

    best = min(meets_all, key=rank) if meets_all else None
    return rows, {"meets_all": meets_all, "best": best}


__all__ = ["FIGURES", "FIELD_WORDS", "compare", "find_baseline", "paired_differences", "parse_goal", "words"]
