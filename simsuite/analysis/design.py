"""`simsuite design`: the rule parameters that meet an organiser's goals (docs/design.md).

The search plays only what decides. Parameters that change play (bottom, capture, bands, decks)
are *played cells*, simulated through the harness's executor (resumable, loky or Dask); the clock
and duration-model parameters are re-scored on a played cell's hands by the exact match model,
which is exact for them (``design_spec.RESCORED_KEYS``). Match figures come from the exact model,
with delta-method intervals over deals (one backward pass per figure, no resampling; the sets of a
played cell that differ only in when the clock stops share one chain); per-hand figures from the
simulated hands (``metrics.summarise``, 1,000 bootstrap resamples).

Sampling is successive, with error control: round 0 plays ``matches`` of every played cell under
every pairing; each set is judged on every goal under every pairing where it is defined, and a
judgement is decided (met or failed for sure) only by a screening interval at the Bonferroni level
of its round (``ALPHA`` spent equally over the rounds, split over the round's open judgements), so
the family-wise error rate of all decisions is at most ``ALPHA``. A set with a judgement still open
and no primary goal failed has its played cell played again, under every pairing it is judged
under, ``growth`` times more in all, on new deals, until none is open or ``rounds``. The best
candidate is then confirmed on fresh deals (``confirm_seed``) before it is recommended.

Everything is written under the output folder: ``runs/`` (one results folder per round or
confirmation and pairing), ``design.json`` (every figure with its n, interval and SE, the
judgements, the ranking, the front, the confirmation, the error control, the cost), ``design.txt``
(what was printed) and ``recommended.toml`` (the recommended rules as a variant file).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shutil
import sys
import time
from pathlib import Path
from statistics import NormalDist
from typing import Sequence

import numpy as np
import polars as pl
from numba import njit

from ..engine.names import pair_text
from ..errors import SimsuiteError, as_id, toml_value
from ..sim.limits import MAX_SEED
from ..sim.executor import check_models
from ..sim.spec import Cell, ExecOptions, Plan, check_exec as _check_exec, check_out
from .design_spec import MAX_PLAYED_CELLS, METRIC_BY_KEY, DesignSpec, Goal, ParamSet, defined, read_design

SPEC_COPY = "design-spec.toml"
RESULT = "design.json"
TEXT = "design.txt"
VARIANT_FILE = "recommended.toml"
RUNS = "runs"
# Error control (docs/design.md, "Error control"): the family-wise error rate of every screening
# decision (a goal met or failed for sure, in any round, by any set, under any pairing) is at most
# ALPHA: round r spends ALPHA / rounds, split equally (Bonferroni) over the judgements it makes.
ALPHA = 0.05
ERROR_CONTROL = "bonferroni-alpha-spending"
BOOT_REPS = 1_000  # bootstrap resamples wherever a figure's interval is a bootstrap's (simulated hands, fallback)
# The confirmation plays fresh deals: seed SeedSequence([seed, CONFIRM_KEY + i]) for the i-th set tried
# (the rounds use [seed, r] with r <= 10, so the two never meet); at most CONFIRM_TRIES sets are tried.
CONFIRM_KEY = 1_000
CONFIRM_TRIES = 3


# --- where and what to play -------------------------------------------------------------------------


def round_seed(seed: int, r: int) -> int:
    """Round 0 plays the spec's seed (the deals a sweep with that seed plays); round r > 0 its own
    seed from ``SeedSequence([seed, r])``, so later rounds add new deals."""
    if r == 0:
        return seed
    return int(np.random.SeedSequence([seed, r]).generate_state(2, dtype=np.uint64)[0] % MAX_SEED)


def confirm_seed(seed: int, i: int = 0) -> int:
    """The fresh deals of the i-th confirmation: ``SeedSequence([seed, CONFIRM_KEY + i])``."""
    return int(np.random.SeedSequence([seed, CONFIRM_KEY + i]).generate_state(2, dtype=np.uint64)[0] % MAX_SEED)


def pairing_slug(pair: tuple[str, str]) -> str:
    return "-".join(pair).replace("/", "_").replace(":", "_").replace(".", "_")


def run_dir(out: Path, r: int, pair: tuple[str, str]) -> Path:
    return out / RUNS / f"round{r}-{pairing_slug(pair)}"


def round_matches(spec: DesignSpec, r: int) -> int:
    """Matches a cell still undecided gets in round r (its total after round r is matches x growth^r)."""
    m, g = spec.search["matches"], spec.search["growth"]
    return m if r == 0 else m * g ** r - m * g ** (r - 1)


def _prepare_out(spec: DesignSpec, out: Path) -> None:
    """A new folder, or one that holds this same design (then it resumes); refuse anything else."""
    if out.exists() and out.is_dir() and any(out.iterdir()):
        copy = out / SPEC_COPY
        if not copy.is_file():
            raise SimsuiteError(f"--out {out}: the folder exists and is not a simsuite design (no {SPEC_COPY}); "
                                "choose another --out or delete it")
        there = json.loads((out / "design-spec.json").read_text()) if (out / "design-spec.json").is_file() else None
        if there != json.loads(json.dumps(spec.raw, default=str)):
            raise SimsuiteError(f"--out {out} holds a different design (its {SPEC_COPY} differs from {spec.path}); "
                                "choose another --out or delete it")
        return
    check_out(out)  # a file, or a folder that cannot be written or created
    try:
        out.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(spec.path, out / SPEC_COPY)
        (out / "design-spec.json").write_text(json.dumps(spec.raw, default=str, sort_keys=True))
    except OSError as exc:
        raise SimsuiteError(f"--out {out}: cannot create it: {exc}") from None


def confirm_dir(out: Path, i: int, pair: tuple[str, str]) -> Path:
    return out / RUNS / f"confirm{i}-{pairing_slug(pair)}"


def _play(spec: DesignSpec, todo: dict[tuple[str, str], list[str]], n: int, seed: int, where, label: str,
          meta: dict, opts: ExecOptions, command: Sequence[str]) -> None:
    """Play, per pairing, the listed played cells, ``n`` matches each from ``seed``, through the
    harness's executor into ``where(pair)`` (one results folder per pairing; a rerun resumes it)."""
    from ..sim.executor import execute

    for pair in spec.pairings:
        ids = todo.get(pair) or []
        if not ids:
            continue
        cells = [Cell(c.id, c.variant, c.given, c.overrides, pair, n) for c in (spec.played[i] for i in ids)]
        plan = Plan("sweep", cells, seed, pair[0] != pair[1], spec.chunk, where(pair), list(command),
                    {"spec_path": spec.path, "spec": {"design": spec.raw, **meta, "pairing": pair_text(pair)}})
        if not opts.quiet:
            print(f"design: {label}, {pair_text(pair)}: {len(cells)} cell(s) x {n:,} matches", file=sys.stderr)
        execute(plan, opts)


