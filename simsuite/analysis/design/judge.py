"""The design's judgements: goals against figures (the screening's two-sided intervals, the
confirmation's one-sided bounds), the sets still open, the Pareto front, the binding goal."""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

from ...engine.names import pair_text
from .figures import Z95
from .spec import METRIC_BY_KEY, DesignSpec, Goal, ParamSet, defined

# "n needed" for a judgement still open: the deals at which its screening interval would clear the
# bound with this power, were its estimate the true value (docs/design.md, "The answer")
POWER = 0.80
NOT_DECIDED = "not decided"


def _se(fig: dict) -> float:
    """A figure's standard error: its ``se``, else its 95% interval's half-width / 1.96."""
    se = fig.get("se")
    if se is None:
        lo = fig["low"] if fig.get("low") is not None else fig["value"]
        hi = fig["high"] if fig.get("high") is not None else fig["value"]
        se = (hi - lo) / (2 * Z95)
    return float(se)


def judge(goal: Goal, fig: dict | None, z_crit: float | None = None) -> dict:
    """A goal against one figure: whether the estimate meets it (``estimate_meets``: the point
    estimate alone, never a decision), its ``margin`` (the
    distance from the bound to the 95% interval's far end, positive when the whole interval meets
    the goal), ``z`` (the estimate's distance from the bound in standard errors) and the status of
    the screening interval, estimate +- ``z_crit`` SE (default: the 95% interval): meets (the whole
    interval meets the goal), likely (the estimate does, the interval straddles), unlikely (the
    estimate does not, the interval straddles), fails (the whole interval fails it). The SE is the
    figure's ``se``, else its 95% interval's half-width / 1.96; ``z`` is None for no width."""
    if fig is None:
        return {"goal": goal.text(), "status": "no figure", "estimate_meets": False, "margin": None, "z": None}
    v = fig["value"]
    lo = fig["low"] if fig.get("low") is not None else v
    hi = fig["high"] if fig.get("high") is not None else v
    s = goal.sign
    near = lo if s > 0 else hi  # the end closest to failing
    margin = s * (near - goal.bound)
    se = _se(fig)
    diff = s * (v - goal.bound)
    z = diff / se if se > 0 else None  # no width (e.g. no draw in any deal): the status says it all
    if z_crit is None:
        near_s, far_s = s * (near - goal.bound), s * ((hi if s > 0 else lo) - goal.bound)
    else:
        near_s, far_s = diff - z_crit * se, diff + z_crit * se
    status = "meets" if near_s >= 0 else ("fails" if far_s < 0 else ("likely" if diff >= 0 else "unlikely"))
    return {"goal": goal.text(), "status": status, "estimate_meets": diff >= 0, "margin": margin, "z": z}


def n_needed(goal: Goal, fig: dict | None, z_crit: float, power: float = POWER) -> int | None:
    """The deals at which a judgement still open would be decided: its interval, estimate +-
    ``z_crit`` SE, clears the bound with probability ``power`` were the estimate the true value,
    the SE shrinking as 1 / sqrt(deals) from the figure's (n = ``fig["n"]``):
    n x ((z_crit + z_power) SE / |estimate - bound|)^2, never below n + 1. None with no figure, no
    width, or an estimate on the bound itself (no n decides it)."""
    if fig is None or not fig.get("n"):
        return None
    se, diff = _se(fig), abs(fig["value"] - goal.bound)
    if not se > 0 or diff == 0:
        return None
    z = z_crit + NormalDist().inv_cdf(power)
    return max(int(fig["n"]) + 1, math.ceil(fig["n"] * (z * se / diff) ** 2))


def confirm_goal(goal: Goal, fig: dict | None, alpha: float) -> dict:
    """A goal against a figure of the confirmation's fresh deals, as a one-sided test at level
    ``alpha``: the bound estimate - z SE (a goal ``>=``) or estimate + z SE (``<=``), z = the
    standard normal's 1 - ``alpha`` quantile; ``confirmed`` when that bound meets the goal.

    A share of the simulated hands or matches seen at 0 or 1 with no width (no deal moved it) takes
    the exact binomial bound of a count of 0 in n deals, 1 - alpha^(1/n), not the estimate itself.
    The exact model's figures with no width are their estimates: the chain of the observed outcomes
    admits no other value (no draw under the on-stage tie rule, hands per match under a hand cap)."""
    z = NormalDist().inv_cdf(1 - alpha)
    out = {"goal": goal.text(), "alpha": alpha, "z": z, "level": 1 - alpha}
    if fig is None:
        return {**out, "bound": None, "estimate_meets": False, "confirmed": False, "status": "no figure"}
    v, s, se = fig["value"], goal.sign, _se(fig)
    bound = v - s * z * se
    simulated = str(fig.get("source", "")).startswith("simulated")
    if se == 0 and simulated and METRIC_BY_KEY[goal.metric].share and fig.get("n"):
        edge = 1 - alpha ** (1 / fig["n"])  # no deal moved it: the exact bound of a count of 0 in n
        if v == 0.0 and s < 0:  # an upper bound on a share seen at 0
            bound = edge
        elif v == 1.0 and s > 0:  # a lower bound on a share seen at 1
            bound = 1.0 - edge
    if METRIC_BY_KEY[goal.metric].share:
        bound = min(max(bound, 0.0), 1.0)
    ok = s * (bound - goal.bound) >= 0
    return {
        **out,
        "bound": bound,
        "estimate_meets": s * (v - goal.bound) >= 0,
        "confirmed": ok,
        "status": "confirmed" if ok else "not confirmed",
    }


