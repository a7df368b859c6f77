"""Matches: hands chained from the start level to the end level, under each tournament's clock.

``play_match`` gives one ``MatchRecord`` with its hands; ``play_match_batch`` plays many matches
in the compiled engine and returns plain arrays (for the harness). See ``docs/clock.md`` for
the duration model and the clock rules.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..engine import match as M
from ..engine.api import play_matches
from ..engine.hand import N_RECORD, RECORD_FIELDS
from ..engine.names import policy_codes
from ..engine.params import compile_variant
from ..engine.policies import full_for
from ..engine.policies.model import work_for
from ..engine.rng import run_key
from ..errors import SimsuiteError
from ..rules.cards import RANK_NAMES
from ..rules.variant import VARIANTS_DIR, Variant, known_ids, load_variant, override_keys

DEFAULT_UNTIMED_CAP = 500  # [default] hands before an untimed match is stopped
# The most hands one match may be sized for: every match of a chunk holds this many hand records
# (about 200 bytes each), so a clock that allows more would need gigabytes per worker.
MAX_HANDS_PER_MATCH = 10_000


def clock_array(variant: Variant) -> np.ndarray:
    """A variant's match clock as the engine reads it (``engine.match``'s ``CLOCK_*`` slots)."""
    from ..engine.match import (
        CLOCK_HANDS_AFTER_WARNING,
        CLOCK_MATCH_MINUTES,
        CLOCK_MUST_DEFEND,
        CLOCK_NO_NEW_HAND_MINUTES,
        CLOCK_TIE_RULE,
        CLOCK_WARNING_MINUTE,
        N_CLOCK,
    )
    from ..rules.choices import TieRule, code

    clock = np.zeros(N_CLOCK, dtype=np.int64)
    clock[CLOCK_MATCH_MINUTES] = variant.match_minutes
    clock[CLOCK_WARNING_MINUTE] = variant.warning_minute
    clock[CLOCK_HANDS_AFTER_WARNING] = variant.hands_after_warning
    clock[CLOCK_NO_NEW_HAND_MINUTES] = variant.no_new_hand_minutes
    clock[CLOCK_TIE_RULE] = code(TieRule(variant.tie_rule))
    clock[CLOCK_MUST_DEFEND] = 1 if variant.must_defend_end_level else 0
    return clock


def hand_cap(variant: Variant, max_hands: int | None = None) -> int:
    """The most hands a match can take. An untimed match needs a cap; a timed one is bounded by
    its clock (the cap then only sizes the arrays). A match that could go on forever is an error."""
    overhead = variant.hand_overhead_minutes + variant.seconds_per_trick / 60.0
    if variant.match_minutes > 0:
        if overhead <= 0:
            raise SimsuiteError(
                f"{variant.id}: a timed match needs hands that take time: hand_overhead_minutes and "
                "seconds_per_trick are both 0, so the clock never runs out"
            )
        bound = math.ceil(variant.match_minutes / overhead) + variant.hands_after_warning + 2
        bound = min(bound, max_hands) if max_hands else bound
        if bound > MAX_HANDS_PER_MATCH:
            raise SimsuiteError(
                f"{variant.id}: a {variant.match_minutes}-minute match of hands lasting "
                f"{overhead:.4g} minutes at least (hand_overhead_minutes + seconds_per_trick / 60) "
                f"could take {bound:,} hands, more than the {MAX_HANDS_PER_MATCH:,} a match is sized "
                "for; make the hands take longer or the match shorter"
            )
        return bound
    if max_hands is None:
        return DEFAULT_UNTIMED_CAP
    if max_hands > MAX_HANDS_PER_MATCH:
        raise SimsuiteError(
            f"{variant.id}: max_hands = {max_hands:,} is more than the {MAX_HANDS_PER_MATCH:,} "
            "hands a match is sized for"
        )
    if max_hands <= 0:
        raise SimsuiteError(
            f"{variant.id}: this match may never end: the clock is off (match_minutes = 0) and there is "
            "no hand cap; give max_hands > 0 or a match clock"
        )
    return max_hands


@dataclass
class MatchRecord:
    """One match: who played, how long it took, how it ended, and every hand."""

    variant: str
    seed: int
    match: int
    policies: tuple[str, str, str, str]
    first_declarers: int
    first_dealer: int
    hands: int
    minutes: float
    final_levels: tuple[int, int]
    winner: int | None  # 0 (NS), 1 (EW) or None (draw)
    ended_by: str  # "level", "clock" or "hand cap"
    lead_changes: int
    max_deficit: tuple[int, int]
    level_history: list[tuple[int, int]] = field(default_factory=list)
    hand_records: list[dict] = field(default_factory=list)

    @property
    def final_level_names(self) -> tuple[str, str]:
        return tuple(RANK_NAMES[min(x, 12)] if x <= 12 else "past A" for x in self.final_levels)


def play_command(
    variant: Variant,
    seed: int,
    match_index: int,
    policies: str,
    given: str | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> str:
    """The ``simsuite play`` command that replays match ``match_index`` of ``variant``: the variant
    as ``given`` (an id or a path; default its registry id, or its file) with ``overrides``
    (default: every rule field where ``variant`` differs from what ``given`` names)."""
    if given is None:
        given, base = _given_and_base(variant)
    else:
        base = _load_or_none(given)
    if overrides is None:
        overrides = {} if base is None else _differences(base, variant)
    sets = "".join(f" --set {shlex.quote(f'{key}={set_text(value)}')}" for key, value in (overrides or {}).items())
    return (
        f"simsuite play --variant {shlex.quote(given)}{sets} --seed {seed} --match --match-index {match_index} "
        f"--policies {shlex.quote(policies)}"
    )


def set_text(value: Any) -> str:
    """A rule value as ``--set KEY=VALUE`` takes it (``sim.spec.parse_override_value``): lists
    comma-separated, booleans lower case."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(set_text(v) for v in value)
    return str(value)


