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
of its round (``ALPHA_SCREEN`` spent equally over the rounds, split over the round's open
judgements). A set with a judgement still open and no primary goal failed has its played cell
played again, under every pairing it is judged under, ``growth`` times more in all, on new deals,
until none is open or ``rounds``; a judgement still open then is "not decided", with the deals that
would decide it. The best candidate is then confirmed on fresh deals (``confirm_seed``): a one-sided
test of every goal at ``ALPHA_CONFIRM / CONFIRM_TRIES`` per candidate tried. The family-wise error
rate of every decision, the screening's and the confirmation's, is at most
``ALPHA = ALPHA_SCREEN + ALPHA_CONFIRM``. The design names a seed for an independent check
(``check_seed``), disjoint from every round's and confirmation's.

Everything is written under the output folder: ``runs/`` (one results folder per round or
confirmation and pairing), ``design.json`` (every figure with its n, interval and SE, the
judgements, the ranking, the front, the confirmation, the error control, the cost), ``design.txt``
(what was printed) and ``recommended.toml`` (the recommended rules as a variant file).
"""

from __future__ import annotations

import math
import shlex
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
from .judge import (
    binding,
    confirm_set,
    judge,
    judge_sets,
    judgements,
    pareto_front,
    ranked,
    replay,
    undecided_sets,
)
from .spec import MAX_PLAYED_CELLS, SEARCH_MAXIMA, DesignSpec, read_design
from .store import (
    RESULT_FORMAT,
    VARIANT_FILE,
    confirm_dir,
    finished,
    load_played,
    prepare_out,
    run_dir,
    variant_toml,
    write_result,
)

# Error control (docs/design.md, "Error control"): the family-wise error rate of every decision is at
# most ALPHA, split in two budgets. The screening's (a goal met or failed for sure, in any round, by
# any set, under any pairing): ALPHA_SCREEN, round r spending ALPHA_SCREEN / rounds, split equally
# (Bonferroni) over the judgements it makes. The confirmation's (a candidate confirmed):
# ALPHA_CONFIRM, each of the at most CONFIRM_TRIES candidates tried spending ALPHA_CONFIRM /
# CONFIRM_TRIES on one-sided bounds of every goal (an intersection-union test, so the goals need no
# split). By the union bound the two together err with probability at most ALPHA.
ALPHA = 0.05
ALPHA_SCREEN = 0.025
ALPHA_CONFIRM = ALPHA - ALPHA_SCREEN
CONFIRM_TRIES = 3
ALPHA_PER_TRY = ALPHA_CONFIRM / CONFIRM_TRIES
ERROR_CONTROL = "bonferroni-alpha-spending"
# The seeds: round 0 plays the spec's seed, round r > 0 SeedSequence([seed, r]) (r < 10), the i-th
# confirmation SeedSequence([seed, CONFIRM_KEY + i]) and an independent check SeedSequence([seed,
# CHECK_KEY]); a derived seed that meets one already taken (odds about 1e-17) moves to the next key.
CONFIRM_KEY = 1_000
CHECK_KEY = 2_000


def _derived(seed: int, key: int) -> int:
    return int(np.random.SeedSequence([seed, key]).generate_state(2, dtype=np.uint64)[0] % MAX_SEED)


def _fresh(seed: int, key: int, taken: set[int]) -> int:
    """``SeedSequence([seed, key])``'s seed, or the next key's while it is one of ``taken``."""
    s = _derived(seed, key)
    while s in taken:
        key += 1
        s = _derived(seed, key)
    return s


def round_seed(seed: int, r: int) -> int:
    """Round 0 plays the spec's seed (the deals a sweep with that seed plays); round r > 0 its own
    seed from ``SeedSequence([seed, r])``, so later rounds add new deals."""
    if r == 0:
        return seed
    return _fresh(seed, r, {seed} | {round_seed(seed, q) for q in range(1, r)})


def screening_seeds(seed: int) -> set[int]:
    """Every seed a round of a design of root ``seed`` can play (as many rounds as a spec may ask)."""
    return {round_seed(seed, r) for r in range(SEARCH_MAXIMA["rounds"])}


def confirm_seed(seed: int, i: int = 0) -> int:
    """The fresh deals of the i-th confirmation: ``SeedSequence([seed, CONFIRM_KEY + i])``, never
    a round's seed nor an earlier confirmation's."""
    taken = screening_seeds(seed) | {confirm_seed(seed, j) for j in range(i)}
    return _fresh(seed, CONFIRM_KEY + i, taken)


def check_seed(seed: int) -> int:
    """The seed the design names for an independent check of its recommendation (``simsuite
    simulate --seed``): ``SeedSequence([seed, CHECK_KEY])``, never a round's, a confirmation's, nor
    simulate's default 1 (whose deals are round 0's when the spec's seed is 1)."""
    taken = screening_seeds(seed) | {confirm_seed(seed, i) for i in range(CONFIRM_TRIES)} | {1}
    return _fresh(seed, CHECK_KEY, taken)


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
    rounds_log, decided, z_last, figs, loaded, z_at = [], {}, {}, {}, {}, {}
    open_sets = list(spec.sets)
    r = 0
    while True:
        _play_round(spec, out, r, todo, opts, command)
        played = load_played(out, spec, r + 1, cache=loaded)
        # the screening level of this round: ALPHA_SCREEN / rounds, split over the judgements still open
        k_r = sum(1 for s in open_sets for gi, p in judgements(spec, s) if (s.id, gi, p) not in decided)
        alpha_r = ALPHA_SCREEN / spec.search["rounds"]
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
                    z_at[(s.id, gi, pair)] = z_r
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
    for s in spec.sets:  # the level of each judgement's last interval: its deciding round's, else its last round's
        for gi, pair in judgements(spec, s):
            if s.id in z_last:
                z_at.setdefault((s.id, gi, pair), z_last[s.id])
    result = _result(
        spec,
        out,
        played,
        figs,
        judged,
        front,
        cands,
        confirmation,
        rounds_log,
        r,
        time.perf_counter() - t0,
        wording,
        z_at,
    )
    write_result(out, result, None if wording is None else wording.format_design(result))
    return result


