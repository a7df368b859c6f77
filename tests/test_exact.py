"""The exact match model (simsuite/analysis/exact.py): the chain solver against hand-computed answers and
against a Monte Carlo walk of the same chain; the model against simulated matches; the CLI."""

from __future__ import annotations

import bisect
import dataclasses
import json

import numpy as np
import polars as pl
import pytest

from simsuite.analysis import exact as X
from simsuite.cli import main
from simsuite.rules.variant import load_variant


def table(rows, first=False):
    """rows: (gain_d, gain_f, switch, dur_steps, a_declares, prob)."""
    a = np.array(rows, dtype=float)
    return X.Table(a[:, 0].astype(int), a[:, 1].astype(int), a[:, 2].astype(bool), a[:, 3].astype(int),
                   a[:, 4].astype(bool), a[:, 5] / a[:, 5].sum())


def tables(first, a_rows, b_rows):
    return {("first",): table(first), (True, False): table(a_rows), (True, True): table(a_rows),
            (False, False): table(b_rows), (False, True): table(b_rows)}


def rules(**kw):
    base = dict(start=2, end=4, must_defend=False, special=(), match_x100=0, warn_x100=0, after_warn=0, no_new_x100=0,
                on_stage=False, rotate=False, overhead_x100=0, spt_x100=0, cap=500, step=100)
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
        read[key] = (cdf.tolist(), list(zip(tb.gain_d.tolist(), tb.gain_f.tolist(), tb.switch.tolist(),
                                            tb.dur.tolist(), tb.a_decl.tolist())))
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


@pytest.mark.parametrize("kw", [
    dict(match_x100=9000, warn_x100=8000, after_warn=1),
    dict(match_x100=6000, no_new_x100=800, must_defend=True),
    dict(end=6),
    dict(match_x100=9000, on_stage=True, rotate=True),
])
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


# --- on simulated hands ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("exact") / "run"
    assert main(["simulate", "--variant", "school-2016", "--variant", "huizhou", "--policies", "expert,basic",
                 "--matches", "120", "--duplicate", "--seed", "3", "--out", str(out), "--quiet"]) == 0
    return out


def test_exact_agrees_with_the_matches_it_came_from(run):
    from simsuite.sim.results import load

    r = load(run)
    v = r.variants()
    for cell in ("school-2016", "huizhou"):
        h = r.hands.collect().filter(pl.col("cell") == cell)
        m = r.matches.collect().filter(pl.col("cell") == cell)
        res = X.exact_model(h, m, v[cell], reps=15)
        assert res["n_deals"] == 120 and res["a"] == "expert"
        sim = X.simulated_figures(h, m, v[cell])
        ag = X.agreement(res["figures"], sim)
        for key in ("p_a", "p_b", "hands_mean", "lead_changes"):
            assert abs(ag[key]["z"]) < 3.5, (cell, key, ag[key])


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
    assert main(["exact", str(run), "--reps", "3", "--json", "--set", "match_minutes=45", "--set", "warning_minute=35",
                 "--cell", "school-2016"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["rescored"] == {"match_minutes": 45, "warning_minute": 35} and rows[0]["figures"]["p_a"]["n"] == 120
    assert main(["exact", str(run), "--set", "nonsense=1"]) == 2


@pytest.mark.parametrize("argv, words", [
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
])
def test_cli_exact_refuses_what_it_cannot_answer(run, capsys, argv, words):
    """Issue 34: each of these printed figures (or a traceback) with exit 0 before."""
    code = main(["exact", str(run), *argv])
    out, err = capsys.readouterr()
    assert code == 2 and words in err and "Traceback" not in err and out == "", err


def test_summary_and_report_count_an_equal_policy_duplicate_run_once(tmp_path, capsys):
    """A duplicate run of basic against basic: its second tables are copies; `simsuite summary`
    and the report must count each match once and say so."""
    out = tmp_path / "eq"
    assert main(["simulate", "--variant", "school-2016", "--policies", "basic,basic", "--matches", "20", "--duplicate",
                 "--seed", "4", "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["summary", str(out), "--json"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert row["n_matches"] == 20 and row["n_deals"] == 20 and "counted once" in row["note"]
    assert row["hands_per_match"]["n"] == 20 and row["takeover_rate"]["n"] == 20
    assert main(["summary", str(out)]) == 0
    assert "counted once" in capsys.readouterr().out
    assert main(["report", str(out), "-o", str(tmp_path / "r.html")]) == 0
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "counted once" in html and "n (deals): school-2016 20" in html


def test_duel_matches_count_pairs_and_draws():
    from simsuite.compete.duel import duel_matches

    r = duel_matches(load_variant("school-2016"), "expert", "basic", 12, 5)
    assert r.match_win.n == 12 and r.hands_per_match.n == 12 and r.match_draw.n == 12  # 24 tables, 12 deals
    assert 0 <= r.match_win.value + r.match_draw.value <= 1
