"""`simsuite design`: the rule parameters that meet an organiser's goals (docs/design.md).

The search plays only what decides. Parameters that change play (bottom, capture, bands, decks)
are *played cells*, simulated through the harness's executor (resumable, loky or Dask); the clock
and duration-model parameters are re-scored on a played cell's hands by the exact match model,
which is exact for them (``design_spec.RESCORED_KEYS``). Match figures come from the exact model
(its bootstrap over deals gives the interval); per-hand figures from the simulated hands
(``metrics.summarise``). Sampling is successive: round 0 plays ``matches`` of every played cell
under every pairing; each later round multiplies by ``growth`` the matches of the cells still
undecided, those with a parameter set whose interval straddles a goal's bound (and no goal
clearly failed) or that lies on the trade-off's Pareto front, until none is left or ``rounds``.
Round ``r`` plays new deals (its own seed), so the rounds add up.

Everything is written under the output folder: ``runs/`` (one results folder per round and
pairing), ``design.json`` (every figure with its n and interval, the ranking, the front, the
cost), ``design.txt`` (what was printed) and ``recommended.toml`` (the recommended rules as a
variant file).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Sequence

import numpy as np
import polars as pl

from ..engine.names import pair_text
from ..errors import SimsuiteError, toml_value
from ..sim.limits import MAX_SEED
from ..sim.spec import Cell, ExecOptions, Plan, _check_exec, check_out
from .design_spec import MAX_PLAYED_CELLS, METRIC_BY_KEY, DesignSpec, Goal, ParamSet, defined, read_design

SPEC_COPY = "design-spec.toml"
RESULT = "design.json"
TEXT = "design.txt"
VARIANT_FILE = "recommended.toml"
RUNS = "runs"


# --- where and what to play -------------------------------------------------------------------------


def round_seed(seed: int, r: int) -> int:
    """Round 0 plays the spec's seed (the deals a sweep with that seed plays); round r > 0 its own
    seed from ``SeedSequence([seed, r])``, so later rounds add new deals."""
    if r == 0:
        return seed
    return int(np.random.SeedSequence([seed, r]).generate_state(2, dtype=np.uint64)[0] % MAX_SEED)


def pairing_slug(pair: tuple[str, str]) -> str:
    return "-".join(pair).replace("/", "_").replace(":", "_").replace(".", "_")


def run_dir(out: Path, r: int, pair: tuple[str, str]) -> Path:
    return out / RUNS / f"round{r}-{pairing_slug(pair)}"


def round_matches(spec: DesignSpec, r: int) -> int:
    """Matches a cell still undecided gets in round r (its total after round r is matches x growth^r)."""
    m, g = spec.search["matches"], spec.search["growth"]
    return m if r == 0 else m * g ** r - m * g ** (r - 1)


def _prepare_out(spec: DesignSpec, out: Path) -> None:
    """A new folder, or one that holds this same design (then it resumes); refuse anything else."""
    if out.exists() and out.is_dir() and any(out.iterdir()):
        copy = out / SPEC_COPY
        if not copy.is_file():
            raise SimsuiteError(f"--out {out}: the folder exists and is not a simsuite design (no {SPEC_COPY}); "
                                "choose another --out or delete it")
        there = json.loads((out / "design-spec.json").read_text()) if (out / "design-spec.json").is_file() else None
        if there != json.loads(json.dumps(spec.raw, default=str)):
            raise SimsuiteError(f"--out {out} holds a different design (its {SPEC_COPY} differs from {spec.path}); "
                                "choose another --out or delete it")
        return
    check_out(out)  # a file, or a folder that cannot be written or created
    try:
        out.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(spec.path, out / SPEC_COPY)
        (out / "design-spec.json").write_text(json.dumps(spec.raw, default=str, sort_keys=True))
    except OSError as exc:
        raise SimsuiteError(f"--out {out}: cannot create it: {exc}") from None


def _play_round(spec: DesignSpec, out: Path, r: int, todo: dict[tuple[str, str], list[str]],
                opts: ExecOptions, command: Sequence[str]) -> None:
    """Play round r: per pairing, the listed played cells, ``round_matches`` each, through the
    harness's executor (one results folder per pairing; a rerun resumes it)."""
    from ..sim.executor import execute

    n = round_matches(spec, r)
    for pair in spec.pairings:
        ids = todo.get(pair) or []
        if not ids:
            continue
        cells = [Cell(c.id, c.variant, c.given, c.overrides, pair, n) for c in (spec.played[i] for i in ids)]
        plan = Plan("sweep", cells, round_seed(spec.seed, r), pair[0] != pair[1], spec.chunk, run_dir(out, r, pair),
                    list(command), {"spec_path": spec.path, "spec": {"design": spec.raw, "round": r,
                                                                     "pairing": pair_text(pair)}})
        if not opts.quiet:
            print(f"design: round {r}, {pair_text(pair)}: {len(cells)} cell(s) x {n:,} matches", file=sys.stderr)
        execute(plan, opts)


