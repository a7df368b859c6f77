"""The rule x policy interaction: each conclusion marked robust, policy-dependent or undecided across the pairings."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np

from simsuite.analysis.stats import Z95, Estimate, holm, normal_p, tost_p
from simsuite.errors import SimsuiteError

PAIRINGS = ("basic", "expert", "search")
ROBUST, DEPENDENT = "robust", "policy-dependent"
UNDECIDED = "undecided (n too small)"
POWER = 0.8  # the power the printed sample sizes aim at, for an interaction of the stated margin
SE_FLOOR = 1e-9  # an interval of no width (every deal gave the same difference): known, but not infinitely well


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
    """The SE behind a 95% interval; a zero-width interval gets a tiny floor, so that an effect every deal
    agrees on still pools and tests (with an SE of ~0) instead of counting as missing."""
    return max((e.high - e.low) / (2 * Z95), SE_FLOOR)


def _usable(e: Estimate | None) -> bool:
    return e is not None and bool(e.n) and all(math.isfinite(x) for x in (e.value, e.low, e.high))


def _pool(es: Iterable[Estimate]) -> tuple[float, float]:
    """Inverse-variance pooled effect and its SE (the SEs from the 95% intervals)."""
    w = np.array([1.0 / _se95(e) ** 2 for e in es])
    v = np.array([e.value for e in es])
    return float((w * v).sum() / w.sum()), float(1.0 / math.sqrt(w.sum()))


def interaction_tests(
    effects: Mapping[str, Estimate],
    sign: int,
    margin: float,
    pairings: Iterable[str] = PAIRINGS,
    alpha: float = 0.05,
    power: float = POWER,
) -> dict:
    """The rule x policy interaction of one conclusion, before any correction. For each pairing with
    data: its effect minus the pooled (inverse-variance) effect of the other pairings, ``d``, with its SE
    (the two SEs combined; each from its 95% interval), the two-sided p of "the interaction is not 0"
    (``p_dependent``) and the TOST p of "|interaction| >= margin" (``p_equivalent``). Also the pooled
    effect of all pairings and the one-sided p of its claimed direction (``p_direction``); ``p_robust``,
    the intersection-union p of "robust" (every TOST and the direction: the largest of them); and
    ``n_needed``, the deals per cell, the same under every pairing, at which each interaction test would
    detect an interaction of size ``margin`` with ``power`` at two-sided ``alpha`` (each pairing's variance
    per deal, n x SE^2, taken from its interval). ``missing`` lists pairings without a usable interval."""
    pairings = list(pairings)
    ok = {p: effects[p] for p in pairings if _usable(effects.get(p))}
    missing = [p for p in pairings if p not in ok]
    nan = float("nan")
    out = {
        "tests": {},
        "missing": missing,
        "pooled": nan,
        "pooled_se": nan,
        "p_direction": nan,
        "p_robust": nan,
        "n_needed": None,
        "margin": margin,
    }
    if len(ok) < 2:
        return out
    pooled, pooled_se = _pool(ok.values())
    z = pooled / pooled_se
    out.update(pooled=pooled, pooled_se=pooled_se, p_direction=0.5 * math.erfc(sign * z / math.sqrt(2.0)))
    z_alpha, z_power = _z_quantile(1 - alpha / 2), _z_quantile(power)
    unit = {p: e.n * _se95(e) ** 2 for p, e in ok.items()}  # variance of the effect per deal
    need = 0.0
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
        per_deal = unit[p] + 1.0 / sum(1.0 / unit[q] for q in ok if q != p)  # the interaction's variance x n
        need = max(need, per_deal * ((z_alpha + z_power) / margin) ** 2)
    out["p_robust"] = max([out["p_direction"]] + [t["p_equivalent"] for t in out["tests"].values()])
    out["n_needed"] = int(math.ceil(need))
    return out


def _z_quantile(q: float) -> float:
    """The standard normal quantile (bisection on erfc: no scipy needed here)."""
    lo, hi = -10.0, 10.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if 0.5 * math.erfc(-mid / math.sqrt(2.0)) < q:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def classify_all(
    items: Iterable[tuple[Mapping[str, Estimate], int, float]], pairings: Iterable[str] = PAIRINGS, alpha: float = 0.05
) -> list[dict]:
    """The verdicts on all the conclusions of one notebook, with **one** Holm correction over every p-value
    that grants a mark: for each conclusion its ``p_robust`` and, for each pairing, its ``p_dependent``.
    ``items``: (effects per pairing, claimed sign, margin) per conclusion; the margin is the smallest
    interaction (in the effect's units) that matters, stated before the run.

    - **robust**: the pooled effect lies on the claimed side and every pairing's interaction is within
      ±margin (TOST), Holm-adjusted p below ``alpha``;
    - **policy-dependent**: some pairing's interaction differs from 0 (Holm-adjusted p below ``alpha``);
      ``disagree`` names it with its effect, its interaction d ± SE and the pooled effect of the others;
    - **undecided (n too small)**: neither, or a pairing has no data; ``n_needed`` says how many deals per
      cell would detect an interaction of the margin's size (80% power, two-sided 5%).

    Each verdict: mark, text, disagree, tests (``interaction_tests``), p_robust_holm, n_needed."""
    items = list(items)
    pairings = list(pairings)
    for i, (_, _, margin) in enumerate(items):
        if not (isinstance(margin, (int, float)) and margin > 0):
            raise SimsuiteError(
                f"classify: margin={margin!r} for conclusion {i + 1}; a positive smallest interaction "
                "of interest is required (its claims file's 'margin')"
            )
    runs = [interaction_tests(eff, sign, margin, pairings, alpha) for eff, sign, margin in items]
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
        now = ", ".join(f"{q} {t['effect'].n:,}" for q, t in r["tests"].items())
        need = f"{r['n_needed']:,} under every pairing (now {now})" if r["n_needed"] is not None else ""
        dep = sorted(
            ({"pairing": p, **t} for p, t in r["tests"].items() if t.get("p_dependent_holm", 1.0) < alpha),
            key=lambda d: -abs(d["d"]),
        )
        if r["tests"] and not r["missing"] and r.get("p_robust_holm", 1.0) < alpha:
            mark = ROBUST
            text = (
                f"**{ROBUST}** (pooled {r['pooled']:+.3f} ± {Z95 * r['pooled_se']:.3f}; every interaction within "
                f"±{margin:g}, Holm p = {r['p_robust_holm']:.3g})"
            )
        elif dep:
            mark = DEPENDENT
            text = (
                f"**{DEPENDENT}** ("
                + "; ".join(
                    f"{d['pairing']}: {format_effect(d['effect'])}, interaction {d['d']:+.3f} (SE {d['se']:.3f}) from the "
                    f"others' pooled {d['others']:+.3f}, Holm p = {d['p_dependent_holm']:.3g}"
                    for d in dep
                )
                + ")"
            )
        else:
            mark = UNDECIDED
            why = (
                f"no data or no interval: {', '.join(r['missing'])}"
                if r["missing"]
                else f"largest |interaction| {max(abs(t['d']) for t in r['tests'].values()):.3f} against a margin of "
                f"±{margin:g}; robust Holm p = {r.get('p_robust_holm', float('nan')):.3g}"
            )
            text = (
                f"**{UNDECIDED}** ({why}"
                + (f"; deals per cell needed to detect ±{margin:g} (80% power): {need}" if need else "")
                + ")"
            )
        out.append(
            {
                "mark": mark,
                "text": text,
                "detail": text[len(mark) + 6 : -1],
                "disagree": dep,
                "tests": r["tests"],
                "missing": r["missing"],
                "pooled": r["pooled"],
                "p_robust_holm": r.get("p_robust_holm", float("nan")),
                "n_needed": r["n_needed"],
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
