"""What the heuristic policies share: card strength, the bid wish, the greedy bury, sure-winner
tests, unit and fill helpers, the follow score and the void follower's trump.

Nothing here chooses a play on its own: ``random_play``, ``basic`` and ``expert`` do, and the
package's dispatcher picks one of them by policy code.
"""

from __future__ import annotations

import os

from numba import njit

from ...rules.cards import BIG_JOKER, SMALL_JOKER
from .. import core
from ..core import (
    CLAIM_KIND,
    CLAIM_TOP,
    CLAIM_TRUMP,
    FS_BEST,
    FS_CAND,
    FS_CLAIM,
    FS_INCLASS,
    FS_JUDGE_AT,
    FS_OTHERS,
    FS_TRY_LEFT,
    FS_TRY_TRUMPS,
    FS_UNSEEN,
    INT_NREC,
    LI_CARDS,
    LI_CLASS,
    LI_CODES,
    LI_NSEL,
    LI_SINGLES,
    LI_UNITS,
    NC,
    TRUMP,
    as_bool,
    as_int,
    copy1,
    w_fs,
    w_units,
)
from ..follow import best_sets
from ..order import class_count, class_span
from ..params import DECKS, JOKER_BIDS, JOKER_BIDS_NONE, NO_TRUMP_OK
from ..phases import C_LEADER, C_LEFT, C_LEVEL, C_TRICK_POINTS
from ..rng import uniform
from ..trick import beats, contender, contender_unit_of
from ..units import build_units, shape_code, unit_uniform
from .codes import BASIC, EXPERT, LEARNED, RANDOM

# What a compiled loop can play. The hand and match loops take an argument ``full``: ``None`` compiles
# the three heuristics only (random, basic, expert: ``search``, ``expert-v1`` and ``learned`` are never
# compiled into that loop); the constant ``LEARNED_SET`` adds ``learned`` (its candidate lists, features
# and model, but no roll-out); the constant ``FULL`` plays every built-in policy (``engine.hand``, "the
# loops' decisions, by policy set"): ``engine.lean.run``, ``engine.lean.run_learned`` and
# ``engine.full.run``. The lean loop is what most runs play, and compiles in about half the time of the
# full one; the learned set in about two thirds of it, which keeps a fresh clone's ``make demo`` on
# learned play within its two minutes (docs/performance.md, "Compilation"). ``full_for`` picks the
# argument, and ``engine.api`` the run.
FULL = 1
LEARNED_SET = 2


def full_for(codes) -> int | None:
    """The ``full`` argument of a loop whose seats play ``codes``: ``None`` when all of them are
    random, basic or expert, ``LEARNED_SET`` when the others play learned, else ``FULL``."""
    codes = [int(c) for c in codes]
    if all(c in (RANDOM, BASIC, EXPERT) for c in codes):
        return None
    if all(c in (RANDOM, BASIC, EXPERT, LEARNED) for c in codes) and not os.environ.get(LEARNED_IN_FULL):
        return LEARNED_SET
    return FULL


# Set (to anything but "") by the test suite, which compiles two sets, not three: learned plays in the
# full set there, whose decisions for a learned seat are the same code (``hand.decide``;
# ``tests/test_engine.py`` checks the two sets' play against each other, ``pytest -m slow``).
LEARNED_IN_FULL = "SIMSUITE_LEARNED_IN_FULL"

# --- the scales of the policies' keys and scores ------------------------------------------------------
#
# A card's position in its class is below 64 in every variant (22 at most: ``order.hand_tables``), and a
# card counts at most 10 points. The policies' keys and scores are built on these scales.
TRUMP_STRENGTH = 100  # ``strength`` adds this for a trump: above any position, so any trump is above any side card
POINTS_FIRST = 1000  # per point, in a key that orders by points, then strength: above any strength (below 100 + 64)
# ``build_units``' room for a unit of any size: more cards than a hand holds with the bottom (54 at most)
ANY_SIZE = 64
# Start values of a search for the least (or, negated, the greatest) key or score, which any real one beats.
# Their values only have to be out of reach; they are kept as they were written, so that nothing can change.
ABOVE_POSITION = 1 << 30  # above any position or strength
ABOVE_KEY = 1 << 40  # above any lead key or trump cost and, negated, below any follow score (all below 2**20 in size)
# above any bury key (weights up to search's 1 << 40 for a trump) and, negated, below any fill key
ABOVE_BURY_KEY = 1 << 62


