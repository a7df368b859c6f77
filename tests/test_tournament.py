"""Tournaments: pairing, points and ranking of the four formats, with scripted matches.

Clauses: school-2016 一、3 (Swiss pairing) and 一、5 (points, tie-breaks); baiyun-2016 (八)1-2;
two-deck-2011 一 and 四、1 (knock-out, lots every round, single or double elimination);
guangxi-2012 第一章5-6 (one session). Matches are played by fake ``play_match`` callbacks.
"""

from __future__ import annotations

import numpy as np
import pytest

from simsuite.compete.ranking import RoundEntry, TournamentError, rank_standings
from simsuite.compete.tournament import MatchResult, match_seed, pair_by_order, run_tournament
from simsuite.report.tournament_text import format_standings
from simsuite.rules.variant import load_variant

SCHOOL = load_variant("school-2016")
BAIYUN = load_variant("baiyun-2016")
TWO_DECK = load_variant("two-deck-2011")
GUANGXI = load_variant("guangxi-2012")

STRENGTH = {t: 12 - i for i, t in enumerate("ABCDEFGH")}  # A strongest


def strongest_wins(a, b, r, s):
    """The stronger team wins; the winner reaches its strength as a level, the loser stays at 2."""
    w = a if STRENGTH[a] > STRENGTH[b] else b
    la, lb = (STRENGTH[a], 0) if w == a else (0, STRENGTH[b])
    return MatchResult(a, b, la, lb, w, "levels")


def seeded_coin(a, b, r, s):
    """The winner depends on the match seed only: exercises the seeds, varies the brackets."""
    w = a if s % 2 else b
    return MatchResult(a, b, 8 if w == a else 3, 3 if w == a else 8, w, "levels")


def pairs_of(record):
    return [frozenset((p.team_a, p.team_b)) for p in record.pairings if p.team_b is not None]


def met(result, upto_round):
    out = set()
    for rec in result.rounds[:upto_round]:
        out.update(pairs_of(rec))
    return out


# --- school-2016: Swiss (一、3) ----------------------------------------------------------------


def test_school_2016_swiss_round_1_drawn_by_lot():
    v = SCHOOL.with_overrides({"rounds": 1})
    draws = {
        tuple(
            sorted(map(tuple, map(sorted, pairs_of(run_tournament(v, list("ABCDEFGH"), strongest_wins, s).rounds[0]))))
        )
        for s in range(12)
    }
    assert len(draws) > 1  # the draw depends on the seed
    res = run_tournament(v, list("ABCDEFGH"), strongest_wins, 3)
    order = res.rounds[0].order
    assert sorted(order) == list("ABCDEFGH")
    assert [(p.team_a, p.team_b) for p in res.rounds[0].pairings] == [(order[i], order[i + 1]) for i in range(0, 8, 2)]


def test_school_2016_swiss_pairs_by_standing_1v2_3v4():
    v = SCHOOL.with_overrides({"rounds": 2})
    res = run_tournament(v, list("ABCDEFGH"), strongest_wins, 11)
    # Independent standings after round 1: winners (3 points) by round level difference
    # (their strength), then losers by theirs (minus the strength of the team that beat them).
    r1 = [(p.team_a, p.team_b) for p in res.rounds[0].pairings]
    winners = sorted((max(p, key=STRENGTH.get) for p in r1), key=lambda t: -STRENGTH[t])
    losers = {min(p, key=STRENGTH.get): max(p, key=STRENGTH.get) for p in r1}
    losers_order = sorted(losers, key=lambda t: STRENGTH[losers[t]])
    expected = winners + losers_order
    assert list(res.rounds[1].order) == expected
    assert [(p.team_a, p.team_b) for p in res.rounds[1].pairings] == [
        (expected[0], expected[1]),
        (expected[2], expected[3]),
        (expected[4], expected[5]),
        (expected[6], expected[7]),
    ]


def _draw_first_round(levels_by_call):
    calls = {"n": 0}

    def play(a, b, r, s):
        if r == 0:
            lv = levels_by_call[calls["n"]]
            calls["n"] += 1
            return MatchResult(a, b, lv, lv, None, "draw")
        return strongest_wins(a, b, r, s)

    return play