def _confirm(
    spec: DesignSpec, out: Path, played: dict, cands: list[str], jobs: int, opts: ExecOptions, command: Sequence[str]
) -> dict:
    """Play the best candidate again on fresh deals (``confirm_seed``), under every pairing, and test
    its goals on those deals alone (``judge.confirm_set``): under its primary pairings at the most
    matches the design gave any cell (the boundary's n), under the others at the matches their
    judgements of its cell got in the rounds. It is confirmed when every goal's one-sided bound at
    level ``ALPHA_PER_TRY`` under its primary pairing meets the goal. A candidate that is not
    confirmed gives way to the next, up to ``CONFIRM_TRIES``, each try spending ``ALPHA_PER_TRY``
    of the confirmation's ``ALPHA_CONFIRM``."""

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
        ok, goals = confirm_set(spec, s, f, ALPHA_PER_TRY)
        tried.append(
            {
                "set": cid,
                "seed": confirm_seed(spec.seed, i),
                "matches": n,
                "matches_by_pairing": {pair_text(p): k for p, k in sizes.items()},
                "alpha": ALPHA_PER_TRY,
                "z": NormalDist().inv_cdf(1 - ALPHA_PER_TRY),
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
        "alpha": ALPHA_CONFIRM,
        "alpha_per_try": ALPHA_PER_TRY,
        "max_tries": CONFIRM_TRIES,
        "test": (
            f"one-sided {100 * (1 - ALPHA_PER_TRY):.2f}% bound of every goal under its primary pairing on the "
            f"fresh deals alone (z {NormalDist().inv_cdf(1 - ALPHA_PER_TRY):.2f}); confirmed when every bound "
            f"meets its goal; each candidate tried spends {ALPHA_PER_TRY:.4g} of the confirmation's "
            f"{ALPHA_CONFIRM:g} (at most {CONFIRM_TRIES} tried)"
        ),
        "tried": tried,
        "confirmed": next((t["set"] for t in tried if t["confirmed"]), None),
        "confirmed_goals": next(([g["goal"] for g in t["goals"] if g["primary"]] for t in tried if t["confirmed"]), []),
    }


def _hands_played(played: dict) -> dict:
    return {f"{cid} | {pair_text(p)}": int(h.height) for (cid, p), (h, _) in played.items()}


def _matches(m: pl.DataFrame) -> int:
    return m.select(pl.struct("seed", "match").n_unique()).item()


def baseline_n(spec: DesignSpec, figs: dict, z_at: dict) -> tuple[int, float]:
    """The matches per played cell and pairing of the analyst's fixed-n sweep whose screening
    intervals are as narrow as the design's were where it decided (or last judged) each judgement,
    and that sweep's screening z. The sweep judges all K judgements at once at ``ALPHA_SCREEN``
    (z_s = the normal's 1 - ALPHA_SCREEN / 2K quantile); the design judged judgement j at n_j deals
    and level z_j, so the sweep matches its width at n_j (z_s / z_j)^2 deals, and one n must do for
    all: the largest (SE ~ 1 / sqrt(n), the same estimator on the same played cells)."""
    k = sum(len(judgements(spec, s)) for s in spec.sets)
    z_s = NormalDist().inv_cdf(1 - ALPHA_SCREEN / (2 * max(k, 1)))
    n = 0.0
    for s in spec.sets:
        for gi, pair in judgements(spec, s):
            f = figs.get(s.id, {}).get(pair_text(pair), {}).get(spec.goals[gi].metric)
            z = z_at.get((s.id, gi, pair))
            if f and f.get("n") and z:
                n = max(n, f["n"] * (z_s / z) ** 2)
    return math.ceil(n - 1e-9), z_s


def _cost(spec: DesignSpec, played: dict, figs: dict, rounds: int, confirm_hands: int = 0, z_at=None) -> dict:
    """Hands the design played (its rounds and its confirmation) beside the analyst's baseline: a
    fixed-n sweep of the played cells alone under every pairing (the clock re-scored by the exact
    model, as the design does, so no set that differs only in the clock is played), at the n whose
    screening intervals are as narrow as the design's decisions (``baseline_n``), its hands from
    each played cell's hands per table in the design x the matches x the tables."""
    rounds_hands = sum(int(h.height) for h, _ in played.values())
    design_hands = rounds_hands + confirm_hands
    n_max = max((_matches(m) for _, m in played.values()), default=0)
    n_base, z_s = baseline_n(spec, figs, z_at or {})
    base = 0.0
    for (_cid, pair), (_h, m) in played.items():
        base += n_base * (2 if pair[0] != pair[1] else 1) * float(m["hands"].mean())
    return {
        "design_hands": design_hands,
        "rounds_hands": rounds_hands,
        "confirmation_hands": confirm_hands,
        "boundary_matches_per_cell": n_max,
        "baseline": (
            "a fixed-n sweep of every played cell under every pairing, the clock re-scored by the exact model, "
            "at the n whose screening intervals (all judgements at once, Bonferroni at the screening's alpha) "
            "are as narrow as the design's where it decided each judgement; no confirmation"
        ),
        "baseline_matches_per_cell": n_base,
        "baseline_z": z_s,
        "baseline_hands": round(base),
        "ratio": round(base / design_hands, 2) if design_hands else None,
        "ratio_screening": round(base / rounds_hands, 2) if rounds_hands else None,
        "rounds": rounds,
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
    z_at: dict | None = None,
) -> dict:
    by_id = {s.id: s for s in spec.sets}
    rec = confirmation["confirmed"]
    res = {
        "format": RESULT_FORMAT,
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
            "alpha_screen": ALPHA_SCREEN,
            "alpha_confirm": ALPHA_CONFIRM,
            "alpha_per_try": ALPHA_PER_TRY,
            "confirm_tries": CONFIRM_TRIES,
            "text": (
                f"family-wise error rate <= {ALPHA:g} over every decision, screening and confirmation: "
                f"the screening's {ALPHA_SCREEN:g} by Bonferroni with alpha spending (a goal met or failed "
                f"for sure, any set, any pairing, any round: round r spends {ALPHA_SCREEN:g} / "
                f"{spec.search['rounds']} rounds, split over its open judgements; screening intervals "
                "estimate +- z SE, delta-method SE for the exact model, bootstrap for simulated figures; "
                "decisions are final; a judgement still open after the last round is not decided); the "
                f"confirmation's {ALPHA_CONFIRM:g} split over the at most {CONFIRM_TRIES} candidates tried, "
                f"{ALPHA_PER_TRY:.4g} each (one-sided bounds, z {NormalDist().inv_cdf(1 - ALPHA_PER_TRY):.2f}, "
                "every goal's bound meeting its goal on fresh deals)"
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
        "cost": _cost(spec, played, figs, rounds, sum(t["hands"] for t in confirmation["tried"]), z_at),
        "hands_by_cell": _hands_played(played),
        "check": _check(spec, out, rec, confirmation),
    }
    if rec is None:  # with no candidate, or none confirmed: what binds, and the nearest set
        res["binding"] = binding(res["goals"], judged)
    if rec is not None:
        j = judged[rec]
        res["flag"] = (
            None
            if j["robust"]
            else (
                f"meets its goals on the search's estimates under {', '.join(j['holds_under']) or 'no pairing'} "
                "only, not under " + ", ".join(p for p in res["pairings"] if p not in j["holds_under"])
            )
        )
        res["recommended_variant"] = variant_toml(by_id[rec], spec, confirmation, res["check"])
    if wording is not None:
        res["sentence"] = wording.sentence(res)
    return res


def _check(spec: DesignSpec, out: Path, rec: str | None, confirmation: dict) -> dict:
    """The independent check the design names: the seed (``check_seed``, disjoint from every round
    and confirmation) and, with a recommendation, one ``simsuite simulate`` command per pairing
    that plays the recommended rules on that seed, as many matches as its confirmation did."""
    seed = check_seed(spec.seed)
    out_check = {
        "seed": seed,
        "seed_rule": f"SeedSequence([seed, {CHECK_KEY}])",
        "disjoint_from": "every round's seed (the spec's seed for round 0) and every confirmation's",
        "commands": {},
    }
    if rec is None:
        return out_check
    t = next(t for t in confirmation["tried"] if t["set"] == rec)
    for pair in spec.pairings:
        n = t["matches_by_pairing"][pair_text(pair)]
        out_check["commands"][pair_text(pair)] = " ".join(
            ["simsuite", "simulate", "--variant", shlex.quote(str(out / VARIANT_FILE))]
            + ["--policies", shlex.quote(",".join(pair))]
            + (["--duplicate"] if pair[0] != pair[1] else [])
            + ["--matches", str(n), "--seed", str(seed)]
        )
    return out_check


__all__ = [
    "design",
    "round_seed",
    "confirm_seed",
    "check_seed",
    "round_matches",
    "ALPHA",
    "ALPHA_SCREEN",
    "ALPHA_CONFIRM",
    "ALPHA_PER_TRY",
    "CONFIRM_TRIES",
    "ERROR_CONTROL",
    "BOOT_REPS",
]
