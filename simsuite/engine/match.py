"""Whole matches, compiled: hands chained by levels, dealer rotation, end conditions and clock.

A match is team 0 (N-S) against team 1 (E-W). Hand ``h`` of match ``m`` of a run gets the
generator state ``hand_state(hand_state(key, m), h)``: the same deals whatever the split of the
work, and the same deals for match ``m`` under every variant with the same deck count.

The clock (``MatchClock``): minutes accumulate by the variant's duration model, per hand.
* ``warning_minute`` > 0: the hand during which the warning falls is finished, then
  ``hands_after_warning`` more hands are played.
* ``no_new_hand_minutes`` > 0: no hand starts once ``match_minutes - no_new_hand_minutes`` have
  passed.
* otherwise, with ``match_minutes`` > 0: no hand starts once the time is up; the hand in play is
  finished [default].
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..columns import MATCH_FIELDS
from ..rules.choices import TieRule, code
from . import hand as H
from . import phases as ph
from .core import NC, as_bool, as_int
from .params import END_LEVEL, START_LEVEL
from .rng import hand_state

# the match record: each slot is its field's place in ``columns.MATCH_FIELDS`` (the column table)
M_HANDS = MATCH_FIELDS.index("hands")
M_MINUTES_X100 = MATCH_FIELDS.index("minutes_x100")
M_LEVEL0 = MATCH_FIELDS.index("final_level_ns")
M_LEVEL1 = MATCH_FIELDS.index("final_level_ew")
M_WINNER = MATCH_FIELDS.index("winner")
M_ENDED = MATCH_FIELDS.index("ended_by")
M_FIRST_DECLARERS = MATCH_FIELDS.index("first_declarers")
M_LEAD_CHANGES = MATCH_FIELDS.index("lead_changes")
M_DEFICIT0 = MATCH_FIELDS.index("max_deficit_ns")
M_DEFICIT1 = MATCH_FIELDS.index("max_deficit_ew")
M_ERROR = MATCH_FIELDS.index("error")
M_LAST_DECLARERS = MATCH_FIELDS.index("last_declarers")
M_NEXT_DECLARERS = MATCH_FIELDS.index("next_declarers")
M_FIRST_DEALER = MATCH_FIELDS.index("first_dealer")
N_MATCH = len(MATCH_FIELDS)
# ended_by codes; winner: 0, 1, or -1 for a draw
ENDED_LEVEL, ENDED_CLOCK, ENDED_CAP = 1, 2, 3
ENDED_NAMES = {ENDED_LEVEL: "level", ENDED_CLOCK: "clock", ENDED_CAP: "hand cap"}
# the match clock ``clock`` (``play_match``): its six values, at these positions
(
    CLOCK_MATCH_MINUTES,
    CLOCK_WARNING_MINUTE,
    CLOCK_HANDS_AFTER_WARNING,
    CLOCK_NO_NEW_HAND_MINUTES,
    CLOCK_TIE_RULE,
    CLOCK_MUST_DEFEND,
) = range(6)
N_CLOCK = 6
TIE_RULE_ON_STAGE = code(TieRule.ON_STAGE)  # ``clock[CLOCK_TIE_RULE]``: a choice's code, as ``engine.params``'s


@njit(cache=True)
def match_winner(level0, level1, tie_rule, on_stage):
    """0 or 1, or -1 for a draw: the higher level wins; at equal levels ``TIE_RULE_ON_STAGE`` ("on_stage",
    two-deck-2011 五: "上台者获胜") gives the match to the team declaring next, else a draw."""
    if level0 != level1:
        return 0 if level0 > level1 else 1
    if tie_rule == TIE_RULE_ON_STAGE:
        return on_stage
    return -1


@njit(cache=True, inline="always")  # compiled once, inside play_matches (which plays single matches too)
def play_match(P, clock, key, match_index, pols, max_hands, first_drawer, W, rec, hand_recs, levels_after, full):
    """Play one match. ``clock``: the ``CLOCK_*`` values above (the tie rule as
    ``TIE_RULE_ON_STAGE`` or 0 for a draw). ``pols``: policy per seat.
    Writes the match record ``rec``, each hand's record to ``hand_recs[h]`` and the levels after
    each hand to ``levels_after[h]`` (rows beyond the hands played are untouched)."""
    for i in range(N_MATCH):
        rec[i] = 0
    mkey = np.zeros(4, np.int64)
    hand_state(key, as_int(match_index), mkey)
    state = np.zeros(4, np.int64)
    dummy4 = np.zeros((4, NC), np.int64)
    st = ph.new_state()
    dummy1 = np.zeros(NC, np.int64)
    dbids = np.zeros((1, H.BID_COLS), np.int64)
    dplays = np.zeros((1, H.PLAY_COLS), np.int64)
    hn = np.zeros(2, np.int64)
    start = P[START_LEVEL]
    end = P[END_LEVEL]
    levels = np.array([start, start], np.int64)
    match_min = clock[CLOCK_MATCH_MINUTES]
    warn = clock[CLOCK_WARNING_MINUTE]
    after_warn = clock[CLOCK_HANDS_AFTER_WARNING]
    no_new = clock[CLOCK_NO_NEW_HAND_MINUTES]
    minutes = 0  # x100
    declarers = 0
    dealer = first_drawer
    first = True
    warned_hands = -1  # hands still allowed after the warning; -1 before the warning
    leader = -1  # the team last strictly ahead
    lead_changes = 0
    deficit = np.zeros(2, np.int64)
    ended = 0
    h = 0
    while True:
        if max_hands > 0 and h >= max_hands:
            ended = ENDED_CAP
            break
        if match_min > 0:
            if no_new > 0 and minutes >= (match_min - no_new) * 100:
                ended = ENDED_CLOCK
                break
            if warn > 0:
                if warned_hands == 0:
                    ended = ENDED_CLOCK
                    break
            elif minutes >= match_min * 100:
                ended = ENDED_CLOCK
                break
        hand_state(mkey, as_int(h), state)  # plain ints: a literal 0 compiled a second copy
        lvl = levels[declarers] if not first else start
        out = hand_recs[h]
        H.play_hand_of(
            P,
            state,
            st,
            lvl,
            dealer,
            first,
            pols,
            W,
            out,
            as_bool(False),
            dummy4,
            dummy1,
            dbids,
            dummy1,
            dplays,
            hn,
            full,
        )
        if out[H.R_ERROR] != 0:
            rec[M_ERROR] = out[H.R_ERROR]
            rec[M_HANDS] = h + 1
            return
        if first:
            rec[M_FIRST_DECLARERS] = out[H.R_DECLARERS]
            rec[M_FIRST_DEALER] = out[H.R_DEALER]
        hand_declarers = out[H.R_DECLARERS]
        rec[M_LAST_DECLARERS] = hand_declarers
        was_at_end = levels[hand_declarers] == end
        for t in range(2):
            gain = out[H.R_LEVELS0 + t]
            new = levels[t] + gain
            if clock[CLOCK_MUST_DEFEND] == 1 and new > end and not (t == hand_declarers and was_at_end):
                new = end  # the end level must be defended as declarers before it is passed
            levels[t] = new
        levels_after[h, 0] = levels[0]
        levels_after[h, 1] = levels[1]
        minutes += out[H.R_MINUTES_X100]
        h += 1
        first = False
        declarers = out[H.R_NEXT_DECLARERS]
        dealer = out[H.R_NEXT_DEALER]
        # lead changes and deficits
        if levels[0] != levels[1]:
            ahead = 0 if levels[0] > levels[1] else 1
            if leader >= 0 and ahead != leader:
                lead_changes += 1
            leader = ahead
            behind = 1 - ahead
            if levels[ahead] - levels[behind] > deficit[behind]:
                deficit[behind] = levels[ahead] - levels[behind]
        if levels[0] > end or levels[1] > end:
            ended = ENDED_LEVEL
            break
        if match_min > 0 and warn > 0:
            if warned_hands > 0:
                warned_hands -= 1  # one of the hands after the warning
            elif warned_hands < 0 and minutes >= warn * 100:
                warned_hands = after_warn  # the warning fell during this hand, now finished
    rec[M_HANDS] = h
    rec[M_MINUTES_X100] = minutes
    rec[M_LEVEL0] = levels[0]
    rec[M_LEVEL1] = levels[1]
    rec[M_NEXT_DECLARERS] = declarers
    rec[M_WINNER] = match_winner(levels[0], levels[1], clock[CLOCK_TIE_RULE], declarers)
    rec[M_ENDED] = ended
    rec[M_LEAD_CHANGES] = lead_changes
    rec[M_DEFICIT0] = deficit[0]
    rec[M_DEFICIT1] = deficit[1]


@njit(cache=True, inline="always")  # inlined into lean.run and full.run (engine.api.play_matches calls them)
def play_matches(P, clock, key, start, count, pols, max_hands, W, recs, hand_recs, hand_count, levels_after, full):
    """Matches ``start .. start+count-1``; hands of match i go to ``hand_recs[i, :hands]``. ``full``:
    ``None`` when every seat plays random, basic or expert, else ``policies.LEARNED_SET`` or
    ``policies.FULL`` (``policies.full_for``)."""
    for i in range(count):
        m = start + i
        play_match(P, clock, key, m, pols, max_hands, m % 4, W, recs[i], hand_recs[i], levels_after[i], full)
        hand_count[i] = recs[i, M_HANDS]
