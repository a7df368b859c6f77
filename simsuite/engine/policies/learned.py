"""The ``learned`` policy: the search's candidates, scored by a model trained on the search's values.

At each decision (bury, lead, follow) the seat to move lists the candidates ``search`` would weigh
(``candidates.bury_candidates``, ``lead_candidates``, ``follow_candidates``, at most
``LEARNED_CANDIDATES``; the heuristic's own choice first), computes each one's features
(``features.decision_features``) and plays the one the model scores highest (the first on a tie).
No deal is sampled and nothing is played out, so a decision costs a few candidate lists and a
model evaluation instead of the search's ``K x C`` roll-outs. Bidding is the heuristic's, as for
``search``.

The model in ``W``. The model lives in the ``model`` region of the work buffer (``core.MODEL_WORDS``
words at most), copied there by ``core.Work(model)`` from a model file (``engine.policies.model``): a header
of integers, then float64 coefficients stored bit for bit in the int64 words:

    M[0]  MODEL_KIND   0 none (the heuristic's choice is played), 1 bilinear
    M[1]  MODEL_NF     the features the model was trained on (must equal features.N_FEATURES)
    M[2]  MODEL_NCTX   the decision's own features among them (features.N_CONTEXT)
    M[3]  MODEL_END    the cards left in the mover's hand at or below which a lead or a follow is
                       an end-of-hand decision with its own groups (0: none)
    M[4]  MODEL_HEADS  which non-linear heads the model has: HEAD_BURY (1), HEAD_END (2), both (3)
    M[HEADER ..]       the coefficients A[g, k, j] for the decision's group g (``group``: its kind,
                       lead, follow or bury, and its deck count, 2, 3 or 4; a lead or a follow with
                       at most M[3] cards in hand has groups of its own, the last trick planned
                       apart from the rest), the decision features k plus a constant
                       (k = N_CONTEXT) and the candidate features j, row-major
    M[MODEL_SIZE ..]   two heads of HEAD_SIZE words each (the bury's, then the end of the hand's),
                       float64: the features' means and inverse spreads, then a network of two
                       tanh layers (HIDDEN1, HIDDEN2 units) and a linear output (``head_scores``)

A head, where the model has one, scores its decisions instead of the bilinear form: the bury, where
the cost of a buried point is a product of the points, the multiplier and the chance of a capture,
which a linear function of the rules cannot express, and the last tricks, where keeping a pair or the
top trump for the last lead decides a capture. A head costs about 3,500 multiply-adds a candidate, and
runs only at those decisions (one bury a hand, a few dozen end-of-hand decisions).

A bilinear model scores candidate i of a decision of group ``g`` with decision features ``p`` (and a
trailing 1) and candidate features ``c_i`` as ``c_i . (A[g] p)``: every candidate feature weighted
by a linear function of the decision and the rules, one for each kind of decision and deck count
(on guangxi-2012, the four-deck tournament, a model for the three kinds alone gave up 6% more
than this one; docs/learned.md, "Choosing the family"). ``A[g] p`` is computed once per decision, so a
candidate costs one dot product of ``N_FEATURES - N_CONTEXT`` terms. ``A[g] p`` is summed over k
in order, each k adding its row to all the candidate weights at once (a loop the compiler turns
into vector instructions without reordering any sum); a decision feature that is 0 adds nothing
and is skipped. What is the same for every candidate adds nothing to the choice, so the model
holds no such term.

The decision log. ``simsuite learn collect`` plays ``search`` with the log switched on
(``log_n[LOG_ON]``); every decision of a search seat with more than one candidate then appends one
row per candidate to the ``log`` region: the columns ``LOG_COLUMNS``, then the candidate's features.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import phases as ph
from ..core import (
    LOG_META,
    LOG_ROWS,
    MODEL_WORDS,
    NC,
    XCOLS,
    as_bool,
    as_int,
    w_lc,
    w_lk,
    w_log,
    w_log_n,
    w_lslot,
    w_lv,
    w_lw,
    w_lx,
    w_model_slot,
)
from ..params import BOTTOM
from ..phases import S_DEALER, S_TRICKS
from . import candidates as lists
from .codes import D_BURY, D_FOLLOW, D_LEAD, DECISION_NAMES, N_DECISION_KINDS
from .features import N_CONTEXT, N_FEATURES, N_RULES, X_CARDS_LEFT, X_DECKS, decision_features

LEARNED_CANDIDATES = lists.DEFAULT_CANDIDATES  # the candidates it weighs: those the default search weighs

# the model's header (above)
MODEL_KIND, MODEL_NF, MODEL_NCTX, MODEL_END, MODEL_HEADS = range(5)
HEAD_BURY, HEAD_END = 1, 2  # M[MODEL_HEADS]'s bits
HEADER = 16
KIND_NONE, KIND_BILINEAR = 0, 1
N_KINDS = N_DECISION_KINDS  # lead, follow, bury (``codes``: D_LEAD, D_FOLLOW, D_BURY)
DECK_GROUPS = (2, 3, 4)  # a model's deck counts: fewer decks read as 2, more as 4
END_KINDS = (D_LEAD, D_FOLLOW)  # the kinds with end-of-hand groups of their own (after the kinds' groups)
N_GROUPS = (N_KINDS + len(END_KINDS)) * len(DECK_GROUPS)
N_CANDIDATE = N_FEATURES - N_CONTEXT
MODEL_SIZE = HEADER + N_GROUPS * N_CANDIDATE * (N_CONTEXT + 1)  # words of the bilinear part
HIDDEN1, HIDDEN2 = 32, 16  # a head's layers
HEAD_SIZE = 2 * N_FEATURES + HIDDEN1 * N_FEATURES + HIDDEN1 + HIDDEN2 * HIDDEN1 + HIDDEN2 + HIDDEN2 + 1
MODEL_TOTAL = MODEL_SIZE + 2 * HEAD_SIZE  # words of a model, heads included (zeros where it has none)
assert MODEL_TOTAL <= MODEL_WORDS and N_GROUPS + 1 <= 16 and N_RULES + 1 <= 32 and N_CANDIDATE <= XCOLS  # w_lw, w_lk

# the decision log's columns before the features, and its counters in ``log_n``
LOG_COLUMNS = (
    "decision",
    "seat",
    "kind",
    "candidates",
    "candidate",
    "chosen",
    "value_sum",
    "samples",
    "value_sq",
    "tricks",
)
(L_DECISION, L_SEAT, L_KIND, L_CANDIDATES, L_CANDIDATE, L_CHOSEN, L_VALUE_SUM, L_SAMPLES, L_VALUE_SQ, L_TRICKS) = range(
    len(LOG_COLUMNS)
)
assert len(LOG_COLUMNS) == LOG_META
assert N_FEATURES <= XCOLS
LOG_USED, LOG_ON, LOG_DROPPED, LOG_DECISIONS, LOG_SEEN = range(5)  # LOG_SEEN: a labeller's decisions met


@njit(cache=True, inline="always")
def group(kind, decks, cards_left, end_cards):
    """The model's group of a decision: its kind and its deck count (``DECK_GROUPS``), a lead or a
    follow with at most ``end_cards`` cards in hand in the end-of-hand groups (``END_KINDS``)."""
    d = min(max(decks, DECK_GROUPS[0]), DECK_GROUPS[-1]) - DECK_GROUPS[0]
    if kind != D_BURY and cards_left <= end_cards:
        return (N_KINDS + kind) * len(DECK_GROUPS) + d
    return kind * len(DECK_GROUPS) + d


def group_names() -> list[str]:
    """Each group's name, by index (``group``)."""
    out = []
    for g in range(N_GROUPS):
        k, d = divmod(g, len(DECK_GROUPS))
        kind = DECISION_NAMES[k] if k < N_KINDS else f"end {DECISION_NAMES[END_KINDS[k - N_KINDS]]}"
        out.append(f"{kind}, {DECK_GROUPS[d]} decks")
    return out


