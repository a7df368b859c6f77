"""One self-contained HTML report of a results folder, for organisers who do not use Jupyter.

``build_report(results, out)`` loads a run (``simsuite.sim.results.load``), summarises it with
``simsuite.analysis.metrics.summarise`` and writes a single HTML file that leads with the answer: a
headline in words (each group's length, swing and the stronger side's share, or for many groups the
extremes), with every figure's 95% interval and n; then the Length, Swing and Fairness sections, a table
and a plot each (heatmaps where a sweep varies two fields); then a sweep's comparison table against its
baseline when one is given (``comparison_section``); then how a match unfolds, the level difference hand by
hand as fan charts (``analysis.lead_history``, ``plots.lead_history_figure``); last, what was run. The plots
are PNGs drawn by matplotlib's Agg canvas and embedded as base64. The file needs no network: inline CSS, no fonts, no
external scripts (one inline script only marks images the browser decoded, for the headless-browser
test). Every string taken from the run is escaped. The figures come from ``simsuite.analysis``
(``metrics``, ``distributions``); this module only words and lays them out, with the page machinery of
``report.page`` and the headline's words of ``report.headline`` (which ``simsuite summary`` opens with too). ``docs/report.md`` describes what it shows.
"""

from __future__ import annotations

import datetime as _dt
import math
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from ..analysis.distributions import CHANGE_MAX, level_change_shares
from ..analysis.lead_history import lead_history
from ..analysis.metrics import METRICS, policy_pairs, summarise
from ..errors import SimsuiteError
from .headline import _cell_settings, _has, _n_caption, _ns, _side, _stronger, _varying, group_words, headline
from .page import (
    CSS,
    SCRIPT,
    check_writable,
    esc,
    figure_html,
    figure_png,
    new_figure,
    num,
    setting_words,
    write_page,
)
from .summary_text import checksum_note, incomplete_notice

BY_CHOICES = ("variant", "cell")
WIDTH_IN = 11.0
MANY_GROUPS = 6  # above this, the level-change distribution is drawn as small multiples


# --- numbers -------------------------------------------------------------------------------------


def _finite(x: float | None) -> bool:
    return x is not None and not math.isnan(x) and not math.isinf(x)


# --- figures -------------------------------------------------------------------------------------


def _colours(k: int) -> list:
    """``k`` colours that do not repeat: tab10's up to ten, else viridis sampled at ``k`` points."""
    from matplotlib import colormaps

    if k <= 10:
        return [colormaps["tab10"](i) for i in range(k)]
    return list(colormaps["viridis"](np.linspace(0.0, 0.92, k)))


def _wrap_label(label: str, width: int = 26) -> str:
    """A group's label broken into lines of about ``width`` characters, at its commas where it has them."""
    import textwrap

    if "," in label:
        lines, line = [], ""
        for part in label.split(","):
            part = part.strip()
            if line and len(line) + len(part) + 2 > width:
                lines.append(line + ",")
                line = part
            else:
                line = f"{line}, {part}" if line else part
        lines.append(line)
        return "\n".join(lines)
    return "\n".join(textwrap.wrap(label, width)) or label


def _lines(labels: Sequence[str]) -> int:
    return max([lab.count("\n") + 1 for lab in labels] + [1])


