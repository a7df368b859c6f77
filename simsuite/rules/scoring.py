"""The end of a hand: the last-trick capture, the level bands and who deals next.

Pure functions of a ``Variant``'s fields and the hand's figures: no I/O, no randomness, and no
branch on ``variant.id``, so a new tournament is a new TOML file, not new code.

Seats 0..3 are N, E, S, W; team = seat % 2 (0 = NS, 1 = EW); a seat's next (下家) is
(seat + 1) % 4, its partner (seat + 2) % 4.
"""

from __future__ import annotations

from dataclasses import dataclass

from .choices import CaptureBy, CaptureScheme, CaptureWith, DealerRotation
from .variant import Variant


def _check_team(name: str, team: int) -> None:
    if team not in (0, 1):
        raise ValueError(f"{name} must be a team, 0 (NS) or 1 (EW), got {team!r}")


# --- last-trick capture -------------------------------------------------------------------------


@dataclass(frozen=True)
class Capture:
    """What the last trick adds to the defenders' points beyond its ordinary points."""

    by: str | None  # "defenders", "declarers", or None (no capture)
    multiplier: int  # 0 when no capture
    points: int  # signed change to the defenders' points beyond the last trick's ordinary points
    reason: str | None  # why there is no capture, when there is none


def _none(reason: str) -> Capture:
    return Capture(by=None, multiplier=0, points=0, reason=reason)


def capture(
    variant: Variant,
    *,
    winner_team: int,
    declarers: int,
    unit_cards: int,
    won_with_trump: bool,
    lead_cards: int,
    trick_points: int,
    bottom_points: int,
) -> Capture:
    """The capture (抠底 / 反抠) of the last trick.

    ``unit_cards`` is the card count of the winning play's largest unit (scattered singles: 1),
    because every per-card table multiplies by the unit, not by the whole play (school-2016
    三、(五): for a throw count only the highest unit). The declarers' capture (capture_by
    "either", guangxi-2012 第七章2) is negative: it comes off the defenders' points.
    """
    _check_team("winner_team", winner_team)
    _check_team("declarers", declarers)
    if not 1 <= unit_cards <= lead_cards:
        raise ValueError(f"unit_cards must be 1..lead_cards ({lead_cards}), got {unit_cards}")
    by = "declarers" if winner_team == declarers else "defenders"
    if by == "declarers" and variant.capture_by == CaptureBy.DEFENDERS:
        return _none("only the defenders capture (capture_by = defenders)")
    if variant.capture_with == CaptureWith.TRUMP and not won_with_trump:
        return _none("only trump captures (capture_with = trump)")
    if lead_cards == 1 and not variant.single_card_captures:
        return _none("a one-card last lead captures nothing (single_card_captures = false)")
    sign = 1 if by == "defenders" else -1
    scheme = variant.capture_scheme
    if scheme == CaptureScheme.LAST_TRICK_POINTS:
        # k times in place of once: the defenders already hold the trick's points once.
        multiplier = lead_cards
        points = trick_points * (lead_cards - 1) if by == "defenders" else -trick_points * lead_cards
        return Capture(by, multiplier, points, None)
    if scheme == CaptureScheme.PER_CARD:
        per = variant.capture_per_card if won_with_trump else variant.capture_side_per_card
        multiplier = variant.capture_base + per * unit_cards
    elif scheme == CaptureScheme.POWER:
        multiplier = variant.capture_base**unit_cards
    else:  # pragma: no cover - the variant loader admits only the schemes above
        raise ValueError(f"unknown capture_scheme {scheme!r}")
    if multiplier <= 0:
        return _none(f"the multiplier is 0 ({scheme}, {'trump' if won_with_trump else 'side suit'})")
    return Capture(by, multiplier, sign * multiplier * bottom_points, None)


# --- levels -----------------------------------------------------------------------------------


def defender_levels(variant: Variant, defender_points: int) -> int:
    """Levels the defenders gain when P >= takeover: the bonus, then one per full step above."""
    if defender_points < variant.takeover:
        raise ValueError(f"{defender_points} is below the take-over threshold {variant.takeover}")
    levels = variant.takeover_bonus + (defender_points - variant.takeover) // variant.step
    return min(levels, variant.defender_cap) if variant.defender_cap > 0 else levels