# --- figures ----------------------------------------------------------------------------------------


def _load_played(out: Path, spec: DesignSpec, rounds: int) -> dict[tuple[str, tuple[str, str]], tuple]:
    """Every played cell's hands and matches under each pairing, all rounds together."""
    from ..sim.results import load

    frames: dict[tuple[str, tuple[str, str]], list] = {}
    for r in range(rounds):
        for pair in spec.pairings:
            d = run_dir(out, r, pair)
            if not (d / "manifest.json").is_file():
                continue
            res = load(d)
            h, m = res.hands.collect(), res.matches.collect()
            for cid in m["cell"].unique().to_list():
                frames.setdefault((cid, pair), []).append((h.filter(pl.col("cell") == cid),
                                                           m.filter(pl.col("cell") == cid)))
    return {k: (pl.concat([a for a, _ in v], how="vertical_relaxed"), pl.concat([b for _, b in v], how="vertical_relaxed"))
            for k, v in frames.items()}


def _fig(d: dict | None, source: str) -> dict | None:
    if not d or d.get("value") is None:
        return None
    return {"value": float(d["value"]), "low": d.get("low"), "high": d.get("high"), "n": int(d.get("n") or 0),
            "source": source}


def _exact(h: pl.DataFrame, m: pl.DataFrame, variant, rescore: dict, reps: int, seed: int) -> dict | None:
    """The exact model's figures of one played cell re-scored under ``rescore`` (in a worker)."""
    from .exact import exact_model

    try:
        return exact_model(h, m, variant, rescore or None, reps=reps, seed=seed, values=False)["figures"]
    except SimsuiteError:
        return None


