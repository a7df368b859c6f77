"""The hands' data and the rules the chain needs: per-hand outcomes of one cell, re-scoring, the outcome tables."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from ...errors import SimsuiteError
from ...rules.cards import RANK_NAMES
from ...rules.choices import DealerRotation, TieRule
from ...rules.variant import Variant

# The rule fields the chain can be re-scored under without new play, and the one list of them
# (``simsuite exact --set``, and the axes ``simsuite design`` re-scores instead of playing): the
# clock and the duration model. No policy looks at the clock, so the hands would be played alike.
# Every other field changes how hands are played (the bands too: the policies play for the
# thresholds, and `search` and `learned` read them), so its effect must be simulated.
RESCORABLE = (
    "match_minutes",
    "warning_minute",
    "hands_after_warning",
    "no_new_hand_minutes",
    "tie_rule",
    "seconds_per_trick",
    "hand_overhead_minutes",
)


def check_rescorable(overrides: Mapping[str, Any], where: str = "--set") -> None:
    """Refuse, naming them, overrides of fields that change play (``RESCORABLE``)."""
    from ...rules.variant import SPECS

    tournament = [k for k in overrides if any(f.name == k and f.section == "tournament" for f in SPECS)]
    if tournament:
        raise SimsuiteError(
            f"{where} {', '.join(tournament)}: a tournament setting, which no match depends on: the exact "
            f"model is of one match and has nothing to re-score under it. Re-scoring takes the clock "
            f"and the duration model only: {', '.join(RESCORABLE)}"
        )
    bad = [k for k in overrides if k not in RESCORABLE]
    if bad:
        raise SimsuiteError(
            f"{where} {', '.join(bad)}: changes how the hands are played, so the hands played under "
            f"the old rules cannot be re-scored under it; simulate it instead (a sweep or a design "
            f"grid). Re-scoring takes the clock and the duration model only: "
            f"{', '.join(RESCORABLE)}"
        )


TIME_STEP_X100 = 0  # 0: time kept exactly, as tricks played (see Rules.x100); > 0: a grid of that many hundredths
UNTIMED_CAP = 500  # the hand cap of an untimed match's chain


@dataclass
class Rules:
    """What the chain needs from a variant."""

    start: int
    end: int
    must_defend: bool
    special: tuple[int, ...]
    match_x100: int
    warn_x100: int
    after_warn: int
    no_new_x100: int
    on_stage: bool
    rotate: bool
    overhead_x100: int
    spt_x100: int
    cap: int
    step: int = TIME_STEP_X100
    point_levels: tuple[int, ...] = ()  # levels modelled apart from the rest (level_check): point-card ranks

    def group(self, level):
        """The level group of each level played (``GROUPS``): special (a permanent-trump rank) first,
        then a point-card level where those are modelled apart, else plain."""
        level = np.asarray(level)
        g = np.zeros(level.shape, np.int64)
        if self.point_levels:
            g[np.isin(level, np.array(self.point_levels, int))] = 2
        if self.special:
            g[np.isin(level, np.array(self.special, int))] = 1
        return g

    @classmethod
    def of(cls, v: Variant) -> Rules:
        return cls(
            v.start_level,
            v.end_level,
            bool(v.must_defend_end_level),
            tuple(v.permanent_trump_ranks),
            int(v.match_minutes) * 100,
            int(v.warning_minute) * 100,
            int(v.hands_after_warning),
            int(v.no_new_hand_minutes) * 100,
            v.tie_rule == TieRule.ON_STAGE,
            v.dealer_rotation == DealerRotation.ROTATE,
            round(v.hand_overhead_minutes * 100),
            round(v.seconds_per_trick * 100),
            0 if v.match_minutes > 0 else UNTIMED_CAP,
        )

    @property
    def timed(self) -> bool:
        return self.match_x100 > 0

    def x100(self, t, hands):
        """Elapsed hundredths of a minute of a state: with ``step == 0`` the state's time
        coordinate counts the tricks played, and a hand lasts overhead + tricks x seconds per
        trick / 60, as in the engine (which rounds each hand down to a hundredth; summing first
        differs by under 0.01 minute per hand); with a grid, ``t`` counts grid steps."""
        if self.step == 0:
            return hands * self.overhead_x100 + (t * self.spt_x100) // 60
        return t * self.step


# --- per-hand outcomes ----------------------------------------------------------------------------


@dataclass
class HandData:
    """The hands of one cell and policy pairing, reduced to what the chain needs, per hand:
    deal id, condition, outcome columns; team A is ``a_policy``'s team."""

    a_policy: str
    b_policy: str
    deal: np.ndarray  # int, 0..n_deals-1
    first: np.ndarray  # bool
    a_declares: np.ndarray  # bool
    level: np.ndarray  # int: the level (rank) played
    final_points: np.ndarray
    tricks: np.ndarray
    gain_d: np.ndarray
    gain_f: np.ndarray
    switch: np.ndarray
    n_deals: int


