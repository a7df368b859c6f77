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

# The words of the exact model's output, here once (docs/design.md and docs/metrics.md use them alike).
# "exact": solved without sampling matches, every path of the chain weighted by its probability; exact
# given the per-hand outcome distributions, which are estimated from the run's hands (hence the
# intervals) and assumed to depend only on the first hand, the declaring team and the level group.
# "exact re-scoring": the clock and the duration model (``RESCORABLE``), which change no play, so the
# run's hands are the hands the new rules would have seen: nothing is approximated beyond the model.
# "approximate re-scoring": the bands (``--approximate``), which change play: the hands and their
# points are taken as they fell under the run's bands.
MODEL = "model"
SAMPLE = "sample"
MODEL_WORDS = (
    "model: the match chain solved exactly (every path weighted by its probability, no matches sampled) "
    "from the per-hand outcome distributions of the run's hands; 95% intervals: percentile bootstrap over "
    "deals ({reps:,} resamples of the per-hand distributions), n = deals"
)
SAMPLE_WORDS = (
    "sample: the run's matches as played, the figures `simsuite summary` prints (Wilson intervals for "
    "shares, cluster-robust normal for means), n = deals"
)
GAP_WORDS = (
    "The two estimate the same figures and differ by the sample's luck (each match is one draw; the "
    "model averages over every path, so its intervals are narrower) and by the model's assumption that a "
    "hand falls alike whatever came before but the first hand, the declaring team and the level group; "
    'docs/metrics.md ("Validation on the five tournaments") measures that gap on fresh seeds.'
)
EXACT_WHY = (
    "no policy looks at the clock or the duration model, so the run's hands are the hands these rules "
    "would have seen; the figures are the model's under the new rules, with nothing approximated beyond "
    "the model itself"
)
APPROXIMATE_WHY = (
    "the policies play for the bands, so under these the hands would have fallen otherwise; the run's "
    'hands are kept and their points taken as they fell (docs/metrics.md, "Re-scoring error", measures '
    "the error against simulation)"
)
EXACT_RESCORING = f"exact re-scoring: {EXACT_WHY}"
APPROXIMATE_RESCORING = f"approximate re-scoring: {APPROXIMATE_WHY}"
NO_SAMPLE = "none: no match was played under the re-scored rules"
MODEL_ONLY = "Drama and the decisive share are the model's alone: a match as played does not know P(win | state)."


def _sentence(words: str) -> str:
    return words[0].upper() + words[1:] + "."


def rescoring_words(rescored: dict) -> str:
    """What a re-scoring under ``rescored`` (``--set``) is: exact for the clock and the duration model,
    approximate where it takes in a band (``--approximate``)."""
    from ..analysis.exact import RESCORABLE

    keys = ", ".join(f"{k}={v}" for k, v in rescored.items())
    bands = [k for k in rescored if k not in RESCORABLE]
    if not bands:
        return f"Re-scored with {keys}: {EXACT_RESCORING}."
    clock = [k for k in rescored if k in RESCORABLE]
    tail = f"; exact re-scoring for {', '.join(clock)}, which change no play" if clock else ""
    return f"Re-scored with {keys}: approximate re-scoring for {', '.join(bands)}: {APPROXIMATE_WHY}{tail}."


def headline(r: dict) -> str:
    """One cell's answer in words: who wins how often, in the model and in the sample, with intervals and n."""
    f = r["figures"]

    def three(figs: dict) -> str:
        return (
            f"A wins {_fmt(figs.get('p_a'), True)}, draw {_fmt(figs.get('p_draw'), True)}, "
            f"B wins {_fmt(figs.get('p_b'), True)}"
        )

    who = f"{r['cell']}, {r['a']} (A) against {r['b']} (B)"
    if r.get("rescored"):
        who += ", re-scored with " + ", ".join(f"{k}={v}" for k, v in r["rescored"].items())
    text = f"{who}: {MODEL} {three(f)}"
    smp = r.get("sample")
    if smp:
        text += f"; {SAMPLE} ({r.get('sample_matches', 0):,} matches) {three(smp)}"
    elif r.get("rescored") and "sample" in r:
        text += f"; {SAMPLE}: {NO_SAMPLE}"
    return text + "."


def format_exact(rows: list[dict]) -> str:
    """``exact_results``' rows as text: each cell's answer in words (``headline``), then a table of the
    figures, the model's beside the sample's for each cell, with the notes under it."""
    if not rows:
        return "no cells"
    import textwrap

    from .text import LEGEND_WIDTH

    samples = any(r.get("sample") for r in rows)  # a re-scored run has none: its note says so
    header, cols = ["figure"], []
    for r in rows:
        header.append(f"{r['cell']}: {MODEL}" if samples else r["cell"])
        cols.append((r, "model"))
        if samples:
            header.append(f"{r['cell']}: {SAMPLE}")
            cols.append((r, "sample"))

    def cell(r: dict, side: str, key: str) -> str:
        if side == "model":
            return _fmt(r["figures"][key], key in _PCT)
        if r.get("sample") is None:
            return NO_SAMPLE if r.get("rescored") else "n/a"
        if key not in r["sample"]:
            return "model only"
        return _fmt(r["sample"][key], key in _PCT)

    body = [
        ["team A / team B"] + [f"{r['a']} / {r['b']}" for r, _ in cols],
        ["deals (units), hands or matches" if samples else "deals (units), hands"]
        + [
            f"{r['n_deals']:,} deals, {r['n_hands']:,} hands"
            if side == "model"
            else (f"{r['n_deals']:,} deals, {r.get('sample_matches', 0):,} matches" if r.get("sample") else "")
            for r, side in cols
        ],
    ]
    for key, label in FIGURES:
        body.append([label] + [cell(r, side, key) for r, side in cols])
    text = table(header, body, max_width=60 if not samples else 36)
    reps = rows[0]["reps"]
    opening = "\n".join(textwrap.fill(headline(r), LEGEND_WIDTH, subsequent_indent="  ") for r in rows)
    notes = [_sentence(MODEL_WORDS.format(reps=reps))]
    if samples:
        notes += [_sentence(SAMPLE_WORDS), GAP_WORDS, MODEL_ONLY]
    elif rows[0].get("rescored") and "sample" in rows[0]:
        notes.append(
            f"Sample: {NO_SAMPLE} (the run's matches were played under its own rules; "
            "`simsuite exact RUN --validate SIM_RUN --set ...` compares the model with matches simulated under them)."
        )
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
        notes.append(rescoring_words(rows[0]["rescored"]))
    left = max(r["unresolved"] for r in rows)
    if left > 1e-9:
        notes.append(f"Unresolved probability mass (matches still running at the cap): {left:.2e}.")
    return opening + "\n\n" + text + "\n\n" + "\n".join(notes)


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