def _hbar(
    ax,
    labels: Sequence[str],
    ests: Sequence[dict | None],
    xlabel: str,
    title: str,
    *,
    ref: float | None = None,
    lims: tuple[float, float] | None = None,
) -> None:
    """Horizontal bars, one per group (first group on top), with 95% error bars and value labels. A
    group without a figure gets no bar and no text: the caption says n/a once."""
    y = np.arange(len(labels))[::-1]
    colours = _colours(len(labels))
    values = [d["value"] if _has(d) else None for d in ests]
    highs = [d["high"] for d in ests if _has(d) and _finite(d.get("high"))]
    top = max([v for v in values if v is not None and _finite(v)] + highs + [0.0])
    lo_lim, hi_lim = lims if lims else (0.0, top * 1.6 if top > 0 else 1.0)
    for yi, d, c in zip(y, ests, colours):
        if not _has(d):
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
            text = f"{num(v)} [{num(low)}, {num(high)}] n={d['n']:,}"
            xt = min(hi_draw, hi_lim)
        else:
            text = f"{num(v)} n={d['n']:,} (no interval)"
            xt = v
        ax.text(xt + (hi_lim - lo_lim) * 0.01, yi + 0.3, text, va="center", ha="left", fontsize=7.5, color="0.15")
    if ref is not None:
        ax.axvline(ref, color="0.4", linestyle="--", linewidth=1)
    ax.set_yticks(y)
    ax.set_yticklabels(list(labels), fontsize=8.5)
    ax.set_ylim(-0.7, len(labels) - 0.3)
    ax.set_xlim(lo_lim, hi_lim)
    if lims and lims[0] == 0.0 and 1.0 < lims[1] <= 1.6:  # a share: ticks 0..1 only, room for labels
        ax.set_xticks(np.linspace(0.0, 1.0, 6))
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", color="0.9")
    ax.set_axisbelow(True)


def _hbar_figure(labels: Sequence[str], panels: Sequence[dict]) -> str:
    """One figure of side-by-side horizontal bar panels; each panel: ests, xlabel, title, options. Its
    height follows the groups and the lines of their labels, so that no label is cut."""
    lines = _lines(labels)
    height = 1.4 + len(labels) * max(0.42, 0.17 * lines + 0.12)
    fig = new_figure(WIDTH_IN, max(height, 2.4))
    axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    for ax, p in zip(axes, panels):
        _hbar(ax, labels, p["ests"], p["xlabel"], p["title"], ref=p.get("ref"), lims=p.get("lims"))
    return figure_png(fig)


def _heatmap_figure(grid: Grid, panels: Sequence[dict]) -> str:
    """Side-by-side heatmaps of a two-field grid: one panel per figure, each cell coloured by its estimate
    and labelled with it and its 95% interval; a combination not in the run is left white."""
    ny, nx = len(grid.y_values), len(grid.x_values)
    # side by side while each cell keeps about an inch for its interval's text; else one above the other
    cols = len(panels) if len(panels) * nx <= 8 else 1
    rows = math.ceil(len(panels) / cols)
    width = min(WIDTH_IN, 1.6 + cols * (1.2 + 1.05 * nx))
    fig = new_figure(max(width, 5.0), rows * (1.5 + 0.62 * ny) + 0.3)
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax, p in zip(axes, panels):
        share = p.get("share", False)
        k = 100.0 if share else 1.0
        z = np.full((ny, nx), np.nan)
        text = [["" for _ in range(nx)] for _ in range(ny)]
        for g, d in zip(grid.groups, p["ests"]):
            if g not in grid.where or not _has(d):
                continue
            i, j = grid.where[g]
            z[i, j] = d["value"] * k
            u = "%" if share else ""
            ci = f"\n[{num(d['low'] * k)}, {num(d['high'] * k)}]" if d.get("low") is not None else ""
            text[i][j] = f"{num(d['value'] * k)}{u}{ci}"
        cmap = p.get("cmap", "viridis")
        im = ax.imshow(np.ma.masked_invalid(z), cmap=cmap, aspect="auto", origin="lower")
        lo, hi = np.nanmin(z) if np.isfinite(z).any() else 0.0, np.nanmax(z) if np.isfinite(z).any() else 1.0
        for i in range(ny):
            for j in range(nx):
                if text[i][j]:
                    frac = 0.5 if hi == lo else (z[i, j] - lo) / (hi - lo)
                    ax.text(
                        j,
                        i,
                        text[i][j],
                        ha="center",
                        va="center",
                        fontsize=7.5,
                        color="black" if frac > 0.55 else "white",
                    )
        ax.set_xticks(np.arange(nx), [str(v) for v in grid.x_values])
        ax.set_yticks(np.arange(ny), [str(v) for v in grid.y_values])
        ax.set_xlabel(axis_words(grid.x_field))
        ax.set_ylabel(axis_words(grid.y_field))
        ax.set_title(p["title"], fontsize=10)
        bar = fig.colorbar(im, ax=ax, shrink=0.9)
        bar.set_label(p["unit"], fontsize=8)
    return figure_png(fig)


