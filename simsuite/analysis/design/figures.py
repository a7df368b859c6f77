"""The design's figures: the exact match model re-scored per parameter set, with delta-method intervals.

A figure of the exact model is a smooth function F(p) of the per-hand outcome distributions p, and
p is a ratio of sums over deals (each deal's hands of each condition and outcome). Its standard
error is the delta method's (the infinitesimal jackknife): the influence of deal i is
IF_i = sum_o dF/dp_o (c_io - p_o m_ik(o)) / M_k(o) (c: the deal's hands with outcome o, m: its
hands of o's condition, M: all hands of that condition), and SE^2 = sum_i IF_i^2, the variance a
bootstrap over deals estimates, without resampling. dF/dp comes from one backward pass over the
chain (each figure is an expected sum of rewards, so dF/dp_o = sum over the states that draw from
o's condition of P(state) x (o's reward + the value of the state o leads to)). Sets of one played
cell whose rules differ only in when the clock stops the match (match_minutes, no_new_hand_minutes,
without a warning) share one chain, built under the latest stop: a set ends its states at its own.
Per-hand figures come from the simulated hands (``metrics.summarise``, ``BOOT_REPS`` resamples).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from statistics import NormalDist

import numpy as np
import polars as pl
from numba import njit

from ...engine.names import pair_text
from ...errors import SimsuiteError
from .spec import METRIC_BY_KEY, DesignSpec, defined

BOOT_REPS = 1_000  # bootstrap resamples wherever a figure's interval is a bootstrap's (simulated hands, fallback)
Z95 = NormalDist().inv_cdf(0.975)
# the figures, as columns of the backward pass
_COLS = ("p_a", "p_draw", "p_b", "hands_mean", "minutes_mean", "clock_share", "lead_changes")


def _fig(d: dict | None, source: str) -> dict | None:
    if not d or d.get("value") is None:
        return None
    out = {
        "value": float(d["value"]),
        "low": d.get("low"),
        "high": d.get("high"),
        "n": int(d.get("n") or 0),
        "source": source,
    }
    if d.get("low") is not None:  # the standard error: the delta method's, else from the 95% interval
        out["se"] = float(d["se"]) if d.get("se") is not None else (d["high"] - d["low"]) / (2 * Z95)
    return out


def _stop_x100(rules) -> int | None:
    """The elapsed time at which a timed match without a warning stops before a new hand (the
    only thing such sets of one played cell change in the chain); None when the set cannot share."""
    if not rules.timed or rules.warn_x100 > 0 or rules.cap:
        return None
    return rules.match_x100 - rules.no_new_x100 if rules.no_new_x100 > 0 else rules.match_x100


def counts(data, rules) -> tuple[dict, np.ndarray, np.ndarray] | None:
    """The exact model's outcome tables of ``data`` under ``rules`` and, per deal, its hands of each
    outcome (deals x outcomes, the outcomes laid end to end as the chain lays them) and of each
    outcome's condition (the same shape). (A caller given None bootstraps instead.)"""
    from .. import exact as X

    d = X.outcome_design(data, rules)
    c = np.asarray(d.counts, float)
    m = np.empty_like(c)
    for k in X.KEYS:
        lo, hi = d.bounds[k]
        m[:, lo:hi] = c[:, lo:hi].sum(axis=1, keepdims=True)
    return d.tables, c, m


