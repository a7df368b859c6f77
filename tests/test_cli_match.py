"""The command line for matches, tournaments and duels: output, determinism, bad input."""

from __future__ import annotations

import json

import pytest
from cli import one_line_error, run_cli


@pytest.mark.parametrize("vid", ["school-2016", "two-deck-2011", "guangxi-2012"])
def test_play_match_prints_every_hand_and_the_end(capsys, vid):
    code, out, err = run_cli(capsys, "play", "--variant", vid, "--seed", "3", "--match")
    assert code == 0 and err == ""
    assert "hand" in out and "end after" in out and ("win" in out or "draw" in out)
    code2, out2, _ = run_cli(capsys, "play", "--variant", vid, "--seed", "3", "--match")
    assert out2 == out


def test_play_match_json(capsys):
    code, out, _ = run_cli(capsys, "play", "--variant", "baiyun-2016", "--seed", "2", "--match", "--json")
    data = json.loads(out)
    assert code == 0 and data["hands"] == len(data["hand_records"]) == len(data["level_history"])
    assert data["ended_by"] in ("level", "clock", "hand cap")


def test_play_match_bad_index(capsys):
    code, _, err = run_cli(capsys, "play", "--variant", "school-2016", "--seed", "1", "--match", "--match-index", "-1")
    one_line_error(code, err, "--match-index")


def test_tournament_prints_standings(capsys):
    code, out, _ = run_cli(capsys, "tournament", "--variant", "school-2016", "--teams", "4", "--seed", "2")
    assert code == 0 and "champion" in out and "T1-expert" in out


def test_tournament_json_and_determinism(capsys):
    _, a, _ = run_cli(capsys, "tournament", "--variant", "baiyun-2016", "--teams", "4", "--seed", "5", "--json")
    _, b, _ = run_cli(capsys, "tournament", "--variant", "baiyun-2016", "--teams", "4", "--seed", "5", "--json")
    assert a == b and json.loads(a)["champion"]


def test_tournament_repeat_reports_intervals(capsys):
    code, out, _ = run_cli(
        capsys, "tournament", "--variant", "two-deck-2011", "--teams", "4", "--repeat", "3", "--json"
    )
    data = json.loads(out)
    assert code == 0 and data["repeats"] == 3
    assert abs(sum(e["value"] for e in data["first"].values()) - 1.0) < 1e-9
    assert all(e["low"] <= e["value"] <= e["high"] for e in data["first"].values())


@pytest.mark.parametrize(
    "args,needle",
    [
        (["tournament", "--variant", "school-2016", "--teams", "1"], "at least 2 teams"),
        (["tournament", "--variant", "school-2016", "--policies", "genius"], "unknown policy"),
        (["tournament", "--variant", "nope"], "known ids"),
        (["tournament", "--variant", "guangxi-2012", "--teams", "4"], "two teams"),
        (["duel", "--policies", "expert"], "two names"),
        (["duel", "--matches", "1", "--variant", "school-2016"], "at least 2"),
    ],
)
def test_bad_input_one_line_no_traceback(capsys, args, needle):
    code, _, err = run_cli(capsys, *args)
    one_line_error(code, err, needle)


def test_duel_matches_json(capsys):
    code, out, _ = run_cli(capsys, "duel", "--variant", "two-deck-2011", "--matches", "20", "--json")
    r = json.loads(out)[0]
    assert code == 0 and r["pairs"] == 20 and r["pair_win"]["n"] == r["decided_pairs"]


def test_duel_hands_json(capsys):
    code, out, _ = run_cli(
        capsys, "duel", "--variant", "school-2016", "--hands", "200", "--policies", "basic,random", "--json"
    )
    r = json.loads(out)[0]
    assert code == 0 and r["net_levels"]["low"] > 0  # basic beats random by a mile


def test_play_with_an_import_path_policy_points_to_the_slow_path(capsys):
    code, _, err = run_cli(
        capsys, "play", "--variant", "school-2016", "--seed", "1", "--policies", "examples/policies/greedy.py:Greedy"
    )
    one_line_error(code, err, "slow path")
