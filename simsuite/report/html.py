"""One self-contained HTML report of a results folder, for organisers who do not use Jupyter.

``build_report(results, out)`` loads a run (``simsuite.sim.results.load``), summarises it with
``simsuite.analysis.metrics.summarise`` and writes a single HTML file: a header saying what was run,
the summary tables (every figure with its 95% interval and n) and the key plots, each a PNG
drawn by matplotlib's Agg canvas and embedded as base64. The file needs no network: inline CSS,
no fonts, no external scripts (one inline script only marks images the browser decoded, for
the headless-browser test). Every string taken from the run is escaped. The figures come from
``simsuite.analysis`` (``metrics``, ``distributions``); this module only lays them out, with the
page machinery of ``report.page``. ``docs/report.md`` describes what it shows.
"""

from __future__ import annotations

import datetime as _dt
import math
import shlex
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

from ..analysis.distributions import CHANGE_MAX, level_change_shares
from ..analysis.metrics import METRICS, policy_pairs, summarise
from ..errors import SimsuiteError
from .page import CSS, SCRIPT, check_writable, esc, figure_html, figure_png, new_figure, num, write_page
from .summary_text import checksum_note, incomplete_notice

BY_CHOICES = ("variant", "cell")
WIDTH_IN = 11.0
MANY_GROUPS = 6  # above this, the level-change distribution is drawn as small multiples


# --- numbers -------------------------------------------------------------------------------------


def _has(d: dict | None) -> bool:
    return bool(d) and d.get("value") is not None


def _finite(x: float | None) -> bool:
    return x is not None and not math.isnan(x) and not math.isinf(x)


# --- figures -------------------------------------------------------------------------------------


def _colours(k: int) -> list:
    from matplotlib import colormaps

    cmap = colormaps["tab10" if k <= 10 else "tab20"]
    return [cmap(i % cmap.N) for i in range(k)]


def _short(label: str, width: int = 38) -> str:
    return label if len(label) <= width else label[: width - 1] + "…"


def _wrap(text: str, ax, fontsize: float, rows: float = 0.0) -> str:
    """``text`` broken into lines that fit the width of ``ax`` (as gridspec first places it, less a fifth
    for the tick labels the layout adds) at about 0.55 em a character; with ``rows``, no more lines than
    fit the height of one of that many rows, the last cut short with an ellipsis."""
    import textwrap

    pos = ax.get_position()
    width_in = pos.width * ax.figure.get_figwidth() * 0.8
    lines = textwrap.wrap(text, max(12, int(width_in * 72 / (0.55 * fontsize))))
    if rows:
        room = max(1, int(pos.height * ax.figure.get_figheight() / rows * 72 / (1.25 * fontsize)))
        if len(lines) > room:
            lines = lines[:room]
            lines[-1] = lines[-1][:-1] + "…"
    return "\n".join(lines)


