"""The rules explorer's model (``simsuite explore``, docs/explore.md): the exact match model of a
cell, re-scored under a changed rule setting, with a 95% interval over deals.

This is the Python twin of the page's JavaScript (``simsuite/report/explore.js``): both take the
same hands and the same setting and give the same figures and intervals (tests/test_explore.py
compares them on a grid of settings in headless Chromium). The chain and its solve are the exact
model's (``simsuite.analysis.exact``: ``hand_data``, ``rescore``, ``outcome_design``, ``Chain``,
``solve``, ``solve_batch``); this module adds only what the explorer shows beside its figures.

What a setting changes (``Setting``): the bands (step, take-over) and the levels (start, end), the
clock (match minutes, no new hand in the last minutes, the warning and the hands after it, the tie
rule) and the duration model's pace (a typical action at a fraction of its limit, docs/clock.md).
The exact model re-scores only the clock and the duration model (``RESCORABLE``), because the
policies play for the thresholds; the explorer re-scores the bands and levels too, keeping every
hand's points as they fell (``exact_model(..., approximate=True)``'s approximation, whose error
against direct simulation docs/metrics.md measures). The page says so in one sentence.

Beside the exact model's figures, two per-hand figures of the modelled match: the take-over rate
and the share of hands with a two-level swing (a change of two levels or more), each the expected
number of such hands per match over the expected hands per match. A hand's table condition
(``KEYS``) fixes its outcome distribution, so each is the chain's expected hands played under each
condition (``live_hands_by_key``) times the share of such hands among the hands of that condition.

The interval is the bootstrap over deals linearised (the delta method, or infinitesimal
jackknife): a figure's derivative with respect to each deal's weight (its influence IF_i) gives
its variance under resampling the deals, sum_i IF_i^2, and the interval is value +- 1.96 SE. The
page finds the derivatives by one backward pass over the chain (the adjoint), so that it can redo
them on every change; here they are central differences of the batched solve, an independent
computation of the same numbers. ``simsuite exact`` resamples the deals instead (percentile
intervals); docs/explore.md compares the two.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from ..rules.cards import RANK_NAMES
from ..rules.choices import TieRule
from ..rules.variant import Variant
from .exact import (
    GROUPS,
    KEYS,
    POINT_LEVELS,
    TOL,
    Chain,
    HandData,
    Rules,
    decode_states,
    hand_data,
    level_check,
    outcome_design,
    rescore,
    solve,
    solve_batch,
    transition_plan,
)

PACE_PLAYED = 0.4  # the duration model's default: a typical action at 40% of its limit (docs/clock.md)
PACES = (0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6)  # the band the page offers, in hundredths below
GATHER_X100 = 400  # 4 s to gather a trick: not a limit, kept at every pace

# the figures the explorer shows, in its order, with their labels
FIGURES = (
    ("hands_mean", "hands per match"),
    ("minutes_mean", "minutes per match"),
    ("clock_share", "matches ended by the clock"),
    ("p_draw", "draws"),
    ("stronger_win", "the stronger pair wins"),
    ("lead_changes", "lead changes per match"),
    ("takeover_rate", "take-over rate (share of hands)"),
    ("big_swing_share", "hands with a two-level swing (share)"),
)


def spt_x100_at(spt_x100: int, pace_x100: int) -> int:
    """The duration model's seconds per trick, in hundredths, with a typical action at
    ``pace_x100`` hundredths of its limit (docs/clock.md: the limit-bound part scales, the 4 s of
    gathering stay): 400 + (spt - 400) x pace / 40, rounded half up, in integers (the page computes
    the same integers)."""
    a, b = (spt_x100 - GATHER_X100) * pace_x100, 40
    return GATHER_X100 + (2 * a + b) // (2 * b)


@dataclass(frozen=True)
class Setting:
    """The rules a cell's hands are re-scored under. Levels are rank indices (0 = "2", 12 = "A");
    ``pace`` is in hundredths (40: the played duration model)."""

    step: int
    takeover: int
    start_level: int
    end_level: int
    match_minutes: int
    no_new_hand_minutes: int
    warning_minute: int
    hands_after_warning: int
    tie_rule: str
    pace: int = 40

    @classmethod
    def played(cls, v: Variant) -> Setting:
        return cls(
            int(v.step),
            int(v.takeover),
            int(v.start_level),
            int(v.end_level),
            int(v.match_minutes),
            int(v.no_new_hand_minutes),
            int(v.warning_minute),
            int(v.hands_after_warning),
            str(v.tie_rule.value if isinstance(v.tie_rule, TieRule) else v.tie_rule),
            40,
        )

    def overrides(self, v: Variant) -> dict[str, Any]:
        """The rule fields of ``v`` this setting changes, as ``--set`` values."""
        spt = spt_x100_at(round(v.seconds_per_trick * 100), self.pace)
        want = {
            "step": self.step,
            "takeover": self.takeover,
            "start_level": RANK_NAMES[self.start_level],
            "end_level": RANK_NAMES[self.end_level],
            "match_minutes": self.match_minutes,
            "no_new_hand_minutes": self.no_new_hand_minutes,
            "warning_minute": self.warning_minute,
            "hands_after_warning": self.hands_after_warning,
            "tie_rule": self.tie_rule,
        }
        have = Setting.played(v)
        out = {k: x for k, x in want.items() if getattr(self, k) != getattr(have, k)}
        if self.pace != 40:
            out["seconds_per_trick"] = spt / 100
        return out


def target_variant(v: Variant, setting: Setting) -> Variant:
    """``v`` under ``setting``, validated as ``--set`` is (one ``SimsuiteError`` line otherwise)."""
    from ..sim.match import hand_cap

    ov = setting.overrides(v)
    if not ov:
        return v
    target = v.with_overrides(ov, source="the explorer's setting")
    hand_cap(target)  # as simulate: a clock that never runs out is refused
    return target


@dataclass
class CellModel:
    """What the explorer keeps of one cell: its hands (``HandData``), the rules they were played
    under, whether the point-card levels get their own tables (``level_check`` on the hands as
    played, kept for every setting) and which team is the stronger pair (the one the model at the played rules gives
    the larger win share; None where one policy plays both sides)."""

    data: HandData
    variant: Variant
    point_levels: tuple[int, ...]
    stronger: int | None  # 0: team A (``data.a_policy``), 1: team B


def cell_model(hands: pl.DataFrame, matches: pl.DataFrame, variant: Variant, seed: int = 0) -> CellModel:
    """The explorer's model of one cell (one policy pairing)."""
    data = hand_data(hands, matches, variant)
    rules = dataclasses.replace(Rules.of(variant), step=0)
    check = level_check(data, rules, seed=seed)
    point_levels = POINT_LEVELS if check["separate"] else ()
    model = CellModel(data, variant, point_levels, None)
    if data.a_policy != data.b_policy:
        design = outcome_design(data, dataclasses.replace(rules, point_levels=point_levels))
        sol = solve(design.tables, dataclasses.replace(rules, point_levels=point_levels), values=False)
        model.stronger = 0 if sol.p_a >= sol.p_b else 1
    return model


