"""Metrics (docs/metrics.md): every figure checked on frames built by hand with known values,
the capture band crossing on constructed points, N* and seat balance, determinism, and an
end-to-end run on real matches."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from played import played

from simsuite.analysis import metrics as MX
from simsuite.analysis import stats
from simsuite.analysis.stats import bootstrap_mean, wilson
from simsuite.report.summary_text import format_cell, format_summary
from simsuite.rules.variant import load_variant
from simsuite.sim.match import play_match_batch
from simsuite.sim.schema import HAND_SCHEMA, MATCH_SCHEMA, hand_frame, match_frame


def frame(rows: list[dict], schema: dict) -> pl.DataFrame:
    cols = list(rows[0])
    return pl.DataFrame({c: [r[c] for r in rows] for c in cols}).cast({c: schema[c] for c in cols})


def hand(match, ns, ew, takeover, minutes, final=100, capture=0, variant="school-2016", cell=None):
    return {
        "variant": variant,
        "cell": cell or variant,
        "match": match,
        "levels_ns": ns,
        "levels_ew": ew,
        "takeover": takeover,
        "minutes": minutes,
        "final_points": final,
        "capture_points": capture,
    }


def game(
    match,
    hands,
    minutes,
    winner,
    ended,
    first,
    leads,
    dns,
    dew,
    pns="expert",
    pew="basic",
    swapped=False,
    variant="school-2016",
    cell=None,
):
    return {
        "variant": variant,
        "cell": cell or variant,
        "match": match,
        "hands": hands,
        "minutes": minutes,
        "winner": winner,
        "ended_by": ended,
        "first_declarers": first,
        "lead_changes": leads,
        "max_deficit_ns": dns,
        "max_deficit_ew": dew,
        "policy_ns": pns,
        "policy_ew": pew,
        "swapped": swapped,
    }


# Six hands in three matches: level changes 1, 2, 0 | 3, 1 | 0; take-overs F T T | F T T;
# minutes 10, 12, 14 | 10, 10 | 16; one capture (120 with 30) that crossed from 90 into 120.
HANDS = [
    hand(0, 1, 0, False, 10.0, 90, 0),
    hand(0, 0, 2, True, 12.0, 120, 30),
    hand(0, 0, 0, True, 14.0, 130, 0),
    hand(1, 3, 0, False, 10.0, 20, 0),
    hand(1, 0, 1, True, 10.0, 150, 0),
    hand(2, 0, 0, True, 16.0, 145, 20),
]
# Four matches: NS win, EW win, a draw, EW win (policies swapped: expert sits EW).
MATCHES = [
    game(0, 3, 36.0, 0, "clock", 0, 2, 2, 1),
    game(1, 2, 20.0, 1, "level", 0, 0, 0, 3),
    game(2, 1, 16.0, -1, "clock", 1, 1, 1, 1),
    game(3, 4, 40.0, 1, "clock", 1, 3, 0, 2, pns="basic", pew="expert", swapped=True),
]


@pytest.fixture(scope="module")
def row():
    rows = MX.summarise(frame(HANDS, HAND_SCHEMA), frame(MATCHES, MATCH_SCHEMA), seed=7)
    assert len(rows) == 1
    return rows[0]


def inside(d):
    if d["low"] is None:
        return True
    return d["low"] - 1e-12 <= d["value"] <= d["high"] + 1e-12


def test_summary_row_has_key_counts_and_every_metric(row):
    assert row["variant"] == "school-2016" and row["n_matches"] == 4 and row["n_hands"] == 6 and row["n_draws"] == 1
    for key in MX.METRIC_KEYS:
        assert {"value", "low", "high", "n"} <= set(row[key]), key
        assert inside(row[key]), key


def test_game_length_known_values(row):
    assert row["hands_per_match"]["value"] == pytest.approx(2.5) and row["hands_per_match"]["n"] == 4
    assert row["minutes_per_hand"]["value"] == pytest.approx(72 / 6) and row["minutes_per_hand"]["n"] == 3
    assert row["minutes_per_match"]["value"] == pytest.approx(28.0)
    clock = wilson(3, 4)
    assert row["clock_share"] == {"value": 0.75, "low": clock.low, "high": clock.high, "n": 4}


def test_swing_known_values(row):
    change = np.array([1, 2, 0, 3, 1, 0], float)
    assert row["level_change_mean"]["value"] == pytest.approx(7 / 6)
    assert row["level_change_sd"]["value"] == pytest.approx(change.std(ddof=1))
    assert row["big_swing_share"]["value"] == pytest.approx(2 / 6)
    assert row["takeover_rate"]["value"] == pytest.approx(4 / 6)
    assert row["capture_band_share"]["value"] == pytest.approx(1 / 6)
    assert row["lead_changes"]["value"] == pytest.approx(1.5) and row["lead_changes"]["n"] == 4
    # winners' deficits: match 0 NS 2, match 1 EW 3, match 3 EW 2; the draw is left out
    assert row["deficit_overcome_mean"]["value"] == pytest.approx(7 / 3) and row["deficit_overcome_mean"]["n"] == 3
    assert row["deficit_overcome_max"]["value"] == 3 and row["deficit_overcome_max"]["n"] == 3
    for key in ("minutes_per_hand", "level_change_mean", "level_change_sd", "big_swing_share", "takeover_rate"):
        assert row[key]["n"] == 3  # the bootstrap resamples the three matches


def test_fairness_known_values(row):
    assert row["declarer_hold"]["value"] == pytest.approx(2 / 6)
    assert row["declarer_hold"]["low"] == pytest.approx(1 - row["takeover_rate"]["high"])
    assert row["declarer_hold"]["high"] == pytest.approx(1 - row["takeover_rate"]["low"])
    first = wilson(2, 3)  # matches 0 and 3 won by their first declarers, match 1 not
    assert (row["first_declarer_win"]["value"], row["first_declarer_win"]["n"]) == (pytest.approx(2 / 3), 3)
    assert row["first_declarer_win"]["low"] == first.low
    ns = wilson(1, 3)
    assert row["ns_win"]["value"] == pytest.approx(1 / 3) and row["ns_win"]["low"] == ns.low
    # seat balance 1 - |2p - 1| = 2/3; the Wilson interval holds 1/2, so the balance reaches 1
    assert row["seat_balance"]["value"] == pytest.approx(2 / 3)
    assert row["seat_balance"]["high"] == 1.0
    assert row["seat_balance"]["low"] == pytest.approx(min(MX.balance(ns.low), MX.balance(ns.high)))
    # policy A = expert (the unswapped NS policy): wins match 0 as NS and match 3 as EW, loses match 1
    # three-way over all four matches (the draw counted): A 2/4, draw 1/4, B 1/4; n = deals
    assert row["policy_a_win"]["value"] == pytest.approx(2 / 4) and row["policy_a_win"]["n"] == 4
    assert row["pair_draw"]["value"] == pytest.approx(1 / 4) and row["policy_b_win"]["value"] == pytest.approx(1 / 4)
    assert row["policy_a_win"]["low"] == wilson(2, 4).low  # one table per deal: Wilson over deals
    assert "A = expert, B = basic" in row["policy_a_win"]["note"]
    # net outcome X: mean 1/4, variance 3/4 - 1/16 = 11/16: N* = 11
    assert row["n_star"]["value"] == pytest.approx(11.0) == MX.n_star_net(0.5, 0.25)
    assert row["n_star"]["high"] == math.inf  # resamples with no net edge


def test_hand_bootstrap_is_stats_bootstrap_by_match(row):
    """The by-match bootstrap draws the same resamples as stats.bootstrap_mean with groups."""
    takeover = [h["takeover"] for h in HANDS]
    groups = [h["match"] for h in HANDS]
    ref = bootstrap_mean(np.array(takeover, float), groups=groups, seed=7)
    assert row["takeover_rate"]["low"] == pytest.approx(ref.low) and row["takeover_rate"]["high"] == pytest.approx(
        ref.high
    )
    minutes = bootstrap_mean(np.array([h["minutes"] for h in HANDS]), groups=groups, seed=7)
    assert row["minutes_per_hand"]["low"] == pytest.approx(minutes.low)


def test_summarise_is_deterministic_and_groups_are_independent():
    h, m = frame(HANDS, HAND_SCHEMA), frame(MATCHES, MATCH_SCHEMA)
    other_h = [dict(x, variant="two-deck-2011", cell="two-deck-2011") for x in HANDS]
    other_m = [dict(x, variant="two-deck-2011", cell="two-deck-2011") for x in MATCHES]
    both = MX.summarise(
        pl.concat([h, frame(other_h, HAND_SCHEMA)]), pl.concat([m, frame(other_m, MATCH_SCHEMA)]), seed=3
    )
    again = MX.summarise(
        pl.concat([h, frame(other_h, HAND_SCHEMA)]).lazy(), pl.concat([m, frame(other_m, MATCH_SCHEMA)]).lazy(), seed=3
    )
    alone = MX.summarise(h, m, seed=3)
    assert both == again
    assert [r["variant"] for r in both] == ["school-2016", "two-deck-2011"]
    assert both[0] == alone[0]
    rng = np.random.default_rng(2)
    many = frame(
        [
            hand(i // 4, int(rng.integers(0, 3)), 0, bool(rng.integers(0, 2)), float(rng.integers(8, 16)))
            for i in range(80)
        ],
        HAND_SCHEMA,
    )
    first, same, shifted = (MX.summarise(many, m, seed=s)[0] for s in (3, 3, 4))
    boot = ("minutes_per_hand", "level_change_mean", "level_change_sd", "takeover_rate")
    assert first == same
    assert all(shifted[k]["value"] == first[k]["value"] for k in boot)
    assert any((shifted[k]["low"], shifted[k]["high"]) != (first[k]["low"], first[k]["high"]) for k in boot)


def test_bootstrap_match_sums_is_seeded_and_blocked_alike(monkeypatch):
    rng = np.random.default_rng(0)
    sums = rng.integers(1, 9, size=(50, 2)).astype(float)
    a = stats.bootstrap_match_sums(sums, reps=300, seed=11)
    assert np.array_equal(a, stats.bootstrap_match_sums(sums, reps=300, seed=11))
    assert a.shape == (300, 2) and np.all(a[:, 0] > 0)
    # the cluster bootstrap draws the same resamples: its statistic over these sums
    _, boots = stats.cluster_bootstrap(sums, lambda t: t[..., 1] / t[..., 0], 300, 11)
    assert np.array_equal(boots, a[:, 1] / a[:, 0])
    monkeypatch.setattr(stats, "BOOT_CELLS", 50 * 7)  # blocks of 7 resamples: still seeded, same total
    b = stats.bootstrap_match_sums(sums, reps=300, seed=11)
    assert np.array_equal(b, stats.bootstrap_match_sums(sums, reps=300, seed=11))
    assert np.allclose(b.sum(axis=1).mean(), a.sum(axis=1).mean(), rtol=0.05)


def test_wilson_is_deterministic():
    assert wilson(7, 20) == wilson(7, 20)
    assert bootstrap_mean([1, 0, 1, 1], groups=[0, 0, 1, 2], seed=5) == bootstrap_mean(
        [1, 0, 1, 1], groups=[0, 0, 1, 2], seed=5
    )


def test_by_cell_and_variants_argument_for_overrides():
    """A cell's override comes from ``variants``: with the clock off the clock share is null."""
    hands = HANDS + [dict(x, cell="untimed") for x in HANDS]
    matches = MATCHES + [dict(x, cell="untimed") for x in MATCHES]
    untimed = load_variant("school-2016").with_overrides({"match_minutes": 0})
    rows = MX.summarise(
        frame(hands, HAND_SCHEMA), frame(matches, MATCH_SCHEMA), by="cell", variants={"untimed": untimed}
    )
    assert [r["cell"] for r in rows] == ["school-2016", "untimed"]
    assert rows[0]["clock_share"]["value"] == 0.75
    assert rows[1]["clock_share"]["value"] is None and rows[1]["clock_share"]["n"] == 0
    assert "untimed" in rows[1]["clock_share"]["note"]
    assert rows[1]["variant"] == "school-2016"


