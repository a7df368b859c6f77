"""The chain's states and transitions, hand by hand: the end checks, the expansion (numpy and compiled), ``Chain``."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numba import njit

from .codes import (
    CHUNK,
    D_BITS,
    L_BITS,
    LD_BITS,
    T_BITS,
    W_BITS,
    decode_states,
    distinct,
    encode_states,
)
from .hands import GROUPS, KEYS, Rules, Table, complete_tables


def _ended(codes, rules, h):
    """Whether a match in each state ends before hand ``h`` (the hand cap or the clock)."""
    la, lb, d, ld, w, t = decode_states(codes)
    ended = np.zeros(codes.size, bool)
    if rules.cap and h >= rules.cap:
        ended[:] = True
    if rules.timed:
        tt = rules.x100(t, h)
        # as the engine (engine/match.py): the no-new-hand cut-off first, and then, whether or not
        # there is one, the warning countdown where there is a warning, else the full time
        if rules.no_new_x100 > 0:
            ended |= tt >= rules.match_x100 - rules.no_new_x100
        if rules.warn_x100 > 0:
            ended |= w == 0
        else:
            ended |= tt >= rules.match_x100
    return ended


def _offsets(tables) -> dict[tuple, int]:
    """Where each condition's outcomes start when the tables' outcomes are laid end to end (``KEYS`` order)."""
    sizes = np.cumsum([0] + [tables[k].prob.size for k in KEYS])
    return {k: int(o) for k, o in zip(KEYS, sizes)}


def _expand(codes, tables, rules, h, merge=(-1, -1)):
    """For every state entering hand ``h``: the pre-hand end check, then every outcome.

    Returns (ended_pre: bool per state), the groups of transitions (``ChainHand.groups``), and for the
    transitions the arrays (ended_level flag, lead change flag) and the codes of their next states
    (arrays laid end to end; -1 for those that end the match on levels), then for the transitions
    that end the match on levels (in their order) the levels and declaring team they end at, and
    their time coordinates (arrays laid end to end). ``merge`` (``Chain``'s ``times=False``; (-1, -1):
    none): the time coordinate of a next state's code is 0 after the warning, else the first of the
    two times (``Chain._merge``) it reaches, else its own; the times of the ends are kept."""
    offsets = _offsets(tables)
    la, lb, d, ld, w, t = decode_states(codes)
    ended = _ended(codes, rules, h)
    live = np.nonzero(~ended)[0]
    if h == 0:
        groups = [(live, ("first",), None)]
    else:
        # the declaring team's level is the level played: it decides the table's level group
        grp = rules.group(np.where(d[live] == 0, la[live], lb[live]))
        groups = []
        for a in (True, False):
            for g in GROUPS:
                sel = live[(d[live] == (0 if a else 1)) & (grp == g)]
                if sel.size:
                    groups.append((sel, (a, g), 0 if a else 1))
    # The transitions of a group are its states times its table's outcomes, state by state: each is
    # computed on a (states, outcomes) grid, from a column per state and a row per outcome, and
    # written, flattened in that order, into its place in the arrays of all the groups. The grid is
    # taken a block of states at a time (about CHUNK transitions): the same values, but the
    # temporaries are small, so they stay in the cache and are not fresh memory each time.
    sizes = [sel.size * tables[key].prob.size for sel, key, _ in groups]
    n_all = sum(sizes)
    end_lvl, change = np.empty(n_all, bool), np.empty(n_all, bool)
    spans = []  # per group: its states, its first outcome, its outcomes, its first transition (ChainHand.groups)
    next_codes = []  # per block: the next states' codes
    ends = []  # per block: the levels, declaring team and time coordinate of the transitions that end on levels
    warned = rules.timed and rules.warn_x100 > 0
    stop = 0
    for (sel, key, team), size in zip(groups, sizes):
        start, stop = stop, stop + size
        tb = tables[key]
        k = tb.prob.size
        dd = np.where(tb.a_decl, 0, 1) if team is None else np.full(k, team)  # the declarers, per outcome
        gain_a = np.where(dd == 0, tb.gain_d, tb.gain_f)
        gain_b = np.where(dd == 0, tb.gain_f, tb.gain_d)
        gd = np.where(tb.switch, 1 - dd, dd)
        spans.append((sel, offsets[key], k, start))
        if _COMPILED_EXPAND:
            code = np.empty(size, np.int64)
            found = np.empty((4, size), np.int64)  # pages only where an end is written
            n_end = _expand_group(
                la,
                lb,
                w,
                t,
                ld,
                sel,
                gain_a.astype(np.int64),
                gain_b.astype(np.int64),
                gd.astype(np.int64),
                dd.astype(np.int64),
                np.asarray(tb.dur, np.int64),
                rules.end,
                rules.must_defend,
                rules.timed,
                warned,
                merge[0],
                merge[1],
                rules.warn_x100,
                rules.after_warn,
                rules.step,
                rules.overhead_x100,
                rules.spt_x100,
                h + 1,
                end_lvl[start:stop],
                change[start:stop],
                code,
                found,
            )
            next_codes.append(code)
            ends.append([found[i, :n_end].copy() for i in range(4)])
            continue
        rows = max(1, CHUNK // k)
        for lo in range(0, sel.size, rows):
            part = sel[lo : lo + rows]
            first = start + lo * k
            grid = (part.size, k)

            def put(out, value):
                out[first : first + part.size * k].reshape(grid)[...] = value

            a0, b0 = la[part][:, None], lb[part][:, None]
            ga, gb = a0 + gain_a, b0 + gain_b
            if rules.must_defend:
                ga = np.where((ga > rules.end) & ~((dd == 0) & (a0 == rules.end)), rules.end, ga)
                gb = np.where((gb > rules.end) & ~((dd == 1) & (b0 == rules.end)), rules.end, gb)
            gt = t[part][:, None] + tb.dur if rules.timed else t[part][:, None]
            old = ld[part][:, None]
            ahead = np.where(ga > gb, 0, np.where(gb > ga, 1, -1))
            gw = w[part][:, None]
            if warned:
                dec = gw > 0
                gw = np.where(dec, gw - 1, gw)
                gw = np.where(~dec & (gw < 0) & (rules.x100(gt, h + 1) >= rules.warn_x100), rules.after_warn, gw)
            gend = (ga > rules.end) | (gb > rules.end)
            put(end_lvl, gend)
            put(change, (ahead >= 0) & (old >= 0) & (ahead != old))
            code = encode_states(ga, gb, gd, np.where(ahead >= 0, ahead, old), gw, _merged_time(gw, gt, merge))
            code[gend] = -1  # no next state (``distinct``)
            next_codes.append(code.ravel())
            ends.append([np.broadcast_to(x, grid)[gend] for x in (ga, gb, gd, gt)])
    cat = [spans, end_lvl, change, next_codes]
    cat += [np.concatenate([e[i] for e in ends]) if ends else np.zeros(0, np.int64) for i in range(3)]
    cat.append([e[3] for e in ends])
    return ended, cat, (la, lb, d)


def _merged_time(gw, gt, merge):
    """The time coordinate of next states' codes (``_expand``'s ``merge``), numpy arrays."""
    first, second = merge
    if first < 0:
        return gt
    return np.where(gw >= 0, 0, np.where(gt >= first, first, np.where(gt >= second, second, gt)))


_COMPILED_EXPAND = True  # _expand's grids in compiled code (_expand_group); False: numpy blocks (the same arrays)


@njit(cache=True)
def _x100(t, hands, step, overhead_x100, spt_x100):
    """``Rules.x100`` for one state."""
    if step == 0:
        return hands * overhead_x100 + (t * spt_x100) // 60
    return t * step


@njit(cache=True)
def _expand_group(
    la,
    lb,
    w,
    t,
    ld,
    sel,
    gain_a,
    gain_b,
    gd,
    dd,
    dur,
    end,
    must_defend,
    timed,
    warned,
    merge_first,
    merge_second,
    warn_x100,
    after_warn,
    step,
    overhead_x100,
    spt_x100,
    h_next,
    end_lvl,
    change,
    code,
    ends,
):
    """``_expand``'s grid of one group, state by state and outcome by outcome (the numpy blocks'
    arithmetic, element by element): each transition's end-on-levels and lead-change flags, the code
    of its next state (-1 where it ends the match on levels), and for those that end, their levels,
    declaring team and time coordinate in ``ends``' rows (returns how many); ``merge_first``,
    ``merge_second``: ``_expand``'s ``merge``."""
    k = gain_a.size
    n_end = 0
    for i in range(sel.size):
        s = sel[i]
        a0, b0, old, w0, t0 = la[s], lb[s], ld[s], w[s], t[s]
        for j in range(k):
            x = i * k + j
            ga, gb = a0 + gain_a[j], b0 + gain_b[j]
            if must_defend:
                if ga > end and not (dd[j] == 0 and a0 == end):
                    ga = end
                if gb > end and not (dd[j] == 1 and b0 == end):
                    gb = end
            gt = t0 + dur[j] if timed else t0
            ahead = 0 if ga > gb else (1 if gb > ga else -1)
            gw = w0
            if warned:
                if gw > 0:
                    gw -= 1
                elif gw < 0 and _x100(gt, h_next, step, overhead_x100, spt_x100) >= warn_x100:
                    gw = after_warn
            gend = ga > end or gb > end
            end_lvl[x] = gend
            change[x] = ahead >= 0 and old >= 0 and ahead != old
            if gend:
                code[x] = -1
                ends[0, n_end] = ga
                ends[1, n_end] = gb
                ends[2, n_end] = gd[j]
                ends[3, n_end] = gt
                n_end += 1
            else:
                c = np.int64(ga)
                c = (c << L_BITS) | gb
                c = (c << D_BITS) | gd[j]
                c = (c << LD_BITS) | ((ahead if ahead >= 0 else old) + 1)
                c = (c << W_BITS) | (gw + 1)
                tc = gt
                if merge_first >= 0:
                    if gw >= 0:
                        tc = 0
                    elif gt >= merge_first:
                        tc = merge_first
                    elif gt >= merge_second:
                        tc = merge_second
                c = (c << T_BITS) | tc
                code[x] = c
    return n_end


