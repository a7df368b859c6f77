"""``simsuite sweep`` from the command line: the grid form (``--variant`` with ``--grid``), ``--matches`` and
``--seed`` over a spec's, the default folder, and every bad case of the new flags as one line."""

from __future__ import annotations

import json

import pytest
from cli import one_line_error, run_cli

from simsuite.sim.sweep import default_out, grid_table

GRID = ("--variant", "school-2016", "--grid", "bottom_size=6,10", "--grid", "capture_per_card=2,3")


def _manifest(folder) -> dict:
    return json.loads((folder / "manifest.json").read_text())


def test_grid_sweep_plays_every_combination_into_the_default_folder(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, "sweep", *GRID, "--matches", "3", "--quiet")
    assert code == 0, err
    folder = tmp_path / "results" / "sweep-school-2016-bottom_size-capture_per_card-seed1"
    assert out.strip() == str(folder.relative_to(tmp_path))
    m = _manifest(folder)
    assert [c["id"] for c in m["cells"]] == [
        "bottom_size=6,capture_per_card=2",
        "bottom_size=6,capture_per_card=3",
        "bottom_size=10,capture_per_card=2",
        "bottom_size=10,capture_per_card=3",
    ]
    assert {c["matches"] for c in m["cells"]} == {3}
    assert {c["policies"] for c in m["cells"]} == {"expert,basic"}
    assert m["sweep"] == {
        "base": "school-2016",
        "grid": {"bottom_size": [6, 10], "capture_per_card": [2, 3]},
        "matches": 3,
    }
    # the same command again resumes the same folder: nothing to play
    code, out, err = run_cli(capsys, "sweep", *GRID, "--matches", "3", "--quiet")
    assert code == 0 and out.strip().endswith("seed1"), err


def test_grid_sweep_policies_and_seed(capsys, tmp_path):
    out = tmp_path / "run"
    argv = ("sweep", "--variant", "school-2016", "--grid", "bottom_size=6,10", "--policies", "basic,random")
    code, _, err = run_cli(capsys, *argv, "--matches", "2", "--seed", "7", "--out", str(out), "--quiet")
    assert code == 0, err
    m = _manifest(out)
    assert m["seed"] == 7 and {c["policies"] for c in m["cells"]} == {"basic,random"}


def test_spec_matches_and_seed_are_overridden(capsys, tmp_path):
    spec = tmp_path / "small.toml"
    spec.write_text('base = "school-2016"\nmatches = 50\nseed = 3\n[grid]\nbottom_size = [6, 10]\n')
    code, _, err = run_cli(capsys, "sweep", str(spec), "--matches", "2", "--seed", "5", "--out", str(tmp_path / "r"))
    assert code == 0, err
    m = _manifest(tmp_path / "r")
    assert m["seed"] == 5 and {c["matches"] for c in m["cells"]} == {2}


def test_default_folder_names():
    assert str(default_out({"base": "school-2016", "grid": {"bottom_size": [6]}, "seed": 2}, None)) == (
        "results/sweep-school-2016-bottom_size-seed2"
    )
    assert str(default_out({"base": "x"}, "examples/sweeps/three-decks.toml")) == "results/sweep-three-decks-seed1"


def test_grid_values_are_typed_by_their_field():
    raw = grid_table("school-2016", ["bottom_size=6,10", "decks=2,3", "policies=expert/basic,basic/basic"])
    assert raw["grid"] == {"bottom_size": [6, 10], "decks": [2, 3], "policies": ["expert,basic", "basic,basic"]}


@pytest.mark.parametrize(
    "argv, needles",
    [
        (
            ("--variant", "school-2016", "--grid", "botom_size=6,10"),
            ("--grid", "'botom_size'", "did you mean 'bottom_size'"),
        ),
        (("--variant", "school-2016", "--grid", "bottom_size=6,7"), ("--grid bottom_size=7", "does not divide")),
        (("--variant", "school-2016", "--grid", "bottom_size=6,x"), ("--grid bottom_size=x", "expected an integer")),
        (("--grid", "bottom_size=6,10"), ("--grid needs --variant",)),
        (("SPEC", "--grid", "bottom_size=6,10"), ("a spec file or --variant with --grid, not both",)),
        (("SPEC", "--variant", "school-2016"), ("--variant is for the grid form",)),
        (("SPEC", "--policies", "expert,basic"), ("--policies is for the grid form",)),
        (("--variant", "school-2016", "--grid", "bottom_size="), ("--grid bottom_size= has no values",)),
        (("--variant", "school-2016", "--grid", "bottom_size=6,"), ("an empty value",)),
        (
            ("--variant", "school-2016", "--grid", "bottom_size=6", "--grid", "bottom_size=10"),
            ("--grid bottom_size is given twice",),
        ),
        (("--variant", "school-2016", "--grid", "bottom_size=6,6"), ("the value 6 is given twice",)),
        (("--variant", "school-2016", "--grid", "bottom_size"), ("--grid expects KEY=V1,V2",)),
        (("--variant", "school-2016", "--grid", "decks=0"), ("--grid decks=0", "deck count")),
        (("--variant", "school-2016"), ("--variant needs --grid",)),
        ((), ("give a sweep spec file, or --variant V with --grid",)),
        (("--variant", "nowhere", "--grid", "bottom_size=6"), ("nowhere",)),
        (("--variant", "school-2016", "--grid", "bottom_size=6", "--policies", "expert,nobody"), ("nobody",)),
        (("--variant", "school-2016", "--grid", "bottom_size=6", "--matches", "0"), ("--matches",)),
        (("--variant", "school-2016", "--grid", "bottom_size=6", "--seed", "-1"), ("--seed",)),
        (("SPEC", "--matches", "0"), ("--matches",)),
    ],
)
def test_bad_sweep_arguments(capsys, tmp_path, argv, needles):
    spec = tmp_path / "s.toml"
    spec.write_text('base = "school-2016"\n[grid]\nbottom_size = [6]\n')
    argv = tuple(str(spec) if a == "SPEC" else a for a in argv)
    code, _, err = run_cli(capsys, "sweep", *argv, "--out", str(tmp_path / "run"))
    one_line_error(code, err, *needles, command="sweep")
    assert not (tmp_path / "run").exists()
