"""One whole hand, compiled: deal, declare while drawing, bury, play every trick, score.

``play_hand`` fills one row of the record layout below; with ``keep`` it also writes the full
history (the deal, every bid, the buried cards, every play) for traces and tests.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..columns import RECORD_FIELDS
from . import phases as ph
from .core import (
    CAP_MULT,
    CAP_POINTS,
    CAP_SIGN,
    HL_BURY,
    HL_CAPTURE,
    HL_DECK,
    HL_FORCED,
    HL_LEAD,
    HL_OUTCOME,
    HL_PLAY,
    N_CAP,
    N_OUT,
    NC,
    OUT_LEVELS0,
    OUT_LEVELS1,
    OUT_NEXT_DEALER,
    OUT_NEXT_DECLARERS,
    OUT_TAKEOVER,
    TRUMP,
    as_bool,
    as_int,
    copy1,
    copy2,
    w_hl,
    w_log_n,
)
from .params import BIDDING, BIDDING_CONCEALED, BOTTOM, DECKS, HAND_SIZE, OVERHEAD_X100, SECONDS_PER_TRICK_X100
from .phases import (
    LEAD_FORFEIT,
    LEAD_ILLEGAL,
    S_BOTTOM_POINTS,
    S_DEALER,
    S_DECLARED,
    S_DECLARER_SEAT,
    S_DECLARERS,
    S_FORFEIT,
    S_LEVEL,
    S_PENALTIES,
    S_REDEALS,
    S_THROWS,
    S_THROWS_FAILED,
    S_TRICK_POINTS_DEF,
    S_TRICKS,
    S_TRUMP,
    S_TURN,
    S_WINNER,
    bid_ok,  # noqa: F401  (re-exported: the engine's bid ruling, tested against simsuite.rules.declare)
)
from .policies import (
    FULL,
    LEARNED_SET,
    bid_wish,
    bury_three,
    choose_bury,
    choose_follow,
    choose_lead,
    follow_three,
    lead_three,
    learned,
    may_bid,
    search,
)
from .policies.codes import BASIC, D_BURY, D_FOLLOW, D_LEAD, EXPERT, LEARNED, RANDOM
from .rng import hand_state

# --- the record of one hand: each slot is its field's place in ``columns.RECORD_FIELDS`` (the column table) ---
R_DEALER = RECORD_FIELDS.index("dealer")
R_DECLARERS = RECORD_FIELDS.index("declarers")
R_LEVEL = RECORD_FIELDS.index("level")
R_TRUMP = RECORD_FIELDS.index("trump")
R_TRICK_POINTS = RECORD_FIELDS.index("trick_points")
R_CAPTURE_MULT = RECORD_FIELDS.index("capture_multiplier")
R_CAPTURE_POINTS = RECORD_FIELDS.index("capture_points")
R_PENALTIES = RECORD_FIELDS.index("penalties")
R_FINAL_POINTS = RECORD_FIELDS.index("final_points")
R_TAKEOVER = RECORD_FIELDS.index("takeover")
R_NEXT_DECLARERS = RECORD_FIELDS.index("next_declarers")
R_NEXT_DEALER = RECORD_FIELDS.index("next_dealer")
R_LEVELS0 = RECORD_FIELDS.index("levels_ns")
R_LEVELS1 = RECORD_FIELDS.index("levels_ew")
R_TRICKS = RECORD_FIELDS.index("tricks")
R_THROWS = RECORD_FIELDS.index("throws")
R_THROWS_FAILED = RECORD_FIELDS.index("throws_failed")
R_MINUTES_X100 = RECORD_FIELDS.index("minutes_x100")
R_DECLARED = RECORD_FIELDS.index("declared")
R_REDEALS = RECORD_FIELDS.index("redeals")
R_BOTTOM_POINTS = RECORD_FIELDS.index("bottom_points")
R_FORFEIT = RECORD_FIELDS.index("forfeit")
R_CAPTURE_BY = RECORD_FIELDS.index("capture_by")
R_DECLARER_SEAT = RECORD_FIELDS.index("declarer_seat")
R_ERROR = RECORD_FIELDS.index("error")
N_RECORD = len(RECORD_FIELDS)

# history sizes
MAX_BIDS = 256
MAX_PLAYS = 4 * 60 + 64
# the history's columns: a bid's (``h_bids``) seat, card, count and kind (``phases.BID_*``); a play's
# (``h_plays``) trick, seat, kind (0 play, 1 failed throw attempt), the trick's winner, then its card counts
HB_SEAT, HB_CARD, HB_COUNT, HB_KIND = range(4)
BID_COLS = 4
HP_TRICK, HP_SEAT, HP_KIND, HP_WINNER, HP_CARDS = range(5)
PLAY_COLS = HP_CARDS + NC
HN_BIDS, HN_PLAYS = range(2)  # ``h_n``: the bids and the plays recorded
# ``bury_many``'s columns
BURIED_POINTS, BURIED_TRUMPS, BURIED_DEALER = range(3)
N_BURIED = 3


@njit(cache=True)  # not inlined: called from two places, it would compile twice
def _offer_bid(P, pol, hands, sc, shown, seat, level, drawn, s, first_hand, nbids, keep, h_bids):
    """Ask ``seat``'s policy for a bid and apply it if the rules accept it; returns bids recorded.
    (The state's three arrays it uses, not the state: passing its thirteen arrays cost more than
    the bid, at the dozens of bid moments of an open draw.)"""
    card, n = bid_wish(pol, hands[seat], level, P, s, drawn)
    if card < 0:
        return nbids
    kind = ph.apply_bid_to(P, hands, sc, shown, seat, card, n, first_hand)
    if kind != ph.BID_REJECTED and keep and nbids < MAX_BIDS:
        h_bids[nbids, HB_SEAT] = seat
        h_bids[nbids, HB_CARD] = card
        h_bids[nbids, HB_COUNT] = n
        h_bids[nbids, HB_KIND] = kind
        nbids += 1
    return nbids


@njit(cache=True)
def deal_and_declare(P, s, st, W, level, first_drawer, first_hand, pols, keep, h_bids):
    """Deal (again while the variant redeals), asking the policies for bids; settles trump, dealer
    and declarers. Returns the bids recorded."""
    hs = P[HAND_SIZE]
    deck = w_hl(W)[HL_DECK][: NC * P[DECKS]]
    hands, sc, shown = st.hands, st.sc, st.shown
    nbids = as_int(0)
    while True:
        ph.start_deal(P, s, st, deck)
        nbids = as_int(0)  # a plain int: a literal 0 would compile a second _offer_bid
        for i in range(4 * hs):
            seat = ph.draw(st, deck, i, first_drawer)
            if ph.bid_moment(P, deck[i], i, level) and may_bid(hands[seat], level, P):
                nbids = _offer_bid(
                    P, pols[seat], hands, sc, shown, seat, level, i // 4 + 1, s, first_hand, nbids, keep, h_bids
                )
        ph.form_bottom(P, st, deck)
        if P[BIDDING] == BIDDING_CONCEALED:
            # concealed bids, shown after the draw in drawing order [default]
            for i in range(4):
                seat = (first_drawer + i) % 4
                nbids = _offer_bid(P, pols[seat], hands, sc, shown, seat, level, hs, s, first_hand, nbids, keep, h_bids)
        if ph.settle_declaration(P, s, st, deck, level, first_drawer, first_hand):
            return nbids


@njit(cache=True, inline="always")
def search_step(P, st, pol, W, s, kind, out):
    """A search's decision (``kind``: ``D_BURY``, ``D_LEAD`` or ``D_FOLLOW``) into ``out``. A labeller
    (``search.labels``) plays learned's choice, and weighs and logs the decisions it labels from a
    stream of its own, so that the hand plays as under learned (``engine.policies.search``)."""
    cand = np.zeros((search.MAX_CANDIDATES, NC), np.int64)
    stats = np.zeros((search.MAX_CANDIDATES, 3), np.float64)
    if search.labels(pol):
        counts = w_log_n(W)
        d = counts[learned.LOG_SEEN]
        counts[learned.LOG_SEEN] = d + 1
        seat = st.sc[S_DEALER] if kind == D_BURY else ph.to_move(st.sc)
        held = 0
        for c in range(NC):
            held += st.hands[seat, c]
        if kind == D_BURY or held <= search.LABEL_END_CARDS or search.label_sampled(d):
            own = np.zeros(4, np.int64)
            search.label_stream(s, pol, d, own)
            best = np.zeros(NC, np.int64)
            n = search.decide(P, st, pol, W, own, kind, best, cand, stats)
            learned.log_decision(P, st, W, kind, cand, n, stats, best)
        learned.decide(P, st, W, s, kind, out)
        return
    n = search.decide(P, st, pol, W, s, kind, out, cand, stats)
    learned.log_decision(P, st, W, kind, cand, n, stats, out)  # when ``simsuite learn collect`` switched it on


@njit(cache=True, inline="always")
def decide(P, st, pol, W, s, kind, out, full):
    """The policy ``pol`` of the seat to move decides on the hand's state ``st``: the bury
    (``kind`` is ``D_BURY``; the bottom is already in the dealer's hand), the lead
    (``D_LEAD``) or the follow (``D_FOLLOW``), into ``out``. Any built-in policy of the set ``full``,
    a constant: ``FULL`` (every policy) or ``LEARNED_SET`` (the search's branch is pruned, so no
    roll-out compiles). Inlined into its compiled callers: ``play_hand_full`` and
    ``play_hand_learned`` (the bury and each play the lean ``play_tricks`` stops at) and
    ``engine.full.run``, whose ``decide`` is the Python path's entry (``play.builtin``,
    ``play.advise``)."""
    if full == FULL and search.is_search(pol) and (kind != D_BURY or P[BOTTOM] > 0):
        search_step(P, st, pol, W, s, kind, out)
    elif pol == LEARNED and (kind != D_BURY or P[BOTTOM] > 0):
        learned.decide(P, st, W, s, kind, out)
    else:
        heuristic_decides(P, st, pol, W, s, kind, out, full)


@njit(cache=True, inline="always")
def heuristic_decides(P, st, pol, W, s, kind, out, full):
    """``decide`` for a heuristic: every one, ``expert-v1`` too, when ``full`` is ``FULL``; random,
    basic and expert only (``policies.bury_three``, ``lead_three``, ``follow_three``) in the learned
    set, where ``expert-v1`` does not compile."""
    hand = st.hands[st.sc[S_DEALER]]
    seat = ph.to_move(st.sc)
    if kind == D_BURY and full == FULL:
        choose_bury(pol, hand, st.cls, st.pos, P, s, P[BOTTOM], W, out)
    elif kind == D_BURY:
        bury_three(pol, hand, st.cls, st.pos, P, s, P[BOTTOM], W, out)
    elif kind == D_LEAD and full == FULL:
        choose_lead(pol, seat, st.hands, st.played, st.voids, st.cls, st.pos, P, st.ctx, W, s, out)
    elif kind == D_LEAD:
        lead_three(pol, seat, st.hands, st.played, st.voids, st.cls, st.pos, P, st.ctx, W, s, out)
    elif full == FULL:
        choose_follow(
            pol,
            seat,
            st.hands,
            st.played,
            st.voids,
            st.cls,
            st.pos,
            P,
            st.ctx,
            W,
            s,
            st.LI,
            st.lead,
            st.win_c,
            st.sc[S_WINNER],
            out,
        )
    else:
        follow_three(
            pol,
            seat,
            st.hands,
            st.played,
            st.voids,
            st.cls,
            st.pos,
            P,
            st.ctx,
            W,
            s,
            st.LI,
            st.lead,
            st.win_c,
            st.sc[S_WINNER],
            out,
        )


# --- the loops' decisions, by policy set -------------------------------------------------------------
# The loops below take ``full``: ``None`` when every seat plays random, basic or expert,
# ``policies.LEARNED_SET`` when the others play learned, else ``policies.FULL``
# (``policies.full_for``). Each loop branches on ``full is None`` and ``full == FULL``, and numba
# prunes the branches that ``full`` rules out before it types anything (its ``DeadBranchPrune`` pass,
# which runs again after inlining and compares constants): with ``None`` the loop plays the three
# heuristics (``policies.lead_three``, ``follow_three``, ``bury_three``), and ``search``,
# ``expert-v1`` and ``learned`` never compile into it; with a constant (the twins:
# ``play_hand_full`` and ``play_hand_learned`` below, the loops of ``engine.lean.run_learned`` and
# ``engine.full``) it inlines ``decide``, the dispatch over the set's policies (docs/performance.md,
# "Compilation"). The tricks loop, ``play_tricks``, plays the three heuristics only, in every set.
# Under NUMBA_DISABLE_JIT the same branches run as written.


@njit(cache=True, inline="always")
def bury_step(P, st, pol, W, s, out, full):
    """The dealer's bury, in a loop (the bottom already in its hand): the three heuristics' when
    ``full`` is None, else those of the set ``full`` (the branches are pruned as above, through the
    inlining)."""
    if full is None:
        bury_three(pol, st.hands[st.sc[S_DEALER]], st.cls, st.pos, P, s, P[BOTTOM], W, out)
    elif full == FULL and search.is_search(pol) and P[BOTTOM] > 0:
        search_step(P, st, pol, W, s, as_int(D_BURY), out)
    elif pol == LEARNED and P[BOTTOM] > 0:
        learned.decide(P, st, W, s, as_int(D_BURY), out)
    elif full == FULL:
        choose_bury(pol, st.hands[st.sc[S_DEALER]], st.cls, st.pos, P, s, P[BOTTOM], W, out)
    else:
        bury_three(pol, st.hands[st.sc[S_DEALER]], st.cls, st.pos, P, s, P[BOTTOM], W, out)


# ``play_tricks``' status when the seat to move plays a policy outside the three heuristics
NEED_DECISION = -9


@njit(cache=True, inline="always")
def lean_policy(pol):
    """Whether the lean loop plays ``pol`` itself: random, basic or expert (``policies.full_for``)."""
    return pol == RANDOM or pol == BASIC or pol == EXPERT


@njit(cache=True)
def play_tricks(P, st, pols, W, s, keep, h_plays, nplays, first_row, given):
    """Play the hand from its current position, asking each seat's policy, until the hand ends or
    the seat to move plays a policy other than the three heuristics (search, expert-v1). Returns
    ``(status, nplays, first_row)``: status 0 when the hand is over, -1 / -2 when a policy's lead /
    follow breaks the engine's checks, or ``NEED_DECISION``. Then the caller (``play_hand_full``)
    writes that seat's play into the lead buffer (``w_hl(W)[HL_LEAD]``, the trick's first play) or the
    follow buffer (``[HL_PLAY]``) and calls again with ``given`` and the two counts it got: the plays
    recorded in ``h_plays`` and the row of the trick's first play."""
    HL = w_hl(W)
    lead = HL[HL_LEAD][:NC]
    play = HL[HL_PLAY][:NC]
    forced = HL[HL_FORCED][:NC]
    if not given:  # a hand's first call; a later call brings the decision in ``lead`` or ``play``
        lead[:] = 0
        play[:] = 0
        forced[:] = 0
    sc = st.sc
    # the state's arrays bound once: binding the state tuple to an inlined function counts a
    # reference per array, which the hand loop would otherwise pay at every play
    hands, played, voids, cls, pos, ctx, LI, win_c = (
        st.hands,
        st.played,
        st.voids,
        st.cls,
        st.pos,
        st.ctx,
        st.LI,
        st.win_c,
    )
    while not ph.hand_over(sc):
        seat = ph.to_move(sc)
        pol = pols[seat]
        if not given and not lean_policy(pol):
            return NEED_DECISION, nplays, first_row
        if sc[S_TURN] == 0:
            if given:
                given = False
            else:
                lead_three(pol, seat, hands, played, voids, cls, pos, P, ctx, W, s, lead)
            status = ph.apply_lead_inline(P, st, W, lead, forced)
            if status == LEAD_ILLEGAL:
                return -1, nplays, first_row
            if status != 0 and keep and nplays < MAX_PLAYS:
                _hist(h_plays, nplays, sc[S_TRICKS], seat, 1, lead)  # the failed throw as attempted
                nplays += 1
            if status == LEAD_FORFEIT:
                break
            if keep and nplays < MAX_PLAYS:
                _hist(h_plays, nplays, sc[S_TRICKS], seat, 0, st.lead)
                nplays += 1
            first_row = nplays - 1
        else:
            if given:
                given = False
            else:
                follow_three(
                    pol, seat, hands, played, voids, cls, pos, P, ctx, W, s, LI, st.lead, win_c, sc[S_WINNER], play
                )
            if not ph.apply_follow_inline(P, st, W, play):
                return -2, nplays, first_row
            if keep and nplays < MAX_PLAYS:
                _hist(h_plays, nplays, sc[S_TRICKS], seat, 0, play)
                nplays += 1
            if sc[S_TURN] == 4:
                if keep:
                    for r in range(first_row, nplays):
                        h_plays[r, HP_WINNER] = sc[S_WINNER]
                ph.finish_trick_inline(st)
    return 0, nplays, first_row