def evaluate(spec: DesignSpec, played: dict, jobs: int = 1, cache: dict | None = None,
             only: set | None = None) -> dict:
    """Per parameter set, per pairing text, per metric of the goals (and the trade-off): the figure
    with its interval and n (None where undefined). Match figures from the exact model re-scored
    under the set's clock keys; where the model gives none (an untimed match's minutes) or cannot
    be solved, from the simulated matches; per-hand figures from the simulated hands. The exact
    models run in ``jobs`` processes, each seeded alike, so the figures do not depend on ``jobs``;
    ``cache`` keeps a figure until its played cell gets more hands; ``only``: the (set id, pairing)
    pairs to evaluate (the others are None), default all."""
    import joblib

    from .metrics import summarise

    cache = {} if cache is None else cache
    # hands per match always: the same solve gives it, and the brute-force estimate of the cost needs it
    metrics = sorted({g.metric for g in spec.goals} | set(spec.tradeoff) | {"hands_per_match"})
    need_exact = any(METRIC_BY_KEY[k].source == "exact" for k in metrics)
    tasks, keys = [], []
    for s in spec.sets:
        for pair in spec.pairings:
            key = (s.played, pair)
            if key not in played or (only is not None and (s.id, pair) not in only):
                continue
            h, m = played[key]
            ck = (s.id, pair, h.height)
            if ck in cache:
                continue
            cell = spec.played[s.played]
            hk = ("hands", s.played, pair, h.height)
            if hk not in cache:
                cache[hk] = summarise(h, m, by="cell", variants={cell.id: cell.variant}, seed=spec.seed,
                                      reps=spec.search["reps"] * 10)[0]
            if need_exact:
                tasks.append(joblib.delayed(_exact)(h, m, cell.variant, s.rescore, spec.search["reps"], spec.seed))
            keys.append(ck)
    if need_exact and tasks:
        n_jobs = min(jobs if jobs > 0 else os.cpu_count() or 1, len(tasks))
        if n_jobs > 1:
            from ..sim.executor import local_processes

            with local_processes():  # the pool that played the rounds, reused
                exacts = joblib.Parallel(n_jobs=n_jobs)(tasks)
        else:
            exacts = [t[0](*t[1], **t[2]) for t in tasks]
    else:
        exacts = [None] * len(keys)
    for ck, ex in zip(keys, exacts):
        cache[ck] = ex
    out: dict = {}
    for s in spec.sets:
        out[s.id] = {}
        for pair in spec.pairings:
            figs: dict[str, dict | None] = {m: None for m in metrics}
            out[s.id][pair_text(pair)] = figs
            key = (s.played, pair)
            if key not in played or (only is not None and (s.id, pair) not in only):
                continue
            h, _ = played[key]
            sim = cache[("hands", s.played, pair, h.height)]
            ex = cache[(s.id, pair, h.height)]
            for k in metrics:
                if not defined(k, pair):
                    continue
                dm = METRIC_BY_KEY[k]
                if dm.source == "hands":
                    figs[k] = _fig(sim.get(dm.source_key), "simulated hands")
                    continue
                f = _fig(ex.get(dm.source_key), "exact model") if ex else None
                if f is None and not s.rescore and dm.fallback:  # simulated matches of these very rules
                    f = _fig(sim.get(dm.fallback), "simulated matches")
                figs[k] = f
    return out


# --- judging ----------------------------------------------------------------------------------------


def judge(goal: Goal, fig: dict | None) -> dict:
    """A goal against one figure: whether the estimate meets it, how surely (``margin``: the
    distance from the bound to the interval's far end, positive when the whole interval meets the
    goal; ``z``: the estimate's distance from the bound in standard errors, from the interval's
    half-width / 1.96) and the status: meets (whole interval), likely (estimate meets, interval
    straddles), unlikely (estimate fails, interval straddles), fails (whole interval). ``z`` is None
    for an interval of no width."""
    if fig is None:
        return {"goal": goal.text(), "status": "no figure", "meets": False, "margin": None, "z": None}
    v = fig["value"]
    lo = fig["low"] if fig["low"] is not None else v
    hi = fig["high"] if fig["high"] is not None else v
    s = goal.sign
    near, far = (lo, hi) if s > 0 else (hi, lo)  # near: the end closest to failing
    margin = s * (near - goal.bound)
    se = (hi - lo) / 3.92
    diff = s * (v - goal.bound)
    z = diff / se if se > 0 else None  # no width (e.g. no draw in any resample): the status says it all
    worst = s * (far - goal.bound)
    status = "meets" if margin >= 0 else ("fails" if worst < 0 else ("likely" if diff >= 0 else "unlikely"))
    return {"goal": goal.text(), "status": status, "meets": diff >= 0, "margin": margin, "z": z}


