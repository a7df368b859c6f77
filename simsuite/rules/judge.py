"""Rulings on a scenario under one variant, as plain data (the JSON of ``simsuite judge``).

Each ruling names the variant fields that decided it (``rules``: the field, its value and the
clause of the original it cites), so a referee can read the clause behind every verdict. A field
decided a play when the rule reads it directly (the follow order for a follow compared by shape,
the throw test for a throw), or when flipping that yes/no field would change the verdict.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..errors import SimsuiteError
from . import follow
from .cards import RANK_NAMES, SEATS, cards_to_counts, format_cards, points_of
from .choices import CHOICES, CaptureBy, CaptureScheme, CaptureWith
from .declare import rule_bids
from .follow import lead_structure
from .order import TRUMP, format_trump, hand_order
from .scenario import Scenario, check_against
from .scoring import capture, outcome
from .trick import TrickRuling, rule_trick
from .units import counts_of
from .variant import SPEC_BY_NAME, Variant

TEAM_NAMES = ("NS", "EW")

# The follow order's terms (``follow_order``) in full, for a reader of the rulings: the words
# ``rules.follow.FOLLOW_TERMS`` gives them.
FOLLOW_TERMS = {name: term.meaning for name, term in follow.FOLLOW_TERMS.items()}
SHAPE_TERMS = (
    "a play's [shape] lists its units, largest first: 1 a single, 2 a pair, 3 a triple, 4 a quad; "
    "joined by + they are one tractor (2+2 two consecutive pairs, 3+3 two consecutive triples); "
    "a space separates units (2 2: two pairs that do not link; a lead of several units is a throw)"
)

# yes/no fields that can change how a trick is read: its units, the follow, who wins it
TRICK_SWITCHES = (
    "throws",
    "wide_tractors",
    "gap_over_level",
    "link_jokers",
    "link_small_joker_level",
    "link_level_off_level",
    "link_off_level_trump_ace",
    "link_permanent",
    "triple_pair_unit",
    "wide_counts_as_tractor",
    "lone_triple_counts",
    "wide_beats_pair_tractor",
    "bombs",
)
DECLARE_SWITCHES = (
    "self_override",
    "reinforce",
    "first_hand_needs_small_joker",
    "first_hand_declarer_deals",
    "override_takes_deal",
)


def cited(v: Variant, fields) -> list[dict[str, Any]]:
    """The fields that decided a ruling, each with its value and its citation (None: not cited)."""
    out = []
    values = v.to_toml_dict()
    for name in dict.fromkeys(fields):
        c = v.citations.get(name)
        out.append(
            {
                "field": name,
                "value": values[SPEC_BY_NAME[name].section][name],
                "cite": None if c is None else c.as_dict(),
            }
        )
    return out


def _flipped(v: Variant, name: str) -> Variant:
    """``v`` with one yes/no field the other way: a what-if, never a variant anyone plays."""
    return dataclasses.replace(v, **{name: not getattr(v, name)})


def _fmt(play: dict[int, int] | list[int]) -> str:
    ids = play if isinstance(play, list) else [c for c, n in play.items() for _ in range(n)]
    return format_cards(ids)


def judge(scenario: Scenario, variant: Variant) -> dict[str, Any]:
    """Rule the scenario under ``variant``. Impossible situations give an ``error`` and no ruling."""
    out: dict[str, Any] = {
        "variant": variant.id,
        "error": None,
        "plays": [],
        "throw": None,
        "winner": None,
        "winner_rules": [],
        "trick_points": None,
        "end": None,
        "declare": None,
        "notes": [],
    }
    problem = check_against(scenario, variant)
    if problem:
        out["error"] = problem
        return out
    try:
        _rule(scenario, variant, out)
    except SimsuiteError as exc:
        out.update(
            {
                "error": str(exc),
                "plays": [],
                "throw": None,
                "winner": None,
                "winner_rules": [],
                "trick_points": None,
                "end": None,
            }
        )
    return out


def _rule(s: Scenario, v: Variant, out: dict[str, Any]) -> None:
    if s.bids is not None:
        dealer = s.declare_dealer if s.declare_dealer is not None else s.dealer
        d = rule_bids(
            v,
            s.level,
            [(seat, cards) for seat, cards in s.bids],
            first_hand=s.first_hand,
            dealer=dealer,
            bottom=s.bottom,
        )
        bid_rules = _bid_rules(v, s, dealer, d)
        out["declare"] = {
            "bids": [
                {
                    "seat": SEATS[b.seat],
                    "cards": format_cards(list(b.cards), sort=False),
                    "accepted": b.accepted,
                    "kind": b.kind,
                    "reason": b.reason,
                    "rules": cited(v, bid_rules[i]),
                }
                for i, b in enumerate(d.bids)
            ],
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
        play_rules, winner_rules = _trick_rules(v, s, hands, declarers, trick)
        out["plays"] = [
            {
                "seat": SEATS[p.seat],
                "cards": _fmt(p.cards),
                "legal": p.legal,
                "shape": p.shape,
                "reason": p.reason,
                "rules": cited(v, play_rules[i]),
            }
            for i, p in enumerate(trick.plays)
        ]
        if trick.throw is not None:
            t = trick.throw
            out["throw"] = {
                "stands": t.stands,
                "consequence": t.consequence,
                "defender_points_delta": t.defender_points_delta,
                "forced_play": None if t.forced_play is None else _fmt(t.forced_play),
                "failing_units": [u.shape for u in t.failing],
                "reason": t.reason,
                "rules": cited(v, _throw_fields(t)),
            }
        out["winner"] = None if trick.winner is None else SEATS[trick.winner]
        out["winner_rules"] = cited(v, winner_rules)
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
            c = capture(
                v,
                winner_team=winner_team,
                declarers=declarers,
                unit_cards=unit.n_cards if unit is not None else 1,
                won_with_trump=trick.winner_trump,
                lead_cards=trick.lead_cards,
                trick_points=trick.points,
                bottom_points=points_of(cards_to_counts(s.bottom)) if s.bottom else 0,
            )
            if (
                c.by is not None
                and not s.bottom
                and v.capture_scheme != CaptureScheme.LAST_TRICK_POINTS
                and v.bottom_size
            ):
                out["notes"].append("no [end] bottom given: the capture multiplies 0 points")
            end.update(
                {
                    "capture_by": c.by,
                    "capture_multiplier": c.multiplier,
                    "capture_points": c.points,
                    "capture_reason": c.reason,
                    "capture_rules": cited(
                        v, _capture_fields(v, winner_team == declarers, trick.winner_trump, trick.lead_cards)
                    ),
                }
            )
            defender_points += c.points
    defender_points += penalty
    end["penalty"] = penalty
    if forfeit:
        thrower_team = s.leader % 2
        # huizhou 第七: "违反比赛规则者，对方直接上台或升一级"
        if thrower_team == declarers:
            defender_points = v.takeover
            out["notes"].append(
                "forfeit by a declarer: the defenders take the stage directly, scored at the take-over "
                "threshold (huizhou 第七: 对方直接上台)"
            )
        else:
            defender_points = v.takeover - v.step
            out["notes"].append("forfeit by a defender: the declarers go up exactly one level (huizhou 第七: 升一级)")
    o = outcome(v, defender_points=defender_points, declarers=declarers, dealer=dealer)
    end.update(
        {
            "defender_points": o.defender_points,
            "band": o.band,
            "takeover": o.takeover,
            "next_declarers": TEAM_NAMES[o.next_declarers],
            "next_dealer": SEATS[o.next_dealer],
            "level_change": {"NS": o.level_change[0], "EW": o.level_change[1]},
            "level_rules": cited(v, (["throw_failure"] if forfeit else []) + _band_fields(v, o.defender_points)),
            "dealer_rules": cited(v, ["dealer_rotation"]),
        }
    )
    if s.levels:
        after = {}
        for team, name in enumerate(TEAM_NAMES):
            if team in s.levels:
                lvl = s.levels[team] + o.level_change[team]
                end_rank = RANK_NAMES[v.end_level]
                after[name] = RANK_NAMES[lvl] if lvl <= v.end_level else f"past {end_rank} (+{lvl - v.end_level})"
        end["levels_after"] = after
    out["end"] = end


def _trick_rules(
    v: Variant, s: Scenario, hands, declarers: int, trick: TrickRuling
) -> tuple[list[list[str]], list[str]]:
    """The fields that decided each play of the trick, and those that decided its winner."""
    per_play: list[list[str]] = [[] for _ in trick.plays]
    winner: list[str] = []
    lead = trick.lead
    if lead.is_throw:
        per_play[0].append("throws")
    answered = lead.structure
    if trick.throw is not None and trick.throw.stands is False and trick.throw.forced_play is not None:
        answered = lead_structure(hand_order(v, s.level, s.trump), trick.throw.forced_play)
    if answered is not None and lead.legal:
        quad = len(answered.units) == 1 and answered.units[0].widths == (4,)
        order_field = "follow_order_quad_lead" if quad else "follow_order"
        order = hand_order(v, s.level, s.trump)
        for i, p in enumerate(trick.plays[1:], 1):
            hand = hands.get(p.seat)
            if p.legal is None or hand is None or sum(p.cards.values()) != answered.n_cards:
                continue
            held = sum(n for c, n in hand.items() if int(order.cls[c]) == answered.cls)
            played = sum(n for c, n in p.cards.items() if int(order.cls[c]) == answered.cls)
            if held > answered.n_cards and played == answered.n_cards:  # compared by shape, not by follow suit
                per_play[i].append(order_field)
        if lead.is_throw and trick.throw is not None and trick.throw.stands and trick.winner != trick.plays[0].seat:
            winner.append("throw_compare")
    for name in TRICK_SWITCHES:
        try:
            alt = rule_trick(
                hand_order(_flipped(v, name), s.level, s.trump),
                s.leader,
                [counts_of(p) for p in s.plays],
                hands,
                declarers,
            )
        except (ValueError, IndexError, KeyError):  # a what-if the real rules never reach: it decides nothing
            continue
        for i, (a, b) in enumerate(zip(trick.plays, alt.plays)):
            if (a.legal, a.shape) != (b.legal, b.shape):
                per_play[i].append(name)
        if alt.winner != trick.winner:
            winner.append(name)
    return per_play, winner


def _throw_fields(t) -> list[str]:
    """The throw fields that decided a throw's test and, when it failed, its consequence."""
    if t.stands is None:
        return ["throws"]
    fields = ["throws", "throw_test"]
    if t.stands is False:
        fields.append("throw_failure")
        if t.consequence == "penalty":
            fields += ["throw_penalty", "forced_play"]
    return fields


