"""The results columns, in one table: each column's name, type and meaning, and for a column read
from the compiled engine's records, the record slot that holds it.

Shared by the engine and the results store, so it imports nothing. From it come the engine's record
layouts (``RECORD_FIELDS``, ``MATCH_FIELDS``: field names in slot order, used by
``engine.hand`` and ``engine.match``), the Parquet schemas (``sim.schema.HAND_SCHEMA``,
``MATCH_SCHEMA``) and the column tables of docs/results.md (``markdown_table``; a test checks
the docs against it, and ``simsuite columns`` prints them). Adding a column means a row
here and its row in docs/results.md; a new record field also needs the engine to fill its slot.
"""

from __future__ import annotations

from dataclasses import dataclass

TYPES = ("str", "bool", "i8", "i16", "i32", "i64", "f32")  # docs/results.md's names; sim.schema maps them
AS_IN_HANDS = "as in the hand table"  # the meaning of a match column that tags the rows as the hand table does


@dataclass(frozen=True)
class Column:
    """One results column. ``slot``: the engine record slot it is read from (None for the tags
    of a run and for columns derived from other values); ``field``: the record field's name, where
    it differs from the column's (``minutes_x100`` is stored as ``minutes``, divided by 100)."""

    name: str
    type: str
    doc: str
    slot: int | None = None
    field: str | None = None

    @property
    def record_field(self) -> str:
        return self.field or self.name


# tags: what every row of a run is about
_TAGS = (
    Column("run", "str", "the run's folder name"),
    Column("variant", "str", "the variant id (a cell with overrides keeps its base id; see `cell`)"),
    Column(
        "cell",
        "str",
        "the cell: the variant id for `simulate`, `key=value,…` for a sweep (`bottom_size=6,capture_per_card=2`)",
    ),
    Column(
        "match",
        "i64",
        "the match index within the cell; the same index is the same deals in every cell with the same deck count",
    ),
    Column("hand", "i32", "the hand's index within its match, from 0"),
    Column("seed", "i64", "the run's root seed"),
    Column("policy_ns", "str", "the built-in policy of team N-S and of team E-W at this table"),
    Column("policy_ew", "str", "the built-in policy of team N-S and of team E-W at this table"),
    Column("swapped", "bool", "false at the first table; true at the duplicate table, where the pairs swap seats"),
)

HAND_COLUMNS: tuple[Column, ...] = _TAGS + (
    Column("dealer", "i8", "the dealer's seat (who takes the bottom)", 0),
    Column("declarers", "i8", "the declaring team (0 N-S, 1 E-W)", 1),
    Column(
        "declarer_seat",
        "i8",
        "the seat whose declaration stood; -1 when nobody declared (the fallback named trump)",
        23,
    ),
    Column("level", "i8", "the rank being played (the declarers' level)", 2),
    Column("trump", "i8", "the trump suit: 0 S, 1 H, 2 D, 3 C; -1 no-trump", 3),
    Column("level_before_ns", "i8", "each team's level before this hand"),
    Column("level_before_ew", "i8", "each team's level before this hand"),
    Column("trick_points", "i32", "points the defenders won in tricks", 4),
    Column("capture_multiplier", "i32", "the last-trick capture's multiplier (0: no capture)", 5),
    Column(
        "capture_points",
        "i32",
        "points the capture moved: positive when the defenders capture, negative when "
        'the declarers do (where `capture_by = "either"`)',
        6,
    ),
    Column("capture_by", "i8", "1 the defenders captured, -1 the declarers, 0 nobody", 22),
    Column(
        "penalties",
        "i32",
        "failed-throw penalty points: positive when a declarer's throw failed, negative when a defender's did",
        7,
    ),
    Column(
        "final_points",
        "i32",
        "the defenders' score: `trick_points + capture_points + penalties` (forced to the band's edge on a forfeit)",
        8,
    ),
    Column("bottom_points", "i32", "points in the buried cards", 20),
    Column("takeover", "bool", "the defenders reached `takeover` and declare next", 9),
    Column("levels_ns", "i8", "levels each team gained in this hand (at most one is non-zero)", 12),
    Column("levels_ew", "i8", "levels each team gained in this hand (at most one is non-zero)", 13),
    Column("next_declarers", "i8", "the team declaring the next hand", 10),
    Column("next_dealer", "i8", "the seat dealing the next hand", 11),
    Column("tricks", "i16", "tricks played", 14),
    Column("throws", "i16", "throws (several units led at once) attempted", 15),
    Column("throws_failed", "i16", "throws that failed the throw test", 16),
    Column(
        "minutes",
        "f32",
        "modelled duration of the hand: `hand_overhead_minutes + tricks × seconds_per_trick / "
        "60` ([clock.md](clock.md))",
        17,
        "minutes_x100",
    ),
    Column("declared", "bool", "someone declared trump (false: the variant's fallback decided)", 18),
    Column("redeals", "i16", "redeals before this deal stood (fallback `redeal`)", 19),
    Column("forfeit", "bool", 'the hand ended on a failed throw under `throw_failure = "forfeit"`', 21),
)
# slots of the hand record that are no column: the engine's error code (the match loop checks it)
HAND_RECORD_ONLY = {24: "error"}