@njit(cache=True)
def write_record(P, st, W, rec):
    """The finished hand's record row (layout above)."""
    sc = st.sc
    cap = w_hl(W)[HL_CAPTURE][:N_CAP]
    out = w_hl(W)[HL_OUTCOME][:N_OUT]
    final = ph.outcome(P, st, cap, out)
    rec[R_DEALER] = sc[S_DEALER]
    rec[R_DECLARERS] = sc[S_DECLARERS]
    rec[R_LEVEL] = sc[S_LEVEL]
    rec[R_TRUMP] = sc[S_TRUMP]
    rec[R_REDEALS] = sc[S_REDEALS]
    rec[R_DECLARED] = sc[S_DECLARED]
    rec[R_DECLARER_SEAT] = sc[S_DECLARER_SEAT]
    rec[R_BOTTOM_POINTS] = sc[S_BOTTOM_POINTS]
    rec[R_TRICKS] = sc[S_TRICKS]
    rec[R_THROWS] = sc[S_THROWS]
    rec[R_THROWS_FAILED] = sc[S_THROWS_FAILED]
    rec[R_PENALTIES] = sc[S_PENALTIES]
    rec[R_FORFEIT] = sc[S_FORFEIT]
    rec[R_TRICK_POINTS] = sc[S_TRICK_POINTS_DEF]
    rec[R_CAPTURE_MULT] = cap[CAP_MULT]
    rec[R_CAPTURE_POINTS] = cap[CAP_POINTS]
    rec[R_CAPTURE_BY] = cap[CAP_SIGN]
    rec[R_FINAL_POINTS] = final
    rec[R_TAKEOVER] = out[OUT_TAKEOVER]
    rec[R_NEXT_DECLARERS] = out[OUT_NEXT_DECLARERS]
    rec[R_NEXT_DEALER] = out[OUT_NEXT_DEALER]
    rec[R_LEVELS0] = out[OUT_LEVELS0]
    rec[R_LEVELS1] = out[OUT_LEVELS1]
    rec[R_MINUTES_X100] = P[OVERHEAD_X100] + (sc[S_TRICKS] * P[SECONDS_PER_TRICK_X100]) // 60


