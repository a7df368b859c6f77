"""The chain solved: one outcome distribution (``solve``, forward and backward) or many at once (``solve_batch``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from .chain import Chain, ChainHand, Work
from .hands import Rules, Table

DECIDED_AT = 0.9  # the decisiveness threshold on the eventual winner's P(win | state)
TOL = 1e-12  # mass below which propagation stops (reported as "unresolved")


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


def _take(a: np.ndarray, index: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``a[index]`` written into ``out``. The indices are always in range; mode "clip" because with
    ``out`` numpy's default mode ("raise") writes into a fresh copy of ``out`` first."""
    return np.take(a, index, out=out, mode="clip")


def solve(tables: Mapping[tuple, Table], rules: Rules, values: bool = True, chain: Chain | None = None) -> Solution:
    """Propagate the start state's probability hand by hand until every match has ended (to
    ``TOL``), then (``values``) solve P(win | state) backwards for drama and decisiveness.

    ``chain``: the states and transitions found by an earlier solve under ``rules`` (``Chain``),
    to reuse when ``tables`` keep only outcomes of its tables (a bootstrap resample): the figures
    are then the same up to float rounding (the states this solve cannot reach add zeros)."""
    if chain is not None and not chain.times:
        raise ValueError(
            "solve needs a chain with its states' times (Chain(times=True)): it gives the minutes' distribution"
        )
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
            p_a += float((em * a).sum())
            p_d += float((em * dr).sum())
            p_b += float((em * b).sum())
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
            grid = flow[at : at + sel.size * k].reshape(sel.size, k)
            np.multiply(mass[sel][:, None], prob_all[o : o + k], out=grid)
            np.multiply(grid, chain.duration[o : o + k], out=spent[at : at + sel.size * k].reshape(sel.size, k))
        lead += float(flow[hand.change].sum())
        if rules.step == 0:
            minutes_mean += float(spent.sum()) / 100.0
        else:
            minutes_mean += float(spent.sum()) * rules.step / 100.0
        if hand.n_end:
            fm = flow[hand.end_lvl]
            part = work.get("part", fm.size)
            a, dr, b = hand.end_win
            p_a += float(np.multiply(fm, a, out=part).sum())
            p_d += float(np.multiply(fm, dr, out=part).sum())
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
        mass = np.bincount(hand.nxt, weights=flow, minlength=codes.size + 1)[: codes.size]
        if values:  # what the backward pass needs of this hand (_values)
            steps.append(hand)
        h += 1
    unresolved = float(mass.sum()) if codes.size else 0.0
    dist = np.array(hands_dist)
    sol = Solution(
        p_a,
        p_d,
        p_b,
        dist,
        minutes_mean,
        minutes_dist,
        clock if rules.timed else None,
        cap,
        lead,
        0.0,
        0.0,
        unresolved,
        p_a,
        layers,
    )
    if values:
        _values(sol, steps, prob_all, work)
    return sol


def _add(lst, i, v):
    while len(lst) <= i:
        lst.append(0.0)
    lst[i] += v


def _values(sol: Solution, steps: Sequence[ChainHand], prob_all: np.ndarray, work: Work) -> None:
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
        # one more place, 0, where the transitions that end the match point (ChainHand.nxt)
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
                grid = t_[at : at + sel.size * k].reshape(sel.size, k)
                np.multiply(prob_all[o : o + k], grid, out=grid)
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


@dataclass
class TransitionPlan:
    """A hand's transitions as flat index arrays, for solving many outcome distributions at once:
    each transition's state (``src``) and outcome (``out``, among the tables' outcomes laid end to
    end), in ``ChainHand``'s order of the transitions."""

    src: np.ndarray
    out: np.ndarray


def transition_plan(chain: Chain, h: int) -> TransitionPlan:
    hand = chain.hand(h)
    plans = chain.__dict__.setdefault("plans", {})
    if h not in plans:
        src = np.empty(hand.n, np.int32)
        out = np.empty(hand.n, np.int32)
        for sel, o, k, at in hand.groups:
            src[at : at + sel.size * k] = np.repeat(sel, k)
            out[at : at + sel.size * k] = np.tile(np.arange(o, o + k), sel.size)
        plans[h] = TransitionPlan(src, out)
    return plans[h]


