"""The text of ``simsuite compare``: the answer first (each setting against the baseline, in words, and
the goals), then the settings as rows in a few small tables that fit 100 columns, then the method."""

from __future__ import annotations

import math
import textwrap

from ..analysis.settings import ALPHA, FIGURE_BY_KEY, FIGURES, SECTIONS
from .summary_text import plain_num
from .text import table

WIDTH = 100
MINUS = "\N{MINUS SIGN}"


def _num(x: float | None, share: bool, signed: bool = False) -> str:
    """A figure (a share in percent, one decimal) or a difference (a share's in points)."""
    if x is None:
        return "n/a"
    if math.isinf(x):
        return ("+" if signed else "") + "inf" if x > 0 else f"{MINUS}inf"
    text = f"{x * 100:.1f}" if share else plain_num(x)
    if signed and x > 0:
        text = "+" + text
    return text.replace("-", MINUS)


def _figure(fig: dict | None, share: bool, deals: int) -> str:
    if not fig or fig.get("value") is None:
        return "n/a"
    v = _num(fig["value"], share) + ("%" if share else "")
    if fig.get("low") is None:
        v += ""
    else:
        v += f" [{_num(fig['low'], share)}, {_num(fig['high'], share)}]"
    if fig.get("n") != deals:
        v += f" n={fig['n']:,}"
    return v


def _difference(d: dict | None, share: bool) -> str:
    """``Δ −2.44 [−3.12, −1.73] p<.001``: the paired difference, its interval and its Holm-adjusted p."""
    if not d or d.get("value") is None:
        return "Δ n/a"
    text = "Δ " + _num(d["value"], share, signed=True)
    if d.get("low") is not None:
        text += f" [{_num(d['low'], share)}, {_num(d['high'], share)}]"
    return text + _p(d)


def _p(d: dict) -> str:
    p = d.get("p_holm")
    if p is None:
        return ""
    return " p<.001" if p < 0.001 else " p=1" if p >= 0.9995 else f" p={p:.3f}".replace("0.", ".")


def _table(result: dict, keys: list[str]) -> str:
    """Settings as rows; per figure a column: the figure [95% interval] over its Δ from the baseline."""
    header = ["setting", "deals"] + [FIGURE_BY_KEY[k].label + (" (%)" if FIGURE_BY_KEY[k].share else "") for k in keys]
    rows = []
    for i, s in enumerate(result["settings"]):
        row = [s["words"] + ("\n(baseline)" if s["baseline"] else ""), f"{s['deals']:,}"]
        for k in keys:
            fig = s["figures"].get(k)
            share = FIGURE_BY_KEY[k].share
            below = "" if s["baseline"] else "\n" + _difference(fig.get("difference") if fig else None, share)
            row.append(_figure(fig, share, s["deals"]) + below)
        if i:
            rows.append([""] * len(row))
        rows.append(row)
    return table(header, rows, max_width=40)


def _width(text: str) -> int:
    return max(len(line) for line in text.splitlines())


def tables(result: dict) -> list[tuple[str, str]]:
    """Per section, its figures packed into as few tables as fit ``WIDTH`` columns: (title, table)."""
    out = []
    for section in SECTIONS:
        keys = [f.key for f in FIGURES if f.section == section and f.shown]
        group: list[str] = []
        for k in keys:
            if group and _width(_table(result, group + [k])) > WIDTH:
                out.append((section, _table(result, group)))
                group = []
            group.append(k)
        if group:
            out.append((section, _table(result, group)))
    return out


def _change(d: dict | None, what: str, unit: str, share: bool, up: str, down: str) -> str | None:
    """One difference in words: "matches 12.0 min shorter [8.1, 15.9]", or "no clear change in ..."."""
    if not d or d.get("value") is None:
        return None
    k = 100.0 if share else 1.0
    v, lo, hi = d["value"] * k, (d.get("low") or math.nan) * k, (d.get("high") or math.nan) * k
    if d.get("p_holm") is None or d["p_holm"] >= ALPHA:
        return f"no clear change in {what} ({_num(d['value'], share, True)}{unit} [{_num(d.get('low'), share, True)}, {_num(d.get('high'), share, True)}])"
    word, a, b = (up, lo, hi) if v > 0 else (down, -hi, -lo)
    return f"{word.format(f'{abs(v):.1f}{unit}')} [{a:.1f}, {b:.1f}]".replace("-", MINUS)


def statements(result: dict) -> list[tuple[str, bool]]:
    """The answer as statements, each (text, is it about one setting): against the baseline, what each
    setting changes in match length, luck and draws; then each goal and the best setting."""
    ref = next(s for s in result["settings"] if s["baseline"])
    base = " (the base rules)" if ref["base_rules"] else ""
    n = sorted({s["matches"] for s in result["settings"]})
    per = f"{n[0]:,}" if len(n) == 1 else f"{n[0]:,} to {n[-1]:,}"
    out = [
        (
            f"Against {ref['words']}{base}, {per} matches per setting (differences with 95% intervals over the "
            "deals both played; a change is clear where its Holm-adjusted p is below 0.05):",
            False,
        )
    ]
    for s in result["settings"]:
        if s["baseline"]:
            continue
        f = s["figures"]
        parts = [
            _change(
                f["match_minutes"].get("difference"),
                "match length",
                " min",
                False,
                "matches {} longer",
                "matches {} shorter",
            ),
            _change(
                f["stronger_wins"].get("difference"),
                "the stronger pair's wins",
                " points",
                True,
                "the stronger pair wins {} more often",
                "the stronger pair wins {} less often",
            ),
            _change(f["draws"].get("difference"), "draws", " points", True, "{} more draws", "{} fewer draws"),
        ]
        parts = [p for p in parts if p]
        if not parts:
            parts = ["no paired difference (it does not share the baseline's deals or policies)"]
        out.append((f"{s['words']}: " + "; ".join(parts) + ".", True))
    return out + [(text, False) for text in _goal_statements(result)]


