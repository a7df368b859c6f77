"""The design page: a `simsuite design` run as one self-contained HTML page for organisers.

``build_design_page(design_dir, out)`` reads ``design.json`` (``simsuite.analysis.design.search``) and
writes: the recommendation in words ("Play two-deck-2011 with step 30, ...", ``rules.words``) and its
figures in one sentence, the table of candidates (every figure with its 95%
interval, n and how surely it meets its goal), the Pareto plot of the trade-off (every set a numbered
point, listed under it; the recommended set on top, labelled), the recommended
set under each policy pairing, and the recommended rules as a variant file ready for every other
command. It shares the run report's page machinery (``report.page``: CSS, the image-decoding
script, the Agg figures, escaping, the output checks).
"""

from __future__ import annotations

import math
from pathlib import Path

from ..analysis.design.spec import METRIC_BY_KEY
from ..analysis.design.store import VARIANT_FILE, load_design
from .design_text import confirm_sizes, cost_words, level_words, status_words
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


def _value(f: dict | None, metric: str) -> str:
    if not f:
        return "n/a"
    k = 100.0 if METRIC_BY_KEY[metric].share else 1.0
    u = "%" if k == 100.0 else ""
    ci = (
        '<span class="ci">no interval</span>'
        if f.get("low") is None
        else f'<span class="ci">[{num(f["low"] * k)}, {num(f["high"] * k)}]</span>'
    )
    return f'{num(f["value"] * k)}{u} {ci} <span class="n">n = {f["n"]:,}</span>'


def _bound_value(g: dict) -> str:
    """A confirmation goal's one-sided bound (a share in %)."""
    if g.get("bound") is None:
        return "n/a"
    k = 100.0 if METRIC_BY_KEY[g["goal"].split()[0]].share else 1.0
    return f"{num(g['bound'] * k)}{'%' if k == 100.0 else ''}"


def _margin(j: dict, metric: str) -> str:
    if j.get("margin") is None:
        return ""
    m = j["margin"] * (100 if METRIC_BY_KEY[metric].share else 1)
    unit = " pts" if METRIC_BY_KEY[metric].share else ""
    return f"<br><small>{esc(status_words(j))}; interval {m:+.1f}{unit} from the bound</small>"


def set_words(res: dict, set_id: str) -> str:
    """A parameter set in words ("step 60, take-over 200, a 240-minute clock"; ``rules.words``)."""
    s = next((x for x in res["sets"] if x["id"] == set_id), None)
    return setting_words(s.get("params") or {}) if s and s.get("params") else set_id


def plotted_sets(res: dict) -> list[dict]:
    """The sets the Pareto plot draws (both trade-off figures known), numbered 1, 2, ... in that order."""
    x, y = res["tradeoff"]
    px, py = res["primary"][x], res["primary"][y]
    return [s for s in res["sets"] if s["figures"][px].get(x) and s["figures"][py].get(y)]


