"""Follow profiles on arrays, compiled: reading a lead (``lead_info``: its canonical decomposition,
the follow caps and the shapes a trump answer must match) and the best sets of units a follow can
reach (the rules of ``simsuite.rules.follow``).

The analysis of a lead is the ``LI`` array whose slots ``core`` names (``LI_*``)."""

from __future__ import annotations

from numba import njit

from .core import (
    FS_SETS_FEATURES,
    FS_SETS_LEFT,
    FS_SETS_NEXT,
    FS_SETS_PROFILE,
    FS_SETS_SEL,
    INT_NREC,
    LI_CAPS,
    LI_CARDS,
    LI_CLASS,
    LI_CODES,
    LI_FIELDS,
    LI_HAS_WIDE,
    LI_KEY_CODE,
    LI_KEY_SIZE,
    LI_KEY_TOP,
    LI_LONE_WIDE,
    LI_NF,
    LI_NSEL,
    LI_SINGLES,
    LI_UNITS,
    LS_BEST_KEY,
    LS_CODES,
    LS_FEATURES,
    LS_KEY,
    LS_LEFT,
    LS_NEXT,
    LS_SEL,
    MAXD,
    MAXREC,
    NC,
    NF,
    REC_FIRST,
    as_bool,
    as_int,
    copy1,
    insert_sorted,
    w_fs,
    w_ints,
    w_ls,
    w_rec,
    w_rec_n,
    w_u_card,
    w_u_len,
    w_u_size,
    w_u_top,
    w_u_w,
)
from .order import play_class
from .params import (
    BOMBS,
    F_LONG,
    F_PAIRS,
    F_QUADS,
    F_TCARDS,
    F_TRIPLES,
    F_TT,
    F_WIDTH,
    FOLLOW0,
    FOLLOW_QUAD0,
    LONE_TRIPLE,
    N_FOLLOW,
    N_FOLLOW_QUAD,
    TRIPLE_PAIR_UNIT,
    WIDE_AS_TRACTOR,
    WIDE_TRACTORS,
)
from .units import build_units, shape_code, single_unit_shape, unit_uniform, unit_width


@njit(cache=True)
def _features(U_w, U_len, U_size, sel, nsel, P, has_wide, has_lone_wide, f):
    for i in range(NF):
        f[i] = 0
    for i in range(nsel):
        u = sel[i]
        L = U_len[u]
        n = U_size[u]
        w = unit_width(U_w, U_len, u)
        uni = unit_uniform(U_w, U_len, u)
        if L >= 2 and w >= 3:
            f[F_TT] += n
        if L >= 2:
            tl = (w == 2 and uni) or P[WIDE_AS_TRACTOR] == 1 or has_wide
        else:
            tl = P[BOMBS] == 1 and w == 4
        if tl:
            f[F_TCARDS] += n
            if n > f[F_LONG] or (n == f[F_LONG] and w > f[F_WIDTH]):
                f[F_LONG] = n
                f[F_WIDTH] = w
        else:
            for s in range(L):
                f[F_PAIRS] += U_w[u, s] // 2
        for s in range(L):
            if U_w[u, s] == 4:
                f[F_QUADS] += 1
        if L >= 2 or P[LONE_TRIPLE] == 1 or has_lone_wide:
            for s in range(L):
                if U_w[u, s] >= 3:
                    f[F_TRIPLES] += 1


@njit(cache=True, inline="always")
def _profile(f, LI, prof):
    nf = LI[LI_NF]
    for i in range(nf):
        v = f[LI[LI_FIELDS + i]]
        cap = LI[LI_CAPS + i]
        prof[i] = v if v < cap else cap


@njit(cache=True, inline="always")
def _cmp(a, b, n):
    for i in range(n):
        if a[i] != b[i]:
            return 1 if a[i] > b[i] else -1
    return 0


@njit(cache=True, inline="always")
def next_unit(U_card, U_w, U_len, U_size, left, start, nU, room):
    """The first unit from ``start`` on that ``left`` still holds and that fits in ``room`` cards
    (the step of every unit-set search below), or -1."""
    for u in range(start, nU):
        if U_size[u] > room:
            continue
        ok = True
        for s in range(U_len[u]):
            if left[U_card[u, s]] < U_w[u, s]:
                ok = False
                break
        if ok:
            return u
    return -1


