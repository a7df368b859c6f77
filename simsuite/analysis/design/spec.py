"""Design specs: an organiser's question as data (docs/design.md).

A design spec is a TOML file naming a base variant, the rule parameters to search (a ``[grid]`` in
the sweep grammar, ``simsuite.sim.sweep``, where a value may also be a range ``{ from, to, by }``),
the policy pairings to judge with, the goals (``metric = "<= bound"``) and the two metrics of the
trade-off. ``read_design`` checks all of it and reports every problem at once, one line each,
before any play: an unknown key, parameter or metric, a bad operator or bound, a value the variant
rejects, a missing pairing or trade-off.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...engine.names import parse_policies
from ...errors import SimsuiteError, VariantError, read_toml, unknown_keys
from ...rules.variant import load_variant
from ...sim.limits import MAX_SEED, check_int
from ...sim.spec import DEFAULT_CHUNK, Cell
from ...sim.sweep import build_cells, cell_value, decks_scaling_problems, grid_combos, grid_problems
from ..exact import RESCORABLE

DESIGN_KEYS = ("base", "seed", "grid", "pairings", "goals", "tradeoff", "search", "decks_scaling", "chunk")
# the successive-sampling budget: matches per cell and pairing in the first round, the factor by
# which a round multiplies the matches of the cells still undecided, the most rounds, and the
# bootstrap resamples of the figures from simulated hands (at least figures.BOOT_REPS = 1,000 are
# used whatever is written; the exact model's intervals are analytic)
SEARCH_DEFAULTS = {"matches": 100, "growth": 3, "rounds": 3, "reps": 1000}
# reps: bootstrap resamples of the figures from simulated hands; fewer than 1,000 give intervals that cover
# less than they say (docs/design.md)
SEARCH_MINIMA = {"matches": 2, "growth": 2, "rounds": 1, "reps": 1000}
# and maxima: past these a search would run for days (matches per cell in the first round, the growth
# per round, the rounds, the exact model's bootstrap resamples), docs/design.md "Limits"
SEARCH_MAXIMA = {"matches": 100_000, "growth": 10, "rounds": 10, "reps": 10_000}
MAX_AXIS_VALUES = 1_000  # values of one grid axis
MAX_PLAYED_CELLS = 500  # played cells (parameter sets that play, x pairings), unless --max-cells raises it
OPS = ("<=", ">=")
# Rule fields the exact match model re-scores without new play (the clock and the duration model):
# the one list, ``analysis.exact.RESCORABLE``. Every other parameter is simulated.
RESCORED_KEYS = RESCORABLE


@dataclass(frozen=True)
class DesignMetric:
    """A figure a goal can name: where it comes from (``exact``: the solved match chain, falling
    back to simulated matches; ``hands``: the simulated hands) and its key there."""

    key: str
    label: str
    source: str
    source_key: str
    share: bool
    unequal_only: bool = False
    fallback: str | None = None  # the metrics.summarise key for simulated matches


DESIGN_METRICS: tuple[DesignMetric, ...] = (
    DesignMetric(
        "match_minutes",
        "modelled minutes per match (mean)",
        "exact",
        "minutes_mean",
        False,
        fallback="minutes_per_match",
    ),
    DesignMetric("hands_per_match", "hands per match (mean)", "exact", "hands_mean", False, fallback="hands_per_match"),
    DesignMetric(
        "stronger_wins",
        "the stronger policy wins the match (share; a draw is not a win)",
        "exact",
        "p_a",
        True,
        True,
        "policy_a_win",
    ),
    DesignMetric("weaker_wins", "the weaker policy wins the match (share)", "exact", "p_b", True, True, "policy_b_win"),
    DesignMetric("draws", "drawn matches (share)", "exact", "p_draw", True, fallback="pair_draw"),
    DesignMetric(
        "clock_share", "timed matches ended by the clock (share)", "exact", "clock_share", True, fallback="clock_share"
    ),
    DesignMetric(
        "lead_changes", "lead changes per match (mean)", "exact", "lead_changes", False, fallback="lead_changes"
    ),
    DesignMetric("big_swing_share", "hands with |level change| >= 2 (share)", "hands", "big_swing_share", True),
    DesignMetric("takeover_rate", "hands where the defenders take over (share)", "hands", "takeover_rate", True),
    DesignMetric(
        "level_change_mean", "level change per hand, mean |change| (levels)", "hands", "level_change_mean", False
    ),
)
METRIC_BY_KEY = {m.key: m for m in DESIGN_METRICS}


@dataclass(frozen=True)
class Goal:
    """``metric op bound``; ``op`` is "<=" (smaller is better) or ">=" (larger is better)."""

    metric: str
    op: str
    bound: float

    @property
    def sign(self) -> int:
        return 1 if self.op == ">=" else -1

    def text(self) -> str:
        return f"{self.metric} {self.op} {self.bound:g}"


@dataclass
class ParamSet:
    """One combination of the searched parameters: its rules, and the played cell whose hands
    judge it (the same rules without the re-scored clock keys)."""

    id: str
    params: dict
    variant: Any
    played: str  # the id of the played cell
    rescore: dict  # the clock keys the exact model re-scores the played cell's hands under


@dataclass
class DesignSpec:
    path: str
    raw: dict
    base: str
    seed: int
    grid: dict
    pairings: list[tuple[str, str]]
    goals: list[Goal]
    tradeoff: tuple[str, str]
    search: dict
    chunk: int
    sets: list[ParamSet] = field(default_factory=list)
    played: dict[str, Cell] = field(default_factory=dict)

    @property
    def hash(self) -> str:
        return hashlib.sha256(json.dumps(self.raw, sort_keys=True, default=str).encode()).hexdigest()[:16]

    def direction(self, metric: str) -> int:
        """+1 where larger is better, -1 where smaller is (from the metric's goals)."""
        return next(g.sign for g in self.goals if g.metric == metric)

    def primary(self, metric: str) -> tuple[str, str]:
        """The pairing a goal on ``metric`` is judged under: the first listed where it is defined."""
        return next(p for p in self.pairings if defined(metric, p))


def defined(metric: str, pairing: tuple[str, str]) -> bool:
    """Whether ``metric`` has a value under ``pairing`` (the stronger side needs two policies)."""
    return not (METRIC_BY_KEY[metric].unequal_only and pairing[0] == pairing[1])


TOO_MANY_TO_COUNT = 10**15  # a range of more values than this is said to have "more than 1e+15"


def _range_count(a, b, by) -> int | None:
    """The values of the range from ``a`` to ``b`` (both included) by ``by``: exact for integers; None for
    floats whose ``(b - a) / by`` overflows (``from = 0, to = 1e308, by = 1e-308``)."""
    if all(isinstance(x, int) for x in (a, b, by)):
        return (b - a) // by + 1
    try:
        span = (b - a) / by
    except OverflowError:  # an integer end past a float's range
        return None
    return math.floor(span + 1e-9) + 1 if math.isfinite(span) else None


def _short(value: Any) -> str:
    """A range table as written in a message, a huge integer end shortened to its magnitude."""

    def num(x):
        if not isinstance(x, int) or abs(x) < TOO_MANY_TO_COUNT:
            return repr(x)
        return f"{x:.3g}" if abs(x) < 10**300 else f"{'-' if x < 0 else ''}<{len(str(abs(x)))}-digit integer>"

    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {num(v)}" for k, v in value.items()) + " }"
    return repr(value)