def pareto_png(res: dict) -> str:
    """Every set's two trade-off figures with 95% intervals, each point numbered (the list under the
    plot names them); the recommended set drawn last, on top, in red and labelled."""
    x, y = res["tradeoff"]
    px, py = res["primary"][x], res["primary"][y]
    fig = new_figure(9.5, 5.6)
    ax = fig.add_subplot(1, 1, 1)
    kx = 100.0 if METRIC_BY_KEY[x].share else 1.0
    ky = 100.0 if METRIC_BY_KEY[y].share else 1.0
    front = set(res["front"])
    rec = res.get("recommended")
    shown = plotted_sets(res)
    order = sorted(range(len(shown)), key=lambda i: shown[i]["id"] == rec)  # the recommended last: on top
    for i in order:
        s = shown[i]
        fx, fy = s["figures"][px][x], s["figures"][py][y]
        on = s["id"] in front
        is_rec = s["id"] == rec
        colour = "#d62728" if is_rec else "#1f77b4" if s["estimates_meet_all"] else "#b0b7bf"
        xerr = None if fx.get("low") is None else [[(fx["value"] - fx["low"]) * kx], [(fx["high"] - fx["value"]) * kx]]
        yerr = None if fy.get("low") is None else [[(fy["value"] - fy["low"]) * ky], [(fy["high"] - fy["value"]) * ky]]
        ax.errorbar(
            fx["value"] * kx,
            fy["value"] * ky,
            xerr=xerr,
            yerr=yerr,
            fmt="o" if on or is_rec else ".",
            color=colour,
            ms=10 if is_rec else 8 if on else 5,
            elinewidth=1.2 if is_rec else 0.8,
            alpha=1.0 if on or is_rec or s["estimates_meet_all"] else 0.6,
            zorder=5 if is_rec else 3,
        )
        ax.annotate(
            f"{i + 1}: recommended" if is_rec else str(i + 1),
            (fx["value"] * kx, fy["value"] * ky),
            xytext=(7, 7),
            textcoords="offset points",
            fontsize=9 if is_rec else 8,
            fontweight="bold" if is_rec else "normal",
            color="#a01010" if is_rec else "0.2",
            zorder=6 if is_rec else 4,
        )
    pts = sorted(
        (s["figures"][px][x]["value"] * kx, s["figures"][py][y]["value"] * ky) for s in shown if s["id"] in front
    )
    if pts:
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "-", color="#1f77b4", lw=1, alpha=0.7, zorder=2)
    for g in res["goals"]:
        metric, op, bound = g.split()
        if metric == x:
            ax.axvline(float(bound) * kx, ls="--", color="#555", lw=1)
        if metric == y:
            ax.axhline(float(bound) * ky, ls="--", color="#555", lw=1)
    ax.margins(0.12)
    ax.set_xlabel(f"{METRIC_BY_KEY[x].label} ({px})")
    ax.set_ylabel(f"{METRIC_BY_KEY[y].label} ({py})")
    ax.set_title(f"{x} against {y}: every parameter set, the Pareto front joined")
    ax.grid(alpha=0.3)
    return figure_png(fig)


def _points_list(res: dict) -> str:
    """The list under the plot: each numbered point's set in words, with its two figures."""
    x, y = res["tradeoff"]
    px, py = res["primary"][x], res["primary"][y]
    items = []
    for s in plotted_sets(res):
        tag = " <strong>(recommended)</strong>" if s["id"] == res.get("recommended") else ""
        items.append(
            f"<li>{esc(set_words(res, s['id']))}{tag}: {esc(x)} {_value(s['figures'][px][x], x)}; "
            f"{esc(y)} {_value(s['figures'][py][y], y)}</li>"
        )
    return '<ol class="points">' + "".join(items) + "</ol>"


def answer_words(res: dict) -> str:
    """The answer's first words: the recommended rules in words ("Play two-deck-2011 with step 30, ...")."""
    rec = res.get("recommended")
    if rec:
        return f"Play {res['base']} with {set_words(res, rec)}."
    return "No parameter set is recommended."


def build_design_page(design_dir: str | Path, out_path: str | Path) -> Path:
    """Write the page of the design run in ``design_dir`` to ``out_path`` and return its path."""
    out = Path(out_path)
    check_writable(out)
    res = load_design(design_dir)
    write_page(out, design_html(res, Path(design_dir).resolve()))
    return out