@njit(cache=True, inline="always")
def _deal(P, s, st, level, first_drawer, first_hand, pols, W, rec, keep, h_deal, h_bottom, h_bids, h_n):
    """A hand's start: clears ``rec`` and the state, deals and declares (with ``keep``, into the
    history), and puts the bottom in the dealer's hand."""
    for i in range(N_RECORD):
        rec[i] = 0
    ph.clear_state(st)
    nbids = deal_and_declare(P, s, st, W, level, first_drawer, first_hand, pols, keep, h_bids)
    if keep:
        copy2(h_deal, st.hands)
        copy1(h_bottom, st.bottom)
        h_n[HN_BIDS] = nbids
    ph.take_bottom(st)


@njit(cache=True, inline="always")
def _buried(st, bury, rec, keep, h_bury):
    """Applies the dealer's bury; False (and the error in ``rec``) if the engine refuses it."""
    if not ph.apply_bury(st, bury):
        rec[R_ERROR] = 3
        return False
    if keep:
        copy1(h_bury, bury)
    return True


@njit(cache=True, inline="always")
def _finish(P, st, W, rec, status, nplays, keep, h_n):
    """The hand's end: the error ``play_tricks`` returned, or the record (and the plays' count)."""
    if status < 0:
        rec[R_ERROR] = -status
        return
    if keep:
        h_n[HN_PLAYS] = nplays
    write_record(P, st, W, rec)


