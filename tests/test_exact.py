"""The exact match model (simsuite/analysis/exact/): the chain solver against hand-computed answers and
against a Monte Carlo walk of the same chain; the model against simulated matches; the CLI."""

from __future__ import annotations

import bisect
import dataclasses
import json

import numpy as np
import polars as pl
import pytest

from simsuite.analysis import exact as X
from simsuite.analysis.exact import chain as C
from simsuite.analysis.exact import codes
from simsuite.analysis.exact import model as M
from simsuite.cli import main
from simsuite.report.exact_text import format_level_check, validation_table
from simsuite.rules.variant import load_variant


def table(rows, first=False):
    """rows: (gain_d, gain_f, switch, dur_steps, a_declares, prob)."""
    a = np.array(rows, dtype=float)
    return X.Table(
        a[:, 0].astype(int),
        a[:, 1].astype(int),
        a[:, 2].astype(bool),
        a[:, 3].astype(int),
        a[:, 4].astype(bool),
        a[:, 5] / a[:, 5].sum(),
    )


def tables(first, a_rows, b_rows):
    return {
        ("first",): table(first),
        (True, False): table(a_rows),
        (True, True): table(a_rows),
        (False, False): table(b_rows),
        (False, True): table(b_rows),
    }


def rules(**kw):
    base = dict(
        start=2,
        end=4,
        must_defend=False,
        special=(),
        match_x100=0,
        warn_x100=0,
        after_warn=0,
        no_new_x100=0,
        on_stage=False,
        rotate=False,
        overhead_x100=0,
        spt_x100=0,
        cap=500,
        step=100,
    )
    base.update(kw)
    return X.Rules(**base)


def test_one_hand_decides_a_coin_flip():
    """The first declarers gain 3 levels and pass the end at once: A wins when A declares first."""
    t = tables([(3, 0, 0, 1, 1, 0.3), (3, 0, 0, 1, 0, 0.7)], [(1, 0, 0, 1, 0, 1)], [(1, 0, 0, 1, 0, 1)])
    sol = X.solve(t, rules())
    assert sol.p_a == pytest.approx(0.3) and sol.p_b == pytest.approx(0.7) and sol.p_draw == 0
    assert sol.hands_mean == pytest.approx(1.0) and sol.lead_changes == 0


def test_clock_draw_and_on_stage():
    """No level ever changes; every hand takes 30 minutes of a 90-minute match: 3 hands, a draw,
    or under the on-stage rule the team declaring next wins."""
    t = tables([(0, 0, 1, 30, 1, 1)], [(0, 0, 1, 30, 0, 1)], [(0, 0, 1, 30, 0, 1)])
    sol = X.solve(t, rules(match_x100=9000))
    assert sol.p_draw == pytest.approx(1.0) and sol.hands_mean == pytest.approx(3.0)
    assert sol.clock_share == pytest.approx(1.0) and sol.minutes_mean == pytest.approx(90.0)
    # A declares hand 1, B hand 2, A hand 3: the deal passes to B after hand 3
    staged = X.solve(t, rules(match_x100=9000, on_stage=True))
    assert staged.p_b == pytest.approx(1.0)


def test_exact_time_counts_tricks_like_the_engine():
    """step 0: the time coordinate counts tricks; a hand lasts overhead + tricks x seconds per trick
    / 60 (here 10 min + 30 tricks at 1 s = 10.5 min): a 30-minute match plays 3 hands, 31.5 minutes."""
    t = tables([(0, 0, 1, 30, 1, 1)], [(0, 0, 1, 30, 0, 1)], [(0, 0, 1, 30, 0, 1)])
    sol = X.solve(t, rules(match_x100=3000, overhead_x100=1000, spt_x100=100, step=0))
    assert sol.hands_mean == pytest.approx(3.0) and sol.minutes_mean == pytest.approx(31.5)
    assert sol.minutes_dist == {31.5: pytest.approx(1.0)}
    # a warning at 20 minutes falls during hand 2 (10.5-21 min); one more hand after it: 3 hands
    warned = X.solve(t, rules(match_x100=3000, warn_x100=2000, after_warn=1, overhead_x100=1000, spt_x100=100, step=0))
    assert warned.hands_mean == pytest.approx(3.0)


