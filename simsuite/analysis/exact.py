"""The exact match model: a match as a Markov chain over hands, solved with numpy (docs/metrics.md).

State before a hand: both teams' levels, which team declares, and for a timed match the elapsed
modelled time and the warning counter; plus the team last strictly ahead, for lead changes. Who
deals is not a separate coordinate: the engine's next declaring team is the next dealer's team,
and nothing else in the chain depends on which seat of that team deals. Time is kept exactly, as
the tricks played so far (``Rules.x100``).

Each hand moves the state by an outcome drawn from a per-hand distribution estimated from
simulated hands of one cell and one policy pairing, conditioned on what the rules make a hand
depend on: the first hand of a match (the declarers come from bidding), which team (policy)
declares, and the group of the level played: special (a permanent-trump rank), a point-card level
(5, 10, K) where ``level_check`` finds hands there fall otherwise, or plain.
An outcome is (levels gained by the declarers, levels gained by the defenders, whether the deal
passes to the other team, the hand's modelled duration). The chain is then solved exactly by
propagating the probability of every state hand by hand (no sampling): P(team A wins), P(draw),
P(team B wins), the distribution of hands per match, of modelled minutes (timed matches), the
expected lead changes, and by a backward pass P(win | state), from which Ludii's drama and a
decisiveness figure follow. Sampling uncertainty of the per-hand distributions is carried
through by a bootstrap that resamples deals (all hands of a deal's tables go together): a resample
is a weight vector over the deals, its tables the weighted outcome counts (``Design``), and the
chain is solved for a batch of resamples at once (``solve_batch``). ``validation_rows`` compares
the model with matches of another seed by equivalence tests (TOST) at ``VALIDATION_MARGINS``.

Re-scoring: with ``overrides`` (``--set``) every hand's defender points are scored again under
the new bands and its duration recomputed from its tricks under the new duration model, and the
chain is solved under the new clock. This is an approximation: the policies played the hands
under the old rules, and a policy that adapts to the bands or the clock would play differently;
hands' points are also taken as they fell at the old levels. ``docs/metrics.md`` records its
measured error against direct simulation.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np
import polars as pl
from numba import njit

from ..errors import SimsuiteError
from ..rules.cards import RANK_NAMES
from ..rules.variant import Variant

# The rule fields the chain can be re-scored under without new play, and the one list of them
# (``simsuite exact --set``, and the axes ``simsuite design`` re-scores instead of playing): the
# clock and the duration model. No policy looks at the clock, so the hands would be played alike.
# Every other field changes how hands are played (the bands too: the policies play for the
# thresholds, and `search` and `learned` read them), so its effect must be simulated.
RESCORABLE = ("match_minutes", "warning_minute", "hands_after_warning", "no_new_hand_minutes", "tie_rule",
              "seconds_per_trick", "hand_overhead_minutes")
MAX_REPS = 10_000  # bootstrap resamples: each solves the chain again (a resample takes milliseconds)


def check_rescorable(overrides: Mapping[str, Any], where: str = "--set") -> None:
    """Refuse, naming them, overrides of fields that change play (``RESCORABLE``)."""
    from ..rules.variant import SPECS

    tournament = [k for k in overrides if any(f.name == k and f.section == "tournament" for f in SPECS)]
    if tournament:
        raise SimsuiteError(f"{where} {', '.join(tournament)}: a tournament setting, which no match depends on: the exact "
                            f"model is of one match and has nothing to re-score under it. Re-scoring takes the clock "
                            f"and the duration model only: {', '.join(RESCORABLE)}")
    bad = [k for k in overrides if k not in RESCORABLE]
    if bad:
        raise SimsuiteError(f"{where} {', '.join(bad)}: changes how the hands are played, so the hands played under "
                            f"the old rules cannot be re-scored under it; simulate it instead (a sweep or a design "
                            f"grid). Re-scoring takes the clock and the duration model only: "
                            f"{', '.join(RESCORABLE)}")

DEFAULT_REPS = 1000  # bootstrap resamples of the exact model's intervals
MIN_REPS = 1000  # fewer: the intervals are labelled rough
TIME_STEP_X100 = 0  # 0: time kept exactly, as tricks played (see Rules.x100); > 0: a grid of that many hundredths
DECIDED_AT = 0.9  # the decisiveness threshold on the eventual winner's P(win | state)
TOL = 1e-12  # mass below which propagation stops (reported as "unresolved")
UNTIMED_CAP = 500

# state code layout (bits)
_T_BITS, _W_BITS, _LD_BITS, _D_BITS, _L_BITS = 26, 5, 2, 1, 7


def encode_states(la, lb, d, ld, w, t):
    c = la.astype(np.int64)  # a copy, shifted and filled in place
    c <<= _L_BITS
    c |= lb
    c <<= _D_BITS
    c |= d
    c <<= _LD_BITS
    c |= ld + 1
    c <<= _W_BITS
    c |= w + 1
    c <<= _T_BITS
    c |= t
    return c


def decode_states(c):
    t = c & ((1 << _T_BITS) - 1)
    c = c >> _T_BITS
    w = (c & ((1 << _W_BITS) - 1)) - 1
    c = c >> _W_BITS
    ld = (c & ((1 << _LD_BITS) - 1)) - 1
    c = c >> _LD_BITS
    d = c & 1
    c = c >> _D_BITS
    lb = c & ((1 << _L_BITS) - 1)
    la = c >> _L_BITS
    return la, lb, d, ld, w, t


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
    def of(cls, v: Variant) -> "Rules":
        return cls(v.start_level, v.end_level, bool(v.must_defend_end_level), tuple(v.permanent_trump_ranks),
                   int(v.match_minutes) * 100, int(v.warning_minute) * 100, int(v.hands_after_warning),
                   int(v.no_new_hand_minutes) * 100, v.tie_rule == "on_stage", v.dealer_rotation == "rotate",
                   round(v.hand_overhead_minutes * 100), round(v.seconds_per_trick * 100),
                   0 if v.match_minutes > 0 else UNTIMED_CAP)

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
    from .metrics import count_once, deal_ids

    h, m, _ = count_once(hands, matches)
    if h.height == 0:
        raise SimsuiteError("no hands to estimate the per-hand outcomes from")
    ns, ew = m["policy_ns"].to_list(), m["policy_ew"].to_list()
    swapped = m["swapped"].to_list() if "swapped" in m.columns else [False] * m.height
    pairs = {frozenset((a, b)) for a, b in zip(ns, ew)}
    if len(pairs) > 1:
        raise SimsuiteError("the exact model takes one policy pairing at a time; this group has "
                            + ", ".join(sorted("/".join(sorted(p)) for p in pairs)))
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
        a_pol, b_pol, deal, h["hand"].to_numpy() == 0, decl == a_team, level,
        h["final_points"].to_numpy().astype(int), h["tricks"].to_numpy().astype(int),
        lv[idx, decl], lv[idx, 1 - decl], h["next_declarers"].to_numpy().astype(int) != decl, int(deal.max()) + 1)


def rescore(data: HandData, variant: Variant) -> HandData:
    """The same hands scored under ``variant``'s bands and dealer rotation (points as they fell)."""
    from .metrics import band

    rules = Rules.of(variant)
    pts = data.final_points
    uniq, inv = np.unique(pts, return_inverse=True)
    scored = np.array([band(variant, int(p)) for p in uniq], dtype=int).reshape(-1, 2)
    took = scored[inv, 0].astype(bool)
    lv = scored[inv, 1]
    switch = took | rules.rotate
    return HandData(data.a_policy, data.b_policy, data.deal, data.first, data.a_declares,
                    data.level, pts, data.tricks,
                    np.where(took, 0, lv), np.where(took, lv, 0), switch, data.n_deals)


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
        tables[key] = Table(uniq[:, 0], uniq[:, 1], uniq[:, 2].astype(bool), uniq[:, 3], uniq[:, 4].astype(bool),
                            p / p.sum())
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
            assumptions.append(f"team {'A' if a else 'B'} ({team}) never declared after the first hand: its hands "
                               f"are assumed to fall as team {'B' if a else 'A'}'s do (their outcome tables borrowed)")
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


