"""The design's judgements: goals against figures, the sets still open, the Pareto front, the binding goal."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ...engine.names import pair_text
from .figures import Z95
from .spec import DesignSpec, Goal, ParamSet, defined


def judge(goal: Goal, fig: dict | None, z_crit: float | None = None) -> dict:
    """A goal against one figure: whether the estimate meets it (``meets``), its ``margin`` (the
    distance from the bound to the 95% interval's far end, positive when the whole interval meets
    the goal), ``z`` (the estimate's distance from the bound in standard errors) and the status of
    the screening interval, estimate +- ``z_crit`` SE (default: the 95% interval): meets (the whole
    interval meets the goal), likely (the estimate does, the interval straddles), unlikely (the
    estimate does not, the interval straddles), fails (the whole interval fails it). The SE is the
    figure's ``se``, else its 95% interval's half-width / 1.96; ``z`` is None for no width."""
    if fig is None:
        return {"goal": goal.text(), "status": "no figure", "meets": False, "margin": None, "z": None}
    v = fig["value"]
    lo = fig["low"] if fig["low"] is not None else v
    hi = fig["high"] if fig["high"] is not None else v
    s = goal.sign
    near = lo if s > 0 else hi  # the end closest to failing
    margin = s * (near - goal.bound)
    se = fig.get("se")
    if se is None:
        se = (hi - lo) / (2 * Z95)
    diff = s * (v - goal.bound)
    z = diff / se if se > 0 else None  # no width (e.g. no draw in any deal): the status says it all
    if z_crit is None:
        near_s, far_s = s * (near - goal.bound), s * ((hi if s > 0 else lo) - goal.bound)
    else:
        near_s, far_s = diff - z_crit * se, diff + z_crit * se
    status = "meets" if near_s >= 0 else ("fails" if far_s < 0 else ("likely" if diff >= 0 else "unlikely"))
    return {"goal": goal.text(), "status": status, "meets": diff >= 0, "margin": margin, "z": z}


def judgements(spec: DesignSpec, s: ParamSet) -> list[tuple[int, tuple[str, str]]]:
    """The (goal index, pairing) pairs a set is judged on: every goal under every pairing where its
    metric is defined (the primary pairing decides whether the set is a candidate, the others
    whether it holds under every pairing)."""
    return [(gi, pair) for pair in spec.pairings for gi, g in enumerate(spec.goals) if defined(g.metric, pair)]


def judge_sets(spec: DesignSpec, figs: dict, decided: dict, z_last: dict) -> dict[str, dict]:
    """Per set: each goal judged under its primary pairing, and under every pairing. A judgement
    decided in a round (``decided``: (set, goal index, pairing) -> (status, round)) keeps its status;
    the others are judged on the set's latest figures at the screening level of the round that
    evaluated it last (``z_last``)."""
    out = {}
    for s in spec.sets:
        by_pair: dict[str, list] = {pair_text(p): [] for p in spec.pairings}
        for gi, pair in judgements(spec, s):
            g = spec.goals[gi]
            j = judge(g, figs[s.id][pair_text(pair)].get(g.metric), z_last.get(s.id))
            d = decided.get((s.id, gi, pair))
            if d is not None:
                j.update(status=d[0], meets=d[0] == "meets", decided_round=d[1])
            by_pair[pair_text(pair)].append(j)
        primary = []
        for gi, g in enumerate(spec.goals):
            pt = pair_text(spec.primary(g.metric))
            primary.append(next(j for j in by_pair[pt] if j["goal"] == g.text()))
        meets = all(j["meets"] for j in primary)
        holds = [p for p, js in by_pair.items() if all(j["meets"] for j in js)]
        zs = [j["z"] for j in primary if j["z"] is not None]
        out[s.id] = {
            "goals": primary,
            "by_pairing": by_pair,
            "meets_all": meets,
            "sure": all(j["status"] == "meets" for j in primary),
            "holds_under": holds,
            "robust": len(holds) == len(spec.pairings),
            "min_z": min(zs) if zs else None,
            "failed": sum(not j["meets"] for j in primary),
            "clearly_failed": any(j["status"] == "fails" for j in primary),
        }
    return out


def pareto(points: dict[str, tuple[float, float]], dirs: tuple[int, int]) -> list[str]:
    """The ids not dominated: no other point at least as good on both axes and better on one
    (``dirs``: +1 where larger is better)."""
    front = []
    for a, (xa, ya) in points.items():
        dominated = False
        for b, (xb, yb) in points.items():
            if b == a:
                continue
            ge = dirs[0] * (xb - xa) >= 0 and dirs[1] * (yb - ya) >= 0
            gt = dirs[0] * (xb - xa) > 0 or dirs[1] * (yb - ya) > 0
            if ge and gt:
                dominated = True
                break
        if not dominated:
            front.append(a)
    return sorted(front, key=lambda i: (points[i][0], i))  # along the x axis, for drawing


def pareto_front(spec: DesignSpec, figs: dict) -> list[str]:
    x, y = spec.tradeoff
    px, py = pair_text(spec.primary(x)), pair_text(spec.primary(y))
    pts = {}
    for s in spec.sets:
        fx, fy = figs[s.id][px].get(x), figs[s.id][py].get(y)
        if fx and fy:
            pts[s.id] = (fx["value"], fy["value"])
    return pareto(pts, (spec.direction(x), spec.direction(y)))


def undecided_sets(spec: DesignSpec, decided: dict) -> list[ParamSet]:
    """The sets still undecided: none of their primary goals failed for sure, and some judgement
    (a goal under a pairing) not yet decided either way."""
    out = []
    for s in spec.sets:
        primary = {(gi, spec.primary(g.metric)) for gi, g in enumerate(spec.goals)}
        if any(decided.get((s.id, gi, p), ("",))[0] == "fails" for gi, p in primary):
            continue
        if any((s.id, gi, p) not in decided for gi, p in judgements(spec, s)):
            out.append(s)
    return out


def replay(spec: DesignSpec, open_sets: list[ParamSet], decided: dict) -> dict[tuple[str, str], list[str]]:
    """The played cells to play again: per pairing, those of the sets still undecided that have a
    judgement still open under that pairing (the equal pairings too). A pairing whose judgements
    of a set are all decided adds nothing to them: its figures keep the n they were decided at."""
    todo: dict[tuple[str, str], set[str]] = {}
    for s in open_sets:
        for gi, pair in judgements(spec, s):
            if (s.id, gi, pair) not in decided:
                todo.setdefault(pair, set()).add(s.played)
    return {p: sorted(v) for p, v in todo.items()}


def binding(goals: Sequence[str], judged: dict) -> dict:
    """With no set meeting every goal: the goal that binds, the one failed by the most sets that
    meet every other goal; when every set fails two goals or more, the goals failed by the most
    sets (ties named together). And the nearest set: fewest goals failed, then the largest
    smallest z. ``judged``: set id -> its judgement (``goals``, ``failed``, ``min_z``)."""
    only = {g: 0 for g in goals}
    total = {g: 0 for g in goals}
    for j in judged.values():
        failed = [g["goal"] for g in j["goals"] if not g["meets"]]
        for f in failed:
            total[f] += 1
        if len(failed) == 1:
            only[failed[0]] += 1
    counts = only if any(only.values()) else total
    top = max(counts.values())
    binds = [g for g in goals if counts[g] == top]
    nearest = min(
        judged,
        key=lambda i: (judged[i]["failed"], -(judged[i]["min_z"] if judged[i]["min_z"] is not None else -math.inf), i),
    )
    return {
        "goal": binds[0],
        "goals": binds,
        "sets_failing_only_it": only[binds[0]],
        "failing": {g: total[g] for g in goals},
        "n_sets": len(judged),
        "nearest": nearest,
        "nearest_fails": [g["goal"] for g in judged[nearest]["goals"] if not g["meets"]],
    }


def ranked(spec: DesignSpec, judged: dict) -> list[str]:
    """The candidates (estimates meeting every goal under their primary pairings), best first: every
    goal met for sure, then holding under every pairing, then the largest smallest z."""
    cands = [s.id for s in spec.sets if judged[s.id]["meets_all"]]
    return sorted(
        cands,
        key=lambda i: (
            not judged[i]["sure"],
            not judged[i]["robust"],
            -(judged[i]["min_z"] if judged[i]["min_z"] is not None else math.inf),
            i,
        ),
    )