def _capture_fields(v: Variant, by_declarers: bool, with_trump: bool, lead_cards: int) -> list[str]:
    """The capture fields that decided the last trick's capture, in the order the rule reads them."""
    if by_declarers and v.capture_by == CaptureBy.DEFENDERS:
        return ["capture_by"]
    if v.capture_with == CaptureWith.TRUMP and not with_trump:
        return ["capture_by", "capture_with"]
    if lead_cards == 1 and not v.single_card_captures:
        return ["capture_by", "capture_with", "single_card_captures"]
    fields = ["capture_by", "capture_with", "capture_scheme"]
    if lead_cards == 1:
        fields.append("single_card_captures")
    if v.capture_scheme == CaptureScheme.PER_CARD:
        fields += ["capture_per_card" if with_trump else "capture_side_per_card", "capture_base"]
    elif v.capture_scheme == CaptureScheme.POWER:
        fields.append("capture_base")
    return fields


def _band_fields(v: Variant, p: int) -> list[str]:
    """The score fields that put the defenders' points ``p`` in their band."""
    if p >= v.takeover:
        return ["takeover", "step", "takeover_bonus"] + (["defender_cap"] if v.defender_cap else [])
    if p <= 0 and v.zero_bonus > 0:
        return ["zero_bonus"] + (["below_zero_step", "step"] if p < 0 else [])
    return ["takeover", "step"] + (["declarer_cap"] if v.declarer_cap else [])