def _expand_range(key: str, value: Any) -> tuple[list | None, str | None]:
    """A grid value: a list, or a range table ``{ from = a, to = b, by = c }`` (both ends included)."""
    if isinstance(value, list):
        if len(value) > MAX_AXIS_VALUES:
            return None, f"grid.{key} lists {len(value):,} values; an axis has at most {MAX_AXIS_VALUES:,}"
        return value, None
    if isinstance(value, dict):
        bad = [k for k in value if k not in ("from", "to", "by")]
        nums = [value.get(k) for k in ("from", "to", "by")]
        if bad or any(isinstance(x, bool) or not isinstance(x, (int, float)) for x in nums):
            return None, f"grid.{key}: a range is {{ from = A, to = B, by = STEP }} with three numbers; got {value!r}"
        a, b, by = nums
        if not all(isinstance(x, int) or math.isfinite(x) for x in nums):
            return None, f"grid.{key}: a range's from, to and by must be finite numbers; got {value!r}"
        if by <= 0 or b < a:
            return None, f"grid.{key}: a range needs by > 0 and to >= from; got {value!r}"
        count = _range_count(a, b, by)
        if count is None or count > MAX_AXIS_VALUES:
            many = (
                f"{count:,}"
                if count is not None and count < TOO_MANY_TO_COUNT
                else f"more than {TOO_MANY_TO_COUNT:.0e}"
            )
            return None, (
                f"grid.{key}: the range {_short(value)} has {many} values; an axis has at most {MAX_AXIS_VALUES:,}"
            )
        values = [
            a + i * by if isinstance(by, int) and isinstance(a, int) else round(a + i * by, 9) for i in range(count)
        ]
        if len(set(values)) < len(values):  # a step below the numbers' precision (or below 1e-9) repeats values
            return None, (
                f"grid.{key}: the range {_short(value)} steps by less than its values can tell apart "
                f"(it repeats values); give a larger by or list the values"
            )
        return values, None
    return None, f"grid.{key} must be a list of values or a range {{ from, to, by }}; got {value!r}"