def test_school_2016_swiss_skips_previous_round_opponent():
    # Round 1: two draws, at 10:10 and 7:7. The 10:10 pair ranks 1-2 on round level (一、5),
    # but met in the previous round, so 1 takes 3 and 2 takes 4 (一、3).
    v = SCHOOL.with_overrides({"rounds": 2})
    res = run_tournament(v, list("ABCD"), _draw_first_round([8, 5]), 5)
    first = res.rounds[0].pairings[0]
    order = res.rounds[1].order
    assert set(order[:2]) == {first.team_a, first.team_b}  # would-be 1v2 met in round 1
    assert [(p.team_a, p.team_b) for p in res.rounds[1].pairings] == [(order[0], order[2]), (order[1], order[3])]
    assert not res.rounds[1].rematches_allowed


def _seed_with_round1(v, teams, wanted):
    for s in range(200):
        res = run_tournament(v, teams, strongest_wins, s)
        if set(pairs_of(res.rounds[0])) == wanted:
            return s, res
    raise AssertionError("no seed draws the wanted first round")


def test_school_2016_rematch_allowed_after_two_rounds():
    # Strongest wins; with round 1 A-B, C-D the standings pair A-C, D-B in round 2 and
    # A-B, C-D again in round 3: a round-1 meeting is not the previous round, so it is allowed.
    teams = list("ABCD")
    v = SCHOOL.with_overrides({"rounds": 3})
    assert v.no_rematch_rounds == 1
    r1 = {frozenset("AB"), frozenset("CD")}
    seed, res = _seed_with_round1(v, teams, r1)
    assert set(pairs_of(res.rounds[1])) == {frozenset("AC"), frozenset("BD")}
    assert set(pairs_of(res.rounds[2])) == r1
    assert not res.rounds[2].rematches_allowed
    # Control: a two-round window forbids it, and the round pairs the last unmet teams.
    res2 = run_tournament(v.with_overrides({"no_rematch_rounds": 2}), teams, strongest_wins, seed)
    assert set(pairs_of(res2.rounds[2])) == {frozenset("AD"), frozenset("BC")}


def test_school_2016_swiss_pairing_backtracks_when_last_teams_stuck():
    bad = {frozenset("AB"), frozenset("BD")}
    forbid = lambda a, b: frozenset((a, b)) in bad  # noqa: E731
    # Greedy A-C would leave B-D (forbidden): back up to A-D, B-C.
    assert pair_by_order(list("ABCD"), forbid) == [("A", "D"), ("B", "C")]
    assert pair_by_order(list("ABCD"), lambda a, b: False) == [("A", "B"), ("C", "D")]
    assert pair_by_order(["A", "B"], lambda a, b: True) is None


def test_school_2016_swiss_two_teams_rematch_when_unavoidable():
    res = run_tournament(SCHOOL.with_overrides({"rounds": 2}), ["A", "B"], strongest_wins, 1)
    assert res.rounds[1].rematches_allowed
    assert any("rematches allowed" in n for n in res.notes)


def test_school_2016_swiss_bye_to_lowest_ranked_without_bye_scored_as_win():
    v = SCHOOL.with_overrides({"rounds": 5})
    res = run_tournament(v, list("ABCDE"), strongest_wins, 2)
    had_bye: set[str] = set()
    for rec in res.rounds:
        byes = [p.team_a for p in rec.pairings if p.team_b is None]
        assert len(byes) == 1
        if rec.index > 0:
            eligible = [t for t in rec.order if t not in had_bye]
            assert byes[0] == eligible[-1]
        had_bye.add(byes[0])
        entry = next(e for e in res.standing(byes[0]).rounds if e.round_index == rec.index)
        assert (entry.outcome, entry.points, entry.opponent, entry.level_diff) == ("win", 3, None, 0)
    assert had_bye == set("ABCDE")  # five rounds, five different byes