@njit(cache=True)
def play_hand(
    P, s, st, level, first_drawer, first_hand, pols, W, rec, keep, h_deal, h_bottom, h_bids, h_bury, h_plays, h_n, full
):
    """Play one hand in the state ``st`` (``phases.new_state``; cleared here, so that a loop reuses
    one). ``first_drawer`` draws first and, unless the opening hand's declaration decides
    otherwise, deals. Writes ``rec`` (layout above); with ``keep`` writes the history and its sizes
    to ``h_n`` (``HN_BIDS``, ``HN_PLAYS``). Every seat plays random, basic or expert (``full`` None;
    else ``play_hand_full``)."""
    _deal(P, s, st, level, first_drawer, first_hand, pols, W, rec, keep, h_deal, h_bottom, h_bids, h_n)
    bury = w_hl(W)[HL_BURY][:NC]
    bury_step(P, st, pols[st.sc[S_DEALER]], W, s, bury, full)
    if not _buried(st, bury, rec, keep, h_bury):
        return
    status, nplays, _ = play_tricks(P, st, pols, W, s, keep, h_plays, as_int(0), as_int(0), as_bool(False))
    _finish(P, st, W, rec, status, nplays, keep, h_n)


@njit(cache=True, inline="always")
def _hist(h_plays, row, trick, seat, kind, cards):
    h_plays[row, HP_TRICK] = trick
    h_plays[row, HP_SEAT] = seat
    h_plays[row, HP_KIND] = kind
    h_plays[row, HP_WINNER] = -1
    for c in range(NC):
        h_plays[row, HP_CARDS + c] = cards[c]


