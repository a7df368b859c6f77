"""One whole hand, compiled: deal, declare while drawing, bury, play every trick, score.

``play_hand`` fills one row of the record layout below; with ``keep`` it also writes the full
history (the deal, every bid, the buried cards, every play) for traces and tests.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import core
from .core import NC, TRUMP
from .params import (
    BIDDING, BOTTOM, DECKS, FALLBACK, FIRST_DECLARER_DEALS, FIRST_NEEDS_SJ, HAND_SIZE, JOKER_BIDS,
    MIN_DECLARE, MIN_OVERRIDE, NO_TRUMP_OK, OVERHEAD_X100, REINFORCE, SECONDS_PER_TRICK_X100,
    OVERRIDE_TAKES_DEAL, SELF_OVERRIDE, SELF_OVERRIDE_SIDE, STEP, SUIT_RANK0, TAKEOVER, THROW_FAILURE, TIE_BREAK,
)
from .policies import bid_wish, choose_bury, choose_follow, choose_lead
from .rng import hand_state, randint

# --- the record of one hand ------------------------------------------------------------------------
R_DEALER, R_DECLARERS, R_LEVEL, R_TRUMP, R_TRICK_POINTS, R_CAPTURE_MULT, R_CAPTURE_POINTS = range(7)
R_PENALTIES, R_FINAL_POINTS, R_TAKEOVER, R_NEXT_DECLARERS, R_NEXT_DEALER, R_LEVELS0, R_LEVELS1 = range(7, 14)
R_TRICKS, R_THROWS, R_THROWS_FAILED, R_MINUTES_X100, R_DECLARED, R_REDEALS, R_BOTTOM_POINTS = range(14, 21)
R_FORFEIT, R_CAPTURE_BY, R_DECLARER_SEAT, R_ERROR = range(21, 25)
N_RECORD = 25
RECORD_FIELDS = (
    "dealer", "declarers", "level", "trump", "trick_points", "capture_multiplier", "capture_points",
    "penalties", "final_points", "takeover", "next_declarers", "next_dealer", "levels_ns", "levels_ew",
    "tricks", "throws", "throws_failed", "minutes_x100", "declared", "redeals", "bottom_points",
    "forfeit", "capture_by", "declarer_seat", "error",
)
assert len(RECORD_FIELDS) == N_RECORD

# history sizes
MAX_BIDS = 256
MAX_PLAYS = 4 * 60 + 64
PLAY_COLS = 4 + NC  # trick, seat, kind (0 play, 1 failed throw attempt), winner, counts


@njit(cache=True, inline="always")
def _bid_rank(P, card):
    """Tie rank of a bid card for suit_order (higher beats)."""
    if card == 53:
        return P[SUIT_RANK0 + 5]
    if card == 52:
        return P[SUIT_RANK0 + 4]
    return P[SUIT_RANK0 + card // 13]


@njit(cache=True, inline="always")
def bid_ok(P, seat, card, n, hand, cur_seat, cur_card, cur_n, first_hand):
    """0 rejected, 1 declare, 2 override, 3 reinforce (the rules of ``simsuite.declare``)."""
    if n <= 0:
        return 0
    if card >= 52:
        if P[JOKER_BIDS] == 0 or P[NO_TRUMP_OK] == 0:
            return 0
        if P[JOKER_BIDS] == 1 and n < 2:
            return 0
    if first_hand and P[FIRST_NEEDS_SJ] == 1:
        # the small joker is a ticket, not part of the bid (simsuite.declare.read_bid)
        if card == 52 or hand[52] < 1:
            return 0
    if cur_seat < 0:
        return 1 if n >= P[MIN_DECLARE] else 0
    # "self": the declaring seat, or with self_override_scope = side its partner too
    own = seat == cur_seat or (P[SELF_OVERRIDE_SIDE] == 1 and seat % 2 == cur_seat % 2)
    if own and card == cur_card:
        return 3 if (P[REINFORCE] == 1 and n > cur_n) else 0
    if own and P[SELF_OVERRIDE] == 0:
        return 0
    if n < P[MIN_OVERRIDE] or n < cur_n:
        return 0
    if n == cur_n:
        if P[TIE_BREAK] == 1:
            return 0
        if _bid_rank(P, card) <= _bid_rank(P, cur_card):
            return 0
    return 2


@njit(cache=True, inline="always")
def _offer_bid(P, pol, seat, hand, level, drawn, s, first_hand, cur_seat, cur_card, cur_n, taker, nbids, keep, h_bids):
    """Ask ``seat``'s policy for a bid and apply it if the rules accept it. Takes and returns
    the standing declaration (seat, card, count), the seat that took the deal, bids recorded."""
    card, n = bid_wish(pol, hand, level, P, s, drawn)
    if card < 0:
        return cur_seat, cur_card, cur_n, taker, nbids
    kind = bid_ok(P, seat, card, n, hand, cur_seat, cur_card, cur_n, first_hand)
    if kind == 0:
        return cur_seat, cur_card, cur_n, taker, nbids
    if kind == 2 and seat != cur_seat:
        taker = seat
    if keep and nbids < MAX_BIDS:
        h_bids[nbids, 0] = seat
        h_bids[nbids, 1] = card
        h_bids[nbids, 2] = n
        h_bids[nbids, 3] = kind
        nbids += 1
    if kind == 3:
        return cur_seat, card, n, taker, nbids  # a reinforcement never moves the declaration (a partner's adds to it)
    return seat, card, n, taker, nbids


@njit(cache=True)
def _deal(P, s, deck):
    """Shuffle ``deck`` in place (Fisher-Yates on the explicit generator)."""
    for i in range(deck.shape[0] - 1, 0, -1):
        j = randint(s, i + 1)
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t


@njit(cache=True)
def play_hand(P, s, level, first_drawer, first_hand, pols, W, rec, keep, h_deal, h_bottom, h_bids, h_bury, h_plays, h_n):
    """Play one hand. ``first_drawer`` draws first and, unless the opening hand's declaration
    decides otherwise, deals. Writes ``rec`` (layout above); with ``keep`` writes the history and
    its sizes to ``h_n`` ([0] bids, [1] plays)."""
    for i in range(N_RECORD):
        rec[i] = 0
    decks = P[DECKS]
    hs = P[HAND_SIZE]
    nb = P[BOTTOM]
    ncards = 54 * decks
    deck = np.empty(ncards, np.int64)
    hands = np.zeros((4, NC), np.int64)
    bottom = np.zeros(NC, np.int64)
    redeals = 0
    nbids = 0
    trump = -2
    dealer = first_drawer
    declarer_seat = -1
    while True:
        for i in range(ncards):
            deck[i] = i // decks
        _deal(P, s, deck)
        for i in range(4):
            for c in range(NC):
                hands[i, c] = 0
        for c in range(NC):
            bottom[c] = 0
        cur_seat = -1
        cur_card = -1
        cur_n = 0
        deal_taker = -1
        nbids = 0
        for i in range(4 * hs):
            seat = (first_drawer + i) % 4
            card_in = deck[i]
            hands[seat, card_in] += 1
            # a player reconsiders bidding when a level card or a joker arrives, and every third draw
            if P[BIDDING] == 0 and (card_in >= 52 or card_in % 13 == level or (i // 4) % 3 == 2):
                cur_seat, cur_card, cur_n, deal_taker, nbids = _offer_bid(
                    P, pols[seat], seat, hands[seat], level, i // 4 + 1, s, first_hand,
                    cur_seat, cur_card, cur_n, deal_taker, nbids, keep, h_bids)
        for i in range(4 * hs, ncards):
            bottom[deck[i]] += 1
        if P[BIDDING] == 1:
            # concealed bids, shown after the draw in drawing order [default]
            for i in range(4):
                seat = (first_drawer + i) % 4
                cur_seat, cur_card, cur_n, deal_taker, nbids = _offer_bid(
                    P, pols[seat], seat, hands[seat], level, hs, s, first_hand,
                    cur_seat, cur_card, cur_n, deal_taker, nbids, keep, h_bids)
        if cur_seat >= 0:
            trump = -1 if cur_card >= 52 else cur_card // 13
            declarer_seat = cur_seat
            rec[R_DECLARED] = 1
            break
        fb = P[FALLBACK]
        if fb == 3 or nb == 0:
            redeals += 1
            if redeals < 200:
                continue
            trump = 0  # pathological: keep going with spades rather than loop forever
            break
        first = deck[4 * hs]
        if fb == 0 and first < 52:
            trump = first // 13
        elif fb == 0 and P[NO_TRUMP_OK] == 1:
            trump = -1
        elif fb == 2:
            m = 0
            for i in range(4 * hs, ncards):
                if deck[i] < 52:
                    m += 1
            if m == 0:
                trump = -1 if P[NO_TRUMP_OK] == 1 else 0
            else:
                r = randint(s, m)
                for i in range(4 * hs, ncards):
                    if deck[i] < 52:
                        if r == 0:
                            trump = deck[i] // 13
                            break
                        r -= 1
        else:
            trump = -1 if P[NO_TRUMP_OK] == 1 else 0
            for i in range(4 * hs, ncards):
                if deck[i] < 52:
                    trump = deck[i] // 13
                    break
        break
    if first_hand and P[FIRST_DECLARER_DEALS] == 1 and declarer_seat >= 0:
        dealer = declarer_seat
    elif not first_hand and P[OVERRIDE_TAKES_DEAL] == 1 and declarer_seat >= 0 and deal_taker >= 0:
        dealer = deal_taker  # "反主反庄": a successful override also takes the deal
    declarers = dealer % 2
    if keep:
        for i in range(4):
            for c in range(NC):
                h_deal[i, c] = hands[i, c]
        for c in range(NC):
            h_bottom[c] = bottom[c]
        h_n[0] = nbids
    cls, pos = core.hand_tables(P, level, trump)
    # bury
    bury = np.zeros(NC, np.int64)
    for c in range(NC):
        hands[dealer, c] += bottom[c]
    choose_bury(pols[dealer], hands[dealer], cls, pos, P, s, nb, bury)
    bottom_points = 0
    for c in range(NC):
        hands[dealer, c] -= bury[c]
        bottom_points += core.POINTS[c] * bury[c]
        if keep:
            h_bury[c] = bury[c]
    # tricks
    played = np.zeros(NC, np.int64)
    voids = np.zeros((4, 5), np.int64)
    ctx = np.zeros(8, np.int64)
    LI = np.zeros(64, np.int64)
    lead = np.zeros(NC, np.int64)
    play = np.zeros(NC, np.int64)
    forced = np.zeros(NC, np.int64)
    win_c = np.zeros(3, np.int64)
    cur = np.zeros(3, np.int64)
    defender_points = 0
    trick_points_def = 0
    penalties = 0
    leader = dealer
    tricks = 0
    nplays = 0
    cards_left = hs
    forfeit = 0
    last_winner = -1
    last_trump = False
    last_key = 1
    last_n = 1
    last_points = 0
    ctx[0] = declarers
    ctx[2] = dealer
    ctx[3] = trump
    ctx[4] = level
    while cards_left > 0:
        ctx[1] = cards_left
        ctx[5] = tricks
        is_throw = choose_lead(pols[leader], leader, hands, played, voids, cls, pos, P, ctx, W, s, lead)
        # one pass over the lead: held, one class, how many cards
        k = -1
        n_lead = 0
        only = -1
        bad = False
        for c in range(NC):
            m = lead[c]
            if m != 0:
                if m < 0 or hands[leader, c] < m:
                    bad = True
                if k == -1:
                    k = cls[c]
                elif cls[c] != k:
                    bad = True
                n_lead += m
                only = c
        if bad or n_lead == 0:
            rec[R_ERROR] = 1
            return
        if n_lead == 1:
            core.lead_info_single(only, k, pos, P, LI)
        elif not core.lead_info_unit(lead, cls, pos, P, LI):
            core.lead_info(lead, cls, pos, P, W, LI)
        if LI[19] > 1:
            rec[R_THROWS] += 1
            stands, beaten, nfail = core.throw_check(lead, hands, leader, cls, pos, P, LI, W, forced)
            if not stands:
                rec[R_THROWS_FAILED] += 1
                if keep and nplays < MAX_PLAYS:
                    _hist(h_plays, nplays, tricks, leader, 1, lead)
                    nplays += 1
                sign = 1 if leader % 2 == declarers else -1
                if P[THROW_FAILURE] == 3:
                    forfeit = 1
                    break
                lead_n = 0
                forced_n = 0
                for c in range(NC):
                    lead_n += lead[c]
                    forced_n += forced[c]
                pen = sign * core.throw_penalty(P, beaten, lead_n, forced_n)
                penalties += pen
                for c in range(NC):
                    lead[c] = forced[c]
                core.lead_info(lead, cls, pos, P, W, LI)
        n = LI[1]
        for c in range(NC):
            hands[leader, c] -= lead[c]
            played[c] += lead[c]
        if keep and nplays < MAX_PLAYS:
            _hist(h_plays, nplays, tricks, leader, 0, lead)
            nplays += 1
        first_row = nplays - 1
        core.contender_unit(lead, cls, pos, P, LI, True, win_c)
        winner = leader
        win_trump = k == TRUMP
        points = 0
        for c in range(NC):
            points += core.POINTS[c] * lead[c]
        for i in range(1, 4):
            seat = (leader + i) % 4
            choose_follow(pols[seat], seat, hands, played, voids, cls, pos, P, ctx, W, s, LI, lead, win_c, winner, play)
            # one pass: take the cards from the hand (checking it held them), count points and
            # the led class, and remember the card of a one-card play
            in_k = 0
            total = 0
            only = -1
            bad = False
            for c in range(NC):
                m = play[c]
                if m != 0:
                    if m < 0 or hands[seat, c] < m:
                        bad = True
                    hands[seat, c] -= m
                    played[c] += m
                    points += core.POINTS[c] * m
                    total += m
                    only = c
                    if cls[c] == k:
                        in_k += m
            if bad or total != n:
                rec[R_ERROR] = 2
                return
            if in_k < n:
                voids[seat, k] = 1
            if keep and nplays < MAX_PLAYS:
                _hist(h_plays, nplays, tricks, seat, 0, play)
                nplays += 1
            if n == 1:
                # a single card claims the trick with its position, in the led class or trump
                claim = cls[only] == k or cls[only] == TRUMP
                cur[0] = 0
                cur[1] = 1 if cls[only] == TRUMP else 0
                cur[2] = pos[only]
            elif LI[19] == 1:
                claim = core.contender_unit(play, cls, pos, P, LI, False, cur)
            else:
                claim = core.contender(play, cls, pos, P, LI, W, False, cur)
            if claim and core.beats(cur, win_c):
                win_c[0] = cur[0]
                win_c[1] = cur[1]
                win_c[2] = cur[2]
                winner = seat
                win_trump = cur[1] == 1
        if keep:
            for r in range(first_row, nplays):
                h_plays[r, 3] = winner
        if winner % 2 != declarers:
            defender_points += points
            trick_points_def += points
        cards_left -= n
        tricks += 1
        last_winner = winner
        last_trump = win_trump
        last_key = LI[62] if LI[62] > 0 else 1
        last_n = n
        last_points = points
        leader = winner
    if keep:
        h_n[1] = nplays
    rec[R_DEALER] = dealer
    rec[R_DECLARERS] = declarers
    rec[R_LEVEL] = level
    rec[R_TRUMP] = trump
    rec[R_REDEALS] = redeals
    rec[R_DECLARER_SEAT] = declarer_seat
    rec[R_BOTTOM_POINTS] = bottom_points
    rec[R_TRICKS] = tricks
    rec[R_PENALTIES] = penalties
    rec[R_FORFEIT] = forfeit
    cap = np.zeros(3, np.int64)
    if forfeit == 0 and last_winner >= 0:
        core.capture_points(P, last_winner % 2, declarers, last_key, last_trump, last_n, last_points, bottom_points, cap)
    rec[R_TRICK_POINTS] = trick_points_def
    rec[R_CAPTURE_MULT] = cap[0]
    rec[R_CAPTURE_POINTS] = cap[1]
    rec[R_CAPTURE_BY] = cap[2]
    final = final_points(P, defender_points + cap[1] + penalties, forfeit, leader % 2 == declarers)
    rec[R_FINAL_POINTS] = final
    out = np.zeros(5, np.int64)
    core.score_hand(P, final, declarers, dealer, out)
    rec[R_TAKEOVER] = out[0]
    rec[R_NEXT_DECLARERS] = out[1]
    rec[R_NEXT_DEALER] = out[2]
    rec[R_LEVELS0] = out[3]
    rec[R_LEVELS1] = out[4]
    rec[R_MINUTES_X100] = P[OVERHEAD_X100] + (tricks * P[SECONDS_PER_TRICK_X100]) // 60


@njit(cache=True)
def final_points(P, points, forfeit, by_declarers):
    """The defenders' points that score the hand. A forfeit (huizhou 第七: "对方直接上台或升一级")
    pins them: a declarer's forfeit puts the defenders on stage at the take-over threshold, a
    defender's gives the declarers exactly one level (the band just below the threshold)."""
    if forfeit == 0:
        return points
    if by_declarers:
        return P[TAKEOVER]
    return P[TAKEOVER] - P[STEP]


