"""The ``search`` policy: determinised Monte Carlo search over the real rules, compiled.

At each decision (bury, lead, follow) the seat to move

1. lists a few sensible candidates (``*_candidates``): the heuristic's own choice and the other
   plays a strong player would weigh, every one legal by construction;
2. samples ``K`` deals of the cards it has not seen (``sample_world``) that agree with everything
   it knows: its own hand, every card played, the voids revealed by failures to follow, the cards
   each player showed while bidding and still holds, the bottom if it buried it, and each
   player's hand size;
3. plays every candidate out to the end of the hand in every sampled deal with the roll-out
   policy (``expert``, or ``learned`` with ``-rlearned``) under the variant's full rules (throws,
   capture, bands), the same deals for every candidate (common random numbers);
4. keeps the candidate whose mean result for its team is best (``value``): the variant's level
   outcome first, then the stage, then points. A band edge or a capture multiplier changes the
   choice exactly as it changes the score.

Bidding is left to the heuristic. A decision with one candidate costs no roll-out.

Policy codes: ``search`` is ``codes.SEARCH``; ``search-k<K>-c<C>-r<roll-out>`` packs its parameters into
the code (``search_code``), so that a seat's code in ``pols`` carries everything the engine needs.

The labeller. ``label-k<K>-c<C>-r<roll-out>-s<salt>`` is a search that plays ``learned``'s choice and
only labels decisions: at the bury, at every lead or follow with ``LABEL_END_CARDS`` cards or fewer
in hand, and at one in ``LABEL_EVERY`` other decisions (``label_sampled``), it weighs the candidates as the search
would and logs them (``simsuite learn collect``), from a random stream of its own derived from the
hand's and the salt. The hand therefore plays exactly as under ``learned``, whatever K, C, the
roll-out or the salt: two labellers that differ only in the salt weigh the same decisions
independently (the reference's noise, docs/policies.md), and the positions are those ``learned``
reaches (a round of expert iteration, docs/learned.md).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import core
from .. import phases as ph
from ..core import (
    CLAIM_KIND,
    CLAIM_TOP,
    CLAIM_TRUMP,
    CS_AT_CLAIM,
    CS_AT_SUMS,
    CS_BUILD,
    CS_COUNTERS,
    CS_INCLASS,
    CS_LEFT,
    CS_OTHERS,
    CS_RUFF,
    FS_BEST,
    INT_NREC,
    MAX_CANDIDATES,
    N_CAP,
    N_CLAIM,
    N_OUT,
    NC,
    OUT_LEVELS0,
    OUT_LEVELS1,
    OUT_NEXT_DECLARERS,
    TRUMP,
    as_int,
    copy1,
    w_cs,
    w_fs,
    w_ints,
    w_rec,
    w_rec_n,
    w_u_card,
    w_u_len,
    w_u_size,
    w_u_top,
    w_u_w,
)
from ..follow import best_sets
from ..order import class_span
from ..params import BOTTOM
from ..phases import (
    S_DEALER,
    S_DECLARERS,
    S_K,
    S_N,
    S_TURN,
    S_WINNER,
)
from ..rng import randint
from ..trick import beats
from ..units import build_units
from . import bury_three, follow_once, lead_once
from .codes import D_BURY, D_FOLLOW, D_LEAD, END_CARDS, EXPERT, LEARNED, SEARCH
from .common import ANY_SIZE, POINTS_FIRST, bury_by_key, fill, put_unit, split_by_class, strength, try_trump

DEFAULT_SAMPLES = 8  # K: sampled deals per decision; 8 keeps 2,000 self-play hands to minutes (docs/performance.md)
DEFAULT_CANDIDATES = 6  # C: candidates weighed per decision (the heuristic's choice always among them)
MAX_SAMPLES = 255
ROLLOUT_POLICY = EXPERT  # the default roll-out policy, and the one that makes the candidate lists
ROLLOUTS = (EXPERT, LEARNED)  # the roll-out policies a code may name (its roll-out field is the index)
# the reference search: the setting whose choices the learned policy is measured against (docs/policies.md,
# "The reference"): 32 sampled deals, 6 candidates, expert's roll-outs
REFERENCE_SAMPLES = 32
REFERENCE_CANDIDATES = 6
# the labeller's decisions (module docstring)
LABEL_END_CARDS = END_CARDS
LABEL_EVERY = 8
SALT_MIX = 0x9E3779B9  # the golden-ratio constant: spreads a small salt over the stream's first word

# value of a finished hand for one team: levels first, then who holds the stage, then points.
# A level is worth more than any point swing (at most 100 points a deck, 4 decks, times the
# capture), holding the stage half a level (it decides who can score levels next hand).
LEVEL_VALUE = 1000.0
STAGE_VALUE = 500.0
POINT_VALUE = 1.0
BELOW_VALUE = -1e300  # the best mean's start: below any value (a hand's is thousands at most)


# A search policy code's bits: the policy in the low ``CODE_POLICY_BITS`` (``SEARCH``), then K from bit
# ``CODE_SAMPLES_SHIFT`` and C from bit ``CODE_CANDIDATES_SHIFT``, each ``CODE_FIELD_MASK`` wide (0: the
# default), the roll-out policy's index in ``ROLLOUTS`` from bit ``CODE_ROLLOUT_SHIFT``, the labeller's flag
# at ``CODE_LABEL_BIT`` and its salt from ``CODE_SALT_SHIFT`` (``CODE_FIELD_MASK`` wide). ``search_code``
# encodes; ``is_search``, ``code_samples``, ``code_candidates``, ``code_rollout``, ``labels`` and
# ``code_salt`` decode.
CODE_POLICY_BITS = 4
CODE_POLICY_MASK = (1 << CODE_POLICY_BITS) - 1
CODE_SAMPLES_SHIFT = 4
CODE_CANDIDATES_SHIFT = 12
CODE_FIELD_MASK = 255
CODE_ROLLOUT_SHIFT = 20
CODE_ROLLOUT_MASK = 3
CODE_LABEL_BIT = 22
CODE_SALT_SHIFT = 24


@njit(cache=True, inline="always")
def is_search(code):
    return code >= SEARCH and (code & CODE_POLICY_MASK) == SEARCH


@njit(cache=True, inline="always")
def code_samples(code):
    """K as a search code holds it (0: the default)."""
    return (code >> CODE_SAMPLES_SHIFT) & CODE_FIELD_MASK


@njit(cache=True, inline="always")
def code_candidates(code):
    """C as a search code holds it (0: the default)."""
    return (code >> CODE_CANDIDATES_SHIFT) & CODE_FIELD_MASK


@njit(cache=True, inline="always")
def samples_of(code):
    k = code_samples(code)
    return k if k > 0 else DEFAULT_SAMPLES


@njit(cache=True, inline="always")
def candidates_of(code):
    c = code_candidates(code)
    return min(c if c > 0 else DEFAULT_CANDIDATES, MAX_CANDIDATES)


@njit(cache=True, inline="always")
def code_rollout(code):
    """The roll-out policy's code (``ROLLOUTS``)."""
    return LEARNED if ((code >> CODE_ROLLOUT_SHIFT) & CODE_ROLLOUT_MASK) == 1 else EXPERT


