"""The design search of `simsuite design`: the rounds, their error control and the confirmation (docs/design.md).

The search plays only what decides. Parameters that change play (bottom, capture, bands, decks)
are *played cells*, simulated through the harness's executor (resumable, loky or Dask); the clock
and duration-model parameters are re-scored on a played cell's hands by the exact match model,
which is exact for them (``spec.RESCORED_KEYS``). The figures come from ``figures``
(the exact model with delta-method intervals; per-hand figures from the simulated hands), the
judgements, the Pareto front and the binding goal from ``judge``, the folder and its stored
result from ``store``; the wording is ``simsuite.report.design_text``'s.

Sampling is successive, with error control: round 0 plays ``matches`` of every played cell under
every pairing; each set is judged on every goal under every pairing where it is defined, and a
judgement is decided (met or failed for sure) only by a screening interval at the Bonferroni level
of its round (``ALPHA`` spent equally over the rounds, split over the round's open judgements), so
the family-wise error rate of all decisions is at most ``ALPHA``. A set with a judgement still open
and no primary goal failed has its played cell played again, under every pairing it is judged
under, ``growth`` times more in all, on new deals, until none is open or ``rounds``. The best
candidate is then confirmed on fresh deals (``confirm_seed``) before it is recommended.

Everything is written under the output folder: ``runs/`` (one results folder per round or
confirmation and pairing), ``design.json`` (every figure with its n, interval and SE, the
judgements, the ranking, the front, the confirmation, the error control, the cost), ``design.txt``
(what was printed) and ``recommended.toml`` (the recommended rules as a variant file).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path
from statistics import NormalDist

import numpy as np
import polars as pl

from ...engine.names import pair_text
from ...sim.executor import check_models
from ...sim.limits import MAX_SEED
from ...sim.spec import Cell, ExecOptions, Plan, check_exec
from .figures import BOOT_REPS, evaluate
from .judge import binding, judge, judge_sets, judgements, pareto_front, ranked, replay, undecided_sets
from .spec import MAX_PLAYED_CELLS, DesignSpec, read_design
from .store import confirm_dir, finished, load_played, prepare_out, run_dir, variant_toml, write_result

# Error control (docs/design.md, "Error control"): the family-wise error rate of every screening
# decision (a goal met or failed for sure, in any round, by any set, under any pairing) is at most
# ALPHA: round r spends ALPHA / rounds, split equally (Bonferroni) over the judgements it makes.
ALPHA = 0.05
ERROR_CONTROL = "bonferroni-alpha-spending"
# The confirmation plays fresh deals: seed SeedSequence([seed, CONFIRM_KEY + i]) for the i-th set tried
# (the rounds use [seed, r] with r <= 10, so the two never meet); at most CONFIRM_TRIES sets are tried.
CONFIRM_KEY = 1_000
CONFIRM_TRIES = 3


def round_seed(seed: int, r: int) -> int:
    """Round 0 plays the spec's seed (the deals a sweep with that seed plays); round r > 0 its own
    seed from ``SeedSequence([seed, r])``, so later rounds add new deals."""
    if r == 0:
        return seed
    return int(np.random.SeedSequence([seed, r]).generate_state(2, dtype=np.uint64)[0] % MAX_SEED)


def confirm_seed(seed: int, i: int = 0) -> int:
    """The fresh deals of the i-th confirmation: ``SeedSequence([seed, CONFIRM_KEY + i])``."""
    return int(np.random.SeedSequence([seed, CONFIRM_KEY + i]).generate_state(2, dtype=np.uint64)[0] % MAX_SEED)


def round_matches(spec: DesignSpec, r: int) -> int:
    """Matches a cell still undecided gets in round r (its total after round r is matches x growth^r)."""
    m, g = spec.search["matches"], spec.search["growth"]
    return m if r == 0 else m * g**r - m * g ** (r - 1)


def _play(
    spec: DesignSpec,
    todo: dict[tuple[str, str], list[str]],
    n: int,
    seed: int,
    where,
    label: str,
    meta: dict,
    opts: ExecOptions,
    command: Sequence[str],
) -> None:
    """Play, per pairing, the listed played cells, ``n`` matches each from ``seed``, through the
    harness's executor into ``where(pair)`` (one results folder per pairing; a rerun resumes it)."""
    from ...sim.executor import execute

    for pair in spec.pairings:
        ids = todo.get(pair) or []
        if not ids:
            continue
        cells = [Cell(c.id, c.variant, c.given, c.overrides, pair, n) for c in (spec.played[i] for i in ids)]
        plan = Plan(
            "sweep",
            cells,
            seed,
            pair[0] != pair[1],
            spec.chunk,
            where(pair),
            list(command),
            {"spec_path": spec.path, "spec": {"design": spec.raw, **meta, "pairing": pair_text(pair)}},
        )
        if not opts.quiet:
            print(f"design: {label}, {pair_text(pair)}: {len(cells)} cell(s) x {n:,} matches", file=sys.stderr)
        execute(plan, opts)


