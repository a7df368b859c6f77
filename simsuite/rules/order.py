"""Card order for one hand: suit-classes, strength positions and adjacency.

For a hand (variant, level rank, trump suit or no-trump) every card id gets two small ints:

* ``cls[card]``: its suit-class, 0..3 for the side suits S H D C, ``TRUMP`` (4) for trump.
* ``pos[card]``: its position inside the class, higher is stronger. Cards of equal strength
  share a position (the off-suit level cards, guangxi-2012's off-suit 2s). Two units are
  *consecutive* exactly when their positions differ by 1: where the variant breaks a link
  (no gap over the level rank, no joker-level link, ...) the positions jump by 2.

These two arrays are all the rules core needs to compare cards and find tractors.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import SimsuiteError
from .cards import BIG_JOKER, N_CARDS, N_RANKS, N_SUITS, SMALL_JOKER, SUIT_LETTERS, make_card
from .variant import Variant

TRUMP = 4
NO_TRUMP = -1
CLASS_NAMES = ("S", "H", "D", "C", "trump")


def parse_trump(text: str) -> int:
    """``"S"``, ``"H"``, ``"D"``, ``"C"`` or ``"NT"`` to a trump suit (``NO_TRUMP`` = -1)."""
    key = str(text).strip().upper()
    if key in ("NT", "NOTRUMP", "NO-TRUMP"):
        return NO_TRUMP
    if len(key) == 1 and key in SUIT_LETTERS:
        return SUIT_LETTERS.index(key)
    raise SimsuiteError(f"unknown trump {text!r}: write S, H, D, C or NT (no-trump)")


def format_trump(trump: int) -> str:
    return "NT" if trump == NO_TRUMP else SUIT_LETTERS[trump]


@dataclass(frozen=True)
class HandOrder:
    """Order of the cards in one hand. Build with ``hand_order``."""

    variant: Variant
    level: int
    trump: int
    cls: np.ndarray = field(repr=False)
    pos: np.ndarray = field(repr=False)
    # card ids of each class, strongest first; ties (equal positions) in card-id order
    members: tuple[tuple[int, ...], ...] = field(repr=False)

    def is_trump(self, card: int) -> bool:
        return self.cls[card] == TRUMP

    def class_of_cards(self, cards) -> set[int]:
        return {int(self.cls[c]) for c in cards}

    def class_name(self, c: int) -> str:
        return CLASS_NAMES[c]

    def beats_card(self, a: int, b: int) -> bool:
        """Single card ``a`` played after ``b`` beats it (trump over side; higher position)."""
        if self.cls[a] == self.cls[b]:
            return self.pos[a] > self.pos[b]
        return self.cls[a] == TRUMP


def hand_order(variant: Variant, level: int, trump: int) -> HandOrder:
    """Compute the class and position of every card for one hand."""
    if trump != NO_TRUMP and not 0 <= trump < N_SUITS:
        raise SimsuiteError(f"bad trump suit {trump}")
    perm = [r for r in variant.permanent_trump_ranks if r != level]
    cls = np.zeros(N_CARDS, dtype=np.int8)
    pos = np.zeros(N_CARDS, dtype=np.int16)

    # Trump groups from the top: (cards of equal strength, link to the group above).
    groups: list[tuple[list[int], bool]] = []
    groups.append(([BIG_JOKER], True))
    groups.append(([SMALL_JOKER], variant.link_jokers))
    if trump != NO_TRUMP:
        groups.append(([make_card(trump, level)], variant.link_small_joker_level))
        off_level = [make_card(s, level) for s in range(N_SUITS) if s != trump]
        groups.append((off_level, variant.link_level_off_level))
    else:
        groups.append(([make_card(s, level) for s in range(N_SUITS)], variant.link_small_joker_level))
    for r in sorted(perm, reverse=True):
        if trump != NO_TRUMP:
            groups.append(([make_card(trump, r)], variant.link_permanent))
            groups.append(([make_card(s, r) for s in range(N_SUITS) if s != trump], variant.link_permanent))
        else:
            groups.append(([make_card(s, r) for s in range(N_SUITS)], variant.link_permanent))
    if trump != NO_TRUMP:
        first = True
        for r, linked in _suit_ranks(variant, level, perm):
            link = (variant.link_permanent if perm else variant.link_off_level_trump_ace) if first else linked
            groups.append(([make_card(trump, r)], link))
            first = False

    # Positions: walk from the bottom group up, +1 over a link, +2 over a break.
    p = 0
    trump_members: list[int] = []
    for i in range(len(groups) - 1, -1, -1):
        cards, _ = groups[i]
        for c in cards:
            cls[c] = TRUMP
            pos[c] = p
        if i > 0:
            p += 1 if groups[i][1] else 2
    for cards, _ in groups:
        trump_members.extend(cards)

    members: list[tuple[int, ...]] = []
    for s in range(N_SUITS):
        side: list[int] = []
        if s != trump:
            ranks = list(_suit_ranks(variant, level, perm))
            p = 0
            for j in range(len(ranks) - 1, -1, -1):
                r, linked = ranks[j]
                c = make_card(s, r)
                cls[c] = s
                pos[c] = p
                p += 1 if (j > 0 and linked) or j == 0 else 2
            side = [make_card(s, r) for r, _ in ranks]
        members.append(tuple(side))
    members.append(tuple(trump_members))
    return HandOrder(variant, level, trump, cls, pos, tuple(members))


def _suit_ranks(variant: Variant, level: int, perm: list[int]):
    """Plain ranks of a suit from A down, without the level and permanent ranks.

    Yields ``(rank, linked)`` where ``linked`` says the rank is consecutive with the one
    yielded before it (never wrapping; over a removed level rank only with gap_over_level).
    """
    prev = None
    for r in range(N_RANKS - 1, -1, -1):
        if r == level or r in perm:
            continue
        if prev is None:
            linked = True
        elif prev - r == 1:
            linked = True
        else:
            skipped = set(range(r + 1, prev))
            linked = skipped == {level} and variant.gap_over_level
        yield r, linked
        prev = r
