"""simsuite calibrate: reference files, the verdict, the measures and the command."""

from __future__ import annotations

import json
import math

import polars as pl
import pytest

from simsuite.analysis import calibrate as C
from simsuite.cli import main
from simsuite.engine.policies.codes import POLICY_NAMES
from simsuite.errors import SimsuiteError
from simsuite.rules.variant import load_variant

GOOD = """
id = "tiny"
title = "a reference for tests"

[source]
repository = "someone/somewhere"
path = "report.md"

[policies]
reference = "their bots"
ours = "one policy at all seats"

[rules]
extends = "two-deck-2011"

[rules.capture]
capture_side_per_card = 2

[[figures]]
measure = "takeover_rate"
value = 0.5
band = [0.4, 0.6]
reason = "because"

[[figures]]
measure = "defender_points_mean"
value = 80.0
tolerance = 5.0
reason = "because"
"""


# a hand cap for GOOD: [population] max_hands = {} (format it), counted as the cap leaves it
CAP = '\n[population]\nmax_hands = {}\ncapped_matches = "counted"\n'


def untimed(text):
    """A reference's rules played untimed, as ejfn's are: the harness plays them to 500 hands."""
    return text.replace(
        "[rules.capture]", "[rules.match]\nmatch_minutes = 0\nno_new_hand_minutes = 0\n\n[rules.capture]"
    )


