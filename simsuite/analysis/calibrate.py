"""Calibration against outside play: references as data, measured by self-play.

A reference is a TOML file in ``calibration/`` (docs/calibration.md): where its figures come from,
the rules they were played under (a variant table that ``extends`` a shipped variant), the
players it stands for, the figures, and for each figure a tolerance with its reason.
``calibrate`` plays the reference's rules with one policy at all four seats through the harness
(``sim.run.simulate``: whole matches, the same deals for a seed whatever ``jobs``), measures the
same figures with 95% intervals (bootstrap by match, as ``metrics``), and says for each whether
ours lies inside the reference's tolerance.

Like for like on match length: a reference states the hand cap its harness stopped games at
(``[population] max_hands``) and how its figures count a game cut there (``capped_matches``).
Matches are played to that cap: the harness plays to its own cap and every match is cut at the
reference's, which gives exactly the hands a match capped there plays (hand ``h`` of match ``m``
depends only on the run's key, ``m``, ``h`` and the hands before it; the cap only stops the loop).
Every interval resamples matches, and every figure says so (``n``, ``n_unit``) beside the hands it
averages over.
"""

from __future__ import annotations

import dataclasses
import math
import shlex
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from ..errors import SimsuiteError, VariantError, id_problem, read_toml, toml_value, unknown_keys
from ..rules.variant import Variant, variant_from_table
from .stats import Estimate, mean_ci

CALIBRATION_DIR = Path(str(resources.files("simsuite") / "calibration"))  # package data
DEFAULT_HANDS = 10000
DEFAULT_POLICY = "expert"
BOOTSTRAP_SEED = 0
BOOTSTRAP_REPS = 2000

# measure -> (kind, what it is). "share" figures are fractions, printed as percentages.
MEASURES: dict[str, tuple[str, str]] = {
    "takeover_rate": ("share", "hands in which the defenders reach the take-over threshold"),
    "defender_points_mean": ("points", "defenders' final points per hand (captures and penalties included)"),
    "defender_points_mean_takeover": ("points", "defenders' final points per hand they take over"),
    "defender_points_mean_held": ("points", "defenders' final points per hand the declarers hold"),
    "hands_per_match": ("hands", "hands per match"),
}
TOP_KEYS = ("id", "title", "source", "policies", "rules", "population", "deviations", "figures")
FIGURE_KEYS = ("measure", "value", "band", "tolerance", "reason", "quote", "derived")
POPULATION_KEYS = ("skip_final_hold", "max_hands", "capped_matches")
# How a reference's figures count a match cut at its hand cap.
CAPPED_MATCHES: dict[str, str] = {
    "left_out": "left out of every figure (its hands and the match)",
    "counted": "counted with the hands it played up to the cap",
}
CAP_ENDED = "hand cap"  # the results' ended_by for a match stopped by the hand cap (docs/results.md)
N_UNIT = "matches"  # what every interval resamples: whole matches (hands within a match are correlated)
VERDICTS = ("inside", "outside", "undecided")


@dataclass(frozen=True)
class Figure:
    measure: str
    value: float
    low: float  # the tolerance band: ours must lie in [low, high]
    high: float
    reason: str
    quote: str = ""
    derived: str = ""

    @property
    def kind(self) -> str:
        return MEASURES[self.measure][0]


@dataclass(frozen=True)
class Measured:
    """One of our figures: ``value`` with its 95% interval [``low``, ``high``]; the interval
    resamples ``n`` ``n_unit`` (matches), and the figure averages over ``hands`` hands (for
    ``hands_per_match``: the hands of those matches)."""

    value: float
    low: float
    high: float
    n: int
    hands: int
    n_unit: str = N_UNIT


@dataclass(frozen=True)
class Reference:
    id: str
    title: str
    path: Path
    source: dict
    policies: dict
    variant: Variant
    extends: str
    skip_final_hold: bool
    deviations: dict
    figures: tuple[Figure, ...]
    max_hands: int | None = None  # the hand cap the reference's games were stopped at; None: the harness's
    capped_matches: str = "counted"  # how its figures count a match cut at the cap (CAPPED_MATCHES)


# --- loading and validation ------------------------------------------------------------------------