def _bid_rules(v: Variant, s: Scenario, dealer, d) -> list[list[str]]:
    """The declaring fields that decided each bid: the one its kind reads, and any field whose
    other setting (a yes/no flipped, a count of 1, another choice) would change the bid's fate."""
    kind_field = {"declare": "min_declare", "override": "min_override", "reinforce": "reinforce"}
    per_bid: list[list[str]] = [[kind_field[b.kind]] if b.kind in kind_field else [] for b in d.bids]
    bids = [(seat, cards) for seat, cards in s.bids]
    whatifs = [(name, _flipped(v, name)) for name in DECLARE_SWITCHES]
    whatifs += [
        (name, dataclasses.replace(v, **{name: 1})) for name in ("min_declare", "min_override") if getattr(v, name) > 1
    ]
    whatifs += [
        (name, dataclasses.replace(v, **{name: other}))
        for name in ("tie_break", "joker_bids", "self_override_scope")
        for other in CHOICES[name]
        if other != getattr(v, name)
    ]
    for name, alt_variant in whatifs:
        try:
            alt = rule_bids(alt_variant, s.level, bids, first_hand=s.first_hand, dealer=dealer, bottom=s.bottom)
        except (ValueError, IndexError, KeyError):  # a what-if the real rules never reach: it decides nothing
            continue
        for i, (a, b) in enumerate(zip(d.bids, alt.bids)):
            if (a.accepted, a.kind) != (b.accepted, b.kind) and name not in per_bid[i]:
                per_bid[i].append(name)
    return per_bid


def judge_all(scenario: Scenario, variants: list[Variant]) -> list[dict[str, Any]]:
    return [judge(scenario, v) for v in variants]


__all__ = ["judge", "judge_all", "cited", "FOLLOW_TERMS", "SHAPE_TERMS", "TRUMP"]