def _given_and_base(variant: Variant) -> tuple[str, Variant | None]:
    """How a command names ``variant``'s rules before any override: its file when it came from one
    outside the registry, else its registry id (None for the base when neither loads). A variant
    with overrides keeps its origin in its source as ``"<file or id> with --set"``."""
    origin = variant.source.removesuffix(" with --set")
    source = Path(origin) if origin else None
    registered = (VARIANTS_DIR / f"{variant.id}.toml").resolve()
    if source is not None and source.suffix == ".toml" and source.is_file() and source.resolve() != registered:
        given = str(source)
    elif variant.id in known_ids():
        given = variant.id
    else:
        return variant.id, None
    return given, _load_or_none(given)


def _load_or_none(given: str) -> Variant | None:
    try:
        return load_variant(given)
    except SimsuiteError:
        return None


def _differences(base: Variant, variant: Variant) -> dict[str, Any]:
    """The rule fields where ``variant`` differs from ``base``, as plain values."""

    def flat(v: Variant) -> dict[str, Any]:
        return {key: value for section in v.to_toml_dict().values() for key, value in section.items()}

    mine, theirs = flat(variant), flat(base)
    return {key: value for key, value in mine.items() if key in override_keys() and theirs.get(key) != value}


def _policies4(policies) -> tuple[np.ndarray, tuple[str, ...]]:
    from ..engine.names import policy_name

    codes = policy_codes(policies)
    return codes, tuple(policy_name(c) for c in codes)


def play_match(
    variant: Variant, seed: int, match_index: int = 0, policies="basic", max_hands: int | None = None
) -> MatchRecord:
    """Play match ``match_index`` of a run with root ``seed``."""
    P = compile_variant(variant)
    codes, names = _policies4(policies)
    cap = hand_cap(variant, max_hands)
    recs = np.zeros((1, M.N_MATCH), np.int64)
    hand_recs = np.zeros((1, cap, N_RECORD), np.int64)
    levels = np.zeros((1, cap, 2), np.int64)
    # through the batch loop, so that one compiled match loop serves both (engine.match.play_match is inlined)
    full = full_for(codes)
    play_matches(
        P,
        clock_array(variant),
        run_key(seed),
        match_index,
        1,
        codes,
        cap,
        work_for(codes),
        recs,
        hand_recs,
        np.zeros(1, np.int64),
        levels,
        full,
    )
    rec, hand_recs, levels = recs[0], hand_recs[0], levels[0]
    if rec[M.M_ERROR]:
        raise SimsuiteError(f"the engine stopped on an illegal play in match {match_index} of seed {seed}")
    return _record(variant, seed, match_index, names, rec, hand_recs, levels)


def _record(variant, seed, match_index, names, rec, hand_recs, levels) -> MatchRecord:
    n = int(rec[M.M_HANDS])
    winner = int(rec[M.M_WINNER])
    return MatchRecord(
        variant=variant.id,
        seed=seed,
        match=match_index,
        policies=names,
        first_declarers=int(rec[M.M_FIRST_DECLARERS]),
        first_dealer=int(rec[M.M_FIRST_DEALER]),
        hands=n,
        minutes=rec[M.M_MINUTES_X100] / 100.0,
        final_levels=(int(rec[M.M_LEVEL0]), int(rec[M.M_LEVEL1])),
        winner=None if winner < 0 else winner,
        ended_by=M.ENDED_NAMES.get(int(rec[M.M_ENDED]), "?"),
        lead_changes=int(rec[M.M_LEAD_CHANGES]),
        max_deficit=(int(rec[M.M_DEFICIT0]), int(rec[M.M_DEFICIT1])),
        level_history=[(int(a), int(b)) for a, b in levels[:n]],
        hand_records=[dict(zip(RECORD_FIELDS, (int(x) for x in row))) for row in hand_recs[:n]],
    )


@dataclass
class MatchBatch:
    """Many matches as arrays: ``matches[i]`` (MATCH_FIELDS), ``hands[i, :hand_count[i]]`` (RECORD_FIELDS)."""

    start: int
    matches: np.ndarray
    hands: np.ndarray
    hand_count: np.ndarray
    levels: np.ndarray


def play_match_batch(
    variant: Variant, seed: int, start: int, count: int, policies="basic", max_hands: int | None = None
) -> MatchBatch:
    """Matches ``start .. start+count-1`` of the run ``seed``, compiled end to end."""
    P = compile_variant(variant)
    codes, _ = _policies4(policies)
    cap = hand_cap(variant, max_hands)
    recs = np.zeros((count, M.N_MATCH), np.int64)
    hands = np.zeros((count, cap, N_RECORD), np.int64)
    levels = np.zeros((count, cap, 2), np.int64)
    hand_count = np.zeros(count, np.int64)
    full = full_for(codes)
    play_matches(
        P,
        clock_array(variant),
        run_key(seed),
        start,
        count,
        codes,
        cap,
        work_for(codes),
        recs,
        hands,
        hand_count,
        levels,
        full,
    )
    if recs[:, M.M_ERROR].any():
        bad = int(np.nonzero(recs[:, M.M_ERROR])[0][0]) + start
        _, names = _policies4(policies)
        # one name, a team pair or four seats, as play takes them
        short = names[:1] if len(set(names)) == 1 else names[:2] if names[:2] == names[2:] else names
        raise SimsuiteError(
            f"the engine stopped on an illegal play in match {bad} of seed {seed}; "
            f"reproduce it with: {play_command(variant, seed, bad, ','.join(short))}"
        )
    return MatchBatch(start, recs, hands, hand_count, levels)
