"""``simsuite compare``: a sweep's settings in words, each figure's paired difference from the baseline
(the figure minus the baseline's), the default baseline, Holm's adjustment, goals, the JSON, the width
of the text, and every bad input as one line."""

from __future__ import annotations

import json
import math
import shutil

import pytest
from cli import one_line_error, run_cli

from simsuite.analysis.settings import FIGURES, compare, find_baseline, parse_goal, words
from simsuite.errors import SimsuiteError
from simsuite.sim.executor import execute
from simsuite.sim.sweep import plan_command

BASE = "bottom_size=6,capture_per_card=3"  # school-2016's own bottom and capture


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("compare") / "sweep"
    plan, opts = plan_command(
        None,
        "school-2016",
        ["bottom_size=6,10", "capture_per_card=2,3"],
        matches=24,
        out=out,
        quiet=True,
        chunk=8,
    )
    execute(plan, opts)
    return str(out)


@pytest.fixture(scope="module")
def result(run):
    return compare(run, reps=400)


def test_settings_are_rows_in_words(result):
    assert [s["words"] for s in result["settings"]] == [
        "bottom 6, capture ×2",
        "bottom 6, capture ×3",
        "bottom 10, capture ×2",
        "bottom 10, capture ×3",
    ]
    assert words("decks=2,takeover=120") == "2 decks, take-over 120"
    assert words("hand_cap=300") == "hand_cap=300"  # no words for it: key=value
    assert words("school-2016") == "school-2016"


def test_baseline_defaults_to_the_base_rules(result):
    assert result["baseline"] == BASE and result["base_cell"] == BASE
    assert [s["baseline"] for s in result["settings"]] == [False, True, False, False]
    # a grid without the base's own values: the first setting
    assert find_baseline(None, ["bottom_size=10", "bottom_size=14"], None) == "bottom_size=10"


def test_baseline_given_by_id_words_or_pairs(run):
    cells = ["bottom_size=6,capture_per_card=2", "bottom_size=10,capture_per_card=2"]
    assert find_baseline("bottom 10, capture ×2", cells, None) == cells[1]
    assert find_baseline("capture_per_card=2,bottom_size=10", cells, None) == cells[1]
    r = compare(run, baseline="bottom_size=10,capture_per_card=2", reps=100)
    assert r["baseline"] == cells[1]


def test_difference_is_the_figure_minus_the_baselines(result):
    ref = next(s for s in result["settings"] if s["baseline"])
    checked = 0
    for s in result["settings"]:
        for f in FIGURES:
            fig, d = s["figures"][f.key], s["figures"][f.key].get("difference")
            if s["baseline"]:
                assert d is None
                continue
            base = ref["figures"][f.key]["value"]
            if d is None or fig["value"] is None or base is None or not math.isfinite(fig["value"] - base):
                continue
            assert d["value"] == pytest.approx(fig["value"] - base, abs=1e-9), f.key
            assert d["low"] <= d["value"] + 1e-9 and d["value"] <= d["high"] + 1e-9, f.key
            assert d["n"] <= s["deals"]
            checked += 1
    assert checked >= 25


def test_holm_adjusted_p_is_at_least_the_raw_p(result):
    ds = [s["figures"][f.key]["difference"] for s in result["settings"] for f in FIGURES if f.shown]
    adjusted = [d for d in ds if d and d.get("p_holm") is not None]
    assert adjusted
    for d in adjusted:
        assert d["p"] <= d["p_holm"] <= 1.0
        assert d["family"] in ("match length", "swing", "luck")


def test_goals_say_which_settings_meet_them_and_the_best(run):
    goals = [parse_goal("match_minutes<=1000"), parse_goal("stronger_wins >= 0.01")]
    r = compare(run, goals=goals, reps=100)
    assert [g["goal"] for g in r["goals"]] == ["match_minutes <= 1000", "stronger_wins >= 0.01"]
    assert set(r["meets_all"]) <= {s["cell"] for s in r["settings"]}
    assert r["best"] in r["meets_all"]
    none = compare(run, goals=[parse_goal("match_minutes<=1")], reps=100)
    assert none["meets_all"] == [] and none["best"] is None
    assert none["goals"][0]["by_setting"][BASE]["status"] == "fails"


def test_text_answers_first_and_fits_100_columns(capsys, run):
    code, out, err = run_cli(capsys, "compare", run, "--goal", "match_minutes<=1000", "--goal", "draws<=1")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("Against bottom 6, capture ×3 (the base rules), 24 matches per setting")
    assert "bottom 10, capture ×2:" in out and "Best on every goal:" in out
    assert "Holm" in out and "Match length" in out and "Luck" in out
    assert max(len(line) for line in lines) <= 100
    assert out.index("Against") < out.index("Match length") < out.index("Figures:")


def test_json_holds_every_figure_interval_difference_and_adjusted_p(capsys, run):
    code, out, err = run_cli(capsys, "compare", run, "--json", "--goal", "match_minutes<=1000")
    assert code == 0, err
    r = json.loads(out)
    assert {"run", "baseline", "settings", "goals", "meets_all", "best"} <= set(r)
    for s in r["settings"]:
        assert {"cell", "words", "baseline", "matches", "deals", "figures"} <= set(s)
        for f in FIGURES:
            fig = s["figures"][f.key]
            assert {"value", "low", "high", "n", "difference"} <= set(fig)
        d = s["figures"]["match_minutes"]["difference"]
        if not s["baseline"]:
            assert {"value", "low", "high", "n", "p", "p_holm"} <= set(d)


def test_incomplete_run_says_so_first(capsys, run, tmp_path):
    copy = tmp_path / "part"
    shutil.copytree(run, copy)
    m = json.loads((copy / "manifest.json").read_text())
    m["chunks"][-1]["status"] = "missing"
    (copy / "manifest.json").write_text(json.dumps(m))
    code, out, err = run_cli(capsys, "compare", str(copy))
    assert code == 0, err
    assert out.startswith("incomplete run: ")


def test_one_cell_run_is_refused(capsys, tmp_path):
    plan, opts = plan_command(None, "school-2016", ["bottom_size=6"], matches=2, out=tmp_path / "one", quiet=True)
    execute(plan, opts)
    code, _, err = run_cli(capsys, "compare", str(tmp_path / "one"))
    one_line_error(code, err, "has one setting", "simsuite sweep", command="compare")


@pytest.mark.parametrize(
    "argv, needles",
    [
        (("--goal", "minutes<=90"), ("unknown metric 'minutes'",)),
        (("--goal", "match_minutes=90"), ("METRIC<=BOUND",)),
        (("--goal", "draws<=10"), ("share from 0 to 1",)),
        (("--goal", "match_minutes<=ninety"), ("not a number",)),
        (("--baseline", "bottom 8"), ("--baseline 'bottom 8' is not a setting",)),
    ],
)
def test_bad_compare_arguments(capsys, run, argv, needles):
    code, _, err = run_cli(capsys, "compare", run, *argv)
    one_line_error(code, err, *needles, command="compare")


def test_not_a_run(capsys, tmp_path):
    code, _, err = run_cli(capsys, "compare", str(tmp_path))
    one_line_error(code, err, command="compare")


def test_parse_goal_is_the_design_syntax():
    g = parse_goal("stronger_wins>=0.75")
    assert (g.metric, g.op, g.bound) == ("stronger_wins", ">=", 0.75)
    assert parse_goal("match_minutes <= 90").bound == 90
    with pytest.raises(SimsuiteError):
        parse_goal("stronger_wins>=2")