@njit(cache=True, inline="always")  # inlined into lean.run and full.run (engine.api.play_many calls them)
def play_many(P, key, start, levels, first_drawers, first_hand, pols, W, out, full):
    """Play hands ``start .. start+len(out)-1`` of the run ``key`` (no history) into ``out``."""
    dummy4 = np.zeros((4, NC), np.int64)
    dummy1 = np.zeros(NC, np.int64)
    dbids = np.zeros((1, BID_COLS), np.int64)
    dplays = np.zeros((1, PLAY_COLS), np.int64)
    hn = np.zeros(2, np.int64)
    state = np.zeros(4, np.int64)
    st = ph.new_state()
    for i in range(out.shape[0]):
        hand_state(key, start + i, state)
        play_hand_of(
            P,
            state,
            st,
            levels[i],
            first_drawers[i],
            first_hand,
            pols,
            W,
            out[i],
            as_bool(False),
            dummy4,
            dummy1,
            dbids,
            dummy1,
            dplays,
            hn,
            full,
        )


@njit(cache=True, inline="always")  # inlined into lean.run and full.run (engine.api.bury_many calls them)
def bury_many(P, key, start, levels, first_drawers, pols, W, out, full):
    """Deal, declare and bury hands ``start ..`` of the run ``key``, without playing them: each row
    of ``out`` (``N_BURIED`` columns) gets the points buried, the dealer's trumps after the bury and
    the dealer's seat, at the ``BURIED_*`` columns."""
    dbids = np.zeros((1, BID_COLS), np.int64)
    state = np.zeros(4, np.int64)
    bury = np.zeros(NC, np.int64)
    st = ph.new_state()
    for i in range(out.shape[0]):
        hand_state(key, start + i, state)
        ph.clear_state(st)
        deal_and_declare(P, state, st, W, levels[i], first_drawers[i], as_bool(True), pols, as_bool(False), dbids)
        ph.take_bottom(st)
        dealer = st.sc[S_DEALER]
        bury_step(P, st, pols[dealer], W, state, bury, full)
        ph.apply_bury(st, bury)
        trumps = 0
        for c in range(NC):
            if st.cls[c] == TRUMP:
                trumps += st.hands[dealer, c]
        out[i, BURIED_POINTS] = st.sc[S_BOTTOM_POINTS]
        out[i, BURIED_TRUMPS] = trumps
        out[i, BURIED_DEALER] = dealer


