"""The text of ``simsuite calibrate``: each reference's figures beside ours, with the verdicts."""

from __future__ import annotations

from collections.abc import Sequence

from ..analysis.calibrate import BOOTSTRAP_REPS, CAPPED_MATCHES
from .text import table


def fmt(kind: str, x: float | None) -> str:
    """A calibration figure as text: a share as a percentage, anything else with one decimal."""
    if x is None:
        return "n/a"
    return f"{100 * x:.1f}%" if kind == "share" else f"{x:.1f}"


def format_results(results: Sequence[dict]) -> str:
    """A block per ``calibrate.run`` result (what was played, then a figure a row), and the key."""
    blocks = []
    for r in results:
        head = (
            f"{r['reference']}: {r['title']}\n"
            f"  source: {r['source'].get('repository')} {r['source'].get('path')}\n"
            f"  rules: {r['rules']['id']} (extends {r['rules']['extends']}, rules hash {r['rules']['rules_hash']})\n"
            f"  {cap_line(r)}\n"
            f"  ours: {r['policy']} at all four seats, seed {r['seed']}: {r['matches']:,} matches, "
            f"{r['hands_played']:,} hands; counted: {r['matches_counted']:,} matches, {r['hands_counted']:,} hands"
            + (" (each match's final hold left out, as the reference counts)" if r["skip_final_hold"] else "")
        )
        rows = []
        for f in r["figures"]:
            o = f["ours"]
            k = f["kind"]
            rows.append(
                [
                    f["measure"],
                    fmt(k, f["reference"]),
                    f"{fmt(k, f['band'][0])} to {fmt(k, f['band'][1])}",
                    f"{fmt(k, o['value'])} [{fmt(k, o['low'])}, {fmt(k, o['high'])}]",
                    f"{o['n']:,} {o['n_unit']}",
                    f"{o['hands']:,}",
                    f["verdict"],
                ]
            )
        blocks.append(
            head
            + "\n"
            + table(
                ["figure", "reference", "tolerance", "ours [95% interval]", "n (resampled)", "hands", "verdict"], rows
            )
        )
    foot = (
        "\nverdict: inside = our whole 95% interval lies in the tolerance; outside = none of it does; "
        "undecided = it crosses an edge (play more hands). Intervals: percentile bootstrap over matches "
        f"({BOOTSTRAP_REPS:,} resamples; a normal interval for hands_per_match); "
        "n = the matches an interval resamples; "
        "hands = the hands a figure averages over (for hands_per_match, the hands of those matches)."
    )
    return "\n\n".join(blocks) + "\n" + foot


def cap_line(r: dict) -> str:
    """Which hand cap was played, whose it is, and how a match it stopped is counted."""
    whose = (
        "the reference's [population] max_hands"
        if r["max_hands_from"] == "reference"
        else "the harness's cap; the reference states none"
    )
    return (
        f"cap: {r['max_hands']:,} hands a match ({whose}); {r['matches_capped']:,} of {r['matches']:,} matches "
        f"reached it, {CAPPED_MATCHES[r['capped_matches']]}"
        + (", as the reference counts them" if r["max_hands_from"] == "reference" else "")
    )


__all__ = ["format_results", "cap_line", "fmt"]
