"""The column table (simsuite.columns): the engine's record layouts, the Parquet schemas and the
tables of docs/results.md all come from it and agree with it."""

from __future__ import annotations

from pathlib import Path

from simsuite import columns as C
from simsuite.engine import hand as H
from simsuite.engine import match as M
from simsuite.sim.schema import HAND_SCHEMA, MATCH_SCHEMA

ROOT = Path(__file__).resolve().parent.parent


def _slots(module, prefix):
    """The engine module's record slot constants (``R_*`` / ``M_*``) and their values."""
    return {k: v for k, v in vars(module).items() if k.startswith(prefix) and isinstance(v, int)}


def test_record_layouts_follow_the_engine_slot_constants():
    # the engine's slots are read from the column table, so that each slot is named exactly once and
    # the record is as long as the table's fields
    assert len(C.RECORD_FIELDS) == H.N_RECORD and len(C.MATCH_FIELDS) == M.N_MATCH
    for module, prefix, fields in ((H, "R_", C.RECORD_FIELDS), (M, "M_", C.MATCH_FIELDS)):
        slots = _slots(module, prefix)
        assert sorted(slots.values()) == list(range(len(fields))), prefix
    assert C.RECORD_FIELDS[H.R_CAPTURE_MULT] == "capture_multiplier" and C.RECORD_FIELDS[H.R_ERROR] == "error"
    assert C.MATCH_FIELDS[M.M_LEVEL1] == "final_level_ew" and C.MATCH_FIELDS[M.M_FIRST_DEALER] == "first_dealer"
    assert H.RECORD_FIELDS == C.RECORD_FIELDS and M.MATCH_FIELDS == C.MATCH_FIELDS


def test_parquet_schemas_are_the_table_in_order():
    assert list(HAND_SCHEMA) == [c.name for c in C.HAND_COLUMNS]
    assert list(MATCH_SCHEMA) == [c.name for c in C.MATCH_COLUMNS]


def test_docs_results_tables_match_the_column_table():
    doc = (ROOT / "docs" / "results.md").read_text()
    for columns in (C.HAND_COLUMNS, C.MATCH_COLUMNS):
        table = C.markdown_table(columns)
        assert table in doc, f"docs/results.md's table differs; print it with simsuite columns:\n{table}"


def test_the_columns_command_prints_both_tables_as_docs_results_has_them(capsys):
    from simsuite.cli import main

    assert main(["columns"]) == 0
    out = capsys.readouterr().out
    doc = (ROOT / "docs" / "results.md").read_text()
    assert out.startswith("## The hand table\n\n") and "\n\n## The match table\n\n" in out
    for columns in (C.HAND_COLUMNS, C.MATCH_COLUMNS):
        assert C.markdown_table(columns) in out and C.markdown_table(columns) in doc