def test_untimed_variant_has_no_clock_share_and_same_policy_no_skill():
    hands = [dict(x, variant="huizhou", cell="huizhou") for x in HANDS]
    matches = [dict(x, variant="huizhou", cell="huizhou", policy_ns="basic", policy_ew="basic") for x in MATCHES]
    row = MX.summarise(frame(hands, HAND_SCHEMA), frame(matches, MATCH_SCHEMA))[0]
    assert row["clock_share"]["value"] is None and "match_minutes = 0" in row["clock_share"]["note"]
    for key in ("policy_a_win", "n_star"):
        assert row[key]["value"] is None and row[key]["n"] == 0 and "same policy" in row[key]["note"]


def test_unknown_variant_reports_why():
    hands = [dict(x, variant="no-such", cell="no-such") for x in HANDS]
    matches = [dict(x, variant="no-such", cell="no-such") for x in MATCHES]
    row = MX.summarise(frame(hands, HAND_SCHEMA), frame(matches, MATCH_SCHEMA))[0]
    assert row["capture_band_share"]["value"] is None and "variants=" in row["capture_band_share"]["note"]
    assert row["clock_share"]["value"] is None
    assert row["takeover_rate"]["value"] == pytest.approx(4 / 6)


def test_missing_column_is_named():
    with pytest.raises(ValueError, match="minutes"):
        MX.summarise(frame(HANDS, HAND_SCHEMA).drop("minutes"), frame(MATCHES, MATCH_SCHEMA))
    with pytest.raises(ValueError, match="by must be"):
        MX.summarise(frame(HANDS, HAND_SCHEMA), frame(MATCHES, MATCH_SCHEMA), by="run")


