"""The command line, in-process (``simsuite.cli.main``) and once as a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli import one_line_error, run_cli

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples" / "scenarios").glob("*.toml"))
IDS = ["baiyun-2016", "guangxi-2012", "huizhou", "school-2016", "two-deck-2011"]
RULING_KEYS = {"variant", "error", "plays", "throw", "winner", "trick_points", "end", "declare"}


# --- variants and show ------------------------------------------------------------------------------


def test_variants_table_shows_all_five(capsys):
    code, out, err = run_cli(capsys, "variants")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["variant", "decks", "bottom"]
    for vid in IDS:
        assert any(line.startswith(vid + " ") for line in lines), vid
    school = next(line for line in lines if line.startswith("school-2016"))
    assert school.split()[1:3] == ["3", "6"]


def test_variants_json(capsys):
    code, out, err = run_cli(capsys, "variants", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert sorted(d["id"] for d in data) == IDS
    by_id = {d["id"]: d for d in data}
    for d in data:
        for key in ("decks", "bottom_size", "step", "takeover", "capture_with", "throws"):
            assert key in d, (d["id"], key)
    assert (
        by_id["school-2016"]["decks"],
        by_id["school-2016"]["bottom_size"],
        by_id["school-2016"]["step"],
        by_id["school-2016"]["takeover"],
    ) == (3, 6, 30, 120)
    assert (
        by_id["two-deck-2011"]["decks"],
        by_id["two-deck-2011"]["bottom_size"],
        by_id["two-deck-2011"]["step"],
        by_id["two-deck-2011"]["takeover"],
    ) == (2, 8, 40, 80)
    assert (
        by_id["guangxi-2012"]["decks"],
        by_id["guangxi-2012"]["bottom_size"],
        by_id["guangxi-2012"]["step"],
        by_id["guangxi-2012"]["takeover"],
    ) == (4, 0, 80, 160)
    assert by_id["huizhou"]["capture_with"] == "trump"
    assert by_id["school-2016"]["capture_with"] == "any"
    assert by_id["guangxi-2012"]["throws"] is False
    assert by_id["baiyun-2016"]["throws"] is True
    assert by_id["school-2016"]["throw_test"] == "absolute_max"


def test_show_prints_the_rules(capsys):
    code, out, err = run_cli(capsys, "show", "huizhou")
    assert code == 0 and err == ""
    assert out.startswith("huizhou: ")
    assert "001_718d4764b953e076.txt" in out
    line = next(line for line in out.splitlines() if line.split()[:1] == ["capture_with"])
    assert line.split()[1] == "trump"
    assert "[capture]" in out and "[score]" in out


def test_show_json(capsys):
    code, out, _ = run_cli(capsys, "show", "two-deck-2011", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["id"] == "two-deck-2011"
    assert data["deal"]["decks"] == 2 and data["deal"]["bottom_size"] == 8
    assert data["capture"]["capture_side_per_card"] == 1


def test_show_unknown_id(capsys):
    code, out, err = run_cli(capsys, "show", "nope")
    assert code == 2 and out == ""
    one_line_error(code, err, "nope", *IDS)


def test_subprocess_show_unknown_id_prints_no_traceback():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run(
        [sys.executable, "-m", "simsuite.cli", "show", "nope"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "unknown variant id" in proc.stderr and "school-2016" in proc.stderr


# --- judge on the examples -------------------------------------------------------------------------


def test_there_are_example_scenarios():
    assert {p.name for p in EXAMPLES} >= {
        "declare-bids.toml",
        "follow-3plus3.toml",
        "last-trick-capture.toml",
        "throw-fails.toml",
    }


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_judge_example_all_variants_json(capsys, path):
    code, out, err = run_cli(capsys, "judge", str(path), "--variant", "all", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert isinstance(data, list) and len(data) == 5
    assert sorted(r["variant"] for r in data) == IDS
    for r in data:
        assert RULING_KEYS <= set(r), r["variant"]
        assert r["error"] is None or isinstance(r["error"], str)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_judge_example_table(capsys, path):
    code, out, err = run_cli(capsys, "judge", str(path), "--variant", "all")
    assert code == 0 and err == ""
    header = out.splitlines()[1]
    for vid in IDS:
        assert vid in header


def test_judge_single_variant_json_is_one_object(capsys):
    code, out, _ = run_cli(
        capsys, "judge", str(ROOT / "examples/scenarios/throw-fails.toml"), "--variant", "baiyun-2016", "--json"
    )
    assert code == 0
    data = json.loads(out)
    assert isinstance(data, dict) and data["variant"] == "baiyun-2016"
    assert data["throw"]["defender_points_delta"] == 20


def test_judge_uses_the_files_variant(capsys, tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('variant = "huizhou"\nlevel = "2"\n[declare]\nbids = [["N", "H2"]]\n')
    code, out, _ = run_cli(capsys, "judge", str(path), "--json")
    assert code == 0
    assert json.loads(out)["variant"] == "huizhou"


def test_judge_variant_path(capsys, tmp_path):
    vpath = tmp_path / "mine.toml"
    vpath.write_text('extends = "school-2016"\n[capture]\ncapture_per_card = 5\ncapture_side_per_card = 5\n')
    code, out, _ = run_cli(
        capsys, "judge", str(ROOT / "examples/scenarios/last-trick-capture.toml"), "--variant", str(vpath), "--json"
    )
    assert code == 0
    data = json.loads(out)
    assert data["variant"] == "mine"
    assert data["end"]["capture_multiplier"] == 20  # 5 per card of the 4-card tractor


# --- judge: the user's mistakes ----------------------------------------------------------------------

GOOD = 'level = "7"\ntrump = "S"\ndeclarers = "NS"\n[trick]\nleader = "N"\nplays = ["H5", "H6"]\n'


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "scenario.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_judge_good_scenario_is_exit_0(capsys, tmp_path):
    code, out, err = run_cli(capsys, "judge", write(tmp_path, GOOD), "--variant", "school-2016", "--json")
    assert code == 0 and err == ""
    assert json.loads(out)["winner"] == "E"


def test_judge_missing_file(capsys, tmp_path):
    missing = str(tmp_path / "nothing-here.toml")
    code, out, err = run_cli(capsys, "judge", missing, "--variant", "all")
    assert code == 2 and out == ""
    one_line_error(code, err, missing, "no such scenario file")


def test_judge_malformed_toml(capsys, tmp_path):
    path = write(tmp_path, 'level = "7"\ntrump = \n')
    code, out, err = run_cli(capsys, "judge", path, "--variant", "all")
    assert code == 2 and out == ""
    one_line_error(code, err, path, "not valid TOML", "line 2")


def test_judge_unknown_key(capsys, tmp_path):
    path = write(tmp_path, GOOD + '[tricks]\nleader = "N"\n')
    code, out, err = run_cli(capsys, "judge", path, "--variant", "all")
    assert code == 2 and out == ""
    one_line_error(code, err, path, "unknown key", "tricks", "known keys")


def test_judge_unknown_top_level_key(capsys, tmp_path):
    path = write(tmp_path, 'colour = "red"\n' + GOOD)
    code, out, err = run_cli(capsys, "judge", path, "--variant", "all")
    assert code == 2 and out == ""
    one_line_error(code, err, "colour", "known keys", "declarers")


def test_judge_unknown_key_in_section(capsys, tmp_path):
    path = write(tmp_path, GOOD + 'winner = "N"\n')
    code, out, err = run_cli(capsys, "judge", path, "--variant", "all")
    assert code == 2 and out == ""
    one_line_error(code, err, "[trick]", "winner", "leader, plays")


def test_judge_bad_card_token(capsys, tmp_path):
    path = write(tmp_path, GOOD.replace('"H6"', '"H11"'))
    code, out, err = run_cli(capsys, "judge", path, "--variant", "all")
    assert code == 2 and out == ""
    one_line_error(code, err, path, "[trick] play 2", "'H11'", "T for 10")


def test_judge_unknown_variant_id(capsys, tmp_path):
    code, out, err = run_cli(capsys, "judge", write(tmp_path, GOOD), "--variant", "nope")
    assert code == 2 and out == ""
    one_line_error(code, err, "nope", "unknown variant id", *IDS)


def test_judge_no_variant(capsys, tmp_path):
    path = write(tmp_path, GOOD)
    code, out, err = run_cli(capsys, "judge", path)
    assert code == 2 and out == ""
    one_line_error(code, err, path, "no variant", "--variant", *IDS)


def test_judge_unknown_variant_in_file(capsys, tmp_path):
    path = write(tmp_path, 'variant = "nope"\n' + GOOD)
    code, out, err = run_cli(capsys, "judge", path)
    assert code == 2 and out == ""
    one_line_error(code, err, "nope", "unknown variant id")


# --- situations that cannot exist under a variant --------------------------------------------------


def test_three_copies_cannot_exist_under_two_decks(capsys, tmp_path):
    text = GOOD.replace('plays = ["H5", "H6"]', 'plays = ["H5 H5 H5", "H6 H6 H6"]')
    code, out, err = run_cli(capsys, "judge", write(tmp_path, text), "--variant", "all", "--json")
    assert code == 0 and err == ""
    by_id = {r["variant"]: r for r in json.loads(out)}
    assert "3 x H5" in by_id["two-deck-2011"]["error"] and "3 x H6" in by_id["two-deck-2011"]["error"]
    assert by_id["two-deck-2011"]["winner"] is None and by_id["two-deck-2011"]["plays"] == []
    for vid in ("school-2016", "huizhou", "baiyun-2016", "guangxi-2012"):
        assert by_id[vid]["error"] is None, vid
        assert by_id[vid]["winner"] == "E"  # a triple of 6s over the led triple of 5s


def test_wrong_bottom_size_is_a_per_variant_error(capsys, tmp_path):
    text = GOOD + '[end]\ndefender_points = 40\nbottom = "S5 SK H10 D3 D4 C2"\n'
    code, out, err = run_cli(capsys, "judge", write(tmp_path, text), "--variant", "all", "--json")
    assert code == 0 and err == ""
    by_id = {r["variant"]: r for r in json.loads(out)}
    assert by_id["two-deck-2011"]["error"] == "the bottom has 6 cards; two-deck-2011 buries 8"
    assert by_id["guangxi-2012"]["error"] == "the bottom has 6 cards; guangxi-2012 buries 0"
    assert by_id["two-deck-2011"]["end"] is None
    for vid in ("school-2016", "huizhou", "baiyun-2016"):
        assert by_id[vid]["error"] is None
        assert by_id[vid]["end"] is not None


def test_impossible_situation_in_the_table_output(capsys, tmp_path):
    text = GOOD + '[end]\ndefender_points = 40\nbottom = "S5 SK H10 D3 D4 C2"\n'
    code, out, _ = run_cli(capsys, "judge", write(tmp_path, text), "--variant", "two-deck-2011")
    assert code == 0
    assert "error" in out and "two-deck-2011 buries 8" in out