def answer(result: dict) -> list[str]:
    """The answer first, wrapped to ``WIDTH`` columns: the statements, a setting's indented."""
    lines: list[str] = []
    for text, one_setting in statements(result):
        if one_setting:
            lines += textwrap.wrap(text, WIDTH, initial_indent="  ", subsequent_indent="    ")
        else:
            lines += textwrap.wrap(text, WIDTH, subsequent_indent="  ")
    return lines


def _goal_statements(result: dict) -> list[str]:
    goals = result.get("goals") or []
    if not goals:
        return []
    by_cell = {s["cell"]: s for s in result["settings"]}
    out = []
    for g in goals:
        met = [by_cell[c]["words"] for c in g["met_by"]]
        sure = set(g["met_surely_by"])
        said = [
            w + ("" if c in sure else " (on its estimate; its interval reaches the bound)")
            for c, w in zip(g["met_by"], met)
        ]
        out.append(
            f"Goal {g['goal']} ({FIGURE_BY_KEY[g['metric']].label}): "
            + ("; ".join(said) if said else "met by no setting")
            + "."
        )
    if result["best"]:
        best = by_cell[result["best"]]["words"]
        out.append(
            f"Best on every goal: {best}. Of the {len(result['meets_all'])} setting(s) whose estimates meet every "
            "goal, those whose every 95% interval clears its bound come first, then the one whose weakest goal "
            "clears its bound by the most standard errors."
        )
    else:
        out.append("No setting meets every goal.")
    return out


METHOD = (
    "Figures: metrics.summarise's (docs/metrics.md): n = deals; Wilson for shares of matches, cluster-robust "
    "normal for means per match, percentile bootstrap over deals for per-hand figures, BCa for N*. "
    "Δ: the setting's figure minus the baseline's over the deals both played (the cells of a sweep share "
    "their deals), 95% percentile bootstrap over those deals ({reps:,} resamples); shares' differences in "
    "percentage points. p: two-sided, from the bootstrap's standard error, Holm-adjusted over the "
    "differences of one section (match length, swing, luck). n = deals, said beside a figure where it "
    "differs from the setting's deals. The stronger pair is the first policy of --policies."
)


def format_compare(result: dict) -> str:
    parts = ["\n".join(answer(result))]
    for section, text in tables(result):
        parts.append(f"{section.capitalize()}\n{text}")
    if result.get("not_played"):
        parts.append("Not played yet: " + ", ".join(result["not_played"]))
    parts.append("\n".join(textwrap.wrap(METHOD.format(reps=result["reps"]), WIDTH)))
    prov = f"Run {result['run']}, seed {result['run_seed']}"
    if result.get("command"):
        prov += f": {' '.join(result['command'])}"
    parts.append("\n".join(textwrap.wrap(prov, WIDTH)))
    return "\n\n".join(parts)


def compare_html(result: dict) -> str:
    """The comparison as the report's section 3: the answer's lines as paragraphs, then one table per
    section (match length, swing, luck) with each setting a row and each figure over its Δ from the
    baseline, then the method. Every figure is the text's, so the page and ``simsuite compare`` agree."""
    from .page import esc

    out = ['<div class="headline">' + "".join(f"<p>{esc(text)}</p>" for text, _ in statements(result)) + "</div>"]
    for section in SECTIONS:
        keys = [f.key for f in FIGURES if f.section == section and f.shown]
        head = "".join(
            f"<th>{esc(FIGURE_BY_KEY[k].label + (' (%)' if FIGURE_BY_KEY[k].share else ''))}</th>" for k in keys
        )
        body = []
        for st in result["settings"]:
            cells = []
            for k in keys:
                fig = st["figures"].get(k)
                share = FIGURE_BY_KEY[k].share
                diff = (
                    ""
                    if st["baseline"]
                    else f"<br><small>{esc(_difference(fig.get('difference') if fig else None, share))}</small>"
                )
                cells.append(f"<td>{esc(_figure(fig, share, st['deals']))}{diff}</td>")
            name = esc(st["words"]) + (" <small>(baseline)</small>" if st["baseline"] else "")
            body.append(f"<tr><td>{name}</td><td>{st['deals']:,}</td>{''.join(cells)}</tr>")
        out.append(
            f"<h3>{esc(section.capitalize())}</h3><table><tr><th>setting</th><th>deals</th>{head}</tr>"
            + "".join(body)
            + "</table>"
        )
    out.append(f'<p class="notes">{esc(METHOD.format(reps=result["reps"]))}</p>')
    return "\n".join(out)


__all__ = ["format_compare", "compare_html", "answer", "statements", "tables"]