def _judge_sets(spec: DesignSpec, figs: dict) -> dict[str, dict]:
    """Per set: each goal judged under its primary pairing, and under every other pairing."""
    out = {}
    for s in spec.sets:
        primary, others = [], {}
        for g in spec.goals:
            p = spec.primary(g.metric)
            primary.append(judge(g, figs[s.id][pair_text(p)].get(g.metric)))
        for pair in spec.pairings:
            others[pair_text(pair)] = [judge(g, figs[s.id][pair_text(pair)].get(g.metric))
                                       for g in spec.goals if defined(g.metric, pair)]
        meets = all(j["meets"] for j in primary)
        holds = [p for p, js in others.items() if all(j["meets"] for j in js)]
        zs = [j["z"] for j in primary if j["z"] is not None]
        out[s.id] = {"goals": primary, "by_pairing": others, "meets_all": meets,
                     "sure": all(j["status"] == "meets" for j in primary), "holds_under": holds,
                     "robust": len(holds) == len(spec.pairings), "min_z": min(zs) if zs else None,
                     "failed": sum(not j["meets"] for j in primary),
                     "clearly_failed": any(j["status"] == "fails" for j in primary)}
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


def _front(spec: DesignSpec, figs: dict) -> list[str]:
    x, y = spec.tradeoff
    px, py = pair_text(spec.primary(x)), pair_text(spec.primary(y))
    pts = {}
    for s in spec.sets:
        fx, fy = figs[s.id][px].get(x), figs[s.id][py].get(y)
        if fx and fy:
            pts[s.id] = (fx["value"], fy["value"])
    return pareto(pts, (spec.direction(x), spec.direction(y)))


def _undecided(spec: DesignSpec, judged: dict, front: list[str]) -> dict[tuple[str, str], list[str]]:
    """The played cells (per pairing) that decide something: a set whose primary goals straddle a
    bound with none clearly failed, or a set on the front with none clearly failed; the pairings
    played more are the primary ones and those where one of its goals straddles."""
    todo: dict[tuple[str, str], set[str]] = {}
    primaries = {spec.primary(g.metric) for g in spec.goals}
    for s in spec.sets:
        j = judged[s.id]
        if j["clearly_failed"]:
            continue
        straddles = any(g["status"] in ("likely", "unlikely") for g in j["goals"])
        if not straddles and s.id not in front:
            continue
        for pair in spec.pairings:
            strad = any(g["status"] in ("likely", "unlikely") for g in j["by_pairing"][pair_text(pair)])
            if pair in primaries or strad:
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
    nearest = min(judged, key=lambda i: (judged[i]["failed"], -(judged[i]["min_z"] if judged[i]["min_z"] is not None
                                                                 else -math.inf), i))
    return {"goal": binds[0], "goals": binds, "sets_failing_only_it": only[binds[0]],
            "failing": {g: total[g] for g in goals}, "n_sets": len(judged), "nearest": nearest,
            "nearest_fails": [g["goal"] for g in judged[nearest]["goals"] if not g["meets"]]}


# --- the search -------------------------------------------------------------------------------------