def _change_figure(cats: list[str], table: dict[str, list[dict]], groups: Sequence[str], labels: Sequence[str]) -> str:
    """The level-change distribution as grouped bars (at most ``MANY_GROUPS`` groups, one legend)."""
    colours = _colours(len(groups))
    x = np.arange(len(cats))
    # the highest bar or interval end (a share of one deal has no interval: its bar counts)
    top = max([e["high"] if e["high"] is not None else (e["value"] or 0.0) for g in groups for e in table[g]] + [0.05])
    fig = new_figure(WIDTH_IN, 4.2 + 0.15 * _lines(labels) * len(groups) / 2)
    ax = fig.subplots()
    width = 0.8 / len(groups)
    for j, (g, lab, c) in enumerate(zip(groups, labels, colours)):
        ests = table[g]
        vals = np.array([e["value"] or 0.0 for e in ests])
        lo = np.array([(e["value"] - e["low"]) if e["low"] is not None else 0.0 for e in ests])
        hi = np.array([(e["high"] - e["value"]) if e["high"] is not None else 0.0 for e in ests])
        xs = x - 0.4 + width * (j + 0.5)
        ax.bar(xs, vals, width=width * 0.95, color=c, alpha=0.85, label=f"{lab} (n={ests[0]['n']:,} deals)")
        ax.errorbar(xs, vals, yerr=[lo, hi], fmt="none", ecolor="black", elinewidth=1, capsize=3)
        if len(groups) <= 3:
            for xi, v, h in zip(xs, vals, vals + hi):
                ax.text(xi, h + 0.008, f"{v:.1%}", ha="center", va="bottom", fontsize=7)
    ax.set_xticks(x)
    ax.set_xticklabels(cats)
    ax.set_xlabel("|level change| in one hand (levels)")
    ax.set_ylabel("share of hands")
    ax.set_ylim(0, min(1.0, top * 1.15 + 0.02))
    ax.grid(axis="y", color="0.9")
    ax.set_axisbelow(True)
    fig.legend(fontsize=8, loc="outside right upper")
    return figure_png(fig)


# --- groups: labels, words and the grid ---------------------------------------------------------


AXIS_WORDS = {
    "step": "step (points per level)",
    "takeover": "take-over threshold (points)",
    "bottom_size": "bottom (cards)",
    "decks": "decks",
    "match_minutes": "match clock (minutes)",
    "warning_minute": "warning (minute)",
    "no_new_hand_minutes": "no new hand in the last (minutes)",
    "capture_per_card": "capture per card",
}


def axis_words(field: str) -> str:
    """A rule field as an axis label: ``AXIS_WORDS``'s, else the field's name."""
    return AXIS_WORDS.get(field, field)


@dataclass(frozen=True)
class Grid:
    """A sweep whose cells vary exactly two fields: the cells laid out as rows (y) and columns (x)."""

    x_field: str
    x_values: tuple
    y_field: str
    y_values: tuple
    groups: tuple[str, ...]
    where: dict[str, tuple[int, int]]  # cell id -> (row, column)


def _sorted(values) -> tuple:
    try:
        return tuple(sorted(set(values)))
    except TypeError:
        return tuple(sorted(set(values), key=str))


