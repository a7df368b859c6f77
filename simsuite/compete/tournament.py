"""Tournaments: pairing and running the formats, independent of how a match is played.

A match is played by a callback ``play_match(team_a, team_b, round_index, match_seed)`` that
returns a ``MatchResult``. This module only decides who meets whom, scores the results and ranks
the teams. It reads the variant's ``[tournament]`` fields and never branches on a variant's id.

Randomness
    Lots (draws, byes, the ``lots`` tie-break) come only from ``numpy.random.default_rng(seed)``.
    Match seeds come from ``numpy.random.SeedSequence``: the match at table ``t`` of round ``r``
    gets ``SeedSequence(seed).spawn(r + 1)[r].spawn(t + 1)[t]`` (see ``match_seed``), so a match
    seed depends only on the tournament seed, the round and the table.

Formats (``tournament_format``)
    swiss (school-2016, 一、3)
        Round 1 is drawn by lot. Later rounds rank the teams on the standings after the previous
        round and pair 1v2, 3v4, ... A team that met its would-be opponent within the last
        ``no_rematch_rounds`` rounds takes the next ranked opponent (school-2016: 1, only the
        previous round, "如上一轮双方已对阵"). Algorithm (``pair_by_order``): greedy from the
        top; the highest unpaired team takes the highest-ranked allowed opponent, and when the
        last teams are stuck the search backtracks to the latest choice that has another
        allowed opponent. If no pairing avoids every rematch, rematches are allowed for that
        round (plain 1v2, 3v4) and a note says so [default].
        Odd field: the lowest-ranked team that has not had a bye gets the bye, scored as a win
        (``points_win``, level difference 0, level reached = ``start_level``) [default]. If that
        leaves the rest unpairable, the next-lowest such team gets it instead.
        Standings between rounds need a full order, so ties still level after every tie-break
        are settled by lot each round; the text ties them ("按并列计算") [default].
    drawn (baiyun-2016, (八)1)
        Every round is drawn by lot. Immediate rematches are avoided when possible
        (``drawn_avoid_rounds=1``) [default]: the pairing search runs over the drawn order.
        Odd field: a bye by lot among the teams with the fewest byes, scored as a win [default].
    knockout (two-deck-2011, 一 and 四、1)
        Lots are drawn every round ("每轮赛完都进行抽签"). Every knock-out match must have a
        winner: draws are settled upstream by the match's tie rule, so a ``MatchResult`` without
        a winner raises ``TournamentError``.
        single: in the first round the field is brought to a power of two by byes drawn by lot;
        winners go on. double (``elimination = "double"`` or the ``elimination`` argument):
        every round pairs the unbeaten teams (winners' bracket) and the once-beaten teams
        (losers' bracket) by lot, each bracket on its own; a team is out after two losses; an
        odd bracket gives a bye by lot to a team with the fewest byes. When one unbeaten team
        and one once-beaten team are left they play the final; if the losers'-bracket team wins
        it, both have one loss and one more match decides (``double_final_decider=True``)
        [default]. Knock-out byes advance without points. The knock-out ranking orders teams
        by the round they went out in (the champion first), then points, then the tie-breaks.
    session (guangxi-2012, 第一章5-6)
        One long session between exactly two teams (``rounds`` sessions if ``rounds`` > 1).

Points and ranking
    Win ``points_win``, draw ``points_draw``, loss ``points_loss``; the standings rank points, then
    the variant's ``tiebreaks`` in order (``simsuite.compete.ranking``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..rules.variant import CHOICES, Variant
from .ranking import RoundEntry, Separation, Standing, TournamentError, rank_standings

__all__ = [
    "MatchResult",
    "Pairing",
    "RoundRecord",
    "TournamentResult",
    "match_seed",
    "pair_by_order",
    "run_tournament",
]


# --- records -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class MatchResult:
    """One match as the caller's ``play_match`` reports it.

    ``levels_a``/``levels_b`` are the final level ranks (0 = "2", 12 = "A"); ``winner`` is a team
    id or ``None`` for a draw; ``how`` says briefly how it was decided ("levels", "on_stage", ...).
    """

    team_a: str
    team_b: str
    levels_a: int
    levels_b: int
    winner: str | None
    how: str = ""

    def __post_init__(self):
        if self.team_a == self.team_b:
            raise TournamentError(f"a match needs two different teams, got {self.team_a!r} twice")
        for name in ("levels_a", "levels_b"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise TournamentError(f"MatchResult.{name} must be an integer level rank, got {value!r}")
        if self.winner is not None and self.winner not in (self.team_a, self.team_b):
            raise TournamentError(f"MatchResult winner {self.winner!r} is neither {self.team_a!r} nor {self.team_b!r}")


PlayMatch = Callable[[str, str, int, int], MatchResult]


@dataclass(frozen=True)
class Pairing:
    """A table of a round. ``team_b is None`` is a bye for ``team_a``."""

    round_index: int
    table: int
    team_a: str
    team_b: str | None
    match_seed: int | None
    result: MatchResult | None
    bracket: str = ""


@dataclass(frozen=True)
class RoundRecord:
    index: int
    pairings: tuple[Pairing, ...]
    order: tuple[str, ...]  # the order the round was paired from (standings or the draw)
    rematches_allowed: bool = False


@dataclass(frozen=True)
class TournamentResult:
    variant_id: str
    tournament_format: str
    elimination: str
    seed: int
    teams: tuple[str, ...]
    standings: tuple[Standing, ...]
    rounds: tuple[RoundRecord, ...]
    champion: str | None
    separations: tuple[Separation, ...]
    notes: tuple[str, ...] = field(default=())

    def standing(self, team: str) -> Standing:
        for row in self.standings:
            if row.team == team:
                return row
        raise KeyError(team)


# --- seeds and pairing -------------------------------------------------------------------------


def match_seed(seed: int, round_index: int, table: int) -> int:
    """The seed of the match at ``table`` of ``round_index``: 32 bits of
    ``SeedSequence(seed).spawn(round_index + 1)[round_index].spawn(table + 1)[table]``."""
    ss = np.random.SeedSequence(seed, spawn_key=(round_index, table))
    return int(ss.generate_state(1, dtype=np.uint32)[0])


class _SearchTooLong(Exception):
    pass


def pair_by_order(
    order: Sequence[str], forbidden: Callable[[str, str], bool], max_steps: int = 200_000
) -> list[tuple[str, str]] | None:
    """Pair an even list in order: greedy from the top with backtracking.

    The first unpaired team takes the next team in ``order`` it may meet (``forbidden(a, b)`` is
    false); the rest are paired the same way. If the teams left at the end cannot all be paired,
    the search goes back to the latest choice and tries that team's next allowed opponent. Gives
    the first pairing in this order, or ``None`` if none exists (or the search is too long).
    """
    if len(order) % 2:
        raise TournamentError(f"cannot pair an odd number of teams ({len(order)})")
    steps = 0

    def rec(rest: list[str]) -> list[tuple[str, str]] | None:
        nonlocal steps
        if not rest:
            return []
        steps += 1
        if steps > max_steps:
            raise _SearchTooLong
        top, others = rest[0], rest[1:]
        for i, cand in enumerate(others):
            if forbidden(top, cand):
                continue
            sub = rec(others[:i] + others[i + 1 :])
            if sub is not None:
                return [(top, cand)] + sub
        return None

    try:
        return rec(list(order))
    except _SearchTooLong:
        return None


# --- the run -----------------------------------------------------------------------------------


class _Run:
    def __init__(
        self,
        variant: Variant,
        teams: list[str],
        play_match: PlayMatch,
        seed: int,
        elimination: str,
        drawn_avoid_rounds: int,
        double_final_decider: bool,
    ):
        self.v = variant
        self.drawn_avoid_rounds = drawn_avoid_rounds
        self.double_final_decider = double_final_decider
        self.teams = teams
        self.play_match = play_match
        self.seed = seed
        self.elimination = elimination
        self.rng = np.random.default_rng(seed)
        self.entries: dict[str, list[RoundEntry]] = {t: [] for t in teams}
        self.rounds: list[RoundRecord] = []
        self.notes: list[str] = []

    # scoring
    def _points(self, outcome: str) -> int:
        return {"win": self.v.points_win, "draw": self.v.points_draw, "loss": self.v.points_loss}[outcome]

    def byes(self, team: str) -> int:
        return sum(e.opponent is None for e in self.entries[team])

    def met_within(self, a: str, b: str, round_index: int, window: int) -> bool:
        return any(e.opponent == b and round_index - window <= e.round_index < round_index for e in self.entries[a])

    def play(self, r: int, table: int, a: str, b: str, bracket: str = "", need_winner: bool = False) -> Pairing:
        s = match_seed(self.seed, r, table)
        res = self.play_match(a, b, r, s)
        if not isinstance(res, MatchResult):
            raise TournamentError(
                f"play_match({a!r}, {b!r}, round {r}) returned {type(res).__name__}, not a MatchResult"
            )
        if (res.team_a, res.team_b) != (a, b):
            raise TournamentError(
                f"play_match({a!r}, {b!r}, round {r}) returned a result for {res.team_a!r} v {res.team_b!r}"
            )
        if need_winner and res.winner is None:
            raise TournamentError(
                f"knock-out match {a} v {b} in round {r + 1} ended in a draw ({res.how or 'no winner'}): a knock-out "
                f"match must have a winner; the match's tie rule (tie_rule) must decide it before it reaches the tournament"
            )
        for me, opp, lv_me, lv_opp in ((a, b, res.levels_a, res.levels_b), (b, a, res.levels_b, res.levels_a)):
            outcome = "draw" if res.winner is None else ("win" if res.winner == me else "loss")
            self.entries[me].append(
                RoundEntry(
                    r,
                    opp,
                    outcome,
                    self._points(outcome),
                    int(lv_me) - int(lv_opp),
                    int(lv_me),
                    int(lv_opp),
                    res.how,
                    bracket,
                )
            )
        return Pairing(r, table, a, b, s, res, bracket)

    def bye(self, r: int, table: int, team: str, scored: bool, bracket: str = "") -> Pairing:
        if scored:
            entry = RoundEntry(r, None, "win", self.v.points_win, 0, self.v.start_level, None, "bye", bracket)
        else:
            entry = RoundEntry(r, None, "bye", 0, 0, self.v.start_level, None, "bye", bracket)
        self.entries[team].append(entry)
        self.notes.append(f"round {r + 1}: bye for {team}" + (" (scored as a win)" if scored else ""))
        return Pairing(r, table, team, None, None, None, bracket)

    def ranking(self, through_round: int | None, eliminated_in=None) -> list[Standing]:
        return rank_standings(
            self.entries, self.v.tiebreaks, self.rng, through_round=through_round, eliminated_in=eliminated_in
        )

    def draw_order(self, teams: Sequence[str]) -> list[str]:
        return [teams[i] for i in self.rng.permutation(len(teams))]

    # round-robin-like formats: Swiss and drawn
    def pair_round(self, r: int, order: list[str], window: int) -> tuple[list[tuple[str, str]], str | None, bool]:
        """Pair ``order`` (best first) avoiding meetings within ``window`` rounds; the bye (odd
        field) goes to the lowest in ``order`` among the teams with the fewest byes."""
        forbid = (lambda a, b: self.met_within(a, b, r, window)) if window > 0 else (lambda a, b: False)
        if len(order) % 2 == 0:
            pairs = pair_by_order(order, forbid)
            if pairs is not None:
                return pairs, None, False
            return pair_by_order(order, lambda a, b: False), None, True
        fewest = min(self.byes(t) for t in order)
        candidates = [t for t in reversed(order) if self.byes(t) == fewest]
        candidates += [t for t in reversed(order) if self.byes(t) != fewest]
        for cand in candidates:
            pairs = pair_by_order([t for t in order if t != cand], forbid)
            if pairs is not None:
                return pairs, cand, False
        cand = candidates[0]
        return pair_by_order([t for t in order if t != cand], lambda a, b: False), cand, True

    def run_paired(self, fmt: str) -> None:
        window = self.v.no_rematch_rounds if fmt == "swiss" else self.drawn_avoid_rounds
        for r in range(self.v.rounds):
            if fmt == "swiss" and r > 0:
                order = [row.team for row in self.ranking(through_round=r - 1)]
            else:
                order = self.draw_order(self.teams)
            pairs, bye_team, relaxed = self.pair_round(r, order, window)
            if relaxed:
                self.notes.append(
                    f"round {r + 1}: no pairing avoids a meeting within {window} round(s); rematches allowed"
                )
            pairings = [self.play(r, t, a, b) for t, (a, b) in enumerate(pairs)]
            if bye_team is not None:
                pairings.append(self.bye(r, len(pairs), bye_team, scored=True))
            self.rounds.append(RoundRecord(r, tuple(pairings), tuple(order), relaxed))

    def run_session(self) -> None:
        if len(self.teams) != 2:
            raise TournamentError(
                f"a session tournament is one long session between exactly two teams, got {len(self.teams)}"
            )
        if self.v.rounds != 1:
            self.notes.append(f"{self.v.rounds} sessions between the two teams (rounds = {self.v.rounds})")
        a, b = self.teams
        for r in range(self.v.rounds):
            p = self.play(r, 0, a, b)
            self.rounds.append(RoundRecord(r, (p,), (a, b)))

    # knock-out
    def run_single(self) -> dict[str, int | None]:
        out: dict[str, int | None] = {t: None for t in self.teams}
        alive = list(self.teams)
        r = 0
        while len(alive) > 1:
            order = self.draw_order(alive)
            if r == 0:
                size = 1 << (len(order) - 1).bit_length()
                nbyes = size - len(order)
            else:
                nbyes = len(order) % 2
            players, bye_teams = order[: len(order) - nbyes], order[len(order) - nbyes :]
            pairings, winners = [], []
            for t in range(len(players) // 2):
                a, b = players[2 * t], players[2 * t + 1]
                p = self.play(r, t, a, b, need_winner=True)
                loser = b if p.result.winner == a else a
                out[loser] = r
                winners.append(p.result.winner)
                pairings.append(p)
            for i, team in enumerate(bye_teams):
                pairings.append(self.bye(r, len(players) // 2 + i, team, scored=False))
            self.rounds.append(RoundRecord(r, tuple(pairings), tuple(order)))
            alive = winners + bye_teams
            r += 1
        if r != self.v.rounds:
            self.notes.append(
                f"single elimination of {len(self.teams)} teams took {r} rounds (variant rounds = {self.v.rounds})"
            )
        return out

    def _bracket_round(self, r: int, table: int, teams: list[str], bracket: str, pairings: list[Pairing]):
        order = self.draw_order(teams)
        bye_team = None
        if len(order) % 2:
            fewest = min(self.byes(t) for t in order)
            bye_team = next(t for t in reversed(order) if self.byes(t) == fewest)
            order.remove(bye_team)
        winners, losers = [], []
        for i in range(len(order) // 2):
            p = self.play(r, table, order[2 * i], order[2 * i + 1], bracket=bracket, need_winner=True)
            table += 1
            w = p.result.winner
            winners.append(w)
            losers.append(order[2 * i + 1] if w == order[2 * i] else order[2 * i])
            pairings.append(p)
        if bye_team is not None:
            pairings.append(self.bye(r, table, bye_team, scored=False, bracket=bracket))
            table += 1
            winners.append(bye_team)
        return winners, losers, table

    def run_double(self) -> dict[str, int | None]:
        out: dict[str, int | None] = {t: None for t in self.teams}
        wb, lb = list(self.teams), []
        r = 0
        while not (len(wb) == 1 and len(lb) <= 1):
            pairings: list[Pairing] = []
            table = 0
            new_lb: list[str] = []
            if len(wb) >= 2:
                wb, dropped, table = self._bracket_round(r, table, wb, "winners", pairings)
                new_lb = dropped
            if len(lb) >= 2:
                lb, gone, table = self._bracket_round(r, table, lb, "losers", pairings)
                for t in gone:
                    out[t] = r
            lb = lb + new_lb
            self.rounds.append(RoundRecord(r, tuple(pairings), tuple(p.team_a for p in pairings)))
            r += 1
        a, b = wb[0], lb[0]
        p = self.play(r, 0, a, b, bracket="final", need_winner=True)
        self.rounds.append(RoundRecord(r, (p,), (a, b)))
        if p.result.winner == a:
            out[b] = r
            return out
        if not self.double_final_decider:
            out[a] = r
            self.notes.append(f"final: losers'-bracket team {b} won; no decider (double_final_decider=False)")
            return out
        self.notes.append(f"final: losers'-bracket team {b} beat {a}; both have one loss, a decider is played")
        r += 1
        p = self.play(r, 0, a, b, bracket="decider", need_winner=True)
        self.rounds.append(RoundRecord(r, (p,), (a, b)))
        out[b if p.result.winner == a else a] = r
        return out


def run_tournament(
    variant: Variant,
    teams: list[str],
    play_match: PlayMatch,
    seed: int,
    *,
    elimination: str | None = None,
    drawn_avoid_rounds: int = 1,
    double_final_decider: bool = True,
) -> TournamentResult:
    """Run ``variant``'s tournament among ``teams``; matches are played by ``play_match``.

    ``elimination`` overrides ``variant.elimination`` ("single" or "double") for a knock-out.
    ``drawn_avoid_rounds``: a drawn format avoids meetings within this many rounds when it can
    [default 1]. ``double_final_decider``: in double elimination, a losers'-bracket win in the
    final forces one more match [default True].
    """
    fmt = variant.tournament_format
    if fmt not in CHOICES["tournament_format"]:
        raise TournamentError(
            f"unknown tournament_format {fmt!r}; formats are {', '.join(CHOICES['tournament_format'])}"
        )
    elim = variant.elimination if elimination is None else elimination
    if elim not in CHOICES["elimination"]:
        raise TournamentError(f"elimination must be one of {', '.join(CHOICES['elimination'])}, got {elim!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise TournamentError(f"seed must be a non-negative integer, got {seed!r}")
    teams = list(teams)
    if not all(isinstance(t, str) and t for t in teams):
        raise TournamentError(f"team ids must be non-empty strings, got {teams!r}")
    dupes = sorted({t for t in teams if teams.count(t) > 1})
    if dupes:
        raise TournamentError(f"team ids must be unique; repeated: {', '.join(dupes)}")
    if len(teams) < 2:
        raise TournamentError(f"a tournament needs at least two teams, got {len(teams)}: {teams!r}")
    if drawn_avoid_rounds < 0:
        raise TournamentError(f"drawn_avoid_rounds must be at least 0, got {drawn_avoid_rounds}")

    run = _Run(variant, teams, play_match, int(seed), elim, drawn_avoid_rounds, double_final_decider)
    eliminated: dict[str, int | None] | None = None
    if fmt in ("swiss", "drawn"):
        run.run_paired(fmt)
    elif fmt == "session":
        run.run_session()
    else:
        eliminated = run.run_double() if elim == "double" else run.run_single()

    standings = run.ranking(through_round=None, eliminated_in=eliminated)
    if eliminated is not None:
        champion = next(t for t, out in eliminated.items() if out is None)
    elif len(standings) > 1 and standings[1].separated_by == "tied":
        champion = None
        run.notes.append(
            "first place is shared: no tie-break separates " + ", ".join(s.team for s in standings if s.rank == 1)
        )
    else:
        champion = standings[0].team
    separations = tuple(
        Separation(standings[i - 1].team, standings[i].team, standings[i].separated_by)
        for i in range(1, len(standings))
    )
    return TournamentResult(
        variant_id=variant.id,
        tournament_format=fmt,
        elimination=elim,
        seed=int(seed),
        teams=tuple(teams),
        standings=tuple(standings),
        rounds=tuple(run.rounds),
        champion=champion,
        separations=separations,
        notes=tuple(run.notes),
    )