def design(spec_path: str | Path, out: str | Path | None = None, *, jobs: int = 1, backend: str = "loky",
           scheduler: str | None = None, quiet: bool = False, command: Sequence[str] | None = None,
           break_lock: bool = False, max_cells: int = MAX_PLAYED_CELLS) -> dict:
    """Run the design search of ``spec_path`` into ``out`` (resuming what is there) and return
    the result (also written to ``out/design.json``). ``max_cells``: the most played cells the spec
    may imply (``design_spec.MAX_PLAYED_CELLS`` unless the caller raises it)."""
    from ..sim.limits import check_int

    opts = ExecOptions(jobs, backend, scheduler, quiet, break_lock)
    _check_exec(opts)
    check_int("--max-cells", max_cells, 1, 1_000_000)
    spec = read_design(spec_path, max_cells)
    out = Path(out) if out is not None else Path("results") / f"design-{Path(spec_path).stem}"
    _prepare_out(spec, out)
    command = list(command) if command else ["simsuite", "design", str(spec_path), "--out", str(out)]
    done = _finished(out, spec)
    if done is not None:
        if not quiet:
            print(f"{out}: complete already ({len(done['rounds'])} round(s)); nothing to do", file=sys.stderr)
        return done
    t0 = time.perf_counter()
    todo = {pair: sorted(spec.played) for pair in spec.pairings}
    rounds_log = []
    r = 0
    cache: dict = {}
    while True:
        _play_round(spec, out, r, todo, opts, command)
        rounds_log.append({"round": r, "seed": round_seed(spec.seed, r), "matches_per_cell": round_matches(spec, r),
                           "cells": {pair_text(p): list(v) for p, v in todo.items() if v}})
        played = _load_played(out, spec, r + 1)
        if not quiet:
            print(f"design: round {r}: evaluating {len(spec.sets)} parameter sets", file=sys.stderr)
        ev_jobs = jobs if backend == "loky" else 1
        primaries = {spec.primary(g.metric) for g in spec.goals}
        figs = evaluate(spec, played, ev_jobs, cache, {(s.id, p) for s in spec.sets for p in primaries})
        judged = _judge_sets(spec, figs)
        front = _front(spec, figs)
        r += 1
        todo = _undecided(spec, judged, front)
        if r >= spec.search["rounds"] or not todo:
            break
    # the candidates (and, with none, the nearest set) under every pairing, for the robustness check
    check = {i for i, j in judged.items() if j["meets_all"]} or {binding([g.text() for g in spec.goals], judged)["nearest"]}
    figs = evaluate(spec, played, ev_jobs, cache,
                    {(s.id, p) for s in spec.sets for p in spec.pairings if p in primaries or s.id in check})
    judged = _judge_sets(spec, figs)
    result = _result(spec, out, played, figs, judged, front, rounds_log, r, time.perf_counter() - t0)
    _write(out, result, spec)
    return result


def _finished(out: Path, spec: DesignSpec) -> dict | None:
    """The stored result of this very design when it finished and every run it played is complete."""
    from ..sim.results import read_manifest

    if not (out / RESULT).is_file():
        return None
    try:
        res = load_design(out)
        if res.get("spec_hash") != spec.hash:
            return None
        for rd in res["rounds"]:
            for pair in spec.pairings:
                if rd["cells"].get(pair_text(pair)) and read_manifest(run_dir(out, rd["round"], pair)).get(
                        "status") != "complete":
                    return None
        if res["recommended"] is None:  # the wording follows the code, the numbers the stored run
            res["binding"] = binding(res["goals"], {s["id"]: s for s in res["sets"]})
        res["sentence"] = sentence(res)
    except (SimsuiteError, KeyError, TypeError):
        return None
    return res


def _hands_played(played: dict) -> dict:
    return {f"{cid} | {pair_text(p)}": int(h.height) for (cid, p), (h, _) in played.items()}


def _cost(spec: DesignSpec, played: dict, figs: dict, rounds: int) -> dict:
    """Hands the design played beside a brute-force sweep of the same grid that simulates every
    parameter set under every pairing at the most matches the design gave any cell (the n at the
    boundary): its hands estimated from each set's hands per match (exact model) x tables."""
    design_hands = sum(int(h.height) for h, _ in played.values())
    n_max = max((m.select(pl.struct("seed", "match").n_unique()).item() for _, m in played.values()), default=0)
    brute = 0.0
    for s in spec.sets:
        for pair in spec.pairings:
            h, m = played.get((s.played, pair), (None, None))
            if m is None:
                continue
            ex = None
            per_match = float(m["hands"].mean())
            if s.rescore:
                hp = figs[s.id][pair_text(pair)].get("hands_per_match")
                if hp:
                    ex = hp["value"]
            brute += n_max * (2 if pair[0] != pair[1] else 1) * (ex or per_match)
    return {"design_hands": design_hands, "brute_force_hands": round(brute), "brute_force_matches_per_cell": n_max,
            "ratio": round(brute / design_hands, 2) if design_hands else None, "rounds": rounds,
            "parameter_sets": len(spec.sets), "played_cells": len(spec.played), "pairings": len(spec.pairings)}