@njit(cache=True, inline="always")
def move_unit(U_card, U_w, U_len, U_size, left, u, sign):
    """Give unit ``u``'s cards back to ``left`` (sign 1) or take them (sign -1); its size."""
    for s in range(U_len[u]):
        left[U_card[u, s]] += sign * U_w[u, s]
    return U_size[u]


@njit(cache=True)
def best_sets(counts, cls, pos, P, LI, W, best):
    """The best follow profile of ``counts`` (one class) against the lead ``LI``, with up to
    MAXREC unit sets that reach it (in ``W`` rec/rec_n; ``w_ints(W)[INT_NREC]`` = how many). Returns the
    number of fields written to ``best``."""
    k = LI[LI_CLASS]
    room = LI[LI_CARDS]
    nU = build_units(counts, cls, pos, k, P, room, 2, W)
    U_card, U_w, U_len, U_size = w_u_card(W), w_u_w(W), w_u_len(W), w_u_size(W)
    rec, rec_n, ints = w_rec(W), w_rec_n(W), w_ints(W)
    nf = LI[LI_NF]
    FS = w_fs(W)
    f = FS[FS_SETS_FEATURES]
    prof = FS[FS_SETS_PROFILE]
    left = FS[FS_SETS_LEFT]
    for c in range(NC):
        left[c] = counts[c]
    sel = FS[FS_SETS_SEL]
    nxt = FS[FS_SETS_NEXT]
    # the empty set
    _features(U_w, U_len, U_size, sel, as_int(0), P, LI[LI_HAS_WIDE] == 1, LI[LI_LONE_WIDE] == 1, f)
    _profile(f, LI, best)
    nrec = 1
    rec_n[REC_FIRST] = 0
    d = 0
    nxt[0] = 0
    used = 0
    while d >= 0:
        found = next_unit(U_card, U_w, U_len, U_size, left, nxt[d], nU, room - used) if d < MAXD else -1
        if found < 0:
            d -= 1
            if d >= 0:
                used -= move_unit(U_card, U_w, U_len, U_size, left, sel[d], 1)
                nxt[d] = sel[d] + 1
            continue
        used += move_unit(U_card, U_w, U_len, U_size, left, found, -1)
        sel[d] = found
        _features(U_w, U_len, U_size, sel, d + 1, P, LI[LI_HAS_WIDE] == 1, LI[LI_LONE_WIDE] == 1, f)
        _profile(f, LI, prof)
        c = _cmp(prof, best, nf)
        if c > 0:
            for i in range(nf):
                best[i] = prof[i]
            nrec = 0
        if c >= 0 and nrec < MAXREC:
            for i in range(d + 1):
                rec[nrec, i] = sel[i]
            rec_n[nrec] = d + 1
            nrec += 1
        nxt[d + 1] = found
        d += 1
    ints[INT_NREC] = nrec
    return nf


@njit(cache=True, inline="always")
def _field(i, tt, long_, width, tcards, quads, triples, pairs):
    """The value of follow-profile field ``i`` (``params.F_*``) among the seven given."""
    if i == F_TT:
        return tt
    if i == F_LONG:
        return long_
    if i == F_WIDTH:
        return width
    if i == F_TCARDS:
        return tcards
    if i == F_QUADS:
        return quads
    if i == F_TRIPLES:
        return triples
    return pairs