# Built-in policies in the order of their measured strength where it is beyond doubt (docs/policies.md):
# random below basic, basic below every policy that plans. Pairings of other policies are taken as given.
_WEAKEST = {"random": 0, "basic": 1}


def _weaker_first(pair: tuple[str, str]) -> bool:
    a, b = (_WEAKEST.get(p.split("-")[0] if p.startswith("search") else p, 2) for p in pair)
    return a < b


def read_goal(metric: str, text: Any) -> tuple[Goal | None, str | None]:
    """One goal of a design spec (``metric = "<= 100"``) read: the goal, or the problem with it."""
    if metric not in METRIC_BY_KEY:
        return None, f"goals: unknown metric {metric!r}; known metrics: {', '.join(METRIC_BY_KEY)}"
    if not isinstance(text, str):
        return None, f'goals.{metric}: write the goal as a string such as "<= 90" or ">= 0.75"; got {text!r}'
    t = text.strip()
    op = next((o for o in OPS if t.startswith(o)), None)
    if op is None:
        return None, (
            f'goals.{metric}: bad operator in {text!r}; a goal is "<= BOUND" (at most) or ">= BOUND" (at least)'
        )
    try:
        bound = float(t[len(op) :])
    except ValueError:
        return None, f"goals.{metric}: the bound in {text!r} is not a number"
    if not math.isfinite(bound):
        return None, f"goals.{metric}: the bound in {text!r} must be finite"
    if METRIC_BY_KEY[metric].share and not 0 <= bound <= 1:
        return None, f"goals.{metric}: {metric} is a share from 0 to 1 (write 10% as 0.10); got {bound:g}"
    if not METRIC_BY_KEY[metric].share and bound < 0:
        return None, f"goals.{metric}: {metric} is never negative ({METRIC_BY_KEY[metric].label}); got {bound:g}"
    return Goal(metric, op, bound), None


def _contradictions(goals: list[Goal]) -> list[str]:
    """Goals on one metric that no value meets (``<= 10`` with ``>= 20``)."""
    out = []
    for metric in dict.fromkeys(g.metric for g in goals):
        at_most = [g.bound for g in goals if g.metric == metric and g.op == "<="]
        at_least = [g.bound for g in goals if g.metric == metric and g.op == ">="]
        if at_most and at_least and max(at_least) > min(at_most):
            out.append(
                f'goals.{metric}: "<= {min(at_most):g}" and ">= {max(at_least):g}" cannot both hold; '
                f"no rules could meet them"
            )
    return out


