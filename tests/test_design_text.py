"""The words of a design's result: its one-sentence answer, a screening status, the cost line.
docs/design.md."""

from __future__ import annotations

from simsuite.report.design_text import cost_words, sentence, status_words

FIG = {"value": 0.58, "low": 0.55, "high": 0.61, "n": 540, "se": 0.015}


def _tried(s: str, ok: bool) -> dict:
    return {
        "set": s,
        "seed": 11,
        "matches": 540,
        "alpha": 0.025 / 3,
        "confirmed": ok,
        "goals": [
            {"goal": "stronger_wins >= 0.6", "primary": True, "confirmed": ok, "bound": 0.544, "figure": FIG},
        ],
    }


def test_a_candidate_that_is_not_confirmed_on_fresh_deals_is_not_recommended():
    res = {
        "recommended": None,
        "candidates": ["a", "b"],
        "sets": [{"id": "a"}, {"id": "b"}],
        "confirmation": {"tried": [_tried(s, False) for s in "ab"]},
    }
    text = sentence(res)
    assert text.startswith(
        "No parameter set is recommended: 2 candidate(s) had estimates meeting every goal in the search, but "
        "the 2 tried were not confirmed on fresh deals"
    )
    assert "a: stronger_wins >= 0.6 58.0% [55.0, 61.0] n=540, bound 54.4%" in text
    assert "one-sided 99.17% bounds, alpha 0.008333 each" in text


def test_a_recommendation_says_it_is_confirmed_by_its_bounds_and_what_the_search_left_open():
    res = {
        "recommended": "a",
        "base": "two-deck-2011",
        "candidates": ["a"],
        "sets": [{"id": "a", "sure": False, "not_decided": ["stronger_wins >= 0.6"]}],
        "confirmation": {"tried": [{**_tried("a", True), "goals": [{**_tried("a", True)["goals"][0], "bound": 0.61}]}]},
    }
    text = sentence(res)
    assert text.startswith("Play a (two-deck-2011): it is confirmed on 540 fresh deals (seed 11), every goal's bound")
    assert "(one-sided 99.17% bounds, alpha 0.008333)" in text and "bound 61.0%" in text
    assert text.endswith("in the search stronger_wins >= 0.6 was not decided.")


def test_a_judgement_left_open_reads_not_decided_with_its_n():
    j = {"status": "not decided", "lean": "likely", "n_needed": 1234}
    assert status_words(j) == "not decided (estimate meets it), n needed ~1,234 deals"
    assert "met" not in status_words({**j, "lean": "unlikely"}).replace("meets", "")
    assert status_words({"status": "meets", "decided_round": 1}) == "met for sure (round 1)"


def test_the_cost_line_names_the_analysts_baseline_and_both_ratios():
    c = {
        "design_hands": 1000,
        "rounds_hands": 700,
        "confirmation_hands": 300,
        "played_cells": 8,
        "parameter_sets": 24,
        "pairings": 2,
        "baseline_matches_per_cell": 600,
        "baseline_z": 3.5,
        "baseline_hands": 1500,
        "ratio": 1.5,
        "ratio_screening": 2.14,
    }
    text = cost_words(c, 3)
    assert text.startswith("Cost: 1,000 hands played (700 in 3 round(s), 300 confirming;")
    assert "a fixed-n sweep of the 8 played cells under every pairing with the clock re-scored" in text
    assert (
        "600 matches per cell" in text and "about 1,500 hands: 1.5x the design's hands (2.14x its rounds alone" in text
    )