def _solve_with_gradient(chain, rules, prob: np.ndarray, stop: int | None, cols: Sequence[int]):
    """The figures of ``_COLS`` (point values, a forward pass), and the gradient of those numbered
    ``cols`` in the outcomes' probabilities (outcomes x len(cols), a backward pass), propagating
    through ``chain`` with the match also stopped before a hand once elapsed time reaches ``stop``
    (None: the chain's own rules only). Also the probability that the match ended (not unresolved)."""
    from .. import exact as X

    nf = len(_COLS)
    fa, fd, fb, fh, fmin, fclk, flead = range(nf)
    dur = chain.duration / 100.0 if rules.step == 0 else chain.duration * rules.step / 100.0
    dur = np.ascontiguousarray(dur, dtype=float)
    prob = np.ascontiguousarray(prob, dtype=float)
    mass = np.array([1.0])
    total = np.zeros(nf)
    done = 0.0
    layers = []  # per hand: (hand, live mass, ended mask, terminal rewards of the ended states)
    h = 0
    while chain.codes[h].size and mass.sum() > X.TOL and h <= 10_000:
        hand = chain.hand(h)
        codes = chain.codes[h]
        ended = hand.ended
        if stop is not None:
            t = X.decode_states(codes)[5]
            ended = ended | (rules.x100(t, h) >= stop)
        term = np.zeros((int(ended.sum()), nf))
        if ended.any():
            la, lb, d, _, _, _ = X.decode_states(codes[ended])
            a, dr, b = X.winner_probs(la, lb, d, rules)
            term[:, fa], term[:, fd], term[:, fb], term[:, fh] = a, dr, b, h
            if rules.timed and not (rules.cap and h >= rules.cap):
                term[:, fclk] = 1.0
            em = mass[ended]
            total += em @ term
            done += float(em.sum())
        live = np.where(ended, 0.0, mass)
        # the hand's transitions in one compiled pass (exact_model's batched solver, one column):
        # acc gains P(A), P(draw), P(B) of the ends on levels, lead changes, minutes, the mass ended
        plan, acc = X.transition_plan(chain, h), np.zeros(6)
        a, dr, b = (np.asarray(x, float) for x in hand.end_win)
        mass = _forward_hand(
            live, plan.src, plan.out, hand.nxt, prob, hand.change, dur, a, dr, b, chain.codes[h + 1].size, acc
        )
        total[fa] += acc[0]
        total[fd] += acc[1]
        total[fb] += acc[2]
        total[flead] += acc[3]
        total[fmin] += acc[4]
        total[fh] += (h + 1) * acc[5]
        done += acc[5]
        layers.append((hand, live, ended, term))
        h += 1
    # backward: the value of each state (expected rewards to come) for the figures of ``cols``, and
    # their gradient, every figure at once (values as states x figures), one compiled pass over each
    # hand's transitions (``_gradient_hand``)
    cols = list(cols)
    nc = len(cols)
    grad = np.zeros((prob.size, nc))
    if not nc:
        return total, grad, done
    pos = {c: i for i, c in enumerate(cols)}
    ends = [(pos[c], c) for c in (fa, fd, fb, fh) if c in pos]
    v_next = np.zeros((1, nc))
    for h in range(len(layers) - 1, -1, -1):
        hand, live, ended, term = layers[h]
        plan = X.transition_plan(chain, h)
        end_rw = np.zeros((hand.n_end, nc))
        if hand.n_end and ends:
            a, dr, b = hand.end_win
            reward = {fa: a, fd: dr, fb: b, fh: h + 1}
            for ci, c in ends:
                end_rw[:, ci] = reward[c]
        v = np.zeros((ended.size + 1, nc))
        _gradient_hand(
            v_next,
            plan.src,
            plan.out,
            hand.nxt,
            prob,
            hand.change,
            hand.end_lvl,
            end_rw,
            dur,
            np.ascontiguousarray(live, dtype=float),
            pos.get(flead, -1),
            pos.get(fmin, -1),
            v,
            grad,
        )
        v[np.flatnonzero(ended)] = term[:, cols]
        v_next = v
    return total, grad, done


@njit(cache=True)
def _forward_hand(mass, src, out, nxt, prob, change, duration, end_a, end_d, end_b, n_next, acc):
    """One hand of ``_solve_with_gradient``'s forward pass (``exact.solve._forward_hand`` for one
    distribution, passing over the states no mass reaches): the next states' masses; adds to
    ``acc`` P(A), P(draw), P(B) of the ends on levels, lead changes, minutes and the mass ended."""
    nm = np.zeros(n_next)
    j = 0
    for t in range(src.size):
        s, o, n = src[t], out[t], nxt[t]
        m = mass[s]
        if m == 0.0:
            if n >= n_next:
                j += 1
            continue
        f = m * prob[o]
        if n < n_next:
            nm[n] += f
        else:
            acc[0] += end_a[j] * f
            acc[1] += end_d[j] * f
            acc[2] += end_b[j] * f
            acc[5] += f
            j += 1
        acc[3] += change[t] * f
        acc[4] += duration[o] * f
    return nm


@njit(cache=True)
def _gradient_hand(v_next, src, out, nxt, prob, change, end_lvl, end_rw, dur, live, lead_c, min_c, v, grad):
    """One hand of ``_solve_with_gradient``'s backward pass, transition by transition (``src``: its
    state, ``out``: its outcome, ``nxt``: the state it leads to, past ``v_next``'s rows: worth 0):
    the value it leads to for each figure (``v_next``'s row, plus 1 for a lead change on the
    ``lead_c`` figure, the rewards ``end_rw`` of an end on levels, the outcome's duration on the
    ``min_c`` figure) adds probability x value to its state's row of ``v`` and live mass x value to
    its outcome's row of ``grad``."""
    nc = v.shape[1]
    last = v_next.shape[0] - 1
    j = 0
    for t in range(src.size):
        s, o, n = src[t], out[t], nxt[t]
        if n > last:
            n = last
        p, w, e = prob[o], live[s], end_lvl[t]
        if w == 0.0:  # a state no mass reaches (or ended): each transition into it has no probability
            if e:  # or none from a live state, so its value adds nothing to any gradient that is used
                j += 1
            continue
        for c in range(nc):
            q = v_next[n, c]
            if c == lead_c and change[t]:
                q += 1.0
            if e:
                q += end_rw[j, c]
            if c == min_c:
                q += dur[o]
            v[s, c] += p * q
            grad[o, c] += w * q
        if e:
            j += 1


