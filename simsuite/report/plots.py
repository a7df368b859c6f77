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