@njit(cache=True, inline="always")
def strength(c, cls, pos):
    """One number to order every card: trump above side suits, then position."""
    return (TRUMP_STRENGTH if cls[c] == TRUMP else 0) + pos[c]


# --- bidding --------------------------------------------------------------------------------------
#
# The bid wish of basic and expert (set by hand with the first compiled engine, and never tuned by a
# measurement since): a suit's trump strength is its cards (its level cards among them), BID_LEVEL_CARD more
# for each level card shown, 1 for each small joker and BID_BIG_JOKER for each big joker. A suit is wished
# once its strength reaches BID_PER_DRAWN of the cards drawn so far plus BID_FLOOR: about a third of the hand
# (docs/policies.md), and a level card alone (2.5) only among the first four cards drawn.
BID_LEVEL_CARD = 1.5
BID_BIG_JOKER = 2.0
BID_PER_DRAWN = 0.32
BID_FLOOR = 1.0
JOKER_BID_DRAWN = 10  # a pair of jokers bids no-trump, where the variant allows it, once this many cards are drawn
# random: a joker pair bids no-trump with this chance each time it is asked, and any wish is withheld with
# RANDOM_HOLD_BACK ("declares ... about half of the times it is asked", docs/policies.md)
RANDOM_JOKER_BID = 0.2
RANDOM_HOLD_BACK = 0.5


@njit(cache=True, inline="always")
def may_bid(hand, level, P):
    """Whether ``bid_wish`` can wish anything for ``hand``: it holds a level card, or a pair of one
    joker where the variant lets jokers bid. Without either, ``bid_wish`` returns (-1, 0) and
    draws nothing from the generator, so the hand loop skips the call (most bid moments)."""
    for su in range(4):
        if hand[su * 13 + level] > 0:
            return True
    return P[JOKER_BIDS] != JOKER_BIDS_NONE and P[NO_TRUMP_OK] == 1 and (hand[SMALL_JOKER] >= 2 or hand[BIG_JOKER] >= 2)


@njit(cache=True, inline="always")
def bid_wish(pol, hand, level, P, s, drawn):
    """The bid a policy would like to show now: (card, count) or (-1, 0). The hand loop decides
    whether the rules accept it; a policy only asks for what it holds."""
    best_card = -1
    best_n = 0
    best_score = -1.0
    for su in range(4):
        c = su * 13 + level
        n = hand[c]
        if n == 0:
            continue
        length = 0
        for r in range(13):
            length += hand[su * 13 + r]
        if pol == RANDOM:
            score = uniform(s)
        else:
            # trump strength: cards of the suit, the level cards shown, jokers
            score = length + BID_LEVEL_CARD * n + hand[SMALL_JOKER] + BID_BIG_JOKER * hand[BIG_JOKER]
            if score < BID_PER_DRAWN * drawn + BID_FLOOR:
                continue
        if score > best_score:
            best_score = score
            best_card = c
            best_n = n
    if P[JOKER_BIDS] != JOKER_BIDS_NONE and P[NO_TRUMP_OK] == 1:
        for j in (SMALL_JOKER, BIG_JOKER):
            if hand[j] >= 2:
                if pol == RANDOM:
                    if uniform(s) < RANDOM_JOKER_BID:
                        return j, hand[j]
                elif best_card < 0 and drawn >= JOKER_BID_DRAWN:
                    return j, hand[j]
    if pol == RANDOM and best_card >= 0 and uniform(s) < RANDOM_HOLD_BACK:
        return -1, 0
    return best_card, best_n


# --- burying ----------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def bury_by_key(left, cls, pos, n, w_trump, w_pair, w_point, w_points, w_length, w_rich, length, out):
    """``_bury_by_key`` with the callers' constant weights made plain ints: one compiled copy."""
    _bury_by_key(
        left,
        cls,
        pos,
        n,
        as_int(w_trump),
        as_int(w_pair),
        as_int(w_point),
        as_int(w_points),
        as_int(w_length),
        as_int(w_rich),
        length,
        out,
    )


# ``w_rich`` counts the points a card lacks from this (search's bury habits, since its first version):
# at least the most points of a card (10), so that the term is never negative; it adds the same to every card's
# key, so its value changes no choice
RICH_FROM = 20