def _play_round(spec: DesignSpec, out: Path, r: int, todo: dict[tuple[str, str], list[str]],
                opts: ExecOptions, command: Sequence[str]) -> None:
    """Play round r: the listed played cells, ``round_matches`` each, on the round's own deals."""
    _play(spec, todo, round_matches(spec, r), round_seed(spec.seed, r), lambda p: run_dir(out, r, p), f"round {r}",
          {"round": r}, opts, command)


# --- figures ----------------------------------------------------------------------------------------


def _load_played(out: Path, spec: DesignSpec, rounds: int, where=None,
                 cache: dict | None = None) -> dict[tuple[str, tuple[str, str]], tuple]:
    """Every played cell's hands and matches under each pairing, all rounds together (``where``:
    the folders of (round, pairing), default the rounds'). ``cache``: the folders read already, by
    path (a round's folder is complete once played, so each is read once a design)."""
    from ..sim.results import load

    where = where or (lambda r, pair: run_dir(out, r, pair))
    cache = {} if cache is None else cache
    frames: dict[tuple[str, tuple[str, str]], list] = {}
    for r in range(rounds):
        for pair in spec.pairings:
            d = where(r, pair)
            if d not in cache:
                if not (d / "manifest.json").is_file():
                    continue
                res = load(d)
                h, m = res.hands.collect(), res.matches.collect()
                cache[d] = [(cid, h.filter(pl.col("cell") == cid), m.filter(pl.col("cell") == cid))
                            for cid in m["cell"].unique().to_list()]
            for cid, hc, mc in cache[d]:
                frames.setdefault((cid, pair), []).append((hc, mc))
    return {k: (pl.concat([a for a, _ in v], how="vertical_relaxed"), pl.concat([b for _, b in v], how="vertical_relaxed"))
            for k, v in frames.items()}


def _fig(d: dict | None, source: str) -> dict | None:
    if not d or d.get("value") is None:
        return None
    out = {"value": float(d["value"]), "low": d.get("low"), "high": d.get("high"), "n": int(d.get("n") or 0),
           "source": source}
    if d.get("low") is not None:  # the standard error: the delta method's, else from the 95% interval
        out["se"] = float(d["se"]) if d.get("se") is not None else (d["high"] - d["low"]) / (2 * Z95)
    return out


# --- the exact model's figures with analytic intervals ---------------------------------------------
#
# A figure of the exact model is a smooth function F(p) of the per-hand outcome distributions p, and
# p is a ratio of sums over deals (each deal's hands of each condition and outcome). Its standard
# error is the delta method's (the infinitesimal jackknife): the influence of deal i is
# IF_i = sum_o dF/dp_o (c_io - p_o m_ik(o)) / M_k(o) (c: the deal's hands with outcome o, m: its
# hands of o's condition, M: all hands of that condition), and SE^2 = sum_i IF_i^2, the variance a
# bootstrap over deals estimates, without resampling. dF/dp comes from one backward pass over the
# chain (each figure is an expected sum of rewards, so dF/dp_o = sum over the states that draw from
# o's condition of P(state) x (o's reward + the value of the state o leads to)). Sets of one played
# cell whose rules differ only in when the clock stops the match (match_minutes, no_new_hand_minutes,
# without a warning) share one chain, built under the latest stop: a set ends its states at its own.

Z95 = NormalDist().inv_cdf(0.975)
# the figures, as columns of the backward pass
_COLS = ("p_a", "p_draw", "p_b", "hands_mean", "minutes_mean", "clock_share", "lead_changes")


def _stop_x100(rules) -> int | None:
    """The elapsed time at which a timed match without a warning stops before a new hand (the
    only thing such sets of one played cell change in the chain); None when the set cannot share."""
    if not rules.timed or rules.warn_x100 > 0 or rules.cap:
        return None
    return rules.match_x100 - rules.no_new_x100 if rules.no_new_x100 > 0 else rules.match_x100


def _counts(data, rules) -> tuple[dict, np.ndarray, np.ndarray] | None:
    """The exact model's outcome tables of ``data`` under ``rules`` and, per deal, its hands of each
    outcome (deals x outcomes, the outcomes laid end to end as the chain lays them) and of each
    outcome's condition (the same shape). (A caller given None bootstraps instead.)"""
    from . import exact as X

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
    from . import exact as X

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
        mass = _forward_hand(live, plan.src, plan.out, hand.nxt, prob, hand.change, dur, a, dr, b,
                             chain.codes[h + 1].size, acc)
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
        _gradient_hand(v_next, plan.src, plan.out, hand.nxt, prob, hand.change, hand.end_lvl, end_rw, dur,
                       np.ascontiguousarray(live, dtype=float), pos.get(flead, -1), pos.get(fmin, -1), v, grad)
        v[np.flatnonzero(ended)] = term[:, cols]
        v_next = v
    return total, grad, done