def write(tmp_path, text, name="ref.toml"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


# --- reference files -----------------------------------------------------------------------------


def test_every_shipped_reference_loads():
    ids = C.known_references()
    assert "ejfn-tractor-2025" in ids
    for ref in C.load_all_references():
        assert ref.figures and all(f.reason for f in ref.figures)
        assert ref.source["repository"] and ref.source["path"]
        for f in ref.figures:
            assert f.low <= f.value <= f.high


def test_ejfn_reference_figures_and_rules():
    ref = C.load_reference("ejfn-tractor-2025")
    assert ref.source["repository"] == "ejfn/Tractor"
    assert ref.source["path"] == "analysis/reports/tractor_performance_report.md"
    fig = {f.measure: f for f in ref.figures}
    assert fig["takeover_rate"].value == pytest.approx(0.544)
    assert fig["defender_points_mean_takeover"].value == pytest.approx(108.9)
    assert fig["defender_points_mean_held"].value == pytest.approx(51.0)
    # the overall mean is derived from the report's three figures
    assert fig["defender_points_mean"].value == pytest.approx(0.544 * 108.9 + 0.456 * 51.0, abs=0.05)
    assert (fig["takeover_rate"].low, fig["takeover_rate"].high) == (0.45, 0.60)  # the reference's tolerance band
    assert ref.skip_final_hold
    # ejfn's harness stops a game after 60 rounds (MAX_ROUNDS_PER_GAME), and a cut game is in no figure
    assert (ref.max_hands, ref.capped_matches) == (60, "left_out")
    # the rules: two-deck-2011 with only the fields where ejfn/Tractor differs
    base, v = load_variant("two-deck-2011"), ref.variant
    changed = {k for k, x in v.rules_dict().items() if base.rules_dict()[k] != x}
    assert changed == {
        "must_defend_end_level",
        "link_off_level_trump_ace",
        "capture_side_per_card",
        "match_minutes",
        "no_new_hand_minutes",
    }
    assert (v.decks, v.bottom_size, v.takeover, v.step, v.takeover_bonus, v.zero_bonus) == (2, 8, 80, 40, 0, 3)
    assert (
        v.capture_by,
        v.capture_with,
        v.capture_scheme,
        v.capture_per_card,
        v.capture_side_per_card,
        v.capture_base,
    ) == ("defenders", "any", "per_card", 2, 2, 0)


def test_a_reference_by_path(tmp_path):
    ref = C.load_reference(write(tmp_path, GOOD))
    assert ref.id == "tiny" and ref.variant.capture_side_per_card == 2 and ref.extends == "two-deck-2011"
    assert [(f.low, f.high) for f in ref.figures] == [(0.4, 0.6), (75.0, 85.0)]


@pytest.mark.parametrize(
    "change, needle",
    [
        (lambda t: t.replace('measure = "takeover_rate"', 'measure = "takeover"'), "measure must be one of"),
        (lambda t: t.replace("band = [0.4, 0.6]\n", ""), "give a tolerance as band"),
        (lambda t: t.replace("band = [0.4, 0.6]", "band = [0.4, 0.6]\ntolerance = 0.1"), "exactly one"),
        (lambda t: t.replace("band = [0.4, 0.6]", "band = [0.6, 0.4]"), "low < high"),
        (lambda t: t.replace("value = 0.5", "value = 0.7"), "outside its own band"),
        (lambda t: t.replace("value = 0.5", "value = 54.4").replace("[0.4, 0.6]", "[45, 60]"), "a share is a fraction"),
        (lambda t: t.replace("tolerance = 5.0", "tolerance = -5.0"), "tolerance must be a positive number"),
        (lambda t: t.replace('reason = "because"', 'reason = ""', 1), "reason must say why"),
        (lambda t: t.replace('extends = "two-deck-2011"', 'extends = "nowhere"'), "unknown variant id"),
        (lambda t: t.replace('extends = "two-deck-2011"\n', ""), "extends must name"),
        (
            lambda t: t.replace("capture_side_per_card = 2", "capture_side_per_cards = 2"),
            "[rules] unknown key [capture]",
        ),
        (
            lambda t: t.replace("capture_side_per_card = 2", "bottom_size = 7"),
            "[rules] key 'bottom_size' belongs in [deal]",
        ),
        (
            lambda t: t.replace("[rules.capture]", "[rules.deal]").replace(
                "capture_side_per_card = 2", "bottom_size = 7"
            ),
            "does not divide the deal evenly",
        ),
        (
            lambda t: t.replace('repository = "someone/somewhere"\n', ""),
            "[source] repository must be a non-empty string",
        ),
        (lambda t: t + '\ncolour = "red"\n', "unknown key 'colour'"),
        (lambda t: t.split("[[figures]]")[0], "[[figures]] is missing"),
        (lambda t: t.replace('measure = "defender_points_mean"', 'measure = "takeover_rate"'), "appears twice"),
        (lambda t: t + '\n[population]\nskip_final_hold = "yes"\n', "skip_final_hold must be true or false"),
        (lambda t: t.replace('title = "a reference for tests"', "title = 3"), "title must be a non-empty string"),
        (
            lambda t: t + CAP.format(26),
            "[population] max_hands must be a whole number of hands from 1 to 25 (the harness "
            "plays these rules to 25); got 26",
        ),  # two-deck-2011's 90-minute clock
        (
            lambda t: untimed(t) + CAP.format(0),
            "[population] max_hands must be a whole number of hands from 1 to 500 "
            "(the harness plays these rules to 500); got 0",
        ),
        (lambda t: untimed(t) + CAP.format(-3), "[population] max_hands must be a whole number of hands from 1 to 500"),
        (
            lambda t: untimed(t) + CAP.format(501),
            "max_hands must be a whole number of hands from 1 to 500 (the harness plays these rules to 500); got 501",
        ),
        (
            lambda t: untimed(t) + CAP.format(2.5),
            "[population] max_hands must be a whole number of hands from 1 to 500 "
            "(the harness plays these rules to 500); got 2.5",
        ),
        (
            lambda t: untimed(t) + CAP.format("true"),
            "[population] max_hands must be a whole number of hands from 1 to 500 "
            "(the harness plays these rules to 500); got True",
        ),
        (
            lambda t: untimed(t) + CAP.format('"60"'),
            "max_hands must be a whole number of hands from 1 to 500 (the harness plays these rules to 500); got '60'",
        ),
        (
            lambda t: t + CAP.format(60).replace('capped_matches = "counted"', 'capped_matches = "dropped"'),
            "[population] capped_matches must be one of left_out, counted; got 'dropped'",
        ),
        (
            lambda t: t + CAP.format(60).replace('capped_matches = "counted"\n', ""),
            "[population] capped_matches must say how the reference counts a match cut at max_hands: left_out or counted",
        ),
        (lambda t: t + "\n[population]\nmax_hand = 60\n", "[population] unknown key 'max_hand'"),
        (lambda t: t.replace("[[figures]]", "[[figures", 1), "not valid TOML"),
    ],
)
def test_a_bad_reference_file_names_its_problem(tmp_path, change, needle):
    p = write(tmp_path, change(GOOD))
    with pytest.raises(SimsuiteError) as exc:
        C.load_reference(p)
    msg = str(exc.value)
    assert needle in msg and str(p) in msg
    assert "\n" not in msg  # one line, however many problems


def test_every_problem_is_listed(tmp_path):
    text = GOOD.replace("value = 0.5", 'value = "half"').replace("tolerance = 5.0", "tolerance = 0")
    with pytest.raises(SimsuiteError, match="2 problems: .*value must be a number.*tolerance must be a positive"):
        C.load_reference(write(tmp_path, text))


def test_unknown_reference_lists_the_known_ones():
    with pytest.raises(SimsuiteError, match="unknown reference 'nope'; known references: .*ejfn-tractor-2025"):
        C.load_reference("nope")


# --- the verdict ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "low, high, expected",
    [
        (0.50, 0.55, "inside"),
        (0.45, 0.60, "inside"),  # the edges belong to the band
        (0.61, 0.70, "outside"),  # wholly above
        (0.30, 0.44, "outside"),  # wholly below
        (0.58, 0.62, "undecided"),  # crosses the upper edge
        (0.40, 0.50, "undecided"),  # crosses the lower edge
        (0.40, 0.65, "undecided"),  # wider than the band
        (math.nan, math.nan, "undecided"),
    ],
)
def test_verdict_follows_the_interval(low, high, expected):
    assert C.verdict(low, high, 0.45, 0.60) == expected