# --- the capture's band crossing ------------------------------------------------------------------


@pytest.mark.parametrize(
    "final, capture, crossed",
    [
        (120, 30, True),  # 90-115 declarers +1  ->  120-145 take-over
        (150, 30, True),  # 120-145 take-over +0 ->  150-175 take-over +1
        (145, 20, False),  # 125 and 145: both 120-145
        (100, 5, False),  # 95 and 100: both 90-115, declarers +1
        (60, 30, True),  # 30-55 declarers +3 -> 60-85 +2
        (25, 25, False),  # 0 and 25: both 0-25, the +4 cap
        (115, 0, False),  # no capture, no crossing
    ],
)
def test_school_2016_capture_band_crossing(final, capture, crossed):
    assert MX.capture_crossed(load_variant("school-2016"), final, capture) is crossed


@pytest.mark.parametrize(
    "final, capture, crossed",
    [
        (180, 60, True),  # 120-175 take-over +0 -> 180-235 +1
        (150, 20, False),  # 130 and 150: both take-over +0
        (60, 10, True),  # 5-55 declarers +2 -> 60-115 +1
        (5, 5, True),  # 0 is the big bald +3, 5 is +2
        (115, 55, False),  # 60 and 115: both 60-115 +1
    ],
)
def test_huizhou_capture_band_crossing(final, capture, crossed):
    assert MX.capture_crossed(load_variant("huizhou"), final, capture) is crossed


