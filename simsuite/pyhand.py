"""One whole hand in plain Python, asking four policy objects (``simsuite.policy``).

``play_hand_py`` is ``engine.hand.play_hand`` step by step: the same deal (the engine's random
state for the hand and its shuffle), the same bidding order and ruling (``hand.bid_ok``), the
same fallback, bury, trick loop, throw test (``core.throw_check``), capture and scoring
(``core.capture_points``, ``core.score_hand``), the same record (``hand.RECORD_FIELDS``) and
history layout. With four ``BuiltinPolicy`` objects it plays exactly the hand of
``engine.api.play_one``; with Python policies it is the slower path for analysts' policies.

Every answer is checked with the readable rules core (``simsuite.declare.read_bid``,
``simsuite.trick.rule_lead``, ``simsuite.follow.check_follow``). A bid the rules reject is not
made; a bury, lead or follow that breaks a rule raises ``IllegalPlayError`` and is never fixed.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .cards import N_CARDS, format_cards
from .declare import read_bid
from .engine import core
from .engine import hand as H
from .engine.api import HandHistory, HandResult, hand_states
from .engine.core import NC, TRUMP, Work
from .engine.params import (
    BIDDING, BOTTOM, DECKS, FALLBACK, FIRST_DECLARER_DEALS, HAND_SIZE, NO_TRUMP_OK, OVERHEAD_X100,
    OVERRIDE_TAKES_DEAL, SECONDS_PER_TRICK_X100, THROW_FAILURE, compile_variant,
)
from .engine.rng import randint
from .errors import IllegalPlayError, SimsuiteError
from .follow import check_follow, lead_structure
from .order import hand_order
from .policy import (
    Bid, BidView, BuiltinPolicy, BuryView, EngineTable, FollowView, LeadView, Trick, _ro, cards_of,
    check_policy, load_policy,
)
from .trick import rule_lead
from .variant import Variant, load_variant

SEATS = "NESW"


def _fmt(cards) -> str:
    return format_cards(list(cards), sort=False) if len(cards) else "no cards"


def _answer(seat: int, what: str, answer: Any) -> list[int]:
    """A policy's answer as a list of card ids, or an ``IllegalPlayError`` saying what is wrong."""
    name = SEATS[seat]
    if answer is None or isinstance(answer, (str, bytes, dict)):
        raise IllegalPlayError(f"{name}'s {what}: the policy returned {answer!r}, not a list of card ids", "not a list of card ids")
    try:
        items = list(answer)
    except TypeError:
        raise IllegalPlayError(f"{name}'s {what}: the policy returned {answer!r}, not a list of card ids", "not a list of card ids") from None
    out = []
    for c in items:
        if isinstance(c, (bool, np.bool_)) or not isinstance(c, (int, np.integer)) or not 0 <= int(c) < N_CARDS:
            raise IllegalPlayError(f"{name}'s {what}: {c!r} is not a card id (ids are 0..{N_CARDS - 1})", "not a card id")
        out.append(int(c))
    return out


def _not_held(hand: np.ndarray, play: np.ndarray) -> list[int]:
    return [int(c) for c in np.nonzero(play > hand)[0]]


def _missing_text(seat: int, hand: np.ndarray, play: np.ndarray, bad: list[int]) -> str:
    name = SEATS[seat]
    parts = ", ".join(f"{_fmt([c])} x{int(play[c])} (holds {int(hand[c])})" for c in bad)
    return f"plays cards that are not in {name}'s hand: {parts}"