@njit(cache=True)
def _bury_by_key(left, cls, pos, n, w_trump, w_pair, w_point, w_points, w_length, w_rich, length, out):
    """Bury ``n`` cards of ``left`` (taken from it) into ``out``, one at a time, each time the card
    of least key: ``w_trump`` if trump, ``w_pair`` if a pair or more of it is left, ``w_point`` if
    it counts points, ``w_points`` per point, ``w_length`` per card left in its class,
    ``w_rich`` per point short of ``RICH_FROM``, plus its position. The weights make a habit: void short
    suits, keep points, bury points, and so on. ``length``: scratch for the cards per class."""
    for k in range(5):
        length[k] = 0
    for c in range(NC):
        length[cls[c]] += left[c]
    for _ in range(n):
        best = -1
        best_key = ABOVE_BURY_KEY
        for c in range(NC):
            if left[c] == 0:
                continue
            k = cls[c]
            pts = core.POINTS[c]
            key = pos[c] + w_length * length[k] + w_points * pts + w_rich * (RICH_FROM - pts)
            if k == TRUMP:
                key += w_trump
            if pts > 0:
                key += w_point
            if left[c] >= 2:
                key += w_pair
            if key < best_key:
                best_key = key
                best = c
        left[best] -= 1
        out[best] += 1
        length[cls[best]] -= 1


# --- leading ------------------------------------------------------------------------------------------


@njit(cache=True)
def unseen_into(hand, played, P, u):
    """Copies of each card that this player has not seen (in other hands or the bottom), into
    ``u``; returns ``u``."""
    for c in range(NC):
        u[c] = P[DECKS] - hand[c] - played[c]
    return u


@njit(cache=True)
def unit_is_sure(W, u, best, hi):
    """No unseen cards can form a unit of the same shape above unit ``u`` (so it wins unless
    trumped); ``best`` is ``trick.best_at`` of the unseen cards of the unit's class, ``hi`` the
    highest position it returned."""
    U_card, U_w, U_len, U_top, U_size, REC, REC_N, INTS = w_units(W)
    L = U_len[u]
    top = U_top[u]
    if hi <= top:
        return True
    uni = unit_uniform(U_w, U_len, u)
    for t in range(top + 1, hi + 1):
        if t - L + 1 < 0:
            continue
        if uni:
            ok = True
            for j in range(L):
                if best[t - j] < U_w[u, 0]:
                    ok = False
                    break
        else:
            ok = (best[t] >= 3 and best[t - 1] >= 2) or (best[t] >= 2 and best[t - 1] >= 3)
        if ok:
            return False
    return True


@njit(cache=True, inline="always")
def put_unit(U_card, U_w, U_len, u, out):
    for s in range(U_len[u]):
        out[U_card[u, s]] += U_w[u, s]


@njit(cache=True, inline="always")
def fill(play, pool, need, cls, pos, mode):
    """Add ``need`` cards from ``pool`` (minus ``play``) to ``play``: mode 0 lowest non-point first,
    mode 1 most points first, mode 2 highest first. The best card is taken as many times as it is
    available (it stays the best until then), so each pass over the cards takes a card, not a copy."""
    _fill(play, pool, need, cls, pos, mode, as_int(-1))


@njit(cache=True, inline="always")
def fill_class(play, pool, need, cls, pos, mode, k):
    """``fill`` from a ``pool`` that holds cards of class ``k`` only (it visits that class's ids)."""
    _fill(play, pool, need, cls, pos, mode, k)


@njit(cache=True)
def _fill(play, pool, need, cls, pos, mode, k):
    if k < 0:
        lo = 0
        hi = NC
    else:
        lo, hi = class_span(k)
    # the mode's key, a * points * POINTS_FIRST + b * strength, without a branch per card
    a = -1 if mode == 0 else (1 if mode == 1 else 0)
    b = 1 if mode == 2 else -1
    while need > 0:
        best = -1
        best_key = -ABOVE_BURY_KEY
        for c in range(lo, hi):
            if pool[c] - play[c] <= 0:
                continue
            key = a * core.POINTS[c] * POINTS_FIRST + b * strength(c, cls, pos)
            if key > best_key:
                best = c
                best_key = key
        if best < 0:
            return
        take = min(pool[best] - play[best], need)
        play[best] += take
        need -= take