# --- the measures on hands built by hand -----------------------------------------------------------


def _frames():
    # match 0: 3 hands, ended at the end level by a hold (its last hand); match 1: 2 hands, hand cap
    hands = pl.DataFrame(
        {
            "match": [0, 0, 0, 1, 1],
            "hand": [0, 1, 2, 0, 1],
            "final_points": [100, 40, 20, 120, 60],
            "takeover": [True, False, False, True, False],
        }
    )
    matches = pl.DataFrame({"match": [0, 1], "hands": [3, 2], "ended_by": ["level", "hand cap"]})
    return hands, matches


def test_measures_are_ratios_over_the_counted_hands():
    hands, matches = _frames()
    all_ = C.measure(hands, matches, reps=200)
    assert all_["takeover_rate"].value == pytest.approx(2 / 5) and all_["takeover_rate"].hands == 5
    assert all_["defender_points_mean"].value == pytest.approx(340 / 5)
    assert all_["defender_points_mean_takeover"].value == pytest.approx(110)
    assert all_["defender_points_mean_takeover"].hands == 2
    assert all_["defender_points_mean_held"].value == pytest.approx(40) and all_["defender_points_mean_held"].hands == 3
    assert all_["hands_per_match"].value == pytest.approx(2.5) and all_["hands_per_match"].hands == 5
    for est in all_.values():
        assert est.low <= est.value <= est.high
    skip = C.measure(hands, matches, skip_final_hold=True, reps=200)
    assert skip["takeover_rate"].value == pytest.approx(2 / 4) and skip["takeover_rate"].hands == 4
    assert skip["defender_points_mean_held"].value == pytest.approx(50)
    assert skip["hands_per_match"].value == pytest.approx(2.0)
    assert C.counted_hands(hands, matches, True).height == 4


def test_every_interval_names_the_matches_it_resamples_not_the_hands():
    """n is the resampling unit (matches), whatever the hands a figure averages over."""
    hands, matches = _frames()
    for est in C.measure(hands, matches, reps=200).values():
        assert (est.n, est.n_unit) == (2, "matches")
    assert C.measure(hands, matches, reps=200)["takeover_rate"].hands == 5