def _play_round(
    spec: DesignSpec,
    out: Path,
    r: int,
    todo: dict[tuple[str, str], list[str]],
    opts: ExecOptions,
    command: Sequence[str],
) -> None:
    """Play round r: the listed played cells, ``round_matches`` each, on the round's own deals."""
    _play(
        spec,
        todo,
        round_matches(spec, r),
        round_seed(spec.seed, r),
        lambda p: run_dir(out, r, p),
        f"round {r}",
        {"round": r},
        opts,
        command,
    )


def design(
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
    wording=None,
) -> dict:
    """Run the design search of ``spec_path`` into ``out`` (resuming what is there) and return
    the result (also written to ``out/design.json``). ``max_cells``: the most played cells the spec
    may imply (``spec.MAX_PLAYED_CELLS`` unless the caller raises it). ``wording``: what puts
    the result into words, an object with ``sentence(res)`` (the answer in one sentence, the
    result's ``sentence``) and ``format_design(res)`` (the text of ``design.txt``), as
    ``simsuite.report.design_text`` (whose ``worded_design`` passes itself); without it the result
    holds the figures and decisions alone (no ``sentence``, no ``design.txt``)."""
    from ...sim.limits import check_int

    opts = ExecOptions(jobs, backend, scheduler, quiet, break_lock)
    check_exec(opts)
    check_int("--max-cells", max_cells, 1, 1_000_000)
    spec = read_design(spec_path, max_cells)
    check_models(spec.pairings)  # a broken learned model is refused before the folder is made
    out = Path(out) if out is not None else Path("results") / f"design-{Path(spec_path).stem}"
    prepare_out(spec, out)
    command = list(command) if command else ["simsuite", "design", str(spec_path), "--out", str(out)]
    done = finished(out, spec, wording)
    if done is not None:
        if not quiet:
            print(f"{out}: complete already ({len(done['rounds'])} round(s)); nothing to do", file=sys.stderr)
        return done
    t0 = time.perf_counter()
    ev_jobs = jobs if backend == "loky" else 1
    todo = {pair: sorted(spec.played) for pair in spec.pairings}
    rounds_log, decided, z_last, figs, loaded = [], {}, {}, {}, {}
    open_sets = list(spec.sets)
    r = 0
    while True:
        _play_round(spec, out, r, todo, opts, command)
        played = load_played(out, spec, r + 1, cache=loaded)
        # the screening level of this round: ALPHA / rounds, split over the judgements still open
        k_r = sum(1 for s in open_sets for gi, p in judgements(spec, s) if (s.id, gi, p) not in decided)
        alpha_r = ALPHA / spec.search["rounds"]
        z_r = NormalDist().inv_cdf(1 - alpha_r / (2 * max(k_r, 1)))
        if not quiet:
            print(
                f"design: round {r}: evaluating {len(open_sets)} parameter set(s); {k_r} judgement(s) at "
                f"alpha {alpha_r:.4f} / {k_r} (z {z_r:.2f})",
                file=sys.stderr,
            )
        # every pairing with a judgement still open (all of them in round 0)
        asked, wanted = set(), {}
        for s in open_sets:
            for gi, p in judgements(spec, s):
                if (s.id, gi, p) not in decided:
                    asked.add((s.id, p))
                    wanted.setdefault((s.played, p), set()).add(spec.goals[gi].metric)
        new = evaluate(spec, played, ev_jobs, asked, wanted if r > 0 else None)
        n_decided = 0
        for s in open_sets:
            if s.id in figs:  # a figure not asked for again keeps its last value, interval and n
                for p, fs in new[s.id].items():
                    for k, f in fs.items():
                        if (s.id, tuple(p.split(","))) not in asked or (
                            f is not None and f.get("low") is None and figs[s.id][p].get(k) is not None
                        ):
                            fs[k] = figs[s.id][p].get(k)
            figs[s.id] = new[s.id]
            z_last[s.id] = z_r
            for gi, pair in judgements(spec, s):
                if (s.id, gi, pair) in decided:
                    continue
                g = spec.goals[gi]
                st = judge(g, new[s.id][pair_text(pair)].get(g.metric), z_r)["status"]
                if st in ("meets", "fails"):
                    decided[(s.id, gi, pair)] = (st, r)
                    n_decided += 1
        rounds_log.append(
            {
                "round": r,
                "seed": round_seed(spec.seed, r),
                "matches_per_cell": round_matches(spec, r),
                "cells": {pair_text(p): list(v) for p, v in todo.items() if v},
                "sets_evaluated": len(open_sets),
                "judgements": k_r,
                "alpha": alpha_r,
                "z": z_r,
                "decided": n_decided,
            }
        )
        open_sets = undecided_sets(spec, decided)
        r += 1
        todo = replay(spec, open_sets, decided)
        if r >= spec.search["rounds"] or not todo:
            break
    judged = judge_sets(spec, figs, decided, z_last)
    front = pareto_front(spec, figs)
    cands = ranked(spec, judged)
    confirmation = _confirm(spec, out, played, cands, ev_jobs, opts, command)
    result = _result(
        spec, out, played, figs, judged, front, cands, confirmation, rounds_log, r, time.perf_counter() - t0, wording
    )
    write_result(out, result, None if wording is None else wording.format_design(result))
    return result


