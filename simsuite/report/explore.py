"""The rules explorer (``simsuite explore RUN -o explorer.html``, docs/explore.md): one self-contained
HTML page where an organiser moves a rule and sees the match change at once.

``build_explorer(results, out)`` reads a results folder (a run, a sweep, or a design folder's runs),
reduces every played cell to its hands (``simsuite.analysis.explore.cell_model``) and writes one
HTML file: the figures first (each with its 95% interval and n), the controls beside them, what the
page computes, then what was run. The page's script (``explore.js``, package data) re-scores the
hands and solves the exact match model in the browser on every change; ``simsuite.analysis.explore``
is its Python twin. The cells' hands travel in the page as base64 arrays; it needs no network.
"""

from __future__ import annotations

import base64
import datetime as _dt
import json
import shlex
from importlib import resources
from pathlib import Path

import numpy as np
import polars as pl

from ..analysis.exact import TOL, UNTIMED_CAP
from ..analysis.explore import FIGURES, Setting, cell_model
from ..errors import SimsuiteError
from ..rules.cards import RANK_NAMES
from ..rules.choices import DealerRotation, TieRule, TournamentFormat
from ..rules.words import field_words
from .page import CSS, check_writable, esc, write_page

# the rule fields the page re-scores (its controls), by their variant names; a sweep that varies one of
# them still offers its cells as played ("hands played under")
RESCORED = (
    "step",
    "takeover",
    "start_level",
    "end_level",
    "match_minutes",
    "no_new_hand_minutes",
    "warning_minute",
    "hands_after_warning",
    "tie_rule",
    "seconds_per_trick",
)

CHOICE_WORDS = {
    "variant": "rules (variant)",
    "policies": "policy pairing",
    "decks": "decks",
    "bottom_size": "bottom size",
    "capture_per_card": "capture multiplier",
}

# the most hands after the warning the exact model's state codes hold (a 5-bit warning counter, exact.codes)
MAX_AFTER_WARNING = 30

MODEL_SENTENCE = (
    "The hands are re-scored, not replayed: each keeps the points it fell with under the rules it was "
    "played under, and only how those points become levels, and when the match ends, follow the setting "
    "(players who aimed at other thresholds might have played otherwise)."
)


def _b64(a: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(a).tobytes()).decode("ascii")


def _cell_payload(cell: dict, v, h: pl.DataFrame, m: pl.DataFrame, seed: int) -> dict:
    """One played cell as the page needs it: its rules, the setting it was played under, which team
    is the stronger pair, and its hands (the columns ``HandData`` keeps) as base64 arrays."""
    model = cell_model(h, m, v, seed=seed)
    d = model.data
    if d.tricks.max(initial=0) > 255:  # pragma: no cover - at most 54 x 4 cards a hand
        raise SimsuiteError(f"cell {cell['id']}: hands too long for the explorer's arrays")
    s = Setting.played(v)
    if d.a_policy == d.b_policy:
        stronger = f"one policy, {d.a_policy}, on both sides"
    else:
        win, lose = (d.a_policy, d.b_policy) if model.stronger == 0 else (d.b_policy, d.a_policy)
        stronger = f"{win}, against {lose}"
    return {
        "id": cell["id"],
        "n_deals": int(d.n_deals),
        "n_hands": int(d.deal.size),
        "stronger": model.stronger,
        "stronger_name": stronger,
        "a": d.a_policy,
        "b": d.b_policy,
        "point_levels": [RANK_NAMES[x] for x in model.point_levels],
        "rules": {
            "decks": int(v.decks),
            "special": [int(x) for x in v.permanent_trump_ranks],
            "point_levels": [int(x) for x in model.point_levels],
            "rotate": v.dealer_rotation == DealerRotation.ROTATE,
            "must_defend": bool(v.must_defend_end_level),
            "takeover_bonus": int(v.takeover_bonus),
            "declarer_cap": int(v.declarer_cap),
            "zero_bonus": int(v.zero_bonus),
            "below_zero_step": bool(v.below_zero_step),
            "defender_cap": int(v.defender_cap),
            "overhead_x100": round(v.hand_overhead_minutes * 100),
            "spt_x100": round(v.seconds_per_trick * 100),
            "knockout": v.tournament_format == TournamentFormat.KNOCKOUT,
        },
        "played": {
            "step": s.step,
            "takeover": s.takeover,
            "start": s.start_level,
            "end": s.end_level,
            "minutes": s.match_minutes,
            "nonew": s.no_new_hand_minutes,
            "warn": s.warning_minute,
            "after": s.hands_after_warning,
            "tie": s.tie_rule,
            "pace": s.pace,
        },
        "facts": _facts(v, d.a_policy, d.b_policy),
        "hands": {
            "deal": _b64(d.deal.astype("<i4")),
            "flags": _b64((d.first.astype(np.uint8) | (d.a_declares.astype(np.uint8) << 1)).astype(np.uint8)),
            "level": _b64(d.level.astype(np.uint8)),
            "points": _b64(d.final_points.astype("<i4")),
            "tricks": _b64(d.tricks.astype(np.uint8)),
        },
    }