@njit(cache=True)
def _forward_hand(mass, src, out, nxt, prob, change, duration, end_a, end_d, end_b, n_next, acc):
    """One hand of ``_solve_with_gradient``'s forward pass (``exact._forward_hand`` for one
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


def _exact_sets(h: pl.DataFrame, m: pl.DataFrame, variant, rescores: list[dict],
                need: Sequence[str] = _COLS) -> list[dict | None]:
    """The exact model's figures of one played cell and pairing re-scored under each of ``rescores``
    (one dict of clock keys per parameter set), each of ``need`` with its delta-method 95% interval
    and SE (the others with no interval); None for a set the model cannot solve. Sets that can share
    a chain share it (see above)."""
    from . import exact as X

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
        key = (bool(rs), dataclasses.astuple(dataclasses.replace(rules, match_x100=0, no_new_x100=0))
               if stop is not None else i)
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
            got = _counts(data, chain_rules)
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
            se = dict(zip(cols, np.sqrt((infl ** 2).sum(0))))
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
                figs[col] = _analytic(v, float(se[j]), data.n_deals, share=col in ("p_a", "p_draw", "p_b", "clock_share"))
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
    from .exact import exact_model

    try:
        figs = exact_model(h, m, variant, rescore or None, reps=BOOT_REPS, seed=0, values=False)["figures"]
    except SimsuiteError:
        return None
    for f in figs.values():
        if f.get("low") is not None:
            f["se"] = (f["high"] - f["low"]) / (2 * Z95)
            f["interval"] = f"percentile bootstrap, {BOOT_REPS} resamples"
    return figs


def evaluate(spec: DesignSpec, played: dict, jobs: int = 1, only: set | None = None,
             open_metrics: dict | None = None) -> dict:
    """Per parameter set, per pairing text, per metric of the goals and the trade-off (and hands
    per match, for the cost): the figure with its 95% interval, n and standard error (None where
    undefined or not asked). Match figures from the exact model re-scored under the set's clock
    keys, with delta-method intervals (``_exact_sets``); where the model gives none or cannot be
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

        tasks = [joblib.delayed(_exact_sets)(*played[k], spec.played[k[0]].variant, [s.rescore for s in want[k]],
                                             need(k)) for k in keys]
        n_jobs = min(jobs if jobs > 0 else os.cpu_count() or 1, len(tasks))
        if n_jobs > 1:
            from ..sim.executor import local_processes

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
            from .metrics import summarise

            h, m = played[key]
            cell = spec.played[key[0]]
            sims[key] = summarise(h, m, by="cell", variants={cell.id: cell.variant}, seed=spec.seed,
                                  reps=max(BOOT_REPS, spec.search["reps"]))[0]
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


# --- judging ----------------------------------------------------------------------------------------


def judge(goal: Goal, fig: dict | None, z_crit: float | None = None) -> dict:
    """A goal against one figure: whether the estimate meets it (``meets``), its ``margin`` (the
    distance from the bound to the 95% interval's far end, positive when the whole interval meets
    the goal), ``z`` (the estimate's distance from the bound in standard errors) and the status of
    the screening interval, estimate +- ``z_crit`` SE (default: the 95% interval): meets (the whole
    interval meets the goal), likely (the estimate does, the interval straddles), unlikely (the
    estimate does not, the interval straddles), fails (the whole interval fails it). The SE is the
    figure's ``se``, else its 95% interval's half-width / 1.96; ``z`` is None for no width."""
    if fig is None:
        return {"goal": goal.text(), "status": "no figure", "meets": False, "margin": None, "z": None}
    v = fig["value"]
    lo = fig["low"] if fig["low"] is not None else v
    hi = fig["high"] if fig["high"] is not None else v
    s = goal.sign
    near = lo if s > 0 else hi  # the end closest to failing
    margin = s * (near - goal.bound)
    se = fig.get("se")
    if se is None:
        se = (hi - lo) / (2 * Z95)
    diff = s * (v - goal.bound)
    z = diff / se if se > 0 else None  # no width (e.g. no draw in any deal): the status says it all
    if z_crit is None:
        near_s, far_s = s * (near - goal.bound), s * ((hi if s > 0 else lo) - goal.bound)
    else:
        near_s, far_s = diff - z_crit * se, diff + z_crit * se
    status = "meets" if near_s >= 0 else ("fails" if far_s < 0 else ("likely" if diff >= 0 else "unlikely"))
    return {"goal": goal.text(), "status": status, "meets": diff >= 0, "margin": margin, "z": z}


def _judgements(spec: DesignSpec, s: ParamSet) -> list[tuple[int, tuple[str, str]]]:
    """The (goal index, pairing) pairs a set is judged on: every goal under every pairing where its
    metric is defined (the primary pairing decides whether the set is a candidate, the others
    whether it holds under every pairing)."""
    return [(gi, pair) for pair in spec.pairings for gi, g in enumerate(spec.goals) if defined(g.metric, pair)]