@njit(cache=True, inline="always")
def labels(code):
    """Whether the search code is a labeller (module docstring)."""
    return (code >> CODE_LABEL_BIT) & 1 == 1


@njit(cache=True, inline="always")
def code_salt(code):
    return (code >> CODE_SALT_SHIFT) & CODE_FIELD_MASK


def search_code(
    samples: int = 0, candidates: int = 0, rollout: int = EXPERT, label: bool = False, salt: int = 0
) -> int:
    """The policy code of ``search`` with ``samples`` (K) and ``candidates`` (C), 0 for a default; its
    roll-out policy (``ROLLOUTS``); a labeller with its salt when ``label``."""
    if not 0 <= samples <= MAX_SAMPLES or not 0 <= candidates <= MAX_CANDIDATES:
        raise ValueError(f"search: samples 1..{MAX_SAMPLES}, candidates 1..{MAX_CANDIDATES}")
    if rollout not in ROLLOUTS or not 0 <= salt <= CODE_FIELD_MASK or (salt and not label):
        raise ValueError(f"search: roll-out one of {ROLLOUTS}, salt 0..{CODE_FIELD_MASK} (a labeller's)")
    return (
        SEARCH
        + (samples << CODE_SAMPLES_SHIFT)
        + (candidates << CODE_CANDIDATES_SHIFT)
        + (ROLLOUTS.index(rollout) << CODE_ROLLOUT_SHIFT)
        + (int(label) << CODE_LABEL_BIT)
        + (salt << CODE_SALT_SHIFT)
    )


