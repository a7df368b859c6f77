"""The exact model of a cell and of a results folder: the solved chain, its bootstrap over deals, the level check."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from ...errors import SimsuiteError
from ...rules.cards import RANK_NAMES
from ...rules.variant import Variant
from .chain import Chain
from .hands import (
    POINT_LEVELS,
    Design,
    HandData,
    Rules,
    check_rescorable,
    hand_data,
    outcome_design,
    rescore,
)
from .sample import simulated_figures
from .solve import DECIDED_AT, Solution, solve, solve_batch

MAX_REPS = 10_000  # bootstrap resamples: each solves the chain again (a resample takes milliseconds)
DEFAULT_REPS = 1000  # bootstrap resamples of the exact model's intervals
MIN_REPS = 1000  # fewer: the intervals are labelled rough
_BATCH_CELLS = 1 << 24  # states x resamples a batched solve holds at once (every layer's masses: 128 MB)
_BATCH_MAX = 256  # resamples solved at once
_PARALLEL_CELLS = 1 << 26  # states x resamples that the bootstrap's threads hold at once (their masses: 512 MB)

# the figures of the model, with their labels
FIGURES = (
    ("p_a", "team A (policy A) wins the match"),
    ("p_draw", "draw"),
    ("p_b", "team B (policy B) wins the match"),
    ("hands_mean", "hands per match (mean)"),
    ("minutes_mean", "modelled minutes per match (mean)"),
    ("clock_share", "ended by the clock (share)"),
    ("lead_changes", "lead changes per match (mean)"),
    ("drama", "drama: mean gap of the eventual winner's P(win) below the leader's, per hand"),
    ("decisive_share", f"decisive share: hands played with the eventual winner at P(win) >= {DECIDED_AT}"),
)


def _figures(sol: Solution) -> dict[str, float | None]:
    """The figures of ``FIGURES`` of one solution."""
    return {
        "p_a": sol.p_a,
        "p_draw": sol.p_draw,
        "p_b": sol.p_b,
        "hands_mean": sol.hands_mean,
        "minutes_mean": sol.minutes_mean,
        "clock_share": sol.clock_share,
        "lead_changes": sol.lead_changes,
        "drama": sol.drama,
        "decisive_share": sol.decisive_share,
    }


def exact_model(
    hands: pl.DataFrame,
    matches: pl.DataFrame,
    variant: Variant,
    overrides: Mapping[str, Any] | None = None,
    reps: int = DEFAULT_REPS,
    seed: int = 0,
    values: bool = True,
    approximate: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> dict:
    """Solve the chain of one cell (one policy pairing) and bootstrap it over deals.

    ``variant``: the rules the hands were played under; ``overrides``: rule changes to re-score
    under: the clock and the duration model (``RESCORABLE``; exact re-scoring). With ``approximate``
    the bands too, taking the hands as they fell under the old bands (approximate re-scoring, which
    the caller names; see the package's docstring; notebook 04 shows its error beside simulation). Returns
    {"figures": {key: {"value", "low", "high", "n"}}, "hands_dist", "minutes_quantiles",
    "a", "b", "n_deals", "n_hands", "rescored", "unresolved"}. ``values=False`` skips the backward
    pass in the resamples (drama and the decisive share then have no interval; half the time).
    ``progress(done, reps)``: called as the bootstrap's batches finish."""
    if overrides and not approximate:
        check_rescorable(overrides)
    data = hand_data(hands, matches, variant)
    target = variant.with_overrides(dict(overrides), source="--set") if overrides else variant
    if overrides:
        from ...sim.match import hand_cap

        hand_cap(target)  # as simulate: a clock that never runs out, or hands too short for it, is refused
        data = rescore(data, target)
    rules = Rules.of(target)
    check = level_check(data, rules, seed=seed)
    if check["separate"]:
        rules = dataclasses.replace(rules, point_levels=POINT_LEVELS)
    design = outcome_design(data, rules)
    chain = Chain(design.tables, rules)
    sol = solve(chain.tables, rules, chain=chain)
    point = _figures(sol)
    boots = _bootstrap(chain, design, data.n_deals, reps if data.n_deals >= 2 else 0, seed, values, progress)
    figs = {}
    for k, v in point.items():
        if v is None:
            figs[k] = {"value": None, "low": None, "high": None, "n": 0, "note": "untimed: no clock"}
            continue
        arr = boots[k]
        arr = arr[~np.isnan(arr)] if arr is not None else np.zeros(0)
        lo, hi = np.quantile(arr, [0.025, 0.975]) if arr.size >= 2 else (np.nan, np.nan)
        figs[k] = {
            "value": float(v),
            "low": None if np.isnan(lo) else float(lo),
            "high": None if np.isnan(hi) else float(hi),
            "n": data.n_deals,
        }
    return {
        "a": data.a_policy,
        "b": data.b_policy,
        "n_deals": data.n_deals,
        "n_hands": int(data.deal.size),
        "rescored": dict(overrides or {}),
        "figures": figs,
        "hands_dist": sol.hands_dist.tolist(),
        "minutes_quantiles": {q: sol.minutes_quantile(q) for q in (0.1, 0.5, 0.9)} if sol.minutes_dist else None,
        "unresolved": sol.unresolved,
        "reps": reps,
        "assumptions": design.assumptions,
        "level_check": check,
    }


def _bootstrap(
    chain: Chain,
    design: Design,
    n_deals: int,
    reps: int,
    seed: int,
    values: bool,
    progress: Callable[[int, int], None] | None = None,
) -> dict:
    """Each figure over ``reps`` resamples of the deals (an array per figure; None for one without
    a value). A resample is a weight vector over the deals (how often each was drawn); the outcome
    tables are its weighted counts (``Design.probabilities``), and the chain is solved for a batch of
    resamples at once (``solve_batch``) on a chain without the times that no figure of a resample
    needs (``Chain(times=False)``), batches on threads (``_threads``). The resamples are drawn in
    one sequence whatever the batches, so the figures depend on ``seed`` alone. ``progress(done,
    reps)`` is called as the resamples start (done 0) and as batches finish."""
    keys = [k for k, _ in FIGURES]
    if reps <= 0:
        return {k: None for k in keys}
    rng = np.random.default_rng(seed)
    fast = Chain(design.tables, chain.rules, times=False)
    # the states of the first resample's hands (as the point solve's): the batch size follows them
    solve_batch(fast, chain.probabilities(design.tables)[:, None], values=False)
    states = sum(c.size for c in fast.codes)
    cap = max(1, min(_BATCH_MAX, _BATCH_CELLS // max(states, 1)))
    workers = _threads(reps, cap, states)
    batch = max(1, min(cap, -(-reps // workers)))

    def draw(k: int) -> np.ndarray:
        """The next ``k`` resamples' outcome probabilities, drawn in this thread, in order."""
        pick = rng.integers(0, n_deals, size=(k, n_deals))
        w = np.bincount((pick + (np.arange(k) * n_deals)[:, None]).ravel(), minlength=k * n_deals)
        return design.probabilities(w.reshape(k, n_deals).astype(float))

    sizes = [min(batch, reps - start) for start in range(0, reps, batch)]
    results: list = [None] * len(sizes)
    done = 0

    def record(j: int, res: dict) -> None:
        nonlocal done
        results[j] = res
        done += sizes[j]
        if progress:
            progress(done, reps)

    if progress:
        progress(0, reps)  # the resamples start
    if workers == 1:
        for j, k in enumerate(sizes):
            record(j, solve_batch(fast, draw(k), values))
    else:
        from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

        with ThreadPoolExecutor(workers) as pool:
            pending: dict = {}
            for j, k in enumerate(sizes):
                if len(pending) >= workers:  # at most one batch a thread in memory at once
                    finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for f in finished:
                        record(pending.pop(f), f.result())
                pending[pool.submit(solve_batch, fast, draw(k), values)] = j
            for f in list(pending):
                record(pending.pop(f), f.result())
    return {
        key: None if any(r[key] is None for r in results) else np.concatenate([r[key] for r in results]) for key in keys
    }


def _threads(reps: int, batch: int, states: int) -> int:
    """Threads for the bootstrap's batches: one a core (``os.sched_getaffinity``), no more than the
    batches, and no more than the batches' masses fit in ``_PARALLEL_CELLS``."""
    import os

    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, -(-reps // batch), _PARALLEL_CELLS // max(states * batch, 1)))


# --- the level-independence check -----------------------------------------------------------------

LEVEL_CHECK_ALPHA = 0.05  # family-wise (Holm over both teams' two differences)
LEVEL_CHECK_REPS = 2000


def _ratio_difference(sums: np.ndarray, j: int) -> tuple[float, float, int]:
    """sum(y1) / sum(x1) - sum(y2) / sum(x2) over deals (``sums``' columns x1 = 0, y1 = j, x2 = 3,
    y2 = 3 + j), its delta-method SE over deals (the influence of deal i: (y1_i - R1 x1_i) / X1 -
    (y2_i - R2 x2_i) / X2, with the g / (g - 1) small-sample factor) and the deals."""
    g = sums.shape[0]
    x1, y1, x2, y2 = sums[:, 0], sums[:, j], sums[:, 3], sums[:, 3 + j]
    r1, r2 = y1.sum() / x1.sum(), y2.sum() / x2.sum()
    infl = (y1 - r1 * x1) / x1.sum() - (y2 - r2 * x2) / x2.sum()
    se = float(np.sqrt((infl**2).sum() * g / (g - 1))) if g > 1 else float("nan")
    return float(r1 - r2), se, g


def level_check(data: HandData, rules: Rules, reps: int = LEVEL_CHECK_REPS, seed: int = 0) -> dict:
    """Does a hand fall alike at the point-card levels (5, 10, K: their point cards are trumps) and at
    the other plain levels? Per declaring team, hands after the first at a point level against those
    at the other levels (special levels and first hands left out): the difference (point - other) in
    the mean net levels gained by the declarers (declarers' gain - defenders' gain) and in the share of
    hands after which the deal passes, each with a percentile bootstrap interval over deals
    (``reps`` resamples; n = deals with hands in both groups; ``reps`` 0: a normal interval from the
    delta method's SE over deals instead, what ``simsuite design`` uses) and a normal p-value from
    that SE; Holm over the (up to) four p-values. ``separate``: some adjusted p is below
    ``LEVEL_CHECK_ALPHA``, and the chain then models the point levels with their own tables."""
    from ..stats import cluster_bootstrap, holm, normal_p

    grp = rules.group(data.level)  # no point levels in rules yet: 0 plain, 1 special
    point = np.isin(data.level, np.array(POINT_LEVELS)) & (grp == 0)
    net = (data.gain_d - data.gain_f).astype(float)
    sw = data.switch.astype(float)
    teams, ps = {}, []
    for a in (True, False):
        name = "A" if a else "B"
        base = ~data.first & (data.a_declares == a) & (grp == 0)
        cols = []
        for m in (base & point, base & ~point):
            cols += [
                np.bincount(data.deal[m], minlength=data.n_deals).astype(float),
                np.bincount(data.deal[m], weights=net[m], minlength=data.n_deals),
                np.bincount(data.deal[m], weights=sw[m], minlength=data.n_deals),
            ]
        sums = np.column_stack(cols)
        sums = sums[(sums[:, 0] > 0) | (sums[:, 3] > 0)]
        n_pt, n_pl = int((base & point).sum()), int((base & ~point).sum())
        if n_pt == 0 or n_pl == 0 or sums.shape[0] < 2:
            teams[name] = {"hands_point": n_pt, "hands_other": n_pl, "note": "no hands in one group: not tested"}
            continue
        row = {"hands_point": n_pt, "hands_other": n_pl}
        for key, j in (("net_levels", 1), ("deal_passes", 2)):

            def stat(t, j=j):
                with np.errstate(invalid="ignore", divide="ignore"):
                    return t[..., j] / t[..., 0] - t[..., 3 + j] / t[..., 3]

            if reps:
                est, boots = cluster_bootstrap(sums, stat, reps, seed)
                b = boots[np.isfinite(boots)]
                se = float(np.std(b, ddof=1)) if b.size > 1 else float("nan")
                value, low, high, n = est.value, est.low, est.high, est.n
            else:  # the delta method: each deal's influence on the two ratios' difference
                value, se, n = _ratio_difference(sums, j)
                low, high = value - 1.959963984540054 * se, value + 1.959963984540054 * se
            p = normal_p(value, se) if np.isfinite(se) else 1.0
            row[key] = {"value": value, "low": low, "high": high, "n": n, "p": p}
            ps.append((name, key, p))
        teams[name] = row
    adj = holm([p for *_, p in ps]) if ps else np.zeros(0)
    for (name, key, _), q in zip(ps, adj):
        teams[name][key]["p_holm"] = float(q)
    return {
        "levels": [RANK_NAMES[r] for r in POINT_LEVELS],
        "teams": teams,
        "reps": reps,
        "separate": bool((adj < LEVEL_CHECK_ALPHA).any()) if ps else False,
    }


def exact_results(
    path,
    overrides: Mapping[str, Any] | None = None,
    reps: int = DEFAULT_REPS,
    seed: int = 0,
    cells: Sequence[str] | None = None,
    values: bool = True,
    approximate: bool = False,
    progress: Callable[[str, int, int], None] | None = None,
    sample: bool = True,
) -> list[dict]:
    """``exact_model`` for every cell of a results folder (one row per cell, with its variant);
    ``cells``: only these (each must be one of the run's). ``progress(cell, done, reps)``: called
    as a cell starts (done 0) and as its bootstrap's batches finish.

    ``sample``: each row also gets ``"sample"``, the same figures of the run's matches as played
    (``sample.simulated_figures``, which are ``simsuite summary``'s), with ``"sample_matches"``;
    the model's figures and the sample's are two estimates of one thing, and a reader needs both.
    Re-scored rows get ``"sample": None`` (no match was played under the re-scored rules)."""
    from ...sim.limits import check_int, check_seed
    from ...sim.results import load

    check_int("--reps", reps, 0 if approximate else 1, MAX_REPS)
    check_seed("--seed", seed)
    if overrides and not approximate:
        check_rescorable(overrides)
    r = load(path)
    known = [c["id"] for c in r.manifest.get("cells", [])]
    unknown = [c for c in (cells or []) if c not in known]
    if unknown:
        raise SimsuiteError(f"--cell {unknown[0]!r}: no such cell in {path}; its cells: {', '.join(known)}")
    variants = r.variants()
    h_all, m_all = r.hands.collect(), r.matches.collect()
    rows = []
    for cell in r.manifest.get("cells", []):
        cid = cell["id"]
        if cells and cid not in cells:
            continue
        v = variants.get(cid)
        if v is None:
            raise SimsuiteError(f"cell {cid!r}: its rules no longer load or changed since the run")
        h = h_all.filter(pl.col("cell") == cid)
        m = m_all.filter(pl.col("cell") == cid)
        if m.height == 0:
            continue
        if progress:
            progress(cid, 0, reps)
        each = (lambda done, total, cid=cid: progress(cid, done, total)) if progress else None
        row = exact_model(h, m, v, overrides, reps, seed, values, approximate, each)
        row["cell"] = cid
        row["variant"] = v.id
        if sample:
            row["sample"], row["sample_matches"] = _sample(h, m, v) if not overrides else (None, 0)
        rows.append(row)
    return rows


def _sample(h: pl.DataFrame, m: pl.DataFrame, variant: Variant) -> tuple[dict, int]:
    """The figures of ``FIGURES`` that the cell's matches give as played (``simulated_figures``,
    ``simsuite summary``'s), and the matches counted (an equal-policy duplicate deal's tables once)."""
    from ..metrics import count_once

    return simulated_figures(h, m, variant), int(count_once(h, m)[1].height)