def _judge_sets(spec: DesignSpec, figs: dict, decided: dict, z_last: dict) -> dict[str, dict]:
    """Per set: each goal judged under its primary pairing, and under every pairing. A judgement
    decided in a round (``decided``: (set, goal index, pairing) -> (status, round)) keeps its status;
    the others are judged on the set's latest figures at the screening level of the round that
    evaluated it last (``z_last``)."""
    out = {}
    for s in spec.sets:
        by_pair: dict[str, list] = {pair_text(p): [] for p in spec.pairings}
        for gi, pair in _judgements(spec, s):
            g = spec.goals[gi]
            j = judge(g, figs[s.id][pair_text(pair)].get(g.metric), z_last.get(s.id))
            d = decided.get((s.id, gi, pair))
            if d is not None:
                j.update(status=d[0], meets=d[0] == "meets", decided_round=d[1])
            by_pair[pair_text(pair)].append(j)
        primary = []
        for gi, g in enumerate(spec.goals):
            pt = pair_text(spec.primary(g.metric))
            primary.append(next(j for j in by_pair[pt] if j["goal"] == g.text()))
        meets = all(j["meets"] for j in primary)
        holds = [p for p, js in by_pair.items() if all(j["meets"] for j in js)]
        zs = [j["z"] for j in primary if j["z"] is not None]
        out[s.id] = {"goals": primary, "by_pairing": by_pair, "meets_all": meets,
                     "sure": all(j["status"] == "meets" for j in primary), "holds_under": holds,
                     "robust": len(holds) == len(spec.pairings), "min_z": min(zs) if zs else None,
                     "failed": sum(not j["meets"] for j in primary),
                     "clearly_failed": any(j["status"] == "fails" for j in primary)}
    return out


def pareto(points: dict[str, tuple[float, float]], dirs: tuple[int, int]) -> list[str]:
    """The ids not dominated: no other point at least as good on both axes and better on one
    (``dirs``: +1 where larger is better)."""
    front = []
    for a, (xa, ya) in points.items():
        dominated = False
        for b, (xb, yb) in points.items():
            if b == a:
                continue
            ge = dirs[0] * (xb - xa) >= 0 and dirs[1] * (yb - ya) >= 0
            gt = dirs[0] * (xb - xa) > 0 or dirs[1] * (yb - ya) > 0
            if ge and gt:
                dominated = True
                break
        if not dominated:
            front.append(a)
    return sorted(front, key=lambda i: (points[i][0], i))  # along the x axis, for drawing


def _front(spec: DesignSpec, figs: dict) -> list[str]:
    x, y = spec.tradeoff
    px, py = pair_text(spec.primary(x)), pair_text(spec.primary(y))
    pts = {}
    for s in spec.sets:
        fx, fy = figs[s.id][px].get(x), figs[s.id][py].get(y)
        if fx and fy:
            pts[s.id] = (fx["value"], fy["value"])
    return pareto(pts, (spec.direction(x), spec.direction(y)))


def _open_sets(spec: DesignSpec, decided: dict) -> list[ParamSet]:
    """The sets still undecided: none of their primary goals failed for sure, and some judgement
    (a goal under a pairing) not yet decided either way."""
    out = []
    for s in spec.sets:
        primary = {(gi, spec.primary(g.metric)) for gi, g in enumerate(spec.goals)}
        if any(decided.get((s.id, gi, p), ("",))[0] == "fails" for gi, p in primary):
            continue
        if any((s.id, gi, p) not in decided for gi, p in _judgements(spec, s)):
            out.append(s)
    return out


def _replay(spec: DesignSpec, open_sets: list[ParamSet], decided: dict) -> dict[tuple[str, str], list[str]]:
    """The played cells to play again: per pairing, those of the sets still undecided that have a
    judgement still open under that pairing (the equal pairings too). A pairing whose judgements
    of a set are all decided adds nothing to them: its figures keep the n they were decided at."""
    todo: dict[tuple[str, str], set[str]] = {}
    for s in open_sets:
        for gi, pair in _judgements(spec, s):
            if (s.id, gi, pair) not in decided:
                todo.setdefault(pair, set()).add(s.played)
    return {p: sorted(v) for p, v in todo.items()}


def binding(goals: Sequence[str], judged: dict) -> dict:
    """With no set meeting every goal: the goal that binds, the one failed by the most sets that
    meet every other goal; when every set fails two goals or more, the goals failed by the most
    sets (ties named together). And the nearest set: fewest goals failed, then the largest
    smallest z. ``judged``: set id -> its judgement (``goals``, ``failed``, ``min_z``)."""
    only = {g: 0 for g in goals}
    total = {g: 0 for g in goals}
    for j in judged.values():
        failed = [g["goal"] for g in j["goals"] if not g["meets"]]
        for f in failed:
            total[f] += 1
        if len(failed) == 1:
            only[failed[0]] += 1
    counts = only if any(only.values()) else total
    top = max(counts.values())
    binds = [g for g in goals if counts[g] == top]
    nearest = min(judged, key=lambda i: (judged[i]["failed"], -(judged[i]["min_z"] if judged[i]["min_z"] is not None
                                                                 else -math.inf), i))
    return {"goal": binds[0], "goals": binds, "sets_failing_only_it": only[binds[0]],
            "failing": {g: total[g] for g in goals}, "n_sets": len(judged), "nearest": nearest,
            "nearest_fails": [g["goal"] for g in judged[nearest]["goals"] if not g["meets"]]}


# --- the search -------------------------------------------------------------------------------------