# --- the hand that plays search, expert-v1 or learned --------------------------------------------------
# numba prunes a branch on ``full is None`` when ``full`` is None or a constant, not when it is an
# int passed from Python. So the match, hand and bury loops are inlined three times: with ``full`` None
# into ``engine.lean.run``, with the constant ``LEARNED_SET`` into ``engine.lean.run_learned``, and with
# the constant ``FULL`` into ``engine.full.run``, beside the Python path's ``decide``. Python picks the
# run by ``full`` (``engine.api.play_matches``, ``play_many``, ``bury_many``). The hands of the other two
# sets, ``play_hand_full`` and ``play_hand_learned``, play the tricks with the lean ``play_tricks`` (one
# compiled copy for every set), which stops at each play of a search, expert-v1 or learned seat;
# ``decide`` makes that play and every bury. Typing the tricks loop again with every policy's dispatch
# took about 20 s of every fresh compile of the full set (docs/performance.md, "Compilation"). Both
# take ``full`` like ``play_hand``, and ignore it: each passes its own constant to ``_play_deciding``.


@njit(cache=True, inline="always")
def _play_deciding(
    P, s, st, level, first_drawer, first_hand, pols, W, rec, keep, h_deal, h_bottom, h_bids, h_bury, h_plays, h_n, full
):
    """``play_hand`` with the policies of the set ``full``, a constant (``decide``)."""
    _deal(P, s, st, level, first_drawer, first_hand, pols, W, rec, keep, h_deal, h_bottom, h_bids, h_n)
    HL = w_hl(W)
    bury = HL[HL_BURY][:NC]
    kind = as_int(D_BURY)
    seat = st.sc[S_DEALER]
    out = bury
    status, nplays, first_row = as_int(NEED_DECISION), as_int(0), as_int(0)
    while status == NEED_DECISION:
        decide(P, st, pols[seat], W, s, kind, out, full)  # its one call site: ``decide`` is inlined
        if kind == D_BURY and not _buried(st, bury, rec, keep, h_bury):
            return
        status, nplays, first_row = play_tricks(P, st, pols, W, s, keep, h_plays, nplays, first_row, kind != D_BURY)
        seat = ph.to_move(st.sc)
        kind = as_int(D_LEAD) if st.sc[S_TURN] == 0 else as_int(D_FOLLOW)
        out = HL[HL_LEAD][:NC] if kind == D_LEAD else HL[HL_PLAY][:NC]
    _finish(P, st, W, rec, status, nplays, keep, h_n)


