"""The built-in heuristic policies, compiled: ``random`` (0), ``basic`` (1) and ``expert`` (2).
``search`` (3, ``engine.search``) plays through them.

Each policy answers four questions: whether to bid while drawing, what to bury, what to lead
and what to follow with. They see only what a player sees: their own hand, the cards played so
far, the current trick; ``expert`` also infers voids from who failed to follow suit.

Legality never depends on a policy: follows are built from the unit sets that reach the best
follow profile (``core.best_sets``), leads are single units, and a throw is only attempted when
the policy judges it safe; the hand loop applies the rules to whatever is chosen.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import core
from .core import LI_CARDS, LI_CLASS, LI_CODES, LI_NSEL, LI_SINGLES, LI_UNITS, NC, TRUMP, W_BU, W_FS, W_PS
from .params import (
    BOTTOM, CAPTURE_BASE, CAPTURE_BY, CAPTURE_PER_CARD, CAPTURE_SCHEME, CAPTURE_WITH, DECKS, JOKER_BIDS,
    NO_TRUMP_OK, THROW_TEST, THROWS,
)
from .rng import randint, uniform

RANDOM, BASIC, EXPERT = 0, 1, 2
POLICY_NAMES = ("random", "basic", "expert", "search")  # "search" (code 3) lives in engine.search

# ctx: [0] declarers, [1] tricks left (including this one), [2] dealer, [3] trump, [4] level,
#      [5] trick number, [6] partner-is-winning flag (follow), [7] winner seat (follow)
C_DECL, C_LEFT, C_DEALER, C_TRUMP, C_LEVEL = 0, 1, 2, 3, 4


@njit(cache=True, inline="always")
def _strength(c, cls, pos):
    """One number to order every card: trump above side suits, then position."""
    return (100 if cls[c] == TRUMP else 0) + pos[c]


# --- bidding --------------------------------------------------------------------------------------


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
            score = length + 1.5 * n + hand[52] + 2.0 * hand[53]
            if score < 0.32 * drawn + 1.0:
                continue
        if score > best_score:
            best_score = score
            best_card = c
            best_n = n
    if P[JOKER_BIDS] != 0 and P[NO_TRUMP_OK] == 1:
        for j in (52, 53):
            if hand[j] >= 2:
                if pol == RANDOM:
                    if uniform(s) < 0.2:
                        return j, hand[j]
                elif best_card < 0 and drawn >= 10:
                    return j, hand[j]
    if pol == RANDOM and best_card >= 0 and uniform(s) < 0.5:
        return -1, 0
    return best_card, best_n


# --- burying ----------------------------------------------------------------------------------------


@njit(cache=True)
def choose_bury(pol, hand, cls, pos, P, s, n, out):
    """Choose ``n`` cards of ``hand`` to bury into ``out`` (a count vector)."""
    for c in range(NC):
        out[c] = 0
    left = hand.copy()
    if pol == RANDOM:
        for _ in range(n):
            total = 0
            for c in range(NC):
                total += left[c]
            r = randint(s, total)
            for c in range(NC):
                if r < left[c]:
                    left[c] -= 1
                    out[c] += 1
                    break
                r -= left[c]
        return
    # basic / expert: shortest side suits first (to make voids), lowest cards, no points,
    # never a pair or better; expert keeps a high card of a short suit only if it is an ace.
    bury_by_key(left, cls, pos, n, 1 << 30, 1 << 22, (1 << 24) if pol == EXPERT else (1 << 20), 0, 64, 0, out)


@njit(cache=True)
def bury_by_key(left, cls, pos, n, w_trump, w_pair, w_point, w_points, w_length, w_rich, out):
    """Bury ``n`` cards of ``left`` (taken from it) into ``out``, one at a time, each time the card
    of least key: ``w_trump`` if trump, ``w_pair`` if a pair or more of it is left, ``w_point`` if
    it counts points, ``w_points`` per point, ``w_length`` per card left in its class,
    ``w_rich`` per point short of 20, plus its position. The weights make a habit: void short
    suits, keep points, bury points, and so on."""
    length = np.zeros(5, np.int64)
    for c in range(NC):
        length[cls[c]] += left[c]
    for _ in range(n):
        best = -1
        best_key = 1 << 62
        for c in range(NC):
            if left[c] == 0:
                continue
            k = cls[c]
            pts = core.POINTS[c]
            key = pos[c] + w_length * length[k] + w_points * pts + w_rich * (20 - pts)
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
def _unseen(hand, played, P):
    """Copies of each card that this player has not seen (in other hands or the bottom)."""
    u = np.empty(NC, np.int64)
    for c in range(NC):
        u[c] = P[DECKS] - hand[c] - played[c]
    return u


@njit(cache=True)
def _unit_is_sure(W, u, best, hi):
    """No unseen cards can form a unit of the same shape above unit ``u`` (so it wins unless
    trumped); ``best`` is ``core._best_at`` of the unseen cards of the unit's class, ``hi`` the
    highest position it returned."""
    U_card, U_w, U_len, U_top, U_size, REC, REC_N, INTS = W[:W_BU]
    L = U_len[u]
    top = U_top[u]
    if hi <= top:
        return True
    uni = core.unit_uniform(U_w, U_len, u)
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
def _put_unit(U_card, U_w, U_len, u, out):
    for s in range(U_len[u]):
        out[U_card[u, s]] += U_w[u, s]


@njit(cache=True, inline="always")
def choose_lead(pol, seat, hands, played, voids, cls, pos, P, ctx, W, s, out):
    """Fill ``out`` with the lead. Returns 1 if it is a throw (several units), else 0."""
    for c in range(NC):
        out[c] = 0
    hand = hands[seat]
    if pol == RANDOM:
        classes = np.zeros(5, np.int64)
        nk = 0
        for k in range(5):
            if core.class_count(hand, cls, k) > 0:
                classes[nk] = k
                nk += 1
        k = classes[randint(s, nk)]
        U_card, U_w, U_len, U_top, U_size, REC, REC_N, INTS = W[:W_BU]
        nU = core.build_units(hand, cls, pos, k, P, 64, 1, W)
        _put_unit(U_card, U_w, U_len, randint(s, nU), out)
        return 0
    declarers = ctx[C_DECL]
    my_team = seat % 2
    left = ctx[C_LEFT]
    if pol == EXPERT and left <= 4 and _keep_for_last_trick(hand, played, cls, pos, P, my_team, declarers, W, out):
        return 0
    # 1. sure winners in side suits: the biggest unit, then the most points
    best_u = -1
    best_key = -1
    best_k = -1
    if pol == BASIC:
        # basic looks at the top card of each suit and at its pairs and triples: a unit is sure
        # when no unseen card above it has as many copies (suffix maxima, one pass per array)
        PS = W[W_PS]
        sufmax = PS[:5]
        for k in range(5):
            for t in range(32):
                sufmax[k, t] = 0
        top = PS[5]
        for k in range(5):
            top[k] = -1
        decks = P[DECKS]
        for c in range(NC):
            k = cls[c]
            u = decks - hand[c] - played[c]
            if k != TRUMP and u > sufmax[k, pos[c]]:
                sufmax[k, pos[c]] = u
            if hand[c] > 0 and (top[k] < 0 or pos[c] > pos[top[k]]):
                top[k] = c
        for k in range(4):
            for t in range(30, -1, -1):  # side-suit positions stay below 27
                if sufmax[k, t + 1] > sufmax[k, t]:
                    sufmax[k, t] = sufmax[k, t + 1]
        pick_c = -1
        pick_w = 0
        for c in range(NC):
            k = cls[c]
            if hand[c] == 0 or k == TRUMP or (c != top[k] and hand[c] < 2):
                continue
            above = sufmax[k, pos[c] + 1]
            for w in range(2 if c != top[k] else 1, hand[c] + 1):
                if above < w:
                    key = w * 1000 + core.POINTS[c] * w * 4 + pos[c]
                    if key > best_key:
                        best_key = key
                        pick_c = c
                        pick_w = w
        if pick_c >= 0:
            out[pick_c] = pick_w
            return 0
    U_card, U_w, U_len, U_top, U_size, REC, REC_N, INTS = W[:W_BU]
    unseen = _unseen(hand, played, P)
    ubest = np.zeros(64, np.int64)
    for k in range(4):
        if pol == BASIC:
            break
        if core.class_count(hand, cls, k) == 0:
            continue
        # an opponent known void in this suit may trump it (expert knows; basic does not)
        if pol == EXPERT:
            risky = False
            for o in range(4):
                if o % 2 != my_team and voids[o, k] == 1 and voids[o, TRUMP] == 0:
                    risky = True
            if risky:
                continue
        nU = core.build_units(hand, cls, pos, k, P, 64, 1, W)
        hi = core._best_at(unseen, cls, pos, k, ubest)
        for u in range(nU):
            if _unit_is_sure(W, u, ubest, hi):
                pts = 0
                for st in range(U_len[u]):
                    pts += core.POINTS[U_card[u, st]] * U_w[u, st]
                key = U_size[u] * 1000 + pts * 4 + U_top[u]
                if key > best_key:
                    best_key = key
                    best_u = u
                    best_k = k
    if best_u >= 0:
        # expert: throw every sure unit of that suit at once when the throw test is safe
        if pol == EXPERT and P[THROWS] == 1:
            thrown = _safe_throw(hand, unseen, cls, pos, P, best_k, W, out)
            if thrown:
                return 1
        core.build_units(hand, cls, pos, best_k, P, 64, 1, W)
        _put_unit(U_card, U_w, U_len, best_u, out)
        return 0
    n_trump = core.class_count(hand, cls, TRUMP)
    # 2. expert declarers draw trumps while they hold many and opponents may still have some
    if pol == EXPERT and my_team == declarers and n_trump >= 2:
        unseen_trump = core.class_count(unseen, cls, TRUMP)
        opp_void = True
        for o in range(4):
            if o % 2 != my_team and voids[o, TRUMP] == 0:
                opp_void = False
        if not opp_void and n_trump * 2 >= unseen_trump and left > 4:
            nU = core.build_units(hand, cls, pos, TRUMP, P, 64, 1, W)
            hi = core._best_at(unseen, cls, pos, TRUMP, ubest)
            # the strongest unit that is sure to win, else the lowest single
            pick = -1
            for u in range(nU):
                if _unit_is_sure(W, u, ubest, hi):
                    if pick < 0 or U_size[u] > U_size[pick]:
                        pick = u
            if pick >= 0:
                _put_unit(U_card, U_w, U_len, pick, out)
                return 0
    # 3. a low card of a side suit: the longest suit, lowest non-point; pairs first (they draw pairs)
    best_c = -1
    best_key = 1 << 40
    for c in range(NC):
        if hand[c] == 0 or cls[c] == TRUMP:
            continue
        k = cls[c]
        key = core.POINTS[c] * 1000 + pos[c] * 4
        if pol == EXPERT:
            key -= core.class_count(hand, cls, k) * 8
            if hand[c] >= 2:
                key -= 2
        if key < best_key:
            best_key = key
            best_c = c
    if best_c >= 0:
        n = 1
        if pol == EXPERT and hand[best_c] >= 2 and core.POINTS[best_c] == 0:
            n = hand[best_c]
        out[best_c] = n
        return 0
    # 4. only trump left: expert keeps its best for the end; lead the lowest
    low = -1
    for c in range(NC):
        if hand[c] > 0 and (low < 0 or _strength(c, cls, pos) < _strength(low, cls, pos)):
            low = c
    out[low] = 1
    return 0


@njit(cache=True)
def _keep_for_last_trick(hand, played, cls, pos, P, my_team, declarers, W, out):
    """Expert, near the end: when its side can capture and the multiplier grows with the unit,
    keep a sure trump pair (or bigger) for the last trick and lead the cheapest other card now.
    Returns True if ``out`` holds such a lead."""
    U_card, U_w, U_len, U_top, U_size, REC, REC_N, INTS = W[:W_BU]
    can_capture = my_team != declarers or P[CAPTURE_BY] == 1
    grows = (P[CAPTURE_SCHEME] == 0 and P[CAPTURE_PER_CARD] > 0) or (P[CAPTURE_SCHEME] == 1 and P[CAPTURE_BASE] > 1) or P[CAPTURE_SCHEME] == 2
    if not can_capture or not grows:
        return False
    n = 0
    for c in range(NC):
        n += hand[c]
    unseen = _unseen(hand, played, P)
    ubest = np.zeros(64, np.int64)
    hi = core._best_at(unseen, cls, pos, TRUMP, ubest)
    nU = core.build_units(hand, cls, pos, TRUMP, P, n - 1, 2, W)
    keep = -1
    for u in range(nU):
        if _unit_is_sure(W, u, ubest, hi) and (keep < 0 or U_size[u] > U_size[keep]):
            keep = u
    if keep < 0:
        return False
    rest = hand.copy()
    for st in range(U_len[keep]):
        rest[U_card[keep, st]] -= U_w[keep, st]
    low = -1
    for c in range(NC):
        if rest[c] > 0:
            key = _strength(c, cls, pos) + core.POINTS[c] * 10
            if low < 0 or key < _strength(low, cls, pos) + core.POINTS[low] * 10:
                low = c
    if low < 0:
        return False
    for c in range(NC):
        out[c] = 0
    out[low] = 1
    return True


@njit(cache=True)
def _safe_throw(hand, unseen, cls, pos, P, k, W, out):
    """Expert: throw all units of suit ``k`` that are sure winners, if there are at least two and
    the variant's throw test passes against every unseen card. Returns True if ``out`` is set."""
    U_card, U_w, U_len, U_top, U_size, REC, REC_N, INTS = W[:W_BU]
    nU = core.build_units(hand, cls, pos, k, P, 64, 1, W)
    ubest = np.zeros(64, np.int64)
    hi = core._best_at(unseen, cls, pos, k, ubest)
    tmp = np.zeros(NC, np.int64)
    left = hand.copy()
    n_units = 0
    # greedy: biggest sure units first
    order = np.argsort(-U_size[:nU] * 100 - U_top[:nU])
    for i in range(nU):
        u = order[i]
        ok = True
        for st in range(U_len[u]):
            if left[U_card[u, st]] < U_w[u, st]:
                ok = False
        if not ok or not _unit_is_sure(W, u, ubest, hi):
            continue
        for st in range(U_len[u]):
            left[U_card[u, st]] -= U_w[u, st]
            tmp[U_card[u, st]] += U_w[u, st]
        n_units += 1
    if n_units < 2:
        return False
    if P[THROW_TEST] == 0:
        # absolute max: the smallest card must be at least every unseen card of the suit
        low = 1 << 30
        for c in range(NC):
            if tmp[c] > 0 and pos[c] < low:
                low = pos[c]
        for c in range(NC):
            if unseen[c] > 0 and cls[c] == k and pos[c] > low:
                return False
    for c in range(NC):
        out[c] = tmp[c]
    return True