@njit(cache=True)
def _lead_info_one_unit(play, k, n, code, top, w, P, LI):
    """``lead_info`` for a lead that is one unit (the common case), without a search. The
    profile's seven fields are scalars here (no array per lead)."""
    for i in range(64):
        LI[i] = 0
    mixed = code >= 9000
    L = 2 if mixed else code % 100
    LI[LI_CLASS] = k
    LI[LI_CARDS] = n
    has_wide = L >= 2 and w >= 3
    has_lone_wide = L == 1 and w >= 3
    LI[LI_HAS_WIDE] = 1 if has_wide else 0
    LI[LI_LONE_WIDE] = 1 if has_lone_wide else 0
    f_tt = 0
    f_tcards = 0
    f_long = 0
    f_quads = 0
    f_triples = 0
    if w >= 2:
        if L >= 2 and w >= 3:
            f_tt = n
        if L >= 2:
            tl = (w == 2 and not mixed) or P[WIDE_AS_TRACTOR] == 1 or has_wide
        else:
            tl = P[BOMBS] == 1 and w == 4
        if tl:
            f_tcards = n
            f_long = n
        if not mixed:
            f_quads = L if w == 4 else 0
            f_triples = L if w >= 3 else 0
        else:
            f_triples = 1
    f_pairs = n // 2 if w >= 2 else 0
    if L == 1 and w == 4:
        nf = P[N_FOLLOW_QUAD]
        for i in range(nf):
            LI[LI_FIELDS + i] = P[FOLLOW_QUAD0 + i]
    else:
        nf = P[N_FOLLOW]
        for i in range(nf):
            LI[LI_FIELDS + i] = P[FOLLOW0 + i]
    LI[LI_NF] = nf
    for i in range(nf):
        LI[LI_CAPS + i] = _field(LI[LI_FIELDS + i], f_tt, f_long, 99, f_tcards, f_quads, f_triples, f_pairs)
    LI[LI_UNITS] = 1
    LI[LI_KEY_TOP] = top
    if w == 1:
        LI[LI_KEY_CODE] = 101
        LI[LI_SINGLES] = 1
    else:
        LI[LI_KEY_CODE] = code
        LI[LI_CODES] = code
        LI[LI_KEY_SIZE] = n
        LI[LI_NSEL] = 1


@njit(cache=True, inline="always")
def lead_info_single(card, k, pos, P, LI):
    """``lead_info`` for a one-card lead: every cap is 0, the card's position is the claim."""
    for i in range(64):
        LI[i] = 0
    LI[LI_CLASS] = k
    LI[LI_CARDS] = 1
    nf = P[N_FOLLOW]
    LI[LI_NF] = nf
    for i in range(nf):
        LI[LI_FIELDS + i] = P[FOLLOW0 + i]
    LI[LI_UNITS] = 1
    LI[LI_KEY_CODE] = 101
    LI[LI_KEY_TOP] = pos[card]
    LI[LI_SINGLES] = 1


@njit(cache=True, inline="always")
def one_unit_lead(code, w, P):
    """Whether a play of one-unit shape ``code`` (width ``w``) leads as that one unit: a unit the
    variant allows (a 3+2 unit needs ``triple_pair_unit``, a wide tractor ``wide_tractors``)."""
    if code < 0 or (code >= 9000 and P[TRIPLE_PAIR_UNIT] == 0):
        return False
    return not (code < 9000 and w >= 3 and code % 100 >= 2 and P[WIDE_TRACTORS] == 0)


@njit(cache=True, inline="always")
def lead_info_unit(play, cls, pos, P, LI):
    """``lead_info`` for a one-unit lead, without touching the work arrays; returns False when
    the lead is not one unit (the caller then uses ``lead_info``)."""
    k = as_int(play_class(play, cls))  # plain ints: literals would compile more copies of the helpers
    if k < 0:
        return False
    n = as_int(0)
    for c in range(NC):
        n += play[c]
    code, top, w, _n = single_unit_shape(play, cls, pos, k)
    if not one_unit_lead(code, w, P):
        return False
    _lead_info_one_unit(play, k, n, code, top, w, P, LI)
    return True


# a set's key in ``lead_info``'s search (compared in this order, higher is better): minus its units
# and singles, its cards in wide units, its cards in tractors
KEY_UNITS, KEY_WIDE, KEY_TRACTOR = range(3)
N_KEY = 3