def _facts(v, a: str, b: str) -> str:
    """What a cell was played with that the page cannot change, in words."""
    capture = (
        "no capture"
        if str(v.capture_by) == "none"
        else f"last-trick capture by {v.capture_by} ({str(v.capture_scheme).replace('_', ' ')}, ×{v.capture_per_card})"
    )
    pair = f"{a} vs {b}" if a != b else f"{a} on both sides"
    return f"{v.id}: {v.decks} decks, bottom {v.bottom_size}, {capture}; {pair}"


def _sources(path: Path) -> list[Path]:
    """The results folders to read: the folder itself, or a design folder's runs (``runs/*``: its
    rounds and confirmations, whose hands of the same cell and pairing are pooled)."""
    if (path / "design.json").is_file() and (path / "runs").is_dir():
        runs = sorted(p for p in (path / "runs").iterdir() if (p / "manifest.json").is_file())
        if not runs:
            raise SimsuiteError(f"{path}: a design folder with no runs yet (runs/ is empty)")
        return runs
    return [path]


def explorer_data(results: str | Path, seed: int = 0) -> dict:
    """Everything the page embeds: per played cell its payload (``_cell_payload``), the choices
    among the cells (each field whose value differs between them, with the played values), and the
    run's provenance. A design folder's runs are read together: the hands of one cell under one
    pairing, from every round and confirmation, make one cell (other seeds: other deals)."""
    from ..sim.results import load

    path = Path(results)
    groups: dict[tuple, dict] = {}
    runs = []
    for folder in _sources(path):
        r = load(folder)
        variants = r.variants()
        h_all, m_all = r.hands.collect(), r.matches.collect()
        runs.append(
            {
                "folder": str(folder),
                "kind": r.manifest.get("kind"),
                "command": r.manifest.get("command"),
                "seed": r.manifest.get("seed"),
                "version": r.manifest.get("package_version"),
                "complete": r.complete,
            }
        )
        for cell in r.manifest.get("cells", []):
            cid = cell["id"]
            v = variants.get(cid)
            if v is None:
                raise SimsuiteError(f"cell {cid!r}: its rules no longer load or changed since the run")
            h = h_all.filter(pl.col("cell") == cid)
            m = m_all.filter(pl.col("cell") == cid)
            if m.height == 0:
                continue
            g = groups.setdefault(
                (cid, str(cell.get("policies")), v.rules_hash), {"cell": cell, "v": v, "h": [], "m": []}
            )
            g["h"].append(h)
            g["m"].append(m)
    if not groups:
        raise SimsuiteError(f"{path}: no finished matches to explore (the run has no done chunks yet)")
    several = len({k[:2] for k in groups}) > len({k[0] for k in groups})  # one cell id under several pairings
    cells = []
    for (cid, pairing, _), g in groups.items():
        h, m = pl.concat(g["h"], how="vertical_relaxed"), pl.concat(g["m"], how="vertical_relaxed")
        pay = _cell_payload(g["cell"], g["v"], h, m, seed)
        pay["id"] = f"{cid} | {pairing}" if several else cid
        pay["fields"] = {
            "variant": g["v"].id,
            "policies": f"{pay['a']} vs {pay['b']}",
            **{k: v for k, v in (g["cell"].get("overrides") or {}).items()},
        }
        pay["matches"] = int(m.height)
        cells.append(pay)
    keys = []
    for c in cells:
        keys += [k for k in c["fields"] if k not in keys]
    choices = []
    for k in keys:
        vals = [str(c["fields"].get(k, "")) for c in cells]
        if len(set(vals)) > 1:
            order = sorted(set(vals), key=lambda x: (_num(x) is None, _num(x) or 0, x))
            label = CHOICE_WORDS.get(k, k.replace("_", " ")) + (" (hands played under)" if k in RESCORED else "")
            choices.append({"field": k, "label": label, "values": order, "words": [field_words(k, x) for x in order]})
    for c in cells:
        c["choice"] = [str(c["fields"].get(ch["field"], "")) for ch in choices]
        c["label"] = ", ".join(field_words(ch["field"], x) for ch, x in zip(choices, c["choice"])) or c["id"]
    return {
        "cells": cells,
        "choices": choices,
        "figures": [list(f) for f in FIGURES],
        "ranks": list(RANK_NAMES),
        "tol": TOL,
        "untimed_cap": UNTIMED_CAP,
        "max_hands": _max_hands(),
        "max_after": MAX_AFTER_WARNING,
        "runs": runs,
        "path": str(path),
    }