def _priced(grid: dict, pairings: list, search: dict, max_cells: int) -> list[str]:
    """The played cells a grid implies, and the hands of its first round, refused past ``max_cells``
    (before any parameter set is built)."""
    played = 1
    for key, values in grid.items():
        if key not in RESCORED_KEYS:
            played *= len(values)
    cells = played * max(len(pairings), 1)
    if cells <= max_cells:
        return []
    return [
        f"the grid plays {played:,} parameter set(s) x {len(pairings)} pairing(s) = {cells:,} cells, "
        f"{cells * search['matches']:,} matches in the first round alone; that is more than the {max_cells:,} "
        f"cells a design plays unless asked (--max-cells {cells})"
    ]


def read_design(spec_path: str | Path, max_cells: int = MAX_PLAYED_CELLS) -> DesignSpec:
    """Read and check a design spec and build every parameter set (all problems at once)."""
    path = Path(spec_path)
    src = str(path)
    raw = read_toml(path, "design spec")
    problems: list[str] = unknown_keys(raw, DESIGN_KEYS)
    base = raw.get("base")
    if not isinstance(base, str):
        problems.append(
            'give base = "VARIANT" (a variant id or path)'
            if base is None
            else f"base must be a variant id or path; got {base!r}"
        )
    seed = raw.get("seed", 1)
    chunk = raw.get("chunk", DEFAULT_CHUNK)
    for key, value, lo, hi in (("seed", seed, 0, MAX_SEED), ("chunk", chunk, 1, None)):
        try:
            check_int(key, value, lo, hi)
        except SimsuiteError as exc:
            problems.append(str(exc))

    grid: dict = {}
    if not isinstance(raw.get("grid"), dict) or not raw.get("grid"):
        problems.append("give the parameters to search as a [grid] table: key = [values] or { from, to, by }")
    else:
        bad_keys = grid_problems([("grid", {k: [0] for k in raw["grid"]}, True)], special=("decks",))
        problems += bad_keys
        for key, value in raw["grid"].items():
            if any(f"{key!r}" in p for p in bad_keys):
                continue
            values, problem = _expand_range(key, value)
            if problem:
                problems.append(problem)
            elif not values:
                problems.append(f"grid.{key} is an empty list")
            else:
                grid[key] = values
    problems += decks_scaling_problems(raw.get("decks_scaling"), [raw.get("grid") or {}])

    pairings: list[tuple[str, str]] = []
    pr = raw.get("pairings")
    if not isinstance(pr, list) or not pr or not all(isinstance(p, str) for p in pr):
        problems.append(
            'give pairings = ["A,B", ...]: at least one equal pairing (e.g. "expert,expert") and one '
            'stronger/weaker pairing with the stronger first (e.g. "expert,basic")'
            + ("" if pr is None else f"; got {pr!r}")
        )
    else:
        for p in pr:
            try:
                pair = parse_policies(p, "pairings", from_file=True)
            except SimsuiteError as exc:
                problems.append(str(exc))
                continue
            if pair in pairings:
                problems.append(f"pairings: {p!r} is given twice")
            if _weaker_first(pair):
                problems.append(
                    f"pairings: {p!r} puts the weaker policy first; the stronger comes first "
                    f'(stronger_wins is the first policy\'s share): write "{pair[1]},{pair[0]}"'
                )
            pairings.append(pair)
        if pairings and not any(a == b for a, b in pairings):
            problems.append(
                'pairings: add an equal pairing (e.g. "expert,expert"): a recommendation is checked '
                "under equal teams too"
            )
        if pairings and not any(a != b for a, b in pairings):
            problems.append('pairings: add a stronger/weaker pairing, the stronger first (e.g. "expert,basic")')

    goals: list[Goal] = []
    gr = raw.get("goals")
    if not isinstance(gr, dict) or not gr:
        problems.append(
            'give the goals as a [goals] table: metric = "<= BOUND" or ">= BOUND" (a list of such strings for a range)'
        )
    else:
        for metric, texts in gr.items():
            for t in texts if isinstance(texts, list) else [texts]:
                goal, problem = read_goal(metric, t)
                if problem:
                    problems.append(problem)
                else:
                    goals.append(goal)
    tradeoff = raw.get("tradeoff")
    if tradeoff is None:
        problems.append(
            'give tradeoff = ["METRIC", "METRIC"]: the two goals whose Pareto front to draw '
            '(e.g. ["match_minutes", "stronger_wins"])'
        )
    elif not (
        isinstance(tradeoff, list)
        and len(tradeoff) == 2
        and all(isinstance(t, str) for t in tradeoff)
        and tradeoff[0] != tradeoff[1]
    ):
        problems.append(
            f'tradeoff must name two different metrics, e.g. ["match_minutes", "stronger_wins"]; got {tradeoff!r}'
        )
    else:
        for t in tradeoff:
            if t not in METRIC_BY_KEY:
                problems.append(f"tradeoff: unknown metric {t!r}; known metrics: {', '.join(METRIC_BY_KEY)}")
            elif gr and isinstance(gr, dict) and t not in gr:
                problems.append(f"tradeoff: {t!r} has no goal; give it one in [goals] (it says which way is better)")
    search = dict(SEARCH_DEFAULTS)
    sr = raw.get("search", {})
    if not isinstance(sr, dict):
        problems.append("search must be a table: [search] with matches, growth, rounds, reps")
    else:
        for key, value in sr.items():
            if key not in SEARCH_DEFAULTS:
                problems.append(f"search: unknown key {key!r}; known keys: {', '.join(SEARCH_DEFAULTS)}")
                continue
            try:
                search[key] = check_int(f"search.{key}", value, SEARCH_MINIMA[key], SEARCH_MAXIMA[key])
            except SimsuiteError as exc:
                problems.append(str(exc))
    problems += _contradictions(goals)
    if not problems:
        problems += _priced(grid, pairings, search, max_cells)
    if problems:
        raise VariantError(src, problems)

    spec = DesignSpec(src, raw, base, seed, grid, pairings, goals, (tradeoff[0], tradeoff[1]), search, chunk)
    _build_sets(spec)
    return spec


