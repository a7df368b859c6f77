"""A damaged results folder is named in one line by every command that reads it.

A manifest edited by hand, a part truncated, emptied, swapped or lost: summary and report name the
file and the damage; a resumed run plays the damaged chunk again; random values in any manifest field
give figures or one line, never a traceback. A collection's manifest and a results column that would
overflow are held to the same rule.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from cli import one_line_error, run_cli
from hypothesis import example, given, settings
from hypothesis import strategies as st

from simsuite.cli import main
from simsuite.errors import SimsuiteError
from simsuite.learn.collect import FORMAT, identity, load_manifest
from simsuite.sim import results as R
from simsuite.sim.results import json_hash
from simsuite.sim.run import simulate
from simsuite.sim.schema import HAND_SCHEMA, _check_fits


@pytest.fixture(scope="module")
def small_run(tmp_path_factory) -> Path:
    """Four matches of school-2016 in two chunks: the folder every damaged copy starts from."""
    return simulate(
        dict(
            variants=["school-2016"],
            matches=4,
            chunk=2,
            seed=5,
            quiet=True,
            out=tmp_path_factory.mktemp("small") / "run",
        )
    )


def damaged_copy(small_run: Path, tmp: Path, damage) -> Path:
    run = tmp / "copy"
    shutil.copytree(small_run, run)
    damage(run)
    return run


def _edit_manifest(edit):
    def damage(run: Path) -> None:
        m = json.loads((run / R.MANIFEST).read_text())
        edit(m)
        (run / R.MANIFEST).write_text(json.dumps(m))

    return damage


def _part(run: Path, kind: str = "hands", chunk: str = "0000-000000") -> Path:
    return R.part_path(run, kind, chunk)


def _truncate(run: Path) -> None:
    p = _part(run)
    p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])


def _corrupt(run: Path) -> None:
    """Garbage in the middle of the data pages, the footer intact."""
    p = _part(run)
    data = bytearray(p.read_bytes())
    mid = len(data) // 3
    data[mid : mid + 200] = b"\xff" * 200
    p.write_bytes(bytes(data))


DAMAGE = [
    (
        "manifest chunk start 'ten'",
        _edit_manifest(lambda m: m["chunks"][0].update(start="ten")),
        ["manifest.json", "start 'ten'"],
    ),
    (
        "manifest chunk of an unknown cell",
        _edit_manifest(lambda m: m["chunks"][0].update(cell="nowhere")),
        ["manifest.json", "'nowhere'"],
    ),
    (
        "manifest chunk stop before start",
        _edit_manifest(lambda m: m["chunks"][0].update(start=5, stop=1)),
        ["manifest.json", "start below stop"],
    ),
    ("manifest not JSON", lambda run: (run / R.MANIFEST).write_text("{nope"), ["manifest.json", "corrupt"]),
    ("manifest chunks not a list", _edit_manifest(lambda m: m.update(chunks={})), ["manifest.json", "'chunks'"]),
    ("truncated part", _truncate, ["part-0000-000000.parquet", "truncated"]),
    ("empty part", lambda run: _part(run).write_bytes(b""), ["part-0000-000000.parquet", "empty"]),
    (
        "garbage part",
        lambda run: _part(run).write_bytes(b"not parquet at all" * 10),
        ["part-0000-000000.parquet", "not a Parquet file"],
    ),
    ("corrupted part", _corrupt, ["part-0000-000000.parquet"]),
    (
        "matches part in place of a hands part",
        lambda run: shutil.copy(_part(run, "matches"), _part(run)),
        ["part-0000-000000.parquet", "holds matches rows"],
    ),
    (
        "foreign Parquet part",
        lambda run: pl.DataFrame({"x": [1]}).write_parquet(_part(run)),
        ["part-0000-000000.parquet", "hands columns"],
    ),
    (
        "another chunk's part",
        lambda run: shutil.copy(_part(run, chunk="0000-000001"), _part(run)),
        ["part-0000-000000.parquet", "holds chunk '0000-000001'"],
    ),
    (
        "a part of another run (manifest disagrees)",
        _edit_manifest(lambda m: m.update(identity_hash="0" * 16)),
        ["part-0000-000000.parquet", "another run"],
    ),
    ("a part lost", lambda run: _part(run).unlink(), ["part-0000-000000.parquet", "missing"]),
]


@pytest.mark.parametrize("case, damage, needles", DAMAGE, ids=[d[0] for d in DAMAGE])
@pytest.mark.parametrize("command", ["summary", "report"])
def test_damaged_results_are_named(capsys, small_run, tmp_path, case, damage, needles, command):
    folder = damaged_copy(small_run, tmp_path, damage)
    argv = [command, str(folder)] + (["-o", str(tmp_path / "r.html")] if command == "report" else [])
    one_line_error(*run_cli(capsys, *argv)[::2], *needles, command=command)


def test_resume_replays_a_truncated_part(capsys, small_run, tmp_path):
    """Resuming a run whose part was truncated plays that chunk again and says so."""
    folder = damaged_copy(small_run, tmp_path, _truncate)
    m = json.loads((folder / R.MANIFEST).read_text())
    argv = [*m["command"][1:]]
    argv[argv.index("--out") + 1] = str(folder)
    code, _, err = run_cli(capsys, *argv)
    assert code == 0, err
    assert "truncated" in err and "playing chunk 0000-000000 again" in err
    assert "complete already" not in err
    assert R.damaged_parts(folder, R.read_manifest(folder)) == []
    assert load_rows(folder).equals(load_rows(small_run))


def load_rows(run: Path) -> pl.DataFrame:
    return R.load(run).hands.drop("run").sort(["match", "hand"]).collect()


JSON_WILD = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


@pytest.fixture(scope="module")
def fuzzed_copy(small_run, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("fuzz") / "copy"
    shutil.copytree(small_run, folder)
    return folder


@settings(max_examples=80, deadline=None)
@example(where="chunk", key="id", value="\r")  # a line break in a chunk id must not reach the message via its path
@given(
    where=st.sampled_from(["chunk", "cell", "top"]),
    key=st.sampled_from(
        [
            "id",
            "cell",
            "start",
            "stop",
            "status",
            "hands",
            "seed",
            "identity_hash",
            "duplicate",
            "chunks",
            "cells",
            "format",
            "identity",
            "given",
            "overrides",
        ]
    ),
    value=JSON_WILD,
)
def test_any_value_in_a_manifest_field_gives_a_summary_or_one_line(fuzzed_copy, small_run, where, key, value):
    """Rule: whatever a manifest field holds, summary prints figures or one line; never a traceback."""
    m = json.loads((small_run / R.MANIFEST).read_text())
    target = {"chunk": m["chunks"][0], "cell": m["cells"][0], "top": m}[where]
    target[key] = value
    (fuzzed_copy / R.MANIFEST).write_text(json.dumps(m))
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["summary", str(fuzzed_copy)])
    assert code in (0, 2), err.getvalue()
    if code == 2:
        one_line_error(code, err.getvalue(), command="summary")


def test_a_folder_left_without_a_manifest_does_not_block_the_next_run(tmp_path, capsys):
    """A folder holding only empty part folders and no manifest (what a sweep that failed early leaves)
    is not refused as "not a simsuite run": the next run plays into it."""
    out = tmp_path / "run"
    for kind in R.KINDS:
        (out / kind).mkdir(parents=True)
    code, _, err = run_cli(
        capsys,
        *["simulate", "--variant", "school-2016", "--matches", "2", "--chunk", "1", "--out", str(out), "--quiet"],
    )
    assert code == 0, err
    assert R.read_manifest(out)["status"] == "complete"


def test_a_value_beyond_its_results_column_is_named_not_wrapped():
    """Rule: a results column never wraps silently; the overflowing column is named."""
    data = {name: np.zeros(2, np.int64) for name in HAND_SCHEMA}
    data["levels_ns"] = np.array([3, 300])
    with pytest.raises(SimsuiteError, match=r"levels_ns = 300, beyond the results column's Int8 range"):
        _check_fits(data, HAND_SCHEMA, "school-2016")
    data["levels_ns"] = np.array([3, 127])
    _check_fits(data, HAND_SCHEMA, "school-2016")


def test_an_edited_collection_manifest_is_refused(tmp_path):
    """A collection's manifest whose identity was edited (hands = "x") is refused, so that learn train
    never copies it into the model's card."""
    ident = identity(1, 40, 20, "search")
    (tmp_path / "manifest.json").write_text(
        json.dumps({"format": FORMAT, "chunks": [], "identity": ident, "identity_hash": json_hash(ident)})
    )
    assert load_manifest(tmp_path)["identity"]["hands"] == 40
    ident["hands"] = "x"
    (tmp_path / "manifest.json").write_text(
        json.dumps(
            {
                "format": FORMAT,
                "chunks": [],
                "identity": ident,
                "identity_hash": json_hash(identity(1, 40, 20, "search")),
            }
        )
    )
    with pytest.raises(SimsuiteError, match="its identity does not match its identity_hash"):
        load_manifest(tmp_path)