@njit(cache=True)
def score_into(M, X, n, kind, weights, keys, scores, slot=0):
    """Scores of rows ``0 .. n-1`` of ``X`` (a decision of ``kind``) into ``scores``; returns the
    best row (the first of equals). ``weights`` (float64[>= N_GROUPS + 1, >= N_CANDIDATE]) and
    ``keys`` (int64[>= N_GROUPS, >= N_RULES + 1]) keep, per group, the weights' part from the
    constant and the rule features (the same for every decision of a variant) with the rule
    features it was computed for (and the model's ``slot``, where a table seats two models), so that a
    decision adds only its position features' part. The sums run in the same order either way, so a
    score is the same whatever was scored before."""
    if M[MODEL_KIND] != KIND_BILINEAR:
        return 0
    g = group(kind, X[0, X_DECKS], X[0, X_CARDS_LEFT], M[MODEL_END])
    if kind == D_BURY and (M[MODEL_HEADS] & HEAD_BURY) != 0:
        return head_scores(M[MODEL_SIZE : MODEL_SIZE + HEAD_SIZE].view(np.float64), X, n, scores)
    if g >= N_KINDS * len(DECK_GROUPS) and (M[MODEL_HEADS] & HEAD_END) != 0:
        return head_scores(M[MODEL_SIZE + HEAD_SIZE : MODEL_TOTAL].view(np.float64), X, n, scores)
    A = M[HEADER:MODEL_SIZE].view(np.float64)
    base = g * (N_CONTEXT + 1) * N_CANDIDATE
    cached = keys[g, 0] == 1 + slot
    for k in range(N_RULES):
        if keys[g, 1 + k] != X[0, k]:
            cached = False
    rules = weights[g]
    if not cached:
        at = base + N_CONTEXT * N_CANDIDATE  # the constant's row first, then each decision feature's
        for j in range(N_CANDIDATE):
            rules[j] = A[at + j]
        for k in range(N_RULES):
            _add_row(A, base + k * N_CANDIDATE, X[0, k], rules)
            keys[g, 1 + k] = X[0, k]
        keys[g, 0] = 1 + slot
    w = weights[N_GROUPS]
    for j in range(N_CANDIDATE):
        w[j] = rules[j]
    for k in range(N_RULES, N_CONTEXT):
        _add_row(A, base + k * N_CANDIDATE, X[0, k], w)
    best = 0
    for i in range(n):
        x = 0.0
        for j in range(N_CANDIDATE):
            x += X[i, N_CONTEXT + j] * w[j]
        scores[i] = x
        if x > scores[best]:
            best = i
    return best