def test_guangxi_2012_declarers_capture_crosses_down():
    """The declarers' capture (capture_by = either) is negative: 180 -> 120 keeps them on stage."""
    v = load_variant("guangxi-2012")
    assert MX.capture_crossed(v, 120, -60) is True
    assert MX.capture_crossed(v, 80, -10) is False


# --- N* and seat balance ------------------------------------------------------------------------


def test_n_star_monotone_in_p():
    ps = np.linspace(0.501, 0.999, 200)
    values = [MX.n_star(p) for p in ps]
    assert all(a > b for a, b in zip(values, values[1:]))  # a larger edge: fewer matches
    assert MX.n_star(0.5) == math.inf and MX.n_star(1.0) == 0.0
    assert MX.n_star(0.6) == pytest.approx(0.24 / 0.01) and MX.n_star(0.4) == pytest.approx(MX.n_star(0.6))


def test_n_star_majority_reading():
    """At N = N* the stronger side's expected margin is one SD of luck: P(majority) ~ Phi(1)."""
    p = 0.55
    n = round(MX.n_star(p))  # 99
    k = np.arange(n + 1)
    logpmf = (
        np.array([math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) for i in k])
        + k * math.log(p)
        + (n - k) * math.log(1 - p)
    )
    majority = float(np.exp(logpmf[k > n / 2]).sum())
    assert 0.80 < majority < 0.87


def test_n_star_net_without_draws_is_n_star_and_interval_is_bootstrapped():
    wins = [game(i, 5, 50.0, 0, "level", 0, 0, 0, 1) for i in range(18)] + [
        game(18 + i, 5, 50.0, 1, "level", 0, 0, 1, 0) for i in range(2)
    ]
    row = MX.summarise(frame(HANDS, HAND_SCHEMA), frame(wins, MATCH_SCHEMA))[0]
    assert row["n_star"]["value"] == pytest.approx(MX.n_star(0.9)) == pytest.approx(MX.n_star_net(0.9, 0.1))
    assert 0 <= row["n_star"]["low"] < row["n_star"]["value"] < row["n_star"]["high"] and row["n_star"]["n"] == 20
    assert row["pair_draw"]["value"] == 0.0
    # the teams play different policies and no match is swapped: seats cannot be compared
    assert row["seat_balance"]["value"] is None and "different policies" in row["seat_balance"]["note"]