# --- following --------------------------------------------------------------------------------------


@njit(cache=True)
def _fill(play, pool, need, cls, pos, mode):
    """Add ``need`` cards from ``pool`` (minus ``play``) to ``play``: mode 0 lowest non-point first,
    mode 1 most points first, mode 2 highest first."""
    for _ in range(need):
        best = -1
        best_key = 0
        for c in range(NC):
            if pool[c] - play[c] <= 0:
                continue
            st = _strength(c, cls, pos)
            if mode == 0:
                key = -(core.POINTS[c] * 1000 + st)
            elif mode == 1:
                key = core.POINTS[c] * 1000 - st
            else:
                key = st
            if best < 0 or key > best_key:
                best = c
                best_key = key
        play[best] += 1


@njit(cache=True, inline="always")
def _play_points(play):
    t = 0
    for c in range(NC):
        t += core.POINTS[c] * play[c]
    return t


@njit(cache=True, inline="always")
def choose_follow(pol, seat, hands, played, voids, cls, pos, P, ctx, W, s, LI, lead, win_c, winner, out):
    """Fill ``out`` with a legal follow to the lead ``LI`` (the trick's current best claim is
    ``win_c``, held by seat ``winner``)."""
    hand = hands[seat]
    k = LI[LI_CLASS]
    n = LI[LI_CARDS]
    partner_wins = winner % 2 == seat % 2
    last_trick = ctx[C_LEFT] == 1
    have = 0
    if n == 1 and pol != RANDOM:
        # a single lead: any card of the suit is legal; score each while counting them
        best_score = -(1 << 40)
        pick = -1
        for c in range(NC):
            out[c] = 0
            if hand[c] == 0 or cls[c] != k:
                continue
            have += hand[c]
            # the single-card case of _score, without building the play
            t = 1 if cls[c] == TRUMP else 0
            wins = t > win_c[1] or (t == win_c[1] and win_c[0] == 0 and pos[c] > win_c[2])
            score = _score_parts(pol, wins, core.POINTS[c], _strength(c, cls, pos), partner_wins, last_trick)
            if score > best_score:
                best_score = score
                pick = c
        if have > 1:
            out[pick] = 1
            return
    else:
        for c in range(NC):
            out[c] = 0
            if cls[c] == k:
                have += hand[c]
    FS = W[W_FS]
    cur = FS[3]
    if n == 1 and have > 1:
        # random: any card of the suit
        x = randint(s, have)
        for c in range(NC):
            if cls[c] == k:
                if x < hand[c]:
                    out[c] = 1
                    return
                x -= hand[c]
    U_card, U_w, U_len, U_top, U_size, REC, REC_N, INTS = W[:W_BU]
    inclass = FS[0]
    others = FS[1]
    for c in range(NC):
        if cls[c] == k:
            inclass[c] = hand[c]
            others[c] = 0
        else:
            inclass[c] = 0
            others[c] = hand[c]
    cand = FS[2]
    if have <= n:
        # all of the suit, then anything; a void player may trump
        for c in range(NC):
            out[c] = inclass[c]
        need = n - have
        if need == 0:
            return
        if have == 0 and pol != RANDOM and not partner_wins and k != TRUMP:
            if _try_trump(hand, cls, pos, P, LI, W, lead, win_c, cand, cur):
                for c in range(NC):
                    out[c] = cand[c]
                return
        if pol == RANDOM:
            for _ in range(need):
                total = 0
                for c in range(NC):
                    total += others[c] - out[c] if cls[c] != k else 0
                r = randint(s, total)
                for c in range(NC):
                    if cls[c] == k:
                        continue
                    a = others[c] - out[c]
                    if r < a:
                        out[c] += 1
                        break
                    r -= a
            return
        _fill(out, others, need, cls, pos, 1 if partner_wins else 0)
        return
    best = FS[4]
    core.best_sets(inclass, cls, pos, P, LI, W, best)
    nrec = INTS[0]
    if pol == RANDOM:
        r = randint(s, nrec)
        for j in range(REC_N[r]):
            _put_unit(U_card, U_w, U_len, REC[r, j], out)
        need = n
        for c in range(NC):
            need -= out[c]
        for _ in range(need):
            total = 0
            for c in range(NC):
                total += inclass[c] - out[c]
            x = randint(s, total)
            for c in range(NC):
                a = inclass[c] - out[c]
                if x < a:
                    out[c] += 1
                    break
                x -= a
        return
    # basic / expert: candidates = each optimal unit set, filled cheaply or with points
    best_score = -(1 << 40)
    for r in range(nrec):
        for mode in range(3):
            for c in range(NC):
                cand[c] = 0
            for j in range(REC_N[r]):
                _put_unit(U_card, U_w, U_len, REC[r, j], cand)
            need = n
            for c in range(NC):
                need -= cand[c]
            _fill(cand, inclass, need, cls, pos, mode)
            score = _score(pol, cand, cls, pos, P, LI, W, cur, win_c, partner_wins, last_trick)
            if score > best_score:
                best_score = score
                for c in range(NC):
                    out[c] = cand[c]


