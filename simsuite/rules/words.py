"""Rule settings in an organiser's words: ``{"bottom_size": 6, "capture_per_card": 3}`` reads
"bottom 6, capture ×3". One table serves every page and command that names a setting (``simsuite
compare``'s rows, the report's groups, the design page's recommendation); a field it does not list
reads ``key=value``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


def _minutes(v: Any, none: str, some: str) -> str:
    return none if str(v) == "0" else some.format(v=v)


# a rule field and how its value is said: a format with {v}, or a function of the value
FIELD_WORDS: dict[str, str | Callable[[Any], str]] = {
    "decks": "{v} decks",
    "bottom_size": "bottom {v}",
    "capture_per_card": "capture ×{v}",
    "capture_side_per_card": "side-suit capture ×{v}",
    "capture_base": "capture base {v}",
    "capture_scheme": "the {v} capture scheme",
    "capture_by": "capture by {v}",
    "capture_with": "capture with {v}",
    "takeover": "take-over {v}",
    "step": "step {v}",
    "takeover_bonus": "a take-over bonus of {v} level(s)",
    "throws": lambda v: "throws" if str(v).lower() == "true" else "no throws",
    "match_minutes": lambda v: _minutes(v, "no match clock", "a {v}-minute clock"),
    "warning_minute": lambda v: _minutes(v, "no warning", "a warning at minute {v}"),
    "hands_after_warning": "{v} hand(s) after the warning",
    "no_new_hand_minutes": lambda v: _minutes(v, "new hands until the end", "no new hand in the last {v} minutes"),
    "hand_overhead_minutes": "{v} minutes of overhead a hand",
    "tie_rule": "ties: {v}",
    "policies": lambda v: " vs ".join(str(v).replace("/", ",").split(",")),
    "variant": "{v}",
}


def field_words(key: str, value: Any) -> str:
    """One field and its value in words (``bottom 6``); ``key=value`` for a field the table lacks."""
    w = FIELD_WORDS.get(key)
    if w is None:
        return f"{key}={value}"
    return w(value) if callable(w) else w.format(v=value)


def setting_words(params: Mapping[str, Any]) -> str:
    """Rule settings in words, in the order given: ``{"step": 60, "match_minutes": 240}`` reads
    "step 60, a 240-minute clock"."""
    return ", ".join(field_words(k, v) for k, v in params.items())


def cell_words(cell: str) -> str:
    """A sweep cell's id (``bottom_size=6,capture_per_card=3``) in words (``bottom 6, capture ×3``); an id
    that is not ``key=value`` pairs (a variant's) as it is."""
    pairs = [p.partition("=") for p in cell.split(",")]
    if not all(sep for _, sep, _ in pairs):
        return cell
    return ", ".join(field_words(k, v) for k, _, v in pairs)


__all__ = ["FIELD_WORDS", "cell_words", "field_words", "setting_words"]