@njit(cache=True)
def head_scores(H, X, n, scores):
    """Rows ``0 .. n-1`` of ``X`` scored by the head ``H`` into ``scores``; returns the best row (the
    first of equals). ``H``: the features' means, their inverse spreads, then W1 [HIDDEN1, N_FEATURES],
    b1, W2 [HIDDEN2, HIDDEN1], b2, w3 [HIDDEN2] and b3; a row's decision features are read from row 0,
    as ``decision_features`` writes them once (``learn.heads`` is the same in numpy)."""
    nf = N_FEATURES
    mu = H[0:nf]
    inv = H[nf : 2 * nf]
    at = 2 * nf
    W1 = H[at : at + HIDDEN1 * nf]
    at += HIDDEN1 * nf
    b1 = H[at : at + HIDDEN1]
    at += HIDDEN1
    W2 = H[at : at + HIDDEN2 * HIDDEN1]
    at += HIDDEN2 * HIDDEN1
    b2 = H[at : at + HIDDEN2]
    at += HIDDEN2
    w3 = H[at : at + HIDDEN2]
    b3 = H[at + HIDDEN2]
    z = np.empty(nf)
    h1 = np.empty(HIDDEN1)
    best = 0
    for i in range(n):
        for j in range(nf):
            x = X[0, j] if j < N_CONTEXT else X[i, j]
            z[j] = (x - mu[j]) * inv[j]
        for u in range(HIDDEN1):
            a = b1[u]
            for j in range(nf):
                a += W1[u * nf + j] * z[j]
            h1[u] = np.tanh(a)
        out = b3
        for u in range(HIDDEN2):
            a = b2[u]
            for v in range(HIDDEN1):
                a += W2[u * HIDDEN1 + v] * h1[v]
            out += w3[u] * np.tanh(a)
        scores[i] = out
        if out > scores[best]:
            best = i
    return best