MATCH_COLUMNS: tuple[Column, ...] = tuple(Column(c.name, c.type, AS_IN_HANDS) for c in _TAGS if c.name != "hand") + (
    Column("first_declarers", "i8", "the team declaring the first hand", 6),
    Column("first_dealer", "i8", "the first hand's dealer seat (the first to draw is seat `match mod 4`)", 13),
    Column("hands", "i32", "hands played", 0),
    Column("minutes", "f32", "modelled duration of the match (the sum of its hands)", 1, "minutes_x100"),
    Column("final_level_ns", "i8", "each team's level at the end", 2),
    Column("final_level_ew", "i8", "each team's level at the end", 3),
    Column("winner", "i8", "0 N-S, 1 E-W, -1 a draw", 4),
    Column(
        "ended_by",
        "str",
        "`level` (a team passed the end level), `clock` (the match clock), `hand cap` (an "
        "untimed match stopped at 500 hands)",
        5,
    ),
    Column("lead_changes", "i16", "how often the team strictly ahead changed", 7),
    Column("max_deficit_ns", "i8", "the largest number of levels each team was behind", 8),
    Column("max_deficit_ew", "i8", "the largest number of levels each team was behind", 9),
)
# slots of the match record that are no column: the error code, and who declares after the last hand
MATCH_RECORD_ONLY = {10: "error", 11: "last_declarers", 12: "next_declarers"}


def record_fields(columns: tuple[Column, ...], record_only: dict[int, str]) -> tuple[str, ...]:
    """A record's field names in slot order; every slot from 0 up is named exactly once."""
    by_slot = dict(record_only)
    for c in columns:
        if c.slot is not None:
            assert c.slot not in by_slot, f"record slot {c.slot} is named twice"
            by_slot[c.slot] = c.record_field
    assert sorted(by_slot) == list(range(len(by_slot))), "record slots must run from 0 without a gap"
    return tuple(by_slot[i] for i in range(len(by_slot)))


RECORD_FIELDS = record_fields(HAND_COLUMNS, HAND_RECORD_ONLY)
MATCH_FIELDS = record_fields(MATCH_COLUMNS, MATCH_RECORD_ONLY)
assert all(c.type in TYPES for c in HAND_COLUMNS + MATCH_COLUMNS)


def markdown_table(columns: tuple[Column, ...]) -> str:
    """The column table of docs/results.md: consecutive columns with the same type and meaning
    share a row; a match column tagged as the hand table's shows no type."""
    rows: list[tuple[list[str], str, str]] = []
    for c in columns:
        kind = "" if c.doc == AS_IN_HANDS else c.type
        if rows and rows[-1][1:] == (kind, c.doc):
            rows[-1][0].append(c.name)
        else:
            rows.append(([c.name], kind, c.doc))
    lines = ["| column | type | meaning |", "|---|---|---|"]
    lines += [
        f"| {', '.join(f'`{n}`' for n in names)} |{' ' + kind if kind else ''} | {doc} |" for names, kind, doc in rows
    ]
    return "\n".join(lines)