@njit(cache=True, inline="always")
def score_follow(judge, overtake, cand, cls, pos, P, LI, W, cur, win_c, partner_wins, last_trick, J, unseen, voids):
    """How much a policy likes a candidate follow (``J``: the judgement of ``follow_scored``)."""
    if LI[LI_UNITS] == 1:
        wins = contender_unit_of(cand, LI[LI_CLASS], cls, pos, P, LI, cur) and beats(cur, win_c)
    else:
        wins = contender(cand, cls, pos, P, LI, W, as_bool(False), cur) and beats(cur, win_c)
    pts = 0
    cost = 0
    high = 0
    lo, hi = class_span(LI[LI_CLASS])  # the candidate is of the led class (follow_scored's units and fill)
    for c in range(lo, hi):
        if cand[c] > 0:
            pts += core.POINTS[c] * cand[c]
            cost += strength(c, cls, pos) * cand[c]
            if is_high_trump(c, cls, J[J_LEVEL]):
                high += cand[c]
    futile = False
    if judge and wins:
        futile = next_can_beat(
            cur[CLAIM_KIND],
            cur[CLAIM_TRUMP],
            cur[CLAIM_TOP],
            LI[LI_CARDS],
            LI[LI_CLASS],
            J[J_OPP],
            voids,
            unseen,
            cls,
            pos,
        )
    return score_parts(judge, overtake, wins, pts, cost, partner_wins, last_trick, J, futile, high)


@njit(cache=True, inline="always")
def score_parts(judge, overtake, wins, pts, cost, partner_wins, last_trick, J, futile, high):
    """The follow score of ``score_follow`` from its parts.

    Without judgement (``basic``, ``expert-v1``): win as cheaply as possible; feed points to a
    partner who is winning; otherwise give away little. ``overtake`` is what taking a trick from
    a winning partner costs (but on the last trick).

    With judgement (``expert``), from ``J``: feed points only to a partner sure to win (no
    opponent after this seat can beat the trick); never overtake a partner but on the last
    trick; a win the next opponent can still beat, or one that spends a joker or level card on
    a trick without points, counts for nothing unless the trick is worth contesting (it holds
    points, or the hand is near its end)."""
    if not judge:
        if partner_wins:  # give points, keep strength
            return pts * FOLLOW_POINT - cost - (overtake if wins and not last_trick else 0)
        if wins:
            return WIN_SCORE - cost + pts * WIN_POINT
        return -pts * FOLLOW_POINT - cost
    if partner_wins:
        score = (pts * FOLLOW_POINT - cost) if J[J_SURE_PARTNER] == 1 else (-pts * FOLLOW_POINT - cost)
        if wins and not last_trick:
            score -= overtake
        return score
    if wins:
        worth = J[J_TRICK_POINTS] + pts
        contest = J[J_CONTEST] == 1
        if contest or (worth > 0 and (not futile or worth >= FUTILE_WORTH)):
            return (WIN_SCORE if not futile else FUTILE_WIN_SCORE) - cost + pts * WIN_POINT
        if not futile and high == 0:
            return CHEAP_WIN_SCORE - cost  # a cheap sure win takes the lead
        return -pts * FOLLOW_POINT - cost - high * HIGH_TRUMP_COST
    return -pts * FOLLOW_POINT - cost


# the expert's follow judgement (``J``, int64[8]): the next seat if it is an opponent (else -1),
# whether a partner who is winning is sure to win, whether to contest any win, the trick's
# points so far, and the level (for jokers and level cards)
J_OPP, J_SURE_PARTNER, J_CONTEST, J_TRICK_POINTS, J_LEVEL = range(5)
FUTILE_WORTH = 10  # a win the next opponent may still beat is tried for a trick worth this much (a ten or a king)
# The follow score's weights (set by hand with the first compiled engine; expert's rebuild,
# added the futile and the cheap sure win). ``cost`` is the play's strength, below 164 a card.
FOLLOW_POINT = 100  # per point fed to a partner (+) or given away (-): a five (500) outweighs any card's strength
WIN_SCORE = 100_000  # a win: above any score without one (FOLLOW_POINT per point, 40,000 for four decks' 400 points)
FUTILE_WIN_SCORE = 50_000  # expert: a win the next opponent may still beat, on a trick worth it: below a sure win
CHEAP_WIN_SCORE = 60_000  # expert: a sure win spending no joker or level card on a trick without points
WIN_POINT = 50  # per point a win takes: of two wins of one cost, the richer
HIGH_TRUMP_COST = 30  # what spending a joker or level card on a trick without points costs in the score
CONTEST_TRICKS = 2  # the last tricks in which every win is contested (the bottom and the last lead)