def _result(spec: DesignSpec, out: Path, played: dict, figs: dict, judged: dict, front: list[str],
            rounds_log: list, rounds: int, seconds: float) -> dict:
    cands = [s.id for s in spec.sets if judged[s.id]["meets_all"]]
    cands.sort(key=lambda i: (not judged[i]["sure"], not judged[i]["robust"],
                              -(judged[i]["min_z"] if judged[i]["min_z"] is not None else math.inf), i))
    by_id = {s.id: s for s in spec.sets}
    rec = cands[0] if cands else None
    res = {
        "spec": spec.path, "spec_hash": spec.hash, "base": spec.base, "seed": spec.seed, "out": str(out),
        "goals": [g.text() for g in spec.goals], "tradeoff": list(spec.tradeoff),
        "pairings": [pair_text(p) for p in spec.pairings],
        "primary": {g.metric: pair_text(spec.primary(g.metric)) for g in spec.goals},
        "search": spec.search, "rounds": rounds_log, "seconds": round(seconds, 1),
        "sets": [{"id": s.id, "params": s.params, "played": s.played, "rescored": s.rescore,
                  "figures": figs[s.id], **judged[s.id]} for s in spec.sets],
        "candidates": cands, "front": front, "recommended": rec,
        "cost": _cost(spec, played, figs, rounds), "hands_by_cell": _hands_played(played),
    }
    if rec is None:
        res["binding"] = binding(res["goals"], judged)
    else:
        j = judged[rec]
        res["flag"] = None if j["robust"] else (
            f"holds under {', '.join(j['holds_under']) or 'no pairing'} only; fails under "
            + ", ".join(p for p in res["pairings"] if p not in j["holds_under"]))
        res["recommended_variant"] = variant_toml(by_id[rec], spec)
    res["sentence"] = sentence(res)
    return res


def _fmt(fig: dict | None, metric: str) -> str:
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
    if res["recommended"] is None:
        b = res["binding"]
        if b["sets_failing_only_it"]:
            why = (f"{b['goal']} binds: {b['sets_failing_only_it']} of {b['n_sets']} sets meet every other goal but "
                   "fail it")
        else:
            why = (f"every set fails two goals or more; {' and '.join(b['goals'])} bind"
                   f"{'s' if len(b['goals']) == 1 else ''}, failed by {b['failing'][b['goal']]} of {b['n_sets']} sets")
        near = sets[b["nearest"]]
        figs = "; ".join(f"{g.split()[0]} {_fmt(near['figures'][res['primary'][g.split()[0]]].get(g.split()[0]), g.split()[0])}"
                         for g in b["nearest_fails"])
        return (f"No parameter set meets every goal: {why}. The nearest, {b['nearest']}, fails "
                f"{', '.join(b['nearest_fails'])} ({figs}; 95% intervals, n = deals).")
    s = sets[res["recommended"]]
    parts = []
    for g, j in zip(res["goals"], s["goals"]):
        metric = g.split()[0]
        parts.append(f"{metric} {_fmt(s['figures'][res['primary'][metric]].get(metric), metric)}")
    how = "with every interval inside its bound" if s["sure"] else "on the estimates (some intervals straddle a bound)"
    flag = f" Flagged: it {res['flag']}." if res.get("flag") else ""
    return (f"Play {s['id']} ({res['base']}): it meets every goal {how}: " + "; ".join(parts)
            + f" (95% intervals; n = deals).{flag}")


def variant_toml(s: ParamSet, spec: DesignSpec) -> str:
    """The recommended rules as a variant file: the whole variant, every field, loadable by every
    command (``--variant recommended.toml``)."""
    v = s.variant
    lines = [f"# The rules simsuite design recommends for {spec.path}: {spec.base} with "
             + ", ".join(f"{k}={val}" for k, val in s.params.items()) + ".",
             f"# Written by simsuite design; use it with --variant {VARIANT_FILE}.", "",
             f"id = {json.dumps('design-' + Path(spec.path).stem)}"]
    for section, fields in v.to_toml_dict().items():
        lines += ["", f"[{section}]"]
        for k, val in fields.items():
            lines.append(f"{k} = {toml_value(val)}")
    return "\n".join(lines) + "\n"


