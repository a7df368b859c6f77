"""The text of ``simsuite compare-policies``: two policies' figures side by side, their paired differences."""

from __future__ import annotations

from collections.abc import Sequence

from .text import table


def fmt(kind: str, e: dict, diff: bool = False) -> str:
    """An estimate ``{"value", "low", "high"}`` as ``value [low, high]``: a share as a percentage
    (a difference of shares in percentage points, signed), anything else with two decimals."""
    if e is None or e["value"] is None:
        return "n/a"

    def one(x):
        if x is None:
            return "n/a"
        if kind == "share":
            return f"{100 * x:+.1f}" if diff else f"{100 * x:.1f}%"
        return f"{x:+.2f}" if diff else f"{x:.2f}"

    unit = " pp" if kind == "share" and diff else ""
    return f"{one(e['value'])}{unit} [{one(e['low'])}, {one(e['high'])}]"


def target_text(fig: dict, b: str) -> str:
    """A figure's target, its bound and verdict; empty for a figure without one."""
    t = fig["target"]
    if t is None:
        return ""
    if t["on"] == "difference":
        return f"within ±{100 * t['bound']:.0f} pp: {t['verdict']}"
    return f"within ±{100 * t['bound']:.0f}% of {b}'s: {t['verdict']}"


def format_results(results: Sequence[dict]) -> str:
    """A table per ``compare.run`` result (a figure a row: A, B, A minus B, the target), and the key."""
    blocks = []
    for r in results:
        a, b = r["a"], r["b"]
        rows = []
        for fig in r["figures"].values():
            k = fig["kind"]
            diff = fmt(k, fig["difference"], diff=True)
            if fig["relative_difference"] is not None:
                rel = fig["relative_difference"]
                pct = {x: (None if rel[x] is None else 100 * rel[x]) for x in ("value", "low", "high")}
                diff += (
                    f"\n= {pct['value']:+.1f}% [{pct['low']:+.1f}, {pct['high']:+.1f}]"
                    if None not in pct.values()
                    else "\n= n/a"
                )
            rows.append([fig["label"], fmt(k, fig["a"]), fmt(k, fig["b"]), diff, target_text(fig, b)])
        head = (
            f"{r['variant']}: {a} minus {b}, each at all four seats on the same {r['hands']:,} deals "
            f"(seed {r['seed']}, paired hand by hand); n = {r['hands']:,} hands each; 95% intervals"
        )
        blocks.append(head + "\n" + table(["figure", a, b, f"{a} minus {b}", "agreement target"], rows, max_width=40))
    foot = (
        "\ntarget: inside = the whole interval of the difference lies within the bound; outside = all of it "
        "lies beyond; undecided = it crosses the bound (play more hands). Shares: Wilson intervals; means and "
        "paired differences: normal intervals over hands; the relative difference in defender points: "
        "delta method."
    )
    return "\n\n".join(blocks) + "\n" + foot


__all__ = ["format_results", "target_text", "fmt"]