def hand_keys(data: HandData, rules: Rules) -> np.ndarray:
    """Each hand's table condition, as an index into ``KEYS``."""
    g = rules.group(data.level)
    k = 1 + np.where(data.a_declares, 0, len(GROUPS)) + g
    return np.where(data.first, 0, k)


def state_keys(codes: np.ndarray, rules: Rules, h: int) -> np.ndarray:
    """The table condition of each state entering hand ``h``, as an index into ``KEYS``."""
    la, lb, d, _, _, _ = decode_states(codes)
    if h == 0:
        return np.zeros(codes.size, np.int64)
    return 1 + np.where(d == 0, 0, len(GROUPS)) + rules.group(np.where(d == 0, la, lb))


def live_hands_by_key(chain: Chain, prob: np.ndarray) -> np.ndarray:
    """The expected number of hands played per match under each table condition (``KEYS`` x the
    columns of ``prob``, laid out as ``Chain.probabilities``): the forward pass of ``solve_batch``
    on the exact model's chain, summing the mass of the states that play a hand, by their condition."""
    rules = chain.rules
    prob = np.ascontiguousarray(prob, dtype=float)
    B = prob.shape[1]
    occ = np.zeros((len(KEYS), B))
    mass = np.ones((1, B))
    h = 0
    limit = rules.cap if rules.cap else 10_000
    while chain.codes[h].size and mass.sum(axis=0).max() > TOL and h <= limit:
        hand, plan = chain.hand(h), transition_plan(chain, h)
        live = ~hand.ended
        keys = state_keys(hand.codes, rules, h)
        for k in np.unique(keys[live]):
            occ[k] += mass[live & (keys == k)].sum(axis=0)
        n_next = chain.codes[h + 1].size
        flow = mass[plan.src] * prob[plan.out]
        to = (hand.nxt[:, None] * B + np.arange(B)).ravel()
        mass = np.bincount(to, weights=flow.ravel(), minlength=(n_next + 1) * B)[: n_next * B].reshape(n_next, B)
        h += 1
    return occ