def confirm_set(spec: DesignSpec, s: ParamSet, figs: dict, alpha: float) -> tuple[bool, list[dict]]:
    """A candidate's confirmation on its fresh deals (``figs``: pairing text -> metric -> figure):
    each goal under each pairing where it is defined, by ``confirm_goal`` at level ``alpha``. It is
    confirmed when every goal under its primary pairing is (the intersection-union test: the
    verdict is wrong only if some goal's own test is, so its level is ``alpha`` whatever the number
    of goals); the other pairings are reported beside it and decide nothing."""
    goals = []
    for gi, pair in judgements(spec, s):
        g = spec.goals[gi]
        f = figs[pair_text(pair)].get(g.metric)
        goals.append(
            {
                **confirm_goal(g, f, alpha),
                "pairing": pair_text(pair),
                "primary": pair == spec.primary(g.metric),
                "figure": f,
            }
        )
    return all(g["confirmed"] for g in goals if g["primary"]), goals


def judgements(spec: DesignSpec, s: ParamSet) -> list[tuple[int, tuple[str, str]]]:
    """The (goal index, pairing) pairs a set is judged on: every goal under every pairing where its
    metric is defined (the primary pairing decides whether the set is a candidate, the others
    whether it holds under every pairing)."""
    return [(gi, pair) for pair in spec.pairings for gi, g in enumerate(spec.goals) if defined(g.metric, pair)]


def judge_sets(spec: DesignSpec, figs: dict, decided: dict, z_last: dict) -> dict[str, dict]:
    """Per set, once the rounds are over: each goal judged under its primary pairing, and under
    every pairing. A judgement decided in a round (``decided``: (set, goal index, pairing) ->
    (status, round)) keeps its status; every other is ``not decided``: its ``lean`` (likely or
    unlikely, on the set's latest figures at the screening level of the round that evaluated it
    last, ``z_last``) and the deals that would decide it (``n_needed``, at that level)."""
    out = {}
    for s in spec.sets:
        by_pair: dict[str, list] = {pair_text(p): [] for p in spec.pairings}
        for gi, pair in judgements(spec, s):
            g = spec.goals[gi]
            j = judge(g, figs[s.id][pair_text(pair)].get(g.metric), z_last.get(s.id))
            d = decided.get((s.id, gi, pair))
            if d is not None:
                j.update(status=d[0], decided_round=d[1])
            elif j["status"] in ("likely", "unlikely") and s.id in z_last:
                f = figs[s.id][pair_text(pair)].get(g.metric)
                j.update(
                    status=NOT_DECIDED,
                    lean=j["status"],
                    n_needed=n_needed(g, f, z_last[s.id]),
                    n_needed_z=z_last[s.id],
                )
            by_pair[pair_text(pair)].append(j)
        primary = []
        for gi, g in enumerate(spec.goals):
            pt = pair_text(spec.primary(g.metric))
            primary.append(next(j for j in by_pair[pt] if j["goal"] == g.text()))
        holds = [p for p, js in by_pair.items() if all(j["estimate_meets"] for j in js)]
        zs = [j["z"] for j in primary if j["z"] is not None]
        out[s.id] = {
            "goals": primary,
            "by_pairing": by_pair,
            "estimates_meet_all": all(j["estimate_meets"] for j in primary),
            "sure": all(j["status"] == "meets" for j in primary),
            "not_decided": [j["goal"] for j in primary if j["status"] == NOT_DECIDED],
            "holds_under": holds,
            "robust": len(holds) == len(spec.pairings),
            "min_z": min(zs) if zs else None,
            "failed": sum(not j["estimate_meets"] for j in primary),
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
        failed = [g["goal"] for g in j["goals"] if not g["estimate_meets"]]
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
        "nearest_fails": [g["goal"] for g in judged[nearest]["goals"] if not g["estimate_meets"]],
    }


def ranked(spec: DesignSpec, judged: dict) -> list[str]:
    """The candidates for confirmation (estimates meeting every goal under their primary pairings, no
    primary goal failed for sure), best first: every goal met for sure, then holding under every
    pairing, then the largest smallest z. A candidate is not a recommendation: only the
    confirmation decides (``confirm_set``)."""
    cands = [s.id for s in spec.sets if judged[s.id]["estimates_meet_all"] and not judged[s.id]["clearly_failed"]]
    return sorted(
        cands,
        key=lambda i: (
            not judged[i]["sure"],
            not judged[i]["robust"],
            -(judged[i]["min_z"] if judged[i]["min_z"] is not None else math.inf),
            i,
        ),
    )
