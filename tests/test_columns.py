"""The column table (simsuite.columns): the engine's record layouts, the Parquet schemas and the
tables of docs/results.md all come from it and agree with it."""

from __future__ import annotations

from pathlib import Path

from simsuite import columns as C
from simsuite.engine import hand as H
from simsuite.engine import match as M
from simsuite.sim.schema import HAND_SCHEMA, MATCH_SCHEMA

ROOT = Path(__file__).resolve().parent.parent

# each record slot constant of the engine and the field it names
HAND_SLOTS = {
    "R_DEALER": "dealer", "R_DECLARERS": "declarers", "R_LEVEL": "level", "R_TRUMP": "trump",
    "R_TRICK_POINTS": "trick_points", "R_CAPTURE_MULT": "capture_multiplier", "R_CAPTURE_POINTS": "capture_points",
    "R_PENALTIES": "penalties", "R_FINAL_POINTS": "final_points", "R_TAKEOVER": "takeover",
    "R_NEXT_DECLARERS": "next_declarers", "R_NEXT_DEALER": "next_dealer", "R_LEVELS0": "levels_ns",
    "R_LEVELS1": "levels_ew", "R_TRICKS": "tricks", "R_THROWS": "throws", "R_THROWS_FAILED": "throws_failed",
    "R_MINUTES_X100": "minutes_x100", "R_DECLARED": "declared", "R_REDEALS": "redeals",
    "R_BOTTOM_POINTS": "bottom_points", "R_FORFEIT": "forfeit", "R_CAPTURE_BY": "capture_by",
    "R_DECLARER_SEAT": "declarer_seat", "R_ERROR": "error",
}
MATCH_SLOTS = {
    "M_HANDS": "hands", "M_MINUTES_X100": "minutes_x100", "M_LEVEL0": "final_level_ns", "M_LEVEL1": "final_level_ew",
    "M_WINNER": "winner", "M_ENDED": "ended_by", "M_FIRST_DECLARERS": "first_declarers",
    "M_LEAD_CHANGES": "lead_changes", "M_DEFICIT0": "max_deficit_ns", "M_DEFICIT1": "max_deficit_ew",
    "M_ERROR": "error", "M_LAST_DECLARERS": "last_declarers", "M_NEXT_DECLARERS": "next_declarers",
    "M_FIRST_DEALER": "first_dealer",
}


def test_record_layouts_follow_the_engine_slot_constants():
    assert len(C.RECORD_FIELDS) == H.N_RECORD == len(HAND_SLOTS)
    assert len(C.MATCH_FIELDS) == M.N_MATCH == len(MATCH_SLOTS)
    for const, field in HAND_SLOTS.items():
        assert C.RECORD_FIELDS[getattr(H, const)] == field, const
    for const, field in MATCH_SLOTS.items():
        assert C.MATCH_FIELDS[getattr(M, const)] == field, const
    assert H.RECORD_FIELDS == C.RECORD_FIELDS and M.MATCH_FIELDS == C.MATCH_FIELDS


def test_parquet_schemas_are_the_table_in_order():
    assert list(HAND_SCHEMA) == [c.name for c in C.HAND_COLUMNS]
    assert list(MATCH_SCHEMA) == [c.name for c in C.MATCH_COLUMNS]


def test_docs_results_tables_match_the_column_table():
    doc = (ROOT / "docs" / "results.md").read_text()
    for columns in (C.HAND_COLUMNS, C.MATCH_COLUMNS):
        table = C.markdown_table(columns)
        assert table in doc, f"docs/results.md's table differs; print it with python -m simsuite.columns:\n{table}"