def declarer_levels(variant: Variant, defender_points: int) -> int:
    """Levels the declarers gain when P < takeover.

    One per step (or part of a step) short of the threshold, capped by declarer_cap. A variant
    with a "big bald" band (zero_bonus) gives that bonus at P <= 0 instead, plus one per full
    step below zero when below_zero_step (guangxi-2012 第七章1: -5..-75 is still +3, -80 is +4).
    """
    t, step = variant.takeover, variant.step
    if defender_points >= t:
        raise ValueError(f"{defender_points} reaches the take-over threshold {t}")
    if defender_points <= 0 and variant.zero_bonus > 0:
        return variant.zero_bonus + ((-defender_points) // step if variant.below_zero_step else 0)
    levels = -((defender_points - t) // step)  # ceil((t - P) / step)
    return min(levels, variant.declarer_cap) if variant.declarer_cap > 0 else levels


def _band(variant: Variant, p: int, levels: int) -> str:
    """A readable name of the band P falls in, with its edges (points come in fives)."""
    t, step = variant.takeover, variant.step
    if p >= t:
        gain = f", defenders +{levels}" if levels else ""
        cap = variant.defender_cap
        if cap > 0 and levels == cap and variant.takeover_bonus + (p - t) // step > cap:
            return f"{t + (cap - variant.takeover_bonus) * step} and above: defenders take over{gain} (cap)"
        lo = t + (p - t) // step * step
        return f"{lo}-{lo + step - 5}: defenders take over{gain}"
    if p <= 0 and variant.zero_bonus > 0:
        if p == 0:
            return f"0: big bald (大光), declarers +{levels}"
        if not variant.below_zero_step:
            return f"below 0: big bald (大光), declarers +{levels}"
        k = (-p) // step
        return f"{-(k + 1) * step + 5} to {-k * step if k else -5}: below zero, declarers +{levels}"
    cap = variant.declarer_cap
    if cap > 0 and levels == cap:
        return f"{t - (cap - 1) * step - 5} and below: declarers +{levels} (cap)"
    lo = t - levels * step
    if variant.zero_bonus > 0:
        lo = max(lo, 5)
    return f"{lo}-{t - (levels - 1) * step - 5}: declarers +{levels}"


# --- the outcome --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """The result of a hand: who gains how many levels, who declares and deals next."""

    defender_points: int
    takeover: bool  # the defenders reached the take-over threshold (上台)
    next_declarers: int  # team 0/1
    next_dealer: int  # seat
    level_change: tuple[int, int]  # levels gained by team 0 and team 1 (one of them 0)
    band: str  # e.g. "120-145: defenders take over" or "0: big bald (大光), declarers +3"


def outcome(variant: Variant, *, defender_points: int, declarers: int, dealer: int) -> Outcome:
    """Score a hand from the defenders' final points (captures and penalties included).

    Next dealer: "hold_partner_takeover_next" passes the deal to the dealer's partner on a
    hold and to the old dealer's next on a take-over (school-2016 三、(六), baiyun-2016
    (八)10(3)(4)); "rotate" always passes it to the dealer's next, whatever the result, and that
    seat's team declares (guangxi-2012 第八章4), while the levels still move by the bands.
    ``takeover`` reports the band (P >= takeover), also under "rotate".
    """
    _check_team("declarers", declarers)
    if not 0 <= dealer <= 3:
        raise ValueError(f"dealer must be a seat 0..3, got {dealer!r}")
    if dealer % 2 != declarers:
        raise ValueError(f"dealer seat {dealer} is not on the declaring team {declarers}")
    defenders = 1 - declarers
    took_over = defender_points >= variant.takeover
    if took_over:
        levels, gainer = defender_levels(variant, defender_points), defenders
    else:
        levels, gainer = declarer_levels(variant, defender_points), declarers
    change = (levels, 0) if gainer == 0 else (0, levels)
    if variant.dealer_rotation == DealerRotation.ROTATE:
        next_dealer = (dealer + 1) % 4
    elif variant.dealer_rotation == DealerRotation.HOLD_PARTNER_TAKEOVER_NEXT:
        next_dealer = (dealer + 1) % 4 if took_over else (dealer + 2) % 4
    else:  # pragma: no cover - the variant loader admits only the rotations above
        raise ValueError(f"unknown dealer_rotation {variant.dealer_rotation!r}")
    return Outcome(
        defender_points=defender_points,
        takeover=took_over,
        next_declarers=next_dealer % 2,
        next_dealer=next_dealer,
        level_change=change,
        band=_band(variant, defender_points, levels),
    )


__all__ = ["Capture", "Outcome", "capture", "outcome", "declarer_levels", "defender_levels"]
