"""``simsuite learn responses`` (``analysis.responses``), and the direction of learned's responses to the rules
the notebooks study: fewer points buried as the capture multiplier rises, more multi-card last
leads where the capture is by the size of the last lead. Where the shipped model is wrong in size, a strict
xfail holds the target with the figures measured for the shipped model: it fails loudly once the model meets it."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli import one_line_error, run_cli

from simsuite.analysis import responses as R
from simsuite.cli import _parser
from simsuite.report.responses_text import answer, format_responses
from simsuite.rules.variant import load_variant

NOTEBOOK_FIELDS = ["decks", "bottom_size", "capture_per_card", "capture_scheme", "step", "takeover"]

# --- the plan: which field, which statistic, which settings ------------------------------------------------


def test_plan_studies_every_field_the_notebooks_vary_with_the_statistic_it_acts_on():
    p = R.plan()
    assert [s.field for s in p.studies] == NOTEBOOK_FIELDS and p.skipped == []
    by = {s.field: s for s in p.studies}
    assert {f: by[f].statistic.name for f in NOTEBOOK_FIELDS} == {
        "decks": "declarer_hold",
        "bottom_size": "declarer_hold",
        "capture_per_card": "buried_points",
        "capture_scheme": "multi_card_last_lead",
        "step": "level_change",
        "takeover": "takeover_rate",
    }
    assert {s.base.id for s in p.studies} == {"school-2016", "guangxi-2012"}
    assert by["capture_scheme"].base.id == "guangxi-2012"
    # the values notebooks 02 to 04 sweep on school-2016 (examples/sweeps/*.toml)
    assert [s.variant.decks for s in by["decks"].settings] == [2, 3, 4]
    assert [s.variant.bottom_size for s in by["decks"].settings] == [4, 6, 8]
    assert [s.variant.bottom_size for s in by["bottom_size"].settings] == [2, 6, 10]
    assert [s.variant.step for s in by["step"].settings] == [20, 30, 60]
    assert [s.variant.takeover for s in by["takeover"].settings] == [100, 120, 150]
    cap = by["capture_per_card"].settings
    assert [(s.variant.capture_per_card, s.variant.capture_side_per_card) for s in cap] == [(0, 0), (3, 3), (6, 6)]
    assert [s.variant.capture_scheme for s in by["capture_scheme"].settings] == ["last_trick_points", "per_card"]


def test_a_variant_studies_the_fields_that_apply_and_says_why_not_the_others():
    p = R.plan("guangxi-2012")
    assert "capture_per_card" not in [s.field for s in p.studies]
    assert [(k.field, "no bottom" in k.reason) for k in p.skipped] == [("capture_per_card", True)]
    p = R.plan("two-deck-2011")
    assert [k.field for k in p.skipped] == ["capture_scheme"] and "guangxi-2012 does" in p.skipped[0].reason
    cap = next(s for s in p.studies if s.field == "capture_per_card").settings
    # the side-suit factor kept at half the trump factor, as two-deck-2011 has it (2 and 1)
    assert [(s.variant.capture_per_card, s.variant.capture_side_per_card) for s in cap] == [(0, 0), (3, 1), (6, 3)]


def test_bottom_sizes_deal_evenly_and_take_the_neighbours_of_the_base():
    assert R.bottom_sizes(load_variant("school-2016")) == [2, 6, 10]
    assert R.bottom_sizes(load_variant("two-deck-2011")) == [4, 8, 12]
    assert R.bottom_sizes(load_variant("guangxi-2012")) == [0, 4, 8]  # at the end of the list: the next two


def test_a_multi_card_last_lead_is_read_only_where_the_record_tells_it():
    """``lead_size_problem``: the capture multiplier tells a multi-card last lead under guangxi-2012's rules
    and under them with the capture per card, not where only the defenders or only trump capture, or a
    single card captures too."""
    g = load_variant("guangxi-2012")
    assert R.lead_size_problem(g) is None
    assert R.lead_size_problem(g.with_overrides({"capture_scheme": "per_card"})) is None
    assert "capture_by" in R.lead_size_problem(g.with_overrides({"capture_by": "defenders"}))
    assert "single_card_captures" in R.lead_size_problem(
        load_variant("school-2016").with_overrides({"capture_by": "either"})
    )


def test_cli_defaults_are_the_modules():
    learn = next(a for a in _parser()._actions if hasattr(a, "choices") and a.choices and "learn" in a.choices)
    sub = learn.choices["learn"]
    r = next(a for a in sub._actions if hasattr(a, "choices") and a.choices and "responses" in a.choices)
    defaults = {a.dest: a.default for a in r.choices["responses"]._actions}
    assert defaults["deals"] == R.DEFAULT_DEALS and defaults["reference"] == R.DEFAULT_REFERENCE
    assert defaults["policy"] == R.DEFAULT_POLICY and "eight times" in str(
        next(a.help for a in r.choices["responses"]._actions if a.dest == "deals")
    )
    assert R.BURY_FACTOR == 8


# --- the answer line --------------------------------------------------------------------------------------


def _result(diff_low: float, diff_high: float) -> dict:
    e = {"value": (diff_low + diff_high) / 2, "low": diff_low, "high": diff_high, "n": 10}
    own = {"value": 1.0, "low": 0.5, "high": 1.5, "n": 10}
    studies = [
        {
            "field": "capture_per_card",
            "title": "capture multiplier per card",
            "variant": "school-2016",
            "statistic": "buried_points",
            "label": "points buried per hand by the dealer",
            "short": "points buried per hand",
            "kind": "points",
            "loop": "bury",
            "deals": 40,
            "settings": [
                {
                    "setting": "x0 per card",
                    "name": "x0",
                    "overrides": {},
                    "policy": own,
                    "reference": own,
                    "difference": e,
                },
                {
                    "setting": "x6 per card",
                    "name": "x6",
                    "overrides": {},
                    "policy": own,
                    "reference": own,
                    "difference": e,
                },
            ],
            "response": {"from": "x0", "to": "x6", "policy": own, "reference": own, "difference": e},
        }
    ]
    return {
        "policy": "learned",
        "reference": "search",
        "deals": 10,
        "bury_deals": 40,
        "seed": 1,
        "studies": studies,
        "skipped": [],
        "departures": R.departures(studies),
    }


def test_the_answer_names_where_the_policy_departs_beyond_the_intervals():
    r = _result(-2.0, -0.5)
    line = answer(r)
    assert line.startswith("learned departs from search beyond the 95% intervals in 1 of 1 responses: ")
    assert "capture_per_card x0 to x6, points buried per hand -1.25 [-2.00, -0.50] (n = 10)" in line
    assert ", and at 2 of 2 settings: capture_per_card x0, points buried per hand -1.25" in line
    assert format_responses(r).splitlines()[0] == line


def test_the_answer_says_so_when_nothing_departs():
    line = answer(_result(-0.5, 0.5))
    assert line.startswith("learned's responses stay within the 95% intervals of search's")
    assert "2" in line and "1" in line


def test_departs_only_when_the_whole_interval_is_on_one_side():
    assert R.departs({"low": 0.1, "high": 2.0}) and R.departs({"low": -2.0, "high": -0.1})
    assert not R.departs({"low": -0.1, "high": 2.0}) and not R.departs({"low": None, "high": None})


# --- the command, end to end on the lean policies -----------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "needles"),
    [
        (["--deals", "1"], ["--deals must be at least 2"]),
        (["--policy", "learned", "--reference", "learned"], ["--policies", "twice"]),
        (["--reference", "nosuch"], ["unknown policy 'nosuch'"]),
        (["--seed", "-1"], ["--seed must be at least 0"]),
        (["--variant", "nosuch-variant"], ["nosuch-variant"]),
    ],
)
def test_bad_input_gives_one_clear_line(capsys, argv, needles):
    code, _, err = run_cli(capsys, "learn", "responses", *argv)
    one_line_error(code, err, *needles, command="learn responses")


def test_the_command_prints_the_answer_first_and_every_row_with_n_and_interval(capsys):
    code, out, err = run_cli(
        capsys, "learn", "responses", "--policy", "expert", "--reference", "basic", "--deals", "12", "--seed", "3"
    )
    assert code == 0 and err == ""
    first = out.splitlines()[0]
    assert first.startswith("expert departs from basic") or first.startswith("expert's responses stay within")
    for field in NOTEBOOK_FIELDS:
        assert f"\n{field} (" in out
    assert "n = 12 deals per setting" in out and "n = 96 deals per setting" in out  # bury-only: 8 x --deals
    assert out.count("response: ") == 6


def test_figures_do_not_depend_on_the_workers():
    kw = dict(policy="expert", reference="basic", deals=20, seed=4, fields=["takeover"])
    assert R.measure(jobs=1, **kw) == R.measure(jobs=2, chunk=7, **kw)


def test_differences_and_responses_are_paired_deal_by_deal():
    """Each difference is the mean of per-deal differences policy - reference, and a response the mean of
    per-deal changes from the first setting to the last; the bury-only rows deal ``BURY_FACTOR`` times more."""
    v = load_variant("school-2016")
    one = R.measure("expert", "basic", deals=30, seed=4, fields=["takeover", "capture_per_card"])
    take = one["studies"][1]
    assert take["field"] == "takeover" and [r["setting"] for r in take["settings"]] == [
        "take-over 100",
        "take-over 120",
        "take-over 150",
    ]
    a = {t: R.per_hand("takeover_rate", v.with_overrides({"takeover": t}), "expert", 30, 4) for t in (100, 150)}
    b = {t: R.per_hand("takeover_rate", v.with_overrides({"takeover": t}), "basic", 30, 4) for t in (100, 150)}
    assert take["settings"][0]["difference"]["value"] == pytest.approx((a[100] - b[100]).mean())
    assert take["settings"][0]["policy"]["value"] == pytest.approx(a[100].mean())
    assert take["settings"][0]["policy"]["n"] == 30
    d = (a[150] - a[100]) - (b[150] - b[100])
    assert take["response"]["difference"]["value"] == pytest.approx(d.mean())
    half = 1.959963984540054 * d.std(ddof=1) / np.sqrt(30)
    assert take["response"]["difference"]["low"] == pytest.approx(d.mean() - half)
    bury = one["studies"][0]
    assert bury["deals"] == 240 and bury["settings"][0]["policy"]["n"] == 240
    json.dumps(one)  # plain JSON


@pytest.mark.full_loop
def test_multi_card_last_lead_is_the_last_tricks_lead_size():
    """The record's capture multiplier under guangxi-2012 with the capture per card is not 0 exactly where
    the hand's last trick was led with two or more cards (the history's plays, hand by hand). ``learned``
    plays: ``expert`` and ``basic`` never lead more than one card to the last trick there (0 of 300)."""
    from simsuite.engine.api import play_batch, play_one

    v = load_variant("guangxi-2012").with_overrides({"capture_scheme": "per_card"})
    rows = play_batch(v, 1, 120, "learned")
    multi = R.STATISTICS["multi_card_last_lead"].per_hand(rows)
    picked = list(np.nonzero(multi)[0][:3]) + list(np.nonzero(~multi)[0][:3])
    assert len(picked) == 6  # both kinds of hand are checked
    for i in picked:
        r = play_one(v, 1, "learned", first_drawer=int(i) % 4, hand_index=int(i), keep=True)
        assert list(r.record.values()) == list(rows[i])  # the batch's hand i, replayed with its history
        plays = r.history.plays
        last = plays[plays[:, 0] == plays[:, 0].max()]
        lead_cards = int(last[last[:, 2] == 0][0, 4:].sum())
        assert bool(multi[i]) == (lead_cards >= 2), (i, lead_cards, r.record["capture_multiplier"])


# --- the direction of learned's responses, and the size targets it misses ------------------------

SEED = 1
DIRECTION_DEALS = 1000  # the bury loop of learned deals tens of thousands a second
SIZE_DEALS = 400  # the bury table of docs/learned.md
BURY_REFERENCE = "reference"  # search-k32-c6 (docs/policies.md, "The reference")
PLAY_REFERENCE = "reference"  # guangxi-2012 played by the reference takes about a second a hand
LEAD_DEALS = 150
# why learned buries less than the reference where a capture is dear: docs/policies.md, "The bury"
BURY_NOTE = "(the reference's figure is raised by its noise; burying more would cost value: docs/policies.md) "


def _multiplied(variant_id: str, m: int):
    v = load_variant(variant_id)
    o = R.multiplier_overrides(v, m)
    return v.with_overrides(o) if o else v


@pytest.mark.full_loop
@pytest.mark.parametrize("variant_id", ["school-2016", "huizhou", "two-deck-2011"])
def test_learned_buries_fewer_points_as_the_capture_multiplier_rises(variant_id):
    """Points buried per hand by a learned dealer, x0 > x3 > x6 per card, each step beyond its paired
    interval (the same 1,000 deals under each multiplier)."""
    x = {
        m: R.per_hand("buried_points", _multiplied(variant_id, m), "learned", DIRECTION_DEALS, SEED)
        for m in R.MULTIPLIERS
    }
    for lo, hi in zip(R.MULTIPLIERS, R.MULTIPLIERS[1:]):
        d = R.STATISTICS["buried_points"].difference(x[hi] - x[lo])
        assert d.high < 0, (variant_id, lo, hi, d)


@pytest.mark.full_loop
@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="learned's known fault: learned leads a multi-card last trick less often where the capture is by the lead's size: "
    "guangxi-2012 8.6% [7.0, 10.5] of 1,000 hands (seed 1) against 16.4% [14.2, 18.8] with the capture per card "
    "(no bottom: nothing at stake), paired difference -7.8 pp [-10.6, -5.0]; its end-of-hand groups keep pairs "
    "for the last trick without a feature for what the last trick is worth",
)
def test_learned_leads_more_multi_card_last_tricks_where_the_capture_is_by_lead_size():
    """guangxi-2012 multiplies the last trick by the cards of its lead; the same rules with the capture per
    card (and no bottom) make the last lead's size worth nothing. A player that plans the last trick leads
    more multi-card last tricks under the first (the same 1,000 deals, paired)."""
    g = load_variant("guangxi-2012")
    by_size = R.per_hand("multi_card_last_lead", g, "learned", DIRECTION_DEALS, SEED)
    per_card = R.per_hand(
        "multi_card_last_lead", g.with_overrides({"capture_scheme": "per_card"}), "learned", DIRECTION_DEALS, SEED
    )
    d = R.STATISTICS["multi_card_last_lead"].difference(by_size - per_card)
    assert d.low > 0, d


def _near(a: np.ndarray, b: np.ndarray, stat: str) -> bool:
    """The size target: the policy's figure inside the reference's interval or within 25% of it."""
    e = R.STATISTICS[stat].estimate(b)
    return e.low <= a.mean() <= e.high or abs(a.mean() - e.value) <= 0.25 * e.value


# the shipped model's figures where learned misses the bury target (400 deals, seed 1), each variant's strict xfail
BURY_MISSES = {
    "school-2016": "x3 learned 2.12 [1.60, 2.65] against the reference's 3.34 [2.59, 4.09] (0.64 of it); "
    "x6 learned 0.66 [0.34, 0.99] against 1.69 [1.11, 2.27] (0.39 of it)",
    "huizhou": "x3 learned 1.74 [1.29, 2.19] against the reference's 3.64 [2.81, 4.47] (0.48 of it); "
    "x6 learned 0.56 [0.28, 0.85] against 1.80 [1.15, 2.45] (0.31 of it)",
    "two-deck-2011": "x3 learned 5.64 [4.87, 6.41] against the reference's 7.89 [6.77, 9.01] (0.71 of it); "
    "x6 learned 2.21 [1.60, 2.82] against 3.98 [3.10, 4.85] (0.56 of it)",
}


@pytest.mark.full_loop
@pytest.mark.slow
@pytest.mark.parametrize(
    "variant_id",
    [
        pytest.param(
            vid,
            marks=pytest.mark.xfail(
                strict=True,
                raises=AssertionError,
                reason=f"learned's known fault: points buried per hand, 400 deals, seed 1: {BURY_NOTE}{figures}",
            ),
        )
        for vid, figures in BURY_MISSES.items()
    ],
)
def test_learned_buries_as_much_as_the_reference_at_x3_and_x6(variant_id):
    """The bury target: at x3 and x6 per card, learned's points buried per hand inside the
    reference's interval or within 25% of its figure (the same 400 deals)."""
    for m in (3, 6):
        v = _multiplied(variant_id, m)
        a = R.per_hand("buried_points", v, "learned", SIZE_DEALS, SEED)
        b = R.per_hand("buried_points", v, BURY_REFERENCE, SIZE_DEALS, SEED)
        assert _near(a, b, "buried_points"), (variant_id, m, a.mean(), b.mean())


@pytest.mark.full_loop
@pytest.mark.slow
def test_learned_leads_multi_card_last_tricks_as_often_as_the_reference_on_guangxi():
    """The last-lead target: on guangxi-2012 learned's share of hands with a multi-card last lead
    within 25% of the reference's (the same 150 deals)."""
    g = load_variant("guangxi-2012")
    a = R.per_hand("multi_card_last_lead", g, "learned", LEAD_DEALS, SEED)
    b = R.per_hand("multi_card_last_lead", g, PLAY_REFERENCE, LEAD_DEALS, SEED, jobs=2)
    assert _near(a, b, "multi_card_last_lead"), (a.mean(), b.mean())
