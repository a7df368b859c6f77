"""How a policy's play answers the rule fields the notebooks vary: ``simsuite learn responses``.

For each field (decks, bottom size, the capture multiplier and scheme, the step, the take-over) the
statistic the field acts on is measured at a few values of the field, under the policy studied
(``learned``) and under a reference policy, each at all four seats, on the same deals: hand ``i`` of
every run gets the same generator state, level and first drawer (``sim.hands``; the bury loop of
``analysis.bury`` alike), so each difference is a mean of per-deal paired differences with a normal
95% interval over deals. A field's *response* is the change of its statistic from its first value
to its last, per policy, and the difference of the two changes (paired deal by deal too).

| field | values (school-2016) | statistic | loop |
|---|---|---|---|
| ``decks`` | 2, 3, 4, bottom and thresholds scaled (``rules.scale``) | declarer hold | hands |
| ``bottom_size`` | 2, 6, 10 | declarer hold | hands |
| ``capture_per_card`` | x0, x3, x6 (the side-suit factor in proportion) | points buried by the dealer | bury |
| ``capture_scheme`` | guangxi-2012's capture by lead size, the same rules per card | multi-card last lead | hands |
| ``step`` | 20, 30, 60 | abs(level change) | hands |
| ``takeover`` | 100, 120, 150 | take-over rate | hands |

The bury studies deal, declare and bury only (``analysis.bury``), so they take ``BURY_FACTOR`` times
the played studies' deals. A hand has a multi-card last lead when its capture multiplier is not 0,
which holds exactly where every last trick captures but one led by a single card: ``capture_by =
"either"``, ``capture_with = "any"``, ``single_card_captures = false`` and a multiplier of at least 1
for any unit (``lead_size_problem``), as in guangxi-2012. ``report.responses_text`` prints the results.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..columns import RECORD_FIELDS
from ..engine.hand import BURIED_POINTS
from ..engine.names import parse_pair
from ..errors import SimsuiteError
from ..rules.choices import CaptureBy, CaptureScheme, CaptureWith
from ..rules.scale import scale_decks
from ..rules.variant import Variant, load_variant
from ..sim.hands import play_hands
from .bury import bury_rows
from .calibrate import clean
from .compare import chunk_for
from .stats import Estimate, mean_ci, wilson, within

DEFAULT_POLICY = "learned"
DEFAULT_REFERENCE = "reference"  # search-k32-c6 (docs/policies.md, "The reference")
DEFAULT_DEALS = 50  # played deals per setting: about a minute with learned against search on one core
BURY_FACTOR = 8  # a bury-only setting deals this many times --deals (no trick is played: it costs little)
DEFAULT_BASE = "school-2016"  # the variant whose fields the notebooks vary (notebooks 02 to 04)
LEAD_SIZE_BASE = "guangxi-2012"  # the one tournament whose capture is by the size of the last lead
MULTIPLIERS = (0, 3, 6)  # the capture factors per card of the bury table (docs/learned.md)

_COL = {name: RECORD_FIELDS.index(name) for name in ("takeover", "capture_multiplier", "levels_ns", "levels_ew")}


@dataclass(frozen=True)
class Statistic:
    name: str
    kind: str  # "share" (printed as a percentage), "points" or "levels"
    label: str
    short: str  # the label in a few words, for the answer line
    loop: str  # "hands" (whole hands played) or "bury" (dealt, declared and buried only)
    per_hand: Callable[[np.ndarray], np.ndarray]  # the loop's rows -> one value per deal
    floor: float = -math.inf

    def estimate(self, x: np.ndarray) -> Estimate:
        return wilson(float(x.sum()), x.size) if self.kind == "share" else within(mean_ci(x), self.floor)

    def difference(self, x: np.ndarray) -> Estimate:
        """The paired difference's mean with its normal interval, kept where a difference can lie."""
        e = mean_ci(x)
        return within(e, -1.0, 1.0) if self.kind == "share" else e


STATISTICS: dict[str, Statistic] = {
    s.name: s
    for s in (
        Statistic(
            "declarer_hold",
            "share",
            "declarer hold (share of hands the declarers keep)",
            "declarer hold",
            "hands",
            lambda r: r[:, _COL["takeover"]] == 0,
        ),
        Statistic(
            "buried_points",
            "points",
            "points buried per hand by the dealer",
            "points buried per hand",
            "bury",
            lambda r: r[:, BURIED_POINTS],
            floor=0.0,
        ),
        Statistic(
            "multi_card_last_lead",
            "share",
            "share of hands whose last lead has two or more cards",
            "multi-card last leads",
            "hands",
            lambda r: r[:, _COL["capture_multiplier"]] > 0,
        ),
        Statistic(
            "level_change",
            "levels",
            "|level change| per hand (levels gained by either team)",
            "|level change| per hand",
            "hands",
            lambda r: np.abs(r[:, _COL["levels_ns"]]) + np.abs(r[:, _COL["levels_ew"]]),
            floor=0.0,
        ),
        Statistic(
            "takeover_rate",
            "share",
            "take-over rate (share of hands the defenders take over)",
            "take-over rate",
            "hands",
            lambda r: r[:, _COL["takeover"]] != 0,
        ),
    )
}