def test_school_2016_points_win3_draw1_loss0():
    v = SCHOOL.with_overrides({"rounds": 2})

    def play(a, b, r, s):
        pair = frozenset((a, b))
        if pair == frozenset("AB") or pair == frozenset("CD"):
            return MatchResult(a, b, 5, 5, None, "draw")
        return strongest_wins(a, b, r, s)

    saw_draw = False
    for seed in range(6):
        res = run_tournament(v, list("ABCD"), play, seed)
        for s in res.standings:
            assert s.points == 3 * s.wins + 1 * s.draws + 0 * s.losses
            for e in s.rounds:
                assert e.points == {"win": 3, "draw": 1, "loss": 0}[e.outcome]
        decided = sum(p.result.winner is not None for rec in res.rounds for p in rec.pairings)
        drawn = sum(p.result.winner is None for rec in res.rounds for p in rec.pairings)
        assert sum(s.points for s in res.standings) == 3 * decided + 2 * drawn
        saw_draw = saw_draw or drawn > 0
    assert saw_draw


# --- school-2016: tie-breaks (一、5), on constructed standings --------------------------------


def E(r, opp, outcome, diff, level, pts=None):
    points = {"win": 3, "draw": 1, "loss": 0}[outcome] if pts is None else pts
    return RoundEntry(r, opp, outcome, points, diff, level, level - diff)


def ranked(entries, tiebreaks=SCHOOL.tiebreaks, seed=0):
    rows = rank_standings(entries, tiebreaks, np.random.default_rng(seed))
    return [r.team for r in rows], rows


def test_school_2016_tiebreak_points_first():
    entries = {
        "B": [E(0, "X", "win", 12, 12), E(1, "Y", "loss", -1, 0)],  # 3 points, better everything else
        "A": [E(0, "X", "win", 1, 1), E(1, "Y", "draw", 0, 0)],  # 4 points
    }
    order, rows = ranked(entries)
    assert order == ["A", "B"] and rows[1].separated_by == "points"


def test_school_2016_tiebreak_round_points():
    # Equal total points; A won the last round, B won the first. Cumulatively B is far ahead.
    entries = {
        "B": [E(0, "X", "win", 10, 10), E(1, "Y", "loss", -1, 0)],
        "A": [E(0, "X", "loss", -10, 0), E(1, "Y", "win", 1, 1)],
    }
    order, rows = ranked(entries)
    assert order == ["A", "B"] and rows[1].separated_by == "round_points"
    assert rows[0].tiebreak_values["round_points"] == 3 and rows[1].tiebreak_values["round_points"] == 0


def test_school_2016_tiebreak_round_level_diff():
    # Both won the last round: A 8:2 (+6), B Q:9 (+3, a higher level).
    entries = {
        "B": [E(0, "X", "win", 9, 9), E(1, "Y", "win", 3, 10)],
        "A": [E(0, "X", "win", 1, 1), E(1, "Y", "win", 6, 6)],
    }
    order, rows = ranked(entries)
    assert order == ["A", "B"] and rows[1].separated_by == "round_level_diff"
    assert rows[0].tiebreak_values["round_level_diff"] == 6


def test_school_2016_tiebreak_round_level():
    # The text's example: 10:4 and 8:2 are both +6; the team at 10 ranks first.
    entries = {
        "B": [E(0, "X", "win", 9, 9), E(1, "Y", "win", 6, 6)],  # 8:2
        "A": [E(0, "X", "win", 1, 1), E(1, "Y", "win", 6, 8)],  # 10:4
    }
    order, rows = ranked(entries)
    assert order == ["A", "B"] and rows[1].separated_by == "round_level"


def test_school_2016_tiebreak_total_level_diff():
    entries = {
        "B": [E(0, "X", "win", 5, 11), E(1, "Y", "win", 6, 8)],  # total +11, levels 19
        "A": [E(0, "X", "win", 8, 8), E(1, "Y", "win", 6, 8)],  # total +14, levels 16
    }
    order, rows = ranked(entries)
    assert order == ["A", "B"] and rows[1].separated_by == "total_level_diff"


def test_school_2016_tiebreak_total_levels():
    entries = {
        "B": [E(0, "X", "win", 6, 6), E(1, "Y", "win", 6, 8)],
        "A": [E(0, "X", "win", 6, 10), E(1, "Y", "win", 6, 8)],
    }
    for seed in range(10):  # lots come next: A must be first whatever they say
        order, rows = ranked(entries, seed=seed)
        assert order == ["A", "B"] and rows[1].separated_by == "total_levels"