def _max_hands() -> int:
    from ..sim.match import MAX_HANDS_PER_MATCH

    return int(MAX_HANDS_PER_MATCH)


def _num(x: str) -> float | None:
    try:
        return float(x)
    except ValueError:
        return None


def _script() -> str:
    return resources.files("simsuite.report").joinpath("explore.js").read_text(encoding="utf-8")


EXTRA_CSS = """
.explore{display:grid;grid-template-columns:minmax(0,1fr) 340px;gap:24px;align-items:start}
@media (max-width:980px){.explore{grid-template-columns:minmax(0,1fr)}}
#figures{width:100%} #figures td.v{min-width:9em} #figures th.now,#figures th.pinned{width:30%}
#figures .val{font-weight:600} #figures td.n{text-align:right;color:#5a6570}
#figures .na{color:#8a949e}
.setting{font-weight:normal;color:#38424c;font-size:.9em;display:block}
form.controls{background:#f7f9fb;border:1px solid #dde3ea;padding:10px 14px}
form.controls fieldset{border:0;border-top:1px solid #dde3ea;margin:8px 0 0;padding:6px 0 0}
form.controls fieldset:first-child{border-top:0;margin-top:0}
form.controls legend{font-weight:600;font-size:.95em;padding:0}
form.controls label{display:block;margin:7px 0 0;font-size:.9em}
form.controls input[type=range]{width:100%}
form.controls input[type=number]{width:6em}
form.controls output{color:#38424c;font-size:.9em}
form.controls .hint{font-size:.8em;color:#5a6570;margin:6px 0 0}
.buttons{margin-top:12px;display:flex;gap:8px;flex-wrap:wrap}
.buttons button{font:inherit;font-size:.9em;padding:4px 10px}
.headline p{margin:4px 0} .headline p.n{font-size:.85em;color:#5a6570}
svg#plot{width:100%;max-width:620px;height:auto;border:1px solid #e3e7ec;background:#fff}
"""