@njit(cache=True, inline="always")
def _add_row(A, at, p, w):
    """``w += A[at : at + N_CANDIDATE] * p`` (nothing for a feature that is 0)."""
    if p != 0:
        pk = np.float64(p)
        for j in range(N_CANDIDATE):
            w[j] += A[at + j] * pk


@njit(cache=True, inline="always")  # one caller, ``decide``: a call would cost another LLVM pass over the lists
def candidates(P, st, seat, W, s, kind, cap, cand):
    """The search's candidates for the decision ``kind`` of ``seat`` into ``cand``; returns how many."""
    if kind == D_FOLLOW:
        return lists.follow_candidates(P, st, seat, W, s, cap, cand)
    if kind == D_LEAD:
        return lists.lead_candidates(P, st, seat, W, s, cap, cand)
    return lists.bury_candidates(P, st, seat, W, s, cap, cand)


@njit(cache=True)
def decide(P, st, W, s, kind, out):
    """The learned policy's choice for the seat to move (the dealer for a bury) into ``out``.
    Returns the number of candidates it weighed."""
    seat = st.sc[S_DEALER] if kind == D_BURY else ph.to_move(st.sc)
    cand = w_lc(W)
    n = candidates(P, st, seat, W, s, kind, as_int(LEARNED_CANDIDATES), cand)  # as_int: the search's compiled lists
    best = 0
    if n > 1:
        X = w_lx(W)
        decision_features(P, st, W, seat, kind, cand, n, X, as_bool(False))
        slot = w_lslot(W)[seat]
        best = score_into(w_model_slot(W, slot), X, n, kind, w_lw(W), w_lk(W), w_lv(W), slot)
    for c in range(NC):
        out[c] = cand[best, c]
    return n


@njit(cache=True)
def log_decision(P, st, W, kind, cand, n, stats, out):
    """Append the search's decision (its candidates ``cand``, their values ``stats``: value sum,
    samples, sum of squares; its choice ``out``) to the log when the log is on
    (``log_n[LOG_ON]``): one row per candidate, with its features."""
    counts = w_log_n(W)
    if counts[LOG_ON] == 0 or n <= 1:
        return
    seat = st.sc[S_DEALER] if kind == D_BURY else ph.to_move(st.sc)
    chosen = -1
    for i in range(n):
        if lists.same_play(cand, i, out):
            chosen = i
            break
    at = counts[LOG_USED]
    if at + n > LOG_ROWS:
        counts[LOG_DROPPED] += n
        return
    log = w_log(W)
    X = w_lx(W)
    decision_features(P, st, W, seat, kind, cand, n, X, as_bool(True))
    d = counts[LOG_DECISIONS]
    for i in range(n):
        row = log[at + i]
        row[L_DECISION] = d
        row[L_SEAT] = seat
        row[L_KIND] = kind
        row[L_CANDIDATES] = n
        row[L_CANDIDATE] = i
        row[L_CHOSEN] = 1 if i == chosen else 0
        row[L_VALUE_SUM] = np.int64(round(stats[i, 0]))
        row[L_SAMPLES] = np.int64(stats[i, 1])
        row[L_VALUE_SQ] = np.int64(round(stats[i, 2]))
        row[L_TRICKS] = st.sc[S_TRICKS]
        for j in range(N_FEATURES):
            row[LOG_META + j] = X[i, j]
    counts[LOG_USED] = at + n
    counts[LOG_DECISIONS] = d + 1


@njit(cache=True, inline="always")
def plays_bury(P):
    """Whether the learned (or search) bury has anything to choose: a bottom to bury."""
    return P[BOTTOM] > 0
