"""The text of ``simsuite summary``: the answer first, in words (``report.headline``, as the HTML report
opens), wrapped to 100 columns; then the metrics of a run, groups side by side."""

from __future__ import annotations

import math
import re
import shlex
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..analysis.metrics import METRICS
from .headline import headline
from .text import table

MISSING = {"value": None, "low": None, "high": None, "n": 0, "note": "missing"}  # a metric a row lacks
NOTICE_CELLS = 6  # cells named in the incomplete-run notice; the rest are counted
HEADLINE_WIDTH = 100  # the headline's lines, at most
NBSP = "\xa0"  # holds a figure and its interval on one line while the headline is wrapped
# a figure and its interval ("7.000 [6.812, 7.188]"), or an n ("n = 12 deals"), kept whole on a line
UNBROKEN = re.compile(r"\S+ \[[^\]\n]*\]|\bn = [\d,–]+(?: deals)?")


def incomplete_notice(manifest: dict, run: str | Path | None = None) -> str | None:
    """One line, the first that ``summary``, ``report`` and ``exact`` print for a run not played in
    full: matches done of planned, in all and per cell, and how to finish it (or who is playing it
    now); None for a complete run."""
    from ..sim.results import LOCK, lock_state, progress_of, read_lock

    p = progress_of(manifest)
    if p["done"] >= p["planned"]:
        return None
    cells = [f"cell {c['id']}: {c['done']:,}/{c['planned']:,}" for c in p["cells"][:NOTICE_CELLS]]
    if len(p["cells"]) > NOTICE_CELLS:
        cells.append(f"{len(p['cells']) - NOTICE_CELLS:,} more cells")
    head = (
        f"incomplete run: {p['done']:,} of {p['planned']:,} matches played ({', '.join(cells)}); "
        "the figures cover those only"
    )
    holder = read_lock(Path(run) / LOCK) if run is not None else None
    if holder is not None and lock_state(holder) == "alive":
        return head + f"; it is being played now (pid {holder.get('pid')} on {holder.get('host')})"
    if p["command"]:
        return head + f"; resume with: {shlex.join(p['command'])}"
    return head + "; run the command that made it again to finish it"


def checksum_note(unchecked: int, parts: int) -> str | None:
    """What was verified of the parts' bytes, where the manifest lacks some checksums; None if none lacks."""
    if not unchecked:
        return None
    return (
        f"{unchecked:,} of {parts:,} parts have no checksum recorded (a run written before checksums): their "
        "footers, tags and rows were checked, their bytes only as they decode; running the run's command again "
        "checks them in full and records their checksums"
    )


def plain_num(x: float | None) -> str:
    """A figure as terminal text: three significant places or so; ``n/a`` for none."""
    if x is None:
        return "n/a"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    ax = abs(x)
    return f"{x:.1f}" if ax >= 100 else f"{x:.2f}" if ax >= 10 else f"{x:.3f}"


def format_cell(d: dict) -> str:
    """``value [low, high] n=N``; ``n/a`` for a metric that does not apply."""
    if d.get("value") is None:
        return "n/a"
    if d.get("low") is None and d.get("high") is None:
        return f"{plain_num(d['value'])} n={d['n']:,}"
    return f"{plain_num(d['value'])} [{plain_num(d['low'])}, {plain_num(d['high'])}] n={d['n']:,}"


def _by(rows: list[dict]) -> str:
    return "cell" if "cell" in rows[0] else "variant"


def format_headline(
    rows: list[dict],
    pairs: Sequence[tuple[str, str] | None],
    words: Mapping[str, str] | None = None,
    width: int = HEADLINE_WIDTH,
) -> str:
    """What the run shows, in words, as the HTML report's headline says it (``headline.headline``): a
    paragraph per group (three at most), else per sentence on the extremes, each wrapped to ``width``
    columns with its following lines indented; a figure stays on one line with its interval.

    ``pairs``: per row, its policy pair (``metrics.policy_pairs``; None where both teams play one policy);
    ``words``: a group's name in words (``headline.group_words``; default: its id)."""
    if not rows:
        return ""
    h = headline(rows, _by(rows), words or {}, pairs)
    wrap = textwrap.TextWrapper(width=width, subsequent_indent="  ", break_on_hyphens=False)
    return "\n".join(
        wrap.fill(UNBROKEN.sub(lambda m: m.group(0).replace(" ", NBSP), piece)).replace(NBSP, " ") for piece in h.pieces
    )


def format_summary(
    rows: list[dict],
    pairs: Sequence[tuple[str, str] | None] | None = None,
    words: Mapping[str, str] | None = None,
) -> str:
    """A text table of ``metrics.summarise`` rows: metrics down, groups across (value [95%
    interval] n), then the notes. Given ``pairs`` (per row, its policy pair; see ``format_headline``),
    the headline in words comes first, then a blank line, then the table."""
    if not rows:
        return "no results"
    if pairs is not None:
        return format_headline(rows, pairs, words) + "\n\n" + format_summary(rows)
    by = _by(rows)
    header = ["metric"] + [str(r[by]) for r in rows]
    body: list[list[str]] = []
    if by == "cell":
        body.append(["variant"] + [str(r.get("variant", "")) for r in rows])
    body.append(["matches (tables)"] + [f"{r['n_matches']:,}" for r in rows])
    body.append(["deals (units)"] + [f"{r.get('n_deals', r['n_matches']):,}" for r in rows])
    body.append(["draws"] + [f"{r.get('n_draws', 0):,}" for r in rows])
    body.append(["hands"] + [f"{r['n_hands']:,}" for r in rows])
    section = None
    notes: list[str] = [f"{r[by]}: {r['note']}" for r in rows if r.get("note")]
    for spec in METRICS:
        if spec.section != section:
            section = spec.section
            body.append([f"[{section}]"] + [""] * len(rows))
        found = [r.get(spec.key) or dict(MISSING) for r in rows]
        body.append([spec.label] + [format_cell(d) for d in found])
        said = [d.get("note") for d in found]
        if len(rows) > 1 and all(said) and len(set(said)) == 1:
            notes.append(f"{spec.label}: {said[0]}")  # the same for every group: say it once
        else:
            notes += [f"{spec.label} ({r[by]}): {n}" for r, n in zip(rows, said) if n]
    text = table(header, body, max_width=60)
    text += (
        "\n\n95% intervals; n = deals (both tables of a duplicate deal are one unit): Wilson for match shares "
        "(at the design-effect sample size when a deal has two tables), cluster-robust normal for per-match means, "
        "percentile bootstrap over deals for per-hand figures, BCa bootstrap over deals for N*."
    )
    if notes:
        text += "\nNotes:\n" + "\n".join(f"  {n}" for n in notes)
    return text


__all__ = ["format_summary", "format_headline", "format_cell", "plain_num", "incomplete_notice", "checksum_note"]
