"""The words of `simsuite design`'s result: its one-sentence answer and the text it prints (design.txt)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from ..analysis.design.figures import BOOT_REPS
from ..analysis.design.judge import NOT_DECIDED
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


def status_words(j: dict) -> str:
    """A screening judgement's status in words: "met for sure (round 0)", "failed for sure (round 1)",
    "not decided (estimate meets it), n needed ~ 1,200 deals", or the status as stored."""
    st = j["status"]
    rd = f" (round {j['decided_round']})" if "decided_round" in j else ""
    if st == "meets":
        return f"met for sure{rd}"
    if st == "fails":
        return f"failed for sure{rd}"
    if st == NOT_DECIDED:
        lean = "estimate meets it" if j.get("lean") == "likely" else "estimate fails it"
        need = j.get("n_needed")
        return f"not decided ({lean}), n needed " + (f"~{need:,} deals" if need else "unknown (no width)")
    return st


def _bound(g: dict, metric: str) -> str:
    """A confirmation goal's one-sided bound as text (a share in %)."""
    if g.get("bound") is None:
        return "n/a"
    share = METRIC_BY_KEY[metric].share
    k, u = (100.0, "%") if share else (1.0, "")
    d = 1 if share or abs(g["bound"]) >= 10 else 2
    return f"{g['bound'] * k:.{d}f}{u}"


def level_words(t: dict) -> str:
    """A confirmation try's level ("one-sided 99.17% bounds, alpha 0.008333")."""
    return f"one-sided {100 * (1 - t['alpha']):.2f}% bounds, alpha {t['alpha']:.4g}"


def sentence(res: dict) -> str:
    """The recommendation in one sentence, with its figures, intervals and n."""
    sets = {s["id"]: s for s in res["sets"]}
    conf = res.get("confirmation") or {"tried": []}
    if res["recommended"] is None and res["candidates"]:
        t = conf["tried"]
        fails = "; ".join(
            f"{x['set']}: "
            + ", ".join(
                f"{g['goal']} {_fmt(g['figure'], g['goal'].split()[0])}, bound {_bound(g, g['goal'].split()[0])}"
                for g in x["goals"]
                if g["primary"] and not g["confirmed"]
            )
            for x in t
        )
        level = f"{level_words(t[0])} each" if t else "no level"
        return (
            f"No parameter set is recommended: {len(res['candidates'])} candidate(s) had estimates meeting every "
            f"goal in the search, but the {len(t)} tried were not confirmed on fresh deals ({fails}; {level}; "
            "95% intervals, n = deals)."
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
            f"{', '.join(b['nearest_fails'])} on its estimates ({figs}; 95% intervals, n = deals)."
        )
    s = sets[res["recommended"]]
    t = next(x for x in conf["tried"] if x["set"] == res["recommended"])
    parts = [
        f"{g['goal'].split()[0]} {_fmt(g['figure'], g['goal'].split()[0])}, bound {_bound(g, g['goal'].split()[0])}"
        for g in t["goals"]
        if g["primary"]
    ]
    open_ = s.get("not_decided") or []
    search = (
        "in the search every goal was met for sure"
        if s["sure"]
        else (
            f"in the search {', '.join(open_)} {'was' if len(open_) == 1 else 'were'} not decided"
            if open_
            else "in the search not every goal was met for sure"
        )
    )
    flag = f" Flagged: it {res['flag']}." if res.get("flag") else ""
    return (
        f"Play {s['id']} ({res['base']}): it is confirmed on {t['matches']:,} fresh deals (seed {t['seed']}), every "
        f"goal's bound meeting it ({level_words(t)}): "
        + "; ".join(parts)
        + f" (95% intervals; n = deals); {search}.{flag}"
    )