@njit(cache=True, inline="always")
def is_high_trump(c, cls, level):
    """A joker or a level card (the trumps players save for the end)."""
    return c >= SMALL_JOKER or (cls[c] == TRUMP and c % 13 == level)


@njit(cache=True, inline="always")
def _next_known(trump, k, opp, voids):
    """What the voids alone say of ``next_can_beat``: 0 it cannot beat, 1 it can (it ruffs a side
    suit it is void in), -1 it depends on the unseen cards of the class it must play."""
    if opp < 0:
        return 0
    if k != TRUMP and voids[opp, k] == 1:
        if voids[opp, TRUMP] == 1:
            return 0
        if trump == 0:
            return 1
    elif trump == 1 and k != TRUMP:
        return 0  # it must follow the side suit, which cannot beat a trump
    return -1


@njit(cache=True)
def next_can_beat(kind, trump, top, n, k, opp, voids, unseen, cls, pos):
    """Can seat ``opp`` (the next to play; -1: nobody left who is an opponent) beat the claim
    (``kind``, ``trump``, ``top``) of a trick of ``n`` cards led in class ``k``, given the voids seen
    and the unseen cards? It follows suit unless it is known void; a void seat with trumps ruffs a
    side-suit claim, or overruffs with an unseen higher trump."""
    if kind > 0:
        return False
    known = _next_known(trump, k, opp, voids)
    if known >= 0:
        return known == 1
    need = 1 if n == 1 else 2
    kk = TRUMP if trump == 1 else k
    lo, hi = class_span(kk)
    for c in range(lo, hi):
        if cls[c] == kk and unseen[c] >= need and pos[c] > top:
            return True
    return False


@njit(cache=True, inline="always")
def next_can_beat_single(trump, top, k, opp, voids, hi_k, hi_t):
    """``next_can_beat`` of a one-card claim (``kind`` 0, ``n`` 1), given the highest position of an
    unseen card of class ``k`` (``hi_k``) and of trump (``hi_t``), -1 if none: the same answer
    without a pass over the cards for each candidate card."""
    known = _next_known(trump, k, opp, voids)
    if known >= 0:
        return known == 1
    return (hi_t if trump == 1 else hi_k) > top


@njit(cache=True)
def try_trump(hand, cls, pos, P, LI, W, lead, win_c, cand, cur):
    """A void follower's cheapest trump play that wins the trick, if any (in ``cand``)."""
    U_card, U_w, U_len, U_top, U_size, REC, REC_N, INTS = w_units(W)
    n = LI[LI_CARDS]
    if n == 1:
        # a single: the lowest trump that beats the current winner (``beats`` of a one-card trump
        # claim: none if the winner is of a stronger kind, any over a side-suit winner, else a
        # higher one), in one pass without a branch per card
        if win_c[CLAIM_KIND] > 0:
            return False
        above = win_c[CLAIM_TOP] if win_c[CLAIM_TRUMP] == 1 else -1
        pick = -1
        low = ABOVE_POSITION
        for c in range(NC):
            p = pos[c]
            better = (hand[c] > 0) & (cls[c] == TRUMP) & (p > above) & (p < low)
            pick = c if better else pick
            low = p if better else low
        if pick < 0:
            return False
        for c in range(NC):
            cand[c] = 0
        cand[pick] = 1
        return True
    FS = w_fs(W)
    trumps = FS[FS_TRY_TRUMPS][:NC]
    for c in range(NC):
        trumps[c] = hand[c] if cls[c] == TRUMP else 0
    if class_count(trumps, cls, TRUMP) < n:
        return False
    found = False
    best_cost = ABOVE_KEY
    best_u = -1
    if LI[LI_UNITS] == 1:
        # one unit: a trump unit of the same shape (or of the stronger kind)
        nU = build_units(trumps, cls, pos, TRUMP, P, n, 1, W)
        for u in range(nU):
            if U_size[u] != n:
                continue
            for c in range(NC):
                cand[c] = 0
            put_unit(U_card, U_w, U_len, u, cand)
            if contender(cand, cls, pos, P, LI, W, as_bool(False), cur) and beats(cur, win_c):
                cost = U_top[u]
                if cost < best_cost:
                    best_cost = cost
                    found = True
                    best_u = u
        if found:
            for c in range(NC):
                cand[c] = 0
            build_units(trumps, cls, pos, TRUMP, P, n, 1, W)
            put_unit(U_card, U_w, U_len, best_u, cand)
        return found
    # a throw: the lowest trump units of each shape, singles lowest
    for c in range(NC):
        cand[c] = 0
    left = FS[FS_TRY_LEFT][:NC]
    copy1(left, trumps)
    nsel = LI[LI_NSEL]
    for i in range(nsel - 1, -1, -1):
        code = LI[LI_CODES + i]
        nU = build_units(left, cls, pos, TRUMP, P, n, 2, W)
        pick = -1
        for u in range(nU):
            if shape_code(U_w, U_len, U_size, u) == code and (pick < 0 or U_top[u] < U_top[pick]):
                pick = u
        if pick < 0:
            return False
        for st in range(U_len[pick]):
            left[U_card[pick, st]] -= U_w[pick, st]
            cand[U_card[pick, st]] += U_w[pick, st]
    for _ in range(LI[LI_SINGLES]):
        low = -1
        for c in range(NC):
            if left[c] > 0 and (low < 0 or pos[c] < pos[low]):
                low = c
        if low < 0:
            return False
        left[low] -= 1
        cand[low] += 1
    return contender(cand, cls, pos, P, LI, W, as_bool(False), cur) and beats(cur, win_c)