def _grid(manifest: dict, groups: Sequence[str], by: str) -> Grid | None:
    """The two-field grid of a sweep's cells, or None (another shape, or grouped by variant)."""
    if by != "cell" or len(groups) < 4:
        return None
    cells = [c for c in manifest.get("cells") or [] if str(c.get("id")) in set(groups)]
    fields = _varying(cells)
    if len(cells) != len(groups) or len(fields) != 2 or len({c.get("variant") for c in cells}) != 1:
        return None
    if any(set(fields) - set(c.get("overrides") or {}) for c in cells):
        return None
    vals = [_sorted(c["overrides"][f] for c in cells) for f in fields]
    yi, xi = (0, 1) if len(vals[1]) >= len(vals[0]) else (1, 0)
    where = {
        str(c["id"]): (vals[yi].index(c["overrides"][fields[yi]]), vals[xi].index(c["overrides"][fields[xi]]))
        for c in cells
    }
    if len(set(where.values())) != len(cells):
        return None
    return Grid(fields[xi], vals[xi], fields[yi], vals[yi], tuple(groups), where)


def _headline(rows: list[dict], by: str, words: dict[str, str], pairs: list) -> str:
    """What the run shows, in words (``headline.headline``): a list of the groups, or a paragraph of the
    extremes; the groups' names in bold."""
    h = headline(rows, by, words, pairs, esc=esc, strong=lambda s: f"<strong>{s}</strong>")
    if h.per_group:
        return '<ul class="headline" id="headline">' + "".join(f"<li>{p}</li>" for p in h.pieces) + "</ul>"
    return '<p class="headline" id="headline">' + " ".join(h.pieces) + "</p>"


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


def _head(rows: list[dict], by: str, labels: Sequence[str]) -> str:
    return f"<tr><th>{esc(by)}</th>" + "".join(f"<th>{esc(lab)}</th>" for lab in labels) + "</tr>"


def _sample_table(rows: list[dict], by: str, labels: Sequence[str]) -> str:
    counts = []
    if by == "cell":
        counts.append("<tr><th>variant</th>" + "".join(f"<td>{esc(r.get('variant', ''))}</td>" for r in rows) + "</tr>")
    for key, label in (("n_matches", "matches"), ("n_draws", "draws"), ("n_hands", "hands")):
        counts.append(
            f"<tr><th>{esc(label)}</th>" + "".join(f'<td class="v">{r.get(key, 0):,}</td>' for r in rows) + "</tr>"
        )
    return '<div class="scroll"><table class="metrics">' + _head(rows, by, labels) + "".join(counts) + "</table></div>"


def _section_table(rows: list[dict], by: str, labels: Sequence[str], section: str) -> str:
    """The table of one section of ``METRICS``: a row per metric, a column per group, each cell the
    estimate, its 95% interval and n; the notes of its n/a cells listed under it."""
    groups = [str(r[by]) for r in rows]
    body, notes = [], []
    for spec in (m for m in METRICS if m.section == section):
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
    return (
        f'<div class="scroll"><table class="metrics">{_head(rows, by, labels)}'
        + "".join(body)
        + f"</table></div>{note_html}"
    )


def _section(key: str, title: str, lead: str, table: str, figure: str) -> str:
    return f'<section id="{key}">\n<h2>{esc(title)}</h2>\n<p class="notes">{lead}</p>\n{table}\n{figure}\n</section>\n'


def _comparison(manifest: dict, run_path: Path) -> str | None:
    """A sweep compared with its baseline (``simsuite compare``), as HTML; None for another run (``simsuite
    compare`` still compares its cells) or a sweep whose baseline has no match played yet."""
    if manifest.get("kind") != "sweep" or len(manifest.get("cells") or []) < 2:
        return None
    from ..analysis.settings import compare
    from .settings_text import compare_html

    try:
        return compare_html(compare(str(run_path)))
    except SimsuiteError:
        return None