@njit(cache=True, inline="always")
def label_sampled(decision):
    """Whether the labeller labels its ``decision``-th decision of the hand (other than the bury and
    the last tricks): one in ``LABEL_EVERY``, by a multiplicative hash's high bits, so that every
    place in the trick is sampled alike (``decision % LABEL_EVERY`` would pick the same seat's turn,
    four decisions a trick, every time)."""
    return ((decision * 2654435761) >> 16) % LABEL_EVERY == 0


@njit(cache=True, inline="always")
def label_stream(s, code, decision, out):
    """The labeller's own random stream for its ``decision``-th decision of the hand: the hand's
    stream ``s`` (left as it is) mixed with the salt and the decision's number."""
    for i in range(4):
        out[i] = s[i]
    out[0] ^= ((code_salt(code) + 1) * SALT_MIX + decision * 2654435761) & 0xFFFFFFFF
    if out[0] == 0 and out[1] == 0 and out[2] == 0 and out[3] == 0:
        out[0] = 1
    for _ in range(4):
        randint(out, 2)


# --- the value of a finished hand -------------------------------------------------------------------


@njit(cache=True)
def value(P, st, team):
    """A finished hand's result for ``team`` (0 NS, 1 EW)."""
    cap = np.zeros(N_CAP, np.int64)
    out = np.zeros(N_OUT, np.int64)
    final = ph.outcome(P, st, cap, out)
    mine = out[OUT_LEVELS0 + team]
    theirs = out[OUT_LEVELS1 - team]
    v = LEVEL_VALUE * (mine - theirs)
    v += STAGE_VALUE if out[OUT_NEXT_DECLARERS] == team else -STAGE_VALUE
    if team == st.sc[S_DECLARERS]:
        v -= POINT_VALUE * final
    else:
        v += POINT_VALUE * final
    return v


# --- sampling the unseen cards ----------------------------------------------------------------------

HOLDER_BOTTOM = 4  # ``sample_world`` deals to the holders 0..3 (the seats) and this one, the bottom
N_HOLDERS = 5
# ``sample_world`` deals up to SAMPLE_TRIES times: the first STRICT_TRIES keep every void seen, the others ignore
# them, so that a deal is always found (set with the first search)
SAMPLE_TRIES = 12
STRICT_TRIES = 10


@njit(cache=True)
def sample_world(P, st, seat, s, ws):
    """Copy ``st`` into ``ws`` and deal the cards ``seat`` has not seen at random among the other
    hands (and the bottom, unless ``seat`` buried it), keeping hand sizes, voids and the cards shown
    while bidding. Falls back to ignoring voids if a consistent deal is not found quickly."""
    ph.copy_state(st, ws)
    hands, shown, voids, bottom, cls = st.hands, st.shown, st.voids, st.bottom, st.cls  # bound once
    w_hands, w_bottom = ws.hands, ws.bottom
    dealer = st.sc[S_DEALER]
    hidden_bottom = seat != dealer and P[BOTTOM] > 0
    pool = np.zeros(NC, np.int64)
    cap = np.zeros(N_HOLDERS, np.int64)  # seats 0..3, then the bottom
    for o in range(4):
        if o == seat:
            continue
        for c in range(NC):
            free = hands[o, c] - shown[o, c]
            if free < 0:
                free = 0
            pool[c] += free
            cap[o] += free
    if hidden_bottom:
        for c in range(NC):
            pool[c] += bottom[c]
            cap[HOLDER_BOTTOM] += bottom[c]
    # the classes, most constrained first (fewest holders that may take them)
    order = np.zeros(5, np.int64)
    key = np.zeros(5, np.int64)
    for k in range(5):
        n = 1 if hidden_bottom else 0
        for o in range(4):
            if o != seat and voids[o, k] == 0:
                n += 1
        key[k] = n
        order[k] = k
    for i in range(5):
        for j in range(i + 1, 5):
            if key[order[j]] < key[order[i]]:
                t = order[i]
                order[i] = order[j]
                order[j] = t
    cards = np.zeros(4 * NC * 8, np.int64)
    left = np.zeros(N_HOLDERS, np.int64)
    for attempt in range(SAMPLE_TRIES):
        strict = attempt < STRICT_TRIES
        for o in range(4):
            if o == seat:
                continue
            for c in range(NC):
                w_hands[o, c] = min(shown[o, c], hands[o, c])
        if hidden_bottom:
            w_bottom[:] = 0
        for o in range(N_HOLDERS):
            left[o] = cap[o]
        ok = True
        for oi in range(5):
            k = order[oi]
            m = 0
            for c in range(NC):
                if cls[c] == k:
                    for _ in range(pool[c]):
                        cards[m] = c
                        m += 1
            # shuffle this class's cards
            for i in range(m - 1, 0, -1):
                j = randint(s, i + 1)
                t = cards[i]
                cards[i] = cards[j]
                cards[j] = t
            for i in range(m):
                total = 0
                for o in range(N_HOLDERS):
                    if left[o] > 0 and (o == HOLDER_BOTTOM or not strict or voids[o, k] == 0):
                        total += left[o]
                if total == 0:
                    ok = False
                    break
                r = randint(s, total)
                for o in range(N_HOLDERS):
                    if left[o] > 0 and (o == HOLDER_BOTTOM or not strict or voids[o, k] == 0):
                        if r < left[o]:
                            left[o] -= 1
                            if o == HOLDER_BOTTOM:
                                w_bottom[cards[i]] += 1
                            else:
                                w_hands[o, cards[i]] += 1
                            break
                        r -= left[o]
            if not ok:
                break
        if ok:
            return


