"""The text and JSON of ``simsuite tournament``: one tournament's final standings, then the champion and
the notes; or, over repeated tournaments, each team's and each policy's share of them won."""

from __future__ import annotations

from ..compete.competition import RepeatResult
from ..compete.ranking import RoundEntry
from ..compete.tournament import TournamentResult
from ..rules.cards import RANK_NAMES
from .text import table


def _level_name(level: int | None) -> str:
    if level is None:
        return "-"
    return RANK_NAMES[level] if 0 <= level < len(RANK_NAMES) else str(level)


def _round_cell(e: RoundEntry) -> str:
    if e.opponent is None:
        return f"{e.round_index + 1}:bye"
    mark = {"win": "W", "draw": "D", "loss": "L"}.get(e.outcome, "?")
    return f"{e.round_index + 1}:{mark} v {e.opponent} {_level_name(e.level)}:{_level_name(e.opponent_level)}"


def format_standings(result: TournamentResult) -> str:
    """The final standings as a plain-text table, then the champion and the notes."""
    title = f"{result.variant_id}: {result.tournament_format}"
    if result.tournament_format == "knockout":
        title += f" ({result.elimination} elimination)"
    title += f", {len(result.teams)} teams, {len(result.rounds)} rounds, seed {result.seed}"
    header = ["#", "team", "pts", "W", "D", "L", "diff", "levels", "separated by", "rounds"]
    rows = []
    for s in result.standings:
        rows.append(
            [
                str(s.rank),
                s.team,
                str(s.points),
                str(s.wins),
                str(s.draws),
                str(s.losses),
                f"{s.level_diff:+d}",
                str(s.levels),
                s.separated_by or "",
                "  ".join(_round_cell(e) for e in s.rounds),
            ]
        )
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header) - 1)]
    lines = [title, ""]
    for r in [header] + rows:
        cells = [c.rjust(w) if i in (0, 2, 3, 4, 5, 6, 7) else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))]
        lines.append("  ".join(cells + [r[-1]]).rstrip())
    lines.append("")
    lines.append(f"champion: {result.champion if result.champion is not None else '(shared first place)'}")
    for note in result.notes:
        lines.append(f"note: {note}")
    return "\n".join(lines)


def standings_dict(result: TournamentResult, matches: int) -> dict:
    """One tournament as JSON: the champion, the standings, the matches played and the notes."""
    return {
        "variant": result.variant_id,
        "champion": result.champion,
        "standings": [
            {
                "rank": s.rank,
                "team": s.team,
                "points": s.points,
                "level_diff": s.level_diff,
                "separated_by": s.separated_by,
            }
            for s in result.standings
        ],
        "matches": matches,
        "notes": list(result.notes),
    }


def format_repeats(r: RepeatResult, teams: int, seed: int) -> str:
    """Repeated tournaments (seeds ``seed`` on): the share each team won, then each policy's teams."""
    return "\n".join(
        [
            f"{r.variant}: {r.repeats} tournaments of {teams} teams (seeds {seed}..{seed + r.repeats - 1}); "
            "share of tournaments won, 95% Wilson intervals",
            table(["team", "won the tournament"], [[t, e.fmt(pct=True)] for t, e in r.first.items()]),
            table(["policy", "a team of it won"], [[p, e.fmt(pct=True)] for p, e in r.policy_first.items()]),
        ]
    )


def repeats_dict(r: RepeatResult) -> dict:
    """Repeated tournaments as JSON: each team's and each policy's share won, with its interval."""
    return {
        "variant": r.variant,
        "repeats": r.repeats,
        "first": {t: e.as_dict() for t, e in r.first.items()},
        "policy_first": {p: e.as_dict() for p, e in r.policy_first.items()},
    }