@njit(cache=True, inline="always")
def _score(pol, cand, cls, pos, P, LI, W, cur, win_c, partner_wins, last_trick):
    """How much a policy likes a candidate follow: win cheaply, feed a winning partner, else
    give away little."""
    if LI[LI_UNITS] == 1:
        wins = core.contender_unit(cand, cls, pos, P, LI, False, cur) and core.beats(cur, win_c)
    else:
        wins = core.contender(cand, cls, pos, P, LI, W, False, cur) and core.beats(cur, win_c)
    pts = 0
    cost = 0
    for c in range(NC):
        if cand[c] > 0:
            pts += core.POINTS[c] * cand[c]
            cost += _strength(c, cls, pos) * cand[c]
    return _score_parts(pol, wins, pts, cost, partner_wins, last_trick)


@njit(cache=True, inline="always")
def _score_parts(pol, wins, pts, cost, partner_wins, last_trick):
    if partner_wins:
        score = pts * 100 - cost  # give points, keep strength
        if pol == EXPERT and wins and not last_trick:
            score -= 50  # do not overtake a partner
    elif wins:
        score = 100000 - cost + pts * 50
    else:
        score = -pts * 100 - cost
    return score


@njit(cache=True)
def _try_trump(hand, cls, pos, P, LI, W, lead, win_c, cand, cur):
    """A void follower's cheapest trump play that wins the trick, if any (in ``cand``)."""
    U_card, U_w, U_len, U_top, U_size, REC, REC_N, INTS = W[:W_BU]
    n = LI[LI_CARDS]
    trumps = np.zeros(NC, np.int64)
    for c in range(NC):
        if cls[c] == TRUMP:
            trumps[c] = hand[c]
    if core.class_count(trumps, cls, TRUMP) < n:
        return False
    found = False
    best_cost = 1 << 40
    best_u = -1
    if n == 1:
        # a single: the lowest trump that beats the current winner
        pick = -1
        for c in range(NC):
            if trumps[c] > 0:
                cur[0] = 0
                cur[1] = 1
                cur[2] = pos[c]
                if core.beats(cur, win_c) and (pick < 0 or pos[c] < pos[pick]):
                    pick = c
        if pick < 0:
            return False
        for c in range(NC):
            cand[c] = 0
        cand[pick] = 1
        return True
    if LI[LI_UNITS] == 1:
        # one unit: a trump unit of the same shape (or of the stronger kind)
        nU = core.build_units(trumps, cls, pos, TRUMP, P, n, 1, W)
        for u in range(nU):
            if U_size[u] != n:
                continue
            for c in range(NC):
                cand[c] = 0
            _put_unit(U_card, U_w, U_len, u, cand)
            if core.contender(cand, cls, pos, P, LI, W, False, cur) and core.beats(cur, win_c):
                cost = U_top[u]
                if cost < best_cost:
                    best_cost = cost
                    found = True
                    best_u = u
        if found:
            for c in range(NC):
                cand[c] = 0
            core.build_units(trumps, cls, pos, TRUMP, P, n, 1, W)
            _put_unit(U_card, U_w, U_len, best_u, cand)
        return found
    # a throw: the lowest trump units of each shape, singles lowest
    for c in range(NC):
        cand[c] = 0
    left = trumps.copy()
    nsel = LI[LI_NSEL]
    for i in range(nsel - 1, -1, -1):
        code = LI[LI_CODES + i]
        nU = core.build_units(left, cls, pos, TRUMP, P, n, 2, W)
        pick = -1
        for u in range(nU):
            if core.shape_code(U_w, U_len, U_size, u) == code and (pick < 0 or U_top[u] < U_top[pick]):
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
    return core.contender(cand, cls, pos, P, LI, W, False, cur) and core.beats(cur, win_c)


# Called once per decision (the search's candidate lists, advise): one compiled copy each, where
# the hand loops inline ``choose_lead`` and ``choose_follow`` for speed.
@njit(cache=True)
def lead_once(pol, seat, hands, played, voids, cls, pos, P, ctx, W, s, out):
    return choose_lead(pol, seat, hands, played, voids, cls, pos, P, ctx, W, s, out)


@njit(cache=True)
def follow_once(pol, seat, hands, played, voids, cls, pos, P, ctx, W, s, LI, lead, win_c, winner, out):
    choose_follow(pol, seat, hands, played, voids, cls, pos, P, ctx, W, s, LI, lead, win_c, winner, out)