def known_references() -> list[str]:
    return sorted(p.stem for p in CALIBRATION_DIR.glob("*.toml"))


def load_all_references() -> list[Reference]:
    return [load_reference(i) for i in known_references()]


def _reference_path(id_or_path: str | Path) -> Path:
    text = str(id_or_path)
    path = Path(text)
    if text.endswith(".toml") or path.is_file():
        return path
    path = CALIBRATION_DIR / f"{text}.toml"
    if id_problem(text) is not None or not path.is_file():  # an id never becomes a path outside calibration/
        raise SimsuiteError(
            f"unknown reference {text!r}; known references: {', '.join(known_references()) or 'none'} "
            "(or give the path of a reference file)"
        )
    return path


def _fail(path: Path, problems: Sequence[str]) -> SimsuiteError:
    """One line naming the file and every problem in it."""
    n = len(problems)
    return SimsuiteError(f"{path}: " + (problems[0] if n == 1 else f"{n} problems: " + "; ".join(problems)))


def load_reference(id_or_path: str | Path) -> Reference:
    """A reference by id (a file in ``calibration/``) or path, validated: every problem is named."""
    path = _reference_path(id_or_path)
    raw = read_toml(path, "reference file")
    problems: list[str] = unknown_keys(raw, TOP_KEYS)
    if (bad := id_problem(raw.get("id"))) is not None:
        problems.append(bad)
    if not isinstance(raw.get("title"), str) or not raw.get("title"):
        problems.append("title must be a non-empty string")
    source = _table(raw, "source", problems, required=("repository", "path"))
    policies = _table(raw, "policies", problems, required=("reference", "ours"))
    deviations = _table(raw, "deviations", problems, required=(), optional=True)
    population = _table(raw, "population", problems, required=(), optional=True, strings=False)
    problems += unknown_keys(population, POPULATION_KEYS, "[population] ")
    skip = population.get("skip_final_hold", False)
    if not isinstance(skip, bool):
        problems.append(f"[population] skip_final_hold must be true or false; got {skip!r}")
    figures = _figures(raw.get("figures"), problems)
    variant, extends = _rules(raw.get("rules"), path, problems)
    max_hands, capped = _cap(population, variant, problems)
    if problems:
        raise _fail(path, problems)
    return Reference(
        id=raw["id"],
        title=raw["title"],
        path=path,
        source=source,
        policies=policies,
        variant=variant,
        extends=extends,
        skip_final_hold=skip,
        deviations=deviations,
        figures=tuple(figures),
        max_hands=max_hands,
        capped_matches=capped,
    )


def harness_cap(variant: Variant) -> int:
    """The most hands the harness plays a match of ``variant`` to (500 untimed; a timed match's
    clock bound)."""
    from ..sim.match import hand_cap

    return hand_cap(variant)


def _cap(population: Mapping, variant: Variant | None, problems: list[str]) -> tuple[int | None, str]:
    """``[population] max_hands`` and ``capped_matches``, checked: a whole number of hands the
    harness can play to, and how the reference counts a match cut there (required with a cap)."""
    cap = population.get("max_hands")
    capped = population.get("capped_matches")
    most = harness_cap(variant) if variant is not None else None
    allowed = (
        f"a whole number of hands from 1 to {most:,} (the harness plays these rules to {most:,})"
        if most
        else "a whole number of hands, at least 1"
    )
    if cap is not None and (
        isinstance(cap, bool) or not isinstance(cap, int) or cap < 1 or (most is not None and cap > most)
    ):
        problems.append(f"[population] max_hands must be {allowed}; got {cap!r}")
        cap = None
    if capped is None:
        if "max_hands" in population:
            problems.append(
                "[population] capped_matches must say how the reference counts a match cut at max_hands: "
                + " or ".join(CAPPED_MATCHES)
            )
        capped = "counted"
    elif capped not in CAPPED_MATCHES:
        problems.append(f"[population] capped_matches must be one of {', '.join(CAPPED_MATCHES)}; got {capped!r}")
        capped = "counted"
    return cap, capped