def _hbar(
    ax,
    labels: Sequence[str],
    ests: Sequence[dict | None],
    xlabel: str,
    title: str,
    *,
    ref: float | None = None,
    lims: tuple[float, float] | None = None,
    na_text: str = "n/a",
) -> None:
    """Horizontal bars, one per group (first group on top), with 95% error bars and value labels."""
    y = np.arange(len(labels))[::-1]
    colours = _colours(len(labels))
    values = [d["value"] if _has(d) else None for d in ests]
    highs = [d["high"] for d in ests if _has(d) and _finite(d.get("high"))]
    top = max([v for v in values if v is not None and _finite(v)] + highs + [0.0])
    lo_lim, hi_lim = lims if lims else (0.0, top * 1.45 if top > 0 else 1.0)
    notes = [
        f"{na_text}" + (f" ({d['note']})" if d and d.get("note") and na_text == "n/a" else "")
        for d in ests
        if not _has(d)
    ]
    # a group without a figure gets its note inside the panel: wrapped to the panel's width and left out of
    # the layout (a line wider than the panel collapsed the constrained layout); one note for the whole
    # panel where no group has a figure and all say the same
    one_note = len(notes) == len(ests) > 1 and len(set(notes)) == 1
    if one_note:
        ax.text(
            0.5,
            0.5,
            _wrap(notes[0], ax, fontsize=8),
            transform=ax.transAxes,
            va="center",
            ha="center",
            fontsize=8,
            color="0.35",
            in_layout=False,
            clip_on=True,
        )
    for yi, d, c in zip(y, ests, colours):
        if not _has(d):
            if not one_note:
                note = notes.pop(0)
                ax.text(
                    lo_lim + (hi_lim - lo_lim) * 0.01,
                    yi,
                    _wrap(note, ax, fontsize=8, rows=len(labels) + 0.4),
                    va="center",
                    ha="left",
                    fontsize=8,
                    color="0.35",
                    in_layout=False,
                    clip_on=True,
                )
            continue
        v = d["value"]
        ax.barh(yi, v, color=c, alpha=0.85, height=0.6)
        low, high = d.get("low"), d.get("high")
        if low is not None and high is not None:
            hi_draw = min(high, hi_lim) if math.isinf(high) else high
            ax.errorbar(
                v,
                yi,
                xerr=[[max(v - low, 0.0)], [max(hi_draw - v, 0.0)]],
                fmt="none",
                ecolor="black",
                elinewidth=1.2,
                capsize=4,
            )
            text = f"{num(v)}  [{num(low)}, {num(high)}]  n={d['n']:,}"
            xt = min(hi_draw, hi_lim)
        else:
            text = f"{num(v)}  n={d['n']:,} (no interval)"
            xt = v
        ax.text(xt + (hi_lim - lo_lim) * 0.01, yi + 0.32, text, va="center", ha="left", fontsize=7.5, color="0.15")
    if ref is not None:
        ax.axvline(ref, color="0.4", linestyle="--", linewidth=1)
    ax.set_yticks(y)
    ax.set_yticklabels([_short(s) for s in labels], fontsize=8.5)
    ax.set_ylim(-0.7, len(labels) - 0.3)
    ax.set_xlim(lo_lim, hi_lim)
    if lims and lims == (0.0, lims[1]) and 1.0 < lims[1] <= 1.5:  # a share: ticks 0..1 only, room for labels
        ax.set_xticks(np.linspace(0.0, 1.0, 6))
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", color="0.9")
    ax.set_axisbelow(True)


def _hbar_figure(labels: Sequence[str], panels: Sequence[dict]) -> str:
    """One figure of side-by-side horizontal bar panels; each panel: ests, xlabel, title, options."""
    height = 1.3 + 0.42 * len(labels)
    fig = new_figure(WIDTH_IN, max(height, 2.4))
    axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    for ax, p in zip(axes, panels):
        _hbar(
            ax,
            labels,
            p["ests"],
            p["xlabel"],
            p["title"],
            ref=p.get("ref"),
            lims=p.get("lims"),
            na_text=p.get("na_text", "n/a"),
        )
    return figure_png(fig)


def _change_figure(cats: list[str], table: dict[str, list[dict]], groups: Sequence[str]) -> str:
    colours = _colours(len(groups))
    x = np.arange(len(cats))
    # the highest bar or interval end (a share of one deal has no interval: its bar counts)
    top = max([e["high"] if e["high"] is not None else (e["value"] or 0.0) for g in groups for e in table[g]] + [0.05])
    ymax = min(1.0, top * 1.15 + 0.02)

    def draw(ax, gs, cols, legend: bool):
        width = 0.8 / len(gs)
        for j, (g, c) in enumerate(zip(gs, cols)):
            ests = table[g]
            vals = np.array([e["value"] or 0.0 for e in ests])
            lo = np.array([(e["value"] - e["low"]) if e["low"] is not None else 0.0 for e in ests])
            hi = np.array([(e["high"] - e["value"]) if e["high"] is not None else 0.0 for e in ests])
            n = ests[0]["n"]
            xs = x - 0.4 + width * (j + 0.5)
            ax.bar(xs, vals, width=width * 0.95, color=c, alpha=0.85, label=f"{_short(g, 30)} (n={n:,} deals)")
            ax.errorbar(xs, vals, yerr=[lo, hi], fmt="none", ecolor="black", elinewidth=1, capsize=3)
            if len(gs) <= 3:
                for xi, v, h in zip(xs, vals, vals + hi):
                    ax.text(xi, h + 0.008, f"{v:.1%}", ha="center", va="bottom", fontsize=7)
        ax.set_xticks(x)
        ax.set_xticklabels(cats)
        ax.set_xlabel("|level change| in one hand (levels)")
        ax.set_ylabel("share of hands")
        ax.set_ylim(0, ymax)
        ax.grid(axis="y", color="0.9")
        ax.set_axisbelow(True)
        if legend:
            ax.legend(fontsize=8, loc="upper right")

    if len(groups) <= MANY_GROUPS:
        fig = new_figure(WIDTH_IN, 4.2)
        ax = fig.subplots()
        draw(ax, list(groups), colours, True)
    else:
        cols = 4
        rows = math.ceil(len(groups) / cols)
        fig = new_figure(WIDTH_IN, 2.6 * rows + 0.4)
        axes = fig.subplots(rows, cols, sharey=True, squeeze=False).ravel()
        for i, (ax, g, c) in enumerate(zip(axes, groups, colours)):
            draw(ax, [g], [c], False)
            ax.set_title(f"{_short(g, 34)}\n(n={table[g][0]['n']:,} deals)", fontsize=8)
            ax.xaxis.label.set_size(8)
            if i % cols:
                ax.set_ylabel("")
        for ax in axes[len(groups) :]:
            ax.set_axis_off()
    return figure_png(fig)


