"""``simsuite play`` (one hand's trace) and ``simsuite bench`` (hands per second)."""

from __future__ import annotations

import json

import pytest
from cli import one_line_error, run_cli

from simsuite.engine.hand import RECORD_FIELDS
from simsuite.rules.variant import known_ids

IDS = known_ids()


@pytest.mark.parametrize("variant_id", IDS)
def test_play_prints_every_trick_and_the_outcome(capsys, variant_id):
    code, out, err = run_cli(capsys, "play", "--variant", variant_id, "--seed", "5", "--ascii")
    assert code == 0 and err == ""
    data_code, data, _ = run_cli(capsys, "play", "--variant", variant_id, "--seed", "5", "--json")
    assert data_code == 0
    tricks = json.loads(data)["record"]["tricks"]
    assert tricks > 0
    lines = out.splitlines()
    assert lines[0].startswith(f"variant {variant_id}: ")
    assert "seed 5; policies N expert, E basic, S expert, W basic" in out
    for t in range(1, tricks + 1):
        assert f"trick {t}: " in out, t
    assert f"trick {tricks + 1}: " not in out
    assert sum(line.startswith("  winner ") for line in lines) == tricks
    assert any(line.startswith("  outcome: ") for line in lines)
    assert "♠" not in out and "♥" not in out  # --ascii


def test_play_same_seed_same_text(capsys):
    first = run_cli(capsys, "play", "--variant", "school-2016", "--seed", "123", "--policies", "random")
    second = run_cli(capsys, "play", "--variant", "school-2016", "--seed", "123", "--policies", "random")
    assert first[0] == 0 and first == second
    other = run_cli(capsys, "play", "--variant", "school-2016", "--seed", "124", "--policies", "random")
    assert other[1] != first[1]


def test_play_four_policies_and_level(capsys):
    code, out, err = run_cli(
        capsys,
        "play",
        "--variant",
        "two-deck-2011",
        "--seed",
        "9",
        "--policies",
        "random,basic,expert,basic",
        "--level",
        "10",
        "--ascii",
    )
    assert code == 0 and err == ""
    assert "policies N random, E basic, S expert, W basic" in out
    assert "\nlevel 10; " in out


def test_play_json_has_the_record_and_the_history(capsys):
    code, out, err = run_cli(capsys, "play", "--variant", "huizhou", "--seed", "2", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["variant"] == "huizhou" and data["seed"] == 2
    assert set(data["record"]) == set(RECORD_FIELDS)
    h = data["history"]
    assert set(h) == {"deal", "bottom", "bids", "bury", "plays"}
    assert set(h["deal"]) == {"N", "E", "S", "W"}
    assert len(h["bury"].split()) == len(h["bottom"].split())
    assert max(p["trick"] for p in h["plays"]) == data["record"]["tricks"]


@pytest.mark.parametrize(
    "argv, needles",
    [
        (["--variant", "nope", "--seed", "1"], ["nope", "unknown variant id"]),
        (["--variant", "huizhou", "--seed", "1", "--policies", "clever"], ["unknown policy", "clever"]),
        (["--variant", "huizhou", "--seed", "1", "--policies", "basic,basic,basic"], ["policies", "four"]),
        (["--variant", "huizhou", "--seed", "1", "--level", "11"], ["unknown rank", "'11'"]),
        (["--variant", "huizhou", "--seed", "-1"], ["--seed"]),
    ],
)
def test_play_bad_input_is_one_line_exit_2(capsys, argv, needles):
    code, out, err = run_cli(capsys, "play", *argv)
    assert code == 2 and out == ""
    one_line_error(code, err, *needles)


def test_bench_json(capsys):
    code, out, err = run_cli(capsys, "bench", "--hands", "200", "--variant", "two-deck-2011", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert isinstance(data, list) and len(data) == 1
    row = data[0]
    assert set(row) == {"variant", "policy", "hands", "hands_per_s", "seconds", "warmup_s"}
    assert row["variant"] == "two-deck-2011" and row["hands"] == 200 and row["policy"] == "basic"
    assert row["hands_per_s"] > 0 and row["seconds"] > 0 and row["warmup_s"] >= 0


def test_bench_table(capsys):
    code, out, err = run_cli(capsys, "bench", "--hands", "50", "--variant", "huizhou", "--policy", "expert")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split()[:4] == ["variant", "policy", "hands", "hands/s"]
    assert lines[2].split()[:3] == ["huizhou", "expert", "50"]


@pytest.mark.parametrize(
    "argv, needles",
    [
        (["--hands", "0"], ["--hands"]),
        (["--policy", "clever", "--hands", "10"], ["unknown policy"]),
        (["--variant", "nope", "--hands", "10"], ["unknown variant id"]),
    ],
)
def test_bench_bad_input(capsys, argv, needles):
    code, out, err = run_cli(capsys, "bench", *argv)
    assert code == 2 and out == ""
    one_line_error(code, err, *needles)
