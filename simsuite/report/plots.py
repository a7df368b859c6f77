"""The notebooks' figures: points and lines with 95% intervals, the duration-model band, the pairings side by side."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd
import polars as pl

from simsuite.analysis.notebooks.claims import Conclusion
from simsuite.analysis.notebooks.pairings import Pairings, pairing_label
from simsuite.analysis.notebooks.summaries import band_range, differences

PAIRING_COLORS = {"basic": "C0", "expert": "C3", "learned": "C1", "search": "C2"}


def errorbar(ax, x, df: pd.DataFrame, key: str, scale: float = 1.0, cap: float | None = None, **kw):
    """Points with their 95% intervals as error bars. ``cap`` clips an unbounded upper end
    (N*), drawn as an arrow-less bar to the edge."""
    v = df[key].to_numpy(float) * scale
    lo = df[key + "_lo"].to_numpy(float) * scale
    hi = df[key + "_hi"].to_numpy(float) * scale
    if cap is not None:
        hi = np.minimum(hi, cap)
        v = np.minimum(v, cap)
    lo = np.where(np.isnan(lo), v, lo)
    hi = np.where(np.isnan(hi), v, hi)
    kw.setdefault("fmt", "o")
    kw.setdefault("capsize", 3)
    return ax.errorbar(x, v, yerr=[np.maximum(v - lo, 0), np.maximum(hi - v, 0)], **kw)


def plain_log_ticks(ax, ticks, axis: str = "x"):
    """Plain numbers (4, 6, 10, 20) as the ticks of a log axis instead of powers of ten."""
    from matplotlib.ticker import FixedLocator, NullFormatter, ScalarFormatter

    a = ax.xaxis if axis == "x" else ax.yaxis
    a.set_major_locator(FixedLocator(ticks))
    a.set_major_formatter(ScalarFormatter())
    a.set_minor_formatter(NullFormatter())


def band(ax, x, df: pd.DataFrame, key: str, scale: float = 1.0, label: str | None = None, **kw):
    """A line with its 95% interval as a shaded band."""
    x = np.asarray(x, float)
    v = df[key].to_numpy(float) * scale
    lo = df[key + "_lo"].to_numpy(float) * scale
    hi = df[key + "_hi"].to_numpy(float) * scale
    (line,) = ax.plot(x, v, marker="o", label=label, **kw)
    ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.2, linewidth=0)
    return line


def difference_plot(
    ax, M: pl.DataFrame, baseline: str, cells: list[str], metric: str, labels: list[str], scale: float = 1.0, **kw
):
    """The paired difference from the baseline cell, per cell, with its 95% interval over deals."""
    d = differences(M, baseline, cells, metric)
    errorbar(ax, np.arange(len(cells)), d, "diff", scale=scale, **kw)
    ax.axhline(0, color="grey", lw=1, ls="--")
    ax.set_xticks(np.arange(len(cells)), labels)
    return d


def draw_band(ax, x, band: pd.DataFrame, cells: list[str], key: str, scale: float = 1.0, **kw):
    """The duration-model band (min to max over the fractions) as a thick grey bar behind the points."""
    kw.setdefault("color", "0.6")
    kw.setdefault("lw", 7)
    kw.setdefault("alpha", 0.45)
    first = True
    for xi, c in zip(x, cells):
        lo, hi = band_range(band, c, key)
        if math.isfinite(lo):
            ax.plot(
                [xi, xi],
                [lo * scale, hi * scale],
                solid_capstyle="butt",
                label="duration model 0.25-0.6 of limits" if first else None,
                **kw,
            )
            first = False


def pairings_figure(
    P: Pairings,
    cells: Mapping[str, str],
    keys: Iterable[tuple[str, str, float]],
    conclusions: Iterable[Conclusion] = (),
    title: str = "",
):
    """One figure that puts the pairings ``P`` next to each other: a panel per headline figure (``keys``:
    (key, axis label, scale)), the cells along x and the pairings side by side with 95%
    intervals; and, with ``conclusions``, a last panel with each conclusion's effect under each
    pairing in the claimed direction, scaled by the largest |effect| of them (0 = no effect;
    an interval wholly right of 0 is significant in the claimed direction)."""
    import matplotlib.pyplot as plt

    keys, conclusions = list(keys), list(conclusions)
    npan = len(keys) + (1 if conclusions else 0)
    fig, axes = plt.subplots(1, npan, figsize=(4.2 * npan, 4.4), squeeze=False)
    axes = axes[0]
    x = np.arange(len(cells))
    w = 0.66 / max(len(P.pairings), 1)  # the pairings side by side, centred on each cell
    mid = (len(P.pairings) - 1) / 2
    for ax, (key, ylabel, scale) in zip(axes, keys):
        d = P.frame(cells, key)
        for j, p in enumerate(P.pairings):
            part = d[d.pairing == p]
            errorbar(
                ax,
                x + (j - mid) * w,
                part,
                key,
                scale=scale,
                color=PAIRING_COLORS[p],
                label=f"{pairing_label(p, P.search)} (n = {P.n(p):,})",
            )
        ax.set_xticks(
            x, list(cells.values()), rotation=30 if len(cells) > 3 else 0, ha="right" if len(cells) > 3 else "center"
        )
        ax.set(ylabel=ylabel)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    if conclusions:
        ax = axes[-1]
        y = np.arange(len(conclusions))[::-1]
        for i, c in enumerate(conclusions):
            eff = {p: P.effect(p, c) for p in P.pairings}
            top = max([abs(e.value) for e in eff.values() if e.n and math.isfinite(e.value)] or [1.0]) or 1.0
            for j, p in enumerate(P.pairings):
                e = eff[p]
                if not e.n or not math.isfinite(e.value):
                    continue
                v, lo, hi = c.sign * np.array([e.value, e.low, e.high]) / top
                lo, hi = min(lo, hi), max(lo, hi)
                ax.errorbar(
                    [v],
                    [y[i] + (mid - j) * w],
                    xerr=[[max(v - lo, 0)], [max(hi - v, 0)]],
                    fmt="o",
                    color=PAIRING_COLORS[p],
                    capsize=2,
                )
        ax.axvline(0, color="grey", ls="--", lw=1)
        ax.set_yticks(y, [textwrap_short(c.text) for c in conclusions], fontsize=7)
        ax.yaxis.tick_right()
        ax.set(
            xlabel="effect in the claimed direction\n(scaled by the largest)",
            title="Conclusions under each pairing",
        )
        ax.set_xlim(-2.5, 2.5)
        ax.grid(alpha=0.3)
    fig.suptitle(title + ("; " if title else "") + f"95% intervals over deals; n = deals per cell (search: {P.search})")
    fig.tight_layout()
    return fig


def textwrap_short(text: str, width: int = 34) -> str:
    """A label wrapped at ``width`` characters, at most three lines."""
    import textwrap

    return "\n".join(textwrap.wrap(text, width)[:3])


# --- the lead history: how the level difference unfolds over a match --------------------------------

LEAD_COLORS = {True: ("C0", "C9", "C4", "C8"), False: ("C3", "C1", "C6", "C5")}  # equal pairs, different policies
LEAD_QUANTILES = ("hand", "q05", "q25", "q50", "q75", "q95")
LEAD_MANY = 6  # above this many panels the figure draws them small


def fan_chart(ax, history, color: str = "C0", label: str | None = None, alpha: float = 0.35):
    """One cell and pairing's lead history (the rows of ``analysis.lead_history.lead_history`` for one
    ``cell``, ``policy_a``, ``policy_b``; polars or pandas) as a fan over the hands played: the median
    level difference as a line, the middle half of the matches (25th to 75th percentile) as the darker band
    and nine in ten matches (5th to 95th) as the lighter one. The bands are spreads of the matches, not
    intervals of an estimate. Returns the median's line (with ``label``, for a legend)."""
    from simsuite.errors import SimsuiteError

    missing = [c for c in LEAD_QUANTILES if c not in history.columns]
    if missing:
        raise SimsuiteError(f"fan_chart: the history lacks column(s) {', '.join(missing)} (see lead_history)")
    if len(history) == 0:
        raise SimsuiteError("fan_chart: the history is empty: nothing to draw")
    for c in ("cell", "policy_a", "policy_b"):
        if c in history.columns and len(set(np.asarray(history[c]).tolist())) > 1:
            raise SimsuiteError(f"fan_chart: draws one cell and pairing; the history holds several {c} values")
    x, q05, q25, q50, q75, q95 = (np.asarray(history[c], float) for c in LEAD_QUANTILES)
    ax.fill_between(x, q05, q95, color=color, alpha=alpha * 0.45, linewidth=0)
    ax.fill_between(x, q25, q75, color=color, alpha=alpha, linewidth=0)
    (line,) = ax.plot(x, q50, color=color, lw=2.0, label=label)
    return line