def _confirm(
    spec: DesignSpec, out: Path, played: dict, cands: list[str], jobs: int, opts: ExecOptions, command: Sequence[str]
) -> dict:
    """Play the best candidate again on fresh deals (``confirm_seed``), under every pairing, and judge
    its goals on those deals alone (95% intervals): under its primary pairings at the most matches
    the design gave any cell (the boundary's n), under the others at the matches their judgements
    of its cell got in the rounds. It is confirmed when every estimate under its primary pairings
    still meets its goal. A candidate that is not confirmed gives way to the next, up to
    ``CONFIRM_TRIES``."""

    def matches(m):
        return m.select(pl.struct("seed", "match").n_unique()).item()

    n = max((matches(m) for _, m in played.values()), default=0)
    primary = {spec.primary(g.metric) for g in spec.goals}
    by_id = {s.id: s for s in spec.sets}
    tried = []
    for i, cid in enumerate(cands[:CONFIRM_TRIES]):
        s = by_id[cid]
        sizes = {
            pair: n if pair in primary or (s.played, pair) not in played else matches(played[(s.played, pair)][1])
            for pair in spec.pairings
        }
        for pair in spec.pairings:
            _play(
                spec,
                {pair: [s.played]},
                sizes[pair],
                confirm_seed(spec.seed, i),
                lambda p, i=i: confirm_dir(out, i, p),
                f"confirming {cid}",
                {"confirm": i},
                opts,
                command,
            )
        fresh = load_played(out, spec, 1, lambda _r, p, i=i: confirm_dir(out, i, p))
        f = evaluate(spec, fresh, jobs, {(cid, p) for p in spec.pairings})[cid]
        goals = []
        for gi, pair in judgements(spec, s):
            g = spec.goals[gi]
            j = judge(g, f[pair_text(pair)].get(g.metric))
            goals.append(
                {
                    **j,
                    "pairing": pair_text(pair),
                    "primary": pair == spec.primary(g.metric),
                    "figure": f[pair_text(pair)].get(g.metric),
                    "holds": j["meets"],
                }
            )
        ok = all(g["holds"] for g in goals if g["primary"])
        tried.append(
            {
                "set": cid,
                "seed": confirm_seed(spec.seed, i),
                "matches": n,
                "matches_by_pairing": {pair_text(p): k for p, k in sizes.items()},
                "confirmed": ok,
                "goals": goals,
                "hands": sum(int(h.height) for h, _ in fresh.values()),
                "figures": f,
            }
        )
        if ok:
            break
    return {
        "seed_rule": f"SeedSequence([seed, {CONFIRM_KEY} + i]) for the i-th set tried",
        "tried": tried,
        "confirmed": next((t["set"] for t in tried if t["confirmed"]), None),
    }


