"""Units (single, pair, triple, quad, tractors) and the decomposition of a play.

A *unit* is one step or several consecutive steps of identical cards inside one suit-class:
``widths`` gives the copies at each step (``(2, 2)`` is a 2-pair tractor, ``(3, 3)`` a
triple-tractor "3+3", ``(4,)`` a quad / bomb, ``(3, 2)`` huizhou's triple joined to an adjacent
pair). A play of one suit-class is decomposed into units; its *shape* is written like
``"2+2+2"`` for one unit and ``"2+2 1 1"`` for several (a throw).

Decompositions are enumerated over the count vector of the play, from its strongest card down.
Plays are small (a trick is at most a few dozen cards), so plain recursion is quick enough for
rulings; the simulator's hot path has its own compiled follow generator.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from .order import HandOrder


@dataclass(frozen=True, order=True)
class Unit:
    """One unit of a play: ``cards[i]`` appears ``widths[i]`` times, positions ``top, top-1, …``."""

    top: int
    widths: tuple[int, ...]
    cards: tuple[int, ...]

    @property
    def length(self) -> int:
        return len(self.widths)

    @property
    def n_cards(self) -> int:
        return sum(self.widths)

    @property
    def width(self) -> int:
        return max(self.widths)

    @property
    def shape(self) -> str:
        return "+".join(str(w) for w in self.widths)

    @property
    def is_uniform(self) -> bool:
        return len(set(self.widths)) == 1

    def size_key(self) -> tuple[int, int]:
        """Largest unit first: most cards, then widest (3+3 over 2+2+2, tractor over triple)."""
        return (self.n_cards, self.width)

    def counts(self) -> dict[int, int]:
        out: dict[int, int] = {}
        for c, w in zip(self.cards, self.widths):
            out[c] = out.get(c, 0) + w
        return out


def shape_of(units: Sequence[Unit]) -> str:
    """Shape string of a decomposition, largest unit first: ``"2+2+2"``, ``"3 2 1"``."""
    ordered = sorted(units, key=lambda u: (u.size_key(), u.top), reverse=True)
    return " ".join(u.shape for u in ordered)


def class_cards(order: HandOrder, counts: dict[int, int]) -> list[int]:
    """The card ids present in ``counts``, strongest first."""
    return sorted((c for c, n in counts.items() if n > 0), key=lambda c: (-int(order.pos[c]), c))


def _next_steps(order: HandOrder, counts: dict[int, int], card: int, need: int) -> list[int]:
    """Cards one position below ``card`` in its class with at least ``need`` copies left."""
    p = int(order.pos[card]) - 1
    k = int(order.cls[card])
    return [c for c, n in counts.items() if n >= need and int(order.pos[c]) == p and int(order.cls[c]) == k]


def units_from(order: HandOrder, counts: dict[int, int], card: int) -> Iterator[Unit]:
    """Every unit whose strongest step is ``card``, given the copies in ``counts``."""
    v = order.variant
    n = min(counts.get(card, 0), v.max_unit)
    top = int(order.pos[card])
    for w in range(n, 0, -1):
        yield Unit(top, (w,), (card,))
        if w == 1 or (w >= 3 and not v.wide_tractors):
            continue
        # tractors: extend downward through consecutive positions
        stack = [((w,), (card,))]
        while stack:
            widths, cards = stack.pop()
            taken = dict(counts)
            for c, ww in zip(cards, widths):
                taken[c] -= ww
            for nxt in _next_steps(order, taken, cards[-1], w):
                u = (widths + (w,), cards + (nxt,))
                yield Unit(top, u[0], u[1])
                stack.append(u)
    if v.triple_pair_unit:
        # a triple joined to an adjacent pair, either way round (huizhou: AAAKK, 99988)
        have = counts.get(card, 0)
        if have >= 3:
            for nxt in _next_steps(order, {**counts, card: counts[card] - 3}, card, 2):
                yield Unit(top, (3, 2), (card, nxt))
        if have >= 2:
            for nxt in _next_steps(order, {**counts, card: counts[card] - 2}, card, 3):
                yield Unit(top, (2, 3), (card, nxt))


def decompositions(order: HandOrder, counts: dict[int, int]) -> Iterator[tuple[Unit, ...]]:
    """Every way to split a one-class play into units (each split once)."""
    counts = {c: n for c, n in counts.items() if n > 0}

    def rec(rest: dict[int, int], bound: tuple | None) -> Iterator[tuple[Unit, ...]]:
        cards = class_cards(order, rest)
        if not cards:
            yield ()
            return
        first = cards[0]
        for u in units_from(order, rest, first):
            key = (u.n_cards, u.widths, u.cards)
            if bound is not None and key > bound:
                continue  # units starting at the same card come in non-increasing order
            left = dict(rest)
            for c, w in zip(u.cards, u.widths):
                left[c] -= w
                if left[c] == 0:
                    del left[c]
            still = left.get(first, 0) > 0
            for tail in rec(left, key if still else None):
                yield (u,) + tail

    yield from rec(counts, None)


def canonical_units(order: HandOrder, counts: dict[int, int]) -> tuple[Unit, ...]:
    """The decomposition a lead is read as: fewest units, then most cards in wide units,
    then most cards in tractors, then the strongest units."""

    def key(d: tuple[Unit, ...]):
        wide = sum(u.n_cards for u in d if u.width >= 3)
        tract = sum(u.n_cards for u in d if u.length >= 2)
        return (-len(d), wide, tract, sorted((u.size_key(), u.top) for u in d))

    return max(decompositions(order, counts), key=key)


def counts_of(cards: Sequence[int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for c in cards:
        out[int(c)] = out.get(int(c), 0) + 1
    return out


def as_count_dict(vec: np.ndarray) -> dict[int, int]:
    return {int(c): int(vec[c]) for c in np.nonzero(vec)[0]}