def _bid_moment(card_in: int, i: int, level: int) -> bool:
    """Open bidding: is the seat that drew the ``i``-th card (``card_in``) asked whether to bid?
    As ``engine.hand.play_hand``: when a level card or a joker arrives, and every third round
    of the draw."""
    return card_in >= 52 or card_in % 13 == level or (i // 4) % 3 == 2


def play_hand_py(variant: Variant | str, seed: int, policies: Sequence[Any], level: int | None = None,
                 first_drawer: int = 0, first_hand: bool = True, hand_index: int = 0,
                 keep: bool = True) -> HandResult:
    """Play hand ``hand_index`` of the run with root ``seed`` asking ``policies`` (four policy
    objects, or specs for ``load_policy``, seats N, E, S, W). ``first_drawer`` draws first and,
    unless the opening hand's declaration decides otherwise, deals. Returns the engine's
    ``HandResult`` (record, and the history with ``keep``)."""
    v = load_variant(variant) if isinstance(variant, str) else variant
    pols = list(policies)
    if len(pols) != 4:
        raise SimsuiteError(f"play_hand_py needs four policies (N, E, S, W), got {len(pols)}")
    pols = [load_policy(p) if isinstance(p, str) else check_policy(p, f"policy for seat {SEATS[i]}")
            for i, p in enumerate(pols)]
    P = compile_variant(v)
    lvl = v.start_level if level is None else int(level)
    s = hand_states(seed, hand_index, 1)[0].copy()
    W = Work().arrays()
    first_hand = bool(first_hand)
    first_drawer = int(first_drawer)

    rec = np.zeros(H.N_RECORD, np.int64)
    h_bids = np.zeros((H.MAX_BIDS, 4), np.int64)
    h_plays = np.zeros((H.MAX_PLAYS, H.PLAY_COLS), np.int64)

    decks = int(P[DECKS])
    hs = int(P[HAND_SIZE])
    nb = int(P[BOTTOM])
    ncards = 54 * decks
    deck = np.empty(ncards, np.int64)
    hands = np.zeros((4, NC), np.int64)
    bottom = np.zeros(NC, np.int64)
    table = EngineTable(P=P, s=s, W=W, hands=hands, played=np.zeros(NC, np.int64),
                        voids=np.zeros((4, 5), np.int64), ctx=np.zeros(8, np.int64),
                        LI=np.zeros(64, np.int64), lead=np.zeros(NC, np.int64), win_c=np.zeros(3, np.int64))
    seated = {id(p): p for p in pols if isinstance(p, BuiltinPolicy)}
    saved = {k: p._table for k, p in seated.items()}
    for p in seated.values():
        p._table = table
    try:
        return _play(v, P, s, W, table, pols, lvl, first_drawer, first_hand, keep, rec, h_bids, h_plays,
                     decks, hs, nb, ncards, deck, hands, bottom)
    finally:
        for k, p in seated.items():
            p._table = saved[k]


def _play(v, P, s, W, table, pols, level, first_drawer, first_hand, keep, rec, h_bids, h_plays,
          decks, hs, nb, ncards, deck, hands, bottom) -> HandResult:
    redeals = 0
    nbids = 0
    trump = -2
    dealer = first_drawer
    declarer_seat = -1
    deal_taker = -1
    bids: list[Bid] = []
    concealed = P[BIDDING] == 1

    def ask_bid(seat: int, drawn: int):
        nonlocal cur_seat, cur_card, cur_n, deal_taker, nbids
        view = BidView(seat=seat, hand=cards_of(hands[seat]), counts=_ro(hands[seat]), level=level, variant=v,
                       drawn=drawn, first_drawer=first_drawer, first_hand=first_hand, concealed=concealed,
                       bids=tuple(bids))
        answer = pols[seat].bid(view)
        if answer is None:
            return
        shown = _answer(seat, "bid", answer)
        if not shown:
            return  # showing nothing is not bidding
        bad = _not_held(hands[seat], np.bincount(shown, minlength=NC))
        if bad:
            raise IllegalPlayError(f"{SEATS[seat]}'s bid ({_fmt(shown)}) shows cards {SEATS[seat]} does not hold: "
                                   f"{_fmt(bad)}", "shows cards that are not in the hand")
        read = read_bid(v, level, shown, first_hand)
        if isinstance(read, str):
            return  # the rules reject it: the bid is not made
        card, n = read
        kind = int(H.bid_ok(P, seat, card, n, hands[seat], cur_seat, cur_card, cur_n, first_hand))
        if kind == 2 and seat != cur_seat:
            deal_taker = seat
        if kind > 0:
            # a reinforcement never moves the declaration (a partner's adds to it)
            cur_seat, cur_card, cur_n = (cur_seat if kind == 3 else seat), card, n
            bids.append(Bid(seat, card, n, kind))
            if keep and nbids < H.MAX_BIDS:
                h_bids[nbids] = (seat, card, n, kind)
                nbids += 1

    while True:
        for i in range(ncards):
            deck[i] = i // decks
        H._deal(P, s, deck)
        hands[:] = 0
        bottom[:] = 0
        cur_seat, cur_card, cur_n = -1, -1, 0
        nbids = 0
        deal_taker = -1
        bids.clear()
        for i in range(4 * hs):
            seat = (first_drawer + i) % 4
            card_in = int(deck[i])
            hands[seat, card_in] += 1
            if not concealed and _bid_moment(card_in, i, level):
                ask_bid(seat, i // 4 + 1)
        for i in range(4 * hs, ncards):
            bottom[deck[i]] += 1
        if concealed:
            # concealed bids, shown after the draw in drawing order
            for i in range(4):
                ask_bid((first_drawer + i) % 4, hs)
        if cur_seat >= 0:
            trump = -1 if cur_card >= 52 else cur_card // 13
            declarer_seat = cur_seat
            rec[H.R_DECLARED] = 1
            break
        fb = P[FALLBACK]
        if fb == 3 or nb == 0:
            redeals += 1
            if redeals < 200:
                continue
            trump = 0  # as the engine: keep going with spades rather than loop forever
            break
        first = int(deck[4 * hs])
        tail = [int(x) for x in deck[4 * hs:]]
        if fb == 0 and first < 52:
            trump = first // 13
        elif fb == 0 and P[NO_TRUMP_OK] == 1:
            trump = -1
        elif fb == 2:
            suited = [c for c in tail if c < 52]
            if not suited:
                trump = -1 if P[NO_TRUMP_OK] == 1 else 0
            else:
                trump = suited[int(randint(s, len(suited)))] // 13
        else:
            trump = -1 if P[NO_TRUMP_OK] == 1 else 0
            for c in tail:
                if c < 52:
                    trump = c // 13
                    break
        break
    if first_hand and P[FIRST_DECLARER_DEALS] == 1 and declarer_seat >= 0:
        dealer = declarer_seat
    elif not first_hand and P[OVERRIDE_TAKES_DEAL] == 1 and declarer_seat >= 0 and deal_taker >= 0:
        dealer = deal_taker
    declarers = dealer % 2
    h_deal = hands.copy() if keep else None
    h_bottom = bottom.copy() if keep else None

    cls, pos = core.hand_tables(P, level, trump)
    table.cls, table.pos = cls, pos
    order = hand_order(v, level, trump)
    played = table.played
    voids = table.voids
    ctx = table.ctx

    def voids_view():
        return tuple(frozenset(int(k) for k in np.nonzero(voids[seat])[0]) for seat in range(4))

    # bury
    bury = np.zeros(NC, np.int64)
    hands[dealer] += bottom
    if nb > 0:
        view = BuryView(seat=dealer, hand=cards_of(hands[dealer]), counts=_ro(hands[dealer]), level=level, variant=v,
                        trump=trump, declarers=declarers, dealer=dealer, order=order, played=_ro(played),
                        cards_left=hs, voids=voids_view(), bottom=cards_of(bottom), bottom_size=nb, bids=tuple(bids))
        cards = _answer(dealer, "bury", pols[dealer].bury(view))
        name = SEATS[dealer]
        if len(cards) != nb:
            raise IllegalPlayError(f"{name}'s bury ({_fmt(cards)}): buries {len(cards)} card(s), but the bottom "
                                   f"is {nb} cards and exactly {nb} must be buried", "wrong number of cards")
        bury = np.bincount(cards, minlength=NC).astype(np.int64)
        bad = _not_held(hands[dealer], bury)
        if bad:
            raise IllegalPlayError(f"{name}'s bury ({_fmt(cards)}): buries cards that are not in {name}'s hand "
                                   f"(with the bottom): {_fmt(bad)}", "cards that are not in the hand")
    hands[dealer] -= bury
    bottom_points = int((core.POINTS * bury).sum())

    # tricks
    LI, lead, win_c = table.LI, table.lead, table.win_c
    forced = np.zeros(NC, np.int64)
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
    finished: list[Trick] = []
    ctx[:] = 0
    ctx[0] = declarers
    ctx[2] = dealer
    ctx[3] = trump
    ctx[4] = level

    def base(seat):
        return dict(seat=seat, hand=cards_of(hands[seat]), counts=_ro(hands[seat]), level=level, variant=v,
                    trump=trump, declarers=declarers, dealer=dealer, order=order, played=_ro(played),
                    tricks=tuple(finished), trick_number=tricks, cards_left=cards_left, voids=voids_view(),
                    defender_points=defender_points)

    while cards_left > 0:
        ctx[1] = cards_left
        ctx[5] = tricks
        tno = tricks + 1
        name = SEATS[leader]
        view = LeadView(**base(leader))
        cards = _answer(leader, f"lead in trick {tno}", pols[leader].lead(view))
        lead[:] = np.bincount(cards, minlength=NC) if cards else 0
        if not cards:
            raise IllegalPlayError(f"{name}'s lead in trick {tno}: a lead must have at least one card", "empty lead")
        bad = _not_held(hands[leader], lead)
        if bad:
            raise IllegalPlayError(f"{name}'s lead in trick {tno} ({_fmt(cards)}) is illegal: "
                                   f"{_missing_text(leader, hands[leader], lead, bad)}", "cards that are not in the hand")
        ruling = rule_lead(order, {c: int(lead[c]) for c in np.nonzero(lead)[0]})
        if not ruling.legal:
            raise IllegalPlayError(f"{name}'s lead in trick {tno} ({_fmt(cards)}) is illegal: {ruling.reason}", ruling.reason)
        k = int(core.play_class(lead, cls))
        core.lead_info(lead, cls, pos, P, W, LI)
        attempted = None
        if LI[19] > 1:
            rec[H.R_THROWS] += 1
            stands, beaten, nfail = core.throw_check(lead, hands, leader, cls, pos, P, LI, W, forced)
            if not stands:
                attempted = tuple(cards)
                rec[H.R_THROWS_FAILED] += 1
                if keep and nplays < H.MAX_PLAYS:
                    _hist(h_plays, nplays, tricks, leader, 1, lead)
                    nplays += 1
                sign = 1 if leader % 2 == declarers else -1
                if P[THROW_FAILURE] == 3:
                    forfeit = 1
                    break
                pen = sign * int(core.throw_penalty(P, beaten, int(lead.sum()), int(forced.sum())))
                penalties += pen
                lead[:] = forced
                core.lead_info(lead, cls, pos, P, W, LI)
        n = int(LI[1])
        hands[leader] -= lead
        played += lead
        if keep and nplays < H.MAX_PLAYS:
            _hist(h_plays, nplays, tricks, leader, 0, lead)
            nplays += 1
        first_row = nplays - 1
        core.contender_unit(lead, cls, pos, P, LI, True, win_c)
        winner = leader
        win_trump = k == TRUMP
        points = int((core.POINTS * lead).sum())
        lead_cards = cards_of(lead)
        structure = lead_structure(order, {c: int(lead[c]) for c in np.nonzero(lead)[0]})
        plays = [(leader, lead_cards)]
        for i in range(1, 4):
            seat = (leader + i) % 4
            fname = SEATS[seat]
            table.winner = winner
            view = FollowView(**{**base(seat), "trick": tuple(plays)}, leader=leader, lead=lead_cards,
                              lead_structure=structure, winner=winner, failed_throw=attempted)
            where = f"{fname}'s follow in trick {tno} to {name}'s lead {_fmt(lead_cards)} (shape {structure.describe()})"
            cards = _answer(seat, f"follow in trick {tno}", pols[seat].follow(view))
            play = np.bincount(cards, minlength=NC).astype(np.int64) if cards else np.zeros(NC, np.int64)
            bad = _not_held(hands[seat], play)
            if bad:
                raise IllegalPlayError(f"{where} is illegal: {_missing_text(seat, hands[seat], play, bad)} "
                                       f"(played {_fmt(cards)})", "cards that are not in the hand")
            r = check_follow(order, structure, {c: int(hands[seat, c]) for c in np.nonzero(hands[seat])[0]},
                             {c: int(play[c]) for c in np.nonzero(play)[0]})
            if not r.legal:
                raise IllegalPlayError(f"{where} is illegal: {fname} {r.reason} (played {_fmt(cards)})", r.reason)
            in_k = int(play[cls == k].sum())
            hands[seat] -= play
            played += play
            points += int((core.POINTS * play).sum())
            if in_k < n:
                voids[seat, k] = 1
            if keep and nplays < H.MAX_PLAYS:
                _hist(h_plays, nplays, tricks, seat, 0, play)
                nplays += 1
            if LI[19] == 1:
                claim = core.contender_unit(play, cls, pos, P, LI, False, cur)
            else:
                claim = core.contender(play, cls, pos, P, LI, W, False, cur)
            if claim and core.beats(cur, win_c):
                win_c[:] = cur
                winner = seat
                win_trump = core.play_class(play, cls) == TRUMP
            plays.append((seat, tuple(cards_of(play))))
        if keep:
            h_plays[first_row:nplays, 3] = winner
        if winner % 2 != declarers:
            defender_points += points
            trick_points_def += points
        finished.append(Trick(tricks, leader, tuple(plays), winner, points, attempted))
        cards_left -= n
        tricks += 1
        last_winner = winner
        last_trump = bool(win_trump)
        last_key = int(LI[62]) if LI[62] > 0 else 1
        last_n = n
        last_points = points
        leader = winner

    rec[H.R_DEALER] = dealer
    rec[H.R_DECLARERS] = declarers
    rec[H.R_LEVEL] = level
    rec[H.R_TRUMP] = trump
    rec[H.R_REDEALS] = redeals
    rec[H.R_DECLARER_SEAT] = declarer_seat
    rec[H.R_BOTTOM_POINTS] = bottom_points
    rec[H.R_TRICKS] = tricks
    rec[H.R_PENALTIES] = penalties
    rec[H.R_FORFEIT] = forfeit
    cap = np.zeros(3, np.int64)
    if forfeit == 0 and last_winner >= 0:
        core.capture_points(P, last_winner % 2, declarers, last_key, last_trump, last_n, last_points, bottom_points, cap)
    rec[H.R_TRICK_POINTS] = trick_points_def
    rec[H.R_CAPTURE_MULT] = cap[0]
    rec[H.R_CAPTURE_POINTS] = cap[1]
    rec[H.R_CAPTURE_BY] = cap[2]
    final = int(H.final_points(P, defender_points + int(cap[1]) + penalties, forfeit, leader % 2 == declarers))
    rec[H.R_FINAL_POINTS] = final
    out = np.zeros(5, np.int64)
    core.score_hand(P, final, declarers, dealer, out)
    rec[H.R_TAKEOVER] = out[0]
    rec[H.R_NEXT_DECLARERS] = out[1]
    rec[H.R_NEXT_DEALER] = out[2]
    rec[H.R_LEVELS0] = out[3]
    rec[H.R_LEVELS1] = out[4]
    rec[H.R_MINUTES_X100] = P[OVERHEAD_X100] + (tricks * P[SECONDS_PER_TRICK_X100]) // 60
    record = dict(zip(H.RECORD_FIELDS, (int(x) for x in rec)))
    hist = None
    if keep:
        hist = HandHistory(h_deal, h_bottom, h_bids[:nbids].copy(), bury.copy(), h_plays[:nplays].copy())
    return HandResult(record, hist)


def _hist(h_plays, row, trick, seat, kind, cards):
    h_plays[row, 0] = trick
    h_plays[row, 1] = seat
    h_plays[row, 2] = kind
    h_plays[row, 3] = -1
    h_plays[row, 4:] = cards
