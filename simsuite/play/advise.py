"""``simsuite advise``: what a policy would play in a written position, and for ``search`` why.

A position is a scenario file with ``to_move`` (see docs/scenarios.md). It is turned into the
engine's ``HandState`` (``engine.phases``) exactly as the seat to move knows it: its own hand,
the cards gone in earlier tricks (``played``), the current trick so far (``[trick]``), the cards
others showed while bidding (``[shown]``), the suits they showed out of (``[voids]``), the
defenders' points so far (``points``) and, for the dealer, the bottom it buried. Everything else
is unseen: the other hands are filled with the unseen cards only to give the state its sizes, and
``search`` samples them afresh at every decision, so what they hold never matters.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..engine import core
from ..engine import full as F
from ..engine import phases as ph
from ..engine.api import hand_states
from ..engine.core import NC
from ..engine.names import policy_code, policy_name
from ..engine.order import hand_tables
from ..engine.params import compile_variant
from ..engine.policies import search
from ..engine.policies.codes import D_FOLLOW, D_LEAD, LEARNED, POLICY_NAMES
from ..engine.policies.learned import LEARNED_CANDIDATES
from ..engine.policies.model import work_for
from ..errors import ScenarioError, did_you_mean
from ..rules.cards import RANK_NAMES, SEATS, format_card, format_cards
from ..rules.order import format_trump
from ..rules.scenario import Scenario, check_against
from ..rules.variant import Variant

SUITS = "SHDCT"


@dataclass(frozen=True)
class Advice:
    variant: str
    policy: str
    seat: int
    choice: list[int]
    candidates: list[tuple[list[int], float, float, int]]  # play, mean value in levels, 95% half-width, samples
    scored: list[tuple[list[int], float]] = ()  # learned: each candidate and the model's score

    def as_dict(self) -> dict:
        out = {
            "variant": self.variant,
            "policy": self.policy,
            "seat": SEATS[self.seat],
            "choice": _fmt(self.choice),
            "candidates": [
                {"play": _fmt(p), "value": _num(v), "ci95": _num(h), "samples": n} for p, v, h, n in self.candidates
            ],
        }
        if self.scored:
            out["scored"] = [{"play": _fmt(p), "score": round(x, 4)} for p, x in self.scored]
        return out


def _num(x: float) -> float | None:
    """A figure for JSON: None (null) where it does not exist (no sample, or one: no interval), never NaN."""
    return round(x, 4) if math.isfinite(x) else None


def _fmt(cards: list[int]) -> str:
    return format_cards(cards, sort=False)


def _counts(cards: list[int]) -> np.ndarray:
    return np.bincount(np.asarray(cards, dtype=np.int64), minlength=NC).astype(np.int64)


def _cards(counts: np.ndarray) -> list[int]:
    return [int(c) for c in np.repeat(np.arange(NC), counts)]


def position_state(s: Scenario, v: Variant, seed: int = 1, codes=()):
    """The ``HandState`` of the position ``s`` under ``v`` as its seat to move knows it, with the
    parameter array, the work buffer for policies ``codes`` (``engine.policies.model.work_for``) and a
    random state. Raises ``ScenarioError`` for an impossible position."""
    if s.to_move is None:
        raise ScenarioError(f"{s.source}: not a position: give to_move (the seat to advise) and its hand")
    why = check_against(s, v)
    if why:
        raise ScenarioError(f"{s.source}: {why}")
    P = compile_variant(v)
    seat, dealer = s.to_move, s.dealer
    hs = v.hand_size
    mine = _counts(s.hands[seat])
    m = int(mine.sum())
    if m == 0:
        raise ScenarioError(f"{s.source}: {SEATS[seat]} (to move) holds no cards")
    n_trick = 0
    if s.plays:
        n_trick = len(s.plays[0])
        if any(len(p) != n_trick for p in s.plays):
            raise ScenarioError(f"{s.source}: [trick] plays must all have as many cards as the lead ({n_trick})")
        if m < n_trick:
            raise ScenarioError(f"{s.source}: {SEATS[seat]} holds {m} card(s) but must follow {n_trick}")
    if seat == dealer and v.bottom_size > 0 and s.buried is None:
        raise ScenarioError(f'{s.source}: {SEATS[seat]} is the dealer and buried the bottom: give it as bottom = "..."')
    if s.buried is not None and seat != dealer:
        raise ScenarioError(f"{s.source}: only the dealer ({SEATS[dealer]}) knows the bottom; {SEATS[seat]} is to move")
    # every seat starts the trick with the same number of cards; the seat to move has not played yet
    gone = hs - m
    if len(s.played) != 4 * gone:
        raise ScenarioError(
            f"{s.source}: played lists {len(s.played)} card(s), but {SEATS[seat]} holding {m} of "
            f"{hs} means {4 * gone} were played in earlier tricks (4 x {gone})"
        )
    if s.buried is not None and len(s.buried) != v.bottom_size:
        raise ScenarioError(f"{s.source}: bottom has {len(s.buried)} card(s); {v.id} buries {v.bottom_size}")
    known = mine + _counts(s.played) + sum((_counts(p) for p in s.plays), np.zeros(NC, np.int64))
    if s.buried is not None:
        known = known + _counts(s.buried)
    for o, cards in s.shown.items():
        if o == seat:  # the seat to move showed cards of its own hand: it must still hold them
            missing = [format_card(c) for c in range(NC) if _counts(cards)[c] > mine[c]]
            if missing:
                raise ScenarioError(
                    f"{s.source}: [shown] {SEATS[o]} = {_fmt(cards)}: {SEATS[o]} is to move and does "
                    f"not hold {', '.join(missing)} (its hand: {_fmt(_cards(mine))})"
                )
            continue
        known = known + _counts(cards)
    over = [f"{int(known[c])} x {format_card(c)}" for c in range(NC) if known[c] > v.decks]
    if over:
        raise ScenarioError(
            f"{s.source}: {', '.join(over)} in the position, but {v.decks} deck(s) hold only {v.decks} of each card"
        )
    # the other seats' [hands] are never read (unseen to the seat to move) but must be possible: they hold
    # their shown cards and this trick's plays, so they count against the decks with the seat's own cards
    table = mine + _counts(s.played) + (_counts(s.buried) if s.buried is not None else 0)
    for o, cards in s.hands.items():
        if o != seat:
            table = table + _counts(cards)
    over = [f"{int(table[c])} x {format_card(c)}" for c in range(NC) if table[c] > v.decks]
    if over:
        raise ScenarioError(
            f"{s.source}: [hands] of the other seats with the cards played and the bottom: "
            f"{', '.join(over)}, but {v.decks} deck(s) hold only {v.decks} of each card"
        )
    unseen = np.full(NC, v.decks, np.int64) - known
    cls, pos = hand_tables(P, s.level, s.trump)
    _check_voids(s, m, unseen, cls)

    st = ph.new_state()
    sc = st.sc
    sc[ph.S_LEVEL], sc[ph.S_TRUMP], sc[ph.S_DEALER], sc[ph.S_DECLARERS] = s.level, s.trump, dealer, s.declarers
    sc[ph.S_DECLARER_SEAT] = dealer
    leader = s.leader if s.plays else seat
    sc[ph.S_LEADER] = leader
    sc[ph.S_CARDS_LEFT] = m
    sc[ph.S_TRICKS] = gone  # tricks of one card each, or fewer and larger: only the count of cards matters
    sc[ph.S_DEF_POINTS] = s.points
    sc[ph.S_LAST_WINNER] = -1
    sc[ph.S_LAST_KEY] = 1
    sc[ph.S_LAST_N] = 1
    st.cls[:] = cls
    st.pos[:] = pos
    st.ctx[:] = (s.declarers, m, dealer, s.trump, s.level, gone, 0, leader)
    st.played[:] = _counts(s.played)
    st.hands[seat] = mine
    for o, suits in s.voids.items():
        for k in suits:
            st.voids[o, k] = 1
    # the other seats: shown cards, this trick's plays, then unseen cards up to their sizes
    for i, play in enumerate(s.plays):
        st.hands[(leader + i) % 4] += _counts(play)
    for o in range(4):
        if o == seat:
            continue
        shown = _counts(s.shown.get(o, []))
        st.shown[o] = shown
        st.hands[o] += shown
    if s.buried is not None:
        st.bottom[:] = _counts(s.buried)
        sc[ph.S_BOTTOM_POINTS] = int((core.POINTS * st.bottom).sum())
    rest = _cards(unseen)
    for o in range(4):
        if o == seat:
            continue
        need = m - int(st.hands[o].sum())
        if need < 0:
            raise ScenarioError(
                f"{s.source}: {SEATS[o]} would hold more than the {m} cards every seat starts "
                f"this trick with (shown cards and this trick's play)"
            )
        for c in rest[:need]:
            st.hands[o, c] += 1
        rest = rest[need:]
    if s.buried is None:
        for c in rest[: v.bottom_size]:
            st.bottom[c] += 1
        sc[ph.S_BOTTOM_POINTS] = int((core.POINTS * st.bottom).sum())
    # the current trick through the phases, so that the lead's analysis and the winner are the engine's
    W = work_for(codes)
    forced = np.zeros(NC, np.int64)
    for i, play in enumerate(s.plays):
        cards = _counts(play)
        if i == 0:
            status = ph.apply_lead(P, st, W, cards, forced)
            if status == ph.LEAD_ILLEGAL:
                raise ScenarioError(f"{s.source}: the lead {_fmt(play)} is not one suit-class")
            if status != ph.LEAD_OK:
                raise ScenarioError(
                    f"{s.source}: the lead {_fmt(play)} is a throw that fails; advise a position "
                    f"after its forced play instead"
                )
        elif not ph.apply_follow(P, st, W, cards):
            raise ScenarioError(f"{s.source}: play {i + 1} ({_fmt(play)}) does not fit the lead of {n_trick} card(s)")
    rng = hand_states(seed, 0, 1)[0].copy()
    return P, st, W, rng


def _suit_name(k: int) -> str:
    return "trump" if k == 4 else SUITS[k]


def _check_voids(s: Scenario, m: int, unseen: np.ndarray, cls: np.ndarray) -> None:
    """Refuse voids the position contradicts: another seat void in a suit it shows or plays in
    this trick; or seats whose voids leave fewer unseen cards they may hold than the cards they
    must hold (every group of them, so that three seats void in every suit are caught together).
    The seat to move void in a suit it holds is refused before, by ``rules.scenario.check_against``."""
    leader = s.leader if s.plays else s.to_move
    plays = {(leader + i) % 4: _counts(p) for i, p in enumerate(s.plays)}
    for o, suits in s.voids.items():
        if o == s.to_move:
            continue
        held = _counts(s.shown.get(o, [])) + plays.get(o, 0)
        for k in suits:
            has = [c for c in range(NC) if held[c] > 0 and cls[c] == k]
            if has:
                raise ScenarioError(
                    f"{s.source}: [voids] {SEATS[o]} is void in {_suit_name(k)} but shows or plays {format_card(has[0])}"
                )
    others = [o for o in range(4) if o != s.to_move]
    need = {o: m - len(s.shown.get(o, [])) - int(np.sum(plays.get(o, 0))) for o in others}
    for mask in range(1, 1 << len(others)):
        group = [o for i, o in enumerate(others) if mask >> i & 1]
        may = np.zeros(NC, bool)
        for o in group:
            void = set(s.voids.get(o, []))
            may |= np.array([cls[c] not in void for c in range(NC)])
        room = int(unseen[may].sum())
        wanted = sum(need[o] for o in group)
        if wanted > room:
            who = ", ".join(SEATS[o] for o in group)
            raise ScenarioError(
                f"{s.source}: [voids] leave {who} {room} unseen card(s) of the suits they may hold, "
                f"but they must hold {wanted} more"
            )


def advise(s: Scenario, v: Variant, policy: str = "search", seed: int = 1) -> Advice:
    """The choice of ``policy`` for the seat to move in position ``s``; for search, every
    candidate's mean value (in levels for the seat's team) and how many sampled deals it saw."""
    code = policy_code(policy)
    if code is None:
        raise ScenarioError(
            f"unknown policy {policy!r}{did_you_mean(policy, POLICY_NAMES)} for advise: the built-in policies ({', '.join(POLICY_NAMES)}, "
            f"search also as search-k<samples>-c<candidates>, samples 1 to {search.MAX_SAMPLES}, "
            f"candidates 1 to {search.MAX_CANDIDATES})"
        )
    P, st, W, rng = position_state(s, v, seed, (code,))
    out = np.zeros(NC, np.int64)
    kind = D_LEAD if st.sc[ph.S_TURN] == 0 else D_FOLLOW
    candidates: list[tuple[list[int], float, float, int]] = []
    if search.is_search(code):
        cand = np.zeros((search.MAX_CANDIDATES, NC), np.int64)
        stats = np.zeros((search.MAX_CANDIDATES, 3), np.float64)
        n = search.decide(P, st, code, W, rng, kind, out, cand, stats)
        for i in range(n):
            k = int(stats[i, 1])
            mean = stats[i, 0] / k if k else float("nan")
            var = max(stats[i, 2] / k - mean * mean, 0.0) * k / (k - 1) if k > 1 else float("nan")
            half = 1.96 * (var / k) ** 0.5 if k > 1 else float("nan")
            candidates.append((_cards(cand[i]), mean / search.LEVEL_VALUE, half / search.LEVEL_VALUE, k))
        candidates.sort(key=lambda t: -t[1] if t[3] else float("inf"))
    elif kind == D_LEAD:
        F.decide_lead(P, st, code, W, rng, out)
    else:
        F.decide_follow(P, st, code, W, rng, out)
    scored = _learned_scores(W) if code == LEARNED else []
    return Advice(v.id, policy_name(code), s.to_move, _cards(out), candidates, scored)


def _learned_scores(W: np.ndarray) -> list[tuple[list[int], float]]:
    """The learned policy's candidates and their scores, best first, from its rows of the work
    buffer (``engine.policies.learned.decide`` leaves them there; a fresh buffer's unused rows are empty)."""
    cand = W[core.O_LC : core.O_LC + core.MAX_CANDIDATES * NC].reshape(core.MAX_CANDIDATES, NC)
    n = int((cand[:LEARNED_CANDIDATES].sum(axis=1) > 0).sum())
    if n <= 1:
        return [(_cards(cand[0]), 0.0)] if n else []
    scores = W[core.O_LV : core.O_LV + n].view(np.float64)
    rows = [(_cards(cand[i]), float(scores[i])) for i in range(n)]
    return sorted(rows, key=lambda r: -r[1])


def advice_text(s: Scenario, a: Advice) -> str:
    lines = [
        f"{s.source}: {a.variant}, level {RANK_NAMES[s.level]}, trump {format_trump(s.trump)}, "
        f"{SEATS[a.seat]} to move; policy {a.policy}",
        f"choice: {_fmt(a.choice)}",
    ]
    if a.candidates:
        lines.append(
            "candidates: mean result for the seat's team in levels (1 level = 1.0; holding the stage "
            "0.5; a point 0.001), 95% interval, sampled deals"
        )
        for play, value, half, n in a.candidates:
            mark = "*" if play == a.choice else " "
            shown = (
                f"{value:+.3f} ± {half:.3f}"
                if math.isfinite(half)
                else f"{value:+.3f} (no interval: one sample)"
                if math.isfinite(value)
                else "not sampled"
            )
            lines.append(f" {mark} {_fmt(play):<28} {shown}   n={n}")
        lines.append(
            "every candidate is played out in the same sampled deals, so differences between them are "
            "sharper than the intervals suggest"
        )
    if len(a.scored) > 1:
        lines.append(
            "candidates: the model's estimate of each one's result for the seat's team, in levels, against "
            "the mean of the candidates (what it was trained to predict from the search's values)"
        )
        for play, score in a.scored:
            mark = "*" if play == a.choice else " "
            lines.append(f" {mark} {_fmt(play):<28} {score:+.3f}")
    return "\n".join(lines)