def _key_sources(design, have: np.ndarray) -> list[int]:
    """For each condition of ``KEYS``: itself where it has hands, else the condition whose table it
    borrowed (``outcome_design``: the other team's, or the team's plain levels')."""
    out = []
    for i, k in enumerate(KEYS):
        if have[i]:
            out.append(i)
            continue
        out.append(next(j for j, k2 in enumerate(KEYS) if have[j] and design.tables[k2] is design.tables[k]))
    return out


def _shares(x: np.ndarray, keys: np.ndarray, deal: np.ndarray, w: np.ndarray, sources: list[int]) -> np.ndarray:
    """Per condition (``KEYS``) and column of ``w`` (deal weights, columns x deals): the weighted share
    of hands with ``x`` among the hands of that condition (a borrowed condition: its source's); a
    condition a column gives no weight keeps the share with every deal weighted once."""
    nk = len(KEYS)
    B = w.shape[0]
    num, den = np.zeros((nk, B)), np.zeros((nk, B))
    for i in range(nk):
        m = keys == i
        if m.any():
            per = np.bincount(deal[m], minlength=w.shape[1]).astype(float)
            hit = np.bincount(deal[m], weights=x[m].astype(float), minlength=w.shape[1])
            den[i], num[i] = w @ per, w @ hit
    full = num[:, :1] / np.where(den[:, :1] > 0, den[:, :1], 1.0)
    share = np.where(den > 0, num / np.where(den > 0, den, 1.0), full)
    return share[sources]


BLOCK = 64  # rows of deal weights solved at once (live_hands_by_key holds every transition's flow per row)


def _columns(model: CellModel, target: Variant, w: np.ndarray) -> tuple[dict[str, np.ndarray], object]:
    """Every figure of ``FIGURES`` (and p_a, p_b) under each row of deal weights ``w`` (rows x
    deals): the exact model's chain of the re-scored hands, solved for all rows at once
    (``solve_batch``), with the per-hand figures of ``live_hands_by_key``. Returns the figures and
    the point solution (``solve``, every deal weighted once)."""
    data = rescore(model.data, target) if target is not model.variant else model.data
    rules = dataclasses.replace(Rules.of(target), step=0, point_levels=model.point_levels)
    design = outcome_design(data, rules)
    chain = Chain(design.tables, rules)
    sol = solve(design.tables, rules, values=False, chain=chain)
    parts = []
    for lo in range(0, w.shape[0], BLOCK):  # a block of rows at a time: every transition's flow per row is held
        prob = design.probabilities(w[lo : lo + BLOCK])
        parts.append((solve_batch(chain, prob, values=False), live_hands_by_key(chain, prob)))
    res = {k: None if parts[0][0][k] is None else np.concatenate([p[0][k] for p in parts]) for k in parts[0][0]}
    occ = np.hstack([p[1] for p in parts])
    keys = hand_keys(data, rules)
    have = np.bincount(keys, minlength=len(KEYS)) > 0
    sources = _key_sources(design, have)
    took = data.final_points >= target.takeover
    big = (data.gain_d + data.gain_f) >= 2
    played = occ.sum(axis=0)
    out = {
        k: None if res[k] is None else np.asarray(res[k], float) for k in ("hands_mean", "minutes_mean", "clock_share")
    }
    out.update({k: np.asarray(res[k], float) for k in ("p_draw", "p_a", "p_b", "lead_changes")})
    out["takeover_rate"] = (occ * _shares(took, keys, data.deal, w, sources)).sum(axis=0) / played
    out["big_swing_share"] = (occ * _shares(big, keys, data.deal, w, sources)).sum(axis=0) / played
    out["stronger_win"] = out["p_b"] if model.stronger == 1 else out["p_a"]
    return out, sol