def _table(
    raw: Mapping, key: str, problems: list[str], required: Sequence[str], optional: bool = False, strings: bool = True
) -> dict:
    value = raw.get(key)
    if value is None and optional:
        return {}
    if not isinstance(value, dict):
        problems.append(f"[{key}] is missing: a table" + (f" with {', '.join(required)}" if required else ""))
        return {}
    for name in required:
        if not isinstance(value.get(name), str) or not value.get(name):
            problems.append(f"[{key}] {name} must be a non-empty string")
    if strings:
        for name, v in value.items():
            if name not in required and not isinstance(v, (str, int)):
                problems.append(f"[{key}] {name} must be a string or a number; got {v!r}")
    return dict(value)


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _figures(items: Any, problems: list[str]) -> list[Figure]:
    if not isinstance(items, list) or not items or not all(isinstance(t, dict) for t in items):
        problems.append("[[figures]] is missing: give at least one figure (measure, value, band or tolerance, reason)")
        return []
    out: list[Figure] = []
    seen: set[str] = set()
    for i, t in enumerate(items):
        where = f"figures[{i}]" + (f" ({t['measure']})" if isinstance(t.get("measure"), str) else "")
        bad = [k for k in t if k not in FIGURE_KEYS]
        if bad:
            problems.append(f"{where}: unknown key {bad[0]!r}; known keys: {', '.join(FIGURE_KEYS)}")
        measure = t.get("measure")
        if measure not in MEASURES:
            problems.append(f"{where}: measure must be one of {', '.join(MEASURES)}; got {measure!r}")
            continue
        if measure in seen:
            problems.append(f"{where}: measure {measure!r} appears twice")
        seen.add(measure)
        value = t.get("value")
        if not _number(value):
            problems.append(f"{where}: value must be a number; got {value!r}")
            continue
        if MEASURES[measure][0] == "share" and not 0 <= value <= 1:
            problems.append(f"{where}: a share is a fraction from 0 to 1 (54.4% is 0.544); got {value!r}")
        reason = t.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            problems.append(f"{where}: reason must say why the tolerance is what it is")
        for k in ("quote", "derived"):
            if k in t and not isinstance(t[k], str):
                problems.append(f"{where}: {k} must be a string")
        band = _band(t, value, where, problems)
        if band is None:
            continue
        out.append(
            Figure(
                measure,
                float(value),
                band[0],
                band[1],
                reason if isinstance(reason, str) else "",
                t.get("quote", "") if isinstance(t.get("quote"), str) else "",
                t.get("derived", "") if isinstance(t.get("derived"), str) else "",
            )
        )
    return out


def _band(t: Mapping, value: float, where: str, problems: list[str]) -> tuple[float, float] | None:
    if ("band" in t) == ("tolerance" in t):
        problems.append(f"{where}: give a tolerance as band = [low, high] or tolerance = t (value +- t), exactly one")
        return None
    if "tolerance" in t:
        tol = t["tolerance"]
        if not _number(tol) or tol <= 0:
            problems.append(f"{where}: tolerance must be a positive number; got {tol!r}")
            return None
        return float(value - tol), float(value + tol)
    band = t["band"]
    if not (isinstance(band, list) and len(band) == 2 and all(_number(x) for x in band) and band[0] < band[1]):
        problems.append(f"{where}: band must be [low, high] with low < high; got {band!r}")
        return None
    if not band[0] <= value <= band[1]:
        problems.append(f"{where}: value {value} is outside its own band {band}")
        return None
    return float(band[0]), float(band[1])


def _rules(rules: Any, path: Path, problems: list[str]) -> tuple[Variant | None, str]:
    if not isinstance(rules, dict):
        problems.append('[rules] is missing: a variant table with extends = "VARIANT" and the changed keys')
        return None, ""
    extends = rules.get("extends")
    if not isinstance(extends, str) or not extends:
        problems.append('[rules] extends must name the variant the rules start from (e.g. "two-deck-2011")')
        return None, ""
    try:
        v = variant_from_table(rules, f"{path} [rules]", path.parent, default_id=path.stem)
    except VariantError as exc:
        problems.extend(f"[rules] {p}" for p in exc.problems)
        return None, extends
    from ..sim.spec import check_playable

    try:
        check_playable(v, f"[rules] {v.id}")
    except SimsuiteError as exc:
        problems.append(str(exc))
    return v, extends


