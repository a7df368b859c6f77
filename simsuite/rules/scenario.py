"""Scenario files: one written situation for ``simsuite judge``. The format is public and
documented in docs/scenarios.md. Reading checks everything that does not depend on a variant;
``check_against`` then says whether the situation can exist under one variant."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import CardError, ScenarioError, SimsuiteError, read_toml
from .cards import RANK_NAMES, SEATS, TEAMS, card_rank, card_suit, format_card, parse_cards, parse_rank
from .order import NO_TRUMP, TRUMP, format_trump, hand_order, parse_trump

TEAM_OF = {name: t for t, name in enumerate(TEAMS)}
# [voids] letters S H D C T: a suit-class index as ``order.HandOrder.cls`` gives it, T the trump class
VOID_LETTERS = "SHDCT"
VOID_NAMES = ("S", "H", "D", "C", "trump")
TRUMP_VOID = TRUMP  # "T", the last letter: the trump suit-class
# the most points a scenario's defenders may claim either way: far beyond any real hand (eight
# decks hold 800 points, and a capture multiplies the bottom's), yet small enough to score exactly
MAX_DEFENDER_POINTS = 100_000
TOP_KEYS = {
    "variant",
    "level",
    "trump",
    "declarers",
    "dealer",
    "hands",
    "trick",
    "end",
    "declare",
    "to_move",
    "played",
    "points",
    "bottom",
    "shown",
    "voids",
}
SECTION_KEYS = {
    "trick": {"leader", "plays"},
    "end": {"defender_points", "bottom", "levels"},
    "declare": {"bids", "first_hand", "dealer"},
}


@dataclass(frozen=True)
class Scenario:
    source: str
    variant: str | None
    level: int | None
    trump: int | None
    declarers: int | None
    dealer: int | None
    hands: dict[int, list[int]] = field(default_factory=dict)
    leader: int | None = None
    plays: list[list[int]] = field(default_factory=list)
    has_end: bool = False
    defender_points: int = 0
    bottom: list[int] | None = None
    levels: dict[int, int] | None = None
    bids: list[tuple[int, list[int]]] | None = None
    first_hand: bool = False
    declare_dealer: int | None = None
    # a position for ``simsuite advise``
    to_move: int | None = None
    played: list[int] = field(default_factory=list)
    points: int = 0
    buried: list[int] | None = None
    shown: dict[int, list[int]] = field(default_factory=dict)
    voids: dict[int, list[int]] = field(default_factory=dict)


def _seat(value: Any, where: str) -> int:
    if isinstance(value, str) and value.strip().upper() in SEATS and len(value.strip()) == 1:
        return SEATS.index(value.strip().upper())
    raise ScenarioError(f"{where}: {value!r} is not a seat; seats are N, E, S, W")


def _cards(value: Any, where: str) -> list[int]:
    if not isinstance(value, str):
        raise ScenarioError(f"{where}: cards must be a string of card notation, got {value!r}")
    try:
        return parse_cards(value)
    except CardError as exc:
        raise ScenarioError(f"{where}: {exc}") from None


def load_scenario(path: str | Path) -> Scenario:
    """Read and check a scenario file. Raises ``ScenarioError`` naming the file and the key."""
    path = Path(path)
    raw = read_toml(path, "scenario file", ScenarioError)
    try:
        return parse_scenario(raw, str(path))
    except ScenarioError as exc:
        raise ScenarioError(f"{path}: {exc}") from None


def parse_scenario(raw: dict[str, Any], source: str = "<scenario>") -> Scenario:
    unknown = sorted(set(raw) - TOP_KEYS)
    if unknown:
        raise ScenarioError(f"unknown key(s) {', '.join(unknown)}; known keys: {', '.join(sorted(TOP_KEYS))}")
    for section, keys in SECTION_KEYS.items():
        if section in raw:
            if not isinstance(raw[section], dict):
                raise ScenarioError(f"[{section}] must be a table")
            bad = sorted(set(raw[section]) - keys)
            if bad:
                raise ScenarioError(
                    f"unknown key(s) in [{section}]: {', '.join(bad)}; known: {', '.join(sorted(keys))}"
                )
    variant = raw.get("variant")
    if variant is not None and not isinstance(variant, str):
        raise ScenarioError(f"variant must be a variant id string, got {variant!r}")
    level = None
    if "level" in raw:
        try:
            level = parse_rank(str(raw["level"]))
        except CardError as exc:
            raise ScenarioError(f"level: {exc}") from None
    trump = None
    if "trump" in raw:
        try:
            trump = parse_trump(str(raw["trump"]))
        except SimsuiteError as exc:
            raise ScenarioError(f"trump: {exc}") from None
    declarers = None
    if "declarers" in raw:
        key = str(raw["declarers"]).strip().upper()
        if key not in TEAM_OF:
            raise ScenarioError(f"declarers: {raw['declarers']!r} is not a partnership; write NS or EW")
        declarers = TEAM_OF[key]
    dealer = _seat(raw["dealer"], "dealer") if "dealer" in raw else None
    if dealer is not None and declarers is not None and dealer % 2 != declarers:
        raise ScenarioError(f"dealer {SEATS[dealer]} is not one of the declarers {'NS' if declarers == 0 else 'EW'}")
    hands = _seat_cards(raw, "hands")
    leader, plays = None, []
    if "trick" in raw:
        t = raw["trick"]
        if "leader" not in t or "plays" not in t:
            raise ScenarioError("[trick] needs leader and plays")
        leader = _seat(t["leader"], "[trick] leader")
        if not isinstance(t["plays"], list) or not 1 <= len(t["plays"]) <= 4:
            raise ScenarioError("[trick] plays must be a list of 1 to 4 card strings, in playing order from the leader")
        plays = [_cards(p, f"[trick] play {i + 1}") for i, p in enumerate(t["plays"])]
        if any(not p for p in plays):
            raise ScenarioError("[trick] a play has no cards")
    has_end = "end" in raw
    defender_points, bottom, levels = 0, None, None
    if has_end:
        e = raw["end"]
        defender_points = e.get("defender_points", 0)
        if isinstance(defender_points, bool) or not isinstance(defender_points, int):
            raise ScenarioError(f"[end] defender_points must be an integer, got {defender_points!r}")
        if abs(defender_points) > MAX_DEFENDER_POINTS:
            raise ScenarioError(
                f"[end] defender_points = {defender_points} is out of range: must be from "
                f"-{MAX_DEFENDER_POINTS:,} to {MAX_DEFENDER_POINTS:,}"
            )
        if defender_points % 5:
            raise ScenarioError(f"[end] defender_points = {defender_points} is not a multiple of 5")
        if "bottom" in e:
            bottom = _cards(e["bottom"], "[end] bottom")
        if "levels" in e:
            if not isinstance(e["levels"], dict) or set(e["levels"]) != set(TEAM_OF):
                raise ScenarioError('[end] levels must give both teams: { NS = "rank", EW = "rank" }')
            try:
                levels = {TEAM_OF[k]: parse_rank(str(v)) for k, v in e["levels"].items()}
            except CardError as exc:
                raise ScenarioError(f"[end] levels: {exc}") from None
    bids, first_hand, declare_dealer = None, False, None
    if "declare" in raw:
        d = raw["declare"]
        bids = []
        if not isinstance(d.get("bids", []), list):
            raise ScenarioError("[declare] bids must be a list of [seat, cards] pairs")
        for i, bid in enumerate(d.get("bids", [])):
            if not (isinstance(bid, list) and len(bid) == 2):
                raise ScenarioError(f'[declare] bid {i + 1} must be [seat, "cards"], got {bid!r}')
            bids.append((_seat(bid[0], f"[declare] bid {i + 1}"), _cards(bid[1], f"[declare] bid {i + 1}")))
        first_hand = d.get("first_hand", False)
        if not isinstance(first_hand, bool):
            raise ScenarioError("[declare] first_hand must be true or false")
        if "dealer" in d:
            declare_dealer = _seat(d["dealer"], "[declare] dealer")
    to_move = _seat(raw["to_move"], "to_move") if "to_move" in raw else None
    played = _cards(raw["played"], "played") if "played" in raw else []
    points = raw.get("points", 0)
    if isinstance(points, bool) or not isinstance(points, int) or not 0 <= points <= MAX_DEFENDER_POINTS or points % 5:
        raise ScenarioError(
            f"points (the defenders' points so far) must be a multiple of 5 from 0 to "
            f"{MAX_DEFENDER_POINTS:,}, got {points!r}"
        )
    buried = _cards(raw["bottom"], "bottom") if "bottom" in raw else None
    shown = _seat_cards(raw, "shown")
    voids = {}
    if "voids" in raw:
        if not isinstance(raw["voids"], dict):
            raise ScenarioError('[voids] must be a table of seat = "suits" (S H D C T, T for trump)')
        for key, value in raw["voids"].items():
            seat = _seat(key, "[voids]")
            if not isinstance(value, str) or not all(x in VOID_LETTERS for x in value.replace(" ", "").upper()):
                raise ScenarioError(
                    f'[voids] {key}: write the suits a seat has shown out of, as "H C" (T for trump); got {value!r}'
                )
            voids[seat] = sorted({VOID_LETTERS.index(x) for x in value.replace(" ", "").upper()})
    if to_move is not None:
        if level is None or trump is None or declarers is None or dealer is None:
            raise ScenarioError("a position (to_move) needs level, trump, declarers and dealer")
        if to_move not in hands:
            raise ScenarioError(f"to_move = {SEATS[to_move]}: give the hand of the seat to move under [hands]")
        if plays and len(plays) >= 4:
            raise ScenarioError("to_move: the [trick] already has four plays; give the plays before the seat to move")
        if plays and (leader + len(plays)) % 4 != to_move:
            raise ScenarioError(
                f"to_move = {SEATS[to_move]}, but after {len(plays)} play(s) from leader {SEATS[leader]} "
                f"it is {SEATS[(leader + len(plays)) % 4]}'s turn"
            )
        if TRUMP_VOID in voids.get(to_move, []):  # jokers, level cards and the trump suit are trump in every variant
            held = sorted(
                c for c in hands[to_move] if card_suit(c) < 0 or card_rank(c) == level or card_suit(c) == trump
            )
            if held:
                raise ScenarioError(_void_message(to_move, TRUMP_VOID, held[0]))
    elif played or buried is not None or shown or voids or "points" in raw:
        raise ScenarioError("played, points, bottom, [shown] and [voids] describe a position: give to_move too")
    if (plays or has_end) and (level is None or trump is None or declarers is None):
        raise ScenarioError("a [trick] or [end] needs level, trump and declarers")
    if bids is not None and level is None:
        raise ScenarioError("[declare] needs level")
    if not (plays or has_end or bids is not None or to_move is not None):
        raise ScenarioError("nothing to rule: give a [trick], an [end], a [declare] or a position (to_move)")
    return Scenario(
        source,
        variant,
        level,
        trump,
        declarers,
        dealer,
        hands,
        leader,
        plays,
        has_end,
        defender_points,
        bottom,
        levels,
        bids,
        first_hand,
        declare_dealer,
        to_move,
        played,
        points,
        buried,
        shown,
        voids,
    )


def _seat_cards(raw: dict[str, Any], section: str) -> dict[int, list[int]]:
    """A ``[section]`` table of seat = "cards"."""
    out: dict[int, list[int]] = {}
    if section in raw:
        if not isinstance(raw[section], dict):
            raise ScenarioError(f'[{section}] must be a table of seat = "cards"')
        for key, value in raw[section].items():
            out[_seat(key, f"[{section}]")] = _cards(value, f"[{section}] {key}")
    return out


def _void_message(seat: int, void: int, card: int) -> str:
    """Worded as ``play.advise`` words the voids of the other seats."""
    return f"[voids] {SEATS[seat]} is void in {VOID_NAMES[void]} but holds {format_card(card)}"


def _void_problem(s: Scenario, variant) -> str | None:
    """The first card the seat to move holds of a suit it is declared void in, under ``variant``
    (whose permanent trumps decide which cards are trump), as a problem; or None."""
    if s.to_move is None or not s.voids.get(s.to_move):
        return None
    order = hand_order(variant, s.level, s.trump)
    for void in s.voids[s.to_move]:
        held = sorted(c for c in s.hands.get(s.to_move, []) if int(order.cls[c]) == void)
        if held:
            return _void_message(s.to_move, void, held[0])
    return None


def check_against(s: Scenario, variant) -> str | None:
    """Why the scenario cannot exist under ``variant``, or None if it can."""
    problems = []
    if (void := _void_problem(s, variant)) is not None:
        problems.append(void)
    if s.level is not None:
        if s.level in variant.permanent_trump_ranks:
            problems.append(f"level {RANK_NAMES[s.level]} is a permanent trump rank in {variant.id}")
        elif not variant.start_level <= s.level <= variant.end_level:
            problems.append(
                f"level {RANK_NAMES[s.level]} is outside {variant.id}'s levels "
                f"{RANK_NAMES[variant.start_level]}..{RANK_NAMES[variant.end_level]}"
            )
    if s.trump == NO_TRUMP and not variant.no_trump:
        problems.append(f"{variant.id} has no no-trump hands")
    if s.levels:
        for team, lvl in s.levels.items():
            if not variant.start_level <= lvl <= variant.end_level:
                problems.append(f"[end] level {RANK_NAMES[lvl]} is outside {variant.id}'s levels")
        if s.level is not None and s.declarers is not None and s.levels.get(s.declarers, s.level) != s.level:
            problems.append(
                f"[end] levels: the declarers ({TEAMS[s.declarers]}) are at "
                f"{RANK_NAMES[s.levels[s.declarers]]}, but the hand is played at level {RANK_NAMES[s.level]}"
            )
    if s.bottom is not None and len(s.bottom) != variant.bottom_size:
        problems.append(f"the bottom has {len(s.bottom)} cards; {variant.id} buries {variant.bottom_size}")
    for seat, hand in s.hands.items():
        if len(hand) > variant.hand_size:
            problems.append(f"{SEATS[seat]} holds {len(hand)} cards; {variant.id} deals {variant.hand_size}")
    # every copy of a card somewhere on the table
    seen: dict[int, int] = {}
    groups = [h for h in s.hands.values()] + ([s.bottom] if s.bottom else [])
    if s.leader is not None:
        for i, play in enumerate(s.plays):
            seat = (s.leader + i) % 4
            if seat not in s.hands:
                groups.append(play)
    for g in groups:
        for c in g:
            seen[c] = seen.get(c, 0) + 1
    over = [f"{n} x {format_card(c)}" for c, n in sorted(seen.items()) if n > variant.decks]
    if over:
        problems.append(
            f"{', '.join(over)} on the table, but {variant.decks} deck(s) hold only {variant.decks} of each card"
        )
    return "; ".join(problems) if problems else None


__all__ = ["Scenario", "load_scenario", "parse_scenario", "check_against", "format_trump"]