def test_seat_balance_interval_from_wilson_bounds_with_equal_policies():
    wins = [game(i, 5, 50.0, 0, "level", 0, 0, 0, 1, pew="expert") for i in range(18)] + [
        game(18 + i, 5, 50.0, 1, "level", 0, 0, 1, 0, pew="expert") for i in range(2)
    ]
    row = MX.summarise(frame(HANDS, HAND_SCHEMA), frame(wins, MATCH_SCHEMA))[0]
    p = wilson(18, 20)
    assert row["ns_win"]["value"] == pytest.approx(0.9)
    assert row["seat_balance"]["low"] == pytest.approx(MX.balance(p.high))
    assert row["seat_balance"]["high"] == pytest.approx(MX.balance(p.low))


def test_balance():
    assert MX.balance(0.5) == 1.0 and MX.balance(0.0) == 0.0 and MX.balance(1.0) == 0.0
    assert MX.balance(0.25) == MX.balance(0.75) == 0.5


# --- paired comparisons -------------------------------------------------------------------------


def test_paired_difference_on_shared_match_ids():
    a = frame([dict(game(i, 10 + i, 60.0, i % 2, "level", 0, 0, 0, 0), seed=1) for i in range(6)], MATCH_SCHEMA)
    b = frame([dict(game(i, 8 + i + (i % 3), 50.0, 0, "level", 0, 0, 0, 0), seed=1) for i in range(7)], MATCH_SCHEMA)
    est = MX.paired_difference(a, b, "hands")
    diffs = np.array([2 - (i % 3) for i in range(6)], float)  # match 6 has no partner in a
    assert est.n == 6 and est.value == pytest.approx(diffs.mean())
    assert diffs.min() <= est.low <= est.value <= est.high <= diffs.max()  # bootstrap over deals
    assert MX.paired_difference(a.lazy(), b.lazy(), "ns_win").value == pytest.approx(-0.5)
    assert MX.paired_difference(a, b, pl.col("minutes")).value == pytest.approx(10.0)


def test_paired_difference_drops_draws_and_rejects_repeats():
    a = frame([game(0, 1, 1.0, 0, "level", 0, 0, 2, 0), game(1, 1, 1.0, -1, "clock", 0, 0, 1, 1)], MATCH_SCHEMA)
    b = frame([game(0, 1, 1.0, 1, "level", 0, 0, 0, 1), game(1, 1, 1.0, 0, "level", 0, 0, 3, 0)], MATCH_SCHEMA)
    est = MX.paired_difference(a, b, "deficit_overcome")
    assert est.n == 1 and est.value == pytest.approx(1.0)
    with pytest.raises(ValueError, match="repeats"):
        MX.paired_difference(pl.concat([a, a]), b, "hands")


# --- the text table -------------------------------------------------------------------------------


def test_format_summary_side_by_side(row):
    other = dict(row, variant="other")
    text = format_summary([row, other])
    lines = text.splitlines()
    assert "school-2016" in lines[0] and "other" in lines[0]
    for spec in MX.METRICS:
        assert spec.label in text
    takeover = next(line for line in lines if line.startswith("take-over rate"))
    assert takeover.count("n=3") == 2 and takeover.count("[") == 2
    assert "decided matches only" in text
    assert format_cell({"value": None, "low": None, "high": None, "n": 0}) == "n/a"
    assert format_cell({"value": 8.0, "low": 1.5, "high": math.inf, "n": 3}) == "8.000 [1.500, inf] n=3"
    assert format_summary([]) == "no results"


# --- end to end ---------------------------------------------------------------------------------