def test_school_2016_tiebreak_lots_last_and_seeded():
    entries = {t: [E(0, "X", "win", 6, 8), E(1, "Y", "draw", 0, 9)] for t in ("A", "B")}
    firsts = set()
    for seed in range(10):
        order, rows = ranked(entries, seed=seed)
        assert rows[1].separated_by == "lots"
        assert ranked(entries, seed=seed)[0] == order  # same seed, same lots
        firsts.add(order[0])
    assert firsts == {"A", "B"}


def test_tiebreak_without_lots_shares_the_rank():
    entries = {t: [E(0, "X", "win", 6, 8)] for t in ("A", "B")}
    rows = rank_standings(entries, ("round_points", "total_levels"))
    assert [r.rank for r in rows] == [1, 1] and rows[1].separated_by == "tied"


def test_tournament_records_separations_between_adjacent_teams():
    res = run_tournament(SCHOOL, list("ABCDEF"), seeded_coin, 4)
    assert len(res.separations) == 5
    for sep, above, below in zip(res.separations, res.standings, res.standings[1:]):
        assert (sep.above, sep.below, sep.criterion) == (above.team, below.team, below.separated_by)
        assert sep.criterion in ("points",) + SCHOOL.tiebreaks
        c = sep.criterion
        assert above.tiebreak_values[c] != below.tiebreak_values[c]
    assert res.champion == res.standings[0].team


# --- baiyun-2016: drawn by lot ((八)1-2) ------------------------------------------------------


def test_baiyun_2016_drawn_by_lot_points_2_1_0():
    def play(a, b, r, s):
        if frozenset((a, b)) in (frozenset("AB"), frozenset("EF")):
            return MatchResult(a, b, 6, 6, None, "draw")
        return strongest_wins(a, b, r, s)

    teams = list("ABCDEF")
    res = run_tournament(BAIYUN, teams, play, 8)
    assert len(res.rounds) == 5
    for s in res.standings:
        assert s.points == 2 * s.wins + s.draws
        for e in s.rounds:
            assert e.points == {"win": 2, "draw": 1, "loss": 0}[e.outcome]
    for prev, cur in zip(res.rounds, res.rounds[1:]):
        assert not set(pairs_of(prev)) & set(pairs_of(cur))  # no immediate rematch [default]
    # Every round is a fresh draw, not the standings: round-2 pairings vary with the seed.
    round2 = {frozenset(pairs_of(run_tournament(BAIYUN, teams, play, s).rounds[1])) for s in range(10)}
    assert len(round2) > 1
    assert set(BAIYUN.tiebreaks) <= set(res.standings[1].tiebreak_values)


def test_baiyun_2016_odd_field_bye_by_lot_scored_as_win():
    res = run_tournament(BAIYUN, list("ABCDE"), strongest_wins, 3)
    byes = [p.team_a for rec in res.rounds for p in rec.pairings if p.team_b is None]
    assert sorted(byes) == list("ABCDE")  # fewest byes first: five rounds, five teams
    for s in res.standings:
        assert s.byes == 1
        assert [e.points for e in s.rounds if e.opponent is None] == [2]


# --- two-deck-2011: knock-out (一, 四、1) ------------------------------------------------------


def test_two_deck_2011_single_elimination_champion():
    res = run_tournament(TWO_DECK, list("ABCDEFGH"), strongest_wins, 5)
    assert res.champion == "A"
    assert [len(rec.pairings) for rec in res.rounds] == [4, 2, 1]  # first round, semi-final, final
    assert len(res.rounds) == TWO_DECK.rounds
    for s in res.standings:
        assert s.losses == (0 if s.team == "A" else 1)
    assert res.standings[0].team == "A"
    finalist = next(t for t in (res.rounds[2].pairings[0].team_a, res.rounds[2].pairings[0].team_b) if t != "A")
    assert res.standings[1].team == finalist and res.standings[1].separated_by == "stage"
    # Lots are drawn every round: the semi-finals vary with the seed even for the same survivors.
    semis = {
        frozenset(pairs_of(run_tournament(TWO_DECK, list("ABCDEFGH"), strongest_wins, s).rounds[1])) for s in range(12)
    }
    assert len(semis) > 1