def _tables(data: HandData, rules: Rules, weights: np.ndarray | None = None) -> dict[tuple, Table]:
    """Per condition key (``KEYS``), the weighted outcome distribution (``_design``)."""
    d = outcome_design(data, rules)
    if weights is None:
        return d.tables
    p = d.probabilities(np.asarray(weights, float)[None, :])[:, 0]
    return {k: dataclasses.replace(d.tables[k], prob=p[d.bounds[k][0]:d.bounds[k][1]]) for k in KEYS}


def _complete(tables: Mapping[tuple, Table]) -> dict[tuple, Table]:
    """``tables`` with every key of ``KEYS``: a missing level group takes its team's plain table."""
    out = dict(tables)
    for a in (True, False):
        for g in GROUPS:
            out.setdefault((a, g), out[(a, 0)])
    return out


# --- the chain ------------------------------------------------------------------------------------


@dataclass
class Solution:
    p_a: float
    p_draw: float
    p_b: float
    hands_dist: np.ndarray  # P(match lasts h hands), h = 0..
    minutes_mean: float
    minutes_dist: dict  # timed: {minutes: probability}; untimed: {}
    clock_share: float | None  # timed: P(ended by the clock)
    cap_share: float
    lead_changes: float
    drama: float
    decisive_share: float
    unresolved: float
    value_start: float = 0.0  # P(A wins | start) (= p_a)
    layers: list = field(default_factory=list, repr=False)

    @property
    def hands_mean(self) -> float:
        return float((np.arange(self.hands_dist.size) * self.hands_dist).sum() / max(self.hands_dist.sum(), 1e-300))

    def minutes_quantile(self, q: float) -> float | None:
        if not self.minutes_dist:
            return None
        ks = sorted(self.minutes_dist)
        c = np.cumsum([self.minutes_dist[k] for k in ks])
        return float(ks[int(np.searchsorted(c, q * c[-1]))])


def _ended(codes, rules, h):
    """Whether a match in each state ends before hand ``h`` (the hand cap or the clock)."""
    la, lb, d, ld, w, t = decode_states(codes)
    ended = np.zeros(codes.size, bool)
    if rules.cap and h >= rules.cap:
        ended[:] = True
    if rules.timed:
        tt = rules.x100(t, h)
        # as the engine (engine/match.py): the no-new-hand cut-off first, and then, whether or not
        # there is one, the warning countdown where there is a warning, else the full time
        if rules.no_new_x100 > 0:
            ended |= tt >= rules.match_x100 - rules.no_new_x100
        if rules.warn_x100 > 0:
            ended |= w == 0
        else:
            ended |= tt >= rules.match_x100
    return ended


def _offsets(tables) -> dict[tuple, int]:
    """Where each condition's outcomes start when the tables' outcomes are laid end to end (``KEYS`` order)."""
    sizes = np.cumsum([0] + [tables[k].prob.size for k in KEYS])
    return {k: int(o) for k, o in zip(KEYS, sizes)}


_CHUNK = 1 << 15  # transitions (keys) _expand (_distinct) takes at once: its temporaries stay in the cache