def exact_sets(
    h: pl.DataFrame, m: pl.DataFrame, variant, rescores: list[dict], need: Sequence[str] = _COLS
) -> list[dict | None]:
    """The exact model's figures of one played cell and pairing re-scored under each of ``rescores``
    (one dict of clock keys per parameter set), each of ``need`` with its delta-method 95% interval
    and SE (the others with no interval); None for a set the model cannot solve. Sets that can share
    a chain share it (see above)."""
    from .. import exact as X

    try:
        base = X.hand_data(h, m, variant)
    except SimsuiteError:
        return [None] * len(rescores)
    out: list[dict | None] = [None] * len(rescores)
    groups: dict = {}
    for i, rs in enumerate(rescores):
        target = variant.with_overrides(dict(rs), source="--set") if rs else variant
        rules = X.Rules.of(target)
        stop = _stop_x100(rules)
        key = (
            bool(rs),
            dataclasses.astuple(dataclasses.replace(rules, match_x100=0, no_new_x100=0)) if stop is not None else i,
        )
        groups.setdefault(key, []).append((i, target, rules, stop))
    for members in groups.values():
        i0, target, rules0, stop0 = members[0]
        data = X.rescore(base, target) if rescores[i0] else base
        chain_rules = rules0
        if stop0 is not None:  # the latest stop of the group: every member's states are among its
            chain_rules = dataclasses.replace(rules0, match_x100=max(s for _, _, _, s in members), no_new_x100=0)
        try:
            # as exact_model: point-card levels apart where they differ (the same test, with the delta
            # method's SE in place of the bootstrap's)
            check = getattr(X, "level_check", None)
            if check is not None and check(data, chain_rules, reps=0)["separate"]:
                chain_rules = dataclasses.replace(chain_rules, point_levels=X.POINT_LEVELS)
            got = counts(data, chain_rules)
            if got is not None:
                tables, c, mm = got
                chain = X.Chain(tables, chain_rules)
                p = c.sum(axis=0) / np.maximum(mm.sum(axis=0), 1e-300)
                if not np.allclose(p, chain.probabilities(tables), atol=1e-12, rtol=0):
                    got = None
        except SimsuiteError:
            continue
        except (AttributeError, TypeError, KeyError, IndexError):  # the exact model's internals changed shape
            got = None
        for i, _, rules, stop in members:
            if got is None:
                out[i] = _bootstrapped(h, m, variant, rescores[i])
                continue
            try:
                cols = [j for j, col in enumerate(_COLS) if col in need]
                point, grad, done = _solve_with_gradient(chain, rules, p, stop if stop0 is not None else None, cols)
            except SimsuiteError:
                continue
            except (AttributeError, TypeError, KeyError, IndexError):  # as above: the model's own bootstrap
                out[i] = _bootstrapped(h, m, variant, rescores[i])
                continue
            # influence of each deal on each figure; hands_mean is E[hands] / P(ended) with P(ended) ~ 1
            tot = np.maximum(mm.sum(0), 1e-300)
            infl = c @ (grad / tot[:, None]) - mm @ (grad * (p / tot)[:, None])
            se = dict(zip(cols, np.sqrt((infl**2).sum(0))))
            figs = {}
            for j, col in enumerate(_COLS):
                v = float(point[j])
                if col == "hands_mean":
                    v = v / done if done > 0 else v
                if col == "clock_share" and not rules.timed:
                    figs[col] = {"value": None, "low": None, "high": None, "n": 0}
                    continue
                if j not in se:  # not asked for: no interval
                    figs[col] = {"value": v, "low": None, "high": None, "n": data.n_deals}
                    continue
                figs[col] = _analytic(
                    v, float(se[j]), data.n_deals, share=col in ("p_a", "p_draw", "p_b", "clock_share")
                )
            out[i] = figs
    return out