def test_two_deck_2011_single_elimination_byes_fill_the_field():
    res = run_tournament(TWO_DECK, list("ABCDEF"), strongest_wins, 2)
    first = res.rounds[0].pairings
    assert sum(p.team_b is None for p in first) == 2 and sum(p.team_b is not None for p in first) == 2
    assert [len(rec.pairings) for rec in res.rounds[1:]] == [2, 1]
    assert res.champion == "A"


def test_two_deck_2011_double_elimination_out_after_two_losses():
    teams = list("ABCDEFGH")
    res = run_tournament(TWO_DECK, teams, seeded_coin, 9, elimination="double")
    assert res.elimination == "double"
    played_after_a_loss = False
    for s in res.standings:
        losses = [e.round_index for e in s.rounds if e.outcome == "loss"]
        if s.team == res.champion:
            assert len(losses) <= 1
            assert s.eliminated_in is None
        else:
            assert len(losses) == 2
            assert max(e.round_index for e in s.rounds) == losses[1]  # nothing after the second loss
            assert s.eliminated_in == losses[1]
        if losses and max(e.round_index for e in s.rounds) > losses[0]:
            played_after_a_loss = True
    assert played_after_a_loss  # a single loss does not put a team out
    # Single elimination with the same matches puts teams out at their first loss.
    single = run_tournament(TWO_DECK, teams, seeded_coin, 9)
    assert all(s.losses <= 1 for s in single.standings)


def test_two_deck_2011_double_elimination_final_decider():
    teams = list("ABCDEF")
    base = run_tournament(TWO_DECK, teams, strongest_wins, 4, elimination="double")
    final = base.rounds[-1].pairings[0]
    assert final.bracket == "final" and final.result.winner == final.team_a == "A"
    final_round = final.round_index

    def upset(a, b, r, s):  # the losers'-bracket team (team_b) wins the final
        if r == final_round:
            return MatchResult(a, b, 0, 9, b, "levels")
        return strongest_wins(a, b, r, s)

    res = run_tournament(TWO_DECK, teams, upset, 4, elimination="double")
    assert [p.bracket for p in res.rounds[-1].pairings] == ["decider"]
    assert res.rounds[-1].index == final_round + 1
    assert res.champion == "A"  # A wins the decider
    assert res.standing(final.team_b).losses == 2
    no_decider = run_tournament(TWO_DECK, teams, upset, 4, elimination="double", double_final_decider=False)
    assert no_decider.champion == final.team_b and len(no_decider.rounds) == final_round + 1


def test_two_deck_2011_knockout_draw_is_a_clear_error():
    def draw(a, b, r, s):
        return MatchResult(a, b, 5, 5, None, "time")

    with pytest.raises(TournamentError, match="draw.*must have a winner"):
        run_tournament(TWO_DECK, list("ABCD"), draw, 0)
    with pytest.raises(TournamentError, match="draw"):
        run_tournament(TWO_DECK, list("ABCD"), draw, 0, elimination="double")


# --- guangxi-2012: one session (第一章5-6) -----------------------------------------------------


def test_guangxi_2012_session_two_teams():
    calls = []

    def play(a, b, r, s):
        calls.append((a, b, r))
        return MatchResult(a, b, 13, 9, a, "past A")

    res = run_tournament(GUANGXI, ["East", "West"], play, 0)
    assert calls == [("East", "West", 0)]
    assert res.champion == "East" and [s.team for s in res.standings] == ["East", "West"]
    assert res.standings[0].points == 1 and res.standings[1].separated_by == "points"
    with pytest.raises(TournamentError, match="exactly two teams"):
        run_tournament(GUANGXI, ["A", "B", "C"], play, 0)