@dataclass(frozen=True)
class Setting:
    label: str  # "x3 per card", "2 decks (bottom 4, take-over 80, step 20)"
    overrides: dict[str, Any]  # on the study's base variant ({} : the base itself)
    variant: Variant
    name: str = ""  # the label in a few words ("2 decks"), for the responses; the label where empty

    @property
    def short(self) -> str:
        return self.name or self.label


@dataclass(frozen=True)
class Study:
    field: str  # the rule field the notebooks vary
    title: str  # "capture multiplier"
    statistic: Statistic
    base: Variant
    settings: tuple[Setting, ...]


@dataclass(frozen=True)
class Skipped:
    field: str
    reason: str


@dataclass
class Plan:
    studies: list[Study] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


# --- the settings of each field -------------------------------------------------------------------


def _round5(x: float) -> int:
    return max(5, int(math.floor(x / 5.0 + 0.5)) * 5)


def _setting(base: Variant, label: str, overrides: dict[str, Any], name: str = "") -> Setting:
    from ..engine.params import engine_ready

    v = base.with_overrides(overrides, source=f"{base.id} with {_words(overrides)}") if overrides else base
    engine_ready(v, f"{base.id} with {_words(overrides)}")
    return Setting(label, dict(overrides), v, name)


def _words(overrides: dict[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in overrides.items()) or "its own rules"


def _decks(base: Variant) -> list[Setting]:
    out = []
    for d in (2, 3, 4):
        o = {} if d == base.decks else scale_decks(base, d)
        v = base.with_overrides(o) if o else base
        out.append(
            _setting(
                base, f"{d} decks (bottom {v.bottom_size}, take-over {v.takeover}, step {v.step})", o, f"{d} decks"
            )
        )
    return out


def bottom_sizes(base: Variant) -> list[int]:
    """Three bottom sizes that deal evenly to four players: the base's and its neighbours (a base at an
    end of the list takes the next two on the other side), from 0 to 16."""
    fits = [b for b in range(0, 17) if (54 * base.decks - b) % 4 == 0]
    i = fits.index(base.bottom_size) if base.bottom_size in fits else 0
    lo = max(0, min(i - 1, len(fits) - 3))
    return fits[lo : lo + 3]


def _bottom(base: Variant) -> list[Setting]:
    return [
        _setting(base, f"bottom {b}", {} if b == base.bottom_size else {"bottom_size": b}) for b in bottom_sizes(base)
    ]


def multiplier_overrides(base: Variant, m: int) -> dict[str, Any]:
    """The overrides that capture at ``m`` per card of a trump unit, the side-suit factor kept in the
    base's proportion to it (school-2016: both; two-deck-2011: half; huizhou: never)."""
    per, side = base.capture_per_card, base.capture_side_per_card
    side_m = (m * side) // per if per else side
    o = {}
    if m != per:
        o["capture_per_card"] = m
    if side_m != side:
        o["capture_side_per_card"] = side_m
    return o


def _multiplier(base: Variant) -> list[Setting] | str:
    if base.bottom_size == 0:
        return f"{base.id} has no bottom: nothing is buried"
    if base.capture_scheme != CaptureScheme.PER_CARD:
        return f"{base.id} does not capture per card (capture_scheme = {base.capture_scheme})"
    return [_setting(base, f"x{m} per card", multiplier_overrides(base, m), f"x{m}") for m in MULTIPLIERS]


def lead_size_problem(v: Variant) -> str | None:
    """Why a hand's record cannot tell a multi-card last lead under ``v``'s rules (None: it can, by its
    capture multiplier, which is then not 0 exactly where the last lead had two or more cards)."""
    if v.capture_by != CaptureBy.EITHER:
        return "only the defenders capture (capture_by), so a last trick the declarers win records nothing"
    if v.capture_with != CaptureWith.ANY:
        return "only trump captures (capture_with), so a side-suit last trick records nothing"
    if v.single_card_captures:
        return "a single card captures too (single_card_captures), so a one-card last lead is not told apart"
    if v.capture_scheme == CaptureScheme.PER_CARD and min(v.capture_per_card, v.capture_side_per_card) < 1:
        if v.capture_base < 1:
            return "a factor per card of 0 records no capture"
    if v.capture_scheme == CaptureScheme.POWER and v.capture_base < 1:
        return "a power base of 0 records no capture"
    return None


def _scheme(base: Variant) -> list[Setting] | str:
    if base.capture_scheme != CaptureScheme.LAST_TRICK_POINTS:
        return (
            f"{base.id} does not capture by the size of the last lead (capture_scheme = {base.capture_scheme}; "
            f"{LEAD_SIZE_BASE} does)"
        )
    problem = lead_size_problem(base)
    if problem:
        return f"{base.id}: {problem}"
    other = {"capture_scheme": str(CaptureScheme.PER_CARD)}
    if min(base.capture_per_card, base.capture_side_per_card) < 1 and base.capture_base < 1:
        other.update(capture_per_card=max(1, base.capture_per_card), capture_side_per_card=1)
    return [
        _setting(base, "by lead size (last_trick_points)", {}, "by lead size"),
        _setting(base, f"per card (per_card; a bottom of {base.bottom_size})", other, "per card"),
    ]


def _step(base: Variant) -> list[Setting]:
    steps = sorted({_round5(base.step * 2 / 3), base.step, min(base.takeover, 2 * base.step)})
    return [_setting(base, f"step {s}", {} if s == base.step else {"step": s}) for s in steps]


def _takeover(base: Variant) -> list[Setting]:
    values = sorted({_round5(base.takeover * 5 / 6), base.takeover, _round5(base.takeover * 5 / 4)})
    return [_setting(base, f"take-over {t}", {} if t == base.takeover else {"takeover": t}) for t in values]


# field, title, statistic, settings builder, default base
FIELDS: tuple[tuple[str, str, str, Callable[[Variant], Any], str], ...] = (
    ("decks", "deck count, bottom and thresholds scaled", "declarer_hold", _decks, DEFAULT_BASE),
    ("bottom_size", "bottom size", "declarer_hold", _bottom, DEFAULT_BASE),
    ("capture_per_card", "capture multiplier per card", "buried_points", _multiplier, DEFAULT_BASE),
    ("capture_scheme", "capture scheme", "multi_card_last_lead", _scheme, LEAD_SIZE_BASE),
    ("step", "points per level", "level_change", _step, DEFAULT_BASE),
    ("takeover", "take-over threshold", "takeover_rate", _takeover, DEFAULT_BASE),
)


def plan(variant: str | Variant | None = None) -> Plan:
    """The studies: every field on its default base (``variant`` None), or every field that applies on
    ``variant``'s rules (those that do not are listed, with why)."""
    out = Plan()
    given = variant if isinstance(variant, Variant) else load_variant(variant) if variant else None
    for name, title, stat, build, default in FIELDS:
        base = given or load_variant(default)
        try:
            settings = build(base)
        except SimsuiteError as exc:
            out.skipped.append(Skipped(name, str(exc)))
            continue
        if isinstance(settings, str):
            out.skipped.append(Skipped(name, settings))
            continue
        out.studies.append(Study(name, title, STATISTICS[stat], base, tuple(settings)))
    return out


# --- measuring ------------------------------------------------------------------------------------


def per_hand(
    stat: Statistic | str,
    variant: Variant,
    policy: str,
    deals: int,
    seed: int,
    jobs: int = 1,
    chunk: int | None = None,
) -> np.ndarray:
    """The statistic's value for each of deals 0..deals-1 of ``seed`` under ``variant`` with ``policy``
    at all four seats (the bury loop's deals for a bury statistic, in this process): the same whatever
    ``jobs`` and ``chunk`` (played deals per worker task)."""
    stat = STATISTICS[stat] if isinstance(stat, str) else stat
    if stat.name == "multi_card_last_lead":
        problem = lead_size_problem(variant)
        if problem:
            raise SimsuiteError(f"{variant.id}: a multi-card last lead cannot be read from the records: {problem}")
    if stat.loop == "bury":
        rows = bury_rows(variant, policy, deals, seed)
    else:
        rows = play_hands(variant, seed, deals, policy, jobs, chunk or chunk_for(policy))
    return stat.per_hand(rows).astype(float)


def _est(e: Estimate) -> dict:
    return {"value": clean(e.value), "low": clean(e.low), "high": clean(e.high), "n": e.n}


def departs(e: dict) -> bool:
    """The whole interval of a difference lies on one side of 0."""
    return e["low"] is not None and e["high"] is not None and (e["low"] > 0 or e["high"] < 0)


def measure(
    policy: str = DEFAULT_POLICY,
    reference: str = DEFAULT_REFERENCE,
    deals: int = DEFAULT_DEALS,
    seed: int = 1,
    jobs: int = 1,
    variant: str | Variant | None = None,
    fields: Sequence[str] | None = None,
    chunk: int | None = None,
) -> dict:
    """Every study of ``plan(variant)`` (only ``fields``, if given) under ``policy`` and ``reference``
    on the same deals: per setting each one's figure and the paired difference policy - reference; per
    study the response (last setting minus first) of each and its paired difference. A rule set that
    two studies share (the base) is played once. The same numbers whatever ``jobs`` and ``chunk``."""
    p = plan(variant)
    if fields is not None:
        p.studies = [s for s in p.studies if s.field in fields]
    cache: dict[tuple[str, str, str], np.ndarray] = {}

    def values(stat: Statistic, v: Variant, who: str) -> np.ndarray:
        n = deals * (BURY_FACTOR if stat.loop == "bury" else 1)
        key = (stat.name, v.rules_hash, who)
        if key not in cache:
            cache[key] = per_hand(stat, v, who, n, seed, jobs, chunk)
        return cache[key]

    studies = []
    for s in p.studies:
        stat = s.statistic
        rows = []
        xs = []
        for st in s.settings:
            a, b = values(stat, st.variant, policy), values(stat, st.variant, reference)
            xs.append((a, b))
            rows.append(
                {
                    "setting": st.label,
                    "name": st.short,
                    "overrides": st.overrides,
                    "rules_hash": st.variant.rules_hash,
                    "policy": _est(stat.estimate(a)),
                    "reference": _est(stat.estimate(b)),
                    "difference": _est(stat.difference(a - b)),
                }
            )
        (a0, b0), (a1, b1) = xs[0], xs[-1]
        response = {
            "from": s.settings[0].short,
            "to": s.settings[-1].short,
            "policy": _est(mean_ci(a1 - a0)),
            "reference": _est(mean_ci(b1 - b0)),
            "difference": _est(mean_ci((a1 - a0) - (b1 - b0))),
        }
        studies.append(
            {
                "field": s.field,
                "title": s.title,
                "variant": s.base.id,
                "statistic": stat.name,
                "label": stat.label,
                "short": stat.short,
                "kind": stat.kind,
                "loop": stat.loop,
                "deals": deals * (BURY_FACTOR if stat.loop == "bury" else 1),
                "settings": rows,
                "response": response,
            }
        )
    return {
        "policy": policy,
        "reference": reference,
        "difference": f"{policy} minus {reference}",
        "deals": deals,
        "bury_deals": deals * BURY_FACTOR,
        "seed": seed,
        "studies": studies,
        "skipped": [{"field": k.field, "reason": k.reason} for k in p.skipped],
        "departures": departures(studies),
    }


def departures(studies: Sequence[dict]) -> dict:
    """The settings and the responses whose difference policy - reference lies beyond 0 on the whole
    of its interval, and how many of each there are."""
    settings = [
        {"field": s["field"], "setting": r["name"], "short": s["short"], "kind": s["kind"], **r["difference"]}
        for s in studies
        for r in s["settings"]
        if departs(r["difference"])
    ]
    responses = [
        {
            "field": s["field"],
            "from": s["response"]["from"],
            "to": s["response"]["to"],
            "short": s["short"],
            "kind": s["kind"],
            **s["response"]["difference"],
        }
        for s in studies
        if departs(s["response"]["difference"])
    ]
    return {
        "settings": settings,
        "of_settings": sum(len(s["settings"]) for s in studies),
        "responses": responses,
        "of_responses": len(studies),
    }


def run(
    *,
    policy: Any = DEFAULT_POLICY,
    reference: Any = DEFAULT_REFERENCE,
    deals: Any = DEFAULT_DEALS,
    seed: Any = 1,
    jobs: Any = 1,
    variant: str | None = None,
) -> dict:
    """Validate everything first (one line for the first bad input), then ``measure``."""
    from ..sim.limits import HAND_BYTES, check_int, check_jobs, check_memory, check_seed

    parse_pair(f"{policy},{reference}")  # two different built-in policies
    check_int("--deals", deals, 2, 1_000_000)
    check_seed("--seed", seed)
    check_jobs("--jobs", jobs)
    check_memory(f"--deals {deals:,}", 2 * deals * HAND_BYTES, "deal fewer")
    p = plan(variant)
    if not p.studies:
        raise SimsuiteError(
            f"--variant {variant}: no rule field can be studied on its rules: "
            + "; ".join(f"{k.field}: {k.reason}" for k in p.skipped)
        )
    return measure(policy, reference, deals, seed, jobs, variant)


__all__ = [
    "BURY_FACTOR",
    "DEFAULT_DEALS",
    "DEFAULT_POLICY",
    "DEFAULT_REFERENCE",
    "FIELDS",
    "STATISTICS",
    "bottom_sizes",
    "departures",
    "lead_size_problem",
    "measure",
    "multiplier_overrides",
    "per_hand",
    "plan",
    "run",
]