@dataclass
class GroupPlan:
    """A hand's groups of transitions (``ChainHand.groups``) as flat arrays, for ``solve_batch``'s
    compiled passes: the groups' states laid end to end (``sel``), group ``g``'s from ``ptr[g]`` to
    ``ptr[g + 1]``, its first outcome ``first[g]``, its outcomes ``k[g]`` and its first transition
    ``at[g]``; and the winners (P(A), P(draw), P(B)) of the transitions that end the match on levels."""

    sel: np.ndarray
    ptr: np.ndarray
    first: np.ndarray
    k: np.ndarray
    at: np.ndarray
    end_a: np.ndarray
    end_d: np.ndarray
    end_b: np.ndarray


def group_plan(chain: Chain, h: int) -> GroupPlan:
    hand = chain.hand(h)
    plans = chain.__dict__.setdefault("group_plans", {})
    if h not in plans:
        with chain.lock:
            if h not in plans:
                g = hand.groups
                ptr = np.zeros(len(g) + 1, np.int64)
                ptr[1:] = np.cumsum([sel.size for sel, *_ in g])
                plans[h] = GroupPlan(
                    np.concatenate([sel for sel, *_ in g]).astype(np.int64) if g else np.zeros(0, np.int64),
                    ptr,
                    np.array([o for _, o, _, _ in g], np.int64),
                    np.array([k for _, _, k, _ in g], np.int64),
                    np.array([at for *_, at in g], np.int64),
                    *(np.ascontiguousarray(x, dtype=float) for x in hand.end_win),
                )
    return plans[h]


@njit(cache=True, nogil=True)
def _forward_batch(mass, sel, ptr, first, k_of, at_of, nxt, change, prob, duration, end_a, end_d, end_b, n_next, acc):
    """One hand of ``solve_batch``'s forward pass over every resample (columns), group by group and
    state by state (``GroupPlan``): returns the next states' masses; adds to ``acc`` (rows: P(A),
    P(draw), P(B), lead changes, duration, ended on levels). A state's mass and an outcome's
    probabilities are rows of B, so each transition is one pass along contiguous rows; the duration
    is added per state, as its mass times its group's mean duration under each resample."""
    B = mass.shape[1]
    nm = np.zeros((n_next, B))
    mean_dur = np.empty(B)
    j = 0
    for g in range(first.size):
        o0, k, at = first[g], k_of[g], at_of[g]
        mean_dur[:] = 0.0
        for jj in range(k):
            pr = prob[o0 + jj]
            du = duration[o0 + jj]
            for b in range(B):
                mean_dur[b] += pr[b] * du
        for i in range(ptr[g], ptr[g + 1]):
            ms = mass[sel[i]]
            for b in range(B):
                acc[4, b] += ms[b] * mean_dur[b]
            t = at + (i - ptr[g]) * k
            for jj in range(k):
                pr = prob[o0 + jj]
                n = nxt[t]
                if n < n_next:
                    row = nm[n]
                    for b in range(B):
                        row[b] += ms[b] * pr[b]
                    if change[t]:
                        for b in range(B):
                            acc[3, b] += ms[b] * pr[b]
                else:  # ends the match on levels
                    ea, ed, eb = end_a[j], end_d[j], end_b[j]
                    ch = change[t]
                    j += 1
                    for b in range(B):
                        f = ms[b] * pr[b]
                        acc[0, b] += ea * f
                        acc[1, b] += ed * f
                        acc[2, b] += eb * f
                        acc[5, b] += f
                        if ch:
                            acc[3, b] += f
                t += 1
    return nm


@njit(cache=True, nogil=True)
def _backward_batch(va_next, vb_next, sel, ptr, first, k_of, at_of, nxt, prob, end_a, end_b, va, vb):
    """One hand of ``solve_batch``'s backward pass, P(A wins | state) and P(B wins | state) at once:
    adds to ``va`` and ``vb`` (states x resamples) each state's sum over its transitions, in their
    order, of probability x the value they lead to (``end_a``, ``end_b`` for those that end the
    match on levels; 0 for those into a state no later layer holds)."""
    B = prob.shape[1]
    n_next = va_next.shape[0]
    j = 0
    for g in range(first.size):
        o0, k, at = first[g], k_of[g], at_of[g]
        for i in range(ptr[g], ptr[g + 1]):
            s = sel[i]
            xa, xb = va[s], vb[s]
            t = at + (i - ptr[g]) * k
            for jj in range(k):
                pr = prob[o0 + jj]
                n = nxt[t]
                if n < n_next:
                    ra, rb = va_next[n], vb_next[n]
                    for b in range(B):
                        xa[b] += pr[b] * ra[b]
                    for b in range(B):
                        xb[b] += pr[b] * rb[b]
                else:  # ends the match on levels
                    ea, eb = end_a[j], end_b[j]
                    j += 1
                    for b in range(B):
                        xa[b] += pr[b] * ea
                    for b in range(B):
                        xb[b] += pr[b] * eb
                t += 1


