"""What a run shows, in words: the headline that ``simsuite report`` (HTML) and ``simsuite summary``
(terminal text) open with, and the names of the groups it speaks of.

``headline(rows, by, words, pairs)`` says, for three groups at most, per group how long a match lasts
(hands and minutes), how far a hand moves the levels (mean |level change|) and how often the stronger
side wins (the first declarers, where both teams play one policy); for more groups, which group is
longest and shortest, swings most and least, and where the stronger side wins most and least often,
and whether those extremes' intervals overlap. Every figure comes with its 95% interval and n. It
returns plain-text pieces; two callables let a page escape the text taken from the run (``esc``) and
mark the groups' names (``strong``), while the terminal takes the text as it is.

``group_words(manifest, groups, by)`` names each group as the report does: a sweep cell by the settings
that tell it apart ("bottom 10, capture ×2"), any other group by its id.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from .page import num, setting_words

PER_GROUP = 3  # up to this many groups the headline speaks of each; above, of the extremes

# --- numbers in words ------------------------------------------------------------------------------


def _has(d: dict | None) -> bool:
    return bool(d) and d.get("value") is not None


def _est(d: dict | None, share: bool = False) -> str:
    """An estimate and its 95% interval as text: "12.3 [11.2, 13.4]", a share as "66% [55%, 75%]"."""
    if not _has(d):
        return "n/a"
    if share:
        f = lambda x: f"{x * 100:.0f}%"  # noqa: E731
    else:
        f = num
    if d.get("low") is None or d.get("high") is None:
        return f"{f(d['value'])} (no interval)"
    return f"{f(d['value'])} [{f(d['low'])}, {f(d['high'])}]"


def _ns(ests: Sequence[dict | None]) -> list[int]:
    return [int(d["n"]) for d in ests if _has(d)]


def _n_caption(ns: Sequence[int], unit: str, by: str) -> str:
    """The n of a plot: "n = 40 deals per cell", or its range where the groups differ."""
    if not ns:
        return f"n = 0 {unit}"
    lo, hi = min(ns), max(ns)
    return f"n = {lo:,} {unit} per {by}" if lo == hi else f"n = {lo:,}–{hi:,} {unit} per {by}"


def _overlap(a: dict | None, b: dict | None) -> bool:
    return (
        _has(a)
        and _has(b)
        and None not in (a.get("low"), a.get("high"), b.get("low"), b.get("high"))
        and a["low"] <= b["high"]
        and b["low"] <= a["high"]
    )


def _stronger(row: dict, pair: tuple[str, str] | None) -> tuple[dict, dict, str]:
    """(stronger policy's win share, weaker policy's win share, "X over Y"): the stronger is the
    one with the larger win share over all matches of the pair (draws counted as neither);
    ``pair``: the group's policies (A, B), from ``metrics.policy_pairs``."""
    a_d, b_d = row["policy_a_win"], row["policy_b_win"]
    a, b = pair if pair else ("policy A", "policy B")
    if b_d.get("value") is None or a_d["value"] >= b_d["value"]:
        return a_d, b_d, f"{a} over {b}"
    return b_d, a_d, f"{b} over {a}"


def _side(row: dict, pair) -> tuple[dict | None, str]:
    """The stronger side's win share (draws count as not won) and "expert over basic"; (None, "") when
    both teams play one policy."""
    if not pair or not _has(row.get("policy_a_win")):
        return None, ""
    strong, _, who = _stronger(row, pair)
    return strong, who


# --- the groups in words ---------------------------------------------------------------------------


def _varying(cells: list[dict]) -> list[str]:
    """The override fields whose values differ between the cells, in the order the cells name them."""
    keys: list[str] = []
    for c in cells:
        keys += [k for k in (c.get("overrides") or {}) if k not in keys]
    sentinel = object()
    return [k for k in keys if len({repr((c.get("overrides") or {}).get(k, sentinel)) for c in cells}) > 1]


def _cell_settings(manifest: dict, groups: Sequence[str], by: str) -> dict[str, dict]:
    """Per group, the settings that tell it apart (the varying overrides of a sweep's cells); {} by variant."""
    if by != "cell":
        return {g: {} for g in groups}
    cells = [c for c in manifest.get("cells") or [] if str(c.get("id")) in set(groups)]
    fields = _varying(cells)
    got = {
        str(c.get("id")): {k: v for k in fields if (v := (c.get("overrides") or {}).get(k)) is not None} for c in cells
    }
    return {g: got.get(g, {}) for g in groups}