def _write(out: Path, res: dict, spec: DesignSpec) -> None:
    try:
        (out / RESULT).write_text(json.dumps(res, indent=1, default=_json_default))
        (out / TEXT).write_text(format_design(res) + "\n")
        if res.get("recommended_variant"):
            (out / VARIANT_FILE).write_text(res["recommended_variant"])
    except OSError as exc:
        raise SimsuiteError(f"cannot write the design's results in {out}: {exc}") from None


def _json_default(x):
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    return str(x)


def load_design(path: str | Path) -> dict:
    """A finished design run's result (``design.json``)."""
    p = Path(path) / RESULT
    if not p.is_file():
        raise SimsuiteError(f"{path}: not a finished simsuite design (no {RESULT}); run simsuite design first")
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError) as exc:
        raise SimsuiteError(f"{p}: cannot read it: {exc}") from None


# --- text -------------------------------------------------------------------------------------------


def format_design(res: dict) -> str:
    from ..report.text import table

    sets = {s["id"]: s for s in res["sets"]}
    lines = [res["sentence"], ""]
    metrics = [g.split()[0] for g in res["goals"]]
    if res["candidates"]:
        header = ["rank", "parameter set"] + res["goals"] + ["confidence"]
        body = []
        for i, cid in enumerate(res["candidates"], 1):
            s = sets[cid]
            cells = [f"{_fmt(s['figures'][res['primary'][m]].get(m), m)} ({j['status']}, margin "
                     f"{_margin(j['margin'], m)})" for m, j in zip(metrics, s["goals"])]
            conf = ("every interval inside" if s["sure"] else f"min z {s['min_z']:.2f}") + (
                "" if s["robust"] else "; FLAG: not under every pairing")
            body.append([str(i), cid] + cells + [conf])
        lines.append(f"Parameter sets that meet every goal ({len(res['candidates'])} of {len(res['sets'])}), ranked:")
        lines.append(table(header, body, max_width=40))
    else:
        lines.append(f"No parameter set of {len(res['sets'])} meets every goal.")
    lines.append("")
    x, y = res["tradeoff"]
    body = [[cid, _fmt(sets[cid]["figures"][res["primary"][x]].get(x), x),
             _fmt(sets[cid]["figures"][res["primary"][y]].get(y), y), "yes" if sets[cid]["meets_all"] else "no"]
            for cid in res["front"]]
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
    c = res["cost"]
    lines += ["", f"Cost: {c['design_hands']:,} hands played in {len(res['rounds'])} round(s) "
              f"({c['played_cells']} played cells for {c['parameter_sets']} parameter sets x {c['pairings']} pairings); "
              f"simulating every set at the boundary's {c['brute_force_matches_per_cell']:,} matches would take about "
              f"{c['brute_force_hands']:,} hands ({c['ratio']}x).",
              "Figures: estimate [95% interval] n = deals; match figures from the exact match model (bootstrap over "
              "deals), per-hand figures from the simulated hands (bootstrap over deals); docs/design.md."]
    return "\n".join(lines)


def _margin(m: float | None, metric: str) -> str:
    if m is None:
        return "n/a"
    return f"{m * 100:+.1f} pts" if METRIC_BY_KEY[metric].share else f"{m:+.2f}"


def cli(args) -> int:
    res = design(args.spec, args.out, jobs=args.jobs, backend=args.backend, scheduler=args.scheduler,
                 quiet=args.quiet or args.json, command=["simsuite", *args.argv], break_lock=args.break_lock,
                 max_cells=args.max_cells)
    if args.json:
        print(json.dumps(res, indent=1, default=_json_default))
    else:
        print(format_design(res))
    return 0


__all__ = ["design", "evaluate", "judge", "pareto", "format_design", "load_design", "round_seed", "sentence"]