def hand_data(hands: pl.DataFrame, matches: pl.DataFrame, variant: Variant) -> HandData:
    """Reduce one cell's hand and match frames (one policy pairing, any number of seeds and
    tables) to ``HandData``. Equal-policy duplicate copies count once."""
    from ..metrics import count_once, deal_ids

    h, m, _ = count_once(hands, matches)
    if h.height == 0:
        raise SimsuiteError("no hands to estimate the per-hand outcomes from")
    ns, ew = m["policy_ns"].to_list(), m["policy_ew"].to_list()
    swapped = m["swapped"].to_list() if "swapped" in m.columns else [False] * m.height
    pairs = {frozenset((a, b)) for a, b in zip(ns, ew)}
    if len(pairs) > 1:
        raise SimsuiteError(
            "the exact model takes one policy pairing at a time; this group has "
            + ", ".join(sorted("/".join(sorted(p)) for p in pairs))
        )
    unswapped = [a for a, s in zip(ns, swapped) if not s] or [b for b, s in zip(ew, swapped) if s]
    a_pol = unswapped[0]
    b_pol = next(iter(next(iter(pairs)) - {a_pol}), a_pol)
    pns = h["policy_ns"].to_numpy()
    a_team = np.where(pns == a_pol, 0, 1) if a_pol != b_pol else np.zeros(h.height, int)
    decl = h["declarers"].to_numpy().astype(int)
    lv = np.column_stack([h["levels_ns"].to_numpy(), h["levels_ew"].to_numpy()]).astype(int)
    idx = np.arange(h.height)
    deal = deal_ids(h) - 1
    level = h["level"].to_numpy().astype(int)
    return HandData(
        a_pol,
        b_pol,
        deal,
        h["hand"].to_numpy() == 0,
        decl == a_team,
        level,
        h["final_points"].to_numpy().astype(int),
        h["tricks"].to_numpy().astype(int),
        lv[idx, decl],
        lv[idx, 1 - decl],
        h["next_declarers"].to_numpy().astype(int) != decl,
        int(deal.max()) + 1,
    )


def rescore(data: HandData, variant: Variant) -> HandData:
    """The same hands scored under ``variant``'s bands and dealer rotation (points as they fell)."""
    from ..metrics import band

    rules = Rules.of(variant)
    pts = data.final_points
    uniq, inv = np.unique(pts, return_inverse=True)
    scored = np.array([band(variant, int(p)) for p in uniq], dtype=int).reshape(-1, 2)
    took = scored[inv, 0].astype(bool)
    lv = scored[inv, 1]
    switch = took | rules.rotate
    return HandData(
        data.a_policy,
        data.b_policy,
        data.deal,
        data.first,
        data.a_declares,
        data.level,
        pts,
        data.tricks,
        np.where(took, 0, lv),
        np.where(took, lv, 0),
        switch,
        data.n_deals,
    )


@dataclass
class Table:
    """Outcome distribution of one condition: arrays of outcomes and their probabilities."""

    gain_d: np.ndarray
    gain_f: np.ndarray
    switch: np.ndarray
    dur: np.ndarray
    a_decl: np.ndarray  # first hand only: whether team A declared
    prob: np.ndarray


# The level groups of a table's condition: plain levels, special levels (a permanent-trump rank), and
# the point-card levels (5, 10, K: their point cards are trumps) where ``level_check`` finds that hands
# there fall otherwise than at the plain levels.
GROUPS = (0, 1, 2)
POINT_LEVELS = tuple(RANK_NAMES.index(r) for r in ("5", "10", "K"))
KEYS = (("first",),) + tuple((a, g) for a in (True, False) for g in GROUPS)  # the tables' conditions


