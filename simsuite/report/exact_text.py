"""Plain-text and markdown output of the exact match model: its figures per cell, the level check, the validation table."""

from __future__ import annotations

from collections.abc import Sequence

from ..analysis.exact import FIGURES, MIN_REPS, VALIDATION_ALPHA
from .text import table


def _fmt(d: dict | None, pct: bool = False) -> str:
    """An estimate: its value, 95% interval and n (as a percentage with ``pct``); "n/a" without a value."""
    if not d or d.get("value") is None:
        return "n/a"
    k, u = (100.0, "%") if pct else (1.0, "")
    if d.get("low") is None:
        return f"{d['value'] * k:.2f}{u} n={d['n']:,}"
    return f"{d['value'] * k:.2f}{u} [{d['low'] * k:.2f}, {d['high'] * k:.2f}] n={d['n']:,}"


_PCT = {"p_a", "p_draw", "p_b", "clock_share", "decisive_share"}


def format_exact(rows: list[dict]) -> str:
    """``exact_results``' rows as a text table of the figures per cell, with the notes under it."""
    if not rows:
        return "no cells"
    header = ["figure"] + [r["cell"] for r in rows]
    body = [
        ["team A / team B"] + [f"{r['a']} / {r['b']}" for r in rows],
        ["deals (units), hands"] + [f"{r['n_deals']:,}, {r['n_hands']:,}" for r in rows],
    ]
    for key, label in FIGURES:
        body.append([label] + [_fmt(r["figures"][key], key in _PCT) for r in rows])
    text = table(header, body, max_width=60)
    reps = rows[0]["reps"]
    notes = [
        f"Exact solution of the match chain (docs/metrics.md); 95% intervals: percentile bootstrap over deals "
        f"({reps:,} resamples of the per-hand distributions), n = deals."
    ]
    if 0 < reps < MIN_REPS:
        notes.append(
            f"ROUGH INTERVALS: {reps:,} resamples, fewer than {MIN_REPS:,}; their 95% coverage is not assured."
        )
    for r in rows:
        notes += [f"{r['cell']}: assumed: {a}." for a in r.get("assumptions", [])]
        c = r.get("level_check")
        if c:
            notes.append(f"{r['cell']}: " + format_level_check(c))
    if rows[0]["rescored"]:
        notes.append(
            "Re-scored with "
            + ", ".join(f"{k}={v}" for k, v in rows[0]["rescored"].items())
            + ": an approximation (hands as the policies played them under the run's rules; a policy that "
            "adapts to the bands or the clock would play differently)."
        )
    left = max(r["unresolved"] for r in rows)
    if left > 1e-9:
        notes.append(f"Unresolved probability mass (matches still running at the cap): {left:.2e}.")
    return text + "\n\n" + "\n".join(notes)


def format_level_check(c: dict) -> str:
    """One line: the level-independence check (``level_check``) and what the chain did with it."""
    parts = []
    for team, t in c["teams"].items():
        if "net_levels" not in t:
            parts.append(f"team {team}: {t['note']} ({t['hands_point']:,} hands at {'/'.join(c['levels'])})")
            continue
        nl, dp = t["net_levels"], t["deal_passes"]
        parts.append(
            f"team {team} ({t['hands_point']:,} hands there, {t['hands_other']:,} at other levels): "
            f"net levels {nl['value']:+.3f} [{nl['low']:+.3f}, {nl['high']:+.3f}] (Holm p {nl['p_holm']:.3f}), "
            f"deal passes {dp['value']:+.3f} [{dp['low']:+.3f}, {dp['high']:+.3f}] (Holm p {dp['p_holm']:.3f}), "
            f"n={nl['n']:,} deals"
        )
    verdict = (
        "they differ: those levels have their own tables"
        if c["separate"]
        else "no difference found at 5%: all plain levels pooled"
    )
    return (
        f"levels {'/'.join(c['levels'])} against the other plain levels, difference (there - elsewhere), "
        f"bootstrap over deals ({c['reps']:,} resamples): " + "; ".join(parts) + f"; {verdict}."
    )


_VALIDATION_NAMES = {
    "p_a": "A wins",
    "p_draw": "draw",
    "p_b": "B wins",
    "hands_mean": "hands",
    "minutes_mean": "minutes",
    "clock_share": "ended by clock",
    "lead_changes": "lead changes",
}


def validation_table(rows: Sequence[dict], reps: int) -> str:
    """``validation_rows``' rows as a markdown table: per cell and figure the two estimates, the difference
    with its margin and TOST's p; "yes" where the two are shown equivalent at 5%; ``reps``: the exact
    model's bootstrap resamples, said under it."""
    out = [
        "| cell | figure | exact model | simulated | difference | margin | TOST p | equivalent |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        pct = r["figure"] in _PCT
        k = 100.0 if pct else 1.0
        if "p_tost" in r:
            tail = (
                f"{r['diff'] * k:+.2f} | ±{r['margin'] * k:.2f} | {r['p_tost']:.3f} | "
                f"{'yes' if r['equivalent'] else '**not shown**'}"
            )
        else:
            tail = " | | | no interval"
        out.append(
            f"| {r['cell']} | {_VALIDATION_NAMES[r['figure']]} | {_fmt(r['exact'], pct)} | "
            f"{_fmt(r['simulated'], pct)} | {tail} |"
        )
    out.append("")
    out.append(
        f"Margins fixed in advance (analysis.exact.VALIDATION_MARGINS): outcome shares and the clock share "
        f"±4 points, hands and minutes ±2% of the simulated value, lead changes ±0.1; TOST at "
        f"{VALIDATION_ALPHA:.0%}; exact intervals from {reps:,} bootstrap resamples."
    )
    return "\n".join(out)