def _stronger(row: dict, pair: tuple[str, str] | None) -> tuple[dict, dict, str]:
    """(stronger policy's win share, weaker policy's win share, "X over Y"): the stronger is the
    one with the larger win share over all matches of the pair (draws counted as neither);
    ``pair``: the group's policies (A, B), from ``metrics.policy_pairs``."""
    a_d, b_d = row["policy_a_win"], row["policy_b_win"]
    a, b = pair if pair else ("policy A", "policy B")
    if b_d.get("value") is None or a_d["value"] >= b_d["value"]:
        return a_d, b_d, f"{a} over {b}"
    return b_d, a_d, f"{b} over {a}"


# --- HTML pieces ---------------------------------------------------------------------------------


def _kv(rows: Sequence[tuple[str, str]]) -> str:
    """A two-column table; values are HTML already escaped by the caller."""
    return '<table class="kv">' + "".join(f"<tr><th>{esc(k)}</th><td>{v}</td></tr>" for k, v in rows) + "</table>"


def _metric_cell(d: dict | None) -> str:
    if not _has(d):
        note = (d or {}).get("note") or "missing"
        return f'<td class="na" title="{esc(note)}">n/a</td>'
    ci = (
        f'<span class="ci">[{esc(num(d["low"]))}, {esc(num(d["high"]))}]</span>'
        if d.get("low") is not None and d.get("high") is not None
        else '<span class="ci">no interval</span>'
    )
    return f'<td class="v">{esc(num(d["value"]))}{ci}<span class="n">n = {d["n"]:,}</span></td>'


