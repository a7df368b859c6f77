"""The final standings of a tournament as a plain-text table, then the champion and the notes."""

from __future__ import annotations

from ..compete.ranking import RoundEntry
from ..compete.tournament import TournamentResult
from ..rules.cards import RANK_NAMES


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
        rows.append([
            str(s.rank), s.team, str(s.points), str(s.wins), str(s.draws), str(s.losses),
            f"{s.level_diff:+d}", str(s.levels), s.separated_by or "",
            "  ".join(_round_cell(e) for e in s.rounds),
        ])
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
