"""One hand as an explicit, resumable state and the compiled phases that move it.

A hand is a ``HandState`` (a named tuple of int64 arrays, so that compiled code, plain Python and
the search's roll-outs share it) moved by small phases: the deal and the declaration
(``start_deal``, ``draw``, ``apply_bid``, ``form_bottom``, ``settle_declaration``), the bury
(``take_bottom``, ``apply_bury``), one play (``apply_lead``, ``apply_follow``), the end of a trick
(``finish_trick``) and the score (``score``). Three drivers walk the phases: the compiled hand loop
(``engine.hand.play_hand``), the Python path with user policies (``simsuite.play.pyhand``) and the
search policy's roll-outs (``engine.policies.search``). No driver repeats a rule.

The position to move is ``sc[S_LEADER]`` and ``sc[S_TURN]`` (plays made in the current trick,
0..3); a hand is over when ``sc[S_CARDS_LEFT]`` is 0 or ``sc[S_FORFEIT]`` is 1.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ..rules.cards import BIG_JOKER, SMALL_JOKER
from . import core
from .core import (
    CAP_MULT,
    CAP_POINTS,
    CAP_SIGN,
    CLAIM_KIND,
    CLAIM_TOP,
    CLAIM_TRUMP,
    LI_CARDS,
    LI_KEY_SIZE,
    LI_UNITS,
    NC,
    TRUMP,
    as_bool,
    as_int,
    copy1,
    copy2,
)
from .follow import lead_info, lead_info_single, lead_info_unit
from .order import hand_tables_into
from .params import (
    BIDDING,
    BIDDING_OPEN,
    BOTTOM,
    DECKS,
    FALLBACK,
    FALLBACK_RANDOM_BOTTOM_CARD,
    FALLBACK_REDEAL,
    FALLBACK_TURN_UP_BOTTOM,
    FIRST_DECLARER_DEALS,
    FIRST_NEEDS_SJ,
    HAND_SIZE,
    JOKER_BIDS,
    JOKER_BIDS_NONE,
    JOKER_BIDS_PAIR_NO_TRUMP,
    MIN_DECLARE,
    MIN_OVERRIDE,
    NO_TRUMP_OK,
    OVERRIDE_TAKES_DEAL,
    REINFORCE,
    SELF_OVERRIDE,
    SELF_OVERRIDE_SIDE,
    SELF_OVERRIDE_SIDE_SIDE,
    STEP,
    SUIT_RANK0,
    SUIT_RANK_BJ,
    SUIT_RANK_SJ,
    TAKEOVER,
    THROW_FAILURE,
    THROW_FAILURE_FORFEIT,
    TIE_BREAK,
    TIE_BREAK_FIRST_STANDS,
)
from .rng import randint
from .scoring import capture_points, score_hand
from .trick import beats, contender, contender_unit, throw_check, throw_penalty

# --- the state ------------------------------------------------------------------------------------
#
#   sc       int64[N_SC]    the scalars below
#   hands    int64[4, 54]   each seat's cards (count vectors)
#   played   int64[54]      every card played so far, the current trick included
#   bottom   int64[54]      the bottom: as dealt until the bury, then as buried
#   voids    int64[4, 5]    seat failed to follow class k (0..3 side suits, 4 trump)
#   shown    int64[4, 54]   cards a seat showed while bidding and still holds
#   lead     int64[54]      the current trick's lead as played (after a failed throw, the forced play)
#   LI       int64[64]      the lead's analysis (``follow.lead_info``)
#   win_c    int64[3]       the best claim in the current trick (``trick.beats``)
#   cur      int64[3]       scratch claim
#   cls, pos int64[54]      each card's class and position for this hand (``order.hand_tables_into``)
#   ctx      int64[8]       what a policy reads, at the C_* positions below
HandState = namedtuple(
    "HandState",
    ["sc", "hands", "played", "bottom", "voids", "shown", "lead", "LI", "win_c", "cur", "cls", "pos", "ctx"],
)

(
    S_LEVEL,
    S_TRUMP,
    S_DEALER,
    S_DECLARERS,
    S_DECLARER_SEAT,
    S_LEADER,
    S_TURN,
    S_TRICKS,
    S_CARDS_LEFT,
    S_DEF_POINTS,
    S_TRICK_POINTS_DEF,
    S_PENALTIES,
    S_FORFEIT,
    S_BOTTOM_POINTS,
    S_WINNER,
    S_WIN_TRUMP,
    S_TRICK_POINTS,
    S_K,
    S_N,
    S_LAST_WINNER,
    S_LAST_TRUMP,
    S_LAST_KEY,
    S_LAST_N,
    S_LAST_POINTS,
    S_REDEALS,
    S_DECLARED,
    S_THROWS,
    S_THROWS_FAILED,
    S_CUR_SEAT,
    S_CUR_CARD,
    S_CUR_N,
    S_DEAL_TAKER,
) = range(32)
N_SC = 32

# ctx: the declaring team, the cards each hand holds (the current trick's included), the dealer,
# the trump suit (4: none), the level, tricks played, the points in the current trick so far,
# and the current trick's leader
C_DECL, C_LEFT, C_DEALER, C_TRUMP, C_LEVEL, C_TRICKS, C_TRICK_POINTS, C_LEADER = range(8)

# a bid's kind (``bid_ok``, ``apply_bid``; the fourth column of the bids a hand's history records)
BID_REJECTED, BID_DECLARE, BID_OVERRIDE, BID_REINFORCE = range(4)
BID_KIND_NAMES = {BID_DECLARE: "declare", BID_OVERRIDE: "override", BID_REINFORCE: "reinforce"}

# apply_lead's answers
LEAD_OK, LEAD_FORCED, LEAD_FORFEIT, LEAD_ILLEGAL = 0, 1, 2, -1


@njit(cache=True)
def new_state():
    """An empty hand state."""
    return HandState(
        np.zeros(N_SC, np.int64),
        np.zeros((4, NC), np.int64),
        np.zeros(NC, np.int64),
        np.zeros(NC, np.int64),
        np.zeros((4, 5), np.int64),
        np.zeros((4, NC), np.int64),
        np.zeros(NC, np.int64),
        np.zeros(64, np.int64),
        np.zeros(3, np.int64),
        np.zeros(3, np.int64),
        np.zeros(NC, np.int64),
        np.zeros(NC, np.int64),
        np.zeros(8, np.int64),
    )


@njit(cache=True)
def clear_state(st):
    """Zero every array of ``st``: a new hand in a reused state (``new_state`` allocates 13 arrays,
    and a hand loop that allocates per hand spends its time in malloc)."""
    st.sc[:] = 0
    st.hands[:, :] = 0
    st.played[:] = 0
    st.bottom[:] = 0
    st.voids[:, :] = 0
    st.shown[:, :] = 0
    st.lead[:] = 0
    st.LI[:] = 0
    st.win_c[:] = 0
    st.cur[:] = 0
    st.cls[:] = 0
    st.pos[:] = 0
    st.ctx[:] = 0


@njit(cache=True)
def copy_state(src, dst):
    """Copy every array of ``src`` into ``dst`` (no allocation: roll-outs reuse one state)."""
    copy1(dst.sc, src.sc)
    copy2(dst.hands, src.hands)
    copy1(dst.played, src.played)
    copy1(dst.bottom, src.bottom)
    copy2(dst.voids, src.voids)
    copy2(dst.shown, src.shown)
    copy1(dst.lead, src.lead)
    copy1(dst.LI, src.LI)
    copy1(dst.win_c, src.win_c)
    copy1(dst.cur, src.cur)
    copy1(dst.cls, src.cls)
    copy1(dst.pos, src.pos)
    copy1(dst.ctx, src.ctx)


# --- deal and declare -----------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _bid_rank(P, card):
    """Tie rank of a bid card for suit_order (higher beats)."""
    if card == BIG_JOKER:
        return P[SUIT_RANK_BJ]
    if card == SMALL_JOKER:
        return P[SUIT_RANK_SJ]
    return P[SUIT_RANK0 + card // 13]


@njit(cache=True, inline="always")
def bid_ok(P, seat, card, n, hand, cur_seat, cur_card, cur_n, first_hand):
    """The bid's kind, ``BID_*`` (the rules of ``simsuite.rules.declare``)."""
    if n <= 0:
        return BID_REJECTED
    if card >= SMALL_JOKER:
        if P[JOKER_BIDS] == JOKER_BIDS_NONE or P[NO_TRUMP_OK] == 0:
            return BID_REJECTED
        if P[JOKER_BIDS] == JOKER_BIDS_PAIR_NO_TRUMP and n < 2:
            return BID_REJECTED
    if first_hand and P[FIRST_NEEDS_SJ] == 1:
        # the small joker is a ticket, not part of the bid (simsuite.rules.declare.read_bid)
        if card == SMALL_JOKER or hand[SMALL_JOKER] < 1:
            return BID_REJECTED
    if cur_seat < 0:
        return BID_DECLARE if n >= P[MIN_DECLARE] else BID_REJECTED
    # "self": the declaring seat, or with self_override_scope = side its partner too
    own = seat == cur_seat or (P[SELF_OVERRIDE_SIDE] == SELF_OVERRIDE_SIDE_SIDE and seat % 2 == cur_seat % 2)
    if own and card == cur_card:
        return BID_REINFORCE if (P[REINFORCE] == 1 and n > cur_n) else BID_REJECTED
    if own and P[SELF_OVERRIDE] == 0:
        return BID_REJECTED
    if n < P[MIN_OVERRIDE] or n < cur_n:
        return BID_REJECTED
    if n == cur_n:
        if P[TIE_BREAK] == TIE_BREAK_FIRST_STANDS:
            return BID_REJECTED
        if _bid_rank(P, card) <= _bid_rank(P, cur_card):
            return BID_REJECTED
    return BID_OVERRIDE