@njit(cache=True, inline="always")
def lead_lowest(hand, cls, pos, out):
    """The weakest card of the hand, alone (what is left when nothing better can be led)."""
    low = -1
    for c in range(NC):
        if hand[c] > 0 and (low < 0 or strength(c, cls, pos) < strength(low, cls, pos)):
            low = c
    out[low] = 1
    return 0


# Not inlined: basic, expert and expert-v1 call one compiled copy (with ``as_bool`` / ``as_int``, so that their
# constants do not compile a copy each). Inlined, it was typed once per policy: 8 to 13 s each on a fresh checkout
# (docs/performance.md, "One compiled follow for three policies").
@njit(cache=True)
def follow_scored(
    judge, overtake, seat, hand, played, voids, cls, pos, P, ctx, W, LI, lead, win_c, partner_wins, last_trick, out
):
    """A legal follow to the lead ``LI`` chosen by ``score_follow``: for a single lead each card of
    the suit, else each unit set of the best follow profile filled three ways (cheap, points,
    high). A void follower trumps when it can win and its partner does not (with ``judge``,
    only when the trick is worth it); otherwise it fills with points for a winning partner (with
    ``judge``, a partner sure to win), else with its cheapest cards."""
    k = LI[LI_CLASS]
    n = LI[LI_CARDS]
    FS = w_fs(W)
    cur = FS[FS_CLAIM]
    J = FS[FS_CLAIM][FS_JUDGE_AT : FS_JUDGE_AT + 8]  # the judgement, in the spare tail of the claim's scratch row
    unseen = played
    J[J_OPP] = -1
    J[J_SURE_PARTNER] = 1 if partner_wins else 0
    J[J_CONTEST] = 1 if last_trick else 0
    J[J_TRICK_POINTS] = 0
    J[J_LEVEL] = ctx[C_LEVEL]
    if judge:
        unseen = unseen_into(hand, played, P, FS[FS_UNSEEN][:NC])
        if (ctx[C_LEADER] + 3 - seat) % 4 > 0:
            J[J_OPP] = (seat + 1) % 4
        if partner_wins and next_can_beat(
            win_c[CLAIM_KIND], win_c[CLAIM_TRUMP], win_c[CLAIM_TOP], n, k, J[J_OPP], voids, unseen, cls, pos
        ):
            J[J_SURE_PARTNER] = 0
        if ctx[C_LEFT] <= CONTEST_TRICKS * n:
            J[J_CONTEST] = 1
        J[J_TRICK_POINTS] = ctx[C_TRICK_POINTS]
    have = 0
    if n == 1:
        # a single lead: any card of the suit is legal; score each while counting them
        best_score = -ABOVE_KEY
        pick = -1
        hi_k = -1  # the highest unseen card of the suit and of trump (for next_can_beat_single)
        hi_t = -1
        if judge:
            for c in range(NC):
                if unseen[c] > 0:
                    if cls[c] == k and pos[c] > hi_k:
                        hi_k = pos[c]
                    if cls[c] == TRUMP and pos[c] > hi_t:
                        hi_t = pos[c]
        for c in range(NC):
            out[c] = 0
        lo, hi = class_span(k)
        for c in range(lo, hi):
            if hand[c] == 0 or cls[c] != k:
                continue
            have += hand[c]
            # the single-card case of score_follow, without building the play
            t = 1 if cls[c] == TRUMP else 0
            wins = t > win_c[CLAIM_TRUMP] or (
                t == win_c[CLAIM_TRUMP] and win_c[CLAIM_KIND] == 0 and pos[c] > win_c[CLAIM_TOP]
            )
            futile = judge and wins and next_can_beat_single(t, pos[c], k, J[J_OPP], voids, hi_k, hi_t)
            high = 1 if is_high_trump(c, cls, J[J_LEVEL]) else 0
            score = score_parts(
                judge, overtake, wins, core.POINTS[c], strength(c, cls, pos), partner_wins, last_trick, J, futile, high
            )
            if score > best_score:
                best_score = score
                pick = c
        if have >= 1:
            out[pick] = 1  # with one card of the suit, that card
            return
    else:
        for c in range(NC):
            out[c] = 0
            if cls[c] == k:
                have += hand[c]
    U_card, U_w, U_len, U_top, U_size, REC, REC_N, INTS = w_units(W)
    cand = FS[FS_CAND]
    feed = J[J_SURE_PARTNER] == 1
    if have == 0:
        # void in the suit: any cards (the whole hand is of other classes); it may trump
        if not partner_wins and k != TRUMP:
            if try_trump(hand, cls, pos, P, LI, W, lead, win_c, cand, cur) and (
                not judge or ruff_pays(cand, cls, J, n, k, voids, unseen, pos)
            ):
                for c in range(NC):
                    out[c] = cand[c]
                return
        fill(out, hand, n, cls, pos, 1 if feed else 0)
        return
    inclass = FS[FS_INCLASS]
    others = FS[FS_OTHERS]
    split_by_class(hand, cls, k, inclass, others)
    if have <= n:
        # all of the suit, then anything; a void player may trump
        for c in range(NC):
            out[c] = inclass[c]
        need = n - have
        if need == 0:
            return
        fill(out, others, need, cls, pos, 1 if feed else 0)
        return
    best = FS[FS_BEST]
    best_sets(inclass, cls, pos, P, LI, W, best)
    nrec = INTS[INT_NREC]
    # candidates = each optimal unit set, filled cheaply, with points, or high
    best_score = -ABOVE_KEY
    for r in range(nrec):
        for mode in range(3):
            for c in range(NC):
                cand[c] = 0
            need = n
            for j in range(REC_N[r]):
                put_unit(U_card, U_w, U_len, REC[r, j], cand)
                need -= U_size[REC[r, j]]
            fill_class(cand, inclass, need, cls, pos, mode, k)
            score = score_follow(
                judge, overtake, cand, cls, pos, P, LI, W, cur, win_c, partner_wins, last_trick, J, unseen, voids
            )
            if score > best_score:
                best_score = score
                for c in range(NC):
                    out[c] = cand[c]
            if need == 0:
                break  # the units fill the play: the three fills are the same candidate


@njit(cache=True, inline="always")
def ruff_pays(cand, cls, J, n, k, voids, unseen, pos):
    """The expert's test of a winning ruff ``cand``: take it when the trick is worth contesting,
    or when it spends no joker or level card and the next opponent cannot overruff its highest
    trump."""
    if J[J_CONTEST] == 1 or J[J_TRICK_POINTS] > 0:
        return True
    top = -1
    for c in range(NC):
        if cand[c] > 0:
            if is_high_trump(c, cls, J[J_LEVEL]):
                return False
            if pos[c] > top:
                top = pos[c]
    return not next_can_beat(as_int(0), as_int(1), as_int(top), n, k, J[J_OPP], voids, unseen, cls, pos)


@njit(cache=True, inline="always")
def split_by_class(hand, cls, k, inclass, others):
    """``inclass``: the cards of ``hand`` in class ``k``; ``others``: the rest."""
    for c in range(NC):
        if cls[c] == k:
            inclass[c] = hand[c]
            others[c] = 0
        else:
            inclass[c] = 0
            others[c] = hand[c]