def _build_sets(spec: DesignSpec) -> None:
    """Every parameter set (each checked by the variant and the engine), and the played cells."""
    try:
        base = load_variant(spec.base)
    except SimsuiteError as exc:
        beside = Path(spec.path).parent / spec.base
        hint = (
            f" (a relative path is read from the folder the command runs in, as in a sweep spec; {beside} exists: "
            f"give base = {json.dumps(str(beside.resolve()))} or run from the spec's folder)"
            if not Path(spec.base).is_absolute() and beside.is_file()
            else ""
        )
        raise VariantError(spec.path, [f"base: {exc}{hint}"]) from None
    ds = spec.raw.get("decks_scaling")
    pol = ",".join(spec.pairings[0])
    full, problems = build_cells([spec.base], {spec.base: base}, grid_combos(spec.grid), pol, ds)
    played_grid = {k: v for k, v in spec.grid.items() if k not in RESCORED_KEYS}
    played, more = build_cells([spec.base], {spec.base: base}, grid_combos(played_grid), pol, ds)
    problems += [p for p in more if p not in problems] if not problems else []
    if problems:
        n = len(problems)
        raise SimsuiteError(
            f"{spec.path}: {n} bad parameter set{'s' if n > 1 else ''}:\n" + "\n".join(f"  - {p}" for p in problems)
        )
    spec.played = {c.id: c for c in played}
    for cell, combo in zip(full, grid_combos(spec.grid)):
        kept = [(k, v) for k, v in combo if k not in RESCORED_KEYS]
        pid = ",".join(f"{k}={cell_value(k, v)}" for k, v in kept) or base.id
        spec.sets.append(
            ParamSet(cell.id, dict(combo), cell.variant, pid, {k: v for k, v in combo if k in RESCORED_KEYS})
        )


__all__ = [
    "read_design",
    "DesignSpec",
    "ParamSet",
    "Goal",
    "DESIGN_METRICS",
    "METRIC_BY_KEY",
    "RESCORED_KEYS",
    "defined",
]