@njit(cache=True)
def start_deal(P, s, st, deck):
    """Shuffle ``deck`` (Fisher-Yates on the explicit generator) and clear the hands for a deal."""
    decks = P[DECKS]
    for i in range(deck.shape[0]):
        deck[i] = i // decks
    for i in range(deck.shape[0] - 1, 0, -1):
        j = randint(s, i + 1)
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t
    st.hands[:, :] = 0
    st.bottom[:] = 0
    st.shown[:, :] = 0
    st.sc[S_CUR_SEAT] = -1
    st.sc[S_CUR_CARD] = -1
    st.sc[S_CUR_N] = 0
    st.sc[S_DEAL_TAKER] = -1


@njit(cache=True, inline="always")
def draw(st, deck, i, first_drawer):
    """The ``i``-th card of the draw goes to its seat; returns the seat."""
    seat = (first_drawer + i) % 4
    st.hands[seat, deck[i]] += 1
    return seat


@njit(cache=True, inline="always")
def bid_moment(P, card_in, i, level):
    """Open bidding: a player reconsiders bidding when a level card or a joker arrives, and every
    third round of the draw."""
    return P[BIDDING] == BIDDING_OPEN and (card_in >= SMALL_JOKER or card_in % 13 == level or (i // 4) % 3 == 2)


@njit(cache=True, inline="always")
def apply_bid(P, st, seat, card, n, first_hand):
    """``seat`` shows ``n`` x ``card``: apply it if the rules accept it; returns ``bid_ok``'s kind."""
    return apply_bid_to(P, st.hands, st.sc, st.shown, seat, card, n, first_hand)


@njit(cache=True, inline="always")
def apply_bid_to(P, hands, sc, shown, seat, card, n, first_hand):
    """``apply_bid`` on the state's arrays ``hands``, ``sc`` and ``shown``."""
    kind = bid_ok(P, seat, card, n, hands[seat], sc[S_CUR_SEAT], sc[S_CUR_CARD], sc[S_CUR_N], first_hand)
    if kind == BID_REJECTED:
        return BID_REJECTED
    if kind == BID_OVERRIDE and seat != sc[S_CUR_SEAT]:
        sc[S_DEAL_TAKER] = seat
    if kind != BID_REINFORCE:
        sc[S_CUR_SEAT] = seat  # a reinforcement never moves the declaration (a partner's adds to it)
    sc[S_CUR_CARD] = card
    sc[S_CUR_N] = n
    if n > shown[seat, card]:
        shown[seat, card] = n
    return kind


@njit(cache=True)
def form_bottom(P, st, deck):
    """The cards left after the draw form the bottom."""
    for i in range(4 * P[HAND_SIZE], deck.shape[0]):
        st.bottom[deck[i]] += 1


@njit(cache=True)
def settle_declaration(P, s, st, deck, level, first_drawer, first_hand):
    """After the draw and any concealed bids: the trump, the dealer and the declarers. Returns
    False when the variant redeals (nobody declared, ``fallback = redeal``)."""
    sc = st.sc
    hs = P[HAND_SIZE]
    nb = P[BOTTOM]
    ncards = deck.shape[0]
    trump = -2
    declarer_seat = -1
    if sc[S_CUR_SEAT] >= 0:
        trump = -1 if sc[S_CUR_CARD] >= SMALL_JOKER else sc[S_CUR_CARD] // 13
        declarer_seat = sc[S_CUR_SEAT]
        sc[S_DECLARED] = 1
    else:
        fb = P[FALLBACK]
        if fb == FALLBACK_REDEAL or nb == 0:
            sc[S_REDEALS] += 1
            if sc[S_REDEALS] < 200:
                return False
            trump = 0  # pathological: keep going with spades rather than loop forever
        else:
            first = deck[4 * hs]
            if fb == FALLBACK_TURN_UP_BOTTOM and first < SMALL_JOKER:
                trump = first // 13
            elif fb == FALLBACK_TURN_UP_BOTTOM and P[NO_TRUMP_OK] == 1:
                trump = -1
            elif fb == FALLBACK_RANDOM_BOTTOM_CARD:
                m = 0
                for i in range(4 * hs, ncards):
                    if deck[i] < SMALL_JOKER:
                        m += 1
                if m == 0:
                    trump = -1 if P[NO_TRUMP_OK] == 1 else 0
                else:
                    r = randint(s, m)
                    for i in range(4 * hs, ncards):
                        if deck[i] < SMALL_JOKER:
                            if r == 0:
                                trump = deck[i] // 13
                                break
                            r -= 1
            else:
                trump = -1 if P[NO_TRUMP_OK] == 1 else 0
                for i in range(4 * hs, ncards):
                    if deck[i] < SMALL_JOKER:
                        trump = deck[i] // 13
                        break
    dealer = first_drawer
    if first_hand and P[FIRST_DECLARER_DEALS] == 1 and declarer_seat >= 0:
        dealer = declarer_seat
    elif not first_hand and P[OVERRIDE_TAKES_DEAL] == 1 and declarer_seat >= 0 and sc[S_DEAL_TAKER] >= 0:
        dealer = sc[S_DEAL_TAKER]  # "反主反庄": a successful override also takes the deal
    sc[S_LEVEL] = level
    sc[S_TRUMP] = trump
    sc[S_DEALER] = dealer
    sc[S_DECLARERS] = dealer % 2
    sc[S_DECLARER_SEAT] = declarer_seat
    sc[S_LEADER] = dealer
    sc[S_CARDS_LEFT] = hs
    sc[S_LAST_WINNER] = -1
    sc[S_LAST_KEY] = 1
    sc[S_LAST_N] = 1
    hand_tables_into(P, level, trump, st.cls, st.pos)
    st.ctx[:] = 0
    st.ctx[C_DECL] = dealer % 2
    st.ctx[C_LEFT] = hs
    st.ctx[C_DEALER] = dealer
    st.ctx[C_TRUMP] = trump
    st.ctx[C_LEVEL] = level
    return True


# --- bury -----------------------------------------------------------------------------------------


@njit(cache=True)
def take_bottom(st):
    """The dealer picks up the bottom."""
    d = st.sc[S_DEALER]
    hands = st.hands
    bottom = st.bottom
    for c in range(NC):
        hands[d, c] += bottom[c]


@njit(cache=True)
def apply_bury(st, bury):
    """The dealer buries ``bury``: it becomes the bottom. Returns False if the dealer lacks a card."""
    d = st.sc[S_DEALER]
    hands = st.hands
    bottom = st.bottom
    pts = 0
    for c in range(NC):
        if bury[c] < 0 or bury[c] > hands[d, c]:
            return False
    for c in range(NC):
        hands[d, c] -= bury[c]
        bottom[c] = bury[c]
        pts += core.POINTS[c] * bury[c]
    st.sc[S_BOTTOM_POINTS] = pts
    return True


# --- one play -------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _take(hands, played, shown, seat, cards):
    """``seat`` plays ``cards``: out of the hand and the shown cards, onto the table. (Arrays, not
    the state: binding the state tuple to an inlined function counts a reference per array, and
    the hand loop's cost was mostly those counts.)"""
    for c in range(NC):
        m = cards[c]
        if m != 0:
            hands[seat, c] -= m
            played[c] += m
            shown[seat, c] = max(0, shown[seat, c] - m)


@njit(cache=True, inline="always")
def _take_one(hands, played, shown, seat, c):
    """``_take`` of one card ``c``."""
    hands[seat, c] -= 1
    played[c] += 1
    shown[seat, c] = max(0, shown[seat, c] - 1)


@njit(cache=True, inline="always")
def apply_lead_inline(P, st, W, lead, forced):
    """The leader leads ``lead``. A throw is tested: on failure the forced play (or a forfeit)
    follows the variant. ``st.lead`` gets what is actually played; ``lead`` is left as attempted.
    Returns LEAD_OK, LEAD_FORCED (a failed throw replaced by the forced play), LEAD_FORFEIT or
    LEAD_ILLEGAL (cards not held, several classes, or none)."""
    sc = st.sc
    leader = sc[S_LEADER]
    cls = st.cls
    pos = st.pos
    LI = st.LI
    hands = st.hands
    the_lead = st.lead
    # one pass over the lead: held, one class, how many cards
    # (without a branch per card, as apply_follow_inline; then one class: that of the last card)
    n_lead = 0
    only = -1
    bad = False
    points = 0
    hand = hands[leader]
    for c in range(NC):
        m = lead[c]
        bad |= (m < 0) | (hand[c] < m)
        n_lead += m
        only = c if m != 0 else only
        points += core.POINTS[c] * m
    if bad or n_lead == 0:
        return LEAD_ILLEGAL
    k = cls[only]
    for c in range(NC):
        bad |= (lead[c] != 0) & (cls[c] != k)
    if bad:
        return LEAD_ILLEGAL
    for c in range(NC):
        the_lead[c] = lead[c]
    if n_lead == 1:
        lead_info_single(only, k, pos, P, LI)
    elif not lead_info_unit(st.lead, cls, pos, P, LI):
        lead_info(st.lead, cls, pos, P, W, LI)
    status = LEAD_OK
    if LI[LI_UNITS] > 1:
        sc[S_THROWS] += 1
        stands, beaten, nfail = throw_check(st.lead, st.hands, leader, cls, pos, P, LI, W, forced)
        if not stands:
            sc[S_THROWS_FAILED] += 1
            if P[THROW_FAILURE] == THROW_FAILURE_FORFEIT:
                sc[S_FORFEIT] = 1
                return LEAD_FORFEIT
            sign = 1 if leader % 2 == sc[S_DECLARERS] else -1
            lead_n = as_int(0)  # plain ints: literals would compile a second throw_penalty
            forced_n = as_int(0)
            for c in range(NC):
                lead_n += lead[c]
                forced_n += forced[c]
            sc[S_PENALTIES] += sign * throw_penalty(P, beaten, lead_n, forced_n)
            points = 0
            for c in range(NC):
                the_lead[c] = forced[c]
                points += core.POINTS[c] * forced[c]
            lead_info(st.lead, cls, pos, P, W, LI)
            status = LEAD_FORCED
    if n_lead == 1:
        _take_one(hands, st.played, st.shown, leader, only)
    else:
        _take(hands, st.played, st.shown, leader, the_lead)
    contender_unit(st.lead, cls, pos, P, LI, True, st.win_c)
    sc[S_WINNER] = leader
    sc[S_WIN_TRUMP] = 1 if k == TRUMP else 0
    sc[S_TRICK_POINTS] = points
    st.ctx[C_TRICK_POINTS] = points
    st.ctx[C_LEADER] = leader
    sc[S_K] = k
    sc[S_N] = LI[LI_CARDS]
    sc[S_TURN] = 1
    return status


@njit(cache=True, inline="always")
def apply_follow_inline(P, st, W, play):
    """The seat to move follows with ``play``. Returns False if it does not hold the cards or
    plays the wrong number of them (the rules of what it must play are the policies' to keep)."""
    sc = st.sc
    seat = (sc[S_LEADER] + sc[S_TURN]) % 4
    cls = st.cls
    pos = st.pos
    LI = st.LI
    hands = st.hands
    k = sc[S_K]
    n = sc[S_N]
    # one pass: check the cards, count points and the led class, remember a one-card play (without
    # a branch per card: the few cards played would make each test a mispredicted jump)
    in_k = 0
    total = 0
    only = -1
    points = 0
    bad = False
    hand = hands[seat]
    for c in range(NC):
        m = play[c]
        bad |= (m < 0) | (hand[c] < m)
        total += m
        only = c if m != 0 else only
        points += core.POINTS[c] * m
        in_k += m if cls[c] == k else 0
    if bad or total != n:
        return False
    if n == 1:
        _take_one(hands, st.played, st.shown, seat, only)
    else:
        _take(hands, st.played, st.shown, seat, play)
    sc[S_TRICK_POINTS] += points
    st.ctx[C_TRICK_POINTS] = sc[S_TRICK_POINTS]
    if in_k < n:
        st.voids[seat, k] = 1
    cur = st.cur
    if n == 1:
        # a single card claims the trick with its position, in the led class or trump
        claim = cls[only] == k or cls[only] == TRUMP
        cur[CLAIM_KIND] = 0
        cur[CLAIM_TRUMP] = 1 if cls[only] == TRUMP else 0
        cur[CLAIM_TOP] = pos[only]
    elif LI[LI_UNITS] == 1:
        claim = contender_unit(play, cls, pos, P, LI, False, cur)
    else:
        claim = contender(play, cls, pos, P, LI, W, as_bool(False), cur)
    if claim and beats(cur, st.win_c):
        st.win_c[CLAIM_KIND] = cur[CLAIM_KIND]
        st.win_c[CLAIM_TRUMP] = cur[CLAIM_TRUMP]
        st.win_c[CLAIM_TOP] = cur[CLAIM_TOP]
        sc[S_WINNER] = seat
        sc[S_WIN_TRUMP] = 1 if cur[CLAIM_TRUMP] == 1 else 0
    sc[S_TURN] += 1
    return True


@njit(cache=True, inline="always")
def finish_trick_inline(st):
    """All four have played: the winner takes the trick's points (to the defenders' count if a
    defender) and leads next."""
    sc = st.sc
    winner = sc[S_WINNER]
    points = sc[S_TRICK_POINTS]
    if winner % 2 != sc[S_DECLARERS]:
        sc[S_DEF_POINTS] += points
        sc[S_TRICK_POINTS_DEF] += points
    n = sc[S_N]
    sc[S_CARDS_LEFT] -= n
    sc[S_TRICKS] += 1
    sc[S_LAST_WINNER] = winner
    sc[S_LAST_TRUMP] = sc[S_WIN_TRUMP]
    sc[S_LAST_KEY] = st.LI[LI_KEY_SIZE] if st.LI[LI_KEY_SIZE] > 0 else 1
    sc[S_LAST_N] = n
    sc[S_LAST_POINTS] = points
    sc[S_LEADER] = winner
    sc[S_TURN] = 0
    st.ctx[C_LEFT] = sc[S_CARDS_LEFT]
    st.ctx[C_TRICKS] = sc[S_TRICKS]
    st.ctx[C_TRICK_POINTS] = 0


@njit(cache=True, inline="always")
def hand_over(sc):
    """Is the hand whose scalars are ``sc`` (``st.sc``) over?"""
    return sc[S_CARDS_LEFT] <= 0 or sc[S_FORFEIT] == 1


@njit(cache=True, inline="always")
def to_move(sc):
    """The seat whose play is next (``sc`` is ``st.sc``)."""
    return (sc[S_LEADER] + sc[S_TURN]) % 4


# --- score ----------------------------------------------------------------------------------------


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


@njit(cache=True)
def outcome(P, st, cap, out):
    """The finished hand's capture (``cap``: multiplier, points, by) and result (``out``: take-over,
    next declarers, next dealer, levels NS, levels EW). Returns the defenders' final points."""
    sc = st.sc
    cap[CAP_MULT] = 0
    cap[CAP_POINTS] = 0
    cap[CAP_SIGN] = 0
    if sc[S_FORFEIT] == 0 and sc[S_LAST_WINNER] >= 0:
        capture_points(
            P,
            sc[S_LAST_WINNER] % 2,
            sc[S_DECLARERS],
            sc[S_LAST_KEY],
            sc[S_LAST_TRUMP] == 1,
            sc[S_LAST_N],
            sc[S_LAST_POINTS],
            sc[S_BOTTOM_POINTS],
            cap,
        )
    final = final_points(
        P, sc[S_DEF_POINTS] + cap[CAP_POINTS] + sc[S_PENALTIES], sc[S_FORFEIT], sc[S_LEADER] % 2 == sc[S_DECLARERS]
    )
    score_hand(P, final, sc[S_DECLARERS], sc[S_DEALER], out)
    return final


@njit(cache=True)
def apply_lead(P, st, W, lead, forced):
    """``apply_lead_inline`` as a call: one compiled copy for the Python path, ``advise`` and the search's
    candidates (the hand loops inline the phase)."""
    return apply_lead_inline(P, st, W, lead, forced)


@njit(cache=True)
def apply_follow(P, st, W, play):
    """``apply_follow_inline`` as a call: one compiled copy for the Python path, ``advise`` and the search's
    candidates (the hand loops inline the phase)."""
    return apply_follow_inline(P, st, W, play)


@njit(cache=True)
def finish_trick(st):
    """``finish_trick_inline`` as a call: one compiled copy for the Python path, ``advise`` and the search's
    candidates (the hand loops inline the phase)."""
    return finish_trick_inline(st)
