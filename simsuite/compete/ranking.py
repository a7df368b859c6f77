"""Tournament ranking: standings from the teams' round entries, by points then the variant's tie-breaks.

Win ``points_win``, draw ``points_draw``, loss ``points_loss``. Ranking: points, then the
variant's ``tiebreaks`` in order:
``round_points`` (that round's points), ``round_level_diff`` (that round's level difference,
8:2 = +6), ``round_level`` (level reached in that round), ``total_level_diff``,
``total_levels`` (sum of levels reached), ``lots`` (a seeded draw; lot 1 ranks first).
"That round" is the round the ranking is taken after; for the final ranking it is the last
round (for a team that did not play it, its latest round). school-2016's text has two blocks
(this round, then cumulative) each ending in a shared place, with lots only after the last
round; the single chain read in order is the digest's reading [default]. If nothing
separates two teams they share a rank. Every adjacent pair of ranked teams records the
criterion that separated them (``Standing.separated_by``, ``TournamentResult.separations``).

``TournamentError`` and the round entries live here, below ``simsuite.compete.tournament``, which
runs the formats and ranks through ``rank_standings``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import SimsuiteError
from ..rules.variant import CHOICES

__all__ = [
    "TournamentError",
    "RoundEntry",
    "Standing",
    "Separation",
    "rank_standings",
]

TIEBREAKS = CHOICES["tiebreaks"]


class TournamentError(SimsuiteError):
    """A tournament that cannot be run: bad teams, a bad variant field, or a bad match result."""


# --- records -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundEntry:
    """One team's result in one round.

    ``outcome`` is "win", "draw", "loss" or "bye" (a knock-out bye: goes on, no points). A Swiss
    or drawn bye is a "win" with ``opponent=None`` and ``how="bye"``.
    """

    round_index: int
    opponent: str | None
    outcome: str
    points: int
    level_diff: int
    level: int
    opponent_level: int | None = None
    how: str = ""
    bracket: str = ""


@dataclass(frozen=True)
class Standing:
    """A team's row in a ranking. ``tiebreak_values`` holds the value of every criterion used;
    ``separated_by`` names the criterion that put this team below the one above (``None`` for
    the first row, "tied" when nothing did and the two share a rank)."""

    team: str
    rank: int
    points: int
    wins: int
    draws: int
    losses: int
    byes: int
    level_diff: int
    levels: int
    rounds: tuple[RoundEntry, ...]
    tiebreak_values: Mapping[str, float]
    separated_by: str | None
    eliminated_in: int | None = None


@dataclass(frozen=True)
class Separation:
    """Two adjacent teams of the standings and the criterion that ranked ``below`` under ``above``."""

    above: str
    below: str
    criterion: str


# --- ranking -----------------------------------------------------------------------------------


def _criterion_values(entries: Sequence[RoundEntry], through_round: int | None) -> dict[str, float]:
    es = [e for e in entries if through_round is None or e.round_index <= through_round]
    last = max(es, key=lambda e: e.round_index) if es else None
    return {
        "points": sum(e.points for e in es),
        "round_points": last.points if last else 0,
        "round_level_diff": last.level_diff if last else 0,
        "round_level": last.level if last else 0,
        "total_level_diff": sum(e.level_diff for e in es),
        "total_levels": sum(e.level for e in es),
    }


def rank_standings(
    entries: Mapping[str, Sequence[RoundEntry]],
    tiebreaks: Sequence[str],
    rng: np.random.Generator | None = None,
    *,
    through_round: int | None = None,
    eliminated_in: Mapping[str, int | None] | None = None,
) -> list[Standing]:
    """Rank teams from their round entries: points, then ``tiebreaks`` in order.

    ``through_round`` ranks on rounds up to and including it (``None``: all); the ``round_*``
    tie-breaks use that round (a team's latest round up to it). ``lots`` needs ``rng``.
    ``eliminated_in`` (knock-out) puts a criterion "stage" first: later elimination ranks higher,
    ``None`` (never out, the champion) highest.
    """
    for tb in tiebreaks:
        if tb not in TIEBREAKS:
            raise TournamentError(f"unknown tie-break {tb!r}; tie-breaks are {', '.join(TIEBREAKS)}")
    teams = list(entries)
    criteria = (["stage"] if eliminated_in is not None else []) + ["points"] + list(tiebreaks)
    values: dict[str, dict[str, float]] = {t: _criterion_values(entries[t], through_round) for t in teams}
    if "lots" in tiebreaks:
        if rng is None:
            raise TournamentError("the 'lots' tie-break needs a random generator (rng)")
        perm = rng.permutation(len(teams))
        for i, t in enumerate(teams):
            values[t]["lots"] = int(perm[i]) + 1
    if eliminated_in is not None:
        for t in teams:
            out = eliminated_in.get(t)
            values[t]["stage"] = float("inf") if out is None else out

    def key(t: str) -> tuple:
        # Higher is better for every criterion except lots (lot 1 first).
        return tuple(values[t][c] if c == "lots" else -values[t][c] for c in criteria)

    ranked = sorted(teams, key=key)
    rows: list[Standing] = []
    for pos, t in enumerate(ranked):
        sep: str | None = None
        rank = pos + 1
        if pos:
            above = ranked[pos - 1]
            sep = next((c for c in criteria if values[above][c] != values[t][c]), "tied")
            if sep == "tied":
                rank = rows[-1].rank
        es = tuple(
            sorted(
                (e for e in entries[t] if through_round is None or e.round_index <= through_round),
                key=lambda e: e.round_index,
            )
        )
        rows.append(
            Standing(
                team=t,
                rank=rank,
                points=int(values[t]["points"]),
                wins=sum(e.outcome == "win" for e in es),
                draws=sum(e.outcome == "draw" for e in es),
                losses=sum(e.outcome == "loss" for e in es),
                byes=sum(e.opponent is None for e in es),
                level_diff=int(values[t]["total_level_diff"]),
                levels=int(values[t]["total_levels"]),
                rounds=es,
                tiebreak_values={c: values[t][c] for c in criteria},
                separated_by=sep,
                eliminated_in=None if eliminated_in is None else eliminated_in.get(t),
            )
        )
    return rows