# --- roll-outs ------------------------------------------------------------------------------------


@njit(cache=True)
def rollout(P, st, pol, W, s, lead, play, forced):
    """Play ``st`` to the end of the hand with ``pol`` at every seat (no history): a heuristic, or
    ``learned`` (``ROLLOUTS``)."""
    sc = st.sc
    while not ph.hand_over(sc):
        seat = ph.to_move(sc)
        if sc[S_TURN] == 0:
            if pol == LEARNED:
                learned.decide(P, st, W, s, as_int(D_LEAD), lead)
            else:
                lead_once(pol, seat, st.hands, st.played, st.voids, st.cls, st.pos, P, st.ctx, W, s, lead)
            if ph.apply_lead_inline(P, st, W, lead, forced) == ph.LEAD_ILLEGAL:
                return False
        else:
            if pol == LEARNED:
                learned.decide(P, st, W, s, as_int(D_FOLLOW), play)
                if not ph.apply_follow_inline(P, st, W, play):
                    return False
                if sc[S_TURN] == 4:
                    ph.finish_trick_inline(st)
                continue
            follow_once(
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
                sc[S_WINNER],
                play,
            )
            if not ph.apply_follow_inline(P, st, W, play):
                return False
            if sc[S_TURN] == 4:
                ph.finish_trick_inline(st)
    return True


# --- candidates -----------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def same_play(cand, i, play):
    """Whether candidate ``i`` of the list ``cand`` is the play ``play`` (count vectors)."""
    for c in range(NC):
        if cand[i, c] != play[c]:
            return False
    return True


@njit(cache=True, inline="always")
def _add(cand, n, play, cap, sig):
    """Append ``play`` to the candidate list unless it is there already or the list is full.
    ``sig[i]``: a sum over candidate ``i``'s cards, kept beside the list, so that only a candidate
    with the same sum is compared card by card."""
    if n >= cap:
        return n
    x = 0
    for c in range(NC):
        x += play[c] * (c * 5 + 1)
    for i in range(n):
        if sig[i] == x and same_play(cand, i, play):
            return n
    for c in range(NC):
        cand[n, c] = play[c]
    sig[n] = x
    return n + 1


# the lead candidates' lowest single: the fewest points first (LOW_POINT per point, above any position), then
# the lowest position (set with the first search)
LOW_POINT = 100