@njit(cache=True)
def lead_info(play, cls, pos, P, W, LI):
    """Read a one-class lead: its canonical decomposition (fewest units, then most cards in wide
    units, then in tractors), the follow caps and the shapes a trump answer must match.
    Returns the number of units; the chosen units are ``W`` rec[REC_FIRST, :n] (singles implicit)."""
    k = as_int(play_class(play, cls))
    n = as_int(0)
    for c in range(NC):
        n += play[c]
    code, top, w, _n = single_unit_shape(play, cls, pos, k)
    if k >= 0 and one_unit_lead(code, w, P):
        _lead_info_one_unit(play, k, n, code, top, w, P, LI)
        return 0 if w == 1 else 1
    nU = build_units(play, cls, pos, k, P, n, 2, W)
    U_card, U_w, U_len, U_top, U_size = w_u_card(W), w_u_w(W), w_u_len(W), w_u_top(W), w_u_size(W)
    rec, rec_n = w_rec(W), w_rec_n(W)
    LS = w_ls(W)
    left = LS[LS_LEFT]
    for c in range(NC):
        left[c] = play[c]
    sel = LS[LS_SEL]
    nxt = LS[LS_NEXT]
    nxt[0] = 0
    best_key = LS[LS_BEST_KEY]
    best_key[KEY_UNITS] = -n  # the empty set: all singles
    best_key[KEY_WIDE] = 0
    best_key[KEY_TRACTOR] = 0
    key = LS[LS_KEY]
    rec_n[REC_FIRST] = 0
    d = 0
    used = 0
    while d >= 0:
        found = next_unit(U_card, U_w, U_len, U_size, left, nxt[d], nU, NC) if d < MAXD else -1
        if found < 0:
            d -= 1
            if d >= 0:
                used -= move_unit(U_card, U_w, U_len, U_size, left, sel[d], 1)
                nxt[d] = sel[d] + 1
            continue
        used += move_unit(U_card, U_w, U_len, U_size, left, found, -1)
        sel[d] = found
        wide = 0
        tract = 0
        for i in range(d + 1):
            uu = sel[i]
            if unit_width(U_w, U_len, uu) >= 3:
                wide += U_size[uu]
            if U_len[uu] >= 2:
                tract += U_size[uu]
        key[KEY_UNITS] = -((d + 1) + (n - used))
        key[KEY_WIDE] = wide
        key[KEY_TRACTOR] = tract
        if _cmp(key, best_key, N_KEY) > 0:
            copy1(best_key, key)
            for i in range(d + 1):
                rec[REC_FIRST, i] = sel[i]
            rec_n[REC_FIRST] = d + 1
        nxt[d + 1] = found
        d += 1
    nsel = rec_n[REC_FIRST]
    # lead info
    for i in range(64):
        LI[i] = 0
    LI[LI_CLASS] = k
    LI[LI_CARDS] = n
    has_wide = False
    has_lone_wide = False
    key_size = 0
    key_w = 0
    key_top = -1
    key_code = 101  # a single
    cards_in = 0
    codes = LS[LS_CODES]  # no array per lead
    pairs_cap = 0
    for i in range(nsel):
        u = rec[REC_FIRST, i]
        w = unit_width(U_w, U_len, u)
        if U_len[u] >= 2 and w >= 3:
            has_wide = True
        if U_len[u] == 1 and w >= 3:
            has_lone_wide = True
        cards_in += U_size[u]
        codes[i] = shape_code(U_w, U_len, U_size, u)
        pairs_cap += U_size[u] // 2
        if U_size[u] > key_size or (U_size[u] == key_size and (w > key_w or (w == key_w and U_top[u] > key_top))):
            key_size = U_size[u]
            key_w = w
            key_top = U_top[u]
            key_code = codes[i]
    singles = n - cards_in
    if key_size == 0:
        # all singles: the strongest card is the key
        for c in range(NC):
            if play[c] > 0 and pos[c] > key_top:
                key_top = pos[c]
    LI[LI_HAS_WIDE] = 1 if has_wide else 0
    LI[LI_LONE_WIDE] = 1 if has_lone_wide else 0
    quad_lead = nsel == 1 and singles == 0 and U_len[rec[REC_FIRST, 0]] == 1 and U_w[rec[REC_FIRST, 0], 0] == 4
    if quad_lead:
        nf = P[N_FOLLOW_QUAD]
        for i in range(nf):
            LI[LI_FIELDS + i] = P[FOLLOW_QUAD0 + i]
    else:
        nf = P[N_FOLLOW]
        for i in range(nf):
            LI[LI_FIELDS + i] = P[FOLLOW0 + i]
    LI[LI_NF] = nf
    f = LS[LS_FEATURES]
    _features(U_w, U_len, U_size, rec[REC_FIRST], nsel, P, as_bool(has_wide), as_bool(has_lone_wide), f)
    f[F_PAIRS] = pairs_cap
    f[F_WIDTH] = 99
    for i in range(nf):
        LI[LI_CAPS + i] = f[LI[LI_FIELDS + i]]
    LI[LI_UNITS] = nsel + singles
    LI[LI_KEY_CODE] = key_code
    LI[LI_KEY_TOP] = key_top
    LI[LI_SINGLES] = singles
    LI[LI_KEY_SIZE] = key_size
    for i in range(nsel):  # the codes, ascending
        insert_sorted(LI, LI_CODES, i, codes[i])
    LI[LI_NSEL] = nsel
    return nsel