def _controls(data: dict) -> str:
    c0 = data["cells"][0]
    ranks = "".join(f'<option value="{i}">{esc(r)}</option>' for i, r in enumerate(RANK_NAMES))
    if data["choices"]:
        played = "".join(
            f'<label>{esc(ch["label"])} <select id="ctl-cell-{i}">'
            + "".join(f'<option value="{esc(v)}">{esc(w)}</option>' for v, w in zip(ch["values"], ch["words"]))
            + "</select></label>"
            for i, ch in enumerate(data["choices"])
        )
    else:
        played = f"<p class='hint'>{esc(c0['facts'])}</p>"
    variant = c0["fields"]["variant"]
    a, b = c0["a"], c0["b"]
    pol = a if a == b else f"{a},{b}"
    cmd = f"simsuite sweep --variant {variant} --grid bottom_size=6,10 --policies {pol} --out results/NAME"
    tie = "".join(
        f'<option value="{t.value}">{w}</option>'
        for t, w in ((TieRule.DRAW, "a draw"), (TieRule.ON_STAGE, "the team on stage wins"))
    )
    return f"""<form class="controls" id="controls" onsubmit="return false">
<fieldset><legend>Hands played</legend>{played}
<p class="hint" id="cell-note"></p>
<p class="hint">Decks, bottom size, the capture rule and multiplier and the policy pairing change how the cards
are played, so only the played cells are offered; any other needs a run, such as <code>{esc(cmd)}</code>, then
<code>simsuite explore results/NAME</code>.</p></fieldset>
<fieldset><legend>Scoring</legend>
<label for="ctl-step">Step (points a level) <output id="out-step"></output></label>
<input type="range" id="ctl-step" min="5" max="200" step="5">
<label for="ctl-takeover">Take-over (defenders' points) <output id="out-takeover"></output></label>
<input type="range" id="ctl-takeover" min="5" max="200" step="5">
<label>Start level <select id="ctl-start">{ranks}</select></label>
<label>End level <select id="ctl-end">{ranks}</select></label></fieldset>
<fieldset><legend>Clock</legend>
<label>Match minutes (0: untimed) <input type="number" id="ctl-minutes" min="0" max="1440" step="1"></label>
<label>No new hand in the last … minutes <input type="number" id="ctl-nonew" min="0" max="1440" step="1"></label>
<label>Warning at minute (0: none) <input type="number" id="ctl-warn" min="0" max="1440" step="1"></label>
<label>Hands after the warning <input type="number" id="ctl-after" min="0" max="{MAX_AFTER_WARNING}" step="1"></label>
<label>Equal levels at time <select id="ctl-tie">{tie}</select></label></fieldset>
<fieldset><legend>Duration model</legend>
<label for="ctl-pace">A typical action takes <output id="out-pace"></output></label>
<input type="range" id="ctl-pace" min="25" max="60" step="5">
<p class="hint">The band of docs/clock.md: 0.25 to 0.6 of the rule documents' time limits (0.4 as played).</p>
</fieldset>
<div class="buttons"><button type="button" id="pin">Pin this setting</button>
<button type="button" id="unpin">Unpin</button><button type="button" id="reset">Back to the played rules</button></div>
</form>"""


def _figure_rows() -> str:
    rows = []
    for key, label in FIGURES:
        if key == "stronger_win":
            label = '<span id="stronger-label">the stronger pair wins</span>'
        else:
            label = esc(label)
        rows.append(
            f'<tr id="fig-{key}"><th>{label}</th><td class="v cur"></td><td class="v pin"></td><td class="n"></td></tr>'
        )
    return "\n".join(rows)


def _provenance(data: dict) -> str:
    runs = []
    for r in data["runs"]:
        cmd = shlex.join(r["command"]) if isinstance(r["command"], list) else str(r["command"] or "")
        runs.append(
            f"<tr><td><code>{esc(r['folder'])}</code></td><td>{esc(r['kind'])}</td><td><code>{esc(cmd)}</code></td>"
            f"<td>{esc(r['seed'])}</td><td>{'complete' if r['complete'] else 'incomplete: the done chunks only'}</td></tr>"
        )
    cells = []
    for c in data["cells"]:
        lv = ", ".join(c["point_levels"]) or "none"
        cells.append(
            f"<tr><td>{esc(c['label'])}</td><td>{esc(c['facts'])}</td><td class='n'>{c['matches']:,}</td>"
            f"<td class='n'>{c['n_deals']:,}</td><td class='n'>{c['n_hands']:,}</td><td>{esc(lv)}</td></tr>"
        )
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"""<section id="provenance"><h2>What was run</h2>
<div class="scroll"><table class="kv"><tr><th>folder</th><th>kind</th><th>command</th><th>seed</th><th>chunks</th></tr>
{"".join(runs)}</table></div>
<div class="scroll"><table><tr><th>cell</th><th>played with</th><th>matches</th><th>deals (n)</th><th>hands</th>
<th>levels modelled apart (level check)</th></tr>{"".join(cells)}</table></div>
<footer>Written by <code>simsuite explore</code> on {now}; the runs were made by simsuite
{esc(", ".join(sorted({str(r["version"]) for r in data["runs"]})))}. The page needs no network.</footer>
</section>"""