@njit(cache=True)
def lead_candidates(P, st, seat, W, s, cap, cand):
    """The heuristic's lead, then for each suit-class the biggest unit (highest of that size), the
    lowest single (fewest points) and the highest single: every one a single unit or the
    heuristic's own throw."""
    U_card, U_w, U_len, U_top, U_size = w_u_card(W), w_u_w(W), w_u_len(W), w_u_top(W), w_u_size(W)
    hand = st.hands[seat]
    CS = w_cs(W)
    tmp = CS[CS_BUILD][:NC]
    sig = CS[CS_COUNTERS][CS_AT_SUMS : CS_AT_SUMS + MAX_CANDIDATES]  # ``_add``'s sums
    lead_once(ROLLOUT_POLICY, seat, st.hands, st.played, st.voids, st.cls, st.pos, P, st.ctx, W, s, tmp)
    n = _add(cand, 0, tmp, cap, sig)
    highs = CS[CS_COUNTERS][CS_AT_CLAIM : CS_AT_CLAIM + 5]
    cls, pos = st.cls, st.pos
    for k in range(5):
        highs[k] = -1
    for k in range(5):
        # the singles by a pass over the class: the lowest (fewest points, then lowest; the
        # smaller id of two cards at one position) and the highest (the smaller id likewise);
        # the biggest unit from the units of two or more copies, which a class without a pair
        # does not have
        lo_id, hi_id = class_span(k)
        low = -1
        multi = False
        for c in range(lo_id, hi_id):
            if hand[c] == 0 or cls[c] != k:
                continue
            multi |= hand[c] >= 2
            key = core.POINTS[c] * LOW_POINT + pos[c]
            if (
                low < 0
                or key < core.POINTS[low] * LOW_POINT + pos[low]
                or (key == core.POINTS[low] * LOW_POINT + pos[low] and c < low)
            ):
                low = c
            if highs[k] < 0 or pos[c] > pos[highs[k]] or (pos[c] == pos[highs[k]] and c < highs[k]):
                highs[k] = c
        if low < 0:
            continue
        if multi:
            nU = build_units(hand, cls, pos, k, P, ANY_SIZE, 2, W)
            big = -1
            for u in range(nU):
                if big < 0 or U_size[u] > U_size[big] or (U_size[u] == U_size[big] and U_top[u] > U_top[big]):
                    big = u
            if big >= 0 and U_size[big] > 1:
                tmp[:] = 0
                put_unit(U_card, U_w, U_len, big, tmp)
                n = _add(cand, n, tmp, cap, sig)
        tmp[:] = 0
        tmp[low] = 1
        n = _add(cand, n, tmp, cap, sig)
    for k in range(5):
        if highs[k] >= 0:
            tmp[:] = 0
            tmp[highs[k]] = 1
            n = _add(cand, n, tmp, cap, sig)
    return n