def format_design(res: dict) -> str:
    """What `simsuite design` prints and design.txt holds: the sentence, the ranked candidates, the
    Pareto front, the focus set under each pairing, the confirmation, the independent check, the
    error control and the cost."""
    sets = {s["id"]: s for s in res["sets"]}
    lines = [res["sentence"], ""]
    metrics = [g.split()[0] for g in res["goals"]]
    if res["candidates"]:
        header = ["rank", "parameter set"] + res["goals"] + ["screening"]
        body = []
        for i, cid in enumerate(res["candidates"], 1):
            s = sets[cid]
            cells = [
                f"{_fmt(s['figures'][res['primary'][m]].get(m), m)} ({status_words(j)}, margin {_margin(j['margin'], m)})"
                for m, j in zip(metrics, s["goals"])
            ]
            conf = (
                "every goal met for sure"
                if s["sure"]
                else (f"min z {s['min_z']:.2f}" if s["min_z"] is not None else "no z")
                + (f"; {len(s['not_decided'])} not decided" if s.get("not_decided") else "")
            ) + ("" if s["robust"] else "; FLAG: not under every pairing")
            body.append([str(i), cid] + cells + [conf])
        lines.append(
            f"Candidates for confirmation: parameter sets whose estimates meet every goal ({len(res['candidates'])} "
            f"of {len(res['sets'])}), ranked; only the confirmation on fresh deals recommends one:"
        )
        lines.append(table(header, body, max_width=40))
    else:
        lines.append(f"No parameter set of {len(res['sets'])} meets every goal on its estimates.")
    lines.append("")
    x, y = res["tradeoff"]
    body = [
        [
            cid,
            _fmt(sets[cid]["figures"][res["primary"][x]].get(x), x),
            _fmt(sets[cid]["figures"][res["primary"][y]].get(y), y),
            "yes" if sets[cid]["estimates_meet_all"] else "no",
        ]
        for cid in res["front"]
    ]
    lines.append(f"Pareto front, {x} against {y} ({len(res['front'])} sets):")
    lines.append(table(["parameter set", x, y, "estimates meet every goal"], body, max_width=40))
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
        lines.append(table(["pairing"] + metrics + ["estimates meet its goals"], body, max_width=40))
        if res.get("flag"):
            lines.append(f"FLAG: the recommendation {res['flag']}.")
    conf = res.get("confirmation") or {"tried": []}
    for t in conf["tried"]:
        lines += [
            "",
            f"Confirmation of {t['set']} on fresh deals (seed {t['seed']}, {confirm_sizes(t)}; {level_words(t)}): "
            f"{'CONFIRMED' if t['confirmed'] else 'NOT CONFIRMED'}",
        ]
        body = [
            [
                g["pairing"],
                g["goal"],
                _fmt(g["figure"], g["goal"].split()[0]),
                _bound(g, g["goal"].split()[0]),
                ("yes" if g["confirmed"] else "NO") + ("" if g["primary"] else " (not primary: decides nothing)"),
            ]
            for g in t["goals"]
        ]
        lines.append(
            table(
                ["pairing", "goal", "figure on fresh deals", "one-sided bound", "bound meets the goal"],
                body,
                max_width=40,
            )
        )
    chk = res.get("check") or {}
    if chk.get("commands"):
        lines += [
            "",
            f"Independent check: seed {chk['seed']} ({chk['seed_rule']}) shares no deal with the rounds or the "
            "confirmation (simulate's default seed 1 replays round 0 when the spec's seed is 1):",
        ]
        lines += [f"  {c}" for c in chk["commands"].values()]
    ec = res["error_control"]
    lines += [
        "",
        "Error control: "
        + ec["text"]
        + "; per round: "
        + ", ".join(f"round {x['round']} {x['judgements']} judgement(s) at z {x['z']:.2f}" for x in ec["rounds"])
        + ".",
    ]
    lines += [cost_words(res["cost"], len(res["rounds"])), FIGURES_WORDS]
    return "\n".join(lines)


FIGURES_WORDS = (
    "Figures: estimate [95% interval] n = deals; match figures from the exact match model (delta-method "
    "intervals over deals), per-hand figures from the simulated hands (bootstrap over deals, "
    f"{BOOT_REPS:,} resamples); docs/design.md."
)


def cost_words(c: dict, rounds: int) -> str:
    """The cost line: the design's hands beside the analyst's baseline (a fixed-n sweep of the played
    cells, the clock re-scored, as narrow as the design's decisions)."""
    return (
        f"Cost: {c['design_hands']:,} hands played ({c['rounds_hands']:,} in {rounds} round(s), "
        f"{c['confirmation_hands']:,} confirming; {c['played_cells']} played cells for {c['parameter_sets']} "
        f"parameter sets x {c['pairings']} pairings). The analyst's baseline, a fixed-n sweep of the "
        f"{c['played_cells']} played cells under every pairing with the clock re-scored by the exact model, needs "
        f"{c['baseline_matches_per_cell']:,} matches per cell for screening intervals as narrow as the design's "
        f"decisions (z {c['baseline_z']:.2f}, all judgements at once), about {c['baseline_hands']:,} hands: "
        f"{c['ratio']}x the design's hands ({c['ratio_screening']}x its rounds alone, without the confirmation)."
    )


def _margin(m: float | None, metric: str) -> str:
    """A goal's margin as text: points of a share, else in the metric's unit."""
    if m is None:
        return "n/a"
    return f"{m * 100:+.1f} pts" if METRIC_BY_KEY[metric].share else f"{m:+.2f}"
