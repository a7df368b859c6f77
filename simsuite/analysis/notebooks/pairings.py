"""The self-play pairings of a notebook's sweep, the policy ladder ``basic`` -> ``expert`` -> ``learned`` -> ``search``:
figures side by side, each conclusion's effect and verdict."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd
import polars as pl

from simsuite.analysis.metrics import METRIC_KEYS, deal_ids, paired_test
from simsuite.analysis.notebooks.claims import Conclusion
from simsuite.analysis.notebooks.robustness import PAIRINGS, classify_all, format_effect, moved, nan_estimate
from simsuite.analysis.notebooks.summaries import est, frames, per_match, summary, with_cell_keys
from simsuite.analysis.stats import Estimate, cluster_mean_ci
from simsuite.sim.results import Results

# search with 4 sampled deals x 4 candidates per decision: a third of the default's cost (docs/performance.md); quick
# mode only checks that the notebooks run, with the cheapest search (1 deal x 2 candidates)
SEARCH_POLICY = "search-k4-c4"
QUICK_SEARCH_POLICY = "search-k1-c2"


def search_policy(quick: bool = False) -> str:
    """The search pairing's policy: ``search-k4-c4``, or ``search-k1-c2`` in quick mode."""
    return QUICK_SEARCH_POLICY if quick else SEARCH_POLICY


def pairing_policies(pairing: str, search: str = SEARCH_POLICY) -> str:
    """The sweep's ``policies`` for a self-play pairing: ``"basic,basic"``, ``"expert,expert"``,
    ``"search-k4-c4,search-k4-c4"`` (``search``: the search pairing's policy)."""
    pol = search if pairing == "search" else pairing
    return f"{pol},{pol}"


def pairing_label(pairing: str, search: str = SEARCH_POLICY) -> str:
    """A pairing as the tables and figures name it: ``"basic/basic"``, ``"search-k4-c4/search-k4-c4"``."""
    pol = search if pairing == "search" else pairing
    return f"{pol}/{pol}"


def pairing_matches(
    full: int, search: int, quick: int = 6, search_quick: int = 2, quick_mode: bool = False
) -> dict[str, int]:
    """Matches per cell for each pairing: ``basic``, ``expert`` and ``learned`` play ``full`` (``quick``
    in quick mode), the slow ``search`` its own smaller ``search`` (``search_quick``)."""
    if quick_mode:
        return {"basic": quick, "expert": quick, "learned": quick, "search": search_quick}
    return {"basic": full, "expert": full, "learned": full, "search": search}


def merge_pairings(parts: Mapping[str, Pairings], kind: type[Pairings] | None = None) -> Pairings:
    """Several ``run_pairings`` (e.g. one per tournament) as one ``kind`` (default: the parts' class), each
    cell renamed ``<key>|<cell>``; runs with the same root seed stay paired (match i is the same deal)."""
    data, variants = {}, {}
    for p in PAIRINGS:
        got = [(k, P) for k, P in parts.items() if p in P.frames]
        if not got:
            continue
        ren = lambda k: pl.lit(k + "|") + pl.col("cell")  # noqa: E731
        data[p] = (
            pl.concat([P.frames[p][0].with_columns(cell=ren(k)) for k, P in got], how="diagonal_relaxed"),
            pl.concat([P.frames[p][1].with_columns(cell=ren(k)) for k, P in got], how="diagonal_relaxed"),
        )
        variants[p] = {f"{k}|{c}": v for k, P in got for c, v in (P.variants.get(p) or {}).items()}
    first = next(iter(parts.values()), None)
    kind = kind or (type(first) if first is not None else Pairings)
    return kind.from_frames(data, variants, search=first.search if first is not None else SEARCH_POLICY)


