"""The words of a design's result: its one-sentence answer. docs/design.md."""

from __future__ import annotations

from simsuite.report.design_text import sentence


def test_a_candidate_that_does_not_hold_on_fresh_deals_is_not_recommended():
    fig = {"value": 0.58, "low": 0.55, "high": 0.61, "n": 540, "se": 0.015}
    res = {
        "recommended": None,
        "candidates": ["a", "b"],
        "sets": [{"id": "a"}, {"id": "b"}],
        "confirmation": {
            "tried": [
                {
                    "set": s,
                    "confirmed": False,
                    "goals": [{"goal": "stronger_wins >= 0.6", "primary": True, "holds": False, "figure": fig}],
                }
                for s in "ab"
            ]
        },
    }
    text = sentence(res)
    assert text.startswith(
        "No parameter set is recommended: 2 set(s) met every goal on the search's deals, but "
        "the 2 best did not hold on fresh deals"
    )
    assert "a: stronger_wins >= 0.6 58.0% [55.0, 61.0] n=540" in text