def _other_step(step: int) -> int:
    """The step of the page's opening question: 10 points less, where that leaves a step."""
    return step - 10 if step > 10 else step + 5


def explorer_page(data: dict) -> str:
    """The page's HTML: the answer (figures and plot) first, the controls beside it, then the model in
    words and what was run."""
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    c0 = data["cells"][0]
    title = f"Rules explorer: {Path(data['path']).name or data['path']}"
    hands = sum(c["n_hands"] for c in data["cells"])
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(title)}</title><style>{CSS}{EXTRA_CSS}</style></head>
<body><main>
<h1>{esc(title)}</h1>
<section id="answer" class="explore"><div>
<div class="headline" id="headline"><p><strong>This setting</strong> (<span id="head-now"></span>):
<span id="head-now-figs"></span>.</p>
<p id="head-pin" hidden><strong>Pinned</strong> (<span id="head-pin-words"></span>): <span id="head-pin-figs"></span>.</p>
<p class="n">95% intervals in brackets; n = <span id="head-n"></span> deals.</p></div>
<p class="sub">What if the step were {_other_step(c0["played"]["step"])} instead of {c0["played"]["step"]}? Move a rule on the right: every figure is recomputed at once
from the {hands:,} hands already played, each with its 95% interval and n (the deals).</p>
<div class="scroll"><table class="metrics" id="figures"><thead><tr><th>figure</th>
<th class="now">this setting <span class="setting" id="cur-words"></span></th>
<th class="pinned">pinned <span class="setting" id="pin-words"></span></th><th>n (deals)</th></tr></thead>
<tbody>
{_figure_rows()}
</tbody></table></div>
<p class="warn" id="problem" hidden></p><p class="warn" id="pin-problem" hidden></p>
<figure><svg id="plot" viewBox="0 0 520 200" role="img" aria-label="match length"></svg>
<figcaption><strong>Match length.</strong> The share of matches that last each number of hands: this setting (blue
bars) and the pinned one (orange outline), from the model of <span id="n-deals">{c0["n_deals"]:,}</span> deals
(n); the mean and its 95% interval are the first row above.</figcaption></figure>
</div>
{_controls(data)}
</section>
<section id="model"><h2>What the page computes</h2>
<p><strong>{esc(MODEL_SENTENCE)}</strong></p>
<p>The figures are those of <code>simsuite exact</code>'s match model (docs/metrics.md): each hand's outcome is
drawn from the hands played under the same condition (the first hand; the declaring pair; the level group), and
the match is solved exactly as a chain over the levels, the declarers, the leader, the warning and the tricks
played (no matches simulated). The take-over rate and the two-level swings are shares of the modelled match's
hands. Each 95% interval is the bootstrap over deals, linearised (the delta method: every deal's influence on the
figure, from one backward pass over the chain), so that the page can redo it on every change; n is the deals.
<code>simsuite exact</code> gives the same figures for the clock and the duration model
(<code>--set</code>; the bands with <code>--approximate</code>). The pace scales the rule documents' time limits
(docs/clock.md). The setting lives in the page's address after <code>#</code>: copy it to link to it.</p>
</section>
{_provenance(data)}
</main>
<script type="application/json" id="explore-data">{payload}</script>
<script>{_script()}</script>
</body></html>
"""


def build_explorer(results: str | Path, out: str | Path, seed: int = 0) -> Path:
    """Write the explorer page of ``results`` to ``out``; returns its path."""
    out = Path(out)
    check_writable(out)
    page = explorer_page(explorer_data(results, seed=seed))
    write_page(out, page)
    return out


__all__ = ["MODEL_SENTENCE", "build_explorer", "explorer_data", "explorer_page"]