@njit(cache=True)
def play_hand_full(
    P, s, st, level, first_drawer, first_hand, pols, W, rec, keep, h_deal, h_bottom, h_bids, h_bury, h_plays, h_n, full
):
    """``play_hand`` with every built-in policy."""
    _play_deciding(
        P,
        s,
        st,
        level,
        first_drawer,
        first_hand,
        pols,
        W,
        rec,
        keep,
        h_deal,
        h_bottom,
        h_bids,
        h_bury,
        h_plays,
        h_n,
        FULL,
    )


@njit(cache=True)
def play_hand_learned(
    P, s, st, level, first_drawer, first_hand, pols, W, rec, keep, h_deal, h_bottom, h_bids, h_bury, h_plays, h_n, full
):
    """``play_hand`` with random, basic, expert and learned: no search, so no roll-out compiles."""
    _play_deciding(
        P,
        s,
        st,
        level,
        first_drawer,
        first_hand,
        pols,
        W,
        rec,
        keep,
        h_deal,
        h_bottom,
        h_bids,
        h_bury,
        h_plays,
        h_n,
        LEARNED_SET,
    )


@njit(cache=True, inline="always")
def play_hand_of(
    P, s, st, level, first_drawer, first_hand, pols, W, rec, keep, h_deal, h_bottom, h_bids, h_bury, h_plays, h_n, full
):
    """``play_hand`` of the policy set ``full`` (None or a constant; the other calls are pruned):
    what the match and hand loops call."""
    if full is None:
        play_hand(
            P,
            s,
            st,
            level,
            first_drawer,
            first_hand,
            pols,
            W,
            rec,
            keep,
            h_deal,
            h_bottom,
            h_bids,
            h_bury,
            h_plays,
            h_n,
            full,
        )
    elif full == LEARNED_SET:
        play_hand_learned(
            P,
            s,
            st,
            level,
            first_drawer,
            first_hand,
            pols,
            W,
            rec,
            keep,
            h_deal,
            h_bottom,
            h_bids,
            h_bury,
            h_plays,
            h_n,
            as_int(full),
        )  # the int Python passes: one compiled copy
    else:
        play_hand_full(
            P,
            s,
            st,
            level,
            first_drawer,
            first_hand,
            pols,
            W,
            rec,
            keep,
            h_deal,
            h_bottom,
            h_bids,
            h_bury,
            h_plays,
            h_n,
            as_int(full),
        )