def _walk(t, r, n, seed=0):
    """A Monte Carlo walk of the same chain, written plainly (the engine's match loop). A hand's
    outcome is drawn as ``rng.choice(outcomes, p=prob)`` draws it, from one uniform: the first
    outcome whose cumulative probability (scaled to end at 1) exceeds it. The uniforms are drawn in
    batches, the same numbers in the same order, and each table is read as Python lists, so a
    hand costs no numpy call."""
    rng = np.random.default_rng(seed)

    def batches():
        while True:
            yield from rng.random(4096).tolist()

    uniforms = batches()
    read = {}
    for key, tb in t.items():
        cdf = tb.prob.cumsum()
        cdf /= cdf[-1]
        read[key] = (
            cdf.tolist(),
            list(zip(tb.gain_d.tolist(), tb.gain_f.tolist(), tb.switch.tolist(), tb.dur.tolist(), tb.a_decl.tolist())),
        )
    res = np.zeros(3)
    hands = minutes = leads = 0.0
    for _ in range(n):
        lv = [r.start, r.start]
        d, tm, warned, leader, h = 0, 0, -1, -1, 0
        while True:
            if r.cap and h >= r.cap:
                break
            if r.match_x100:
                if r.no_new_x100 and tm * r.step >= r.match_x100 - r.no_new_x100:
                    break
                if r.warn_x100:
                    if warned == 0:
                        break
                elif tm * r.step >= r.match_x100:
                    break
            cdf, outcomes = read[("first",)] if h == 0 else read[(d == 0, False)]
            gain_d, gain_f, switch, dur, a_decl = outcomes[bisect.bisect_right(cdf, next(uniforms))]
            if h == 0:
                d = 0 if a_decl else 1
            g = [0, 0]
            g[d], g[1 - d] = gain_d, gain_f
            for team in (0, 1):
                new = lv[team] + g[team]
                if r.must_defend and new > r.end and not (team == d and lv[team] == r.end):
                    new = r.end
                lv[team] = new
            if switch:
                d = 1 - d
            tm += dur
            h += 1
            if lv[0] != lv[1]:
                ahead = 0 if lv[0] > lv[1] else 1
                if leader >= 0 and ahead != leader:
                    leads += 1
                leader = ahead
            if lv[0] > r.end or lv[1] > r.end:
                break
            if r.match_x100 and r.warn_x100:
                if warned > 0:
                    warned -= 1
                elif warned < 0 and tm * r.step >= r.warn_x100:
                    warned = r.after_warn
        hands += h
        minutes += tm * r.step / 100
        if lv[0] != lv[1]:
            res[0 if lv[0] > lv[1] else 2] += 1
        elif r.on_stage:
            res[0 if d == 0 else 2] += 1
        else:
            res[1] += 1
    return res / n, hands / n, minutes / n, leads / n


@pytest.mark.parametrize(
    "kw",
    [
        dict(match_x100=9000, warn_x100=8000, after_warn=1),
        dict(match_x100=6000, no_new_x100=800, must_defend=True),
        dict(end=6),
        dict(match_x100=9000, on_stage=True, rotate=True),
        # a warning and a no-new-hand cut-off together: whichever comes first ends the match (engine/match.py)
        dict(match_x100=9000, warn_x100=2500, after_warn=1, no_new_x100=3000),
    ],
)
def test_solver_matches_a_walk_of_the_same_chain(kw):
    first = [(1, 0, 0, 12, 1, 0.3), (0, 1, 1, 15, 1, 0.2), (2, 0, 0, 14, 0, 0.3), (0, 0, 1, 13, 0, 0.2)]
    a = [(1, 0, 0, 12, 0, 0.35), (2, 0, 0, 14, 0, 0.1), (0, 0, 1, 16, 0, 0.35), (0, 1, 1, 15, 0, 0.2)]
    b = [(1, 0, 0, 12, 0, 0.25), (3, 0, 0, 11, 0, 0.05), (0, 0, 1, 16, 0, 0.45), (0, 2, 1, 13, 0, 0.25)]
    t = tables(first, a, b)
    r = rules(**kw)
    sol = X.solve(t, r)
    assert sol.p_a + sol.p_draw + sol.p_b == pytest.approx(1.0, abs=1e-9)
    n = 6000
    res, hands, minutes, leads = _walk(t, r, n)
    for exact, walk in zip((sol.p_a, sol.p_draw, sol.p_b), res):
        assert abs(exact - walk) < 4.5 * np.sqrt(max(exact * (1 - exact), 1e-4) / n)
    assert hands == pytest.approx(sol.hands_mean, rel=0.03)
    assert minutes == pytest.approx(sol.minutes_mean, rel=0.03)
    assert leads == pytest.approx(sol.lead_changes, abs=0.05)
    assert 0 <= sol.drama <= 1 and 0 <= sol.decisive_share <= 1


def test_warning_countdown_ends_a_match_that_also_has_a_no_new_hand_cutoff():
    """engine/match.py checks the no-new-hand cut-off first, then (not instead) the warning's
    countdown: a state whose countdown has run out ends the match even before the cut-off."""
    r = rules(match_x100=9000, warn_x100=2000, after_warn=1, no_new_x100=3000, step=100)
    n = np.array([2, 2, 2])
    codes = X.encode_states(n, n, np.zeros(3, int), np.full(3, -1), np.array([0, 1, -1]), np.array([25, 25, 61]))
    # countdown out at 25 min: ended; one hand left: plays; before the warning but past 60 min: ended
    assert C._ended(codes, r, 3).tolist() == [True, False, True]