def design(spec_path: str | Path, out: str | Path | None = None, *, jobs: int = 1, backend: str = "loky",
           scheduler: str | None = None, quiet: bool = False, command: Sequence[str] | None = None,
           break_lock: bool = False, max_cells: int = MAX_PLAYED_CELLS) -> dict:
    """Run the design search of ``spec_path`` into ``out`` (resuming what is there) and return
    the result (also written to ``out/design.json``). ``max_cells``: the most played cells the spec
    may imply (``design_spec.MAX_PLAYED_CELLS`` unless the caller raises it)."""
    from ..sim.limits import check_int

    opts = ExecOptions(jobs, backend, scheduler, quiet, break_lock)
    _check_exec(opts)
    check_int("--max-cells", max_cells, 1, 1_000_000)
    spec = read_design(spec_path, max_cells)
    check_models(spec.pairings)  # a broken learned model is refused before the folder is made
    out = Path(out) if out is not None else Path("results") / f"design-{Path(spec_path).stem}"
    _prepare_out(spec, out)
    command = list(command) if command else ["simsuite", "design", str(spec_path), "--out", str(out)]
    done = _finished(out, spec)
    if done is not None:
        if not quiet:
            print(f"{out}: complete already ({len(done['rounds'])} round(s)); nothing to do", file=sys.stderr)
        return done
    t0 = time.perf_counter()
    ev_jobs = jobs if backend == "loky" else 1
    todo = {pair: sorted(spec.played) for pair in spec.pairings}
    rounds_log, decided, z_last, figs, loaded = [], {}, {}, {}, {}
    open_sets = list(spec.sets)
    r = 0
    while True:
        _play_round(spec, out, r, todo, opts, command)
        played = _load_played(out, spec, r + 1, cache=loaded)
        # the screening level of this round: ALPHA / rounds, split over the judgements still open
        k_r = sum(1 for s in open_sets for gi, p in _judgements(spec, s) if (s.id, gi, p) not in decided)
        alpha_r = ALPHA / spec.search["rounds"]
        z_r = NormalDist().inv_cdf(1 - alpha_r / (2 * max(k_r, 1)))
        if not quiet:
            print(f"design: round {r}: evaluating {len(open_sets)} parameter set(s); {k_r} judgement(s) at "
                  f"alpha {alpha_r:.4f} / {k_r} (z {z_r:.2f})", file=sys.stderr)
        # every pairing with a judgement still open (all of them in round 0)
        asked, wanted = set(), {}
        for s in open_sets:
            for gi, p in _judgements(spec, s):
                if (s.id, gi, p) not in decided:
                    asked.add((s.id, p))
                    wanted.setdefault((s.played, p), set()).add(spec.goals[gi].metric)
        new = evaluate(spec, played, ev_jobs, asked, wanted if r > 0 else None)
        n_decided = 0
        for s in open_sets:
            if s.id in figs:  # a figure not asked for again keeps its last value, interval and n
                for p, fs in new[s.id].items():
                    for k, f in fs.items():
                        if (s.id, tuple(p.split(","))) not in asked or (f is not None and f.get("low") is None
                                                                         and figs[s.id][p].get(k) is not None):
                            fs[k] = figs[s.id][p].get(k)
            figs[s.id] = new[s.id]
            z_last[s.id] = z_r
            for gi, pair in _judgements(spec, s):
                if (s.id, gi, pair) in decided:
                    continue
                g = spec.goals[gi]
                st = judge(g, new[s.id][pair_text(pair)].get(g.metric), z_r)["status"]
                if st in ("meets", "fails"):
                    decided[(s.id, gi, pair)] = (st, r)
                    n_decided += 1
        rounds_log.append({"round": r, "seed": round_seed(spec.seed, r), "matches_per_cell": round_matches(spec, r),
                           "cells": {pair_text(p): list(v) for p, v in todo.items() if v},
                           "sets_evaluated": len(open_sets), "judgements": k_r, "alpha": alpha_r, "z": z_r,
                           "decided": n_decided})
        open_sets = _open_sets(spec, decided)
        r += 1
        todo = _replay(spec, open_sets, decided)
        if r >= spec.search["rounds"] or not todo:
            break
    judged = _judge_sets(spec, figs, decided, z_last)
    front = _front(spec, figs)
    cands = _ranked(spec, judged)
    confirmation = _confirm(spec, out, played, cands, ev_jobs, opts, command)
    result = _result(spec, out, played, figs, judged, front, cands, confirmation, rounds_log, r,
                     time.perf_counter() - t0)
    _write(out, result, spec)
    return result


def _ranked(spec: DesignSpec, judged: dict) -> list[str]:
    """The candidates (estimates meeting every goal under their primary pairings), best first: every
    goal met for sure, then holding under every pairing, then the largest smallest z."""
    cands = [s.id for s in spec.sets if judged[s.id]["meets_all"]]
    return sorted(cands, key=lambda i: (not judged[i]["sure"], not judged[i]["robust"],
                                        -(judged[i]["min_z"] if judged[i]["min_z"] is not None else math.inf), i))