def _pairing_words(a: str, b: str, n: int) -> str:
    return f"{a} vs {a}, N-S minus E-W (n = {n:,})" if a == b else f"{a} minus {b} (n = {n:,})"


def lead_history_figure(
    history: pl.DataFrame,
    titles: Mapping[str, str] | None = None,
    *,
    ylabel: str | None = None,
    width: float = 11.0,
    playing: bool = True,
    fig=None,
):
    """The lead history of a run (``analysis.lead_history.lead_history``) as one panel per cell: the fan
    of each pairing in it (``fan_chart``; an equal pair in blue, a pair of different policies in red) with a
    dashed line at an even score, and with ``playing`` a strip under it of the share of matches still
    playing at each hand (the rest carry their final difference). ``titles`` names each cell's panel (cells
    given one title share a panel; its order is the panels' order); by default a panel per cell, titled with
    its id. Each title gives the panel's matches (n), each legend entry its pairing's. ``ylabel`` defaults to
    what the differences are (a different-policy pair's "A minus B", an equal pair's "N-S minus E-W").
    More than ``LEAD_MANY`` panels are drawn small, five to a row, without the strips, the legend in the
    first panel only. ``fig``: a matplotlib Figure to draw in; by default a new one on an Agg canvas
    (``report.page.new_figure``). Returns the figure."""
    import textwrap

    from simsuite.errors import SimsuiteError

    from .page import new_figure

    if history.height == 0:
        raise SimsuiteError("lead_history_figure: the history is empty: nothing to draw")
    cells = history["cell"].unique(maintain_order=True).to_list()
    titles = dict(titles or {})
    order = list(dict.fromkeys([titles[c] for c in titles if c in cells] + [titles.get(c, c) for c in cells]))
    panels = {t: [c for c in cells if titles.get(c, c) == t] for t in order}
    pairings = history.select("cell", "policy_a", "policy_b", "n").unique(maintain_order=True)
    mixed = pairings.filter(pl.col("policy_a") != pl.col("policy_b"))
    if ylabel is None:
        kinds = list(dict.fromkeys(mixed.select("policy_a", "policy_b").rows()))
        ylabel = "level difference, " + (
            "N-S minus E-W"
            if not kinds
            else f"{kinds[0][0]} minus {kinds[0][1]}"
            if len(kinds) == 1
            else "first-named minus the other"
        )
        if kinds and mixed.height < pairings.height:
            ylabel += "\n(equal pair: N-S minus E-W)"
    k = len(panels)
    many = k > LEAD_MANY
    playing = playing and not many
    cols = 5 if many else 1 if k == 1 else 2 if k in (2, 4) else 3
    rows = math.ceil(k / cols)
    if fig is None:
        tall = 2.1 if many else 3.9 if playing else 3.1
        fig = new_figure(min(width, 4.0 + 3.6 * cols), 0.5 + tall * rows)
    grid = fig.add_gridspec(rows * (2 if playing else 1), cols, height_ratios=[4, 1] * rows if playing else None)
    first_fan = None
    for i, (title, cs) in enumerate(panels.items()):
        r, c = divmod(i, cols)
        ax = fig.add_subplot(grid[r * (2 if playing else 1), c], sharex=first_fan if many else None, sharey=first_fan)
        first_fan = first_fan or ax
        low = fig.add_subplot(grid[r * 2 + 1, c], sharex=ax) if playing else None
        total, used = 0, {True: 0, False: 0}
        mine = pairings.filter(pl.col("cell").is_in(cs)).sort(
            pl.col("policy_a") != pl.col("policy_b"), maintain_order=True
        )
        for cell, a, b, n in mine.rows():
            part = history.filter((pl.col("cell") == cell) & (pl.col("policy_a") == a) & (pl.col("policy_b") == b))
            equal = a == b
            color = LEAD_COLORS[equal][used[equal] % len(LEAD_COLORS[equal])]
            used[equal] += 1
            total += n
            fan_chart(ax, part, color=color, label=_pairing_words(a, b, n))
            if low is not None:
                low.step(part["hand"].to_numpy(), part["playing"].to_numpy(), where="mid", color=color, lw=1.4)
        ax.axhline(0, color="0.45", lw=0.9, ls="--")
        wrap = 30 if many else 60 if cols > 1 else 110
        name = "\n".join(
            textwrap.fill(line.replace(",", ", ").replace(",  ", ", "), wrap, break_long_words=False)
            for line in str(title).split("\n")
        )
        ax.set_title(f"{name} (n = {total:,} matches)", fontsize=8 if many else 9.5)
        ax.grid(color="0.92")
        ax.set_axisbelow(True)
        if i == 0 or not many:
            ax.legend(fontsize=6.5 if many else 7, loc="upper left")
        if c == 0 and not many:
            ax.set_ylabel(ylabel, fontsize=9)
        if many:
            ax.tick_params(labelsize=7)
        bottom = low if low is not None else ax
        if low is not None:
            ax.tick_params(labelbottom=False)
            low.set_ylim(0, 1.08)
            low.set_yticks([0, 0.5, 1])
            low.tick_params(labelsize=7.5)
            low.grid(color="0.92")
            low.set_axisbelow(True)
            if c == 0:
                low.set_ylabel("still\nplaying", fontsize=8)
        if not many:
            bottom.set_xlabel("hands played")
        ax.xaxis.get_major_locator().set_params(integer=True)
    if many:  # one label for all the small panels
        fig.supylabel(ylabel, fontsize=9)
        fig.supxlabel("hands played", fontsize=10)
    return fig
