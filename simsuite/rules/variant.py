"""Variants: one tournament's rules as a frozen, validated dataclass loaded from TOML.

A variant file (``variants/<id>.toml``) groups its keys in sections for reading; every key name
is unique across sections, so a field can also be named alone (``bottom_size``) by overrides.
Numbers are fields; behaviours are named choices (enums) that select a small function in the
rules core. No code ever branches on a variant's id.

``load_variant("huizhou")`` loads from the registry in ``variants/``; a path loads a file. A file
may start with ``extends = "<id>"`` and give only the keys it changes.

Every field of a registry variant cites its source as data: a ``[cite.<section>]`` table after
each section holds one ``Citation`` per field (a clause of the original rule document, or
``default``: our reason where the original is silent), read by ``rules.citations``. Citations
never enter the rules hash.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import (
    ID_CHARS,
    MAX_ID,
    CardError,
    SimsuiteError,
    VariantError,
    as_id,
    did_you_mean,
    id_problem,
    read_toml,
)
from .cards import RANK_NAMES, parse_rank
from .choices import CHOICES, TieBreak, TieRule, TournamentFormat
from .citations import CITE_SECTION, Citation, cite_text, inherited_citations, read_citations, with_citations

# The built-in variants are package data: found through importlib.resources, so that an installed simsuite has them.
VARIANTS_DIR = Path(str(resources.files("simsuite") / "variants"))

# Named choices (``rules.choices``). The rules core maps each to a small function or integer code.


@dataclass(frozen=True)
class FieldSpec:
    name: str
    section: str
    kind: str  # int, bool, str, rank, rank_list, choice, choice_list, float, int_list
    doc: str
    choices: str | None = None  # key into CHOICES
    minimum: float | None = None
    maximum: float | None = None  # from the rules' physical limits (docs/variants.md, "Field ranges")


SPECS: tuple[FieldSpec, ...] = (
    # [about]
    FieldSpec("name", "about", "str", "full name of the tournament's rules"),
    FieldSpec("document", "about", "str", "file name of the original rule document (docs/variants.md lists them)"),
    FieldSpec("version", "about", "int", "version of this variant file; bump on any rule change", minimum=1),
    # [deal]
    FieldSpec("decks", "deal", "int", "number of 54-card decks", minimum=1),
    FieldSpec("bottom_size", "deal", "int", "cards in the bottom (kitty); 0 for none", minimum=0),
    FieldSpec("start_level", "deal", "rank", "the level both teams start at"),
    FieldSpec("end_level", "deal", "rank", "the last level; a team that passes it wins"),
    FieldSpec(
        "must_defend_end_level", "deal", "bool", "a team at the end level must win a hand as declarers there to finish"
    ),
    FieldSpec("permanent_trump_ranks", "deal", "rank_list", "ranks that are always trump (guangxi-2012: 2s)"),
    FieldSpec("no_trump", "deal", "bool", "whether a no-trump hand can be declared"),
    # [declare]
    FieldSpec(
        "bidding", "declare", "choice", "open declaring while drawing, or concealed bids after the deal", "bidding"
    ),
    FieldSpec("min_declare", "declare", "int", "identical level cards needed to declare first", minimum=1),
    FieldSpec("min_override", "declare", "int", "identical cards needed to override a standing declaration", minimum=1),
    FieldSpec("tie_break", "declare", "choice", "equal counts: by suit order, or the first stands", "tie_break"),
    FieldSpec("suit_order", "declare", "str_list", "with tie_break = suit_order: strongest first (BJ, SJ, S, H, D, C)"),
    FieldSpec(
        "joker_bids",
        "declare",
        "choice",
        "how jokers declare: not at all, a pair for no-trump, or like suits",
        "joker_bids",
    ),
    FieldSpec("self_override", "declare", "bool", "may a declarer change the suit they declared"),
    FieldSpec(
        "self_override_scope",
        "declare",
        "choice",
        "who is barred by self_override = false: the declaring seat, or its whole side (partner too)",
        "self_override_scope",
    ),
    FieldSpec("reinforce", "declare", "bool", "may a declarer add cards to their own declaration"),
    FieldSpec("first_hand_needs_small_joker", "declare", "bool", "opening hand: a bid must include a small joker"),
    FieldSpec("first_hand_declarer_deals", "declare", "bool", "opening hand: the winning declarer becomes dealer"),
    FieldSpec(
        "override_takes_deal", "declare", "bool", "after the opening hand, a successful override also takes the deal"
    ),
    FieldSpec("fallback", "declare", "choice", "what happens when nobody declares", "fallback"),
    # [units]
    FieldSpec("max_unit", "units", "int", "largest unit of identical cards (2 pair, 3 triple, 4 quad)", minimum=1),
    FieldSpec("wide_tractors", "units", "bool", "consecutive triples (and quads) form tractors"),
    FieldSpec("gap_over_level", "units", "bool", "ranks either side of the level rank are consecutive"),
    FieldSpec("link_jokers", "units", "bool", "big-joker and small-joker units are consecutive"),
    FieldSpec(
        "link_small_joker_level",
        "units",
        "bool",
        "small joker and trump-suit level (any level in no-trump) are consecutive",
    ),
    FieldSpec("link_level_off_level", "units", "bool", "trump-suit level and off-suit level are consecutive"),
    FieldSpec(
        "link_off_level_trump_ace", "units", "bool", "off-suit level and the trump suit's top rank are consecutive"
    ),
    FieldSpec("link_permanent", "units", "bool", "permanent trumps form tractors with their neighbours"),
    FieldSpec("triple_pair_unit", "units", "bool", "a triple with an adjacent pair (AAAKK) is a unit in its own right"),
    FieldSpec(
        "wide_beats_pair_tractor", "units", "bool", "a triple/quad tractor beats a pair-tractor of the same card count"
    ),
    FieldSpec("bombs", "units", "bool", "a quad is a bomb: it beats a 2-pair tractor and follows tractor leads"),
    # [follow]
    FieldSpec(
        "follow_order", "follow", "choice_list", "follow priority: the order of the profile's fields", "follow_order"
    ),
    FieldSpec(
        "follow_order_quad_lead",
        "follow",
        "choice_list",
        "follow priority when the lead is a quad (bomb)",
        "follow_order",
    ),
    FieldSpec(
        "wide_counts_as_tractor",
        "follow",
        "bool",
        "a triple-tractor answers a pair-tractor lead as a tractor of its card count",
    ),
    FieldSpec(
        "lone_triple_counts",
        "follow",
        "bool",
        "against a triple lead a triple not in a tractor counts as a triple (else a pair + a single)",
    ),
    # [throw]
    FieldSpec("throws", "throw", "bool", "whether throws (several units at once) may be led"),
    FieldSpec("throw_test", "throw", "choice", "absolute-max or per-unit validity test", "throw_test"),
    FieldSpec("throw_failure", "throw", "choice", "the consequence of a failed throw", "throw_failure"),
    FieldSpec("throw_penalty", "throw", "int", "penalty points (per card, or flat)", minimum=0),
    FieldSpec("forced_play", "throw", "choice", "what the thrower must play after a failed throw", "forced_play"),
    FieldSpec(
        "throw_compare",
        "throw",
        "choice",
        "trumped throws are compared by their largest unit (most cards, then widest)",
        "throw_compare",
    ),
    # [capture]
    FieldSpec("capture_by", "capture", "choice", "who may capture on the last trick", "capture_by"),
    FieldSpec("capture_with", "capture", "choice", "what the last trick must be won with", "capture_with"),
    FieldSpec("capture_scheme", "capture", "choice", "how the multiplier is computed", "capture_scheme"),
    FieldSpec(
        "capture_per_card", "capture", "int", "per_card: multiplier per card of the winning unit (trump)", minimum=0
    ),
    FieldSpec(
        "capture_side_per_card", "capture", "int", "per_card: multiplier per card when won with a side suit", minimum=0
    ),
    FieldSpec("capture_base", "capture", "int", "per_card: added to the multiplier; power: its base", minimum=0),
    FieldSpec("single_card_captures", "capture", "bool", "whether a one-card last lead captures"),
    # [score]
    FieldSpec("takeover", "score", "int", "defenders' points at which they take over", minimum=5),
    FieldSpec("step", "score", "int", "points per level on both sides", minimum=5),
    FieldSpec("takeover_bonus", "score", "int", "levels the defenders gain just by taking over", minimum=0),
    FieldSpec("declarer_cap", "score", "int", "most levels declarers gain in a hand (0: no cap)", minimum=0),
    FieldSpec(
        "zero_bonus", "score", "int", "levels declarers gain when the defenders have 0 (0: no special band)", minimum=0
    ),
    FieldSpec("below_zero_step", "score", "bool", "below 0, each further step gains the declarers one more level"),
    FieldSpec("defender_cap", "score", "int", "most levels defenders gain in a hand (0: no cap)", minimum=0),
    FieldSpec("dealer_rotation", "score", "choice", "who deals next", "dealer_rotation"),
    # [match]
    FieldSpec("match_minutes", "match", "int", "length of a timed match in minutes (0: untimed)", minimum=0),
    FieldSpec("warning_minute", "match", "int", "minute of the warning (0: none)", minimum=0),
    FieldSpec(
        "hands_after_warning", "match", "int", "hands started after the warning, besides the one in play", minimum=0
    ),
    FieldSpec("no_new_hand_minutes", "match", "int", "no new hand starts in the last N minutes", minimum=0),
    FieldSpec(
        "tie_rule",
        "match",
        "choice",
        "equal levels at time: a draw, or the team on stage (declaring next) wins",
        "tie_rule",
    ),
    FieldSpec(
        "hand_overhead_minutes",
        "match",
        "float",
        "duration model: minutes per hand for shuffle, deal, declare, bury",
        minimum=0,
    ),
    FieldSpec("seconds_per_trick", "match", "float", "duration model: seconds per trick", minimum=0),
    # [tournament]
    FieldSpec("tournament_format", "tournament", "choice", "how rounds are paired", "tournament_format"),
    FieldSpec("rounds", "tournament", "int", "rounds in the tournament", minimum=1),
    FieldSpec("points_win", "tournament", "int", "points for a match win", minimum=0),
    FieldSpec("points_draw", "tournament", "int", "points for a draw", minimum=0),
    FieldSpec("points_loss", "tournament", "int", "points for a loss", minimum=0),
    FieldSpec("elimination", "tournament", "choice", "knock-out: single or double elimination", "elimination"),
    FieldSpec(
        "no_rematch_rounds",
        "tournament",
        "int",
        "Swiss: teams that met in the last N rounds are not paired again (0: rematches allowed)",
        minimum=0,
    ),
    FieldSpec("tiebreaks", "tournament", "choice_list", "tie-breaks in order", "tiebreaks"),
)


# --- field ranges --------------------------------------------------------------------------
# Every documented value plays (tests/test_field_ranges.py walks them): the bounds are what the
# compiled engine plays, and inside that the game's physical limits. They keep every figure the
# engine computes inside the int64 arrays and the results columns (schema.py), and every array it
# allocates inside a machine's memory; docs/variants.md lists them.
MAX_DECKS = 4  # the engine's deal row (``engine.core``, ``hl``) holds 54 x 4 = 216 cards
MAX_BOTTOM = 54 * MAX_DECKS - 4  # the deal gives each of the four players at least one card
LEVELS_ON_THE_LADDER = 13  # 2 .. A: a bonus or cap larger than the whole ladder means nothing
MINUTES_PER_DAY = 24 * 60  # a match, a warning or a hand lasts at most one day
MAX_HANDS_AFTER_WARNING = 100
MAX_PENALTY_POINTS = 1000  # per card or flat; penalties column Int32
# per card, side per card, base: keeps a per-card capture (at most 100 + 100 x 54 cards, times a
# bottom of at most 400 points) inside Int32; a power capture of a long unit can still pass it,
# and then schema.py names the column
MAX_CAPTURE_FACTOR = 100
MAX_ROUNDS = 1000
MAX_TOURNAMENT_POINTS = 1000
MAX_VERSION = 10**6
RANGES: dict[str, float] = {
    "version": MAX_VERSION,
    "decks": MAX_DECKS,
    "bottom_size": MAX_BOTTOM,
    "min_declare": MAX_DECKS,
    "min_override": MAX_DECKS,
    "max_unit": MAX_DECKS,
    "throw_penalty": MAX_PENALTY_POINTS,
    "capture_per_card": MAX_CAPTURE_FACTOR,
    "capture_side_per_card": MAX_CAPTURE_FACTOR,
    "capture_base": MAX_CAPTURE_FACTOR,
    "takeover": 100 * MAX_DECKS,
    "step": 100 * MAX_DECKS,
    "takeover_bonus": LEVELS_ON_THE_LADDER,
    "declarer_cap": LEVELS_ON_THE_LADDER,
    "zero_bonus": LEVELS_ON_THE_LADDER,
    "defender_cap": LEVELS_ON_THE_LADDER,
    "match_minutes": MINUTES_PER_DAY,
    "warning_minute": MINUTES_PER_DAY,
    "hands_after_warning": MAX_HANDS_AFTER_WARNING,
    "no_new_hand_minutes": MINUTES_PER_DAY,
    "hand_overhead_minutes": MINUTES_PER_DAY,
    "seconds_per_trick": 60 * MINUTES_PER_DAY,
    "rounds": MAX_ROUNDS,
    "points_win": MAX_TOURNAMENT_POINTS,
    "points_draw": MAX_TOURNAMENT_POINTS,
    "points_loss": MAX_TOURNAMENT_POINTS,
    "no_rematch_rounds": MAX_ROUNDS,
}
# why a value past a range's end does not play, where the range alone does not say it
_DEAL_LIMIT = f"the engine deals at most {MAX_DECKS} decks, {54 * MAX_DECKS} cards"
RANGE_REASONS: dict[str, str] = {
    "decks": _DEAL_LIMIT,
    "bottom_size": f"{_DEAL_LIMIT}, and each player is dealt at least one",
    "min_declare": f"{_DEAL_LIMIT}: no more than {MAX_DECKS} identical cards",
    "min_override": f"{_DEAL_LIMIT}: no more than {MAX_DECKS} identical cards",
    "max_unit": f"{_DEAL_LIMIT}: no more than {MAX_DECKS} identical cards",
    "takeover": f"{_DEAL_LIMIT}: at most {100 * MAX_DECKS} points; points come in fives",
    "step": f"{_DEAL_LIMIT}: at most {100 * MAX_DECKS} points; points come in fives",
}
SPECS = tuple(dataclasses.replace(s, maximum=RANGES[s.name]) if s.name in RANGES else s for s in SPECS)
SPEC_BY_NAME = {s.name: s for s in SPECS}
MAX_EXTENDS_DEPTH = 16  # a chain of extends longer than this is a loop the names did not reveal
SECTIONS = tuple(dict.fromkeys(s.section for s in SPECS))
TOP_LEVEL_KEYS = ("id", "extends")


@dataclass(frozen=True)
class Variant:
    """One tournament's rules. Build with ``load_variant``; fields are documented in SPECS."""

    id: str
    name: str
    document: str
    version: int
    decks: int
    bottom_size: int
    start_level: int
    end_level: int
    must_defend_end_level: bool
    permanent_trump_ranks: tuple[int, ...]
    no_trump: bool
    bidding: str
    min_declare: int
    min_override: int
    tie_break: str
    suit_order: tuple[str, ...]
    joker_bids: str
    self_override: bool
    self_override_scope: str
    reinforce: bool
    first_hand_needs_small_joker: bool
    first_hand_declarer_deals: bool
    override_takes_deal: bool
    fallback: str
    max_unit: int
    wide_tractors: bool
    gap_over_level: bool
    link_jokers: bool
    link_small_joker_level: bool
    link_level_off_level: bool
    link_off_level_trump_ace: bool
    link_permanent: bool
    triple_pair_unit: bool
    wide_beats_pair_tractor: bool
    bombs: bool
    follow_order: tuple[str, ...]
    follow_order_quad_lead: tuple[str, ...]
    wide_counts_as_tractor: bool
    lone_triple_counts: bool
    throws: bool
    throw_test: str
    throw_failure: str
    throw_penalty: int
    forced_play: str
    throw_compare: str
    capture_by: str
    capture_with: str
    capture_scheme: str
    capture_per_card: int
    capture_side_per_card: int
    capture_base: int
    single_card_captures: bool
    takeover: int
    step: int
    takeover_bonus: int
    declarer_cap: int
    zero_bonus: int
    below_zero_step: bool
    defender_cap: int
    dealer_rotation: str
    match_minutes: int
    warning_minute: int
    hands_after_warning: int
    no_new_hand_minutes: int
    tie_rule: str
    hand_overhead_minutes: float
    seconds_per_trick: float
    tournament_format: str
    rounds: int
    points_win: int
    points_draw: int
    points_loss: int
    elimination: str
    no_rematch_rounds: int
    tiebreaks: tuple[str, ...]
    source: str = field(default="", compare=False)
    # field name -> where its value comes from; never compared, hashed or part of the rules
    citations: Mapping[str, Citation] = field(default_factory=dict, compare=False, repr=False)

    def cite(self, name: str) -> Citation | None:
        """Where field ``name``'s value comes from, or None when it is not cited."""
        if name not in SPEC_BY_NAME:
            raise VariantError(self.source or self.id, [f"cite: no field {name!r}; fields: {', '.join(SPEC_BY_NAME)}"])
        return self.citations.get(name)

    def cite_dict(self) -> dict[str, dict[str, dict[str, str] | None]]:
        """Every field's citation as plain data, grouped like the file (None: not cited)."""
        out: dict[str, dict[str, dict[str, str] | None]] = {}
        for spec in SPECS:
            c = self.citations.get(spec.name)
            out.setdefault(spec.section, {})[spec.name] = None if c is None else c.as_dict()
        return out

    # --- derived figures -------------------------------------------------------------------
    @property
    def total_points(self) -> int:
        """Points in the decks: 100 per deck."""
        return 100 * self.decks

    @property
    def hand_size(self) -> int:
        return (54 * self.decks - self.bottom_size) // 4

    @property
    def tricks_per_hand(self) -> int:
        return self.hand_size

    def rules_dict(self) -> dict[str, Any]:
        """The rule fields as plain data (no id, no source): what the rules hash covers."""
        out = {}
        for spec in SPECS:
            if spec.section == "about" and spec.name != "version":
                continue
            value = getattr(self, spec.name)
            out[spec.name] = _to_plain(spec, value)
        return out

    @property
    def rules_hash(self) -> str:
        """A short hash of the rules: equal rules give equal hashes, whatever the id."""
        blob = json.dumps(self.rules_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def to_toml_dict(self) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for spec in SPECS:
            out.setdefault(spec.section, {})[spec.name] = _to_plain(spec, getattr(self, spec.name))
        return out

    def with_overrides(self, overrides: Mapping[str, Any], source: str = "overrides") -> Variant:
        """A new variant with some fields changed, validated like a file (``--set key=value``)."""
        data = self.to_toml_dict()
        flat = {"id": self.id}
        for section in data.values():
            flat.update(section)
        problems = []
        for key, value in overrides.items():
            if key not in SPEC_BY_NAME or SPEC_BY_NAME[key].section == "about" and key != "version":
                problems.append(unknown_key_problem(key))
                continue
            flat[key] = value
        if problems:
            raise VariantError(source, problems)
        changed = _build(flat, source=source or self.source)
        return dataclasses.replace(changed, citations=inherited_citations(self, changed))


def override_keys() -> list[str]:
    return [s.name for s in SPECS if s.section != "about"]


def unknown_key_problem(key: str) -> str:
    """Why an override key (``--set KEY=VALUE``) is refused: the near keys, not all of them."""
    return (
        f"unknown key {key!r}{did_you_mean(key, override_keys())}; the {len(override_keys())} rule keys are the "
        "fields simsuite show VARIANT lists"
    )


def _to_plain(spec: FieldSpec, value: Any) -> Any:
    if spec.kind == "rank":
        return RANK_NAMES[value]
    if spec.kind == "rank_list":
        return [RANK_NAMES[v] for v in value]
    if isinstance(value, tuple):
        return list(value)
    return value


# --- loading and validation ----------------------------------------------------------------


def known_ids() -> list[str]:
    return sorted(p.stem for p in VARIANTS_DIR.glob("*.toml"))


def load_variant(id_or_path: str | Path) -> Variant:
    """Load a variant by registry id (``"huizhou"``) or by the path of a TOML file."""
    return _load_path(_locate(str(id_or_path)), seen=())


def _locate(text: str) -> Path:
    """The file of a registry id or a path."""
    path = Path(text)
    if not (text.endswith(".toml") or path.is_file()):
        if id_problem(text, "a variant id") is not None:  # never a path joined onto the registry folder
            raise VariantError(
                text,
                [
                    f"unknown variant id (an id is 1 to {MAX_ID} {ID_CHARS}); give the path of a "
                    f"variant file ending in .toml, or one of: {', '.join(known_ids())}"
                ],
            )
        path = VARIANTS_DIR / f"{text}.toml"
        if not path.is_file():
            raise VariantError(
                text, [f"unknown variant id{did_you_mean(text, known_ids())}; known ids: {', '.join(known_ids())}"]
            )
    return path


def _load_path(path: Path, seen: tuple[str, ...]) -> Variant:
    source = str(path)
    try:
        raw = read_toml(path, "variant file")
    except SimsuiteError as exc:  # one line naming the file: the reason, without the path again
        raise VariantError(
            source, [str(exc).removeprefix(f"{path}: ").replace("no such variant file", "no such file")]
        ) from None
    return variant_from_table(raw, source, path.parent, default_id=path.stem, seen=seen, built_in=_in_registry(path))


def variant_from_table(
    raw: Mapping[str, Any],
    source: str,
    base_dir: Path,
    *,
    default_id: str = "",
    seen: tuple[str, ...] = (),
    built_in: bool = False,
) -> Variant:
    """A variant from the parsed contents of a variant file (``extends``, ``id``, sections and
    ``[cite.*]``), validated like a file; ``extends = "x.toml"`` is read relative to ``base_dir``.
    Lets another file hold a variant in one of its tables (calibration references,
    docs/calibration.md). ``built_in``: a registry file, which must cite every rule field."""
    raw = dict(raw)
    problems: list[str] = []
    flat: dict[str, Any] = {}
    own_citations = read_citations(raw.pop(CITE_SECTION, None), problems, SPECS)
    parent: Variant | None = None
    base = raw.pop("extends", None)
    no_parent = False  # extends names no variant: every key it would give reads as missing, so none is listed
    if base is not None:
        if not isinstance(base, str):
            problems.append(f"extends must be a variant id, got {base!r}")
            no_parent = True
        elif base in seen or len(seen) >= MAX_EXTENDS_DEPTH:
            # names, not resolved paths, so a loop through ids and paths alike ends here
            problems.append(f"extends forms a cycle: {' -> '.join(seen + (base,))}")
            no_parent = True
        else:
            try:
                target = _locate(base) if not base.endswith(".toml") else base_dir / base
                parent = _load_path(target, seen + (base,))
                for section in parent.to_toml_dict().values():
                    flat.update(section)
            except VariantError as exc:
                raise VariantError(source, [f"extends {base!r}: {exc}"]) from None
    flat["id"] = raw.pop("id", as_id(default_id))
    for key, value in raw.items():
        if isinstance(value, dict) and key in SECTIONS:
            for sub, subvalue in value.items():
                spec = SPEC_BY_NAME.get(sub)
                if spec is None:
                    problems.append(
                        f"unknown key [{key}] {sub!r}; known keys in [{key}]: {', '.join(s.name for s in SPECS if s.section == key)}"
                    )
                elif spec.section != key:
                    problems.append(f"key {sub!r} belongs in [{spec.section}], not [{key}]")
                else:
                    flat[sub] = subvalue
        elif isinstance(value, dict):
            problems.append(f"unknown section [{key}]; sections are {', '.join(SECTIONS)}")
        else:
            problems.append(f"unknown top-level key {key!r}; put fields in their sections ({', '.join(SECTIONS)})")
    if no_parent:
        raise VariantError(source, problems)
    variant = _build(flat, source=source, prior=problems)
    return with_citations(variant, parent, own_citations, source, required=built_in, specs=SPECS)


def _in_registry(path: Path) -> bool:
    """A file of the built-in registry (``variants/``), which must cite every field."""
    try:
        return path.resolve().parent == VARIANTS_DIR.resolve()
    except OSError:
        return False


def _build(flat: dict[str, Any], source: str, prior: list[str] | None = None) -> Variant:
    problems = list(prior or [])
    values: dict[str, Any] = {"id": flat.get("id", ""), "source": source}
    if (bad := id_problem(values["id"])) is not None:  # an id may name a results folder: never a path
        problems.append(bad)
    for spec in SPECS:
        if spec.name not in flat:
            problems.append(f"missing key [{spec.section}] {spec.name} ({spec.doc})")
            continue
        try:
            values[spec.name] = _coerce(spec, flat[spec.name])
        except ValueError as exc:
            problems.append(f"[{spec.section}] {spec.name} = {flat[spec.name]!r}: {exc}")
    if not problems:
        problems.extend(_check_consistency(values))
    if problems:
        raise VariantError(source, problems)
    return Variant(**values)


def _coerce(spec: FieldSpec, value: Any) -> Any:
    kind = spec.kind
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError("must be an integer")
        return _in_range(spec, value)
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError("must be a number")
        if not math.isfinite(value):
            raise ValueError("must be a finite number (NaN and infinity are not times)")
        return float(_in_range(spec, value))
    if kind == "bool":
        if not isinstance(value, bool):
            raise ValueError("must be true or false")
        return value
    if kind == "str":
        if not isinstance(value, str):
            raise ValueError("must be a string")
        return value
    if kind == "rank":
        return _rank(value)
    if kind == "rank_list":
        if not isinstance(value, list):
            raise ValueError('must be a list of ranks, e.g. ["2"]')
        return tuple(_rank(v) for v in value)
    if kind == "str_list":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError("must be a list of strings")
        return tuple(value)
    if kind == "choice":
        allowed = CHOICES[spec.choices]
        if value not in allowed:
            raise ValueError(f"must be one of {', '.join(allowed)}")
        return value
    if kind == "choice_list":
        allowed = CHOICES[spec.choices]
        if not isinstance(value, list):
            raise ValueError(f"must be a list of {', '.join(allowed)}")
        bad = [v for v in value if v not in allowed]
        if bad:
            raise ValueError(f"unknown {', '.join(map(repr, bad))}; allowed: {', '.join(allowed)}")
        if len(set(value)) != len(value):
            raise ValueError("lists an entry twice")
        return tuple(value)
    raise AssertionError(kind)


def _in_range(spec: FieldSpec, value: int | float) -> int | float:
    """Check the documented range; the message gives the range so a user can fix it at once."""
    low, high = spec.minimum, spec.maximum
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = (
            f"from {low:g} to {high:g}"
            if low is not None and high is not None
            else (f"at least {low:g}" if low is not None else f"at most {high:g}")
        )
        why = f" ({RANGE_REASONS[spec.name]})" if spec.name in RANGE_REASONS else ""
        raise ValueError(f"out of range: must be {bounds}{why}")
    return value


def _rank(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 2 <= value <= 10:
        value = str(value)
    if not isinstance(value, str):
        raise ValueError('must be a rank such as "2", "10" or "A"')
    try:
        return parse_rank(value)
    except CardError as exc:
        raise ValueError(str(exc)) from None


def even_bottoms(decks: int) -> list[int]:
    """The bottom sizes that deal ``decks`` decks evenly to four players, each a card at least,
    within ``bottom_size``'s range."""
    high = min(int(SPEC_BY_NAME["bottom_size"].maximum), 54 * decks - 4)
    return [b for b in range(0, high + 1) if (54 * decks - b) % 4 == 0]


def even_bottoms_text(decks: int) -> str:
    """``even_bottoms`` in words: ``2, 6, 10, 14, ... 158 (every fourth size)``, or all of them
    when there are few."""
    sizes = even_bottoms(decks)
    if len(sizes) <= 4:
        return ", ".join(map(str, sizes[:-1])) + (" and " if len(sizes) > 1 else "") + str(sizes[-1])
    return f"{', '.join(map(str, sizes[:4]))}, ... {sizes[-1]} (every fourth size)"


def _check_consistency(v: dict[str, Any]) -> list[str]:
    problems = []
    decks, bottom = v["decks"], v["bottom_size"]
    if (54 * decks - bottom) % 4:
        problems.append(
            f"[deal] bottom_size = {bottom} does not divide the deal evenly: "
            f"54 x {decks} - {bottom} = {54 * decks - bottom} is not a multiple of 4 players; "
            f"with {decks} deck(s) the bottom sizes that deal evenly are {even_bottoms_text(decks)}"
        )
    elif bottom >= 54 * decks:
        problems.append(
            f"[deal] bottom_size = {bottom} leaves no cards to deal; with {decks} deck(s) the bottom sizes "
            f"that deal evenly are {even_bottoms_text(decks)}"
        )
    if len(v["permanent_trump_ranks"]) > 1:
        problems.append(
            f"[deal] permanent_trump_ranks lists {len(v['permanent_trump_ranks'])} ranks; the engine plays "
            "at most one permanent trump rank"
        )
    if v["max_unit"] > decks:
        problems.append(
            f"[units] max_unit = {v['max_unit']} is larger than {decks} deck(s) allow (at most {decks} identical cards)"
        )
    if v["end_level"] < v["start_level"]:
        problems.append(
            f"[deal] end_level {RANK_NAMES[v['end_level']]} is below start_level {RANK_NAMES[v['start_level']]}"
        )
    total = 100 * decks
    if v["takeover"] > total:
        problems.append(f"[score] takeover = {v['takeover']} is more than the {total} points in {decks} deck(s)")
    if v["step"] > v["takeover"]:
        problems.append(
            f"[score] thresholds out of order: step = {v['step']} is larger than takeover = {v['takeover']}"
        )
    if v["takeover"] % 5 or v["step"] % 5:
        problems.append("[score] takeover and step must be multiples of 5 (points come in fives)")
    if v["warning_minute"] and v["match_minutes"] and v["warning_minute"] > v["match_minutes"]:
        problems.append(
            f"[match] warning_minute = {v['warning_minute']} is after the end of a {v['match_minutes']}-minute match"
        )
    if v["tie_break"] == TieBreak.SUIT_ORDER:
        names = ("BJ", "SJ", "S", "H", "D", "C")
        bad = [s for s in v["suit_order"] if s not in names]
        if bad or sorted(v["suit_order"]) != sorted(set(v["suit_order"])):
            problems.append(
                f"[declare] suit_order {list(v['suit_order'])} must list distinct names from {', '.join(names)}"
            )
        missing = [s for s in ("S", "H", "D", "C") if s not in v["suit_order"]]
        if missing:
            problems.append(f"[declare] suit_order must rank every suit; missing {', '.join(missing)}")
    if v["min_override"] < v["min_declare"]:
        problems.append(
            f"[declare] min_override = {v['min_override']} is smaller than min_declare = {v['min_declare']}"
        )
    if v["wide_tractors"] and v["max_unit"] < 3:
        problems.append("[units] wide_tractors needs max_unit of at least 3")
    if v["bombs"] and v["max_unit"] < 4:
        problems.append("[units] bombs need max_unit = 4")
    if v["tournament_format"] == TournamentFormat.KNOCKOUT and v["tie_rule"] == TieRule.DRAW and v["match_minutes"]:
        problems.append(
            '[tournament] tournament_format = "knockout" needs tie_rule = "on_stage" in a timed match: '
            'a knock-out match must have a winner, and tie_rule = "draw" lets a match end level at time'
        )
    if v["points_win"] < v["points_draw"] or v["points_draw"] < v["points_loss"]:
        problems.append("[tournament] points must satisfy win >= draw >= loss")
    for ranks in (v["permanent_trump_ranks"],):
        if v["start_level"] in ranks:
            problems.append("[deal] a permanent trump rank cannot also be the start level")
    if not v["follow_order"]:
        problems.append("[follow] follow_order must list at least one field")
    return problems


def load_all() -> list[Variant]:
    """Every variant in the registry, in a fixed order."""
    return [load_variant(i) for i in known_ids()]


SHOW_WIDTH = 100  # ``simsuite show`` wraps its lines to this many terminal columns


def describe(variant: Variant) -> str:
    """A readable listing of one variant's rules, for checking against the original: each value with
    its meaning, and under it the value's source (the clause and its note, default: our reason, or
    not cited)."""
    lines = [
        f"{variant.id}: {variant.name}",
        f"  document: {variant.document}   version {variant.version}   rules hash {variant.rules_hash}",
        '  Under each value, its source: the original\'s clause and what it says, "default:" our',
        '  reason where the original is silent, or "not cited".',
    ]
    for section in SECTIONS:
        if section == "about":
            continue
        lines.append(f"[{section}]")
        for spec in SPECS:
            if spec.section != section:
                continue
            value = _to_plain(spec, getattr(variant, spec.name))
            shown = (
                (", ".join(map(str, value)) or "none")
                if isinstance(value, list)
                else str(value).lower()
                if isinstance(value, bool)
                else value
            )
            if len(str(shown)) > 18:  # a long value (a list) on a line of its own, its meaning under it
                lines += wrap_columns(f"  {spec.name:<28} {shown}", SHOW_WIDTH, 31)
                lines += wrap_columns(" " * 50 + spec.doc, SHOW_WIDTH, 50)
            else:
                lines += wrap_columns(f"  {spec.name:<28} {str(shown):<18} {spec.doc}", SHOW_WIDTH, 50)
            lines += wrap_columns("      " + cite_text(variant.citations.get(spec.name)), SHOW_WIDTH, 8)
    return "\n".join(lines)


def columns(text: str) -> int:
    """Terminal columns of ``text``: wide (CJK) characters take two."""
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def wrap_columns(line: str, width: int, indent: int) -> list[str]:
    """``line`` wrapped to ``width`` terminal columns, continued ``indent`` spaces in; breaks at a
    space where it can, and inside a run of Chinese (which has no spaces) where it must."""
    out: list[str] = []
    rest = line
    while columns(rest) > width:
        cols, cut, space = 0, 0, -1
        for k, ch in enumerate(rest):
            cols += columns(ch)
            if cols > width:
                break
            cut = k + 1
            if ch == " " and k > indent:
                space = k
        at = space if space > 0 and columns(rest[:space]) > width // 2 else cut
        out.append(rest[:at].rstrip())
        rest = " " * indent + rest[at:].lstrip()
    out.append(rest.rstrip())
    return out


def replace(variant: Variant, **changes: Any) -> Variant:
    """``dataclasses.replace`` that validates the result."""
    return variant.with_overrides(
        {k: _to_plain(SPEC_BY_NAME[k], v) if k in SPEC_BY_NAME else v for k, v in changes.items()}
    )


__all__ = [
    "Variant",
    "load_variant",
    "variant_from_table",
    "load_all",
    "known_ids",
    "describe",
    "SPECS",
    "VariantError",
    "dataclasses",
]
