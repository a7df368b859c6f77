"""The words of `simsuite design`'s result: its one-sentence answer and the text it prints (design.txt)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from ..analysis.design.figures import BOOT_REPS
from ..analysis.design.search import design
from ..analysis.design.spec import MAX_PLAYED_CELLS, METRIC_BY_KEY
from .text import table


def worded_design(
    spec_path: str | Path,
    out: str | Path | None = None,
    *,
    jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    quiet: bool = False,
    command: Sequence[str] | None = None,
    break_lock: bool = False,
    max_cells: int = MAX_PLAYED_CELLS,
) -> dict:
    """``simsuite.analysis.design.search.design`` worded by this module: the result with its ``sentence``,
    and ``design.txt`` written beside ``design.json`` (what ``simsuite design`` runs)."""
    return design(
        spec_path,
        out,
        jobs=jobs,
        backend=backend,
        scheduler=scheduler,
        quiet=quiet,
        command=command,
        break_lock=break_lock,
        max_cells=max_cells,
        wording=sys.modules[__name__],
    )


def confirm_sizes(t: dict) -> str:
    """The matches a confirmation played, per pairing ("540 matches under expert,basic, 180 under
    expert,expert"); a stored result without them played ``matches`` under every pairing."""
    sizes = t.get("matches_by_pairing")
    if not sizes:
        return f"{t['matches']:,} matches per pairing"
    parts = [f"{k:,} {'matches ' if i == 0 else ''}under {p}" for i, (p, k) in enumerate(sizes.items())]
    return ", ".join(parts)


def _fmt(fig: dict | None, metric: str) -> str:
    """A figure as text: its estimate [95% interval] n = deals (a share in %), or "n/a"."""
    if fig is None:
        return "n/a"
    share = METRIC_BY_KEY[metric].share
    k, u = (100.0, "%") if share else (1.0, "")
    d = 1 if share or abs(fig["value"]) >= 10 else 2
    if fig.get("low") is None:
        return f"{fig['value'] * k:.{d}f}{u} (no interval) n={fig['n']:,}"
    return f"{fig['value'] * k:.{d}f}{u} [{fig['low'] * k:.{d}f}, {fig['high'] * k:.{d}f}] n={fig['n']:,}"


def sentence(res: dict) -> str:
    """The recommendation in one sentence, with its figures, intervals and n."""
    sets = {s["id"]: s for s in res["sets"]}
    conf = res.get("confirmation") or {"tried": []}
    if res["recommended"] is None and res["candidates"]:
        t = conf["tried"]
        fails = "; ".join(
            f"{x['set']}: "
            + ", ".join(
                f"{g['goal']} {_fmt(g['figure'], g['goal'].split()[0])}"
                for g in x["goals"]
                if g["primary"] and not g["holds"]
            )
            for x in t
        )
        return (
            f"No parameter set is recommended: {len(res['candidates'])} set(s) met every goal on the search's deals, "
            f"but the {len(t)} best did not hold on fresh deals ({fails}; 95% intervals, n = deals)."
        )
    if res["recommended"] is None:
        b = res["binding"]
        if b["sets_failing_only_it"]:
            why = (
                f"{b['goal']} binds: {b['sets_failing_only_it']} of {b['n_sets']} sets meet every other goal but "
                "fail it"
            )
        else:
            why = (
                f"every set fails two goals or more; {' and '.join(b['goals'])} bind"
                f"{'s' if len(b['goals']) == 1 else ''}, failed by {b['failing'][b['goal']]} of {b['n_sets']} sets"
            )
        near = sets[b["nearest"]]
        figs = "; ".join(
            f"{g.split()[0]} {_fmt(near['figures'][res['primary'][g.split()[0]]].get(g.split()[0]), g.split()[0])}"
            for g in b["nearest_fails"]
        )
        return (
            f"No parameter set meets every goal: {why}. The nearest, {b['nearest']}, fails "
            f"{', '.join(b['nearest_fails'])} ({figs}; 95% intervals, n = deals)."
        )
    s = sets[res["recommended"]]
    parts = []
    for g, j in zip(res["goals"], s["goals"]):
        metric = g.split()[0]
        parts.append(f"{metric} {_fmt(s['figures'][res['primary'][metric]].get(metric), metric)}")
    how = "with every interval inside its bound" if s["sure"] else "on the estimates (some intervals straddle a bound)"
    flag = f" Flagged: it {res['flag']}." if res.get("flag") else ""
    t = conf["tried"][-1] if conf["tried"] else None
    held = (
        f" Confirmed on {t['matches']:,} fresh deals (seed {t['seed']}): every goal still holds under its primary "
        "pairing."
        if t
        else ""
    )
    return (
        f"Play {s['id']} ({res['base']}): it meets every goal {how}: "
        + "; ".join(parts)
        + f" (95% intervals; n = deals).{held}{flag}"
    )


def format_design(res: dict) -> str:
    """What `simsuite design` prints and design.txt holds: the sentence, the ranked candidates, the
    Pareto front, the focus set under each pairing, the confirmation, the error control and the cost."""
    sets = {s["id"]: s for s in res["sets"]}
    lines = [res["sentence"], ""]
    metrics = [g.split()[0] for g in res["goals"]]
    if res["candidates"]:
        header = ["rank", "parameter set"] + res["goals"] + ["confidence"]
        body = []
        for i, cid in enumerate(res["candidates"], 1):
            s = sets[cid]
            cells = [
                f"{_fmt(s['figures'][res['primary'][m]].get(m), m)} ({j['status']}, margin {_margin(j['margin'], m)})"
                for m, j in zip(metrics, s["goals"])
            ]
            conf = ("every interval inside" if s["sure"] else f"min z {s['min_z']:.2f}") + (
                "" if s["robust"] else "; FLAG: not under every pairing"
            )
            body.append([str(i), cid] + cells + [conf])
        lines.append(f"Parameter sets that meet every goal ({len(res['candidates'])} of {len(res['sets'])}), ranked:")
        lines.append(table(header, body, max_width=40))
    else:
        lines.append(f"No parameter set of {len(res['sets'])} meets every goal.")
    lines.append("")
    x, y = res["tradeoff"]
    body = [
        [
            cid,
            _fmt(sets[cid]["figures"][res["primary"][x]].get(x), x),
            _fmt(sets[cid]["figures"][res["primary"][y]].get(y), y),
            "yes" if sets[cid]["meets_all"] else "no",
        ]
        for cid in res["front"]
    ]
    lines.append(f"Pareto front, {x} against {y} ({len(res['front'])} sets):")
    lines.append(table(["parameter set", x, y, "meets every goal"], body, max_width=40))
    focus = res["recommended"] or res.get("binding", {}).get("nearest")
    if focus:
        lines.append("")
        lines.append(f"{'Recommended' if res['recommended'] else 'Nearest'} set {focus}, under each pairing:")
        s = sets[focus]
        body = []
        for pair in res["pairings"]:
            row = [pair] + [_fmt(s["figures"][pair].get(m), m) for m in metrics]
            row.append("yes" if pair in s["holds_under"] else "no")
            body.append(row)
        lines.append(table(["pairing"] + metrics + ["meets its goals"], body, max_width=40))
        if res.get("flag"):
            lines.append(f"FLAG: the recommendation {res['flag']}.")
    conf = res.get("confirmation") or {"tried": []}
    for t in conf["tried"]:
        lines += [
            "",
            f"Confirmation of {t['set']} on fresh deals (seed {t['seed']}, {confirm_sizes(t)}): "
            f"{'CONFIRMED' if t['confirmed'] else 'NOT CONFIRMED'}",
        ]
        body = [
            [
                g["pairing"],
                g["goal"],
                _fmt(g["figure"], g["goal"].split()[0]),
                g["status"],
                ("yes" if g["holds"] else "NO") + ("" if g["primary"] else " (not primary)"),
            ]
            for g in t["goals"]
        ]
        lines.append(table(["pairing", "goal", "figure on fresh deals", "status", "still holds"], body, max_width=40))
    ec = res["error_control"]
    lines += [
        "",
        "Error control: "
        + ec["text"]
        + "; per round: "
        + ", ".join(f"round {x['round']} {x['judgements']} judgement(s) at z {x['z']:.2f}" for x in ec["rounds"])
        + ".",
    ]
    c = res["cost"]
    lines += [
        f"Cost: {c['design_hands']:,} hands played in {len(res['rounds'])} round(s) and the confirmation "
        f"({c.get('confirmation_hands', 0):,} of them; {c['played_cells']} played cells for "
        f"{c['parameter_sets']} parameter sets x {c['pairings']} pairings); a brute-force sweep simulating every "
        f"set at the boundary's {c['brute_force_matches_per_cell']:,} matches would play about "
        f"{c['brute_force_hands']:,} hands ({c['ratio']}x the design's).",
        "Figures: estimate [95% interval] n = deals; match figures from the exact match model (delta-method "
        "intervals over deals), per-hand figures from the simulated hands (bootstrap over deals, "
        f"{BOOT_REPS:,} resamples); docs/design.md.",
    ]
    return "\n".join(lines)


def _margin(m: float | None, metric: str) -> str:
    """A goal's margin as text: points of a share, else in the metric's unit."""
    if m is None:
        return "n/a"
    return f"{m * 100:+.1f} pts" if METRIC_BY_KEY[metric].share else f"{m:+.2f}"