def group_words(manifest: dict, groups: Sequence[str], by: str) -> dict[str, str]:
    """Each group's name in words: a sweep cell's varying settings ("step 30, take-over 120"), else its id."""
    settings = _cell_settings(manifest, groups, by)
    return {g: setting_words(settings[g]) if settings[g] else g for g in groups}


# --- the headline ----------------------------------------------------------------------------------


def _same(s: str) -> str:
    return s


@dataclass(frozen=True)
class Headline:
    """The headline's pieces: one item per group (``per_group``, three groups at most), else sentences
    to be read in order."""

    per_group: bool
    pieces: list[str]


def headline(
    rows: list[dict],
    by: str,
    words: Mapping[str, str],
    pairs: Sequence[tuple[str, str] | None],
    esc: Callable[[str], str] = _same,
    strong: Callable[[str], str] = _same,
) -> Headline:
    """What the run shows, in words: per group (three at most) its length, swing and the stronger side's
    share; for more groups, which is longest and shortest, most and least swingy, fairest and least fair.

    ``rows``: ``metrics.summarise``'s, grouped ``by``; ``words``: a group's name in words (``group_words``);
    ``pairs``: per row, its policy pair (``metrics.policy_pairs``; None where both teams play one policy).
    ``esc`` is applied to the text taken from the run (names, policies), ``strong`` to a group's escaped name.
    """
    groups = [str(r[by]) for r in rows]
    name = {g: strong(esc(words.get(g) or g)) for g in groups}
    if len(rows) <= PER_GROUP:
        items = []
        for g, row, pair in zip(groups, rows, pairs):
            side, who = _side(row, pair)
            ns = sorted(set(_ns([row.get("hands_per_match"), row.get("level_change_mean"), side])))
            won = (
                f"the stronger side ({esc(who)}) wins {_est(side, True)} of matches"
                if side is not None
                else f"both teams play one policy; the team that declared first wins "
                f"{_est(row.get('first_declarer_win'), True)} of decided matches"
            )
            items.append(
                f"{name[g]}: a match lasts {_est(row.get('hands_per_match'))} hands and "
                f"{_est(row.get('minutes_per_match'))} minutes; a hand moves the levels by "
                f"{_est(row.get('level_change_mean'))} on average; {won} "
                f"(n = {', '.join(f'{n:,}' for n in ns) or '0'} deals)."
            )
        return Headline(True, items)

    def extremes(key: str, pick=None) -> tuple | None:
        found = [(g, pick(row, pair) if pick else row.get(key)) for g, row, pair in zip(groups, rows, pairs)]
        found = [(g, d) for g, d in found if _has(d)]
        if len(found) < 2:
            return None
        hi = max(found, key=lambda t: t[1]["value"])
        lo = min(found, key=lambda t: t[1]["value"])
        return hi, lo

    def said(t, what_hi: str, what_lo: str, share: bool = False) -> str:
        (g_hi, d_hi), (g_lo, d_lo) = t
        tail = (
            "; their intervals overlap, so at this n the difference is not clear"
            if _overlap(d_hi, d_lo)
            else "; their intervals do not overlap"
        )
        return (
            f"{what_hi} under {name[g_hi]} ({_est(d_hi, share)}), {what_lo} under "
            f"{name[g_lo]} ({_est(d_lo, share)}){tail}."
        )

    ns = _ns([r.get("hands_per_match") for r in rows])
    parts = [f"{len(rows)} {by}s, {_n_caption(ns, 'deals', by)}."]
    t = extremes("minutes_per_match") or extremes("hands_per_match")
    if t:
        unit = "minutes" if extremes("minutes_per_match") else "hands"
        parts.append(said(t, f"Matches are longest, in {unit},", "shortest"))
    t = extremes("level_change_mean")
    if t:
        parts.append(said(t, "A hand swings most (mean |level change|)", "least"))
    t = extremes("side", lambda row, pair: _side(row, pair)[0])
    if t:
        parts.append(said(t, "The stronger side wins most often", "least often", share=True))
    else:
        t = extremes("first_declarer_win")
        if t:
            parts.append(said(t, "The first declarers win most often", "least often", share=True))
    return Headline(False, parts)


__all__ = ["Headline", "PER_GROUP", "group_words", "headline"]