class Pairings:
    """The self-play pairings' runs of one notebook (``run_pairings``): their summaries side by
    side, each conclusion's effect under each pairing and the classifier's verdicts (the figure:
    ``simsuite.report.plots.pairings_figure``). ``search``: the search pairing's policy."""

    def __init__(self, runs: Mapping[str, Results], search: str = SEARCH_POLICY):
        self.runs = dict(runs)
        self.search = search
        self._set({p: frames(r) for p, r in self.runs.items()}, {p: r.variants() for p, r in self.runs.items()})

    @classmethod
    def from_frames(
        cls,
        data: Mapping[str, tuple[pl.DataFrame, pl.DataFrame]],
        variants: Mapping[str, Mapping] | None = None,
        search: str = SEARCH_POLICY,
    ) -> Pairings:
        """From (hands, matches) frames per pairing instead of runs (tests)."""
        self = cls.__new__(cls)
        self.runs = {}
        self.search = search
        self._set(dict(data), dict(variants or {p: None for p in data}))
        return self

    def _set(self, data, variants):
        self.frames = data
        self.variants = variants
        self.pairings = [p for p in PAIRINGS if p in data]
        self.M = {p: per_match(h, m, variants.get(p)) for p, (h, m) in data.items()}
        self._summary: pd.DataFrame | None = None
        # the table and the figure ask for the same estimates, the figure and the verdicts for the same effects (a
        # bootstrap each): all are pure functions of the frames, so each is computed once and kept
        self._rows: dict[tuple[str, str], int] | None = None  # (pairing, cell) -> its first row in the summary
        self._estimates: dict[tuple[str, str, str], dict] = {}
        self._effects: dict[tuple[str, Conclusion], Estimate] = {}
        self._n: dict[str, int] = {}

    def summary(self) -> pd.DataFrame:
        """``summary`` per cell of every pairing, with the cell keys and a ``pairing`` column."""
        if self._summary is None:
            parts = [
                with_cell_keys(summary(h, m, self.variants[p], by="cell")).assign(pairing=p)
                for p, (h, m) in self.frames.items()
            ]
            self._summary = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
        return self._summary

    def n(self, pairing: str) -> int:
        """Deals per cell (the smallest cell) under ``pairing``."""
        if pairing not in self._n:
            m = self.M[pairing]
            self._n[pairing] = int(m.group_by("cell").agg(pl.col("match").n_unique())["match"].min()) if m.height else 0
        return self._n[pairing]

    def estimate(self, pairing: str, cell: str, key: str) -> dict:
        """One figure of one cell under one pairing: a ``summarise`` metric (METRIC_KEYS), or else the
        mean over matches of a ``per_match`` column with its interval over deals. Keys value, lo, hi, n."""
        if (pairing, cell, key) not in self._estimates:
            self._estimates[pairing, cell, key] = self._estimate(pairing, cell, key)
        return dict(self._estimates[pairing, cell, key])

    def _estimate(self, pairing: str, cell: str, key: str) -> dict:
        if key in METRIC_KEYS:
            s = self.summary()
            if self._rows is None:
                self._rows = {}
                for i, pc in enumerate(zip(s.pairing, s.cell)):
                    self._rows.setdefault(pc, i)
            if (pairing, cell) in self._rows:
                r = s.iloc[self._rows[pairing, cell]]
                return {"value": r[key], "lo": r[key + "_lo"], "hi": r[key + "_hi"], "n": r[key + "_n"]}
            return {"value": np.nan, "lo": np.nan, "hi": np.nan, "n": 0}
        f = self.M[pairing].filter(pl.col("cell") == cell).drop_nulls(key) if key in self.M[pairing].columns else None
        if f is None or f.height == 0:
            return {"value": np.nan, "lo": np.nan, "hi": np.nan, "n": 0}
        e = cluster_mean_ci(f[key].to_numpy(), deal_ids(f))
        return {"value": e.value, "lo": e.low, "hi": e.high, "n": e.n}

    def frame(self, cells: Mapping[str, str], key: str) -> pd.DataFrame:
        """One figure for every (pairing, cell): columns pairing, cell, label, key, key_lo, key_hi, key_n."""
        rows = []
        for p in self.pairings:
            for c, lab in cells.items():
                e = self.estimate(p, c, key)
                rows.append(
                    {
                        "pairing": p,
                        "cell": c,
                        "label": lab,
                        key: e["value"],
                        key + "_lo": e["lo"],
                        key + "_hi": e["hi"],
                        key + "_n": e["n"],
                    }
                )
        return pd.DataFrame(rows)

    def table(self, cells: Mapping[str, str], keys: Mapping[str, tuple[str, int, bool]]) -> pd.DataFrame:
        """The headline figures under the pairings side by side: one row per (cell, figure), one
        column per pairing, each ``value [95% interval] n=deals``. ``cells``: cell -> label;
        ``keys``: key -> (label, digits, as a percentage)."""
        rows = []
        for c, lab in cells.items():
            for k, (name, digits, pct) in keys.items():
                row = {"cell": lab, "figure": name}
                for p in self.pairings:
                    e = self.estimate(p, c, k)
                    row[pairing_label(p, self.search)] = (
                        est({k: e["value"], k + "_lo": e["lo"], k + "_hi": e["hi"]}, k, digits, pct=pct)
                        + f" n={int(e['n']):,}"
                    )
                rows.append(row)
        return pd.DataFrame(rows).set_index(["cell", "figure"])

    def effect(self, pairing: str, c: Conclusion) -> Estimate:
        """The conclusion's effect under ``pairing``: the paired difference a - b over the deals both
        cells share (bootstrap over deals), or cell a's mean minus ``ref`` (interval over deals)."""
        if (pairing, c) not in self._effects:
            self._effects[pairing, c] = self._effect(pairing, c)
        return self._effects[pairing, c]

    def _effect(self, pairing: str, c: Conclusion) -> Estimate:
        M = self.M.get(pairing)
        if M is None or c.metric not in M.columns:
            return nan_estimate()
        fa = M.filter(pl.col("cell") == c.a)
        if c.b is None:
            fa = fa.drop_nulls(c.metric)
            if fa.height == 0:
                return nan_estimate()
            e = cluster_mean_ci(fa[c.metric].to_numpy(), deal_ids(fa))
            return Estimate(e.value - c.ref, e.low - c.ref, e.high - c.ref, e.n)
        return paired_test(fa, M.filter(pl.col("cell") == c.b), pl.col(c.metric))["estimate"]

    def verdicts(self, conclusions: Iterable[Conclusion], alpha: float = 0.05) -> pd.DataFrame:
        """Each conclusion's effect under each pairing and its verdict (``classify_all``: one Holm
        correction over all the conclusions given)."""
        conclusions = list(conclusions)
        effs = [{p: self.effect(p, c) for p in PAIRINGS} for c in conclusions]
        marks = classify_all([(e, c.sign, c.margin) for e, c in zip(effs, conclusions)], PAIRINGS, alpha)
        return verdict_table(conclusions, effs, marks, self.search)