def _analytic(value: float, se: float, n: int, share: bool) -> dict:
    """A figure with its 95% normal interval from its standard error (a share's clipped to 0..1;
    a mean's below at 0: every figure here is non-negative)."""
    lo, hi = value - Z95 * se, value + Z95 * se
    lo = max(lo, 0.0)
    if share:
        hi = min(hi, 1.0)
    return {"value": value, "low": lo, "high": hi, "n": n, "se": se, "interval": "delta method"}


def _bootstrapped(h, m, variant, rescore: dict) -> dict | None:
    """The exact model's own percentile bootstrap (``BOOT_REPS`` resamples): where the hands cannot
    be matched to the chain's outcomes for the delta method."""
    from ..exact import exact_model

    try:
        figs = exact_model(h, m, variant, rescore or None, reps=BOOT_REPS, seed=0, values=False)["figures"]
    except SimsuiteError:
        return None
    for f in figs.values():
        if f.get("low") is not None:
            f["se"] = (f["high"] - f["low"]) / (2 * Z95)
            f["interval"] = f"percentile bootstrap, {BOOT_REPS} resamples"
    return figs


def evaluate(
    spec: DesignSpec, played: dict, jobs: int = 1, only: set | None = None, open_metrics: dict | None = None
) -> dict:
    """Per parameter set, per pairing text, per metric of the goals and the trade-off (and hands
    per match, for the cost): the figure with its 95% interval, n and standard error (None where
    undefined or not asked). Match figures from the exact model re-scored under the set's clock
    keys, with delta-method intervals (``exact_sets``); where the model gives none or cannot be
    solved, from the simulated matches of the same rules (sets that re-score nothing); per-hand
    figures from the simulated hands (cluster bootstrap, ``BOOT_REPS`` resamples). ``only``: the
    (set id, pairing) pairs to evaluate, default all; ``open_metrics``: per (played cell, pairing),
    the metrics whose intervals are still wanted (the others' exact figures come without one),
    default all. The models of the played cells run in
    ``jobs`` processes; the figures do not depend on ``jobs``."""
    import joblib

    metrics = sorted({g.metric for g in spec.goals} | set(spec.tradeoff) | {"hands_per_match"})
    need_exact = any(METRIC_BY_KEY[k].source == "exact" for k in metrics)
    want: dict[tuple, list] = {}
    for s in spec.sets:
        for pair in spec.pairings:
            if (s.played, pair) in played and (only is None or (s.id, pair) in only):
                want.setdefault((s.played, pair), []).append(s)
    keys = sorted(want, key=lambda k: (k[0], k[1]))
    exacts: dict = {}
    if need_exact and keys:

        def need(key):
            ms = metrics if open_metrics is None else open_metrics.get(key, ())
            return [METRIC_BY_KEY[k].source_key for k in ms if METRIC_BY_KEY[k].source == "exact"]

        tasks = [
            joblib.delayed(exact_sets)(*played[k], spec.played[k[0]].variant, [s.rescore for s in want[k]], need(k))
            for k in keys
        ]
        n_jobs = min(jobs if jobs > 0 else os.cpu_count() or 1, len(tasks))
        if n_jobs > 1:
            from ...sim.executor import local_processes

            with local_processes():  # the pool that played the rounds, reused
                got = joblib.Parallel(n_jobs=n_jobs)(tasks)
        else:
            got = [t[0](*t[1], **t[2]) for t in tasks]
        for k, figs in zip(keys, got):
            for s, f in zip(want[k], figs):
                exacts[(s.id, k[1])] = f
    sims: dict = {}

    def simulated(key):
        if key not in sims:
            from ..metrics import summarise

            h, m = played[key]
            cell = spec.played[key[0]]
            sims[key] = summarise(
                h,
                m,
                by="cell",
                variants={cell.id: cell.variant},
                seed=spec.seed,
                reps=max(BOOT_REPS, spec.search["reps"]),
            )[0]
        return sims[key]

    out: dict = {}
    for s in spec.sets:
        out[s.id] = {}
        for pair in spec.pairings:
            figs: dict[str, dict | None] = {m: None for m in metrics}
            out[s.id][pair_text(pair)] = figs
            key = (s.played, pair)
            if key not in played or (only is not None and (s.id, pair) not in only):
                continue
            ex = exacts.get((s.id, pair))
            for k in metrics:
                if not defined(k, pair):
                    continue
                dm = METRIC_BY_KEY[k]
                if dm.source == "hands":
                    figs[k] = _fig(simulated(key).get(dm.source_key), "simulated hands")
                    continue
                f = _fig(ex.get(dm.source_key), "exact model") if ex else None
                if f is None and not s.rescore and dm.fallback:  # simulated matches of these very rules
                    f = _fig(simulated(key).get(dm.fallback), "simulated matches")
                figs[k] = f
    return out