# --- the verdict -----------------------------------------------------------------------------------


def verdict(low: float, high: float, band_low: float, band_high: float) -> str:
    """Our 95% interval [low, high] against the tolerance band: "inside" when the whole interval
    lies in the band, "outside" when the whole interval lies out of it, else "undecided" (the
    interval crosses an edge, or there is none: more hands would decide)."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return "undecided"
    if band_low <= low and high <= band_high:
        return "inside"
    if high < band_low or low > band_high:
        return "outside"
    return "undecided"


# --- measuring -------------------------------------------------------------------------------------


def _match_key(frame: pl.DataFrame) -> list[str]:
    """The columns that name a match (metrics' key), as far as ``frame`` has them."""
    from .metrics import MATCH_KEY

    return [c for c in MATCH_KEY if c in frame.columns]


def cut_matches(hands: pl.DataFrame, matches: pl.DataFrame, max_hands: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Every match cut at ``max_hands`` hands: the hands a match capped there plays, and each match
    with its hands and ``ended_by`` (``hand cap`` for one the cap stopped). The match table keeps
    only its key, ``hands`` and ``ended_by``: a cut match's levels and winner are not recomputed."""
    key = _match_key(matches)
    cut = pl.col("hands") > max_hands
    m = matches.select(
        key
        + [
            pl.when(cut)
            .then(pl.lit(max_hands))
            .otherwise(pl.col("hands"))
            .cast(matches.schema["hands"])
            .alias("hands"),
            pl.when(cut).then(pl.lit(CAP_ENDED)).otherwise(pl.col("ended_by")).alias("ended_by"),
        ]
    )
    return hands.filter(pl.col("hand") < max_hands), m


def counted_hands(
    hands: pl.DataFrame, matches: pl.DataFrame, skip_final_hold: bool, capped_matches: str = "counted"
) -> pl.DataFrame:
    """The hands a reference counts: all, less a match's last hand when that hand ended the match
    by a hold at the end level (``skip_final_hold``: a report that logs no result for the game's
    last hand), less every hand of a match the hand cap stopped (``capped_matches = "left_out"``)."""
    if not skip_final_hold and capped_matches == "counted":
        return hands
    key = _match_key(hands)
    ends = matches.select(key + ["hands", "ended_by"])
    h = hands.join(ends, on=key, how="left")
    keep = pl.lit(True)
    if skip_final_hold:
        keep = ~((pl.col("hand") == pl.col("hands") - 1) & (pl.col("ended_by") == "level") & ~pl.col("takeover"))
    if capped_matches == "left_out":
        keep = keep & (pl.col("ended_by") != CAP_ENDED)
    return h.filter(keep).drop(["hands", "ended_by"])


def measure(
    hands: pl.DataFrame,
    matches: pl.DataFrame,
    *,
    skip_final_hold: bool = False,
    capped_matches: str = "counted",
    reps: int = BOOTSTRAP_REPS,
    seed: int = BOOTSTRAP_SEED,
) -> dict[str, Measured]:
    """Every measure with its 95% interval, over the hands ``counted_hands`` keeps. Per-hand
    figures: ratios of per-match sums with a percentile bootstrap over matches (hands within a
    match are correlated; docs/metrics.md). hands_per_match: a normal interval over matches. Each
    figure's ``n`` is the matches its interval resamples; ``hands``, the hands it averages over."""
    from .stats import bootstrap_match_sums

    h = counted_hands(hands, matches, skip_final_hold, capped_matches)
    key = _match_key(h)
    pts = pl.col("final_points").cast(pl.Float64)
    to = pl.col("takeover").cast(pl.Float64)
    per = (
        h.group_by(key)
        .agg(
            pl.len().cast(pl.Float64).alias("n"),
            pts.sum().alias("p"),
            to.sum().alias("t"),
            (pts * to).sum().alias("pt"),
        )
        .sort(key)
    )
    sums = per.select(["n", "p", "t", "pt"]).to_numpy().astype(float).reshape(-1, 4)
    g = sums.shape[0]
    boots = bootstrap_match_sums(sums, reps, seed) if g >= 2 else np.full((1, 4), np.nan)
    tot = sums.sum(axis=0)

    def ratio(num, den, hands_in) -> Measured:
        value = num(tot) / den(tot) if g and den(tot) > 0 else float("nan")
        with np.errstate(invalid="ignore", divide="ignore"):
            b = num(boots.T) / den(boots.T)
        b = b[np.isfinite(b)]
        if g < 2 or b.size == 0:
            return Measured(value, float("nan"), float("nan"), g, int(hands_in))
        lo, hi = np.quantile(b, [0.025, 0.975])
        return Measured(value, float(lo), float(hi), g, int(hands_in))

    n, p, t, pt = (lambda s: s[0]), (lambda s: s[1]), (lambda s: s[2]), (lambda s: s[3])
    held_n, held_p = (lambda s: s[0] - s[2]), (lambda s: s[1] - s[3])
    per_match = sums[:, 0] if g else np.zeros(0)
    length: Estimate = mean_ci(per_match)
    return {
        "takeover_rate": ratio(t, n, tot[0] if g else 0),
        "defender_points_mean": ratio(p, n, tot[0] if g else 0),
        "defender_points_mean_takeover": ratio(pt, t, tot[2] if g else 0),
        "defender_points_mean_held": ratio(held_p, held_n, (tot[0] - tot[2]) if g else 0),
        "hands_per_match": Measured(length.value, length.low, length.high, g, int(tot[0]) if g else 0),
    }


# --- running ---------------------------------------------------------------------------------------


def _whole(value: Any) -> Any:
    """A number given on the command line (a string) or in code (an int) as an int; anything else as
    it is, for ``sim.limits`` to name."""
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return value
    return value


def check_policy(policy: Any) -> str:
    """One built-in policy name, resolved as ``simulate`` resolves its --policies."""
    from ..engine.names import parse_policies

    if not isinstance(policy, str) or not policy.strip() or "," in policy:
        raise SimsuiteError(f"--policy takes one policy name (all four seats play it); got {policy!r}")
    return parse_policies(policy.strip(), "--policy")[0]


def _write_variant(variant: Variant, path: Path) -> None:
    """The variant as a complete variant file, for the harness (it loads cells by path)."""
    lines = [f"id = {toml_value(variant.id)}"]
    for section, fields in variant.to_toml_dict().items():
        lines.append(f"\n[{section}]")
        lines += [f"{k} = {toml_value(v)}" for k, v in fields.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def calibrate(
    ref: Reference,
    *,
    policy: str = DEFAULT_POLICY,
    hands: int = DEFAULT_HANDS,
    seed: int = 1,
    jobs: int = 1,
    quiet: bool = True,
) -> dict:
    """Play ``ref``'s rules in self-play (``policy`` at all four seats, about ``hands`` hands) and
    set each of its figures beside ours. Deterministic for a seed whatever ``jobs``."""
    from ..sim.executor import execute
    from ..sim.results import load
    from ..sim.spec import RunSpec, plan_simulate

    policy = check_policy(policy)
    with tempfile.TemporaryDirectory(prefix="simsuite-calibrate-") as tmp:
        rules = Path(tmp) / "rules.toml"  # a fixed name: an id never decides where a file goes
        _write_variant(ref.variant, rules)
        plan, opts = plan_simulate(
            RunSpec(
                variants=[str(rules)],
                policies=f"{policy},{policy}",
                hands=hands,
                seed=seed,
                jobs=jobs,
                out=Path(tmp) / "run",
                quiet=quiet,
                command=shlex.split(_command(ref, policy, hands, seed, jobs)),
            )
        )
        out = execute(plan, dataclasses.replace(opts, scratch=True))  # the folder goes with tmp: nothing to resume
        r = load(out)
        h, m = r.hands.collect(), r.matches.collect()
    if r.manifest["cells"][0]["rules_hash"] != ref.variant.rules_hash:  # pragma: no cover - a writer bug
        raise SimsuiteError(f"{ref.id}: the rules played differ from the reference's rules")
    cap = ref.max_hands or harness_cap(ref.variant)
    h, m = cut_matches(h, m, cap)
    ours = measure(h, m, skip_final_hold=ref.skip_final_hold, capped_matches=ref.capped_matches)
    counted = counted_hands(h, m, ref.skip_final_hold, ref.capped_matches)
    capped = int((m["ended_by"] == CAP_ENDED).sum())
    if ref.capped_matches == "left_out" and capped == m.height:
        raise SimsuiteError(
            f"{ref.path}: [population] max_hands = {cap}: all {m.height:,} matches played reached the "
            f"cap and the reference leaves such matches out, so no figure has a match to measure; a "
            f"cap this low cannot be calibrated against (raise max_hands, or count capped matches)"
        )
    figures = []
    for f in ref.figures:
        est = ours[f.measure]
        figures.append(
            {
                "measure": f.measure,
                "what": MEASURES[f.measure][1],
                "kind": f.kind,
                "reference": f.value,
                "band": [f.low, f.high],
                "reason": f.reason,
                "derived": f.derived or None,
                "ours": {
                    "value": clean(est.value),
                    "low": clean(est.low),
                    "high": clean(est.high),
                    "n": est.n,
                    "n_unit": est.n_unit,
                    "hands": est.hands,
                },
                "verdict": verdict(est.low, est.high, f.low, f.high),
            }
        )
    return {
        "reference": ref.id,
        "title": ref.title,
        "file": str(ref.path),
        "source": {k: ref.source[k] for k in ref.source},
        "reference_policies": ref.policies.get("reference"),
        "policy": policy,
        "seed": seed,
        "hands_requested": hands,
        "rules": {"id": ref.variant.id, "extends": ref.extends, "rules_hash": ref.variant.rules_hash},
        "matches": m.height,
        "hands_played": h.height,
        "hands_counted": counted.height,
        "matches_counted": counted.select(_match_key(counted)).unique().height,
        "max_hands": cap,
        "max_hands_from": "reference" if ref.max_hands else "harness",
        "matches_capped": capped,
        "capped_matches": ref.capped_matches,
        "skip_final_hold": ref.skip_final_hold,
        "interval_unit": N_UNIT,
        "bootstrap_resamples": BOOTSTRAP_REPS,
        "figures": figures,
        "command": _command(ref, policy, hands, seed, jobs),
    }


def clean(x: float) -> float | None:
    """A figure for JSON: None for a missing or non-finite one."""
    return None if x is None or not math.isfinite(x) else float(x)


def _command(ref: Reference, policy: str, hands: int, seed: int, jobs: int) -> str:
    """The command that plays this calibration again: the reference by id where the id finds this very file
    (a shipped reference), otherwise by its path (a file of the user's, or one that copies a shipped id)."""
    shipped = ref.path.resolve() == (CALIBRATION_DIR / f"{ref.id}.toml").resolve()
    which = ref.id if shipped else shlex.quote(str(ref.path))
    return f"simsuite calibrate --reference {which} --policy {policy} --hands {hands} --seed {seed} --jobs {jobs}"


def run(
    reference: str | None = None,
    *,
    policy: Any = DEFAULT_POLICY,
    hands: Any = DEFAULT_HANDS,
    seed: Any = 1,
    jobs: Any = 1,
    quiet: bool | None = None,
) -> list[dict]:
    """Validate everything first (one line for the first bad input), then calibrate each
    reference (``reference``: an id, a path, or None for every file in ``calibration/``)."""
    policy = check_policy(policy)
    from ..sim.limits import check_int, check_jobs, check_seed

    hands = check_int("--hands", _whole(hands), 1)
    seed = check_seed("--seed", _whole(seed))
    jobs = check_jobs("--jobs", _whole(jobs))
    refs = [load_reference(reference)] if reference else load_all_references()
    if not refs:
        raise SimsuiteError(f"no reference files in {CALIBRATION_DIR}")
    if quiet is None:
        quiet = not sys.stderr.isatty()
    return [calibrate(r, policy=policy, hands=hands, seed=seed, jobs=jobs, quiet=quiet) for r in refs]


__all__ = [
    "Reference",
    "Figure",
    "Measured",
    "MEASURES",
    "CAPPED_MATCHES",
    "cut_matches",
    "harness_cap",
    "known_references",
    "load_reference",
    "load_all_references",
    "verdict",
    "measure",
    "counted_hands",
    "calibrate",
    "run",
    "clean",
    "BOOTSTRAP_REPS",
]
