"""simsuite compare-policies: paired self-play of two policies on the same deals."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli import one_line_error, run_cli

from simsuite.analysis import compare as C
from simsuite.errors import SimsuiteError
from simsuite.rules.variant import load_variant

FIGURES = ["takeover_rate", "defender_points_mean", "bottom_points_share", "capture_points_mean", "level_change_mean"]


def test_a_policy_against_itself_differs_by_exactly_zero():
    """The two runs play the same deals: the same policy twice gives identical hands, so every paired
    difference is 0 with a zero-width interval (the command refuses this pair; the function does not)."""
    r = C.compare(load_variant("two-deck-2011"), "expert", "expert", 40, seed=3)
    assert r["difference"] == "expert minus expert"
    for name in FIGURES:
        f = r["figures"][name]
        assert f["a"] == f["b"]
        assert f["difference"] == {"value": 0.0, "low": 0.0, "high": 0.0, "n": 40}
    rel = r["figures"]["defender_points_mean"]["relative_difference"]
    assert (rel["value"], rel["low"], rel["high"]) == (0.0, 0.0, 0.0)
    assert r["figures"]["takeover_rate"]["target"]["verdict"] == "inside"
    assert r["figures"]["defender_points_mean"]["target"]["verdict"] == "inside"


def test_differences_are_paired_hand_by_hand(monkeypatch):
    """The difference is the mean of per-hand differences of hand i under A and hand i under B, and
    each policy's own figure is that policy's own self-play."""
    from simsuite.engine.api import play_batch
    from simsuite.engine.hand import RECORD_FIELDS

    v = load_variant("school-2016")
    r = C.compare(v, "expert", "basic", 30, seed=5)
    a, b = play_batch(v, 5, 30, "expert,expert"), play_batch(v, 5, 30, "basic,basic")
    fp = RECORD_FIELDS.index("final_points")
    d = a[:, fp] - b[:, fp]
    f = r["figures"]["defender_points_mean"]
    assert f["difference"]["value"] == pytest.approx(d.mean())
    half = 1.959963984540054 * d.std(ddof=1) / np.sqrt(30)
    assert f["difference"]["low"] == pytest.approx(d.mean() - half)
    assert f["a"]["value"] == pytest.approx(a[:, fp].mean())
    assert f["b"]["value"] == pytest.approx(b[:, fp].mean())
    rel = f["relative_difference"]["value"]
    assert rel == pytest.approx(a[:, fp].mean() / b[:, fp].mean() - 1)
    to = RECORD_FIELDS.index("takeover")
    assert r["figures"]["takeover_rate"]["difference"]["value"] == pytest.approx(
        (a[:, to] != 0).mean() - (b[:, to] != 0).mean()
    )
    lv = [RECORD_FIELDS.index("levels_ns"), RECORD_FIELDS.index("levels_ew")]
    assert r["figures"]["level_change_mean"]["a"]["value"] == pytest.approx(np.abs(a[:, lv]).sum(axis=1).mean())


def test_relative_difference_interval():
    a = np.array([10.0, 20.0, 30.0, 40.0])
    e = C.relative_difference(a, a * 2)
    assert e.value == pytest.approx(-0.5) and e.low == pytest.approx(-0.5) and e.high == pytest.approx(-0.5)
    e = C.relative_difference(np.array([1.0, 2.0, 4.0]), np.array([2.0, 1.0, 3.0]))
    assert e.value == pytest.approx(7 / 6 - 1) and e.low < e.value < e.high
    assert np.isnan(C.relative_difference(a, np.zeros(4)).value)


def test_same_numbers_whatever_jobs_and_chunk():
    v = load_variant("huizhou")
    one = C.compare(v, "expert", "basic", 30, seed=2, jobs=1)
    two = C.compare(v, "expert", "basic", 30, seed=2, jobs=2, chunk=7)
    assert one == two


def test_search_gets_small_chunks():
    assert C.chunk_for("search") == C.chunk_for("search-k2-c2") == C.SEARCH_CHUNK
    assert C.chunk_for("expert") > C.SEARCH_CHUNK


def test_bounds_state_the_target_they_come_from():
    import inspect

    src = inspect.getsource(C)
    assert C.TAKEOVER_BOUND == 0.05 and C.POINTS_BOUND == 0.05
    said = src.split("TAKEOVER_BOUND =")[0].rsplit("\n\n", 1)[-1]
    assert "agreement target" in said and "within 5 percentage points" in said and "within 5%" in said


def test_cli_jobs_1_and_2_give_identical_json(capsys):
    argv = [
        "compare-policies",
        "--variant",
        "two-deck-2011",
        "--policies",
        "expert,basic",
        "--hands",
        "600",
        "--seed",
        "4",
        "--json",
    ]
    code1, out1, _ = run_cli(capsys, *argv, "--jobs", "1")
    code2, out2, _ = run_cli(capsys, *argv, "--jobs", "2")  # 600 hands: three tasks of duel's 250
    assert code1 == code2 == 0
    assert out1 == out2


def test_json_contract(capsys):
    code, out, err = run_cli(
        capsys,
        "compare-policies",
        "--variant",
        "school-2016",
        "--variant",
        "guangxi-2012",
        "--policies",
        "basic,expert",
        "--hands",
        "20",
        "--json",
    )
    assert code == 0, err
    data = json.loads(out)
    assert isinstance(data, list) and [d["variant"] for d in data] == ["school-2016", "guangxi-2012"]
    for d in data:
        assert d["a"] == "basic" and d["b"] == "expert" and d["difference"] == "basic minus expert"
        assert d["hands"] == 20 and d["seed"] == 1 and d["rules_hash"]
        assert list(d["figures"]) == FIGURES
        for name, f in d["figures"].items():
            assert f["kind"] in ("share", "points", "levels") and f["label"] and f["what"]
            for key in ("a", "b", "difference"):
                assert set(f[key]) == {"value", "low", "high", "n"} and f[key]["n"] == 20
                assert f[key]["low"] <= f[key]["value"] <= f[key]["high"]
            assert (f["relative_difference"] is not None) == (name == "defender_points_mean")
            if name in ("takeover_rate", "defender_points_mean"):
                assert f["target"]["bound"] == 0.05
                assert f["target"]["on"] == ("difference" if name == "takeover_rate" else "relative_difference")
                assert f["target"]["verdict"] in ("inside", "outside", "undecided")
            else:
                assert f["target"] is None
    # guangxi-2012 has no bottom: nothing buried, no bottom capture
    g = data[1]["figures"]
    assert g["bottom_points_share"]["a"]["value"] == 0.0 and g["bottom_points_share"]["difference"]["value"] == 0.0


def test_text_output_says_the_sign_and_the_verdicts(capsys):
    code, out, err = run_cli(
        capsys, "compare-policies", "--variant", "two-deck-2011", "--policies", "basic,expert", "--hands", "20"
    )
    assert code == 0, err
    assert "basic minus expert" in out and "n = 20 hands each" in out
    for label in (
        "take-over rate",
        "defender points per hand",
        "hands with points in the bottom",
        "capture points per hand",
        "|level change| per hand",
    ):
        assert label in out
    assert "within ±5 pp" in out and "within ±5% of expert's" in out
    assert any(v in out for v in ("inside", "outside", "undecided"))


@pytest.mark.parametrize(
    "argv, needles",
    [
        (["--variant", "nope"], ["nope", "unknown variant id", "known ids"]),
        (["--policies", "expert,nobody"], ["unknown policy 'nobody'", "built-in policies"]),
        (["--policies", "expert,expert"], ["'expert' twice", "two different policies"]),
        (["--policies", "search,search-k8-c6"], ["same policy", "two different policies"]),
        (["--policies", "expert"], ["--policies needs two policies A,B"]),
        (["--policies", "expert,basic,random"], ["--policies needs two policies A,B"]),
        (["--policies", "expert,examples/policies/greedy.py:Greedy"], ["import path"]),
        (["--policies", "search-k999,expert"], ["search takes -k<samples>"]),
        (["--hands", "0"], ["--hands must be at least 2; got 0"]),
        (["--hands", "-5"], ["--hands must be at least 2; got -5"]),
        (["--seed", "-1"], ["--seed must be at least 0"]),
        (["--jobs", "0"], ["--jobs must be a positive number of workers or -1"]),
    ],
)
def test_bad_input_gives_one_clear_line(capsys, argv, needles):
    code, out, err = run_cli(
        capsys, "compare-policies", *(["--policies", "expert,basic"] if "--policies" not in argv else []), *argv
    )
    assert out == ""
    one_line_error(code, err, *needles, command="compare-policies")


def test_parse_pair_at_the_function_level():
    assert C.parse_pair(" expert , search-k2-c2 ") == ("expert", "search-k2-c2")
    with pytest.raises(SimsuiteError, match="twice"):
        C.parse_pair("basic,basic")
