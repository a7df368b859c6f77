"""Rulings on a scenario under one variant, as plain data (the JSON of ``simsuite judge``)."""

from __future__ import annotations

from typing import Any

from ..errors import SimsuiteError
from .cards import RANK_NAMES, SEATS, format_cards, points_of, cards_to_counts
from .choices import CaptureScheme
from .declare import rule_bids
from .order import TRUMP, format_trump, hand_order
from .scenario import Scenario, check_against
from .scoring import capture, outcome
from .trick import rule_trick
from .units import counts_of
from .variant import Variant

TEAM_NAMES = ("NS", "EW")


def _fmt(play: dict[int, int] | list[int]) -> str:
    ids = play if isinstance(play, list) else [c for c, n in play.items() for _ in range(n)]
    return format_cards(ids)


def judge(scenario: Scenario, variant: Variant) -> dict[str, Any]:
    """Rule the scenario under ``variant``. Impossible situations give an ``error`` and no ruling."""
    out: dict[str, Any] = {"variant": variant.id, "error": None, "plays": [], "throw": None, "winner": None,
                           "trick_points": None, "end": None, "declare": None, "notes": []}
    problem = check_against(scenario, variant)
    if problem:
        out["error"] = problem
        return out
    try:
        _rule(scenario, variant, out)
    except SimsuiteError as exc:
        out.update({"error": str(exc), "plays": [], "throw": None, "winner": None, "trick_points": None, "end": None})
    return out


def _rule(s: Scenario, v: Variant, out: dict[str, Any]) -> None:
    if s.bids is not None:
        dealer = s.declare_dealer if s.declare_dealer is not None else s.dealer
        d = rule_bids(v, s.level, [(seat, cards) for seat, cards in s.bids], first_hand=s.first_hand,
                      dealer=dealer, bottom=s.bottom)
        out["declare"] = {
            "bids": [{"seat": SEATS[b.seat], "cards": format_cards(list(b.cards), sort=False), "accepted": b.accepted,
                      "kind": b.kind, "reason": b.reason} for b in d.bids],
            "trump": None if d.trump is None else format_trump(d.trump),
            "declarer": None if d.declarer is None else SEATS[d.declarer],
            "dealer": None if d.dealer is None else SEATS[d.dealer],
            "fallback": d.fallback,
        }
    if not s.plays and not s.has_end:
        return
    order = hand_order(v, s.level, s.trump)
    declarers = s.declarers
    dealer = s.dealer if s.dealer is not None else declarers  # N for NS, E for EW
    defender_points = s.defender_points
    trick = None
    if s.plays:
        hands = {seat: counts_of(cards) for seat, cards in s.hands.items()}
        trick = rule_trick(order, s.leader, [counts_of(p) for p in s.plays], hands, declarers)
        out["plays"] = [{"seat": SEATS[p.seat], "cards": _fmt(p.cards), "legal": p.legal, "shape": p.shape,
                         "reason": p.reason} for p in trick.plays]
        if trick.throw is not None:
            t = trick.throw
            out["throw"] = {"stands": t.stands, "consequence": t.consequence,
                            "defender_points_delta": t.defender_points_delta,
                            "forced_play": None if t.forced_play is None else _fmt(t.forced_play),
                            "failing_units": [u.shape for u in t.failing], "reason": t.reason}
        out["winner"] = None if trick.winner is None else SEATS[trick.winner]
        out["trick_points"] = trick.points
        out["notes"].extend(trick.notes)
        if not trick.lead.legal:
            out["notes"].append(f"the lead is illegal: {trick.lead.reason}")
    if not s.has_end:
        return
    end: dict[str, Any] = {"capture_by": None, "capture_multiplier": 0, "capture_points": 0, "capture_reason": None}
    penalty = 0
    forfeit = False
    if trick is not None:
        if trick.throw is not None and trick.throw.stands is False:
            penalty = trick.throw.defender_points_delta
            forfeit = trick.throw.consequence == "forfeit"
        if trick.winner is None and not forfeit:
            out["notes"].append("no winner for the last trick: the end of the hand is not ruled")
            out["end"] = None
            return
        if not forfeit:
            winner_team = trick.winner % 2
            if winner_team != declarers:
                defender_points += trick.points
            unit = trick.winning_unit
            c = capture(v, winner_team=winner_team, declarers=declarers,
                        unit_cards=unit.n_cards if unit is not None else 1,
                        won_with_trump=trick.winner_trump,
                        lead_cards=trick.lead_cards,
                        trick_points=trick.points,
                        bottom_points=points_of(cards_to_counts(s.bottom)) if s.bottom else 0)
            if (c.by is not None and not s.bottom and v.capture_scheme != CaptureScheme.LAST_TRICK_POINTS
                    and v.bottom_size):
                out["notes"].append("no [end] bottom given: the capture multiplies 0 points")
            end.update({"capture_by": c.by, "capture_multiplier": c.multiplier, "capture_points": c.points,
                        "capture_reason": c.reason})
            defender_points += c.points
    defender_points += penalty
    end["penalty"] = penalty
    if forfeit:
        thrower_team = s.leader % 2
        # huizhou 第七: "违反比赛规则者，对方直接上台或升一级"
        if thrower_team == declarers:
            defender_points = v.takeover
            out["notes"].append("forfeit by a declarer: the defenders take the stage directly, scored at the take-over "
                                "threshold (huizhou 第七: 对方直接上台)")
        else:
            defender_points = v.takeover - v.step
            out["notes"].append("forfeit by a defender: the declarers go up exactly one level (huizhou 第七: 升一级)")
    o = outcome(v, defender_points=defender_points, declarers=declarers, dealer=dealer)
    end.update({
        "defender_points": o.defender_points,
        "band": o.band,
        "takeover": o.takeover,
        "next_declarers": TEAM_NAMES[o.next_declarers],
        "next_dealer": SEATS[o.next_dealer],
        "level_change": {"NS": o.level_change[0], "EW": o.level_change[1]},
    })
    if s.levels:
        after = {}
        for team, name in enumerate(TEAM_NAMES):
            if team in s.levels:
                lvl = s.levels[team] + o.level_change[team]
                end_rank = RANK_NAMES[v.end_level]
                after[name] = RANK_NAMES[lvl] if lvl <= v.end_level else f"past {end_rank} (+{lvl - v.end_level})"
        end["levels_after"] = after
    out["end"] = end


def judge_all(scenario: Scenario, variants: list[Variant]) -> list[dict[str, Any]]:
    return [judge(scenario, v) for v in variants]


__all__ = ["judge", "judge_all", "TRUMP"]