def design_html(res: dict, where: Path) -> str:
    sets = {s["id"]: s for s in res["sets"]}
    metrics = [g.split()[0] for g in res["goals"]]
    rows = []
    for i, cid in enumerate(res["candidates"], 1):
        s = sets[cid]
        cells = "".join(
            f'<td class="v">{_value(s["figures"][res["primary"][m]].get(m), m)}{_margin(j, m)}</td>'
            for m, j in zip(metrics, s["goals"])
        )
        flag = "" if s["robust"] else " <strong>flag: not under every pairing</strong>"
        conf = (
            "every goal met for sure"
            if s["sure"]
            else (f"smallest z {s['min_z']:.2f}" if s["min_z"] is not None and math.isfinite(s["min_z"]) else "")
            + (f"; {len(s['not_decided'])} goal(s) not decided" if s.get("not_decided") else "")
        )
        rows.append(
            f"<tr><td>{i}</td><td>{esc(set_words(res, cid))}<br><small><code>{esc(cid)}</code></small></td>{cells}"
            f"<td>{esc(conf)}{flag}</td></tr>"
        )
    head = "".join(
        f"<th>{esc(g)}<br><small>under {esc(res['primary'][g.split()[0]])}</small></th>" for g in res["goals"]
    )
    cand = (
        (
            f'<div class="scroll"><table><tr><th>rank</th><th>parameter set</th>{head}<th>confidence</th></tr>'
            + "".join(rows)
            + "</table></div>"
        )
        if rows
        else (
            f"<p><strong>No parameter set meets every goal on its estimates.</strong> Sets failing each goal (of {res['binding']['n_sets']}): "
            + ", ".join(f"<code>{esc(g)}</code> {n}" for g, n in res["binding"]["failing"].items())
            + f". The nearest set: <code>{esc(res['binding']['nearest'])}</code>.</p>"
        )
    )
    focus = res.get("recommended") or res.get("binding", {}).get("nearest")
    per_pair = ""
    if focus:
        s = sets[focus]
        body = "".join(
            f"<tr><td>{esc(p)}</td>"
            + "".join(f'<td class="v">{_value(s["figures"][p].get(m), m)}</td>' for m in metrics)
            + f"<td>{'yes' if p in s['holds_under'] else 'no'}</td></tr>"
            for p in res["pairings"]
        )
        per_pair = (
            f"<h2>{'The recommended' if res.get('recommended') else 'The nearest'} set under each pairing</h2>"
            f'<p>{esc(set_words(res, focus))} (<code>{esc(focus)}</code>)</p><div class="scroll"><table><tr><th>pairing</th>'
            + "".join(f"<th>{esc(m)}</th>" for m in metrics)
            + "<th>estimates meet its goals</th></tr>"
            + body
            + "</table></div>"
            + (f"<p><strong>Flag:</strong> the recommendation {esc(res['flag'])}.</p>" if res.get("flag") else "")
        )
    variant = ""
    if res.get("recommended_variant"):
        variant = (
            f"<h2>The recommended rules, as a variant file</h2><p>Saved as <code>{esc(where / VARIANT_FILE)}"
            f"</code>; use it with every other command, e.g. <code>simsuite simulate --variant "
            f"{esc(where / VARIANT_FILE)}</code>.</p><pre>{esc(res['recommended_variant'])}</pre>"
        )
    worded = res["sentence"]
    if res.get("recommended"):  # the bold words above already say what to play
        worded = worded.replace(f"Play {res['recommended']} ({res['base']}): it ", "It ", 1)
    for sid in sorted((x["id"] for x in res["sets"]), key=len, reverse=True):
        worded = worded.replace(sid, set_words(res, sid))
    keys = (
        f'<p class="notes">In the rule file\'s keys: <code>{esc(res["recommended"])}</code>.</p>'
        if res.get("recommended")
        else ""
    )
    x, y = res["tradeoff"]
    fig = figure_html(
        f"Pareto front: {x} against {y}",
        pareto_png(res),
        f"Every parameter set's estimate with its 95% interval (n = deals, at least "
        f"{res['search']['matches']:,} per cell and pairing); blue: estimates meet every goal, grey: not, red: "
        f"recommended, drawn on top; large points and the line: the Pareto front; dashed lines: the goals' bounds; "
        "the numbers name the sets listed under the plot.",
    ) + _points_list(res)
    confirm = ""
    for t in (res.get("confirmation") or {}).get("tried", []):
        body = "".join(
            f"<tr><td>{esc(g['pairing'])}</td><td><code>{esc(g['goal'])}</code></td>"
            f'<td class="v">{_value(g["figure"], g["goal"].split()[0])}</td>'
            f'<td class="v">{_bound_value(g)}</td>'
            f"<td>{'yes' if g['confirmed'] else '<strong>no</strong>'}"
            f"{'' if g['primary'] else ' (not primary: decides nothing)'}</td>"
            "</tr>"
            for g in t["goals"]
        )
        confirm += (
            f"<h2>Confirmation of <code>{esc(t['set'])}</code> on fresh deals: "
            f'{"confirmed" if t["confirmed"] else "not confirmed"}</h2><p class="notes">Played again on '
            f"deals no round had seen (seed {t['seed']}; {esc(confirm_sizes(t))}); each goal tested on those "
            f"deals alone ({esc(level_words(t))}): confirmed when every goal's bound under its primary pairing "
            'meets the goal.</p><div class="scroll"><table><tr><th>pairing</th>'
            "<th>goal</th><th>figure on fresh deals</th><th>one-sided bound</th><th>bound meets the goal</th></tr>"
            + body
            + "</table></div>"
        )
    chk = res.get("check") or {}
    check = ""
    if chk.get("commands"):
        check = (
            f"<h2>An independent check</h2><p>Seed {chk['seed']} (<code>{esc(chk['seed_rule'])}</code>) shares no "
            "deal with the design's rounds or its confirmation; <code>simsuite simulate</code>'s default seed 1 "
            "replays round 0 when the spec's seed is 1. To check the recommendation on new deals:</p><pre>"
            + esc("\n".join(chk["commands"].values()))
            + "</pre>"
        )
    ec = res.get("error_control") or {}
    c = res["cost"]
    goals = "".join(
        f"<li><code>{esc(g)}</code> (judged under {esc(res['primary'][g.split()[0]])})</li>" for g in res["goals"]
    )
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>simsuite design: {esc(Path(res["spec"]).name)}</title>
<style>{CSS}</style>
</head>
<body>
<main>
<h1>simsuite design: {esc(Path(res["spec"]).name)}</h1>
<p class="sub">Which rules meet the organiser's goals? Base rules <code>{esc(res["base"])}</code>;
{len(res["sets"])} parameter sets searched. Every figure is given with its 95% interval and the sample size n it rests
on.</p>
<section id="answer">
<h2>The answer</h2>
<p class="headline" id="headline"><strong>{esc(answer_words(res))}</strong> {esc(worded)}</p>
{keys}
</section>
<h2>The goals</h2>
<ul>{goals}</ul>
<h2>Candidates for confirmation, ranked</h2>
<p class="notes">The parameter sets whose estimates meet every goal; only the confirmation on fresh deals (below)
recommends one. Ranked by how surely they meet the goals: first the sets whose every goal is met for sure (its
screening interval, wider than the 95% one shown, inside the bound),
then those that hold under every pairing, then by the smallest distance of an estimate from its bound in standard
errors. Under each figure: its screening status (met for sure: the whole screening interval meets the goal; not
decided: the interval still straddles the bound after the last round, with the deals that would decide it) and the
distance from the bound to the 95% interval's far end.</p>
{cand}
<h2>The trade-off</h2>
{fig}
{per_pair}
{confirm}
{check}
{variant}
<h2>How it was found</h2>
<p class="notes">{len(res["rounds"])} round(s) of successive sampling: every played cell first, then more hands, under
every pairing, only for the cells of the sets with a goal still undecided. Error control: {esc(ec.get("text", ""))}.
Clock settings were re-scored by the exact match model on the played hands, without new play.
{esc(cost_words(c, len(res["rounds"])))} Method: docs/design.md in the simsuite repository.</p>
<footer>Written by <code>simsuite report</code> from <code>{esc(where)}</code> (spec <code>{esc(res["spec"])}</code>,
seed {res["seed"]}). Self-contained: no network access is needed to view this file.</footer>
</main>
<script>{SCRIPT}</script>
</body>
</html>
"""


__all__ = ["build_design_page", "design_html"]
