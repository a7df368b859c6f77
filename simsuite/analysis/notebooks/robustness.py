"""The rule x policy interaction: each conclusion marked robust, policy-dependent or undecided across the pairings."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np

from simsuite.analysis.stats import Z95, Estimate, holm, normal_p, tost_p
from simsuite.errors import SimsuiteError

# the policy ladder, weakest first: two heuristics, the learned policy the findings are played with, and a search
PAIRINGS = ("basic", "expert", "learned", "search")
ROBUST, DEPENDENT = "robust", "policy-dependent"
UNDECIDED = "undecided (n too small)"
POWER = 0.8  # the power the printed sample sizes aim at
POWER_REPS = 4000  # simulated notebooks per candidate n (the power's Monte Carlo SE: about 0.6 points at 80%)
POWER_SEED = 46  # the power simulation's seed (explicit: the printed n's are reproducible)
POWER_N_MAX = 10_000_000  # deals per cell beyond which the search stops ("more than ...")
NOTE_ZERO_WIDTH = "an interval of no width (every deal gave the same difference): left out of the pooled effects"


def nan_estimate() -> Estimate:
    """An effect with no data (n = 0)."""
    return Estimate(float("nan"), float("nan"), float("nan"), 0)


def format_effect(e: Estimate, digits: int = 3) -> str:
    """``+0.100 [+0.090, +0.110] n=5,000`` (``?`` for an unbounded end; ``n/a`` without data)."""
    if not e.n or not math.isfinite(e.value):
        return "n/a"
    lo = f"{e.low:+.{digits}f}" if math.isfinite(e.low) else "?"
    hi = f"{e.high:+.{digits}f}" if math.isfinite(e.high) else "?"
    return f"{e.value:+.{digits}f} [{lo}, {hi}] n={e.n:,}"


def _se95(e: Estimate) -> float:
    """The SE behind a 95% interval (0 for an interval of no width)."""
    return (e.high - e.low) / (2 * Z95)


def moved(effects: Mapping[str, Estimate], new: str = "learned", old: str = "expert") -> Estimate:
    """How far a conclusion's effect moved between two pairings of the ladder: ``new``'s effect minus
    ``old``'s, with the 95% interval of two independent estimates (conservative: the pairings play the same
    deals, so their errors are positively correlated). n is the smaller of the two; no data, ``nan_estimate``.
    The findings quote it as the change from the ``expert``-based finding."""
    a, b = effects.get(new), effects.get(old)
    if not (_usable(a) and _usable(b)):
        return nan_estimate()
    d = a.value - b.value
    half = Z95 * math.hypot(_se95(a), _se95(b))
    return Estimate(d, d - half, d + half, min(a.n, b.n))


def _usable(e: Estimate | None) -> bool:
    return e is not None and bool(e.n) and all(math.isfinite(x) for x in (e.value, e.low, e.high))


def _pool(es: Iterable[Estimate]) -> tuple[float, float]:
    """Inverse-variance pooled effect and its SE (the SEs from the 95% intervals), over the effects whose
    interval has a width. An interval of no width (every deal gave the same difference) does not say its
    effect is known exactly, only that the sample shows no spread: with any floor on its SE it would take
    almost all the weight (notebook 03, bottom 6: basic's [0, 0] was "the others' pooled effect" by itself),
    so it is left out of the pool. (NaN, NaN) when no effect has a width."""
    es = [e for e in es if _se95(e) > 0]
    if not es:
        return float("nan"), float("nan")
    w = np.array([1.0 / _se95(e) ** 2 for e in es])
    v = np.array([e.value for e in es])
    return float((w * v).sum() / w.sum()), float(1.0 / math.sqrt(w.sum()))


def _max_or_nan(ps: Iterable[float]) -> float:
    """The largest p-value (an intersection-union test), NaN when any part could not be tested."""
    ps = list(ps)
    return float("nan") if any(not math.isfinite(p) for p in ps) else max(ps)


def interaction_tests(
    effects: Mapping[str, Estimate],
    sign: int,
    margin: float,
    pairings: Iterable[str] = PAIRINGS,
    alpha: float = 0.05,
) -> dict:
    """The rule x policy interaction of one conclusion, before any correction. For each pairing with
    data: its effect minus the pooled (inverse-variance) effect of the other pairings, ``d``, with its SE
    (the two SEs combined; each from its 95% interval), the two-sided p of "the interaction is not 0"
    (``p_dependent``) and the TOST p of "|interaction| >= margin" (``p_equivalent``). Also the pooled
    effect of all pairings and the one-sided p of its claimed direction (``p_direction``); ``p_robust``,
    the intersection-union p of "robust" (every TOST and the direction: the largest of them, NaN if one
    of them could not be tested). ``missing`` lists pairings without a usable interval; ``zero_width`` those
    whose interval has no width: they are tested against the others' pooled effect but enter no pooled
    effect (``_pool``). A p-value that cannot be computed (the others' pooled effect has no SE) is NaN:
    not tested, left out of the Holm family. Deals per cell for 80% power: ``power_n``. A pairing of
    ``pairings`` that ``effects`` lacks is missing."""
    pairings = list(pairings)
    ok = {p: effects[p] for p in pairings if _usable(effects.get(p))}
    missing = [p for p in pairings if p not in ok]
    nan = float("nan")
    out = {
        "tests": {},
        "missing": missing,
        "zero_width": [p for p, e in ok.items() if not _se95(e) > 0],
        "pooled": nan,
        "pooled_se": nan,
        "p_direction": nan,
        "p_robust": nan,
        "margin": margin,
    }
    if len(ok) < 2:
        return out
    pooled, pooled_se = _pool(ok.values())
    p_direction = 0.5 * math.erfc(sign * pooled / pooled_se / math.sqrt(2.0)) if pooled_se > 0 else nan
    out.update(pooled=pooled, pooled_se=pooled_se, p_direction=p_direction)
    for p, e in ok.items():
        o_val, o_se = _pool([x for q, x in ok.items() if q != p])
        d, se = e.value - o_val, math.hypot(_se95(e), o_se)
        out["tests"][p] = {
            "effect": e,
            "others": o_val,
            "d": d,
            "se": se,
            "p_dependent": normal_p(d, se),
            "p_equivalent": tost_p(d, se, margin),
        }
    out["p_robust"] = _max_or_nan([out["p_direction"]] + [t["p_equivalent"] for t in out["tests"].values()])
    return out


# --- power: simulate the classifier itself -------------------------------------------------------------------------


# Numerical Recipes' erfcc: erfc(z) = t exp(-z^2 + P(t)), t = 1 / (1 + z/2), P's coefficients lowest order first
_ERFC_POLY = (
    -1.26551223,
    1.00002368,
    0.37409196,
    0.09678418,
    -0.18628806,
    0.27886807,
    -1.13520398,
    1.48851587,
    -0.82215223,
    0.17087277,
)


def _erfc(x: np.ndarray) -> np.ndarray:
    """Complementary error function, vectorised (fractional error below 1.2e-7 everywhere: far below the
    Monte Carlo error of a power; numpy has none and scipy is not a dependency)."""
    z = np.abs(x)
    t = 1.0 / (1.0 + 0.5 * z)
    poly = np.zeros_like(t)
    for c in reversed(_ERFC_POLY):
        poly = c + t * poly
    r = t * np.exp(-z * z + poly)
    return np.where(x >= 0, r, 2.0 - r)


def simulate_marks(
    mu: np.ndarray,
    unit: np.ndarray,
    n: float,
    z: np.ndarray,
    sign: int,
    margin: float,
    family: int,
    alpha: float = 0.05,
) -> tuple[np.ndarray, np.ndarray]:
    """``classify_all``'s marks for one conclusion on simulated data, vectorised: the pairings' true effects
    ``mu`` (P), their variances per deal ``unit`` (P; an effect's SE at n deals is sqrt(unit / n)), standard
    normal draws ``z`` (R x P: R simulated notebooks). The effects are drawn, their 95% intervals are the
    normal ones, and the same tests follow (pooling without the zero-width effects, the interactions, the
    TOSTs, the direction, NaN where a pool is empty); Holm runs over a family of ``family`` p-values of which
    the other conclusions' reject nothing (their p-values at 1: the least favourable case, since Holm only
    rejects more when other p-values fall), the untestable (NaN) ones left out as ``classify_all`` does.
    Returns (robust, policy-dependent): booleans per simulated notebook."""
    mu, unit = np.asarray(mu, float), np.asarray(unit, float)
    reps = z.shape[0]
    se = np.sqrt(unit / n)
    x = mu + z * se
    w = np.divide(1.0, se * se, out=np.zeros_like(se), where=se > 0)
    wx = x @ w
    root2 = math.sqrt(2.0)
    # every one-sided p-value is the normal upper tail of a z: the robust p (the largest of the direction's p
    # and the TOSTs', each TOST's the larger of its two one-sided p's) is the tail of the smallest of those z's
    z_rob = sign * (wx / w.sum()) * math.sqrt(w.sum()) if w.sum() > 0 else np.full(reps, np.nan)
    cols = []
    for p in range(len(mu)):
        wo = w.sum() - w[p]
        if not wo > 0:  # the others' pool is empty: neither this interaction nor robust can be tested
            cols.append(np.full(reps, np.nan))
            z_rob = np.full(reps, np.nan)
            continue
        d = x[:, p] - (wx - x[:, p] * w[p]) / wo
        sd = math.sqrt(se[p] ** 2 + 1.0 / wo)
        cols.append(_erfc(np.abs(d) / (sd * root2)))
        z_rob = np.minimum(z_rob, (margin - np.abs(d)) / sd)
    own = np.column_stack([0.5 * _erfc(z_rob / root2)] + cols)
    tested = ~np.isnan(own[0])
    k = int(tested.sum())
    reject = np.zeros(own.shape, bool)
    if k:
        # Holm: the sorted p's reject while p_(i) < alpha / (m - i); a p-value is rejected when it is at most the
        # last sorted value rejected (ties share one adjusted p-value)
        m = family - (own.shape[1] - k)  # the family less this conclusion's untestable p-values
        sub = own[:, tested]
        srt = np.sort(sub, axis=1)
        run = np.logical_and.accumulate(srt * (m - np.arange(k)) < alpha, axis=1).sum(axis=1)
        last = np.where(run > 0, srt[np.arange(reps), np.maximum(run - 1, 0)], -np.inf)
        reject[:, tested] = sub <= last[:, None]
    robust = reject[:, 0]
    return robust, ~robust & reject[:, 1:].any(axis=1)


def _smallest_n(power_at, target: float, n_max: int) -> int | None:
    """The smallest n (2 or more) at which ``power_at(n)`` reaches ``target``: doubling, then bisection (with
    common random numbers the simulated power rises with n). None when even ``n_max`` falls short."""
    if power_at(n_max) < target:
        return None
    lo, hi = 1, 2
    while hi < n_max and power_at(hi) < target:
        lo, hi = hi, min(2 * hi, n_max)
    while hi - lo > max(1, hi // 500):  # to 0.2%: far finer than the Monte Carlo error of the n found
        mid = (lo + hi) // 2
        if power_at(mid) >= target:
            hi = mid
        else:
            lo = mid
    return hi


def _unsized(family: int, power: float, reps: int, seed: int, why: str | None) -> dict:
    """``power_n``'s answer before (or without) the simulation: no n, ``why`` for both marks."""
    return {
        "robust": None,
        "dependent": None,
        "robust_why": why,
        "dependent_why": why,
        "hardest": None,
        "power_robust": float("nan"),
        "power_dependent": float("nan"),
        "family": family,
        "reps": reps,
        "seed": seed,
        "power": power,
    }


def power_n(
    effects: Mapping[str, Estimate],
    sign: int,
    margin: float,
    family: int,
    pairings: Iterable[str] = PAIRINGS,
    alpha: float = 0.05,
    power: float = POWER,
    reps: int = POWER_REPS,
    seed: int = POWER_SEED,
) -> dict:
    """Deals per cell, the same under every pairing, at which the classifier itself (``classify_all``, with a
    Holm family of ``family`` p-values, the notebook's) gives its mark with probability ``power``; found by
    simulating it (``simulate_marks``: ``reps`` simulated notebooks per candidate n, normal effects with each
    pairing's observed SE scaled by sqrt(n_observed / n), seed ``seed``, the same draws at every n).

    - ``robust``: n for the mark **robust** when there is no interaction: every pairing's true effect is the
      observed pooled effect. None (with ``robust_why``) when that effect is not on the claimed side.
    - ``dependent``: n for the mark **policy-dependent** when one pairing's effect is the others' plus
      ``margin``; the pairing whose deviation is hardest to detect (``hardest``) sets it.

    Either is None with a reason when a pairing has no data or no effect has a width, or when even
    ``POWER_N_MAX`` deals fall short. ``power_robust`` / ``power_dependent``: the simulated power at the n given."""
    pairings = list(pairings)
    out = _unsized(family, power, reps, seed, None)
    missing = [p for p in pairings if not _usable(effects.get(p))]
    if missing or len(pairings) < 2:
        out["robust_why"] = out["dependent_why"] = f"no data or no interval: {', '.join(missing) or 'one pairing'}"
        return out
    es = [effects[p] for p in pairings]
    unit = np.array([e.n * _se95(e) ** 2 for e in es])
    if not (unit > 0).any():
        out["robust_why"] = out["dependent_why"] = "no pairing's interval has a width"
        return out
    c, _ = _pool(es)
    if (unit > 0).sum() < 2:  # every pool but one is empty: the robust p-value is never tested (NaN)
        out["robust_why"] = "fewer than two pairings' intervals have a width, so robust cannot be tested"
    z = np.random.default_rng(seed).standard_normal((reps, len(es)))
    mu0 = np.full(len(es), c)
    too_many = f"more than {POWER_N_MAX:,}"

    def robust_at(n):
        return float(simulate_marks(mu0, unit, n, z, sign, margin, family, alpha)[0].mean())

    if out["robust_why"]:
        pass
    elif sign * c > 0:
        out["robust"] = _smallest_n(robust_at, power, POWER_N_MAX)
        if out["robust"] is None:
            out["robust_why"] = too_many
        else:
            out["power_robust"] = robust_at(out["robust"])
    else:
        out["robust_why"] = "the pooled effect is not on the claimed side"

    def dependent_each(n):
        got = []
        for i in range(len(es)):
            mu = mu0.copy()
            mu[i] += margin
            got.append(float(simulate_marks(mu, unit, n, z, sign, margin, family, alpha)[1].mean()))
        return got

    out["dependent"] = _smallest_n(lambda n: min(dependent_each(n)), power, POWER_N_MAX)
    if out["dependent"] is None:
        out["dependent_why"] = too_many
    else:
        each = dependent_each(out["dependent"])
        out["power_dependent"] = min(each)
        out["hardest"] = pairings[int(np.argmin(each))]
    return out


def _needed(r: dict, margin: float, now: str) -> str:
    """Both n's for 80% power as the marks print them."""

    def one(key):
        return f"{r[key]:,}" if r[key] is not None else f"n/a ({r[key + '_why']})"

    return (
        f"deals per cell needed for {r['power']:.0%} power (the classifier simulated with Holm over "
        f"{r['family']} p-values): robust {one('robust')}, policy-dependent at an interaction of ±{margin:g} "
        f"{one('dependent')}, under every pairing (now {now})"
    )


def _p(x: float) -> str:
    """A Holm-adjusted p-value as the marks print it; "not tested" for NaN."""
    return f"{x:.3g}" if math.isfinite(x) else "not tested"


def classify_all(
    items: Iterable[tuple[Mapping[str, Estimate], int, float]],
    pairings: Iterable[str] = PAIRINGS,
    alpha: float = 0.05,
    power: float = POWER,
    reps: int = POWER_REPS,
    seed: int = POWER_SEED,
    size: bool = True,
) -> list[dict]:
    """The verdicts on all the conclusions of one notebook, with **one** Holm correction over every p-value
    that grants a mark: for each conclusion its ``p_robust`` and, for each pairing, its ``p_dependent``.
    ``items``: (effects per pairing, claimed sign, margin) per conclusion; the margin is the smallest
    interaction (in the effect's units) that matters, stated before the run. A p-value that cannot be
    computed (NaN) is not tested: it is left out of the family and never grants a mark.

    - **robust**: the pooled effect lies on the claimed side and every pairing's interaction is within
      ±margin (TOST), Holm-adjusted p below ``alpha``;
    - **policy-dependent**: some pairing's interaction differs from 0 (Holm-adjusted p below ``alpha``);
      ``disagree`` names it with its effect, its interaction d ± SE and the pooled effect of the others;
    - **undecided (n too small)**: neither, or a pairing has no data; ``n_robust`` and ``n_dependent`` say
      how many deals per cell would give the mark robust (no interaction) or policy-dependent (an
      interaction of the margin's size) with probability ``power``, by simulating this classifier with this
      family's size (``power_n``: ``reps`` simulated notebooks, seed ``seed``; ``size=False`` skips it, for
      simulations that call this classifier many times).

    Each verdict: mark, text, disagree, tests (``interaction_tests``), p_robust_holm, n_robust, n_dependent,
    power (``power_n``'s dict), zero_width (pairings left out of the pools), notes."""
    items = list(items)
    pairings = list(pairings)
    for i, (_, _, margin) in enumerate(items):
        if not (isinstance(margin, (int, float)) and margin > 0):
            raise SimsuiteError(
                f"classify: margin={margin!r} for conclusion {i + 1}; a positive smallest interaction "
                "of interest is required (its claims file's 'margin')"
            )
    runs = [interaction_tests(eff, sign, margin, pairings, alpha) for eff, sign, margin in items]
    family = len(items) * (len(pairings) + 1)  # the notebook's Holm family when every p-value can be tested
    flat = []  # (conclusion index, pairing or None, p)
    for i, r in enumerate(runs):
        if r["tests"]:
            flat.append((i, None, r["p_robust"]))
            flat += [(i, p, t["p_dependent"]) for p, t in r["tests"].items()]
    adj = holm([p for _, _, p in flat]) if flat else np.array([])
    for (i, p, _), a in zip(flat, adj):
        if p is None:
            runs[i]["p_robust_holm"] = float(a)
        else:
            runs[i]["tests"][p]["p_dependent_holm"] = float(a)
    out = []
    for (eff, sign, margin), r in zip(items, runs):
        pw = (
            power_n(eff, sign, margin, family, pairings, alpha, power, reps, seed)
            if size
            else _unsized(family, power, reps, seed, "not computed (size=False)")
        )
        now = ", ".join(f"{q} {t['effect'].n:,}" for q, t in r["tests"].items())
        notes = [f"{q}: {NOTE_ZERO_WIDTH}" for q in r["zero_width"]]
        notes += [
            f"{q}'s interaction not tested (the others' pooled effect has no interval width)"
            for q, t in r["tests"].items()
            if not math.isfinite(t["p_dependent"])
        ]
        p_rob = r.get("p_robust_holm", float("nan"))
        dep = sorted(
            ({"pairing": p, **t} for p, t in r["tests"].items() if t.get("p_dependent_holm", 1.0) < alpha),
            key=lambda d: -abs(d["d"]),
        )
        if r["tests"] and not r["missing"] and p_rob < alpha:
            mark = ROBUST
            text = (
                f"**{ROBUST}** (pooled {r['pooled']:+.3f} ± {Z95 * r['pooled_se']:.3f}; every interaction within "
                f"±{margin:g}, Holm p = {_p(p_rob)}"
            )
        elif dep:
            mark = DEPENDENT
            text = f"**{DEPENDENT}** (" + "; ".join(
                f"{d['pairing']}: {format_effect(d['effect'])}, interaction {d['d']:+.3f} (SE {d['se']:.3f}) from the "
                f"others' pooled {d['others']:+.3f}, Holm p = {_p(d['p_dependent_holm'])}"
                for d in dep
            )
        else:
            mark = UNDECIDED
            ds = [abs(t["d"]) for t in r["tests"].values() if math.isfinite(t["d"])]
            why = (
                f"no data or no interval: {', '.join(r['missing'])}"
                if r["missing"]
                else (f"largest |interaction| {max(ds):.3f}" if ds else "no interaction tested")
                + f" against a margin of ±{margin:g}; robust Holm p = {_p(p_rob)}"
            )
            text = f"**{UNDECIDED}** ({why}; " + (
                "no deals per cell needed can be given until every pairing has an interval"
                if r["missing"]
                else _needed(pw, margin, now)
            )
        text += "".join(f"; {n}" for n in notes) + ")"
        out.append(
            {
                "mark": mark,
                "text": text,
                "detail": text[len(mark) + 6 : -1],
                "disagree": dep,
                "tests": r["tests"],
                "missing": r["missing"],
                "zero_width": r["zero_width"],
                "notes": notes,
                "pooled": r["pooled"],
                "p_robust_holm": p_rob,
                "n_robust": pw["robust"],
                "n_dependent": pw["dependent"],
                "power": pw,
                "margin": margin,
            }
        )
    return out


def classify(
    effects: Mapping[str, Estimate],
    sign: int = +1,
    margin: float | None = None,
    pairings: Iterable[str] = PAIRINGS,
    alpha: float = 0.05,
) -> dict:
    """The verdict on one conclusion (``classify_all`` with a family of one). ``margin`` is required:
    robustness is an equivalence claim and means nothing without it."""
    if margin is None or not margin > 0:
        raise SimsuiteError(f"classify: margin={margin!r}; a positive smallest interaction of interest is required")
    return classify_all([(effects, sign, margin)], pairings, alpha)[0]