def winner_probs(la, lb, on_stage_team, rules):
    """(P(A), P(draw), P(B)) of an end at these levels."""
    a = (la > lb).astype(float)
    b = (lb > la).astype(float)
    tie = la == lb
    if rules.on_stage:
        a = a + (tie & (on_stage_team == 0))
        b = b + (tie & (on_stage_team == 1))
        dr = np.zeros(la.size)
    else:
        dr = tie.astype(float)
    return a, dr, b


@dataclass
class ChainHand:
    """One hand of a chain, whatever the outcomes' probabilities: the states entering it (sorted
    codes), those the cap or the clock ends before it (with their winners and time coordinates),
    and its transitions (lead change, whether it ends the match on levels; for those that do their
    winners and time coordinates; for every transition the index of the state it leads to among
    the next hand's states, or for one that ends the match the number of those states).

    The transitions come in groups, one per condition of the states' table: a group's are its
    states (``sel``, indices into ``codes``) times the table's ``k`` outcomes, state by state, from
    transition ``at`` on; the outcomes are ``first .. first + k - 1`` of the tables' outcomes laid
    end to end (``_offsets``). A group's transitions are a (states, outcomes) grid, in the arrays
    of all the transitions and in the work arrays of a solve."""

    codes: np.ndarray
    ended: np.ndarray
    ended_win: tuple
    ended_t: tuple  # (distinct time coordinates, index of each ended state's among them): ``distinct``
    groups: list  # (sel, first, k, at) per group
    n: int  # transitions
    change: np.ndarray
    end_lvl: np.ndarray
    n_end: int  # transitions that end the match on levels
    end_win: tuple
    end_t: tuple
    nxt: np.ndarray