def test_batched_solve_equals_one_solve_per_resample():
    """solve_batch (the bootstrap's solver) gives every column solve's figures."""
    first = [(1, 0, 0, 12, 1, 0.3), (0, 1, 1, 15, 1, 0.2), (2, 0, 0, 14, 0, 0.3), (0, 0, 1, 13, 0, 0.2)]
    a = [(1, 0, 0, 12, 0, 0.35), (2, 0, 0, 14, 0, 0.1), (0, 0, 1, 16, 0, 0.35), (0, 1, 1, 15, 0, 0.2)]
    b = [(1, 0, 0, 12, 0, 0.25), (3, 0, 0, 11, 0, 0.05), (0, 0, 1, 16, 0, 0.45), (0, 2, 1, 13, 0, 0.25)]
    t = tables(first, a, b)
    for r in (rules(match_x100=9000, warn_x100=8000, after_warn=1), rules(end=6)):
        chain = X.Chain(t, r)
        X.solve(chain.tables, r, chain=chain)
        rng = np.random.default_rng(1)
        cols = []
        for _ in range(3):
            tb = {k: dataclasses.replace(v, prob=rng.dirichlet(np.ones(v.prob.size))) for k, v in chain.tables.items()}
            cols.append(tb)
        prob = np.column_stack([chain.probabilities(tb) for tb in cols])
        batch = X.solve_batch(chain, prob)
        # the bootstrap's chain, without the times no figure of solve_batch needs: the same figures
        fast = X.Chain(t, r, times=False)
        assert fast.times is (r.warn_x100 == 0)
        quick = X.solve_batch(fast, prob)
        for i, tb in enumerate(cols):
            one = M._figures(X.solve(tb, r, chain=chain))
            for key, v in one.items():
                if v is not None:
                    assert batch[key][i] == pytest.approx(v, abs=1e-9), (key, i)
                    assert quick[key][i] == pytest.approx(v, abs=1e-9), (key, i)
        if not fast.times:
            fast.hand(len(chain.hands) - 1)
            assert sum(c.size for c in fast.codes) < sum(c.size for c in chain.codes)
            with pytest.raises(ValueError, match="times"):
                X.solve(t, r, chain=fast)


def test_point_levels_get_their_own_table_in_the_chain():
    """With the point-card levels modelled apart, the declaring team's level picks the table: +1 a hand
    at plain levels, +3 at the 5 (rank 3): 2 -> 3 -> 4 -> 5 -> past 7 in 4 hands, against 6 pooled."""
    t = tables([(1, 0, 0, 1, 1, 1)], [(1, 0, 0, 1, 0, 1)], [(1, 0, 0, 1, 0, 1)])
    t[(True, 2)] = t[(False, 2)] = table([(3, 0, 0, 1, 0, 1)])
    r = rules(start=0, end=5)
    assert X.solve(t, r).hands_mean == pytest.approx(6.0)
    assert X.solve(t, dataclasses.replace(r, point_levels=X.POINT_LEVELS)).hands_mean == pytest.approx(4.0)


def _hand_data(n_deals=150, point_net=None, b_declares=True, seed=0):
    """Synthetic hands: per deal a first hand and six more, team A declaring them (and team B every
    other one if ``b_declares``); at the point-card levels the declarers gain ``point_net`` levels, at
    the others (and at all levels where it is None) 1 or 0, half each, at random."""
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(n_deals):
        for h in range(7):
            a_decl = True if (h == 0 or not b_declares) else bool(h % 2)
            level = int(rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]))
            pt = level in X.POINT_LEVELS and h > 0
            gain = point_net if pt and point_net is not None else int(rng.integers(0, 2))
            rows.append((d, h == 0, a_decl, level, gain, 0 if gain else 1, gain == 0))
    a = np.array(rows, dtype=object)
    col = lambda i, t: np.array(a[:, i].tolist(), dtype=t)  # noqa: E731
    return X.HandData(
        "expert",
        "basic",
        col(0, int),
        col(1, bool),
        col(2, bool),
        col(3, int),
        np.zeros(len(rows), int),
        np.full(len(rows), 25),
        col(4, int),
        col(5, int),
        col(6, bool),
        n_deals,
    )


def test_level_check_by_the_delta_method_agrees_with_its_bootstrap():
    """``reps=0`` (what the design uses): the same test with the delta method's SE over deals; the
    same decisions as 2,000 resamples, and SEs within 15% of the bootstrap's."""
    r = rules()
    for data in (_hand_data(point_net=3), _hand_data(seed=2), _hand_data(seed=4)):
        boot, delta = X.level_check(data, r), X.level_check(data, r, reps=0)
        assert boot["separate"] == delta["separate"]
        for team in ("A", "B"):
            for key in ("net_levels", "deal_passes"):
                b, d = boot["teams"][team][key], delta["teams"][team][key]
                assert d["value"] == pytest.approx(b["value"]) and d["n"] == b["n"]
                if b["high"] > b["low"]:
                    assert 0.85 < (d["high"] - d["low"]) / (b["high"] - b["low"]) < 1.15, (team, key, b, d)


