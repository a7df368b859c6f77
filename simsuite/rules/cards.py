"""Cards, card notation and decks.

Layout of a card id (a small int, the hot path never sees anything richer)::

    card = suit * 13 + rank        for the 52 suited cards
    suit : 0 = S (spades), 1 = H (hearts), 2 = D (diamonds), 3 = C (clubs)
    rank : 0 = "2", 1 = "3", ..., 8 = "10", 9 = "J", 10 = "Q", 11 = "K", 12 = "A"
    52   : SJ, the small joker (小王)
    53   : BJ, the big joker (大王)

A hand, a play or a deck is a *count vector*: ``numpy.int8`` array of length 54 where entry
``c`` is how many copies of card ``c`` it holds (0..decks).

Notation: space separated tokens, suit letter first: ``"H5 H5 H10 SJ BJ"``. ``T`` is accepted
for ten (``HT``); formatting always writes ``10``. ``SJ`` is the small joker, so the jack of
spades is written ``S-J`` (a ``-`` between suit and rank is accepted on any card: ``H-10``).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..errors import CardError

N_SUITS = 4
N_RANKS = 13
SMALL_JOKER = 52
BIG_JOKER = 53
N_CARDS = 54  # distinct card types
SEATS = "NESW"  # the four seats in playing order, seat 0..3; N-S is team 0, E-W team 1
TEAMS = ("NS", "EW")  # team 0 (seats 0 and 2), team 1 (seats 1 and 3)

SUIT_LETTERS = "SHDC"
SUIT_SYMBOLS = "♠♥♦♣"
RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
JOKER_NAMES = {SMALL_JOKER: "SJ", BIG_JOKER: "BJ"}

NOTATION_HELP = (
    "cards are written suit then rank, separated by spaces: suits S H D C, "
    "ranks 2-10 (T for 10), J Q K A; jokers SJ (small) and BJ (big), so the jack of spades is S-J; "
    'e.g. "H5 H5 S10 S-J SJ BJ"'
)

_RANK_BY_NAME = {name: i for i, name in enumerate(RANK_NAMES)}
_RANK_BY_NAME["T"] = 8


def card_suit(card: int) -> int:
    """Suit of a card (0..3), or -1 for a joker."""
    return card // N_RANKS if card < SMALL_JOKER else -1


def card_rank(card: int) -> int:
    """Rank index of a card (0 for "2" .. 12 for "A"), or -1 for a joker."""
    return card % N_RANKS if card < SMALL_JOKER else -1


def make_card(suit: int, rank: int) -> int:
    return suit * N_RANKS + rank


def parse_rank(text: str) -> int:
    """Rank name ("2".."10", "T", "J", "Q", "K", "A") to rank index."""
    key = str(text).strip().upper()
    if key not in _RANK_BY_NAME:
        raise CardError(f"unknown rank {text!r}: ranks are 2-10 (T for 10), J, Q, K, A")
    return _RANK_BY_NAME[key]


def format_rank(rank: int) -> str:
    return RANK_NAMES[rank]


def parse_suit(text: str) -> int:
    key = str(text).strip().upper()
    if len(key) != 1 or key not in SUIT_LETTERS:
        raise CardError(f"unknown suit {text!r}: suits are S, H, D, C")
    return SUIT_LETTERS.index(key)


def parse_card(token: str) -> int:
    """One token of notation to a card id."""
    tok = token.strip().upper()
    if tok in ("SJ", "BJ"):
        return SMALL_JOKER if tok == "SJ" else BIG_JOKER
    rank = tok[2:] if tok[1:2] == "-" else tok[1:]
    if len(tok) >= 2 and tok[0] in SUIT_LETTERS and rank in _RANK_BY_NAME:
        return make_card(SUIT_LETTERS.index(tok[0]), _RANK_BY_NAME[rank])
    raise CardError(f"bad card {token!r}: {NOTATION_HELP}")


def format_card(card: int, symbols: bool = False) -> str:
    if card in JOKER_NAMES:
        return JOKER_NAMES[card]
    if not 0 <= card < SMALL_JOKER:
        raise CardError(f"not a card id: {card!r}")
    suit = SUIT_SYMBOLS[card_suit(card)] if symbols else SUIT_LETTERS[card_suit(card)]
    if not symbols and card == make_card(0, 9):
        return "S-J"  # "SJ" is the small joker
    return suit + RANK_NAMES[card_rank(card)]


def parse_cards(text: str | Iterable[str]) -> list[int]:
    """Notation to a list of card ids, in the order written. Empty text is no cards."""
    tokens = text.split() if isinstance(text, str) else list(text)
    return [parse_card(t) for t in tokens]


def card_sort_key(card: int) -> tuple[int, int]:
    """A plain display order: jokers first, then S H D C, each from A down."""
    if card >= SMALL_JOKER:
        return (0, -card)
    return (1 + card_suit(card), -card_rank(card))


def format_cards(cards: Iterable[int] | np.ndarray, symbols: bool = False, sort: bool = True) -> str:
    """Card ids, or a count vector of length 54, to notation."""
    ids = counts_to_cards(cards) if _is_count_vector(cards) else list(cards)
    if sort:
        ids = sorted(ids, key=card_sort_key)
    return " ".join(format_card(int(c), symbols) for c in ids)


def _is_count_vector(obj) -> bool:
    return isinstance(obj, np.ndarray) and obj.shape == (N_CARDS,)


def cards_to_counts(cards: Iterable[int], decks: int | None = None, what: str = "cards") -> np.ndarray:
    """Card ids to a count vector; with ``decks``, more copies than the decks hold is an error."""
    wide = np.zeros(N_CARDS, dtype=np.int64)
    for c in cards:
        wide[c] += 1
    if decks is not None:
        counts = wide
        too_many = np.nonzero(counts > decks)[0]
        if too_many.size:
            detail = ", ".join(f"{counts[c]} x {format_card(int(c))}" for c in too_many)
            raise CardError(f"{what} hold {detail}, but {decks} deck(s) have only {decks} of each card")
    if wide.max(initial=0) > 127:
        raise CardError(f"{what} hold {int(wide.max())} copies of one card; no game has that many decks")
    return wide.astype(np.int8)


def counts_to_cards(counts: np.ndarray) -> list[int]:
    return [int(c) for c in np.repeat(np.arange(N_CARDS), counts.astype(np.int64))]


def parse_counts(text: str, decks: int | None = None, what: str = "cards") -> np.ndarray:
    """Notation straight to a count vector, checked against the deck count."""
    return cards_to_counts(parse_cards(text), decks, what)


def full_deck(decks: int) -> np.ndarray:
    """The count vector of ``decks`` complete 54-card decks."""
    return np.full(N_CARDS, decks, dtype=np.int8)


# Points: every 5 counts 5, every 10 and every K counts 10 (100 points per deck).
CARD_POINTS = np.zeros(N_CARDS, dtype=np.int64)
for _s in range(N_SUITS):
    CARD_POINTS[make_card(_s, 3)] = 5  # the 5
    CARD_POINTS[make_card(_s, 8)] = 10  # the 10
    CARD_POINTS[make_card(_s, 11)] = 10  # the K


def points_of(counts: np.ndarray) -> int:
    """Points on the cards of a count vector."""
    return int(np.dot(counts.astype(np.int64), CARD_POINTS))