def comparison_section(table_html: str | None) -> str:
    """Section 3 of a sweep's page: the comparison table of its cells against a baseline, as HTML made by
    ``simsuite compare`` (trusted: it is placed as given), under its heading; "" when there is none."""
    if not table_html:
        return ""
    return (
        '<section id="comparison">\n<h2>Against the baseline</h2>\n'
        f'<div class="scroll">{table_html}</div>\n</section>\n'
    )


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
                f"<tr><td><code>{esc(c.get('id'))}</code></td><td>{esc(c.get('variant'))}</td>"
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


def build_report(
    results_path: str | Path, out_path: str | Path, by: str | None = None, comparison_html: str | None = None
) -> Path:
    """Write the HTML report of the run in ``results_path`` to ``out_path`` and return its path.

    ``by``: "variant" or "cell"; default cells when the run has more than one cell, else variants.
    ``comparison_html``: a sweep's comparison table against its baseline, placed as the page's third
    section; None: ``simsuite compare``'s for a sweep, nothing for another run. A folder that is not a run, a run with no rows
    and an unwritable ``out_path`` raise ``SimsuiteError`` (one line).
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
    pairs = policy_pairs(matches, by)
    if comparison_html is None:
        comparison_html = _comparison(r.manifest, run_path)
    page = _page(r, run_path.resolve(), by, rows, hands, matches, [pairs.get(row[by]) for row in rows], comparison_html)
    write_page(out, page)
    return out


def _length(rows, by, labels, grid) -> str:
    hands_e = [row["hands_per_match"] for row in rows]
    mins_e = [row["minutes_per_match"] for row in rows]
    if grid:
        png = _heatmap_figure(
            grid,
            [
                {"ests": hands_e, "title": "Hands per match (mean)", "unit": "hands"},
                {"ests": mins_e, "title": "Minutes per match (mean)", "unit": "modelled minutes"},
            ],
        )
    else:
        png = _hbar_figure(
            labels,
            [
                {"ests": hands_e, "xlabel": "hands per match (hands)", "title": "Hands per match (mean)"},
                {"ests": mins_e, "xlabel": "minutes per match (modelled minutes)", "title": "Minutes per match (mean)"},
            ],
        )
    return figure_html(
        "Game length by " + by,
        png,
        "Mean hands and modelled minutes per match (docs/clock.md), each with its 95% cluster-robust normal "
        "interval over deals (both tables of a duplicate deal are one unit)"
        + (" written in its cell" if grid else " as an error bar")
        + f"; {_n_caption(_ns(hands_e + mins_e), 'deals', by)}.",
    )


def _swing(rows, by, labels, grid, hands, matches) -> str:
    groups = [str(row[by]) for row in rows]
    mean_e = [row["level_change_mean"] for row in rows]
    big_e = [row["big_swing_share"] for row in rows]
    if grid:
        png = _heatmap_figure(
            grid,
            [
                {"ests": mean_e, "title": "Mean |level change| per hand", "unit": "levels"},
                {"ests": big_e, "title": "Hands with |change| >= 2", "unit": "share of hands (%)", "share": True},
            ],
        )
        how = "written in its cell"
        ns = _ns(mean_e + big_e)
        what = "Mean |level change| per hand, and the share of hands whose level change is 2 or more"
    elif len(groups) <= MANY_GROUPS:
        cats, table = level_change_shares(hands, by, groups, matches)
        png = _change_figure(cats, table, groups, labels)
        how = "as error bars"
        ns = [table[g][0]["n"] for g in groups if table[g][0]["n"]]
        what = (
            "Share of hands by the levels the gaining team went up (|levels_ns + levels_ew|; "
            f"{CHANGE_MAX}+ pools {CHANGE_MAX} and more)"
        )
    else:
        png = _hbar_figure(
            labels,
            [
                {"ests": mean_e, "xlabel": "levels", "title": "Mean |level change| per hand"},
                {"ests": big_e, "xlabel": "share of hands", "title": "Hands with |change| >= 2", "lims": (0.0, 1.5)},
            ],
        )
        how = "as error bars"
        ns = _ns(mean_e + big_e)
        what = "Mean |level change| per hand, and the share of hands whose level change is 2 or more"
    return figure_html(
        "Swing: level change per hand",
        png,
        f"{what}, each with its 95% percentile bootstrap interval that resamples whole deals (hands of a match "
        f"are correlated, and both tables of a duplicate deal share its cards) {how}; "
        f"{_n_caption(ns, 'deals', by)}.",
    )


def _fairness(rows, by, labels, grid, pairs) -> str:
    sides = [_side(row, pair) for row, pair in zip(rows, pairs)]
    strong = [d for d, _ in sides]
    panels, said, missing = [], [], []
    if any(_has(d) for d in strong):
        panels.append(
            {
                "ests": strong,
                "xlabel": "share of all matches",
                "title": "Stronger side wins the match",
                "unit": "share of all matches (%)",
                "ref": 0.5,
                "lims": (0.0, 1.5),
                "share": True,
            }
        )
        said.append(
            "the share of all matches won by the stronger policy (the one ahead in that group; "
            + (
                next(who for _, who in sides if who)
                if len({who for _, who in sides if who}) == 1
                else "; ".join(f"{lab}: {who}" for lab, (_, who) in zip(labels, sides) if who)
            )
            + "; a draw is not a win, the draw share is in the table)"
        )
    else:
        missing.append("the stronger side's win share (both teams play one policy)")
    for key, title, what in (
        (
            "first_declarer_win",
            "First declarers win the match",
            "the share of decided matches won by the team that declared first",
        ),
        ("ns_win", "Team N-S wins the match", "the share of decided matches won by team N-S"),
        ("seat_balance", "Seat balance 1-|2p-1|", "the seat balance 1 - |2p - 1| of the N-S share p"),
    ):
        ests = [row[key] for row in rows]
        if any(_has(d) for d in ests):
            share = key != "seat_balance"
            panels.append(
                {
                    "ests": ests,
                    "xlabel": "share of decided matches" if share else "balance (1 = even)",
                    "title": title,
                    "unit": "share of decided matches (%)" if share else "balance (1 = even)",
                    "ref": 0.5 if share else None,
                    "lims": (0.0, 1.5),
                    "share": share,
                }
            )
            said.append(what)
            gaps = [lab for lab, d in zip(labels, ests) if not _has(d)]
            if gaps:
                missing.append(f"{title.lower()} for {', '.join(gaps)}")
        else:
            note = next((d.get("note") for d in ests if d and d.get("note")), "")
            missing.append(f"{title.lower()}" + (f" ({note})" if note else ""))
    if grid:
        png = _heatmap_figure(grid, panels[:2])
        shown = panels[:2]
        said = said[:2]
    else:
        png = _hbar_figure(labels, panels)
        shown = panels
    na = f" Not drawn, n/a: {'; '.join(missing)}." if missing else ""
    return figure_html(
        "Fairness: the stronger side, the first declarers and the seats",
        png,
        f"Per {by}, " + "; ".join(said) + " (dashed line: 1/2, no advantage), each with its 95% interval over "
        f"deals (Wilson; design-effect adjusted when a deal has two tables); "
        f"{_n_caption(_ns([d for p in shown for d in p['ests']]), 'deals', by)}.{na}",
    )


def _unfolds(
    manifest: dict,
    by: str,
    rows: list[dict],
    pairs: list[tuple[str, str] | None],
    labels: dict[str, str],
    hands: pl.DataFrame,
    matches: pl.DataFrame,
) -> str:
    """The "How a match unfolds" section: the lead history (``analysis.lead_history``) of every cell as a
    fan chart (``plots.lead_history_figure``), a panel per cell's rules. A pair of different policies is
    read from the stronger policy's team (the one the headline names), an equal pair from team N-S."""
    from .plots import LEAD_MANY, lead_history_figure

    lead = (
        "How the level difference between the two teams moves over the hands of a match: the typical match and "
        "how far matches spread around it."
    )
    if hands.height == 0:
        return _section("unfolds", "How a match unfolds", lead, "", '<p class="notes">No hands played yet.</p>')
    # the stronger policy of each group (as the headline words it), for the cells of that group
    stronger = {}
    for row, pair in zip(rows, pairs):
        if pair and _has(row.get("policy_a_win")):
            strong, _, _ = _stronger(row, pair)
            stronger[str(row[by])] = pair[0] if strong is row["policy_a_win"] else pair[1]
    group_of = dict(hands.select("cell", by).unique().rows()) if by != "cell" else {}
    # the cells in the page's order: by their group's place, then as the manifest lists them
    place = {str(row[by]): i for i, row in enumerate(rows)}
    listed = {str(c.get("id")): i for i, c in enumerate(manifest.get("cells") or [])}
    cells = sorted(
        hands["cell"].unique().to_list(),
        key=lambda c: (place.get(group_of.get(c, c), len(place)), listed.get(c, len(listed)), c),
    )
    first = {c: stronger[group_of.get(c, c)] for c in cells if group_of.get(c, c) in stronger}
    try:
        history = lead_history(hands, matches=matches, first=first)
    except SimsuiteError as exc:
        return _section("unfolds", "How a match unfolds", lead, "", f'<p class="notes">Not drawn: {esc(exc)}</p>')
    # a panel per rule set: cells that differ only in their policies share one
    spec = {str(c.get("id")): c for c in manifest.get("cells") or []}

    def rules(cell: str):
        c = spec.get(cell)
        return (c.get("variant"), repr(sorted((c.get("overrides") or {}).items()))) if c else (cell, "")

    panel = {c: rules(c) for c in cells}
    if len(set(panel.values())) == len(cells):
        words = group_words(manifest, cells, "cell")
        titles = {c: labels.get(c) or words.get(c, c) for c in cells}
    else:
        reps = list({panel[c]: c for c in reversed(cells)}.values())[::-1]
        settings = _cell_settings(manifest, reps, "cell")
        named = {panel[c]: setting_words(settings[c]) if settings[c] else panel[c][0] for c in reps}
        titles = {c: named[panel[c]] for c in cells}
    pairings = history.select("cell", "policy_a", "policy_b", "n").unique()
    mixed = pairings.filter(pl.col("policy_a") != pl.col("policy_b"))
    if mixed.height:
        ylabel = "level difference, stronger pair minus the other"
        if mixed.height < pairings.height:
            ylabel += "\n(equal pair: N-S minus E-W)"
        how = "the stronger policy's team minus the other's, followed through swapped tables"
        if mixed.height < pairings.height:
            how += "; an equal pair: team N-S minus team E-W"
    else:
        ylabel, how = "level difference, N-S minus E-W", "team N-S minus team E-W"
    fig = lead_history_figure(history, titles, ylabel=ylabel, width=WIDTH_IN)
    per = "cell and pairing" if pairings.height > len(cells) else "cell"
    strip = (
        ", and the strip under each panel is the share still playing" if len(set(titles.values())) <= LEAD_MANY else ""
    )
    caption = (
        f"The level difference after each hand ({how}): the line is the median match, the dark band the middle "
        "half of the matches and the light band nine in ten; the bands show how matches spread, they are not 95% "
        f"intervals; a match that has ended keeps its final difference{strip}; "
        f"{_n_caption(pairings['n'].to_list(), 'matches', per)}."
    )
    return _section(
        "unfolds",
        "How a match unfolds",
        lead,
        "",
        figure_html("Level difference over a match", figure_png(fig), caption),
    )