@njit(cache=True)
def follow_candidates(P, st, seat, W, s, cap, cand):
    """Legal follows: the heuristic's, then the same unit sets filled low, with points and high,
    the cheapest winning trump when void, and for a single lead the lowest, highest, lowest winning
    and richest cards that may be played."""
    hand = st.hands[seat]
    cls = st.cls
    pos = st.pos
    LI = st.LI
    k = st.sc[S_K]
    n_need = st.sc[S_N]
    CS = w_cs(W)
    tmp = CS[CS_BUILD][:NC]
    sig = CS[CS_COUNTERS][CS_AT_SUMS : CS_AT_SUMS + MAX_CANDIDATES]  # ``_add``'s sums
    follow_once(
        ROLLOUT_POLICY,
        seat,
        st.hands,
        st.played,
        st.voids,
        cls,
        pos,
        P,
        st.ctx,
        W,
        s,
        LI,
        st.lead,
        st.win_c,
        st.sc[S_WINNER],
        tmp,
    )
    n = _add(cand, 0, tmp, cap, sig)
    have = 0
    for c in range(NC):
        if cls[c] == k:
            have += hand[c]
    cur = CS[CS_COUNTERS][CS_AT_CLAIM : CS_AT_CLAIM + N_CLAIM]
    if n_need == 1:
        # one card: any card of the suit, or any card at all when void
        lo = -1
        hi = -1
        win = -1
        rich = -1
        for c in range(NC):
            if hand[c] == 0 or (have > 0 and cls[c] != k):
                continue
            st_c = strength(c, cls, pos)
            if lo < 0 or core.POINTS[c] * POINTS_FIRST + st_c < core.POINTS[lo] * POINTS_FIRST + strength(lo, cls, pos):
                lo = c
            if hi < 0 or st_c > strength(hi, cls, pos):
                hi = c
            if rich < 0 or core.POINTS[c] * POINTS_FIRST - st_c > core.POINTS[rich] * POINTS_FIRST - strength(
                rich, cls, pos
            ):
                rich = c
            cur[CLAIM_KIND] = 0
            cur[CLAIM_TRUMP] = 1 if cls[c] == TRUMP else 0
            cur[CLAIM_TOP] = pos[c]
            if (cls[c] == k or cls[c] == TRUMP) and beats(cur, st.win_c):
                if win < 0 or st_c < strength(win, cls, pos):
                    win = c
        for c in (win, rich, lo, hi):
            if c >= 0:
                tmp[:] = 0
                tmp[c] = 1
                n = _add(cand, n, tmp, cap, sig)
        return n
    FS = w_fs(W)
    inclass = CS[CS_INCLASS][:NC]
    others = CS[CS_OTHERS][:NC]
    split_by_class(hand, cls, k, inclass, others)
    if have <= n_need:
        need = n_need - have
        if have == 0 and k != TRUMP:
            trial = CS[CS_RUFF][:NC]
            if try_trump(hand, cls, pos, P, LI, W, st.lead, st.win_c, trial, cur):
                n = _add(cand, n, trial, cap, sig)
        for mode in range(2):
            copy1(tmp, inclass)
            fill(tmp, others, need, cls, pos, mode)
            n = _add(cand, n, tmp, cap, sig)
        return n
    U_card, U_w, U_len, REC, REC_N, INTS = w_u_card(W), w_u_w(W), w_u_len(W), w_rec(W), w_rec_n(W), w_ints(W)
    best = FS[FS_BEST]
    best_sets(inclass, cls, pos, P, LI, W, best)
    nrec = INTS[INT_NREC]
    for r in range(nrec):
        for mode in range(3):
            tmp[:] = 0
            for j in range(REC_N[r]):
                put_unit(U_card, U_w, U_len, REC[r, j], tmp)
            need = n_need
            for c in range(NC):
                need -= tmp[c]
            fill(tmp, inclass, need, cls, pos, mode)
            n = _add(cand, n, tmp, cap, sig)
            if n >= cap:
                return n
    return n


# The bury habits' weights (``bury_by_key``; search's own, the values of its first bury
# candidates): trumps kept before anything (HABIT_TRUMP), then pairs (HABIT_PAIR); below those each habit
# orders by its own criterion, HABIT_BY per point (the lowest cards) or per card left in the class (the
# shortest suits), above any position; points first weighs HABIT_RICH per point short of ``common.RICH_FROM``
# and then HABIT_SHORT per card of the class. Each weight is above all that the lower ones can add.
HABIT_TRUMP = 1 << 40
HABIT_PAIR = 1 << 30
HABIT_BY = 1 << 20
HABIT_RICH = 1 << 24
HABIT_SHORT = 1 << 16
HABIT_POINT = 1 << 28  # a point card kept before any length (below pairs)


@njit(cache=True)
def bury_candidates(P, st, seat, W, s, cap, cand):
    """Bury sets from different habits: the heuristic's (void short suits, no points, no pairs),
    the lowest cards whatever their suit, the shortest suits points and all, points first (a points
    budget the search then weighs against the capture rule), the shortest suits keeping every point
    card, and the lowest cards breaking pairs: six habits, from no points at all to the most."""
    hand = st.hands[seat]
    cls = st.cls
    pos = st.pos
    nb = P[BOTTOM]
    CS = w_cs(W)
    tmp = CS[CS_BUILD][:NC]
    sig = CS[CS_COUNTERS][CS_AT_SUMS : CS_AT_SUMS + MAX_CANDIDATES]  # ``_add``'s sums
    bury_three(as_int(ROLLOUT_POLICY), hand, cls, pos, P, s, nb, W, tmp)
    length = CS[CS_COUNTERS][CS_AT_CLAIM : CS_AT_CLAIM + 5]
    left = CS[CS_LEFT][:NC]
    n = _add(cand, 0, tmp, cap, sig)
    # (trump, pair, point card, per point, per card of the class, per point short of 20)
    for style in range(5):
        tmp[:] = 0
        copy1(left, hand)
        if style == 0:  # the lowest cards, fewest points, any suit
            bury_by_key(left, cls, pos, nb, HABIT_TRUMP, HABIT_PAIR, 0, HABIT_BY, 0, 0, length, tmp)
        elif style == 1:  # the shortest suits, points and all
            bury_by_key(left, cls, pos, nb, HABIT_TRUMP, HABIT_PAIR, 0, 0, HABIT_BY, 0, length, tmp)
        elif style == 2:  # points first, from the shortest suits
            bury_by_key(left, cls, pos, nb, HABIT_TRUMP, HABIT_PAIR, 0, 0, HABIT_SHORT, HABIT_RICH, length, tmp)
        elif style == 3:  # the shortest suits, keeping every point card
            bury_by_key(left, cls, pos, nb, HABIT_TRUMP, HABIT_PAIR, HABIT_POINT, 0, HABIT_BY, 0, length, tmp)
        else:  # the lowest cards, fewest points, pairs broken like any card
            bury_by_key(left, cls, pos, nb, HABIT_TRUMP, 0, 0, HABIT_BY, 0, 0, length, tmp)
        n = _add(cand, n, tmp, cap, sig)
    return n