def _confirm(spec: DesignSpec, out: Path, played: dict, cands: list[str], jobs: int, opts: ExecOptions,
             command: Sequence[str]) -> dict:
    """Play the best candidate again on fresh deals (``confirm_seed``), under every pairing, and judge
    its goals on those deals alone (95% intervals): under its primary pairings at the most matches
    the design gave any cell (the boundary's n), under the others at the matches their judgements
    of its cell got in the rounds. It is confirmed when every estimate under its primary pairings
    still meets its goal. A candidate that is not confirmed gives way to the next, up to
    ``CONFIRM_TRIES``."""
    def matches(m):
        return m.select(pl.struct("seed", "match").n_unique()).item()

    n = max((matches(m) for _, m in played.values()), default=0)
    primary = {spec.primary(g.metric) for g in spec.goals}
    by_id = {s.id: s for s in spec.sets}
    tried = []
    for i, cid in enumerate(cands[:CONFIRM_TRIES]):
        s = by_id[cid]
        sizes = {pair: n if pair in primary or (s.played, pair) not in played else matches(played[(s.played, pair)][1])
                 for pair in spec.pairings}
        for pair in spec.pairings:
            _play(spec, {pair: [s.played]}, sizes[pair], confirm_seed(spec.seed, i),
                  lambda p, i=i: confirm_dir(out, i, p), f"confirming {cid}", {"confirm": i}, opts, command)
        fresh = _load_played(out, spec, 1, lambda _r, p, i=i: confirm_dir(out, i, p))
        f = evaluate(spec, fresh, jobs, {(cid, p) for p in spec.pairings})[cid]
        goals = []
        for gi, pair in _judgements(spec, s):
            g = spec.goals[gi]
            j = judge(g, f[pair_text(pair)].get(g.metric))
            goals.append({**j, "pairing": pair_text(pair), "primary": pair == spec.primary(g.metric),
                          "figure": f[pair_text(pair)].get(g.metric), "holds": j["meets"]})
        ok = all(g["holds"] for g in goals if g["primary"])
        tried.append({"set": cid, "seed": confirm_seed(spec.seed, i), "matches": n,
                      "matches_by_pairing": {pair_text(p): k for p, k in sizes.items()}, "confirmed": ok, "goals": goals,
                      "hands": sum(int(h.height) for h, _ in fresh.values()), "figures": f})
        if ok:
            break
    return {"seed_rule": f"SeedSequence([seed, {CONFIRM_KEY} + i]) for the i-th set tried", "tried": tried,
            "confirmed": next((t["set"] for t in tried if t["confirmed"]), None)}


def confirm_sizes(t: dict) -> str:
    """The matches a confirmation played, per pairing ("540 matches under expert,basic, 180 under
    expert,expert"); a stored result without them played ``matches`` under every pairing."""
    sizes = t.get("matches_by_pairing")
    if not sizes:
        return f"{t['matches']:,} matches per pairing"
    parts = [f"{k:,} {'matches ' if i == 0 else ''}under {p}" for i, (p, k) in enumerate(sizes.items())]
    return ", ".join(parts)


def _finished(out: Path, spec: DesignSpec) -> dict | None:
    """The stored result of this very design when it finished and every run it played is complete."""
    from ..sim.results import read_manifest

    if not (out / RESULT).is_file():
        return None
    try:
        res = load_design(out)
        if res.get("spec_hash") != spec.hash:
            return None
        for rd in res["rounds"]:
            for pair in spec.pairings:
                if rd["cells"].get(pair_text(pair)) and read_manifest(run_dir(out, rd["round"], pair)).get(
                        "status") != "complete":
                    return None
        for i, t in enumerate(res["confirmation"]["tried"]):
            for pair in spec.pairings:
                if read_manifest(confirm_dir(out, i, pair)).get("status") != "complete":
                    return None
        if res["recommended"] is None and res.get("binding"):  # the wording follows the code, the numbers the stored run
            res["binding"] = binding(res["goals"], {s["id"]: s for s in res["sets"]})
        res["sentence"] = sentence(res)
    except (SimsuiteError, KeyError, TypeError):
        return None
    return res


def _hands_played(played: dict) -> dict:
    return {f"{cid} | {pair_text(p)}": int(h.height) for (cid, p), (h, _) in played.items()}


def _cost(spec: DesignSpec, played: dict, figs: dict, rounds: int, confirm_hands: int = 0) -> dict:
    """Hands the design played (its rounds and its confirmation) beside a brute-force sweep of the same grid that simulates every
    parameter set under every pairing at the most matches the design gave any cell (the n at the
    boundary): its hands estimated from each set's hands per match (exact model) x tables."""
    design_hands = sum(int(h.height) for h, _ in played.values()) + confirm_hands
    n_max = max((m.select(pl.struct("seed", "match").n_unique()).item() for _, m in played.values()), default=0)
    brute = 0.0
    for s in spec.sets:
        for pair in spec.pairings:
            h, m = played.get((s.played, pair), (None, None))
            if m is None:
                continue
            ex = None
            per_match = float(m["hands"].mean())
            if s.rescore:
                hp = figs[s.id][pair_text(pair)].get("hands_per_match")
                if hp:
                    ex = hp["value"]
            brute += n_max * (2 if pair[0] != pair[1] else 1) * (ex or per_match)
    return {"design_hands": design_hands, "brute_force_hands": round(brute), "brute_force_matches_per_cell": n_max,
            "ratio": round(brute / design_hands, 2) if design_hands else None, "rounds": rounds,
            "confirmation_hands": confirm_hands,
            "parameter_sets": len(spec.sets), "played_cells": len(spec.played), "pairings": len(spec.pairings)}