# the verdicts table's column of the change from the expert-based finding (``robustness.moved``)
MOVED = "learned minus expert"


def _n_cell(v: dict, key: str) -> str:
    """A power-simulated n as the verdicts table shows it: the number, or n/a with its reason."""
    n = v[f"n_{key}"]
    return f"{n:,}" if n is not None else f"n/a ({v['power'][key + '_why']})"


def verdict_table(
    conclusions: Iterable[Conclusion],
    effs: Iterable[Mapping[str, Estimate]],
    marks: Iterable[dict],
    search: str = SEARCH_POLICY,
) -> pd.DataFrame:
    """The verdicts table (``Pairings.verdicts``): one row per conclusion with its effect under each pairing, the
    largest interaction, the robust Holm p ("not tested" where it could not be computed), the deals per cell the
    simulated classifier needs for 80% power to mark it robust and to mark it policy-dependent, the verdict, and
    how far the effect moved from the ``expert``-based finding (``MOVED``: learned's effect minus expert's)."""
    rows = []
    for c, eff, v in zip(conclusions, effs, marks):
        tested = {p: t for p, t in v["tests"].items() if math.isfinite(t["d"])}
        worst = max(tested.items(), key=lambda kv: abs(kv[1]["d"]), default=None)
        pw = v["power"]
        rows.append(
            {
                "conclusion": c.text,
                "metric": c.metric,
                "claimed": "> 0" if c.sign > 0 else "< 0",
                "margin": f"±{c.margin:g}",
                "first tested on seed": c.seed,
                **{pairing_label(p, search): format_effect(eff.get(p, nan_estimate())) for p in PAIRINGS},
                MOVED: format_effect(moved(eff)),
                "largest interaction (SE)": (
                    f"{worst[0]}: {worst[1]['d']:+.3f} ({worst[1]['se']:.3f})" if worst else "n/a"
                ),
                "robust: p (Holm)": (
                    round(v["p_robust_holm"], 4) if math.isfinite(v["p_robust_holm"]) else "not tested"
                ),
                f"deals per cell for {pw['power']:.0%} power: robust": _n_cell(v, "robust"),
                f"deals per cell for {pw['power']:.0%} power: policy-dependent (±margin)": _n_cell(v, "dependent"),
                "verdict": v["mark"],
                "detail": v["detail"],
                "_effects": eff,
            }
        )
    return pd.DataFrame(rows)