def _hands_played(played: dict) -> dict:
    return {f"{cid} | {pair_text(p)}": int(h.height) for (cid, p), (h, _) in played.items()}


def _cost(spec: DesignSpec, played: dict, figs: dict, rounds: int, confirm_hands: int = 0) -> dict:
    """Hands the design played (its rounds and its confirmation) beside a brute-force sweep of the same grid that simulates every
    parameter set under every pairing at the most matches the design gave any cell (the n at the
    boundary): its hands estimated from each set's hands per match (exact model) x tables."""
    design_hands = sum(int(h.height) for h, _ in played.values()) + confirm_hands
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
    return {
        "design_hands": design_hands,
        "brute_force_hands": round(brute),
        "brute_force_matches_per_cell": n_max,
        "ratio": round(brute / design_hands, 2) if design_hands else None,
        "rounds": rounds,
        "confirmation_hands": confirm_hands,
        "parameter_sets": len(spec.sets),
        "played_cells": len(spec.played),
        "pairings": len(spec.pairings),
    }


def _result(
    spec: DesignSpec,
    out: Path,
    played: dict,
    figs: dict,
    judged: dict,
    front: list[str],
    cands: list[str],
    confirmation: dict,
    rounds_log: list,
    rounds: int,
    seconds: float,
    wording=None,
) -> dict:
    by_id = {s.id: s for s in spec.sets}
    rec = confirmation["confirmed"]
    res = {
        "spec": spec.path,
        "spec_hash": spec.hash,
        "base": spec.base,
        "seed": spec.seed,
        "out": str(out),
        "goals": [g.text() for g in spec.goals],
        "tradeoff": list(spec.tradeoff),
        "pairings": [pair_text(p) for p in spec.pairings],
        "primary": {g.metric: pair_text(spec.primary(g.metric)) for g in spec.goals},
        "search": spec.search,
        "rounds": rounds_log,
        "seconds": round(seconds, 1),
        "error_control": {
            "method": ERROR_CONTROL,
            "alpha": ALPHA,
            "text": (
                f"Bonferroni with alpha spending: family-wise error rate <= {ALPHA:g} over every screening "
                f"decision (a goal met or failed for sure, any set, any pairing, any round): round r spends "
                f"{ALPHA:g} / {spec.search['rounds']} rounds, split over its open judgements; screening "
                "intervals estimate +- z SE (delta-method SE for the exact model, bootstrap for simulated "
                "figures); decisions are final"
            ),
            "rounds": [{k: rd[k] for k in ("round", "judgements", "alpha", "z")} for rd in rounds_log],
        },
        "sets": [
            {
                "id": s.id,
                "params": s.params,
                "played": s.played,
                "rescored": s.rescore,
                "figures": figs[s.id],
                **judged[s.id],
            }
            for s in spec.sets
        ],
        "candidates": cands,
        "front": front,
        "recommended": rec,
        "confirmation": confirmation,
        "cost": _cost(spec, played, figs, rounds, sum(t["hands"] for t in confirmation["tried"])),
        "hands_by_cell": _hands_played(played),
    }
    if rec is None:  # with no candidate, or none confirmed: what binds, and the nearest set
        res["binding"] = binding(res["goals"], judged)
    if rec is not None:
        j = judged[rec]
        res["flag"] = (
            None
            if j["robust"]
            else (
                f"holds under {', '.join(j['holds_under']) or 'no pairing'} only; fails under "
                + ", ".join(p for p in res["pairings"] if p not in j["holds_under"])
            )
        )
        res["recommended_variant"] = variant_toml(by_id[rec], spec)
    if wording is not None:
        res["sentence"] = wording.sentence(res)
    return res


__all__ = ["design", "round_seed", "confirm_seed", "round_matches", "ALPHA", "ERROR_CONTROL", "BOOT_REPS"]