def _expand(codes, tables, rules, h):
    """For every state entering hand ``h``: the pre-hand end check, then every outcome.

    Returns (ended_pre: bool per state), the groups of transitions (``_Hand.groups``), and for the
    transitions the arrays (ended_level flag, lead change flag) and the codes of their next states
    (arrays laid end to end; -1 for those that end the match on levels), then for the transitions
    that end the match on levels (in their order) the levels and declaring team they end at, and
    their time coordinates (arrays laid end to end)."""
    offsets = _offsets(tables)
    la, lb, d, ld, w, t = decode_states(codes)
    ended = _ended(codes, rules, h)
    live = np.nonzero(~ended)[0]
    if h == 0:
        groups = [(live, ("first",), None)]
    else:
        # the declaring team's level is the level played: it decides the table's level group
        grp = rules.group(np.where(d[live] == 0, la[live], lb[live]))
        groups = []
        for a in (True, False):
            for g in GROUPS:
                sel = live[(d[live] == (0 if a else 1)) & (grp == g)]
                if sel.size:
                    groups.append((sel, (a, g), 0 if a else 1))
    # The transitions of a group are its states times its table's outcomes, state by state: each is
    # computed on a (states, outcomes) grid, from a column per state and a row per outcome, and
    # written, flattened in that order, into its place in the arrays of all the groups. The grid is
    # taken a block of states at a time (about _CHUNK transitions): the same values, but the
    # temporaries are small, so they stay in the cache and are not fresh memory each time.
    sizes = [sel.size * tables[key].prob.size for sel, key, _ in groups]
    n_all = sum(sizes)
    end_lvl, change = np.empty(n_all, bool), np.empty(n_all, bool)
    spans = []  # per group: its states, its first outcome, its outcomes, its first transition (_Hand.groups)
    next_codes = []  # per block: the next states' codes
    ends = []  # per block: the levels, declaring team and time coordinate of the transitions that end on levels
    warned = rules.timed and rules.warn_x100 > 0
    stop = 0
    for (sel, key, team), size in zip(groups, sizes):
        start, stop = stop, stop + size
        tb = tables[key]
        k = tb.prob.size
        dd = np.where(tb.a_decl, 0, 1) if team is None else np.full(k, team)  # the declarers, per outcome
        gain_a = np.where(dd == 0, tb.gain_d, tb.gain_f)
        gain_b = np.where(dd == 0, tb.gain_f, tb.gain_d)
        gd = np.where(tb.switch, 1 - dd, dd)
        spans.append((sel, offsets[key], k, start))
        if _COMPILED_EXPAND:
            code = np.empty(size, np.int64)
            found = np.empty((4, size), np.int64)  # pages only where an end is written
            n_end = _expand_group(la, lb, w, t, ld, sel, gain_a.astype(np.int64), gain_b.astype(np.int64),
                                  gd.astype(np.int64), dd.astype(np.int64), np.asarray(tb.dur, np.int64),
                                  rules.end, rules.must_defend, rules.timed, warned, rules.warn_x100,
                                  rules.after_warn, rules.step, rules.overhead_x100, rules.spt_x100, h + 1,
                                  end_lvl[start:stop], change[start:stop], code, found)
            next_codes.append(code)
            ends.append([found[i, :n_end].copy() for i in range(4)])
            continue
        rows = max(1, _CHUNK // k)
        for lo in range(0, sel.size, rows):
            part = sel[lo:lo + rows]
            first = start + lo * k
            grid = (part.size, k)

            def put(out, value):
                out[first:first + part.size * k].reshape(grid)[...] = value

            a0, b0 = la[part][:, None], lb[part][:, None]
            ga, gb = a0 + gain_a, b0 + gain_b
            if rules.must_defend:
                ga = np.where((ga > rules.end) & ~((dd == 0) & (a0 == rules.end)), rules.end, ga)
                gb = np.where((gb > rules.end) & ~((dd == 1) & (b0 == rules.end)), rules.end, gb)
            gt = t[part][:, None] + tb.dur if rules.timed else t[part][:, None]
            old = ld[part][:, None]
            ahead = np.where(ga > gb, 0, np.where(gb > ga, 1, -1))
            gw = w[part][:, None]
            if warned:
                dec = gw > 0
                gw = np.where(dec, gw - 1, gw)
                gw = np.where(~dec & (gw < 0) & (rules.x100(gt, h + 1) >= rules.warn_x100), rules.after_warn, gw)
            gend = (ga > rules.end) | (gb > rules.end)
            put(end_lvl, gend)
            put(change, (ahead >= 0) & (old >= 0) & (ahead != old))
            code = encode_states(ga, gb, gd, np.where(ahead >= 0, ahead, old), gw, gt)
            code[gend] = -1  # no next state (_distinct)
            next_codes.append(code.ravel())
            ends.append([np.broadcast_to(x, grid)[gend] for x in (ga, gb, gd, gt)])
    cat = [spans, end_lvl, change, next_codes]
    cat += [np.concatenate([e[i] for e in ends]) if ends else np.zeros(0, np.int64) for i in range(3)]
    cat.append([e[3] for e in ends])
    return ended, cat, (la, lb, d)


_COMPILED_EXPAND = True  # _expand's grids in compiled code (_expand_group); False: numpy blocks (the same arrays)


@njit(cache=True)
def _x100(t, hands, step, overhead_x100, spt_x100):
    """``Rules.x100`` for one state."""
    if step == 0:
        return hands * overhead_x100 + (t * spt_x100) // 60
    return t * step


@njit(cache=True)
def _expand_group(la, lb, w, t, ld, sel, gain_a, gain_b, gd, dd, dur, end, must_defend, timed, warned, warn_x100,
                  after_warn, step, overhead_x100, spt_x100, h_next, end_lvl, change, code, ends):
    """``_expand``'s grid of one group, state by state and outcome by outcome (the numpy blocks'
    arithmetic, element by element): each transition's end-on-levels and lead-change flags, the code
    of its next state (-1 where it ends the match on levels), and for those that end, their levels,
    declaring team and time coordinate in ``ends``' rows (returns how many)."""
    k = gain_a.size
    n_end = 0
    for i in range(sel.size):
        s = sel[i]
        a0, b0, old, w0, t0 = la[s], lb[s], ld[s], w[s], t[s]
        for j in range(k):
            x = i * k + j
            ga, gb = a0 + gain_a[j], b0 + gain_b[j]
            if must_defend:
                if ga > end and not (dd[j] == 0 and a0 == end):
                    ga = end
                if gb > end and not (dd[j] == 1 and b0 == end):
                    gb = end
            gt = t0 + dur[j] if timed else t0
            ahead = 0 if ga > gb else (1 if gb > ga else -1)
            gw = w0
            if warned:
                if gw > 0:
                    gw -= 1
                elif gw < 0 and _x100(gt, h_next, step, overhead_x100, spt_x100) >= warn_x100:
                    gw = after_warn
            gend = ga > end or gb > end
            end_lvl[x] = gend
            change[x] = ahead >= 0 and old >= 0 and ahead != old
            if gend:
                code[x] = -1
                ends[0, n_end] = ga
                ends[1, n_end] = gb
                ends[2, n_end] = gd[j]
                ends[3, n_end] = gt
                n_end += 1
            else:
                c = np.int64(ga)
                c = (c << _L_BITS) | gb
                c = (c << _D_BITS) | gd[j]
                c = (c << _LD_BITS) | ((ahead if ahead >= 0 else old) + 1)
                c = (c << _W_BITS) | (gw + 1)
                c = (c << _T_BITS) | gt
                code[x] = c
    return n_end


def winner_probs(la, lb, on_stage_team, rules):
    """(P(A), P(draw), P(B)) of an end at these levels."""
    a = (la > lb).astype(float)
    b = (lb > la).astype(float)
    tie = la == lb
    if rules.on_stage:
        a = a + (tie & (on_stage_team == 0))
        b = b + (tie & (on_stage_team == 1))
        dr = np.zeros(la.size)
    else:
        dr = tie.astype(float)
    return a, dr, b


@dataclass
class _Hand:
    """One hand of a chain, whatever the outcomes' probabilities: the states entering it (sorted
    codes), those the cap or the clock ends before it (with their winners and time coordinates),
    and its transitions (lead change, whether it ends the match on levels; for those that do their
    winners and time coordinates; for every transition the index of the state it leads to among
    the next hand's states, or for one that ends the match the number of those states).

    The transitions come in groups, one per condition of the states' table: a group's are its
    states (``sel``, indices into ``codes``) times the table's ``k`` outcomes, state by state, from
    transition ``at`` on; the outcomes are ``first .. first + k - 1`` of the tables' outcomes laid
    end to end (``_offsets``). A group's transitions are a (states, outcomes) grid, in the arrays
    of all the transitions and in the work arrays of a solve."""

    codes: np.ndarray
    ended: np.ndarray
    ended_win: tuple
    ended_t: tuple  # (distinct time coordinates, index of each ended state's among them): _distinct
    groups: list  # (sel, first, k, at) per group
    n: int  # transitions
    change: np.ndarray
    end_lvl: np.ndarray
    n_end: int  # transitions that end the match on levels
    end_win: tuple
    end_t: tuple
    nxt: np.ndarray


class Chain:
    """The states and transitions of the chain of ``tables`` under ``rules``, hand by hand, found
    once and shared by every solve on the same outcomes (``solve(..., chain=)``): a bootstrap
    resample's tables keep some of the outcomes, each with its own probability, and so move through
    the same states (those it cannot reach keep probability 0). Hands are found as a solve needs them.
    The chain also keeps each outcome's duration and the work arrays its solves reuse (``_Work``)."""

    def __init__(self, tables: Mapping[tuple, Table], rules: Rules):
        tables = _complete(tables)
        self.tables, self.rules = tables, rules
        start = encode_states(np.array([rules.start]), np.array([rules.start]), np.array([0]), np.array([-1]),
                        np.array([-1]), np.array([0]))
        self.codes = [start]  # the states entering each hand found so far (one more than self.hands)
        self.hands: list[_Hand] = []
        self._rows = {k: {row: i for i, row in enumerate(zip(*self._columns(tables[k])))} for k in KEYS}
        # each outcome's duration as solve sums it: hundredths of a minute (rules.step 0) or grid steps
        dur = np.concatenate([tables[k].dur for k in KEYS]).astype(np.int64)
        self.duration = rules.overhead_x100 + dur * rules.spt_x100 / 60 if rules.step == 0 else dur.astype(float)
        self.work = _Work()

    @staticmethod
    def _columns(tb: Table):
        return (tb.gain_d.tolist(), tb.gain_f.tolist(), tb.switch.tolist(), tb.dur.tolist(), tb.a_decl.tolist())

    def probabilities(self, tables: Mapping[tuple, Table]) -> np.ndarray | None:
        """Every outcome's probability under ``tables``, laid out as this chain's outcomes; None
        when ``tables`` has an outcome this chain lacks."""
        parts = []
        tables = _complete(tables)
        for k in KEYS:
            mine, theirs = self.tables[k], tables[k]
            if theirs is mine:
                parts.append(mine.prob)
                continue
            p = np.zeros(mine.prob.size)
            for row, q in zip(zip(*self._columns(theirs)), theirs.prob):
                i = self._rows[k].get(row)
                if i is None:
                    return None
                p[i] = q
            parts.append(p)
        return np.concatenate(parts)

    def hand(self, h: int) -> _Hand:
        while len(self.hands) <= h:
            self._find(len(self.hands))
        return self.hands[h]

    def _find(self, h: int) -> None:
        rules, codes = self.rules, self.codes[h]
        ended, tr, (la, lb, d) = _expand(codes, self.tables, rules, h)
        groups, end_lvl, change, next_codes, end_a, end_b, end_d, end_t = tr
        nxt_codes, nxt = _distinct(next_codes)
        self.hands.append(_Hand(codes, ended, winner_probs(la[ended], lb[ended], d[ended], rules),
                                _distinct([decode_states(codes[ended])[5]]), groups, end_lvl.size, change, end_lvl,
                                end_a.size, winner_probs(end_a, end_b, end_d, rules), _distinct(end_t), nxt))
        self.codes.append(nxt_codes)


def _take(a: np.ndarray, index: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``a[index]`` written into ``out``. The indices are always in range; mode "clip" because with
    ``out`` numpy's default mode ("raise") writes into a fresh copy of ``out`` first."""
    return np.take(a, index, out=out, mode="clip")


class _Work:
    """Float arrays that the solves on one chain reuse, hand after hand: the same values as fresh
    arrays, but fresh memory costs a page fault per page, which in a long match took about as much
    time as the arithmetic."""

    def __init__(self):
        self._arrays: dict[str, np.ndarray] = {}

    def get(self, name: str, n: int) -> np.ndarray:
        """An array of ``n`` floats (its contents left over from an earlier use)."""
        a = self._arrays.get(name)
        if a is None or a.size < n:
            a = self._arrays[name] = np.empty(max(n, 0 if a is None else a.size + a.size // 4))
        return a[:n]


def solve(tables: Mapping[tuple, Table], rules: Rules, values: bool = True, chain: Chain | None = None) -> Solution:
    """Propagate the start state's probability hand by hand until every match has ended (to
    ``TOL``), then (``values``) solve P(win | state) backwards for drama and decisiveness.

    ``chain``: the states and transitions found by an earlier solve under ``rules`` (``Chain``),
    to reuse when ``tables`` keep only outcomes of its tables (a bootstrap resample): the figures
    are then the same up to float rounding (the states this solve cannot reach add zeros)."""
    prob_all = chain.probabilities(tables) if chain is not None else None
    if prob_all is None:
        chain = Chain(tables, rules)
        prob_all = chain.probabilities(tables)
    mass = np.array([1.0])
    p_a = p_d = p_b = 0.0
    hands_dist = []
    minutes_dist: dict[float, float] = {}
    minutes_mean = 0.0
    clock = cap = lead = 0.0
    layers = []
    steps = []
    h = 0
    limit = rules.cap if rules.cap else 10_000
    codes = chain.codes[0]
    work = chain.work
    while codes.size and mass.sum() > TOL and h <= limit:
        hand = chain.hand(h)
        ended = hand.ended
        layers.append((codes, mass))
        hd = np.zeros(1)
        if ended.any():
            em = mass[ended]
            a, dr, b = hand.ended_win
            p_a += float((em * a).sum()); p_d += float((em * dr).sum()); p_b += float((em * b).sum())
            if rules.cap and h >= rules.cap:
                cap += float(em.sum())
            else:
                clock += float(em.sum())
            hd[0] = em.sum()
            if rules.timed:
                tu, ti = hand.ended_t
                for k, v in zip(tu, np.bincount(ti, weights=em, minlength=tu.size)):
                    mk = float(rules.x100(k, h)) / 100
                    minutes_dist[mk] = minutes_dist.get(mk, 0.0) + v
        # each transition's probability (its state's mass x its outcome's) and that times the
        # outcome's duration, group by group, in the chain's work arrays
        flow, spent = work.get("flow", hand.n), work.get("part", hand.n)
        for sel, o, k, at in hand.groups:
            grid = flow[at:at + sel.size * k].reshape(sel.size, k)
            np.multiply(mass[sel][:, None], prob_all[o:o + k], out=grid)
            np.multiply(grid, chain.duration[o:o + k], out=spent[at:at + sel.size * k].reshape(sel.size, k))
        lead += float(flow[hand.change].sum())
        if rules.step == 0:
            minutes_mean += float(spent.sum()) / 100.0
        else:
            minutes_mean += float(spent.sum()) * rules.step / 100.0
        if hand.n_end:
            fm = flow[hand.end_lvl]
            part = work.get("part", fm.size)
            a, dr, b = hand.end_win
            p_a += float(np.multiply(fm, a, out=part).sum()); p_d += float(np.multiply(fm, dr, out=part).sum())
            p_b += float(np.multiply(fm, b, out=part).sum())
            hands_next = fm.sum()
            if rules.timed:
                tu, ti = hand.end_t
                for k, v in zip(tu, np.bincount(ti, weights=fm, minlength=tu.size)):
                    mk = float(rules.x100(k, h + 1)) / 100
                    minutes_dist[mk] = minutes_dist.get(mk, 0.0) + v
        else:
            hands_next = 0.0
        _add(hands_dist, h, hd[0])
        _add(hands_dist, h + 1, hands_next)
        codes = chain.codes[h + 1]
        # the transitions that end the match fall into one more bin, past the next hand's states
        mass = np.bincount(hand.nxt, weights=flow, minlength=codes.size + 1)[:codes.size]
        if values:  # what the backward pass needs of this hand (_values)
            steps.append(hand)
        h += 1
    unresolved = float(mass.sum()) if codes.size else 0.0
    dist = np.array(hands_dist)
    sol = Solution(p_a, p_d, p_b, dist, minutes_mean, minutes_dist, clock if rules.timed else None, cap, lead,
                   0.0, 0.0, unresolved, p_a, layers)
    if values:
        _values(sol, steps, prob_all, work)
    return sol


def _add(lst, i, v):
    while len(lst) <= i:
        lst.append(0.0)
    lst[i] += v


@njit(cache=True)
def _distinct_dense(keys, t_bits):
    """``_distinct``'s placing of the keys on a dense range (see there), in one compiled pass each:
    (distinct keys, index of each key, True), or (empty, empty, False) where the keys spread too
    wide for it (then ``_distinct`` sorts)."""
    n = keys.size
    mask = (1 << t_bits) - 1
    lo_h, hi_h, t0, t1, n_keys = -1, -1, 1 << t_bits, -1, 0
    for i in range(n):
        k = keys[i]
        if k < 0:
            continue
        hk, tk = k >> t_bits, k & mask
        if n_keys == 0 or hk < lo_h:
            lo_h = hk
        if n_keys == 0 or hk > hi_h:
            hi_h = hk
        t0 = min(t0, tk)
        t1 = max(t1, tk)
        n_keys += 1
    inv = np.zeros(n, np.intp)
    if n_keys == 0:
        return np.zeros(0, np.int64), inv, True
    h_span = hi_h - lo_h + 1
    t_span = t1 - t0 + 1
    if h_span > 2 * n_keys + (1 << 20):
        return np.zeros(0, np.int64), inv[:0], False
    number = np.zeros(h_span, np.intp)
    for i in range(n):
        if keys[i] >= 0:
            number[(keys[i] >> t_bits) - lo_h] = 1
    c = 0
    for i in range(h_span):
        if number[i]:
            number[i] = c
            c += 1
    span = c * t_span
    if span > 2 * n_keys + (1 << 16):
        return np.zeros(0, np.int64), inv[:0], False
    taken = np.zeros(span + 1, np.intp)
    for i in range(n):
        k = keys[i]
        if k < 0:
            inv[i] = span
        else:
            place = number[(k >> t_bits) - lo_h] * t_span + (k & mask) - t0
            taken[place] = 1
            inv[i] = place
    taken[span] = 1
    c = 0
    for p in range(span + 1):
        if taken[p]:
            taken[p] = c
            c += 1
    out = np.empty(c - 1, np.int64)
    for i in range(n):
        j = taken[inv[i]]
        inv[i] = j
        if keys[i] >= 0:
            out[j] = keys[i]
    return out, inv, True


def _distinct(parts):
    """The distinct keys of ``parts`` (arrays of keys, laid end to end), sorted, and the index of
    each key among them (``np.unique``'s ``return_inverse``); a negative key is no key, and its
    index is the number of distinct keys. The sum of weights ``w`` per distinct key is then
    ``np.bincount(index, weights=w, minlength=len(distinct) + 1)[:-1]``."""
    if not parts:
        return np.zeros(0, np.int64), np.zeros(0, np.intp)
    keys = np.ascontiguousarray(np.concatenate(parts) if len(parts) != 1 else parts[0], dtype=np.int64)
    out, inv, ok = _distinct_dense(keys, _T_BITS)
    if ok:
        return out, inv
    return _distinct_numpy(parts)


def _distinct_numpy(parts):
    """``_distinct`` with numpy alone: the dense placing a block of keys at a time, else a stable sort."""
    blocks = [p[i:i + _CHUNK] for p in parts for i in range(0, p.size, _CHUNK)]
    n = sum(b.size for b in blocks)
    inv = np.empty(n, np.intp)
    if not blocks or max(int(b.max()) for b in blocks) < 0:
        inv[:] = 0
        return np.zeros(0, np.int64), inv
    mins = [int(b.min()) for b in blocks]
    valid = [None if m >= 0 else b >= 0 for b, m in zip(blocks, mins)]  # None: every key of the block

    def keys_of(i):
        return blocks[i] if valid[i] is None else blocks[i][valid[i]]

    # np.unique's work without a sort. A code is its high fields (levels, declarers, leader,
    # warning) above its time coordinate (encode_states). Numbering the high fields present in their
    # order, and placing each key at (its high fields' number) x (the span of the keys' times) +
    # (its time - the least), puts the keys in their order on a range about as long as a layer's
    # distinct states times their spread in time (a few percent of its transitions); marking the
    # places taken and counting them gives each key its index among the distinct keys. A block of
    # keys at a time, so that the only array as long as the keys is the indices. (A stable sort of
    # a long match's transitions took seconds; the indices are the same whatever the way.)
    mask = (1 << _T_BITS) - 1
    lows, highs, t0, t1 = [], [], 1 << _T_BITS, -1
    for i in range(len(blocks)):
        k = keys_of(i)
        if k.size:
            lows.append(int(k.min()))
            highs.append(int(k.max()))
            t = k & mask
            t0, t1 = min(t0, int(t.min())), max(t1, int(t.max()))
    h0 = min(lows) >> _T_BITS
    h_span = (max(highs) >> _T_BITS) - h0 + 1
    n_keys = n - sum(int(v.size - np.count_nonzero(v)) for v in valid if v is not None)
    t_span = t1 - t0 + 1
    if h_span <= 2 * n_keys + (1 << 20):
        seen = np.zeros(h_span, bool)
        for i in range(len(blocks)):
            seen[(keys_of(i) >> _T_BITS) - h0] = True
        number = np.cumsum(seen, dtype=np.intp)
        span = int(number[-1]) * t_span
        if span <= 2 * n_keys + (1 << 16):
            number -= 1
            taken = np.zeros(span + 1, bool)  # the last place: no key
            at = 0
            for i, b in enumerate(blocks):
                k = keys_of(i)
                place = number[(k >> _T_BITS) - h0]
                place *= t_span
                place += (k & mask) - t0
                taken[place] = True
                if valid[i] is None:
                    inv[at:at + b.size] = place
                else:
                    part = inv[at:at + b.size]
                    part[valid[i]] = place
                    part[~valid[i]] = span
                at += b.size
            taken[span] = True
            index = np.cumsum(taken, dtype=np.intp)
            index -= 1
            out = np.empty(int(index[-1]), np.int64)
            at = 0
            for i, b in enumerate(blocks):
                part = inv[at:at + b.size]
                part[...] = index[part]
                k = keys_of(i)
                out[part if valid[i] is None else part[valid[i]]] = k
                at += b.size
            return out, inv
    # otherwise (keys spread wide) np.unique's work with a stable sort: the keys of a layer's
    # transitions come in sorted runs (a source state's outcomes, in the tables' order), which a
    # stable sort (timsort) merges about three times faster than np.unique's quicksort sorts them
    keys = np.concatenate(blocks)
    no_key = keys < 0
    keys = keys[~no_key]
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    first = np.empty(keys.size, bool)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    index = np.empty(keys.size, np.intp)
    index[order] = np.cumsum(first) - 1
    out = ordered[first]
    inv[~no_key] = index
    inv[no_key] = out.size
    return out, inv


def _values(sol: Solution, steps: Sequence[_Hand], prob_all: np.ndarray, work: _Work) -> None:
    """Backward pass: P(A wins | state) and P(B wins | state) on every layer; then drama and the
    decisive share, weighting each state by its forward probability. ``steps[h]``: hand ``h`` of
    the chain, as the forward pass used it, and ``prob_all`` its outcomes' probabilities; a
    transition out of the last layer into a state no layer holds (its mass fell below ``TOL``) is
    worth 0."""
    layers = sol.layers
    va_next = vb_next = None
    vals = [None] * len(layers)
    for h in range(len(layers) - 1, -1, -1):
        codes = layers[h][0]
        hand = steps[h]
        ended, end_lvl = hand.ended, hand.end_lvl
        # one more place, 0, where the transitions that end the match point (_Hand.nxt)
        va_all, vb_all = np.zeros(codes.size + 1), np.zeros(codes.size + 1)
        va, vb = va_all[:-1], vb_all[:-1]
        if ended.any():
            a, dr, b = hand.ended_win
            va[ended], vb[ended] = a, b
        ta, tb_ = work.get("a", hand.n), work.get("b", hand.n)
        if h + 1 < len(layers):
            _take(va_next, hand.nxt, ta)
            _take(vb_next, hand.nxt, tb_)
        else:
            ta.fill(0.0)
            tb_.fill(0.0)
        if hand.n_end:
            a, dr, b = hand.end_win
            ta[end_lvl], tb_[end_lvl] = a, b
        # each state's sum of probability x value over its outcomes, in their order: a running sum
        # along the state's row of its group's grid adds the same terms in the same order as
        # np.bincount over the transitions (which starts from 0; the terms are never negative)
        for sel, o, k, at in hand.groups:
            for t_, v_ in ((ta, va), (tb_, vb)):
                grid = t_[at:at + sel.size * k].reshape(sel.size, k)
                np.multiply(prob_all[o:o + k], grid, out=grid)
                np.cumsum(grid, axis=1, out=grid)
                v_[sel] += grid[:, -1]
        vals[h] = (va, vb)
        va_next, vb_next = va_all, vb_all
    # each state weighted by its forward probability: drama and decisive share per hand played
    drama = decisive = played = 0.0
    for h, (codes, mass) in enumerate(layers):
        ended = steps[h].ended
        va, vb = vals[h]
        live = ~ended
        m = mass[live]
        a, b = va[live], vb[live]
        top = np.maximum(a, b)
        drama += float((m * (a * (top - a) + b * (top - b))).sum())
        decisive += float((m * (a * (a >= DECIDED_AT) + b * (b >= DECIDED_AT))).sum())
        played += float(m.sum())
    sol.value_start = float(vals[0][0][0]) if vals else float("nan")
    sol.drama = drama / played if played else float("nan")
    sol.decisive_share = decisive / played if played else float("nan")
    sol.layers = []


# --- many solves at once: the bootstrap ----------------------------------------------------------

_BATCH_CELLS = 1 << 24  # states x resamples a batched solve holds at once (every layer's masses: 128 MB)
_BATCH_MAX = 256  # resamples solved at once


@dataclass
class TransitionPlan:
    """A hand's transitions as flat index arrays, for solving many outcome distributions at once:
    each transition's state (``src``) and outcome (``out``, among the tables' outcomes laid end to
    end), in ``_Hand``'s order of the transitions."""

    src: np.ndarray
    out: np.ndarray


def transition_plan(chain: "Chain", h: int) -> TransitionPlan:
    hand = chain.hand(h)
    plans = chain.__dict__.setdefault("plans", {})
    if h not in plans:
        src = np.empty(hand.n, np.int32)
        out = np.empty(hand.n, np.int32)
        for sel, o, k, at in hand.groups:
            src[at:at + sel.size * k] = np.repeat(sel, k)
            out[at:at + sel.size * k] = np.tile(np.arange(o, o + k), sel.size)
        plans[h] = TransitionPlan(src, out)
    return plans[h]


@njit(cache=True)
def _forward_hand(mass, src, out, nxt, prob, change, duration, end_a, end_d, end_b, n_next, acc):
    """One hand of ``solve_batch``'s forward pass over every resample (columns): returns the next
    states' masses; adds to ``acc`` (rows: P(A), P(draw), P(B), lead changes, duration, ended on levels)."""
    B = mass.shape[1]
    nm = np.zeros((n_next, B))
    j = 0
    for t in range(src.size):
        s, o, n = src[t], out[t], nxt[t]
        if n < n_next:
            for b in range(B):
                f = mass[s, b] * prob[o, b]
                nm[n, b] += f
                acc[3, b] += change[t] * f
                acc[4, b] += duration[o] * f
        else:
            for b in range(B):
                f = mass[s, b] * prob[o, b]
                acc[0, b] += end_a[j] * f
                acc[1, b] += end_d[j] * f
                acc[2, b] += end_b[j] * f
                acc[3, b] += change[t] * f
                acc[4, b] += duration[o] * f
                acc[5, b] += f
            j += 1
    return nm


@njit(cache=True)
def _backward_hand(v_next, src, out, nxt, prob, end_v, v):
    """One hand of ``solve_batch``'s backward pass: adds to ``v`` (states x resamples) each state's
    sum over its transitions of probability x the value they lead to (``end_v`` for those that end
    the match on levels; 0 for those into a state no later layer holds)."""
    B = v.shape[1]
    n_next = v_next.shape[0]
    j = 0
    for t in range(src.size):
        s, o, n = src[t], out[t], nxt[t]
        if n < n_next:
            for b in range(B):
                v[s, b] += prob[o, b] * v_next[n, b]
        else:  # ends the match on levels
            x = end_v[j]
            for b in range(B):
                v[s, b] += prob[o, b] * x
            j += 1


def solve_batch(chain: "Chain", prob: np.ndarray, values: bool = True) -> dict[str, np.ndarray]:
    """``solve`` for many outcome distributions at once: ``prob`` (the chain's outcomes x B, each
    column laid out as ``Chain.probabilities``). Returns each figure of ``FIGURES`` as an array of
    B (``clock_share`` None for an untimed match; drama and the decisive share NaN without
    ``values``). Every column moves through the chain's states, a resample's tables keeping some of
    its outcomes; the figures are ``solve``'s up to float rounding (compiled loops over the
    transitions, each over the B columns)."""
    rules = chain.rules
    prob = np.ascontiguousarray(prob, dtype=float)
    B = prob.shape[1]
    mass = np.ones((1, B))
    acc = np.zeros((6, B))
    clock, hands_sum, hands_w, ended_pre = np.zeros(B), np.zeros(B), np.zeros(B), np.zeros((3, B))
    scale = 1 / 100.0 if rules.step == 0 else rules.step / 100.0
    layers, h = [], 0
    limit = rules.cap if rules.cap else 10_000
    while chain.codes[h].size and mass.sum(axis=0).max() > TOL and h <= limit:
        hand, pl_ = chain.hand(h), transition_plan(chain, h)
        layers.append(mass)
        ended = hand.ended
        if ended.any():
            em = mass[ended]
            for i, x in enumerate(hand.ended_win):
                ended_pre[i] += x @ em
            if not (rules.cap and h >= rules.cap):
                clock += em.sum(axis=0)
            hands_sum += h * em.sum(axis=0); hands_w += em.sum(axis=0)
        before = acc[5].copy()
        a, dr, b = (np.asarray(x, float) for x in hand.end_win)
        mass = _forward_hand(mass, pl_.src, pl_.out, hand.nxt, prob, hand.change, chain.duration, a, dr, b,
                             chain.codes[h + 1].size, acc)
        hands_sum += (h + 1) * (acc[5] - before); hands_w += acc[5] - before
        h += 1
    out = {"p_a": acc[0] + ended_pre[0], "p_draw": acc[1] + ended_pre[1], "p_b": acc[2] + ended_pre[2],
           "hands_mean": hands_sum / np.maximum(hands_w, 1e-300), "minutes_mean": acc[4] * scale,
           "clock_share": clock if rules.timed else None, "lead_changes": acc[3],
           "drama": np.full(B, np.nan), "decisive_share": np.full(B, np.nan)}
    if not values:
        return out
    drama, decisive, played = np.zeros(B), np.zeros(B), np.zeros(B)
    va_next = vb_next = None
    for h in range(len(layers) - 1, -1, -1):
        hand, pl_ = chain.hand(h), transition_plan(chain, h)
        S = hand.codes.size
        va, vb = np.zeros((S, B)), np.zeros((S, B))
        if hand.ended.any():
            a, dr, b = hand.ended_win
            va[hand.ended], vb[hand.ended] = np.asarray(a, float)[:, None], np.asarray(b, float)[:, None]
        if h + 1 == len(layers):  # into the next hand's states from the last layer: worth 0 (as _values)
            va_next = vb_next = np.zeros((chain.codes[h + 1].size, B))
        _backward_hand(va_next, pl_.src, pl_.out, hand.nxt, prob, np.asarray(hand.end_win[0], float), va)
        _backward_hand(vb_next, pl_.src, pl_.out, hand.nxt, prob, np.asarray(hand.end_win[2], float), vb)
        live = ~hand.ended
        m, a, b = layers[h][live], va[live], vb[live]
        top = np.maximum(a, b)
        drama += (m * (a * (top - a) + b * (top - b))).sum(axis=0)
        decisive += (m * (a * (a >= DECIDED_AT) + b * (b >= DECIDED_AT))).sum(axis=0)
        played += m.sum(axis=0)
        va_next, vb_next = va, vb
    with np.errstate(invalid="ignore", divide="ignore"):
        out["drama"] = np.where(played > 0, drama / played, np.nan)
        out["decisive_share"] = np.where(played > 0, decisive / played, np.nan)
    return out


# --- the model with its bootstrap -----------------------------------------------------------------

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
    return {"p_a": sol.p_a, "p_draw": sol.p_draw, "p_b": sol.p_b, "hands_mean": sol.hands_mean,
            "minutes_mean": sol.minutes_mean, "clock_share": sol.clock_share, "lead_changes": sol.lead_changes,
            "drama": sol.drama, "decisive_share": sol.decisive_share}


def exact_model(hands: pl.DataFrame, matches: pl.DataFrame, variant: Variant,
                overrides: Mapping[str, Any] | None = None, reps: int = DEFAULT_REPS, seed: int = 0,
                values: bool = True, approximate: bool = False) -> dict:
    """Solve the chain of one cell (one policy pairing) and bootstrap it over deals.

    ``variant``: the rules the hands were played under; ``overrides``: rule changes to re-score
    under: the clock and the duration model (``RESCORABLE``). With ``approximate`` the bands too,
    taking the hands as they fell under the old bands (an approximation the caller names; see the
    module docstring; notebook 04 shows its error beside simulation). Returns
    {"figures": {key: {"value", "low", "high", "n"}}, "hands_dist", "minutes_quantiles",
    "a", "b", "n_deals", "n_hands", "rescored", "unresolved"}. ``values=False`` skips the backward
    pass in the resamples (drama and the decisive share then have no interval; half the time)."""
    if overrides and not approximate:
        check_rescorable(overrides)
    data = hand_data(hands, matches, variant)
    target = variant.with_overrides(dict(overrides), source="--set") if overrides else variant
    if overrides:
        from ..sim.match import hand_cap

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
    boots = _bootstrap(chain, design, data.n_deals, reps if data.n_deals >= 2 else 0, seed, values)
    figs = {}
    for k, v in point.items():
        if v is None:
            figs[k] = {"value": None, "low": None, "high": None, "n": 0, "note": "untimed: no clock"}
            continue
        arr = boots[k]
        arr = arr[~np.isnan(arr)] if arr is not None else np.zeros(0)
        lo, hi = (np.quantile(arr, [0.025, 0.975]) if arr.size >= 2 else (np.nan, np.nan))
        figs[k] = {"value": float(v), "low": None if np.isnan(lo) else float(lo),
                   "high": None if np.isnan(hi) else float(hi), "n": data.n_deals}
    return {"a": data.a_policy, "b": data.b_policy, "n_deals": data.n_deals, "n_hands": int(data.deal.size),
            "rescored": dict(overrides or {}), "figures": figs, "hands_dist": sol.hands_dist.tolist(),
            "minutes_quantiles": {q: sol.minutes_quantile(q) for q in (0.1, 0.5, 0.9)} if sol.minutes_dist else None,
            "unresolved": sol.unresolved, "reps": reps, "assumptions": design.assumptions, "level_check": check}


def _bootstrap(chain: Chain, design: Design, n_deals: int, reps: int, seed: int, values: bool) -> dict:
    """Each figure over ``reps`` resamples of the deals (an array per figure; None for one without
    a value). A resample is a weight vector over the deals (how often each was drawn); the outcome
    tables are its weighted counts (``Design.probabilities``), and the chain is solved for a batch of
    resamples at once (``solve_batch``)."""
    keys = [k for k, _ in FIGURES]
    if reps <= 0:
        return {k: None for k in keys}
    rng = np.random.default_rng(seed)
    states = sum(c.size for c in chain.codes)
    batch = max(1, min(reps, _BATCH_MAX, _BATCH_CELLS // max(states, 1)))
    parts: dict[str, list] = {k: [] for k in keys}
    for start in range(0, reps, batch):
        k = min(batch, reps - start)
        pick = rng.integers(0, n_deals, size=(k, n_deals))
        w = np.bincount((pick + (np.arange(k) * n_deals)[:, None]).ravel(), minlength=k * n_deals)
        res = solve_batch(chain, design.probabilities(w.reshape(k, n_deals).astype(float)), values)
        for key in keys:
            parts[key].append(None if res[key] is None else res[key])
    return {key: None if any(p is None for p in v) else np.concatenate(v) for key, v in parts.items()}


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
    se = float(np.sqrt((infl ** 2).sum() * g / (g - 1))) if g > 1 else float("nan")
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
    from .stats import cluster_bootstrap, holm, normal_p

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
            cols += [np.bincount(data.deal[m], minlength=data.n_deals).astype(float),
                     np.bincount(data.deal[m], weights=net[m], minlength=data.n_deals),
                     np.bincount(data.deal[m], weights=sw[m], minlength=data.n_deals)]
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
    return {"levels": [RANK_NAMES[r] for r in POINT_LEVELS], "teams": teams, "reps": reps,
            "separate": bool((adj < LEVEL_CHECK_ALPHA).any()) if ps else False}


def exact_results(path, overrides: Mapping[str, Any] | None = None, reps: int = DEFAULT_REPS, seed: int = 0,
                  cells: Sequence[str] | None = None, values: bool = True, approximate: bool = False) -> list[dict]:
    """``exact_model`` for every cell of a results folder (one row per cell, with its variant);
    ``cells``: only these (each must be one of the run's)."""
    from ..sim.limits import check_int, check_seed
    from ..sim.results import load

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
        row = exact_model(h, m, v, overrides, reps, seed, values, approximate)
        row["cell"] = cid
        row["variant"] = v.id
        rows.append(row)
    return rows


# --- simulated matches beside it ------------------------------------------------------------------


def simulated_figures(hands: pl.DataFrame, matches: pl.DataFrame, variant: Variant, seed: int = 0) -> dict:
    """The figures of ``FIGURES`` that simulated matches give directly, with 95% intervals over
    deals (``simsuite.analysis.metrics.summarise``)."""
    from .metrics import summarise

    row = summarise(hands, matches, by="cell", variants={variant.id: variant, **{c: variant for c in
                                                                                 matches["cell"].unique().to_list()}},
                    seed=seed)[0]
    out = {"hands_mean": row["hands_per_match"], "minutes_mean": row["minutes_per_match"],
           "clock_share": row["clock_share"], "lead_changes": row["lead_changes"]}
    if row["policy_a_win"]["value"] is not None:
        out.update(p_a=row["policy_a_win"], p_draw=row["pair_draw"], p_b=row["policy_b_win"])
    else:  # equal policies: team A is NS
        from .metrics import count_once, deal_ids
        from .stats import cluster_share

        _, m, _ = count_once(hands, matches)
        w = m["winner"].to_numpy()
        dl = deal_ids(m)
        for k, x in (("p_a", w == 0), ("p_draw", w < 0), ("p_b", w == 1)):
            e = cluster_share(x.astype(float), dl, 2000, seed)
            out[k] = {"value": e.value, "low": e.low, "high": e.high, "n": e.n}
    return out


def agreement(exact: dict, simulated: dict) -> dict:
    """Per figure: the difference exact - simulated and z = difference / combined SE (each SE
    from its 95% interval's half-width / 1.96). A description of the difference only: failing to
    find one is no evidence of agreement; the validation tests equivalence (``equivalence``)."""
    out = {}
    for k, e in exact.items():
        s = simulated.get(k)
        if not s or e.get("value") is None or s.get("value") is None or e.get("low") is None or s.get("low") is None:
            continue
        se = math.hypot((e["high"] - e["low"]) / 3.92, (s["high"] - s["low"]) / 3.92)
        diff = e["value"] - s["value"]
        out[k] = {"diff": diff, "z": diff / se if se > 0 else (0.0 if diff == 0 else math.inf),
                  "agree": abs(diff) <= 1.96 * se + 1e-12}
    return out


# --- text -----------------------------------------------------------------------------------------


def _fmt(d: dict | None, pct: bool = False) -> str:
    if not d or d.get("value") is None:
        return "n/a"
    k, u = (100.0, "%") if pct else (1.0, "")
    if d.get("low") is None:
        return f"{d['value'] * k:.2f}{u} n={d['n']:,}"
    return f"{d['value'] * k:.2f}{u} [{d['low'] * k:.2f}, {d['high'] * k:.2f}] n={d['n']:,}"


_PCT = {"p_a", "p_draw", "p_b", "clock_share", "decisive_share"}


def format_exact(rows: list[dict]) -> str:
    from ..report.text import table

    if not rows:
        return "no cells"
    header = ["figure"] + [r["cell"] for r in rows]
    body = [["team A / team B"] + [f"{r['a']} / {r['b']}" for r in rows],
            ["deals (units), hands"] + [f"{r['n_deals']:,}, {r['n_hands']:,}" for r in rows]]
    for key, label in FIGURES:
        body.append([label] + [_fmt(r["figures"][key], key in _PCT) for r in rows])
    text = table(header, body, max_width=60)
    reps = rows[0]["reps"]
    notes = [f"Exact solution of the match chain (docs/metrics.md); 95% intervals: percentile bootstrap over deals "
             f"({reps:,} resamples of the per-hand distributions), n = deals."]
    if 0 < reps < MIN_REPS:
        notes.append(f"ROUGH INTERVALS: {reps:,} resamples, fewer than {MIN_REPS:,}; their 95% coverage is not assured.")
    for r in rows:
        notes += [f"{r['cell']}: assumed: {a}." for a in r.get("assumptions", [])]
        c = r.get("level_check")
        if c:
            notes.append(f"{r['cell']}: " + format_level_check(c))
    if rows[0]["rescored"]:
        notes.append("Re-scored with " + ", ".join(f"{k}={v}" for k, v in rows[0]["rescored"].items()) +
                     ": an approximation (hands as the policies played them under the run's rules; a policy that "
                     "adapts to the bands or the clock would play differently).")
    left = max(r["unresolved"] for r in rows)
    if left > 1e-9:
        notes.append(f"Unresolved probability mass (matches still running at the cap): {left:.2e}.")
    return text + "\n\n" + "\n".join(notes)


def format_level_check(c: dict) -> str:
    """One line: the level-independence check (``level_check``) and what the chain did with it."""
    parts = []
    for team, t in c["teams"].items():
        if "net_levels" not in t:
            parts.append(f"team {team}: {t['note']} ({t['hands_point']:,} hands at {'/'.join(c['levels'])})")
            continue
        nl, dp = t["net_levels"], t["deal_passes"]
        parts.append(f"team {team} ({t['hands_point']:,} hands there, {t['hands_other']:,} at other levels): "
                     f"net levels {nl['value']:+.3f} [{nl['low']:+.3f}, {nl['high']:+.3f}] (Holm p {nl['p_holm']:.3f}), "
                     f"deal passes {dp['value']:+.3f} [{dp['low']:+.3f}, {dp['high']:+.3f}] (Holm p {dp['p_holm']:.3f}), "
                     f"n={nl['n']:,} deals")
    verdict = ("they differ: those levels have their own tables" if c["separate"] else
               "no difference found at 5%: all plain levels pooled")
    return (f"levels {'/'.join(c['levels'])} against the other plain levels, difference (there - elsewhere), "
            f"bootstrap over deals ({c['reps']:,} resamples): " + "; ".join(parts) + f"; {verdict}.")


def cli(args) -> int:
    """``simsuite exact RESULTS [--set KEY=VALUE ...] [--json] [--reps N] [--cell ID]``."""
    import json

    from ..sim.spec import parse_overrides

    overrides = parse_overrides(args.overrides) if args.overrides else None
    rows = exact_results(args.results, overrides, reps=args.reps, seed=args.seed, cells=args.cell or None)
    if args.json:
        print(json.dumps(rows, indent=2, default=str))
    else:
        print(format_exact(rows))
    return 0


__all__ = ["exact_model", "exact_results", "solve", "solve_batch", "Rules", "hand_data", "rescore",
           "simulated_figures", "agreement", "equivalence", "validation_rows", "validation_table", "level_check",
           "format_exact", "FIGURES", "DECIDED_AT", "VALIDATION_MARGINS"]


# --- validation against simulated matches ---------------------------------------------------------


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
_VALIDATION_NAMES = {"p_a": "A wins", "p_draw": "draw", "p_b": "B wins", "hands_mean": "hands",
                     "minutes_mean": "minutes", "clock_share": "ended by clock", "lead_changes": "lead changes"}


def equivalence(exact: dict, simulated: dict, margins: Mapping[str, tuple] = VALIDATION_MARGINS) -> dict:
    """Per figure of ``margins``: the difference exact - simulated, its SE (the two 95% intervals'
    half-widths / 1.96, combined as independent), the margin (absolute, or relative to the simulated
    value), TOST's p of "|true difference| >= margin" and whether it is below ``VALIDATION_ALPHA``."""
    from .stats import Z95, tost_p

    out = {}
    for k, (kind, m) in margins.items():
        e, s = exact.get(k), simulated.get(k)
        if not e or not s or e.get("value") is None or s.get("value") is None or e.get("low") is None \
                or s.get("low") is None:
            continue
        se = math.hypot((e["high"] - e["low"]) / (2 * Z95), (s["high"] - s["low"]) / (2 * Z95))
        margin = m * abs(s["value"]) if kind == "rel" else m
        diff = e["value"] - s["value"]
        p = tost_p(diff, se, margin)
        out[k] = {"diff": diff, "se": se, "margin": margin, "p_tost": p, "equivalent": p < VALIDATION_ALPHA}
    return out


def validation_rows(model_run, sim_run, overrides: Mapping[str, Any] | None = None, reps: int = DEFAULT_REPS,
                    seed: int = 0, sim_cells: Mapping[str, str] | None = None, cells: Sequence[str] | None = None,
                    approximate: bool = False, margins: Mapping[str, tuple] = VALIDATION_MARGINS) -> list[dict]:
    """Out-of-sample validation: per cell and figure, the exact model built from ``model_run``'s hands
    (re-scored under ``overrides`` if given; ``approximate``: the bands too, see ``exact_model``)
    beside the matches simulated in ``sim_run``, which must share no seed with it (independent
    deals), with the TOST equivalence test of ``equivalence`` at ``margins``. ``sim_cells`` maps a
    model cell to the simulated cell to compare it with (default: the same id)."""
    from ..sim.results import load

    s = load(sim_run)
    sh, sm = s.hands.collect(), s.matches.collect()
    model_seeds = set(load(model_run).matches.select("seed").unique().collect()["seed"].to_list())
    shared = model_seeds & set(sm["seed"].unique().to_list())
    if shared:
        raise SimsuiteError(f"validation: the simulated run shares seed(s) {sorted(shared)} with the model's run, so "
                            f"the comparison would be in-sample; simulate the matches with another --seed")
    rows = exact_results(model_run, overrides, reps=reps, seed=seed, cells=cells, values=False, approximate=approximate)
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


def validation_table(model_run, sim_run, overrides: Mapping[str, Any] | None = None, reps: int = DEFAULT_REPS,
                     seed: int = 0, sim_cells: Mapping[str, str] | None = None,
                     cells: Sequence[str] | None = None, approximate: bool = False,
                     margins: Mapping[str, tuple] = VALIDATION_MARGINS) -> str:
    """``validation_rows`` as a markdown table: per cell and figure the two estimates, the difference
    with its margin and TOST's p; "yes" where the two are shown equivalent at 5%."""
    rows = validation_rows(model_run, sim_run, overrides, reps, seed, sim_cells, cells, approximate, margins)
    out = ["| cell | figure | exact model | simulated | difference | margin | TOST p | equivalent |",
           "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        pct = r["figure"] in _PCT
        k = 100.0 if pct else 1.0
        if "p_tost" in r:
            tail = (f"{r['diff'] * k:+.2f} | ±{r['margin'] * k:.2f} | {r['p_tost']:.3f} | "
                    f"{'yes' if r['equivalent'] else '**not shown**'}")
        else:
            tail = " | | | no interval"
        out.append(f"| {r['cell']} | {_VALIDATION_NAMES[r['figure']]} | {_fmt(r['exact'], pct)} | "
                   f"{_fmt(r['simulated'], pct)} | {tail} |")
    out.append("")
    out.append(f"Margins fixed in advance (analysis.exact.VALIDATION_MARGINS): outcome shares and the clock share "
               f"±4 points, hands and minutes ±2% of the simulated value, lead changes ±0.1; TOST at "
               f"{VALIDATION_ALPHA:.0%}; exact intervals from {reps:,} bootstrap resamples.")
    return "\n".join(out)


if __name__ == "__main__":  # python -m simsuite.analysis.exact MODEL_RUN SIM_RUN [REPS [KEY=VALUE ...]]
    import sys

    from ..sim.spec import parse_overrides

    reps = int(sys.argv[3]) if len(sys.argv) > 3 else DEFAULT_REPS
    ov = parse_overrides(sys.argv[4:]) if len(sys.argv) > 4 else None
    print(validation_table(sys.argv[1], sys.argv[2], ov, reps=reps))
