"""The design's figures: the delta-method intervals of the exact model against its point values and its
bootstrap, and the bootstrap they fall back to. docs/design.md."""

from __future__ import annotations

from pathlib import Path

import pytest


def test_delta_method_figures_match_the_exact_model_and_its_bootstrap(tiny_design):
    """The design's exact figures are exact_model's point values, and their analytic SE is close
    to the standard deviation of exact_model's bootstrap over deals."""
    from simsuite.analysis.design.figures import exact_sets
    from simsuite.analysis.exact import exact_model
    from simsuite.sim.results import load

    _, res = tiny_design
    r = load(Path(res["out"]) / "runs" / "confirm0-expert-basic")
    h, m = r.hands.collect(), r.matches.collect()
    variant = next(iter(r.variants().values()))
    rescores = [{"no_new_hand_minutes": 12}, {"no_new_hand_minutes": 4}]  # one chain, each set its own stop
    got = exact_sets(h, m, variant, rescores)
    assert got[1]["minutes_mean"]["value"] > got[0]["minutes_mean"]["value"]
    ex4 = exact_model(h, m, variant, rescores[1], reps=2, seed=5, values=False)["figures"]
    for k in ("p_a", "p_draw", "minutes_mean", "hands_mean", "clock_share", "lead_changes"):  # the shared chain
        assert got[1][k]["value"] == pytest.approx(ex4[k]["value"], abs=1e-9), k
    for rs, figs in list(zip(rescores, got))[:1]:
        ex = exact_model(h, m, variant, rs, reps=60, seed=5, values=False)["figures"]
        for k in ("p_a", "minutes_mean", "hands_mean", "lead_changes"):
            assert figs[k]["value"] == pytest.approx(ex[k]["value"], abs=1e-9), k
            boot_se = (ex[k]["high"] - ex[k]["low"]) / (2 * 1.959964)
            if boot_se > 1e-6:
                assert 0.6 < figs[k]["se"] / boot_se < 1.6, (k, figs[k]["se"], boot_se)


def test_without_the_exact_models_counts_the_figures_fall_back_to_its_bootstrap(tiny_design, monkeypatch):
    """Where the hands cannot be matched to the chain's outcomes, the exact model's own percentile
    bootstrap gives the interval, with 1,000 resamples (never fewer)."""
    import simsuite.analysis.design.figures as D
    from simsuite.sim.results import load

    _, res = tiny_design
    r = load(Path(res["out"]) / "runs" / "round0-expert-basic")
    h, m = r.hands.collect(), r.matches.collect()
    variant = next(iter(r.variants().values()))
    fast = D.exact_sets(h, m, variant, [{"no_new_hand_minutes": 12}])[0]
    monkeypatch.setattr(D, "counts", lambda data, rules: None)
    slow = D.exact_sets(h, m, variant, [{"no_new_hand_minutes": 12}])[0]
    assert slow["p_a"]["interval"] == f"percentile bootstrap, {D.BOOT_REPS} resamples" and D.BOOT_REPS >= 1000
    assert fast["p_a"]["interval"] == "delta method"
    for k in ("p_a", "minutes_mean", "lead_changes"):
        assert slow[k]["value"] == pytest.approx(fast[k]["value"], abs=1e-9)
        assert slow[k]["se"] >= 0