def test_level_check_models_point_levels_apart_only_where_they_differ():
    """Hands at 5, 10 and K that gain 3 levels where the others gain 0 or 1: the check finds the
    difference (with n and interval) and the chain gets tables of their own; hands that fall alike
    are pooled."""
    r = rules()
    differ = X.level_check(_hand_data(point_net=3), r, reps=1000)
    assert differ["separate"] and differ["levels"] == ["5", "10", "K"]
    a = differ["teams"]["A"]["net_levels"]
    assert a["n"] == 150 and a["low"] > 2 and a["p_holm"] < 0.05
    alike = X.level_check(_hand_data(seed=2), r, reps=1000)
    assert not alike["separate"] and "all plain levels pooled" in format_level_check(alike)
    same = X.level_check(
        X.HandData(**{**dataclasses.asdict(_hand_data(seed=3)), "level": np.zeros(150 * 7, int)}), r, reps=1000
    )
    assert not same["separate"] and "not tested" in same["teams"]["A"]["note"]
    assert alike["teams"]["B"]["net_levels"]["n"] == 150
    d = X.outcome_design(_hand_data(point_net=3), dataclasses.replace(r, point_levels=X.POINT_LEVELS))
    assert d.tables[(True, 2)].gain_d.tolist() == [3] and d.tables[(True, 0)].gain_d.tolist() == [0, 1]
    assert "levels 5/10/K" in format_level_check(differ) and "their own tables" in format_level_check(differ)


def test_a_team_that_never_declared_after_the_first_hand_is_a_stated_assumption():
    """Its outcome tables are borrowed from the other team, and the result says so (text and JSON)."""
    d = X.outcome_design(_hand_data(b_declares=False), rules())
    assert d.tables[(False, 0)] is d.tables[(True, 0)]
    assert len(d.assumptions) == 1 and "team B (basic) never declared after the first hand" in d.assumptions[0]
    both = X.outcome_design(_hand_data(), rules())
    assert both.assumptions == []


def test_default_resamples_are_at_least_a_thousand_and_fewer_are_labelled_rough(run, capsys):
    from simsuite.cli import _parser

    assert X.DEFAULT_REPS >= 1000 and X.MIN_REPS >= 1000
    assert _parser().parse_args(["exact", "somewhere"]).reps >= 1000
    assert main(["exact", str(run), "--reps", "20", "--cell", "huizhou"]) == 0
    assert "ROUGH INTERVALS: 20 resamples, fewer than 1,000" in capsys.readouterr().out