def test_end_to_end_on_played_matches():
    """30 matches of each of two variants (15 deals, each played with the teams swapped)."""
    hands, matches = [], []
    for vid in ("school-2016", "huizhou"):
        v = load_variant(vid)
        for swapped, (pns, pew) in ((False, ("expert", "basic")), (True, ("basic", "expert"))):
            batch = play_match_batch(v, 5, 0, 15, f"{pns},{pew}")
            tags = dict(run="t", variant=vid, cell=vid, seed=5, policy_ns=pns, policy_ew=pew, swapped=swapped)
            hands.append(hand_frame(batch, start_level=v.start_level, **tags))
            matches.append(match_frame(batch, **tags))
    rows = MX.summarise(pl.concat(hands).lazy(), pl.concat(matches).lazy(), seed=1)
    assert [r["variant"] for r in rows] == ["huizhou", "school-2016"]
    for r in rows:
        assert r["n_matches"] == 30 and r["n_hands"] > 30
        for key in MX.METRIC_KEYS:
            d = r[key]
            if key == "clock_share" and r["variant"] == "huizhou":
                assert d["value"] is None and d["n"] == 0 and d["note"]  # huizhou is untimed
                continue
            assert d["n"] > 0 and d["value"] is not None, (r["variant"], key)
            assert inside(d), (r["variant"], key)
        assert r["policy_a_win"]["note"].startswith("A = expert, B = basic")
    # the pair the policy_* metrics compare, as data (the report names the stronger policy from it)
    assert MX.policy_pairs(pl.concat(matches)) == {"huizhou": ("expert", "basic"), "school-2016": ("expert", "basic")}
    assert MX.summarise(pl.concat(hands), pl.concat(matches), seed=1) == rows
    text = format_summary(rows)
    assert "huizhou" in text and "school-2016" in text


def test_group_without_matches_reports_nulls():
    hands = HANDS + [dict(x, variant="huizhou", cell="huizhou") for x in HANDS]
    rows = MX.summarise(frame(hands, HAND_SCHEMA), frame(MATCHES, MATCH_SCHEMA))
    lone = rows[0]
    assert lone["variant"] == "huizhou" and lone["n_matches"] == 0 and lone["n_hands"] == 6
    assert lone["hands_per_match"] == {"value": None, "low": None, "high": None, "n": 0, "note": "no matches"}
    assert lone["takeover_rate"]["value"] == pytest.approx(4 / 6)
    assert "huizhou" in format_summary(rows)


# --- units: the deal, not the table ----------------------------------------------------------------


def _played(vid, pairs, deals=12, seed=5):
    return played(vid, pairs, deals, seed)


def test_equal_policy_duplicate_tables_are_counted_once():
    """A duplicate run between equal policies: the swapped table is a known copy of the first
    (same deals, same policies, same seats). Counting it would halve every interval's width
    and double n; summarise must give exactly the figures of the single table, with a note."""
    one_h, one_m = _played("school-2016", [(False, ("basic", "basic"))])
    two_h, two_m = _played("school-2016", [(False, ("basic", "basic")), (True, ("basic", "basic"))])
    assert two_m.filter(pl.col("swapped")).drop("swapped").equals(two_m.filter(~pl.col("swapped")).drop("swapped"))
    single = MX.summarise(one_h, one_m, seed=2)[0]
    dup = MX.summarise(two_h, two_m, seed=2)[0]
    assert dup["n_matches"] == 12 and dup["n_deals"] == 12 and "counted once" in dup["note"]
    for key in MX.METRIC_KEYS:
        assert dup[key] == single[key], key
    assert "counted once" in format_summary([dup])
    assert MX.policy_pair(two_m) is None  # both teams play the same policy: no pair to compare


def test_mixed_duplicate_pair_is_one_unit():
    """Expert against basic at both tables of each deal: 24 tables, 12 units."""
    h, m = _played("school-2016", [(False, ("expert", "basic")), (True, ("basic", "expert"))])
    row = MX.summarise(h, m, seed=2)[0]
    assert row["n_matches"] == 24 and row["n_deals"] == 12 and "note" not in row
    for key in (
        "hands_per_match",
        "takeover_rate",
        "level_change_mean",
        "policy_a_win",
        "pair_draw",
        "n_star",
        "clock_share",
        "ns_win",
        "lead_changes",
    ):
        assert row[key]["n"] == 12, key
    three = sum(row[k]["value"] for k in ("policy_a_win", "pair_draw", "policy_b_win"))
    assert three == pytest.approx(1.0)
    # A: the NS policy of an unswapped table, the EW policy of a swapped one (its seat at the first table)
    assert MX.policy_pair(m) == MX.policy_pair(m.filter(pl.col("swapped"))) == ("expert", "basic")
    # a table-level bootstrap (each table its own unit) would be narrower than the deal-level one
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, size=40).astype(float)
    pair = np.repeat(np.arange(20), 2)
    paired = np.repeat(x[:20], 2)  # both tables of a deal alike: 20 units, not 40
    by_deal = stats.cluster_share(paired, pair)
    by_table = wilson(paired.sum(), 40)
    assert by_deal.n == 20 and (by_deal.high - by_deal.low) > (by_table.high - by_table.low)


