"""Figures of very small samples: intervals stay inside what the figure can be, and a figure with no
interval says so in JSON with null."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli import run_cli

from simsuite.analysis.stats import Estimate, within

FOLLOW = Path(__file__).resolve().parent.parent / "examples" / "scenarios" / "advise-follow.toml"


def test_small_samples_give_intervals_inside_what_the_figure_can_be(capsys):
    """Normal intervals of two or three hands stay inside the figure's range: no share's difference
    beyond -1 or 1, no mean |level change| or points buried below 0."""
    code, out, err = run_cli(
        capsys, "compare-policies", "--hands", "2", "--policies", "expert,basic", "--variant", "school-2016", "--json"
    )
    assert code == 0, err
    figures = json.loads(out)[0]["figures"]
    for f in figures.values():
        if f["kind"] == "share":
            assert -1.0 <= f["difference"]["low"] <= f["difference"]["high"] <= 1.0, f
    for side in ("a", "b"):
        assert figures["level_change_mean"][side]["low"] >= 0.0
    code, out, err = run_cli(capsys, "bury", "--variant", "school-2016", "--policy", "basic", "--hands", "3", "--json")
    assert code == 0, err
    points = json.loads(out)["points"]
    assert points["low"] >= 0.0


def test_within_keeps_an_interval_inside_its_range():
    assert within(Estimate(-0.5, -1.48, 0.48, 2), -1.0, 1.0) == Estimate(-0.5, -1.0, 0.48, 2)
    assert within(Estimate(1.0, -0.96, 2.96, 2), 0.0) == Estimate(1.0, 0.0, 2.96, 2)
    empty = Estimate(float("nan"), float("nan"), float("nan"), 0)
    assert within(empty, 0.0) is empty


def test_advise_json_has_no_nan_where_a_candidate_has_no_interval(capsys):
    """One sample gives no interval: JSON null, never NaN (which is not JSON)."""
    code, out, err = run_cli(capsys, "advise", str(FOLLOW), "--policy", "search-k1-c6", "--json")
    assert code == 0, err
    data = json.loads(out, parse_constant=lambda c: pytest.fail(f"{c} in the JSON"))
    assert all(c["ci95"] is None for c in data["candidates"])
