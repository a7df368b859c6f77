"""Tournaments of policy teams: the glue between ``tournament`` (who meets whom) and ``sim.match``
(how a match is played), and repeated tournaments with intervals."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..analysis.stats import Estimate, wilson
from ..errors import SimsuiteError
from ..rules.variant import Variant
from ..sim.match import MatchRecord, play_match
from .tournament import MatchResult, TournamentResult, run_tournament


def make_teams(n: int, policies: list[str]) -> dict[str, str]:
    """``n`` teams named T1..Tn with policies taken in turn from ``policies``."""
    if n < 2:
        raise SimsuiteError(f"a tournament needs at least 2 teams; got {n}")
    if not policies:
        raise SimsuiteError("give at least one policy")
    width = len(str(n))
    return {f"T{i + 1:0{width}d}-{policies[i % len(policies)]}": policies[i % len(policies)] for i in range(n)}


def run_policy_tournament(
    variant: Variant, teams: dict[str, str], seed: int, elimination: str | None = None, max_hands: int | None = None
) -> tuple[TournamentResult, list[MatchRecord]]:
    """One tournament of ``teams`` (name -> policy); returns the result and every match record."""
    records: list[MatchRecord] = []

    def play(a: str, b: str, round_index: int, match_seed: int) -> MatchResult:
        rec = play_match(variant, match_seed, 0, f"{teams[a]},{teams[b]}", max_hands=max_hands)
        records.append(rec)
        winner = None if rec.winner is None else (a if rec.winner == 0 else b)
        levels_a, levels_b = rec.final_levels
        return MatchResult(a, b, levels_a, levels_b, winner, rec.ended_by)

    result = run_tournament(variant, list(teams), play, seed, elimination=elimination)
    return result, records


@dataclass(frozen=True)
class RepeatResult:
    variant: str
    repeats: int
    first: dict[str, Estimate]  # team -> share of tournaments won
    policy_first: dict[str, Estimate]  # policy -> share of tournaments won by a team of that policy


def repeat_tournaments(
    variant: Variant, teams: dict[str, str], seed: int, repeats: int, elimination: str | None = None
) -> RepeatResult:
    """Run ``repeats`` tournaments (seeds seed, seed+1, ...) and count the champions."""
    if repeats < 1:
        raise SimsuiteError("--repeat must be at least 1")
    champs: Counter[str] = Counter()
    for k in range(repeats):
        result, _ = run_policy_tournament(variant, teams, seed + k, elimination)
        champs[result.champion] += 1
    by_policy: Counter[str] = Counter()
    for team, wins in champs.items():
        by_policy[teams[team]] += wins
    return RepeatResult(
        variant.id,
        repeats,
        {t: wilson(champs[t], repeats) for t in teams},
        {p: wilson(by_policy[p], repeats) for p in dict.fromkeys(teams.values())},
    )