def test_guangxi_2012_session_draw_goes_to_lots():
    def play(a, b, r, s):
        return MatchResult(a, b, 9, 9, None, "time")

    champs = {run_tournament(GUANGXI, ["East", "West"], play, s).champion for s in range(10)}
    assert champs == {"East", "West"}
    res = run_tournament(GUANGXI, ["East", "West"], play, 0)
    assert res.standings[1].separated_by == "lots"


# --- determinism, seeds, errors, text -----------------------------------------------------------


def _trace(res):
    return [(p.round_index, p.table, p.team_a, p.team_b, p.match_seed) for rec in res.rounds for p in rec.pairings]


@pytest.mark.parametrize(
    "variant,teams,kw",
    [
        (SCHOOL, list("ABCDEFG"), {}),
        (BAIYUN, list("ABCDEF"), {}),
        (TWO_DECK, list("ABCDEFG"), {}),
        (TWO_DECK, list("ABCDEFG"), {"elimination": "double"}),
    ],
)
def test_same_seed_same_pairings(variant, teams, kw):
    a = run_tournament(variant, teams, seeded_coin, 21, **kw)
    b = run_tournament(variant, teams, seeded_coin, 21, **kw)
    assert _trace(a) == _trace(b)
    assert [s.team for s in a.standings] == [s.team for s in b.standings]
    others = {tuple(_trace(run_tournament(variant, teams, seeded_coin, s, **kw))) for s in range(22, 28)}
    assert len(others | {tuple(_trace(a))}) > 1


def test_match_seeds_spawned_per_round_and_table():
    root = np.random.SeedSequence(77)
    rounds = root.spawn(3)
    expected = int(rounds[2].spawn(4)[3].generate_state(1, dtype=np.uint32)[0])
    assert match_seed(77, 2, 3) == expected
    res = run_tournament(SCHOOL, list("ABCDEF"), seeded_coin, 77)
    for rec in res.rounds:
        for p in rec.pairings:
            if p.team_b is not None:
                assert p.match_seed == match_seed(77, p.round_index, p.table)
    seeds = [p.match_seed for rec in res.rounds for p in rec.pairings if p.match_seed is not None]
    assert len(set(seeds)) == len(seeds)


def test_no_global_random_state():
    np.random.seed(1)
    before = np.random.get_state()[1].copy()
    a = run_tournament(SCHOOL, list("ABCDEF"), seeded_coin, 5)
    assert (np.random.get_state()[1] == before).all()
    np.random.seed(999)
    b = run_tournament(SCHOOL, list("ABCDEF"), seeded_coin, 5)
    assert _trace(a) == _trace(b)


def test_bad_input_clear_errors():
    with pytest.raises(TournamentError, match="at least two teams"):
        run_tournament(SCHOOL, ["A"], strongest_wins, 0)
    with pytest.raises(TournamentError, match="unique"):
        run_tournament(SCHOOL, ["A", "B", "A"], strongest_wins, 0)
    with pytest.raises(TournamentError, match="seed"):
        run_tournament(SCHOOL, ["A", "B"], strongest_wins, -1)
    with pytest.raises(TournamentError, match="elimination"):
        run_tournament(TWO_DECK, ["A", "B"], strongest_wins, 0, elimination="triple")

    def swapped(a, b, r, s):
        return MatchResult(b, a, 3, 2, b, "levels")

    with pytest.raises(TournamentError, match="returned a result for"):
        run_tournament(SCHOOL, ["A", "B"], swapped, 0)
    with pytest.raises(TournamentError, match="neither"):
        MatchResult("A", "B", 3, 2, "C", "levels")
    with pytest.raises(TournamentError, match="unknown tie-break"):
        rank_standings({"A": []}, ("coin",))


def test_format_standings_table():
    res = run_tournament(SCHOOL, list("ABCDE"), strongest_wins, 1)
    text = format_standings(res)
    lines = text.splitlines()
    assert lines[0].startswith("school-2016: swiss, 5 teams, 5 rounds, seed 1")
    assert "separated by" in lines[2] and "pts" in lines[2]
    body = lines[3:8]
    assert [ln.split()[1] for ln in body] == [s.team for s in res.standings]
    assert body[0].split()[2] == str(res.standings[0].points)
    assert f"champion: {res.champion}" in text
    assert "bye" in text