def test_a_match_the_cap_stopped_is_left_out_or_counted_as_the_reference_says():
    hands, matches = _frames()  # match 1 ended by the hand cap
    left = C.measure(hands, matches, capped_matches="left_out", reps=200)
    assert left["takeover_rate"].value == pytest.approx(1 / 3) and left["takeover_rate"].hands == 3
    assert left["hands_per_match"].value == pytest.approx(3.0) and left["hands_per_match"].n == 1
    assert C.counted_hands(hands, matches, False, "left_out")["match"].unique().to_list() == [0]
    assert C.counted_hands(hands, matches, True, "left_out").height == 2  # and match 0's final hold
    counted = C.measure(hands, matches, capped_matches="counted", reps=200)
    assert counted["takeover_rate"].hands == 5 and counted["hands_per_match"].n == 2


def test_cutting_at_the_cap_gives_exactly_the_hands_a_capped_match_plays():
    """calibrate plays the harness's matches cut at the reference's cap: the same hands, hand for
    hand, as the engine playing with that cap (the cap only stops the loop)."""
    from simsuite.sim.match import play_match_batch
    from simsuite.sim.schema import hand_frame, match_frame

    v = C.load_reference("ejfn-tractor-2025").variant
    tags = dict(run="r", variant=v.id, cell="c", seed=4, policy_ns="basic", policy_ew="basic", swapped=False)

    def frames(cap):
        b = play_match_batch(v, 4, 0, 6, "basic,basic", max_hands=cap)
        return hand_frame(b, start_level=v.start_level, **tags), match_frame(b, **tags)

    for cap in (3, 25):
        whole_h, whole_m = frames(None)
        capped_h, capped_m = frames(cap)
        cut_h, cut_m = C.cut_matches(whole_h, whole_m, cap)
        assert cut_h.equals(capped_h)
        assert cut_m.equals(capped_m.select(cut_m.columns))
        assert cut_m["hands"].max() <= cap < whole_m["hands"].max()
    assert (cut_m["ended_by"] == "hand cap").sum() == (whole_m["hands"] > 25).sum() > 0


def test_one_match_gives_no_interval_and_so_no_verdict():
    hands, matches = _frames()
    one = C.measure(hands.filter(pl.col("match") == 0), matches.filter(pl.col("match") == 0), reps=50)
    assert math.isnan(one["takeover_rate"].low)
    assert C.verdict(one["takeover_rate"].low, one["takeover_rate"].high, 0, 1) == "undecided"


# --- policies and the command ----------------------------------------------------------------------


def test_every_built_in_policy_is_accepted():
    for name in POLICY_NAMES:
        assert C.check_policy(name) == name


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["--reference", "nope"], "unknown reference 'nope'"),
        (["--policy", "strong"], "unknown policy 'strong'"),
        (["--policy", "expert,basic"], "--policy takes one policy name"),
        (["--hands", "0"], "--hands must be at least 1; got 0"),
        (["--hands", "lots"], "--hands must be an integer; got 'lots'"),
        (["--seed", "-1"], "--seed must be at least 0; got -1"),
        (["--jobs", "0"], "--jobs must be a positive number of workers or -1"),
        (["--jobs", "2.5"], "--jobs must be an integer; got '2.5'"),
    ],
)
def test_bad_calibrate_input_is_one_line(capsys, argv, needle):
    assert main(["calibrate", *argv]) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1 and err.startswith("simsuite calibrate: error:")


def test_a_bad_reference_file_through_the_command(capsys, tmp_path):
    p = write(tmp_path, GOOD.replace("band = [0.4, 0.6]", "band = [0.4]"))
    assert main(["calibrate", "--reference", str(p)]) == 2
    err = capsys.readouterr().err
    assert "band must be [low, high]" in err and err.count("\n") == 1