# --- the decisions (``codes``: D_LEAD, D_FOLLOW, D_BURY) ----------------------------------------------


@njit(cache=True, inline="always")  # one caller (decide): a separate copy would only add compile time
def evaluate(P, st, seat, code, W, s, kind, cand, n, stats):
    """Mean value of each of the ``n`` candidates over the code's sampled deals, into ``stats``
    (rows: value sum, samples, sum of squares). Returns the best candidate's index."""
    team = seat % 2
    for i in range(n):
        stats[i, 0] = 0.0
        stats[i, 1] = 0.0
        stats[i, 2] = 0.0
    if n <= 1:
        return 0
    K = samples_of(code)
    roll = code_rollout(code)
    ws = ph.new_state()
    rs = ph.new_state()
    lead = np.zeros(NC, np.int64)
    play = np.zeros(NC, np.int64)
    forced = np.zeros(NC, np.int64)
    for _ in range(K):
        sample_world(P, st, seat, s, ws)
        for i in range(n):
            ph.copy_state(ws, rs)
            if kind == D_BURY:
                if not ph.apply_bury(rs, cand[i]):
                    continue
            elif kind == D_LEAD:
                if ph.apply_lead(P, rs, W, cand[i], forced) == ph.LEAD_ILLEGAL:
                    continue
            else:
                if not ph.apply_follow(P, rs, W, cand[i]):
                    continue
                if rs.sc[S_TURN] == 4:
                    ph.finish_trick(rs)
            if rollout(P, rs, roll, W, s, lead, play, forced):
                x = value(P, rs, team)
                stats[i, 0] += x
                stats[i, 1] += 1.0
                stats[i, 2] += x * x
    best = 0
    best_v = BELOW_VALUE
    for i in range(n):
        if stats[i, 1] > 0:
            m = stats[i, 0] / stats[i, 1]
            if m > best_v:
                best_v = m
                best = i
    return best


@njit(cache=True)
def decide(P, st, code, W, s, kind, out, cand, stats):
    """The search's choice for the seat to move (the dealer for a bury) into ``out``. Fills
    ``cand`` and ``stats`` (for ``simsuite advise``); returns the number of candidates."""
    cap = candidates_of(code)
    seat = st.sc[S_DEALER] if kind == D_BURY else ph.to_move(st.sc)
    # the follow first: numba compiles the callees in this order, and on a cold cache the follow
    # policies compile here while `make test`'s other worker compiles the lead policies through the
    # tricks loop, which leads first (docs/performance.md, "Two workers that compile in different orders")
    if kind == D_FOLLOW:
        n = follow_candidates(P, st, seat, W, s, cap, cand)
    elif kind == D_LEAD:
        n = lead_candidates(P, st, seat, W, s, cap, cand)
    else:
        n = bury_candidates(P, st, seat, W, s, cap, cand)
    best = evaluate(P, st, seat, code, W, s, kind, cand, n, stats)
    for c in range(NC):
        out[c] = cand[best, c]
    return n


# the learned policy, for ``rollout``: imported last, as learned imports this module (numba reads
# ``learned.decide`` when it compiles ``rollout``, once both modules are whole)
from . import learned  # noqa: E402