EPS = 1e-4  # the step of the central differences in each deal's weight


def explore_figures(model: CellModel, setting: Setting) -> dict:
    """The explorer's figures of one cell under ``setting``: {"figures": {key: {"value", "low",
    "high", "n"}}, "hands_dist", "a", "b", "stronger", "n_deals", "n_hands"}. The point figures are
    the exact model's (``solve``) on the re-scored hands; each interval is value +- 1.96 SE, the SE
    that of the bootstrap over deals linearised (the delta method): sqrt(sum_i IF_i^2), IF_i the
    figure's derivative with respect to deal i's weight, here by central differences of the batched
    solve (``solve_batch``), in the page by the chain's adjoint. Raises ``SimsuiteError`` for a
    setting the rules refuse."""
    target = target_variant(model.variant, setting)
    nd = model.data.n_deals
    w = np.ones((1 + 2 * nd if nd >= 2 else 1, nd))
    for i in range(nd if nd >= 2 else 0):
        w[1 + 2 * i, i] += EPS
        w[2 + 2 * i, i] -= EPS
    cols, sol = _columns(model, target, w)
    point = {
        "hands_mean": sol.hands_mean,
        "minutes_mean": sol.minutes_mean,
        "clock_share": sol.clock_share,
        "p_draw": sol.p_draw,
        "stronger_win": sol.p_b if model.stronger == 1 else sol.p_a,
        "lead_changes": sol.lead_changes,
        "takeover_rate": float(cols["takeover_rate"][0]),
        "big_swing_share": float(cols["big_swing_share"][0]),
    }
    figs = {}
    for k, _ in FIGURES:
        c = cols[k]
        se = None
        if c is not None and nd >= 2:
            infl = (c[1::2] - c[2::2]) / (2 * EPS)
            se = float(np.sqrt((infl**2).sum()))
        figs[k] = delta_interval(point[k], se, nd, k in SHARES)
    return {
        "a": model.data.a_policy,
        "b": model.data.b_policy,
        "stronger": model.stronger,
        "n_deals": nd,
        "n_hands": int(model.data.deal.size),
        "figures": figs,
        "hands_dist": [float(x) for x in sol.hands_dist],
        "batch": {k: None if v is None else float(v[0]) for k, v in cols.items()},
        "unresolved": sol.unresolved,
    }


SHARES = frozenset({"clock_share", "p_draw", "stronger_win", "takeover_rate", "big_swing_share"})
Z95 = 1.959963984540054


def delta_interval(value: float | None, se: float | None, n: int, share: bool) -> dict:
    """A figure with its 95% interval value +- 1.96 SE, kept at 0 or more (and at most 1 for a
    share); None for an untimed match's clock share. The page's ``interval`` computes the same."""
    if value is None:
        return {"value": None, "low": None, "high": None, "n": 0}
    if se is None or not np.isfinite(se):
        return {"value": float(value), "low": None, "high": None, "n": n}
    lo, hi = max(value - Z95 * se, 0.0), value + Z95 * se
    return {"value": float(value), "low": lo, "high": min(hi, 1.0) if share else hi, "n": n}


def setting_of(values: Mapping[str, Any], base: Setting) -> Setting:
    """``base`` with some fields replaced (level names accepted as well as rank indices)."""
    out = {}
    for k, v in values.items():
        if k in ("start_level", "end_level") and isinstance(v, str):
            v = RANK_NAMES.index(v)
        out[k] = v
    return dataclasses.replace(base, **out)


__all__ = [
    "FIGURES",
    "PACES",
    "PACE_PLAYED",
    "CellModel",
    "Setting",
    "cell_model",
    "explore_figures",
    "hand_keys",
    "delta_interval",
    "live_hands_by_key",
    "setting_of",
    "spt_x100_at",
    "state_keys",
    "target_variant",
]
