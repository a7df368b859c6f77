"""Scoring on arrays, compiled: the last-trick capture of the bottom and the hand's outcome in levels
(the rules of ``simsuite.rules.scoring``)."""

from __future__ import annotations

from numba import njit

from .params import (
    BELOW_ZERO_STEP, CAPTURE_BASE, CAPTURE_BY, CAPTURE_PER_CARD, CAPTURE_SCHEME, CAPTURE_SIDE_PER_CARD,
    CAPTURE_WITH, DECLARER_CAP, DEFENDER_CAP, ROTATION, SINGLE_CAPTURES, STEP, TAKEOVER, TAKEOVER_BONUS, ZERO_BONUS,
)


@njit(cache=True)
def capture_points(P, winner_team, declarers, unit_cards, won_with_trump, lead_cards, trick_points, bottom_points, out):
    """Capture multiplier and signed points (``out[0]``, ``out[1]``); ``out[2]`` = 1 if the
    defenders capture, -1 the declarers, 0 nobody."""
    out[0] = 0
    out[1] = 0
    out[2] = 0
    by_def = winner_team != declarers
    if not by_def and P[CAPTURE_BY] == 0:
        return
    if P[CAPTURE_WITH] == 1 and not won_with_trump:
        return
    if lead_cards == 1 and P[SINGLE_CAPTURES] == 0:
        return
    sign = 1 if by_def else -1
    if P[CAPTURE_SCHEME] == 2:
        out[0] = lead_cards
        out[1] = trick_points * (lead_cards - 1) if by_def else -trick_points * lead_cards
        out[2] = sign
        return
    if P[CAPTURE_SCHEME] == 0:
        per = P[CAPTURE_PER_CARD] if won_with_trump else P[CAPTURE_SIDE_PER_CARD]
        mult = P[CAPTURE_BASE] + per * unit_cards
    else:
        mult = 1
        for _ in range(unit_cards):
            mult *= P[CAPTURE_BASE]
    if mult <= 0:
        return
    out[0] = mult
    out[1] = sign * mult * bottom_points
    out[2] = sign


@njit(cache=True)
def score_hand(P, defender_points, declarers, dealer, out):
    """Outcome: out[0] takeover, out[1] next declarers, out[2] next dealer, out[3] levels team 0,
    out[4] levels team 1."""
    t = P[TAKEOVER]
    step = P[STEP]
    took = defender_points >= t
    if took:
        levels = P[TAKEOVER_BONUS] + (defender_points - t) // step
        if P[DEFENDER_CAP] > 0 and levels > P[DEFENDER_CAP]:
            levels = P[DEFENDER_CAP]
        gainer = 1 - declarers
    else:
        if defender_points <= 0 and P[ZERO_BONUS] > 0:
            levels = P[ZERO_BONUS] + ((-defender_points) // step if P[BELOW_ZERO_STEP] == 1 else 0)
        else:
            levels = -((defender_points - t) // step)
            if P[DECLARER_CAP] > 0 and levels > P[DECLARER_CAP]:
                levels = P[DECLARER_CAP]
        gainer = declarers
    if P[ROTATION] == 1:
        nd = (dealer + 1) % 4
    else:
        nd = (dealer + 1) % 4 if took else (dealer + 2) % 4
    out[0] = 1 if took else 0
    out[1] = nd % 2
    out[2] = nd
    out[3] = levels if gainer == 0 else 0
    out[4] = levels if gainer == 1 else 0
