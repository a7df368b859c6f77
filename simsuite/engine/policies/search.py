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

from .. import phases as ph
from ..core import (
    MAX_CANDIDATES,
    N_CAP,
    N_OUT,
    NC,
    OUT_LEVELS0,
    OUT_LEVELS1,
    OUT_NEXT_DECLARERS,
    as_int,
)
from ..params import BOTTOM
from ..phases import (
    S_DEALER,
    S_DECLARERS,
    S_TURN,
    S_WINNER,
)
from ..rng import randint
from . import follow_once, lead_once, learned
from .candidates import (  # noqa: F401 - the lists are search's too: ``search.lead_candidates`` and the rest
    DEFAULT_CANDIDATES,
    bury_candidates,
    follow_candidates,
    lead_candidates,
    same_play,
)
from .codes import D_BURY, D_FOLLOW, D_LEAD, END_CARDS, EXPERT, LEARNED, SEARCH

DEFAULT_SAMPLES = 8  # K: sampled deals per decision; 8 keeps 2,000 self-play hands to minutes (docs/performance.md)
MAX_SAMPLES = 255
ROLLOUT_POLICY = EXPERT  # the default roll-out policy (``candidates`` makes its lists with the same heuristic)
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
def label_stream(s, code, decision, stream):
    """The labeller's own random stream for its ``decision``-th decision of the hand, into ``stream``
    (xoshiro's four words): the hand's stream ``s`` (left as it is) with its first word mixed with
    the salt and the decision's number, then advanced four steps."""
    for i in range(4):
        stream[i] = s[i]
    stream[0] ^= ((code_salt(code) + 1) * SALT_MIX + decision * 2654435761) & 0xFFFFFFFF
    if stream[0] == 0 and stream[1] == 0 and stream[2] == 0 and stream[3] == 0:
        stream[0] = 1
    for _ in range(4):
        randint(stream, 2)


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
    """Play ``st`` to the end of the hand with ``pol`` at every seat (no history): ``expert`` or
    ``learned`` (``ROLLOUTS``). The heuristic is called with the constant ``ROLLOUT_POLICY``, as the
    candidate lists call it, so that one compiled copy of ``lead_once`` and ``follow_once`` serves both."""
    sc = st.sc
    while not ph.hand_over(sc):
        seat = ph.to_move(sc)
        if sc[S_TURN] == 0:
            if pol == LEARNED:
                learned.decide(P, st, W, s, as_int(D_LEAD), lead)
            else:
                lead_once(ROLLOUT_POLICY, seat, st.hands, st.played, st.voids, st.cls, st.pos, P, st.ctx, W, s, lead)
            if ph.apply_lead_inline(P, st, W, lead, forced) == ph.LEAD_ILLEGAL:
                return False
        else:
            if pol == LEARNED:
                learned.decide(P, st, W, s, as_int(D_FOLLOW), play)
            else:
                follow_once(
                    ROLLOUT_POLICY,
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