@njit(cache=True, nogil=True)
def _drama_batch(mass, va, vb, ended, decided_at, drama, decisive, played):
    """Adds one layer's live states to drama, the decisive share's numerator and the hands played,
    per resample (``_values``' sums, state by state in the same order)."""
    B = mass.shape[1]
    for s in range(mass.shape[0]):
        if ended[s]:
            continue
        m, a, c = mass[s], va[s], vb[s]
        for b in range(B):
            top = max(a[b], c[b])
            drama[b] += m[b] * (a[b] * (top - a[b]) + c[b] * (top - c[b]))
            decisive[b] += m[b] * (a[b] * (a[b] >= decided_at) + c[b] * (c[b] >= decided_at))
            played[b] += m[b]


def solve_batch(chain: Chain, prob: np.ndarray, values: bool = True) -> dict[str, np.ndarray]:
    """``solve`` for many outcome distributions at once: ``prob`` (the chain's outcomes x B, each
    column laid out as ``Chain.probabilities``). Returns each figure of ``FIGURES`` as an array of
    B (``clock_share`` None for an untimed match; drama and the decisive share NaN without
    ``values``). Every column moves through the chain's states, a resample's tables keeping some of
    its outcomes; the figures are ``solve``'s up to float rounding (compiled passes over the
    transitions, each along the B columns). ``chain`` may be one without times (``Chain(times=False)``:
    fewer states, the same figures); the compiled passes release the GIL, so threads can solve
    batches on one chain at once."""
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
        hand, gp = chain.hand(h), group_plan(chain, h)
        layers.append(mass)
        ended = hand.ended
        if ended.any():
            em = mass[ended]
            for i, x in enumerate(hand.ended_win):
                ended_pre[i] += x @ em
            if not (rules.cap and h >= rules.cap):
                clock += em.sum(axis=0)
            hands_sum += h * em.sum(axis=0)
            hands_w += em.sum(axis=0)
        before = acc[5].copy()
        mass = _forward_batch(
            mass,
            gp.sel,
            gp.ptr,
            gp.first,
            gp.k,
            gp.at,
            hand.nxt,
            hand.change,
            prob,
            chain.duration,
            gp.end_a,
            gp.end_d,
            gp.end_b,
            chain.codes[h + 1].size,
            acc,
        )
        hands_sum += (h + 1) * (acc[5] - before)
        hands_w += acc[5] - before
        h += 1
    out = {
        "p_a": acc[0] + ended_pre[0],
        "p_draw": acc[1] + ended_pre[1],
        "p_b": acc[2] + ended_pre[2],
        "hands_mean": hands_sum / np.maximum(hands_w, 1e-300),
        "minutes_mean": acc[4] * scale,
        "clock_share": clock if rules.timed else None,
        "lead_changes": acc[3],
        "drama": np.full(B, np.nan),
        "decisive_share": np.full(B, np.nan),
    }
    if not values:
        return out
    drama, decisive, played = np.zeros(B), np.zeros(B), np.zeros(B)
    va_next = vb_next = None
    for h in range(len(layers) - 1, -1, -1):
        hand, gp = chain.hand(h), group_plan(chain, h)
        S = hand.codes.size
        va, vb = np.zeros((S, B)), np.zeros((S, B))
        if hand.ended.any():
            a, dr, b = hand.ended_win
            va[hand.ended], vb[hand.ended] = np.asarray(a, float)[:, None], np.asarray(b, float)[:, None]
        if h + 1 == len(layers):  # into the next hand's states from the last layer: worth 0 (as _values)
            va_next = vb_next = np.zeros((chain.codes[h + 1].size, B))
        _backward_batch(
            va_next, vb_next, gp.sel, gp.ptr, gp.first, gp.k, gp.at, hand.nxt, prob, gp.end_a, gp.end_b, va, vb
        )
        _drama_batch(layers[h], va, vb, hand.ended, DECIDED_AT, drama, decisive, played)
        va_next, vb_next = va, vb
    with np.errstate(invalid="ignore", divide="ignore"):
        out["drama"] = np.where(played > 0, drama / played, np.nan)
        out["decisive_share"] = np.where(played > 0, decisive / played, np.nan)
    return out