def test_paired_test_equivalence_and_difference():
    a = frame([dict(game(i, 10 + (i % 2), 60.0, 0, "level", 0, 0, 0, 0), seed=1) for i in range(200)], MATCH_SCHEMA)
    b = frame([dict(game(i, 10 + (i % 2), 60.0, 0, "level", 0, 0, 0, 0), seed=1) for i in range(200)], MATCH_SCHEMA)
    c = frame([dict(game(i, 13 + (i % 3), 60.0, 0, "level", 0, 0, 0, 0), seed=1) for i in range(200)], MATCH_SCHEMA)
    same = MX.paired_test(a, b, "hands", margin=0.5)
    assert same["estimate"].value == 0 and same["p_equivalent"] < 0.05
    far = MX.paired_test(a, c, "hands", margin=0.5)
    assert far["estimate"].value < -2 and far["p"] < 1e-6 and far["p_equivalent"] > 0.5


def test_holm_and_tost():
    adj = stats.holm([0.01, 0.04, 0.03, 0.5])
    assert list(adj) == pytest.approx([0.04, 0.09, 0.09, 0.5])
    assert stats.tost_p(0.0, 0.01, 0.05) < 0.001 and stats.tost_p(0.04, 0.01, 0.05) > 0.1
    assert stats.normal_p(0.0, 1.0) == pytest.approx(1.0) and stats.normal_p(1.96, 1.0) == pytest.approx(0.05, abs=1e-3)


def test_cluster_mean_ci_counts_clusters():
    e = stats.cluster_mean_ci([1, 1, 3, 3, 5, 5], [0, 0, 1, 1, 2, 2])
    f = stats.mean_ci([1, 3, 5])
    assert e.n == 3 and e.value == pytest.approx(3.0)
    assert (e.high - e.low) == pytest.approx(f.high - f.low)  # equal clusters: the t-free mean of cluster means


def test_n_star_interval_is_bca_over_deals():
    """N* is skewed (unbounded as the edge vanishes): its interval is the BCa bootstrap over deals
    (stats.cluster_bootstrap, method bca), not the percentile one."""
    from simsuite.analysis.stats import cluster_bootstrap

    wins = [game(i, 5, 50.0, 0, "level", 0, 0, 0, 1) for i in range(17)] + [
        game(17 + i, 5, 50.0, 1, "level", 0, 0, 1, 0) for i in range(3)
    ]
    row = MX.summarise(frame(HANDS, HAND_SCHEMA), frame(wins, MATCH_SCHEMA))[0]
    a = np.array([1.0 if i < 17 else 0.0 for i in sorted(range(20), key=str)])  # deals in deal_ids' order
    sums = np.column_stack([np.ones(20), a, 1 - a])

    def nstar(t):
        with np.errstate(invalid="ignore", divide="ignore"):
            pa, pb = t[..., 1] / t[..., 0], t[..., 2] / t[..., 0]
            mu = pa - pb
            return np.where(mu == 0, np.inf, np.maximum(pa + pb - mu * mu, 0.0) / np.where(mu == 0, 1.0, mu * mu))

    bca, _ = cluster_bootstrap(sums, nstar, MX.BOOTSTRAP_REPS, 0, method="bca")
    pct, _ = cluster_bootstrap(sums, nstar, MX.BOOTSTRAP_REPS, 0)
    assert row["n_star"]["value"] == pytest.approx(MX.n_star(0.85))
    assert (row["n_star"]["low"], row["n_star"]["high"]) == (bca.low, bca.high)
    # N* is skewed to the right: BCa moves both bounds up (0.23 and 10.1 against 0 and 5.25)
    assert bca.low > pct.low and bca.high > pct.high
    assert "BCa bootstrap over deals" in row["n_star"]["note"]