class Work:
    """Float arrays that the solves on one chain reuse, hand after hand: the same values as fresh
    arrays, but fresh memory costs a page fault per page, which in a long match took about as much
    time as the arithmetic."""

    def __init__(self):
        self._arrays: dict[str, np.ndarray] = {}

    def get(self, name: str, n: int) -> np.ndarray:
        """An array of ``n`` floats (its contents left over from an earlier use)."""
        a = self._arrays.get(name)
        if a is None or a.size < n:
            a = self._arrays[name] = np.empty(max(n, 0 if a is None else a.size + a.size // 4))
        return a[:n]


class Chain:
    """The states and transitions of the chain of ``tables`` under ``rules``, hand by hand, found
    once and shared by every solve on the same outcomes (``solve(..., chain=)``): a bootstrap
    resample's tables keep some of the outcomes, each with its own probability, and so move through
    the same states (those it cannot reach keep probability 0). Hands are found as a solve needs them.
    The chain also keeps each outcome's duration and the work arrays its solves reuse (``Work``).

    ``times=False``: a chain for ``solve_batch`` alone, with fewer states and the same figures: states
    that differ only in their time coordinate, where their futures are the same, are one state (the
    time coordinate 0, or the least time of the set). With a warning and no no-new-hand cut-off the
    match ends when the countdown of hands after the warning does, whatever the time: so once warned,
    and before that where the hand a state enters is sure to bring the warning (its shortest outcome
    crosses it). Without a warning, where the clock has ended the match, and where the hand a state
    enters is sure to end it (its shortest outcome crosses the end). No figure ``solve_batch`` gives
    depends on a state's time (minutes are summed over the transitions' durations), so its figures
    are the full chain's up to float rounding; ``solve``, which gives the minutes' distribution,
    refuses it. An untimed match, or a warning with a no-new-hand cut-off, keeps its times. (The
    chain of school-2016's 300 deals of expert against basic: 148,350 states and 7.36 million
    transitions with times, 30,503 and 2.56 million without; guangxi-2012's, with no warning: 100,989
    and 3.37 million, 44,401 and 2.33 million.)"""

    def __init__(self, tables: Mapping[tuple, Table], rules: Rules, times: bool = True):
        tables = complete_tables(tables)
        self.tables, self.rules = tables, rules
        # the time coordinate of a warned state can go only where nothing but the countdown ends the match
        self.times = times or not (rules.timed and (rules.warn_x100 == 0 or rules.no_new_x100 == 0))
        start = encode_states(
            np.array([rules.start]),
            np.array([rules.start]),
            np.array([0]),
            np.array([-1]),
            np.array([-1]),
            np.array([0]),
        )
        self.codes = [start]  # the states entering each hand found so far (one more than self.hands)
        self.hands: list[ChainHand] = []
        self._rows = {k: {row: i for i, row in enumerate(zip(*self._columns(tables[k])))} for k in KEYS}
        # each outcome's duration as solve sums it: hundredths of a minute (rules.step 0) or grid steps
        dur = np.concatenate([tables[k].dur for k in KEYS]).astype(np.int64)
        self.duration = rules.overhead_x100 + dur * rules.spt_x100 / 60 if rules.step == 0 else dur.astype(float)
        self.work = Work()
        self.lock = threading.Lock()  # hands are found (and their plans made) by one thread at a time

    @staticmethod
    def _columns(tb: Table):
        return (tb.gain_d.tolist(), tb.gain_f.tolist(), tb.switch.tolist(), tb.dur.tolist(), tb.a_decl.tolist())

    def probabilities(self, tables: Mapping[tuple, Table]) -> np.ndarray | None:
        """Every outcome's probability under ``tables``, laid out as this chain's outcomes; None
        when ``tables`` has an outcome this chain lacks."""
        parts = []
        tables = complete_tables(tables)
        for k in KEYS:
            mine, theirs = self.tables[k], tables[k]
            if theirs is mine:
                parts.append(mine.prob)
                continue
            p = np.zeros(mine.prob.size)
            for row, q in zip(zip(*self._columns(theirs)), theirs.prob):
                i = self._rows[k].get(row)
                if i is None:
                    return None
                p[i] = q
            parts.append(p)
        return np.concatenate(parts)

    def _merge(self, h: int) -> tuple[int, int]:
        """The times that states entering hand ``h`` are merged to (``_expand``'s ``merge``): with a
        warning, the least time from which a state before it is sure to be warned in hand ``h`` (its
        shortest outcome crosses the warning), and never; without one, the least time at which the
        clock ends the match before hand ``h``, and the least from which it is sure to end it after
        hand ``h`` (its shortest outcome crosses the end)."""
        rules = self.rules
        shortest = int(min(self.tables[k].dur.min() for k in KEYS))
        never = (1 << T_BITS) - 1
        if rules.warn_x100 > 0:
            return self._least(lambda t: rules.x100(t + shortest, h + 1) >= rules.warn_x100), never
        stop = rules.match_x100 - rules.no_new_x100 if rules.no_new_x100 > 0 else rules.match_x100
        ends = self._least(lambda t: rules.x100(t, h) >= stop)
        return ends, min(ends, self._least(lambda t: rules.x100(t + shortest, h + 1) >= stop))

    @staticmethod
    def _least(test) -> int:
        """The least time coordinate t passing ``test`` (which, once passed, stays passed as t grows:
        ``Rules.x100`` grows with t); the largest code's time where none does (no state reaches it)."""
        lo, hi = 0, (1 << T_BITS) - 1
        if not test(hi):
            return hi
        while lo < hi:
            mid = (lo + hi) // 2
            if test(mid):
                hi = mid
            else:
                lo = mid + 1
        return lo

    def hand(self, h: int) -> ChainHand:
        if len(self.hands) <= h:
            with self.lock:  # solve_batch's threads share the chain
                while len(self.hands) <= h:
                    self._find(len(self.hands))
        return self.hands[h]

    def _find(self, h: int) -> None:
        rules, codes = self.rules, self.codes[h]
        ended, tr, (la, lb, d) = _expand(codes, self.tables, rules, h, (-1, -1) if self.times else self._merge(h + 1))
        groups, end_lvl, change, next_codes, end_a, end_b, end_d, end_t = tr
        nxt_codes, nxt = distinct(next_codes)
        # the next states first: a thread that sees hand h found reads codes[h + 1]
        self.codes.append(nxt_codes)
        self.hands.append(
            ChainHand(
                codes,
                ended,
                winner_probs(la[ended], lb[ended], d[ended], rules),
                distinct([decode_states(codes[ended])[5]]),
                groups,
                end_lvl.size,
                change,
                end_lvl,
                end_a.size,
                winner_probs(end_a, end_b, end_d, rules),
                distinct(end_t),
                nxt,
            )
        )
