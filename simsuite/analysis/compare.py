"""Agreement between two policies in self-play: ``simsuite compare-policies``.

For each variant the same deals are played twice: once with policy A at all four seats, once
with policy B at all four seats. Hand i of both runs is dealt from the same generator state
(``sim.hands.play_hands``: hand i's random state, level and first drawer depend on its index alone),
so each figure's difference A - B is a mean of per-hand paired differences, with a normal 95%
interval over hands. Hands are independent opening hands of a match at the variant's start
level (as ``duel`` plays them), so a plain interval over hands applies.

The figures: take-over rate; mean defender points (also as a relative difference, A / B - 1);
share of hands with points in the bottom; capture points per hand (the points the last-trick
capture of the bottom moved, from the defenders' side); mean |level change| per hand. The
verdict of the agreement target is given for the take-over rate and the defender points.
``report.compare_text`` prints the results.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..engine.hand import RECORD_FIELDS
from ..engine.names import parse_pair
from ..rules.variant import Variant
from ..sim.hands import DUEL_CHUNK, play_hands
from .calibrate import clean, verdict
from .stats import Estimate, mean_ci, wilson, within

DEFAULT_POLICIES = "expert,search"
DEFAULT_HANDS = 200
SEARCH_CHUNK = 4  # hands per task for a search policy (a few hands a second), so workers share the work

# The agreement target, on every variant: expert's take-over rate within 5 percentage points of
# search's, and its mean defender points within 5% of search's. A is held to B's figures.
TAKEOVER_BOUND = 0.05  # absolute, on the difference of take-over rates (a share: 5 percentage points)
POINTS_BOUND = 0.05  # relative, on mean defender points: A's mean / B's mean - 1

_COL = {
    name: RECORD_FIELDS.index(name)
    for name in ("takeover", "final_points", "bottom_points", "capture_points", "levels_ns", "levels_ew")
}


@dataclass(frozen=True)
class Measure:
    name: str
    kind: str  # "share" (a fraction, printed as a percentage), "points" or "levels"
    label: str
    what: str
    per_hand: Callable[[np.ndarray], np.ndarray]  # record rows -> one value per hand
    floor: float = -math.inf  # the least value a hand can have (an interval never reaches below it)


MEASURES: tuple[Measure, ...] = (
    Measure(
        "takeover_rate",
        "share",
        "take-over rate",
        "share of hands in which the defenders' final points reach the take-over threshold",
        lambda r: r[:, _COL["takeover"]] != 0,
    ),
    Measure(
        "defender_points_mean",
        "points",
        "defender points per hand",
        "defenders' final points per hand (trick points, capture and penalties)",
        lambda r: r[:, _COL["final_points"]],
    ),
    Measure(
        "bottom_points_share",
        "share",
        "hands with points in the bottom",
        "share of hands whose buried cards hold points",
        lambda r: r[:, _COL["bottom_points"]] > 0,
    ),
    Measure(
        "capture_points_mean",
        "points",
        "capture points per hand",
        "points the last-trick capture moved, per hand (of the bottom; in guangxi-2012, which has no "
        "bottom, of the multiplied last trick): positive to the defenders, negative where the declarers capture",
        lambda r: r[:, _COL["capture_points"]],
    ),
    Measure(
        "level_change_mean",
        "levels",
        "|level change| per hand",
        "levels gained in the hand by either team, per hand",
        lambda r: np.abs(r[:, _COL["levels_ns"]]) + np.abs(r[:, _COL["levels_ew"]]),
        floor=0.0,
    ),
)
# figure -> (bound, the estimate it applies to)
TARGETS = {
    "takeover_rate": (TAKEOVER_BOUND, "difference"),
    "defender_points_mean": (POINTS_BOUND, "relative_difference"),
}


def _own(m: Measure, x: np.ndarray) -> Estimate:
    return wilson(float(x.sum()), x.size) if m.kind == "share" else within(mean_ci(x), m.floor)


def relative_difference(a: np.ndarray, b: np.ndarray) -> Estimate:
    """mean(a) / mean(b) - 1 over paired hands, with a delta-method 95% interval (the paired
    residuals a_i - r b_i, r the ratio of means). No interval when mean(b) is 0."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    mb = float(b.mean()) if b.size else 0.0
    if mb == 0.0:
        return Estimate(float("nan"), float("nan"), float("nan"), int(a.size))
    r = float(a.mean()) / mb
    e = mean_ci((a - r * b) / mb)  # mean 0: its interval is the ratio's, centred
    return Estimate(r - 1.0, r - 1.0 + e.low - e.value, r - 1.0 + e.high - e.value, e.n)