def test_calibrate_json_on_a_small_sample(capsys, tmp_path):
    p = write(tmp_path, GOOD)
    assert (
        main(["calibrate", "--reference", str(p), "--policy", "random", "--hands", "150", "--seed", "3", "--json"]) == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["reference"] == "tiny" and data["policy"] == "random" and data["hands_played"] >= 100
    assert [f["measure"] for f in data["figures"]] == ["takeover_rate", "defender_points_mean"]
    for f in data["figures"]:
        o = f["ours"]
        assert o["low"] <= o["value"] <= o["high"] and o["n"] > 0
        assert (o["n"], o["n_unit"]) == (data["matches_counted"], "matches")  # n: what the interval resamples
        assert f["verdict"] == C.verdict(o["low"], o["high"], *f["band"])
    assert data["figures"][0]["ours"]["hands"] == data["hands_counted"]
    # no cap in the reference: the harness's (two-deck-2011's clock allows 25 hands), said so
    assert (data["max_hands"], data["max_hands_from"], data["capped_matches"]) == (25, "harness", "counted")
    # the same seed gives the same figures, whatever --jobs
    again = C.run(str(p), policy="random", hands=150, seed=3, jobs=2)[0]
    assert again["figures"] == data["figures"]


def test_calibrate_text_names_the_reference_and_the_verdicts(capsys, tmp_path):
    p = write(tmp_path, GOOD)
    assert main(["calibrate", "--reference", str(p), "--policy", "basic", "--hands", "100"]) == 0
    out = capsys.readouterr().out
    assert "tiny: a reference for tests" in out and "someone/somewhere report.md" in out
    assert "takeover_rate" in out and "ours [95% interval]" in out
    assert any(v in out for v in C.VERDICTS)
    assert "n (resampled)" in out and "n = the matches an interval resamples" in out
    assert "cap: 25 hands a match (the harness's cap; the reference states none)" in out
    rows = [line for line in out.splitlines() if line.startswith(("takeover_rate", "defender_points_mean "))]
    assert len(rows) == 2 and all(" matches " in row for row in rows)


def test_calibrate_plays_the_reference_cap(capsys, tmp_path):
    """A reference with a 3-hand cap: every match is stopped at 3 hands (no match of these rules ends
    sooner), so no match in the figures is longer than 3 hands; the harness's 500 would give ~30."""
    p = write(
        tmp_path,
        untimed(GOOD) + CAP.format(3) + '\n[[figures]]\nmeasure = "hands_per_match"\nvalue = 3.0\n'
        'tolerance = 1.0\nreason = "because"\n',
    )
    assert (
        main(["calibrate", "--reference", str(p), "--policy", "basic", "--hands", "120", "--seed", "2", "--json"]) == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert (data["max_hands"], data["max_hands_from"], data["capped_matches"]) == (3, "reference", "counted")
    assert data["matches_capped"] == data["matches"] == data["matches_counted"] >= 2
    assert data["hands_played"] == data["hands_counted"] == 3 * data["matches"]
    length = data["figures"][-1]["ours"]
    assert length["value"] == pytest.approx(3.0) and length["high"] <= 3.0 + 1e-9
    assert main(["calibrate", "--reference", str(p), "--policy", "basic", "--hands", "120", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    cap_line = (
        f"cap: 3 hands a match (the reference's [population] max_hands); {data['matches']} of "
        f"{data['matches']} matches reached it, counted with the hands it played up to the cap, "
        "as the reference counts them"
    )
    assert cap_line in out


def test_a_capped_match_left_out_is_in_no_figure(capsys, tmp_path):
    """capped_matches = "left_out": with a cap no match can meet, every match would be left out; that
    is refused, naming the cap, instead of a table of empty figures with exit 0."""
    p = write(tmp_path, untimed(GOOD) + CAP.format(3).replace('"counted"', '"left_out"'))
    with pytest.raises(
        SimsuiteError,
        match=r"max_hands = 3: all \d+ matches played reached the cap and the reference "
        r"leaves such matches out",
    ):
        C.run(str(p), policy="basic", hands=60, seed=2)


def test_the_command_to_play_a_calibration_again_names_the_file_it_read(tmp_path):
    """A reference read from a path is replayed from that path; its id alone named a shipped file
    or none (--reference mine: unknown reference)."""
    ref = C.load_reference("ejfn-tractor-2025")
    assert C._command(ref, "basic", 10, 1, 1).startswith("simsuite calibrate --reference ejfn-tractor-2025 ")
    mine = tmp_path / "my ref.toml"
    mine.write_text(ref.path.read_text())
    other = C.load_reference(str(mine))
    assert C._command(other, "basic", 10, 1, 1).startswith(f"simsuite calibrate --reference '{mine}' ")