def _page(
    r,
    run_path: Path,
    by: str,
    rows: list[dict],
    hands: pl.DataFrame,
    matches: pl.DataFrame,
    pairs: list[tuple[str, str] | None],
    comparison_html: str | None = None,
) -> str:
    name = r.manifest.get("run") or run_path.name
    groups = [str(row[by]) for row in rows]
    settings = _cell_settings(r.manifest, groups, by)
    words = group_words(r.manifest, groups, by)
    # tables and plots name each group in words ("bottom 10, capture ×2"); What was run keeps the cell ids
    labels = [_wrap_label(words[g]) for g in groups]
    heads = [words[g] if settings[g] else g.replace(",", ", ") for g in groups]
    key = ""
    if len(groups) > MANY_GROUPS and _lines(labels) > 2:  # labels too long for a plot: numbered, with a key
        labels = heads = [f"#{i}" for i in range(1, len(groups) + 1)]
        key = (
            f'<p class="notes">The {by}s by number, as the tables and plots below name them:</p>'
            '<ol class="points" id="key">' + "".join(f"<li>{esc(words[g])}</li>" for g in groups) + "</ol>"
        )
    grid = _grid(r.manifest, groups, by)
    intervals = "Each table cell: the estimate, its 95% interval in brackets and n (deals, the independent unit). "
    body = (
        _section(
            "length",
            "Length",
            intervals + "How long a match lasts, in hands and in modelled minutes, and how often the clock ends it.",
            _section_table(rows, by, heads, "game length"),
            _length(rows, by, labels, grid),
        )
        + _section(
            "swing",
            "Swing",
            intervals + "How far one hand moves the levels, and how often the lead changes hands.",
            _section_table(rows, by, heads, "swing"),
            _swing(rows, by, labels, grid, hands, matches),
        )
        + _section(
            "fairness",
            "Fairness",
            intervals + "Whether the stronger side wins, and whether declaring first or the seats give an edge. "
            "N* says how many matches it takes for the skill gap to outweigh luck.",
            _section_table(rows, by, heads, "fairness"),
            _fairness(rows, by, labels, grid, pairs),
        )
        + comparison_section(comparison_html)
        + _unfolds(r.manifest, by, rows, pairs, dict(zip(groups, labels)), hands, matches)
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
<section id="answer">
<h2>What the run shows</h2>
{_headline(rows, by, words, pairs)}
<p class="notes">Tractor (Shengji) rule variants by {esc(by)}: figures are estimates with their 95% intervals in brackets;
n counts deals. Length, swing and fairness follow, each with its table and its plot; what was run closes the page.</p>
{key}
</section>
{body}<section id="provenance">
<h2>What was run</h2>
{_header(r, run_path, by, total_h, total_m)}
<h3>Sample</h3>
{_sample_table(rows, by, heads)}
{_row_notes(rows, by, words)}
<p class="notes">The independent unit is the deal: both tables of a duplicate deal are one unit, and in an
equal-policy duplicate run the second table (a copy) is counted once. Intervals: Wilson for shares of matches over deals
(at the design-effect effective sample size when a deal has two tables), a percentile bootstrap over deals (2,000
resamples) for anything computed over hands and for N*, cluster-robust normal for per-match means. n counts deals.
Definitions: docs/metrics.md in the simsuite repository.</p>
</section>
<footer>Written by <code>simsuite report</code> from <code>{esc(run_path)}</code>. Self-contained: no network access is
needed to view this file.</footer>
</main>
<script>{SCRIPT}</script>
</body>
</html>
"""


def _row_notes(rows: list[dict], by: str, words: dict) -> str:
    """What the summary says of a group's sample (an equal-policy duplicate run's copies dropped, ...)."""
    said = [(words.get(row[by], row[by]), row["note"]) for row in rows if row.get("note")]
    if not said:
        return ""
    return "<ul>" + "".join(f"<li>{esc(g)}: {esc(n)}</li>" for g, n in said) + "</ul>"


__all__ = ["build_report", "comparison_section", "BY_CHOICES"]