def chunk_for(policy: str) -> int:
    """Hands per worker task: small for search (slow, uneven hands), duel's chunk otherwise."""
    return SEARCH_CHUNK if policy.strip().startswith("search") else DUEL_CHUNK


def compare(variant: Variant, a: str, b: str, hands: int, seed: int, jobs: int = 1, chunk: int | None = None) -> dict:
    """Self-play of ``a`` and of ``b`` (each at all four seats) on hands 0..hands-1 of ``seed``,
    every figure of each with its interval, and the paired differences a - b. The same numbers
    whatever ``jobs`` and ``chunk``. Does not refuse a == b (the differences are then exactly 0)."""
    rows = {p: play_hands(variant, seed, hands, p, jobs, chunk or chunk_for(p)) for p in dict.fromkeys((a, b))}
    ra, rb = rows[a], rows[b]
    figures: dict[str, dict] = {}
    for m in MEASURES:
        xa, xb = m.per_hand(ra).astype(float), m.per_hand(rb).astype(float)
        diff = within(mean_ci(xa - xb), -1.0, 1.0) if m.kind == "share" else mean_ci(xa - xb)
        est = {
            "a": _own(m, xa),
            "b": _own(m, xb),
            "difference": diff,
            "relative_difference": relative_difference(xa, xb) if m.name == "defender_points_mean" else None,
        }
        fig = {
            "label": m.label,
            "what": m.what,
            "kind": m.kind,
            **{k: None if e is None else _est(e) for k, e in est.items()},
            "target": None,
        }
        if m.name in TARGETS:
            bound, on = TARGETS[m.name]
            fig["target"] = {"bound": bound, "on": on, "verdict": verdict(est[on].low, est[on].high, -bound, bound)}
        figures[m.name] = fig
    return {
        "variant": variant.id,
        "rules_hash": variant.rules_hash,
        "a": a,
        "b": b,
        "difference": f"{a} minus {b}",
        "hands": hands,
        "seed": seed,
        "figures": figures,
    }


def _est(e: Estimate) -> dict:
    return {"value": clean(e.value), "low": clean(e.low), "high": clean(e.high), "n": e.n}


# --- the command -----------------------------------------------------------------------------------


def load_variants(choices: Sequence[str] | None) -> list[Variant]:
    """``--variant`` given zero or more times; ``all`` (or nothing) is every shipped variant."""
    from ..engine.params import engine_ready
    from ..rules.variant import load_all, load_variant

    choices = list(choices or ["all"])
    variants = load_all() if "all" in choices else [load_variant(c) for c in dict.fromkeys(choices)]
    for v in variants:
        engine_ready(v)
    return variants


def run(
    variants: Sequence[str] | None,
    *,
    policies: Any = DEFAULT_POLICIES,
    hands: Any = DEFAULT_HANDS,
    seed: Any = 1,
    jobs: Any = 1,
) -> list[dict]:
    """Validate everything first (one line for the first bad input), then compare on each variant."""
    from ..sim.limits import HAND_BYTES, check_int, check_jobs, check_memory, check_seed

    a, b = parse_pair(policies)
    check_int("--hands", hands, 2)
    check_seed("--seed", seed)
    check_jobs("--jobs", jobs)
    check_memory(f"--hands {hands:,}", 2 * hands * HAND_BYTES, "play fewer hands")
    chosen = load_variants(variants)
    return [compare(v, a, b, hands, seed, jobs) for v in chosen]


__all__ = [
    "MEASURES",
    "TARGETS",
    "TAKEOVER_BOUND",
    "POINTS_BOUND",
    "compare",
    "relative_difference",
    "parse_pair",
    "load_variants",
    "run",
]
