"""Scoring on arrays, compiled: the last-trick capture of the bottom and the hand's outcome in levels
(the rules of ``simsuite.rules.scoring``)."""

from __future__ import annotations

from numba import njit

from .core import (
    CAP_MULT,
    CAP_POINTS,
    CAP_SIGN,
    OUT_LEVELS0,
    OUT_LEVELS1,
    OUT_NEXT_DEALER,
    OUT_NEXT_DECLARERS,
    OUT_TAKEOVER,
)
from .params import (
    BELOW_ZERO_STEP,
    CAPTURE_BASE,
    CAPTURE_BY,
    CAPTURE_BY_DEFENDERS,
    CAPTURE_PER_CARD,
    CAPTURE_SCHEME,
    CAPTURE_SCHEME_LAST_TRICK_POINTS,
    CAPTURE_SCHEME_PER_CARD,
    CAPTURE_SIDE_PER_CARD,
    CAPTURE_WITH,
    CAPTURE_WITH_TRUMP,
    DECLARER_CAP,
    DEFENDER_CAP,
    ROTATION,
    ROTATION_ROTATE,
    SINGLE_CAPTURES,
    STEP,
    TAKEOVER,
    TAKEOVER_BONUS,
    ZERO_BONUS,
)


@njit(cache=True)
def capture_points(P, winner_team, declarers, unit_cards, won_with_trump, lead_cards, trick_points, bottom_points, out):
    """Capture multiplier and signed points (``out[CAP_MULT]``, ``out[CAP_POINTS]``); ``out[CAP_SIGN]``
    = 1 if the defenders capture, -1 the declarers, 0 nobody."""
    out[CAP_MULT] = 0
    out[CAP_POINTS] = 0
    out[CAP_SIGN] = 0
    by_def = winner_team != declarers
    if not by_def and P[CAPTURE_BY] == CAPTURE_BY_DEFENDERS:
        return
    if P[CAPTURE_WITH] == CAPTURE_WITH_TRUMP and not won_with_trump:
        return
    if lead_cards == 1 and P[SINGLE_CAPTURES] == 0:
        return
    sign = 1 if by_def else -1
    if P[CAPTURE_SCHEME] == CAPTURE_SCHEME_LAST_TRICK_POINTS:
        out[CAP_MULT] = lead_cards
        out[CAP_POINTS] = trick_points * (lead_cards - 1) if by_def else -trick_points * lead_cards
        out[CAP_SIGN] = sign
        return
    if P[CAPTURE_SCHEME] == CAPTURE_SCHEME_PER_CARD:
        per = P[CAPTURE_PER_CARD] if won_with_trump else P[CAPTURE_SIDE_PER_CARD]
        mult = P[CAPTURE_BASE] + per * unit_cards
    else:
        mult = 1
        for _ in range(unit_cards):
            mult *= P[CAPTURE_BASE]
    if mult <= 0:
        return
    out[CAP_MULT] = mult
    out[CAP_POINTS] = sign * mult * bottom_points
    out[CAP_SIGN] = sign


@njit(cache=True)
def score_hand(P, defender_points, declarers, dealer, out):
    """The outcome into ``out``: the takeover, the next declarers, the next dealer and each team's
    levels (``core.OUT_*``)."""
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
    if P[ROTATION] == ROTATION_ROTATE:
        nd = (dealer + 1) % 4
    else:
        nd = (dealer + 1) % 4 if took else (dealer + 2) % 4
    out[OUT_TAKEOVER] = 1 if took else 0
    out[OUT_NEXT_DECLARERS] = nd % 2
    out[OUT_NEXT_DEALER] = nd
    out[OUT_LEVELS0] = levels if gainer == 0 else 0
    out[OUT_LEVELS1] = levels if gainer == 1 else 0