def _result(spec: DesignSpec, out: Path, played: dict, figs: dict, judged: dict, front: list[str], cands: list[str],
            confirmation: dict, rounds_log: list, rounds: int, seconds: float) -> dict:
    by_id = {s.id: s for s in spec.sets}
    rec = confirmation["confirmed"]
    res = {
        "spec": spec.path, "spec_hash": spec.hash, "base": spec.base, "seed": spec.seed, "out": str(out),
        "goals": [g.text() for g in spec.goals], "tradeoff": list(spec.tradeoff),
        "pairings": [pair_text(p) for p in spec.pairings],
        "primary": {g.metric: pair_text(spec.primary(g.metric)) for g in spec.goals},
        "search": spec.search, "rounds": rounds_log, "seconds": round(seconds, 1),
        "error_control": {
            "method": ERROR_CONTROL, "alpha": ALPHA,
            "text": (f"Bonferroni with alpha spending: family-wise error rate <= {ALPHA:g} over every screening "
                     f"decision (a goal met or failed for sure, any set, any pairing, any round): round r spends "
                     f"{ALPHA:g} / {spec.search['rounds']} rounds, split over its open judgements; screening "
                     "intervals estimate +- z SE (delta-method SE for the exact model, bootstrap for simulated "
                     "figures); decisions are final"),
            "rounds": [{k: rd[k] for k in ("round", "judgements", "alpha", "z")} for rd in rounds_log]},
        "sets": [{"id": s.id, "params": s.params, "played": s.played, "rescored": s.rescore,
                  "figures": figs[s.id], **judged[s.id]} for s in spec.sets],
        "candidates": cands, "front": front, "recommended": rec, "confirmation": confirmation,
        "cost": _cost(spec, played, figs, rounds, sum(t["hands"] for t in confirmation["tried"])),
        "hands_by_cell": _hands_played(played),
    }
    if rec is None:  # with no candidate, or none confirmed: what binds, and the nearest set
        res["binding"] = binding(res["goals"], judged)
    if rec is not None:
        j = judged[rec]
        res["flag"] = None if j["robust"] else (
            f"holds under {', '.join(j['holds_under']) or 'no pairing'} only; fails under "
            + ", ".join(p for p in res["pairings"] if p not in j["holds_under"]))
        res["recommended_variant"] = variant_toml(by_id[rec], spec)
    res["sentence"] = sentence(res)
    return res


def _fmt(fig: dict | None, metric: str) -> str:
    if fig is None:
        return "n/a"
    share = METRIC_BY_KEY[metric].share
    k, u = (100.0, "%") if share else (1.0, "")
    d = 1 if share or abs(fig["value"]) >= 10 else 2
    if fig.get("low") is None:
        return f"{fig['value'] * k:.{d}f}{u} (no interval) n={fig['n']:,}"
    return f"{fig['value'] * k:.{d}f}{u} [{fig['low'] * k:.{d}f}, {fig['high'] * k:.{d}f}] n={fig['n']:,}"


def sentence(res: dict) -> str:
    """The recommendation in one sentence, with its figures, intervals and n."""
    sets = {s["id"]: s for s in res["sets"]}
    conf = res.get("confirmation") or {"tried": []}
    if res["recommended"] is None and res["candidates"]:
        t = conf["tried"]
        fails = "; ".join(f"{x['set']}: " + ", ".join(
            f"{g['goal']} {_fmt(g['figure'], g['goal'].split()[0])}" for g in x["goals"] if g["primary"] and not g["holds"])
            for x in t)
        return (f"No parameter set is recommended: {len(res['candidates'])} set(s) met every goal on the search's deals, "
                f"but the {len(t)} best did not hold on fresh deals ({fails}; 95% intervals, n = deals).")
    if res["recommended"] is None:
        b = res["binding"]
        if b["sets_failing_only_it"]:
            why = (f"{b['goal']} binds: {b['sets_failing_only_it']} of {b['n_sets']} sets meet every other goal but "
                   "fail it")
        else:
            why = (f"every set fails two goals or more; {' and '.join(b['goals'])} bind"
                   f"{'s' if len(b['goals']) == 1 else ''}, failed by {b['failing'][b['goal']]} of {b['n_sets']} sets")
        near = sets[b["nearest"]]
        figs = "; ".join(f"{g.split()[0]} {_fmt(near['figures'][res['primary'][g.split()[0]]].get(g.split()[0]), g.split()[0])}"
                         for g in b["nearest_fails"])
        return (f"No parameter set meets every goal: {why}. The nearest, {b['nearest']}, fails "
                f"{', '.join(b['nearest_fails'])} ({figs}; 95% intervals, n = deals).")
    s = sets[res["recommended"]]
    parts = []
    for g, j in zip(res["goals"], s["goals"]):
        metric = g.split()[0]
        parts.append(f"{metric} {_fmt(s['figures'][res['primary'][metric]].get(metric), metric)}")
    how = "with every interval inside its bound" if s["sure"] else "on the estimates (some intervals straddle a bound)"
    flag = f" Flagged: it {res['flag']}." if res.get("flag") else ""
    t = conf["tried"][-1] if conf["tried"] else None
    held = (f" Confirmed on {t['matches']:,} fresh deals (seed {t['seed']}): every goal still holds under its primary "
            "pairing." if t else "")
    return (f"Play {s['id']} ({res['base']}): it meets every goal {how}: " + "; ".join(parts)
            + f" (95% intervals; n = deals).{held}{flag}")


def variant_toml(s: ParamSet, spec: DesignSpec) -> str:
    """The recommended rules as a variant file: the whole variant, every field, loadable by every
    command (``--variant recommended.toml``)."""
    v = s.variant
    about = (f"The rules simsuite design recommends for {spec.path}: {spec.base} with "
             + ", ".join(f"{k}={val}" for k, val in s.params.items()) + ".")
    lines = ["# " + "".join(c if c.isprintable() else " " for c in about),  # one comment line, whatever a path holds
             f"# Written by simsuite design; use it with --variant {VARIANT_FILE}.", "",
             f"id = {toml_value(as_id('design-' + Path(spec.path).stem))}"]  # an id every command loads
    for section, fields in v.to_toml_dict().items():
        lines += ["", f"[{section}]"]
        for k, val in fields.items():
            lines.append(f"{k} = {toml_value(val)}")
    return "\n".join(lines) + "\n"