@dataclass
class Design:
    """The per-hand outcomes as counts per deal: ``counts`` (deals x outcomes, the outcomes of the
    ``KEYS`` laid end to end, a key that borrows another's table repeating its columns) and the
    outcome tables they give with every deal weighted once; ``bounds`` [start, stop) per key;
    ``assumptions``: what was borrowed, in words."""

    tables: dict
    counts: np.ndarray
    bounds: dict
    assumptions: list

    def probabilities(self, weights: np.ndarray) -> np.ndarray:
        """Outcome probabilities (outcomes x resamples) under deal weights (resamples x deals); a key
        with no weight in a resample keeps the estimate's distribution (all deals weighted once)."""
        tot = (weights @ self.counts).T
        full = self.counts.sum(axis=0)
        for k in KEYS:
            lo, hi = self.bounds[k]
            s = tot[lo:hi].sum(axis=0)
            empty = s <= 0
            tot[lo:hi] /= np.where(empty, 1.0, s)
            if empty.any():
                tot[lo:hi, empty] = (full[lo:hi] / full[lo:hi].sum())[:, None]
        return tot


def outcome_design(data: HandData, rules: Rules) -> Design:
    """Per condition key, the outcome distribution (``Table``) and each deal's count of each outcome.
    Keys: ("first",), (a_declares, level group); a group with no hands uses its team's plain table;
    a team that never declared after the first hand uses the other team's (said in ``assumptions``)."""
    dur = rules.overhead_x100 + (data.tricks * rules.spt_x100) // 60
    step = rules.step
    if step == 0:  # exact: the time coordinate counts tricks
        lo, frac = data.tricks, np.zeros(data.tricks.size)
    else:
        lo = dur // step
        frac = (dur - lo * step) / step  # a duration between grid points is split between the two, keeping its mean
    group = rules.group(data.level)
    tables: dict[tuple, Table] = {}
    cols_of: dict[tuple, np.ndarray] = {}

    def build(mask, key):
        if not mask.any():
            return
        base = [data.gain_d[mask], data.gain_f[mask], data.switch[mask].astype(int)]
        tail = data.a_declares[mask].astype(int) if key == ("first",) else np.zeros(mask.sum(), int)
        cols = np.vstack([np.column_stack(base + [lo[mask], tail]), np.column_stack(base + [lo[mask] + 1, tail])])
        wts = np.concatenate([1 - frac[mask], frac[mask]])
        deal = np.concatenate([data.deal[mask], data.deal[mask]])
        keep = wts > 0
        cols, wts, deal = cols[keep], wts[keep], deal[keep]
        uniq, inv = np.unique(cols, axis=0, return_inverse=True)
        inv = inv.ravel()
        c = np.zeros((data.n_deals, len(uniq)))
        np.add.at(c, (deal, inv), wts)
        p = c.sum(axis=0)
        tables[key] = Table(
            uniq[:, 0], uniq[:, 1], uniq[:, 2].astype(bool), uniq[:, 3], uniq[:, 4].astype(bool), p / p.sum()
        )
        cols_of[key] = c

    build(data.first, ("first",))
    for a in (True, False):
        for g in GROUPS:
            build(~data.first & (data.a_declares == a) & (group == g), (a, g))
    if ("first",) not in tables:
        raise SimsuiteError("no first hands among the hands given: pass whole matches")
    assumptions = []
    for a in (True, False):
        if not any((a, g) in tables for g in GROUPS):  # one team never declared after the first hand
            if not any((not a, g) in tables for g in GROUPS):
                raise SimsuiteError("no hands after the first: the matches are too short to estimate the chain")
            team = data.a_policy if a else data.b_policy
            assumptions.append(
                f"team {'A' if a else 'B'} ({team}) never declared after the first hand: its hands "
                f"are assumed to fall as team {'B' if a else 'A'}'s do (their outcome tables borrowed)"
            )
            for g in GROUPS:
                if (not a, g) in tables:
                    tables[(a, g)], cols_of[(a, g)] = tables[(not a, g)], cols_of[(not a, g)]
    for a in (True, False):
        base = next((a, g) for g in GROUPS if (a, g) in tables)
        for g in GROUPS:
            if (a, g) not in tables:  # no hands at that level group: the team's plain levels' table
                tables[(a, g)], cols_of[(a, g)] = tables[base], cols_of[base]
    bounds, at = {}, 0
    for k in KEYS:
        bounds[k] = (at, at + tables[k].prob.size)
        at += tables[k].prob.size
    return Design(tables, np.hstack([cols_of[k] for k in KEYS]), bounds, assumptions)


def complete_tables(tables: Mapping[tuple, Table]) -> dict[tuple, Table]:
    """``tables`` with every key of ``KEYS``: a missing level group takes its team's plain table."""
    out = dict(tables)
    for a in (True, False):
        for g in GROUPS:
            out.setdefault((a, g), out[(a, 0)])
    return out