def _metric_tables(rows: list[dict], by: str) -> str:
    groups = [str(r[by]) for r in rows]
    head = "<tr><th>metric</th>" + "".join(f"<th>{esc(g)}</th>" for g in groups) + "</tr>"
    parts = []
    counts = []
    if by == "cell":
        counts.append("<tr><th>variant</th>" + "".join(f"<td>{esc(r.get('variant', ''))}</td>" for r in rows) + "</tr>")
    for key, label in (("n_matches", "matches"), ("n_draws", "draws"), ("n_hands", "hands")):
        counts.append(
            f"<tr><th>{esc(label)}</th>" + "".join(f'<td class="v">{r.get(key, 0):,}</td>' for r in rows) + "</tr>"
        )
    parts.append(
        '<h3>Sample</h3><div class="scroll"><table class="metrics">' + head + "".join(counts) + "</table></div>"
    )
    sections: dict[str, list] = {}
    for spec in METRICS:
        sections.setdefault(spec.section, []).append(spec)
    for section, specs in sections.items():
        body, notes = [], []
        for spec in specs:
            found = [r.get(spec.key) for r in rows]
            body.append(
                f"<tr><th>{esc(spec.label)}<br><small><code>{esc(spec.key)}</code></small></th>"
                + "".join(_metric_cell(d) for d in found)
                + "</tr>"
            )
            said = [(d or {}).get("note") for d in found]
            if len(rows) > 1 and all(said) and len(set(said)) == 1:
                notes.append(f"{spec.label}: {said[0]}")
            else:
                notes += [f"{spec.label} ({g}): {n}" for g, n in zip(groups, said) if n]
        note_html = ('<ul class="notes">' + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>") if notes else ""
        parts.append(
            f'<h3>{esc(section.capitalize())}</h3><div class="scroll"><table class="metrics">{head}'
            + "".join(body)
            + f"</table></div>{note_html}"
        )
    return "\n".join(parts)


def _n_text(rows: list[dict], by: str, key: str, unit: str) -> str:
    ns = [((r.get(key) or {}).get("n") or 0) for r in rows]
    if len(set(ns)) == 1:
        return f"n = {ns[0]:,} {unit} per {by}"
    return f"n ({unit}): " + "; ".join(f"{r[by]} {n:,}" for r, n in zip(rows, ns))


# --- the header ----------------------------------------------------------------------------------


def _header(r, run_path: Path, by: str, hands: int, matches: int) -> str:
    m = r.manifest
    cmd = m.get("command")
    cmd_text = shlex.join(str(c) for c in cmd) if isinstance(cmd, list) else str(cmd or "")
    variants = m.get("variants") or []
    vt = (
        "<table><tr><th>variant</th><th>given as</th><th>rules hash</th><th>version</th></tr>"
        + "".join(
            f"<tr><td>{esc(v.get('id'))}</td><td>{esc(v.get('given'))}</td>"
            f"<td><code>{esc(v.get('rules_hash'))}</code></td><td>{esc(v.get('version'))}</td></tr>"
            for v in variants
        )
        + "</table>"
    )
    cells = m.get("cells") or []
    ct = ""
    if cells:
        ct = (
            "<table><tr><th>cell</th><th>variant</th><th>overrides</th><th>policies</th><th>matches</th>"
            "<th>decks</th><th>rules hash</th><th>version</th></tr>"
            + "".join(
                f"<tr><td>{esc(c.get('id'))}</td><td>{esc(c.get('variant'))}</td>"
                f"<td>{esc(', '.join(f'{k}={v}' for k, v in (c.get('overrides') or {}).items()) or '—')}</td>"
                f"<td>{esc(c.get('policies'))}</td><td>{esc(c.get('matches'))}</td><td>{esc(c.get('decks'))}</td>"
                f"<td><code>{esc(c.get('rules_hash'))}</code></td><td>{esc(c.get('version'))}</td></tr>"
                for c in cells
            )
            + "</table>"
        )
    chunks = m.get("chunks") or []
    done = sum(1 for c in chunks if c.get("status") == "done")
    policies = m.get("policies") or []
    pol_text = ", ".join(str(p) for p in policies) if isinstance(policies, list) else str(policies)
    now = _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat()
    kv = [
        ("run folder", f"<code>{esc(run_path)}</code>"),
        ("kind", esc(m.get("kind"))),
        ("variants", vt),
        ("cells" if len(cells) > 1 else "cell", ct),
        ("policies", esc(pol_text) + " <small>(A,B: policy A sits N-S, B E-W)</small>"),
        ("seed", esc(m.get("seed"))),
        ("duplicate", esc("yes: every match also played with the pairs swapped" if m.get("duplicate") else "no")),
        (
            "matches and hands",
            esc(f"{matches:,} matches, {hands:,} hands played (chunks done: {done} of {len(chunks)})"),
        ),
        ("grouped by", esc(by)),
        ("command", f"<code>{esc(cmd_text)}</code>"),
        (
            "run dates (UTC)",
            esc(f"started {m.get('started') or '?'}, ended {m.get('ended') or '?'}; status {m.get('status') or '?'}"),
        ),
        ("simsuite", esc(f"{m.get('package_version') or '?'} (run); report written {now}")),
    ]
    if r.unchecked:
        kv.append(("checksums", esc(checksum_note(r.unchecked, 2 * done))))
    return _kv(kv)


# --- the report ----------------------------------------------------------------------------------


def build_report(results_path: str | Path, out_path: str | Path, by: str | None = None) -> Path:
    """Write the HTML report of the run in ``results_path`` to ``out_path`` and return its path.

    ``by``: "variant" or "cell"; default cells when the run has more than one cell, else variants.
    A folder that is not a run, a run with no rows and an unwritable ``out_path`` raise
    ``SimsuiteError`` (one line).
    """
    from ..sim.results import load

    if (Path(results_path) / "design.json").is_file():  # a simsuite design run: the organisers' page
        from .design_page import build_design_page

        return build_design_page(results_path, out_path)
    if by is not None and by not in BY_CHOICES:
        raise SimsuiteError(f"--by must be one of {', '.join(BY_CHOICES)}; got {by!r}")
    out = Path(out_path)
    check_writable(out)
    run_path = Path(results_path)
    r = load(run_path)
    hands = r.hands.collect()
    matches = r.matches.collect()
    if hands.height == 0 and matches.height == 0:
        chunks = r.manifest.get("chunks") or []
        raise SimsuiteError(
            f"{run_path}: the run has no rows yet (0 of {len(chunks)} chunks done); "
            "run its command again to play them, then build the report"
        )
    if by is None:
        by = "cell" if len(r.manifest.get("cells") or []) > 1 else "variant"
    rows = summarise(hands, matches, by=by, variants=r.variants())
    if not rows:  # pragma: no cover - rows exist, so groups exist
        raise SimsuiteError(f"{run_path}: no groups to report")
    groups = [str(row[by]) for row in rows]
    pairs = policy_pairs(matches, by)
    page = _page(r, run_path.resolve(), by, rows, groups, hands, matches, [pairs.get(row[by]) for row in rows])
    write_page(out, page)
    return out


def _page(
    r,
    run_path: Path,
    by: str,
    rows: list[dict],
    groups: list[str],
    hands: pl.DataFrame,
    matches: pl.DataFrame,
    pairs: list[tuple[str, str] | None],
) -> str:
    name = r.manifest.get("run") or run_path.name
    figs: list[str] = []

    # game length
    png = _hbar_figure(
        groups,
        [
            {
                "ests": [row["hands_per_match"] for row in rows],
                "xlabel": "hands per match (hands)",
                "title": "Hands per match (mean)",
            },
            {
                "ests": [row["minutes_per_match"] for row in rows],
                "xlabel": "minutes per match (modelled minutes)",
                "title": "Minutes per match (mean)",
            },
        ],
    )
    figs.append(
        figure_html(
            "Game length by " + by,
            png,
            "Mean hands and modelled minutes per match (docs/clock.md), with 95% cluster-robust normal "
            "intervals over deals (both tables of a duplicate deal are one unit) as error bars; "
            f"{_n_text(rows, by, 'hands_per_match', 'deals')}.",
        )
    )

    # level change distribution
    cats, table = level_change_shares(hands, by, groups, matches)
    png = _change_figure(cats, table, groups)
    nh = "; ".join(f"{g} {table[g][0]['n']:,}" for g in groups)
    figs.append(
        figure_html(
            "Level change per hand",
            png,
            "Share of hands by the levels the gaining team went up (|levels_ns + levels_ew|; "
            f"{CHANGE_MAX}+ pools {CHANGE_MAX} and more), with 95% percentile bootstrap intervals that "
            "resample whole deals (hands of a match are correlated, and both tables of a duplicate deal "
            f"share its cards) as error bars. n (deals): {nh}.",
        )
    )

    # take-over and hold
    png = _hbar_figure(
        groups,
        [
            {
                "ests": [row["takeover_rate"] for row in rows],
                "xlabel": "share of hands",
                "title": "Take-over rate",
                "lims": (0.0, 1.25),
            },
            {
                "ests": [row["declarer_hold"] for row in rows],
                "xlabel": "share of hands",
                "title": "Declarers hold",
                "lims": (0.0, 1.25),
            },
        ],
    )
    figs.append(
        figure_html(
            "Take-over rate and declarer hold rate",
            png,
            "Share of hands in which the defenders reached the take-over threshold, and its complement; "
            "95% bootstrap intervals resampling whole deals as error bars; "
            f"{_n_text(rows, by, 'takeover_rate', 'deals')}.",
        )
    )

    # clock share
    png = _hbar_figure(
        groups,
        [
            {
                "ests": [row["clock_share"] for row in rows],
                "xlabel": "share of timed matches",
                "title": "Matches ended by the clock",
                "lims": (0.0, 1.25),
                "na_text": "untimed: no match clock",
            },
        ],
    )
    figs.append(
        figure_html(
            "Share of matches ended by the clock",
            png,
            "Among timed matches (match_minutes > 0), the share whose end was decided by the clock rather "
            "than a team passing the end level; 95% Wilson intervals over deals (design-effect adjusted "
            "when a deal has two tables); every clock figure rests on the duration model (docs/clock.md: "
            "its band at 0.25 / 0.4 / 0.6 of each time limit); "
            f"{_n_text(rows, by, 'clock_share', 'timed deals')}.",
        )
    )

    # fairness: first declarer and seat balance
    png = _hbar_figure(
        groups,
        [
            {
                "ests": [row["first_declarer_win"] for row in rows],
                "xlabel": "share of decided matches",
                "title": "First declarers win the match",
                "ref": 0.5,
                "lims": (0.0, 1.5),
            },
            {
                "ests": [row["ns_win"] for row in rows],
                "xlabel": "share of decided matches",
                "title": "Team N-S wins",
                "ref": 0.5,
                "lims": (0.0, 1.5),
            },
            {
                "ests": [row["seat_balance"] for row in rows],
                "xlabel": "balance 1-|2p-1| (1 = even)",
                "title": "Seat balance",
                "lims": (0.0, 1.5),
            },
        ],
    )
    figs.append(
        figure_html(
            "First-declarer advantage and seat balance",
            png,
            "Share of decided matches won by the team that declared first, and by team N-S (dashed line: "
            "1/2, no advantage), with 95% intervals over deals; seat balance is 1 - |2p - 1| of the N-S share "
            "p with its bounds mapped through (it reads a seat effect only when both teams play the "
            "same policy or the run is duplicate); draws excluded; "
            f"{_n_text(rows, by, 'ns_win', 'deals with a decided match')}.",
        )
    )

    # the stronger policy: three-way outcome, draws shown
    pol = [row["policy_a_win"] for row in rows]
    if any(_has(d) for d in pol):
        strong, draw, weak, labels = [], [], [], []
        for g, row, pair in zip(groups, rows, pairs):
            d = row["policy_a_win"]
            if _has(d):
                e, w, who = _stronger(row, pair)
                strong.append(e)
                draw.append(row["pair_draw"])
                weak.append(w)
                labels.append(f"{g}: {who}")
            else:
                strong.append(d)
                draw.append(d)
                weak.append(d)
                labels.append(g)
        png = _hbar_figure(
            labels,
            [
                {
                    "ests": strong,
                    "xlabel": "share of all matches",
                    "title": "Stronger policy wins",
                    "ref": 0.5,
                    "lims": (0.0, 1.3),
                },
                {"ests": draw, "xlabel": "share of all matches", "title": "Draw", "lims": (0.0, 1.3)},
                {"ests": weak, "xlabel": "share of all matches", "title": "Weaker policy wins", "lims": (0.0, 1.3)},
            ],
        )
        figs.append(
            figure_html(
                "The stronger policy's win rate",
                png,
                "Where the two teams play different policies, the three outcomes of their matches: the "
                "stronger policy (the one ahead on net in that group, named after the group) wins, the "
                "match is drawn, the weaker policy wins; the three shares add to 1. 95% intervals over "
                "deals; dashed line: 1/2. N* in the fairness table (from the net outcome, draws counted) "
                "says how many matches it takes for that skill gap to outweigh luck; "
                f"{_n_text(rows, by, 'policy_a_win', 'deals')}.",
            )
        )
        policy_note = ""
    else:
        policy_note = (
            "<p>Both teams play the same policy in every group, so there is no stronger policy to measure.</p>"
        )

    total_h, total_m = hands.height, matches.height
    notice = incomplete_notice(r.manifest, run_path)
    notice_html = f'<p class="warn" id="incomplete">{esc(notice)}</p>\n' if notice else ""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>simsuite report: {esc(name)}</title>
<style>{CSS}</style>
</head>
<body>
<main>
{notice_html}<h1>simsuite report: {esc(name)}</h1>
<p class="sub">Tractor (Shengji) rule variants: game length, swing and fairness, by {esc(by)}. Every figure is given with its
95% interval and the sample size n it rests on.</p>
<h2>What was run</h2>
{_header(r, run_path, by, total_h, total_m)}
<h2>Summary tables</h2>
<p class="notes">Each cell: the estimate, its 95% interval in brackets and n. The independent unit is the deal: both
tables of a duplicate deal are one unit, and in an equal-policy duplicate run the second table (a copy) is counted once.
Intervals: Wilson for shares of matches over deals (at the design-effect effective sample size when a deal has two
tables), a percentile bootstrap over deals (2,000 resamples) for anything computed over hands and for N*,
cluster-robust normal for per-match means. n counts deals. Definitions:
docs/metrics.md in the simsuite repository.</p>
{_metric_tables(rows, by)}
<h2>Plots</h2>
{"".join(figs)}
{policy_note}
<footer>Written by <code>simsuite report</code> from <code>{esc(run_path)}</code>. Self-contained: no network access is
needed to view this file.</footer>
</main>
<script>{SCRIPT}</script>
</body>
</html>
"""


__all__ = ["build_report", "BY_CHOICES"]
