"""Written positions for policy tests: every card not placed is played, so the seat to move knows
exactly what is unseen."""

from __future__ import annotations

from simsuite.engine.core import NC
from simsuite.rules.cards import format_cards, parse_cards
from simsuite.rules.scenario import parse_scenario


def position(
    extra: dict,
    hands: dict,
    plays: list[str] | None,
    leader: str | None,
    to_move: str,
    unseen: str,
    bottom_hidden: str,
    decks: int = 2,
    variant: str = "two-deck-2011",
):
    """A position of ``variant`` (level 2, spades trump, NS declaring, N dealing unless ``extra``
    says otherwise): every card not in ``hands``, the trick, ``unseen`` or the bottom is played."""
    full = [c for c in range(NC) for _ in range(decks)]
    used = []
    for text in list(hands.values()) + (plays or []) + [unseen, bottom_hidden]:
        used += parse_cards(text)
    rest = list(full)
    for c in used:
        rest.remove(c)
    raw = {
        "variant": variant,
        "level": "2",
        "trump": "S",
        "declarers": "NS",
        "dealer": "N",
        "to_move": to_move,
        "played": format_cards(rest),
        "hands": hands,
        **extra,
    }
    if plays:
        raw["trick"] = {"leader": leader, "plays": plays}
    return parse_scenario(raw, "<position>")