def _write(out: Path, res: dict, spec: DesignSpec) -> None:
    try:
        (out / RESULT).write_text(json.dumps(res, indent=1, default=_json_default))
        (out / TEXT).write_text(format_design(res) + "\n")
        if res.get("recommended_variant"):
            (out / VARIANT_FILE).write_text(res["recommended_variant"])
    except OSError as exc:
        raise SimsuiteError(f"cannot write the design's results in {out}: {exc}") from None


def _json_default(x):
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    return str(x)


def load_design(path: str | Path) -> dict:
    """A finished design run's result (``design.json``)."""
    p = Path(path) / RESULT
    if not p.is_file():
        raise SimsuiteError(f"{path}: not a finished simsuite design (no {RESULT}); run simsuite design first")
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError) as exc:
        raise SimsuiteError(f"{p}: cannot read it: {exc}") from None


# --- text -------------------------------------------------------------------------------------------


def format_design(res: dict) -> str:
    from ..report.text import table

    sets = {s["id"]: s for s in res["sets"]}
    lines = [res["sentence"], ""]
    metrics = [g.split()[0] for g in res["goals"]]
    if res["candidates"]:
        header = ["rank", "parameter set"] + res["goals"] + ["confidence"]
        body = []
        for i, cid in enumerate(res["candidates"], 1):
            s = sets[cid]
            cells = [f"{_fmt(s['figures'][res['primary'][m]].get(m), m)} ({j['status']}, margin "
                     f"{_margin(j['margin'], m)})" for m, j in zip(metrics, s["goals"])]
            conf = ("every interval inside" if s["sure"] else f"min z {s['min_z']:.2f}") + (
                "" if s["robust"] else "; FLAG: not under every pairing")
            body.append([str(i), cid] + cells + [conf])
        lines.append(f"Parameter sets that meet every goal ({len(res['candidates'])} of {len(res['sets'])}), ranked:")
        lines.append(table(header, body, max_width=40))
    else:
        lines.append(f"No parameter set of {len(res['sets'])} meets every goal.")
    lines.append("")
    x, y = res["tradeoff"]
    body = [[cid, _fmt(sets[cid]["figures"][res["primary"][x]].get(x), x),
             _fmt(sets[cid]["figures"][res["primary"][y]].get(y), y), "yes" if sets[cid]["meets_all"] else "no"]
            for cid in res["front"]]
    lines.append(f"Pareto front, {x} against {y} ({len(res['front'])} sets):")
    lines.append(table(["parameter set", x, y, "meets every goal"], body, max_width=40))
    focus = res["recommended"] or res.get("binding", {}).get("nearest")
    if focus:
        lines.append("")
        lines.append(f"{'Recommended' if res['recommended'] else 'Nearest'} set {focus}, under each pairing:")
        s = sets[focus]
        body = []
        for pair in res["pairings"]:
            row = [pair] + [_fmt(s["figures"][pair].get(m), m) for m in metrics]
            row.append("yes" if pair in s["holds_under"] else "no")
            body.append(row)
        lines.append(table(["pairing"] + metrics + ["meets its goals"], body, max_width=40))
        if res.get("flag"):
            lines.append(f"FLAG: the recommendation {res['flag']}.")
    conf = res.get("confirmation") or {"tried": []}
    for t in conf["tried"]:
        lines += ["", f"Confirmation of {t['set']} on fresh deals (seed {t['seed']}, {confirm_sizes(t)}): "
                  f"{'CONFIRMED' if t['confirmed'] else 'NOT CONFIRMED'}"]
        body = [[g["pairing"], g["goal"], _fmt(g["figure"], g["goal"].split()[0]), g["status"],
                 ("yes" if g["holds"] else "NO") + ("" if g["primary"] else " (not primary)")] for g in t["goals"]]
        lines.append(table(["pairing", "goal", "figure on fresh deals", "status", "still holds"], body, max_width=40))
    ec = res["error_control"]
    lines += ["", "Error control: " + ec["text"] + "; per round: " + ", ".join(
        f"round {x['round']} {x['judgements']} judgement(s) at z {x['z']:.2f}" for x in ec["rounds"]) + "."]
    c = res["cost"]
    lines += [f"Cost: {c['design_hands']:,} hands played in {len(res['rounds'])} round(s) and the confirmation "
              f"({c.get('confirmation_hands', 0):,} of them; {c['played_cells']} played cells for "
              f"{c['parameter_sets']} parameter sets x {c['pairings']} pairings); a brute-force sweep simulating every "
              f"set at the boundary's {c['brute_force_matches_per_cell']:,} matches would play about "
              f"{c['brute_force_hands']:,} hands ({c['ratio']}x the design's).",
              "Figures: estimate [95% interval] n = deals; match figures from the exact match model (delta-method "
              "intervals over deals), per-hand figures from the simulated hands (bootstrap over deals, "
              f"{BOOT_REPS:,} resamples); docs/design.md."]
    return "\n".join(lines)


def _margin(m: float | None, metric: str) -> str:
    if m is None:
        return "n/a"
    return f"{m * 100:+.1f} pts" if METRIC_BY_KEY[metric].share else f"{m:+.2f}"


def cli(args) -> int:
    res = design(args.spec, args.out, jobs=args.jobs, backend=args.backend, scheduler=args.scheduler,
                 quiet=args.quiet or args.json, command=["simsuite", *args.argv], break_lock=args.break_lock,
                 max_cells=args.max_cells)
    if args.json:
        print(json.dumps(res, indent=1, default=_json_default))
    else:
        print(format_design(res))
    return 0


__all__ = ["design", "evaluate", "judge", "pareto", "format_design", "load_design", "round_seed", "confirm_seed",
           "sentence", "ALPHA", "ERROR_CONTROL"]
