"""A readable account of one match: a line per hand, then the end."""

from __future__ import annotations

from ..rules.cards import RANK_NAMES, SEATS, TEAMS
from ..rules.order import format_trump
from ..rules.variant import Variant
from ..sim.match import MatchRecord
from .text import table


def level_name(level: int, variant: Variant) -> str:
    """A team's level by its rank name, "past A" once it has passed the variant's end level."""
    if level > variant.end_level:
        return f"past {RANK_NAMES[variant.end_level]}"
    return RANK_NAMES[level]


def format_match(variant: Variant, m: MatchRecord) -> str:
    head = (
        f"{variant.id}: match {m.match} of seed {m.seed}; NS {m.policies[0]}/{m.policies[2]}, "
        f"EW {m.policies[1]}/{m.policies[3]}; levels {RANK_NAMES[variant.start_level]} to past "
        f"{RANK_NAMES[variant.end_level]}"
    )
    clock = "untimed" if not variant.match_minutes else f"{variant.match_minutes} min"
    if variant.warning_minute:
        clock += f", warning at {variant.warning_minute} then {variant.hands_after_warning} more hand(s)"
    if variant.no_new_hand_minutes:
        clock += f", no new hand in the last {variant.no_new_hand_minutes} min"
    rows = []
    elapsed = 0.0
    for i, (h, lv) in enumerate(zip(m.hand_records, m.level_history)):
        elapsed += h["minutes_x100"] / 100.0
        team = TEAMS[h["declarers"]]
        if h["takeover"]:
            result = f"take-over, {TEAMS[1 - h['declarers']]} +{h['levels_ns'] + h['levels_ew']}"
        else:
            result = f"hold, {team} +{h['levels_ns'] + h['levels_ew']}"
        cap = f"x{h['capture_multiplier']} {h['capture_points']:+d}" if h["capture_by"] else "-"
        rows.append(
            [
                i + 1,
                SEATS[h["dealer"]],
                team,
                RANK_NAMES[h["level"]],
                "NT" if h["trump"] < 0 else format_trump(h["trump"]),
                h["final_points"],
                cap,
                result,
                f"{level_name(lv[0], variant)} : {level_name(lv[1], variant)}",
                f"{elapsed:.0f}",
            ]
        )
    body = table(
        ["hand", "dealer", "declare", "level", "trump", "def. points", "capture", "outcome", "NS : EW", "minute"], rows
    )
    if m.winner is None:
        verdict = "a draw"
    else:
        verdict = f"{TEAMS[m.winner]} win"
    why = {
        "level": f"passing {RANK_NAMES[variant.end_level]}",
        "clock": "the clock"
        + (
            " (equal levels: the team on stage wins)"
            if m.winner is not None and m.final_levels[0] == m.final_levels[1]
            else ""
        ),
        "hand cap": "the hand cap",
    }[m.ended_by]
    end = (
        f"end after {m.hands} hands and {m.minutes:.0f} modelled minutes: {verdict}, by {why}; "
        f"levels NS {level_name(m.final_levels[0], variant)}, EW {level_name(m.final_levels[1], variant)}; "
        f"lead changes {m.lead_changes}"
    )
    return "\n".join([head, f"clock: {clock}", body, end]) + "\n"