@njit(cache=True, inline="always")
def _holds(hand, play):
    n = 0
    for c in range(NC):
        if play[c] > hand[c] or play[c] < 0:
            return False
        n += play[c]
    return n > 0


@njit(cache=True, inline="always")
def _hist(h_plays, row, trick, seat, kind, cards):
    h_plays[row, 0] = trick
    h_plays[row, 1] = seat
    h_plays[row, 2] = kind
    h_plays[row, 3] = -1
    for c in range(NC):
        h_plays[row, 4 + c] = cards[c]


@njit(cache=True)
def play_many(P, key, start, levels, first_drawers, first_hand, pols, W, out):
    """Play hands ``start .. start+len(out)-1`` of the run ``key`` (no history) into ``out``."""
    dummy4 = np.zeros((4, NC), np.int64)
    dummy1 = np.zeros(NC, np.int64)
    dbids = np.zeros((1, 4), np.int64)
    dplays = np.zeros((1, PLAY_COLS), np.int64)
    hn = np.zeros(2, np.int64)
    state = np.zeros(4, np.int64)
    for i in range(out.shape[0]):
        hand_state(key, start + i, state)
        play_hand(P, state, levels[i], first_drawers[i], first_hand, pols, W, out[i], False,
                  dummy4, dummy1, dbids, dummy1, dplays, hn)
