"""The design's judgements: a goal against a figure's interval (the screening level too), the Pareto
front, the binding goal, and which played cells a round plays again. docs/design.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from simsuite.analysis.design.judge import binding, judge, judgements, pareto, replay
from simsuite.analysis.design.spec import Goal, read_design


def test_judge_reads_the_interval_against_the_bound():
    g = Goal("draws", "<=", 0.10)
    assert judge(g, {"value": 0.05, "low": 0.03, "high": 0.08, "n": 100})["status"] == "meets"
    j = judge(g, {"value": 0.09, "low": 0.06, "high": 0.12, "n": 100})
    assert j["status"] == "likely" and j["meets"] and j["margin"] == pytest.approx(-0.02)
    assert judge(g, {"value": 0.11, "low": 0.08, "high": 0.14, "n": 100})["status"] == "unlikely"
    assert judge(g, {"value": 0.15, "low": 0.12, "high": 0.18, "n": 100})["status"] == "fails"
    up = judge(Goal("stronger_wins", ">=", 0.75), {"value": 0.80, "low": 0.77, "high": 0.83, "n": 100})
    assert up["status"] == "meets" and up["margin"] == pytest.approx(0.02)
    assert up["z"] == pytest.approx(0.05 / (0.06 / (2 * 1.959964)))
    assert judge(g, None)["status"] == "no figure"


def test_pareto_front_keeps_only_the_undominated():
    pts = {"a": (80, 0.70), "b": (90, 0.80), "c": (85, 0.65), "d": (100, 0.80), "e": (95, 0.85)}
    assert pareto(pts, (-1, 1)) == ["a", "b", "e"]  # shorter is better, more wins is better
    assert pareto(pts, (1, 1)) == ["e", "d"]


def test_binding_goal_is_the_one_that_alone_keeps_sets_out():
    def j(*meets, z=0.0):
        return {
            "goals": [{"goal": g, "meets": m} for g, m in zip(("a", "b", "c"), meets)],
            "failed": sum(not m for m in meets),
            "min_z": z,
        }

    b = binding(["a", "b", "c"], {"s1": j(True, False, True), "s2": j(False, False, True), "s3": j(True, False, False)})
    assert b["goal"] == "b" and b["sets_failing_only_it"] == 1 and b["nearest"] == "s1"
    assert b["failing"] == {"a": 1, "b": 3, "c": 1}
    b = binding(["a", "b", "c"], {"s1": j(False, False, True, z=-1), "s2": j(False, False, True, z=-3)})
    assert b["goals"] == ["a", "b"] and b["sets_failing_only_it"] == 0 and b["nearest"] == "s1"


def test_screening_uses_the_bonferroni_level_not_the_95_percent_interval():
    g = Goal("stronger_wins", ">=", 0.60)
    fig = {"value": 0.66, "low": 0.62, "high": 0.70, "n": 500, "se": 0.02}  # 95%: clear of the bound (z = 3)
    assert judge(g, fig)["status"] == "meets"
    screened = judge(g, fig, z_crit=3.5)  # the adjusted interval 0.59..0.73 straddles: not decided
    assert screened["status"] == "likely" and screened["meets"] and screened["z"] == pytest.approx(3.0)
    assert judge(g, {**fig, "value": 0.52}, z_crit=3.5)["status"] == "fails"  # 0.45..0.59: fails for sure


def test_a_pairing_with_an_open_judgement_is_replayed_and_a_settled_one_is_not():
    """replay alone: a set open under equal teams only has its cell replayed under equal teams; one
    whose every judgement is decided is not replayed at all."""
    spec = read_design(Path(__file__).parent / "designs" / "tiny.toml")
    s0, s1 = spec.sets[0], spec.sets[1]
    decided = {(s0.id, gi, p): ("meets", 0) for gi, p in judgements(spec, s0)}
    eq = next(p for p in spec.pairings if p[0] == p[1])
    gi_eq = next(gi for gi, p in judgements(spec, s0) if p == eq)
    del decided[(s0.id, gi_eq, eq)]
    decided.update({(s1.id, gi, p): ("meets", 0) for gi, p in judgements(spec, s1)})
    todo = replay(spec, [s0, s1], decided)
    assert todo == {eq: [s0.played]}  # one played cell: the equal pairing alone, once