@pytest.fixture(scope="module")
def both_cutoffs(tmp_path_factory):
    out = tmp_path_factory.mktemp("exact") / "both"
    assert (
        main(
            [
                "simulate",
                "--variant",
                "school-2016",
                "--set",
                "warning_minute=20",
                "--set",
                "no_new_hand_minutes=30",
                "--policies",
                "basic,basic",
                "--matches",
                "40",
                "--seed",
                "17",
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    return out


def test_exact_hands_per_match_with_a_warning_and_a_no_new_hand_cutoff(both_cutoffs):
    """school-2016 with a warning at 20 minutes and no new hand after 30 minutes before the end:
    simulated matches last 3 hands, about 45 minutes; the chain that ignored the warning gave 4.5."""
    from simsuite.sim.results import load

    r = load(both_cutoffs)
    v = r.variants()["school-2016"]
    h, m = r.hands.collect(), r.matches.collect()
    res = X.exact_model(h, m, v, reps=0)["figures"]
    assert m["hands"].mean() == pytest.approx(3.0, abs=0.05)
    assert res["hands_mean"]["value"] == pytest.approx(m["hands"].mean(), abs=0.05)
    assert res["minutes_mean"]["value"] == pytest.approx(m["minutes"].mean(), abs=1.0)


# --- on simulated hands ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("exact") / "run"
    assert (
        main(
            [
                "simulate",
                "--variant",
                "school-2016",
                "--variant",
                "huizhou",
                "--policies",
                "expert,basic",
                "--matches",
                "120",
                "--duplicate",
                "--seed",
                "3",
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    return out


@pytest.fixture(scope="module")
def other_seed(tmp_path_factory):
    out = tmp_path_factory.mktemp("exact") / "other"
    assert (
        main(
            [
                "simulate",
                "--variant",
                "school-2016",
                "--policies",
                "expert,basic",
                "--matches",
                "120",
                "--duplicate",
                "--seed",
                "5",
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    return out


def test_validation_is_out_of_sample_and_tests_equivalence(run, other_seed):
    """The model of seed 3's hands against matches of seed 5: every compared figure carries its
    margin (fixed in advance, VALIDATION_MARGINS) and TOST's p; the length figures are shown
    equivalent; a run compared with itself (in-sample) is refused."""
    from simsuite.analysis.stats import tost_p
    from simsuite.errors import SimsuiteError

    rows = X.validation_rows(run, other_seed, reps=200, cells=["school-2016"])
    got = {r["figure"]: r for r in rows}
    assert set(got) >= {"p_a", "p_draw", "p_b", "hands_mean", "minutes_mean", "lead_changes"}
    for k, r in got.items():
        kind, m = X.VALIDATION_MARGINS[k]
        assert r["margin"] == pytest.approx(m * abs(r["simulated"]["value"]) if kind == "rel" else m)
        assert r["p_tost"] == pytest.approx(tost_p(r["diff"], r["se"], r["margin"]))
        assert r["exact"]["n"] == 120 and r["simulated"]["n"] == 120
    assert got["hands_mean"]["equivalent"] and got["minutes_mean"]["equivalent"]
    assert got["p_a"]["diff"] == pytest.approx(got["p_a"]["exact"]["value"] - got["p_a"]["simulated"]["value"])
    text = validation_table(rows, 200)
    assert "TOST p" in text and "±4 points" in text and "| school-2016 | hands |" in text
    with pytest.raises(SimsuiteError, match="in-sample"):
        X.validation_rows(run, run, reps=10)


def test_rescoring_moves_the_figures_the_rule_moves(run):
    from simsuite.sim.results import load

    r = load(run)
    v = r.variants()["school-2016"]
    h = r.hands.collect().filter(pl.col("cell") == "school-2016")
    m = r.matches.collect().filter(pl.col("cell") == "school-2016")
    base = X.exact_model(h, m, v, reps=0)["figures"]
    same = X.exact_model(h, m, v, {"takeover": v.takeover}, reps=0, approximate=True)["figures"]
    assert same["p_a"]["value"] == pytest.approx(base["p_a"]["value"])
    longer = X.exact_model(h, m, v, {"match_minutes": 180, "warning_minute": 170}, reps=0)["figures"]
    assert longer["hands_mean"]["value"] > 1.8 * base["hands_mean"]["value"]
    slower = X.exact_model(h, m, v, {"seconds_per_trick": 30.0}, reps=0)["figures"]
    assert slower["hands_mean"]["value"] < base["hands_mean"]["value"]


def test_cli_exact_text_and_json(run, capsys):
    assert main(["exact", str(run), "--reps", "5", "--cell", "huizhou"]) == 0
    text = capsys.readouterr().out
    assert "huizhou" in text and "n=120" in text and "bootstrap over deals" in text
    assert "huizhou: levels 5/10/K against the other plain levels" in text
    assert (
        main(
            [
                "exact",
                str(run),
                "--reps",
                "3",
                "--json",
                "--set",
                "match_minutes=45",
                "--set",
                "warning_minute=35",
                "--cell",
                "school-2016",
            ]
        )
        == 0
    )
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["rescored"] == {"match_minutes": 45, "warning_minute": 35} and rows[0]["figures"]["p_a"]["n"] == 120
    assert rows[0]["assumptions"] == [] and set(rows[0]["level_check"]["teams"]) == {"A", "B"}
    assert main(["exact", str(run), "--set", "nonsense=1"]) == 2


@pytest.mark.parametrize(
    "argv, words",
    [
        # fields that change play are not re-scored: hands played under other rules would be scored as if
        (["--set", "takeover=100"], "--set takeover: changes how the hands are played"),
        (["--set", "bottom_size=4"], "--set bottom_size: changes how the hands are played"),
        (["--set", "decks=3"], "--set decks: changes how the hands are played"),
        (["--set", "step=60", "--set", "match_minutes=60"], "--set step: changes how the hands are played"),
        (["--cell", "nowhere"], "--cell 'nowhere': no such cell in"),
        (["--reps", "0"], "--reps must be at least 1; got 0"),
        (["--reps", "-3"], "--reps must be at least 1; got -3"),
        (["--reps", "1000000000"], "--reps must be at most 10,000"),
        (["--seed", "-1"], "--seed must be at least 0; got -1"),
    ],
)
def test_cli_exact_refuses_what_it_cannot_answer(run, capsys, argv, words):
    """Each of these is refused with one line and exit 2 (no figures, no traceback)."""
    code = main(["exact", str(run), *argv])
    out, err = capsys.readouterr()
    assert code == 2 and words in err and "Traceback" not in err and out == "", err


def test_cli_exact_validate_prints_the_validation_table(run, other_seed, capsys):
    """``simsuite exact MODEL_RUN --validate SIM_RUN`` prints the out-of-sample validation table of
    ``validation_rows`` (the figures beside another seed's matches, with margins and TOST's p);
    with ``--json`` its rows."""
    rows = X.validation_rows(run, other_seed, reps=20, cells=["school-2016"])
    assert main(["exact", str(run), "--validate", str(other_seed), "--reps", "20", "--cell", "school-2016"]) == 0
    text = capsys.readouterr().out
    assert text == validation_table(rows, 20) + "\n"
    assert "| school-2016 | hands |" in text and "exact intervals from 20 bootstrap resamples" in text
    assert (
        main(["exact", str(run), "--validate", str(other_seed), "--reps", "20", "--cell", "school-2016", "--json"]) == 0
    )
    got = json.loads(capsys.readouterr().out)
    assert [(r["cell"], r["figure"]) for r in got] == [(r["cell"], r["figure"]) for r in rows]
    for g, r in zip(got, rows):
        assert g["p_tost"] == pytest.approx(r["p_tost"]) and g["equivalent"] is bool(r["equivalent"])
        assert g["exact"]["value"] == pytest.approx(r["exact"]["value"]) and g["simulated"]["n"] == 120


def test_cli_exact_validate_rescores_the_bands_only_when_asked(run, other_seed, capsys):
    """``--set`` of a band with ``--validate``: refused (it changes play) unless ``--approximate`` names
    the approximation, which then gives ``validation_rows(..., approximate=True)``'s table."""
    argv = [
        "exact",
        str(run),
        "--validate",
        str(other_seed),
        "--reps",
        "20",
        "--cell",
        "school-2016",
        "--set",
        "takeover=100",
    ]
    assert main(argv) == 2
    assert "--set takeover: changes how the hands are played" in capsys.readouterr().err
    assert main([*argv, "--approximate"]) == 0
    rows = X.validation_rows(run, other_seed, {"takeover": 100}, reps=20, cells=["school-2016"], approximate=True)
    assert capsys.readouterr().out == validation_table(rows, 20) + "\n"


@pytest.mark.parametrize(
    "kind, words",
    [
        ("missing", "no such folder"),
        ("file", "not a folder"),
        ("empty", "not a simsuite run (no manifest.json)"),
        ("corrupt", "is corrupt"),
    ],
)
def test_cli_exact_validate_refuses_a_run_it_cannot_read(run, tmp_path, capsys, kind, words):
    """A SIM_RUN that is missing or unreadable: one error line naming --validate and the folder, exit 2,
    nothing on stdout, no traceback."""
    sim = tmp_path / kind
    if kind == "file":
        sim.write_text("not a run")
    elif kind in ("empty", "corrupt"):
        sim.mkdir()
        if kind == "corrupt":
            (sim / "manifest.json").write_text("{not json")
    code = main(["exact", str(run), "--validate", str(sim), "--reps", "5"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("simsuite exact: error: --validate ") and words in lines[0], err
    assert str(sim) in lines[0]


def test_cli_exact_validate_refuses_an_in_sample_comparison(run, capsys):
    """The model's own run as SIM_RUN shares its seeds: refused with one line, exit 2."""
    code = main(["exact", str(run), "--validate", str(run), "--reps", "5"])
    out, err = capsys.readouterr()
    assert (
        code == 2 and out == "" and "in-sample" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    )


def test_summary_and_report_count_an_equal_policy_duplicate_run_once(tmp_path, capsys):
    """A duplicate run of basic against basic: its second tables are copies; `simsuite summary`
    and the report must count each match once and say so."""
    out = tmp_path / "eq"
    assert (
        main(
            [
                "simulate",
                "--variant",
                "school-2016",
                "--policies",
                "basic,basic",
                "--matches",
                "20",
                "--duplicate",
                "--seed",
                "4",
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["summary", str(out), "--json"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert row["n_matches"] == 20 and row["n_deals"] == 20 and "counted once" in row["note"]
    assert row["hands_per_match"]["n"] == 20 and row["takeover_rate"]["n"] == 20
    assert main(["summary", str(out)]) == 0
    assert "counted once" in capsys.readouterr().out
    assert main(["report", str(out), "-o", str(tmp_path / "r.html")]) == 0
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "school-2016: equal-policy duplicate run: each match counted once (20 swapped table(s) dropped" in html
    assert "n = 20 deals" in html


def test_duel_matches_count_pairs_and_draws():
    from simsuite.compete.duel import duel_matches

    r = duel_matches(load_variant("school-2016"), "expert", "basic", 12, 5)
    assert r.match_win.n == 12 and r.hands_per_match.n == 12 and r.match_draw.n == 12  # 24 tables, 12 deals
    assert 0 <= r.match_win.value + r.match_draw.value <= 1


def test_distinct_compiled_equals_numpy_and_np_unique():
    """The chain's state numbering (``_distinct``, compiled) is numpy's: the same distinct keys (sorted, as
    np.unique) and the same index of every key, a negative key indexed past them; keys spread too wide
    for the dense range fall back to the sort."""
    rng = np.random.default_rng(7)
    for trial in range(200):
        n = int(rng.integers(0, 3000))
        keys = (rng.integers(0, 40, n).astype(np.int64) << codes.T_BITS) + rng.integers(0, 200, n)
        keys[rng.random(n) < 0.2] = -1
        parts = [keys[: n // 3], keys[n // 3 :]] if trial % 2 else [keys]
        got, want = X.distinct(parts), codes._distinct_numpy(parts)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1]), trial
        assert np.array_equal(got[0], np.unique(keys[keys >= 0]))
        assert (got[1][keys < 0] == got[0].size).all()
    wide = np.array([5, 1 << 50, 0, -1], np.int64)
    out, inv = X.distinct([wide])
    assert out.tolist() == [0, 5, 1 << 50] and inv.tolist() == [1, 2, 0, 3]
    assert X.distinct([])[0].size == 0 and X.distinct([np.array([-1, -1])])[1].tolist() == [0, 0]


@pytest.mark.parametrize(
    "change",
    [
        {},
        {"must_defend": True},
        {"must_defend": False},
        {"point_levels": X.POINT_LEVELS},
        {"warn_x100": 2000, "after_warn": 2},
        {"warn_x100": 2000, "after_warn": 2, "no_new_x100": 0, "times": False},  # the bootstrap's chain
        {"warn_x100": 0, "after_warn": 0, "times": False},  # and without a warning
        {"step": 50},
        {"match_x100": 0, "no_new_x100": 0, "warn_x100": 0, "cap": 80, "must_defend": True},
        {"match_x100": 0, "no_new_x100": 0, "warn_x100": 0, "cap": 80, "must_defend": False},
    ],
)
def test_compiled_expansion_builds_the_numpy_chain(both_cutoffs, monkeypatch, change):
    """The chain's transitions from compiled code (``_expand_group``) are the numpy blocks': the same
    states, flags, next states and ends, hand by hand, whatever the rules' branches (the end level
    defended or not, point levels apart, a warning, a time grid, the states' times merged)."""
    from simsuite.sim.results import load

    r = load(both_cutoffs)
    h, m = r.hands.collect(), r.matches.collect()
    v = next(iter(r.variants().values()))
    data = X.hand_data(h, m, v)
    change = dict(change)
    times = change.pop("times", True)
    rules = dataclasses.replace(X.Rules.of(v), **change)
    tables = X.outcome_design(data, rules).tables
    chains = {}
    for compiled in (False, True):
        monkeypatch.setattr(C, "_COMPILED_EXPAND", compiled)
        ch = X.Chain(tables, rules, times=times)
        assert ch.times is times
        k = 0
        while ch.codes[k].size and k < 30:
            ch.hand(k)
            k += 1
        chains[compiled] = ch
    a, b = chains[False], chains[True]
    assert len(a.hands) == len(b.hands) > 3
    for x, y in zip(a.codes, b.codes):
        assert np.array_equal(x, y)
    for x, y in zip(a.hands, b.hands):
        for f in ("ended", "change", "end_lvl", "nxt"):
            assert np.array_equal(getattr(x, f), getattr(y, f)), f
        assert all(np.array_equal(u, w) for u, w in zip(x.end_win, y.end_win))
        assert np.array_equal(x.end_t[0], y.end_t[0]) and np.array_equal(x.end_t[1], y.end_t[1])


def test_bootstrap_figures_do_not_depend_on_its_threads_or_batches(run, monkeypatch):
    """The resamples are drawn in one sequence whatever the batches and threads that solve them: the
    intervals are the same with one thread and small batches as with three threads and others."""
    from simsuite.sim.results import load

    r = load(run)
    v = r.variants()["school-2016"]
    h = r.hands.collect().filter(pl.col("cell") == "school-2016")
    m = r.matches.collect().filter(pl.col("cell") == "school-2016")
    got = []
    for threads, batch in ((1, 7), (3, 5)):
        monkeypatch.setattr(M, "_threads", lambda reps, cap, states, n=threads: n)
        monkeypatch.setattr(M, "_BATCH_MAX", batch)
        got.append(X.exact_model(h, m, v, reps=40, seed=2)["figures"])
    for key, f in got[0].items():
        for part in ("value", "low", "high"):
            assert got[1][key][part] == pytest.approx(f[part], rel=1e-12, abs=1e-12), (key, part)


def test_progress_line_on_a_slow_solve_and_none_with_quiet(run, capsys, monkeypatch):
    """A solve that lasts past ``PROGRESS_AFTER_S`` (0 here, so that every solve is slow) says on
    stderr how far it is, and when it ends; not with --quiet, and not where stderr is not a terminal."""
    import sys

    from simsuite.cli import exact as cli_exact

    monkeypatch.setattr(cli_exact, "PROGRESS_AFTER_S", 0.0)
    argv = ["exact", str(run), "--reps", "20", "--cell", "huizhou"]
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "simsuite exact: huizhou (cell 1 of 1): 20/20 bootstrap resamples solved" in err, err
    assert "simsuite exact: 1 cell solved in" in err and err.endswith("\n") and "simsuite exact" not in out
    assert main([*argv, "--quiet"]) == 0
    quiet_out, err = capsys.readouterr()
    assert err == "" and quiet_out == out
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    assert main(argv) == 0
    assert capsys.readouterr().err == ""


def test_progress_line_waits_for_a_slow_solve():
    """``SolveProgress`` draws nothing before ``after_s`` (a quick solve stays silent), and draws its
    line, in place, after it."""
    import io

    from simsuite.cli.exact import SolveProgress

    quick = io.StringIO()
    with SolveProgress(1, enabled=True, stream=quick, after_s=60) as p:
        p("c", 0, 10)
        p("c", 10, 10)
    assert quick.getvalue() == ""
    slow = io.StringIO()
    with SolveProgress(2, enabled=True, stream=slow, after_s=0) as p:
        p("c", 0, 10)
        p("c", 5, 10)
        p("d", 0, 10)
    text = slow.getvalue()
    assert "\rsimsuite exact: c (cell 1 of 2): 5/10 bootstrap resamples solved" in text and "left" in text
    assert "d (cell 2 of 2): 0/10" in text and text.endswith("\n")
    assert text.rstrip().split("\r")[-1] == "simsuite exact: 2 cells solved in 0 s"
    off = io.StringIO()
    with SolveProgress(1, enabled=False, stream=off, after_s=0) as p:
        p("c", 0, 10)
    assert off.getvalue() == ""


def test_exact_puts_the_samples_figure_beside_the_models(run, capsys):
    """The output opens with the answer in words, the model's and the sample's; the table has a model
    and a sample column per cell; the sample's figures are ``simsuite summary``'s (``summarise``)."""
    from simsuite.analysis.metrics import summarise
    from simsuite.report.exact_text import _fmt

    assert main(["exact", str(run), "--reps", "20", "--cell", "school-2016", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert main(["exact", str(run), "--reps", "20", "--cell", "school-2016"]) == 0
    text = capsys.readouterr().out
    from simsuite.sim.results import load

    r = load(run)
    s = summarise(r.hands.collect(), r.matches.collect(), by="cell", variants=r.variants())
    summ = next(x for x in s if x["cell"] == "school-2016")
    for key, metric in (("p_a", "policy_a_win"), ("p_draw", "pair_draw"), ("hands_mean", "hands_per_match")):
        assert row["sample"][key]["value"] == pytest.approx(summ[metric]["value"])
        assert row["sample"][key]["n"] == summ[metric]["n"] == 120
    assert row["sample_matches"] == 240 and row["figures"]["p_a"]["value"] != row["sample"]["p_a"]["value"]
    first = text.splitlines()[0]
    assert first.startswith("school-2016, expert (A) against basic (B): model A wins ")
    assert "sample (240 matches) A wins" in " ".join(text.split("\n\n")[0].split())
    header = next(line for line in text.splitlines() if line.startswith("figure"))
    assert "school-2016: model" in header and "school-2016: sample" in header
    line = next(x for x in text.splitlines() if x.startswith("draw "))
    assert _fmt(row["figures"]["p_draw"], True) in line and _fmt(row["sample"]["p_draw"], True) in line
    assert "Model: the match chain solved exactly" in text and "Sample: the run's matches as played" in text
    assert "model only" in next(x for x in text.splitlines() if x.startswith("drama"))


def test_exact_says_exact_or_approximate_re_scoring_as_the_docs_do(run, capsys):
    """Re-scoring the clock is exact re-scoring (it changes no play), the bands approximate re-scoring:
    the output says which, with no sample under the new rules, and docs/design.md uses the same words."""
    from pathlib import Path

    from simsuite.report.exact_text import APPROXIMATE_WHY, EXACT_RESCORING

    base = ["exact", str(run), "--reps", "5", "--cell", "school-2016"]
    assert main([*base, "--set", "match_minutes=45", "--set", "warning_minute=35"]) == 0
    text = capsys.readouterr().out
    assert f"Re-scored with match_minutes=45, warning_minute=35: {EXACT_RESCORING}." in text
    assert "approximate re-scoring" not in text.lower()
    assert "sample: none: no match was played under the re-scored rules" in text
    assert main([*base, "--set", "takeover=100", "--set", "seconds_per_trick=25", "--approximate"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert (
        f"Re-scored with takeover=100, seconds_per_trick=25.0: approximate re-scoring for takeover: "
        f"{APPROXIMATE_WHY}; exact re-scoring for seconds_per_trick, which change no play." in text
    )
    design = " ".join((Path(__file__).parent.parent / "docs" / "design.md").read_text().split())
    assert "exact re-scoring" in design and "approximate re-scoring" in design
    assert "an approximation" not in " ".join(X.__doc__.split())


@pytest.mark.parametrize(
    "change",
    [{}, {"warn_x100": 0, "after_warn": 0}, {"warn_x100": 0, "after_warn": 0, "no_new_x100": 1000}],
)
def test_the_bootstraps_chain_merges_times_and_keeps_the_figures(run, change):
    """The bootstrap's chain (``Chain(times=False)``) of a real timed cell, with its warning, or
    without one and with or without a no-new-hand cut-off, merges the states whose times no longer
    matter, to far fewer states, and ``solve_batch`` on it gives the full chain's figures for the
    estimate and for resamples."""
    from simsuite.sim.results import load

    r = load(run)
    v = r.variants()["school-2016"]
    h = r.hands.collect().filter(pl.col("cell") == "school-2016")
    m = r.matches.collect().filter(pl.col("cell") == "school-2016")
    data = X.hand_data(h, m, v)
    rules = dataclasses.replace(X.Rules.of(v), **change)
    design = X.outcome_design(data, rules)
    full, fast = X.Chain(design.tables, rules), X.Chain(design.tables, rules, times=False)
    w = np.random.default_rng(4).integers(0, 3, size=(5, data.n_deals)).astype(float)
    prob = np.column_stack([full.probabilities(design.tables), design.probabilities(w)])
    a, b = X.solve_batch(full, prob), X.solve_batch(fast, prob)
    for key, x in a.items():
        if x is not None:
            assert b[key] == pytest.approx(x, rel=1e-9, abs=1e-12), key
    assert not fast.times and sum(c.size for c in fast.codes) < 0.6 * sum(c.size for c in full.codes)
    assert sum(hd.n for hd in fast.hands) < 0.8 * sum(hd.n for hd in full.hands)
