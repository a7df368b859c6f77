"""The sub-commands' handlers: each parses nothing, checks its flags, calls the library and prints."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

from ..errors import SimsuiteError
from ..rules.cards import SEATS
from ..rules.variant import describe, load_all, load_variant
from ..sim.limits import HAND_BYTES, MAX_MATCH_INDEX, MAX_REPEAT, check_int, check_jobs, check_memory, check_seed

MAX_TEAMS = 1024  # a tournament's teams; far above any real event, small enough to pair quickly


def cmd_learn_collect(args) -> int:
    from ..learn.collect import DEFAULT_CHUNK, collect

    print(
        collect(
            args.out,
            hands=args.hands,
            seed=args.seed,
            policy=args.policy,
            mode=args.mode,
            jobs=args.jobs,
            chunk=args.chunk if args.chunk is not None else DEFAULT_CHUNK,
            backend=args.backend,
            scheduler=args.scheduler,
            quiet=args.quiet,
            break_lock=args.break_lock,
            command=["simsuite", *args.argv],
        )
    )
    return 0


def cmd_learn_train(args) -> int:
    from ..learn.train import base_model, load_many, model_target, parse_groups, parse_heads, train_and_write
    from ..report.learn_text import training_text

    if args.max_rows is not None:
        check_int("--max-rows", args.max_rows, 1000)
    check_seed("--seed", args.seed)
    model_target(args.out)  # a bad --out is refused before the data are read
    groups = parse_groups(args.groups) if args.groups else None
    base = base_model(args.base) if args.base else None
    heads = parse_heads(args.heads) if args.heads else 0
    if args.leave_out is not None:
        from ..rules.variant import known_ids

        if args.leave_out not in known_ids():
            raise SimsuiteError(
                f"--leave-out {args.leave_out!r}: not a tournament; give one of {', '.join(known_ids())}"
            )
    trained = train_and_write(
        load_many(args.data, args.leave_out),
        args.data,
        args.out,
        args.max_rows,
        args.seed,
        command=["simsuite", *args.argv],
        base=base,
        groups=groups,
        base_path=args.base,
        heads=heads,
        leave_out=args.leave_out,
    )
    if args.json:
        print(
            json.dumps(
                {
                    "lambda": trained.lam,
                    "rows": trained.rows,
                    "validation": trained.validation,
                    "evaluation": trained.evaluation,
                },
                indent=1,
            )
        )
    else:
        print(training_text(trained, args.out))
    return 0


def cmd_learn_evaluate(args) -> int:
    from ..engine.policies.model import load_model
    from ..learn.train import coefficients, evaluate, load
    from ..report.learn_text import evaluation_table

    model = load_model(args.model)
    d = load(args.data)
    ev = {"decisions": d.n, "model": evaluate(coefficients(model), d), "heuristic": evaluate(None, d)}
    if args.json:
        print(json.dumps(ev, indent=1))
    else:
        print(evaluation_table(f"{args.model} on {args.data}: every decision", ev))
    return 0


def cmd_learn_responses(args) -> int:
    from ..analysis.responses import run
    from ..report.responses_text import format_responses

    r = run(
        policy=args.policy,
        reference=args.reference,
        deals=args.deals,
        seed=args.seed,
        jobs=args.jobs,
        variant=args.variant,
    )
    print(json.dumps(r, indent=1, ensure_ascii=False) if args.json else format_responses(r))
    return 0


def cmd_simulate(args) -> int:
    from ..sim.run import simulate
    from ..sim.spec import DEFAULT_CHUNK, RunSpec

    spec = RunSpec(
        variants=args.variant,
        overrides=args.overrides,
        policies=args.policies,
        matches=args.matches,
        hands=args.hands,
        seed=args.seed,
        jobs=args.jobs,
        backend=args.backend,
        scheduler=args.scheduler,
        duplicate=args.duplicate,
        out=args.out,
        chunk=args.chunk if args.chunk is not None else DEFAULT_CHUNK,
        quiet=args.quiet,
        command=["simsuite", *args.argv],
        break_lock=args.break_lock,
    )
    print(simulate(spec))
    return 0


def cmd_sweep(args) -> int:
    from ..sim.executor import execute
    from ..sim.sweep import plan_command

    plan, opts = plan_command(
        args.spec,
        args.variant,
        args.grid,
        policies=args.policies,
        matches=args.matches,
        seed=args.seed,
        out=args.out,
        jobs=args.jobs,
        backend=args.backend,
        scheduler=args.scheduler,
        quiet=args.quiet,
        chunk=args.chunk,
        command=["simsuite", *args.argv],
        break_lock=args.break_lock,
    )
    print(execute(plan, opts))
    return 0


def cmd_compare(args) -> int:
    from ..analysis.settings import compare, parse_goal
    from ..report.settings_text import format_compare
    from ..report.summary_text import incomplete_notice
    from ..sim.results import read_manifest

    goals = [parse_goal(g) for g in args.goal]
    notice = incomplete_notice(read_manifest(args.results), args.results)
    with _reading(args.results):
        result = compare(args.results, baseline=args.baseline, goals=goals)
    if args.json:  # stdout stays JSON: the notice goes to stderr
        if notice:
            print(f"simsuite compare: {notice}", file=sys.stderr)
        print(json.dumps(result, indent=1, ensure_ascii=False))
    else:
        print("\n\n".join(filter(None, [notice, format_compare(result)])))
    return 0


def cmd_design(args) -> int:
    from .design import run

    return run(args)


def cmd_summary(args) -> int:
    from ..analysis.metrics import policy_pairs, summarise
    from ..report.headline import group_words
    from ..report.summary_text import checksum_note, format_summary, incomplete_notice
    from ..sim.results import load

    r = load(args.results)
    variants = r.variants()  # the rules each cell was played under (overrides included)
    with _reading(args.results):
        rows = summarise(r.hands, r.matches, by=args.by, variants=variants)
    notice = incomplete_notice(r.manifest, args.results)
    checks = checksum_note(r.unchecked, 2 * (len(r.manifest["chunks"]) - len(r.missing_chunks)))
    if args.json:  # stdout stays JSON: what a person should know goes to stderr
        for line in (notice, checks):
            if line:
                print(f"simsuite summary: {line}", file=sys.stderr)
        print(json.dumps(rows, indent=2, default=str))
    else:  # the answer in words first (as the report's headline), then the table
        groups = [row[args.by] for row in rows]
        with _reading(args.results):
            pairs = policy_pairs(r.matches, args.by) if rows else {}
        words = group_words(r.manifest, [str(g) for g in groups], args.by)
        text = format_summary(rows, [pairs.get(g) for g in groups], words)
        print("\n".join(filter(None, [notice, text, checks and f"Checksums: {checks}."])))
    return 0


def cmd_calibrate(args) -> int:
    from ..analysis.calibrate import run
    from ..report.calibrate_text import format_results

    results = run(args.reference, policy=args.policy, hands=args.hands, seed=args.seed, jobs=args.jobs)
    if args.json:  # one object for one reference, a list for every reference
        print(json.dumps(results if args.reference is None else results[0], indent=2, ensure_ascii=False))
    else:
        print(format_results(results))
    return 0


def cmd_compare_policies(args) -> int:
    from ..analysis.compare import run
    from ..report.compare_text import format_results

    results = run(args.variant, policies=args.policies, hands=args.hands, seed=args.seed, jobs=args.jobs)
    if args.json:  # always a list, one object per variant
        print(json.dumps(results, indent=2, ensure_ascii=False))
    else:
        print(format_results(results))
    return 0


def cmd_exact(args) -> int:
    from .exact import run

    return run(args)


def cmd_report(args) -> int:
    from ..report.html import build_report
    from ..report.summary_text import incomplete_notice
    from ..sim.results import read_manifest

    _report_not_over_input(args.results, args.out)
    design = (Path(args.results) / "design.json").is_file()
    manifest = None if design else read_manifest(args.results)
    with _reading(args.results):
        page = build_report(args.results, args.out, by=args.by)
    notice = incomplete_notice(manifest, args.results) if manifest is not None else None
    if notice:
        print(notice)
    print(page)
    return 0


def cmd_explore(args) -> int:
    from ..report.explore import build_explorer
    from ..report.summary_text import incomplete_notice
    from ..sim.limits import check_seed
    from ..sim.results import read_manifest

    check_seed("--seed", args.seed)
    _report_not_over_input(args.results, args.out)
    design = (Path(args.results) / "design.json").is_file()
    manifest = None if design else read_manifest(args.results)
    with _reading(args.results):
        page = build_explorer(args.results, args.out, seed=args.seed)
    notice = incomplete_notice(manifest, args.results) if manifest is not None else None
    if notice:
        print(notice)
    print(page)
    return 0


def _report_not_over_input(results: str, out: str) -> None:
    """A report written into the folder it reads must be a new page, never one of the run's own files
    (``-o RUN/manifest.json`` replaced the manifest with HTML)."""
    from ..sim.results import link_problem

    loop = link_problem(Path(results))
    if loop:  # resolve() would raise on a loop
        raise SimsuiteError(f"{results}: cannot be read: {loop}")
    try:
        run, target = Path(results).resolve(), Path(out).resolve()
    except RuntimeError:  # a loop in -o's path
        raise SimsuiteError(
            f"-o {out}: cannot be written: {link_problem(Path(out)) or 'a symbolic link loop'}"
        ) from None
    if target.is_relative_to(run) and (target.suffix.lower() not in (".html", ".htm") or target.parent != run):
        raise SimsuiteError(
            f"-o {out}: inside the results folder {results} the report must be an .html file at its top "
            f"level (such as {Path(results) / 'report.html'}), never one of the run's files"
        )


@contextlib.contextmanager
def _reading(run: str):
    """A part that passes the footer check but fails to decode (bytes damaged inside it) is found
    and named, instead of a raw polars or Arrow error."""
    import polars as pl
    import pyarrow as pa

    try:
        yield
    except (pl.exceptions.PolarsError, pa.ArrowException, OSError) as exc:
        from ..sim.results import unreadable_message

        raise SimsuiteError(unreadable_message(run, exc)) from None


def cmd_columns(args) -> int:
    from ..columns import HAND_COLUMNS, MATCH_COLUMNS, markdown_table

    print(
        "## The hand table\n\n"
        + markdown_table(HAND_COLUMNS)
        + "\n\n## The match table\n\n"
        + markdown_table(MATCH_COLUMNS)
    )
    return 0


def cmd_variants(args) -> int:
    from ..report.text import variants_table

    variants = load_all()
    if args.json:
        print(json.dumps([_summary(v) for v in variants], indent=2, ensure_ascii=False))
    else:
        print(variants_table(variants))
    return 0


def _summary(v) -> dict:
    return {
        "id": v.id,
        "name": v.name,
        "version": v.version,
        "rules_hash": v.rules_hash,
        "decks": v.decks,
        "bottom_size": v.bottom_size,
        "step": v.step,
        "takeover": v.takeover,
        "total_points": v.total_points,
        "capture_by": v.capture_by,
        "capture_with": v.capture_with,
        "capture_scheme": v.capture_scheme,
        "throws": v.throws,
        "throw_test": v.throw_test if v.throws else None,
    }


def cmd_show(args) -> int:
    v = load_variant(args.variant)
    if args.json:
        print(
            json.dumps(
                {"id": v.id, "rules_hash": v.rules_hash, **v.to_toml_dict(), "cite": v.cite_dict()},
                indent=2,
                ensure_ascii=False,
            )
        )
    else:
        print(describe(v))
    return 0


def cmd_judge(args) -> int:
    from .. import judge
    from ..report.text import judge_table
    from ..rules.scenario import load_scenario

    scenario = load_scenario(args.scenario)
    ruled = judge(scenario, args.variant)  # the front door checks the variant
    if args.json:
        print(json.dumps(ruled, indent=2, ensure_ascii=False))
    else:
        print(judge_table(scenario, ruled if isinstance(ruled, list) else [ruled]))
    return 0


def cmd_bury(args) -> int:
    from ..analysis.bury import bury_study
    from ..report.bury_text import format_bury
    from ..sim.spec import parse_overrides

    overrides = parse_overrides(args.overrides)
    v = load_variant(args.variant)
    if overrides:
        v = v.with_overrides(overrides, source=f"{v.id} with --set")
    _engine_ready(v)
    check_int("--hands", args.hands, 2, 1_000_000)
    check_seed("--seed", args.seed)
    if "," in args.policy:
        raise SimsuiteError(f"--policy takes one policy (the dealer's; it buries in every hand); got {args.policy!r}")
    r = bury_study(v, args.policy, args.hands, args.seed)
    print(json.dumps(r.as_dict(), indent=2) if args.json else format_bury(r, overrides, args.seed))
    return 0


def cmd_advise(args) -> int:
    from .. import advise
    from ..play.advise import advice_text
    from ..rules.scenario import load_scenario

    scenario = load_scenario(args.scenario)
    a = advise(scenario, args.variant, policy=args.policy, seed=args.seed)  # the front door checks variant and seed
    if args.json:
        print(json.dumps(a.as_dict(), indent=2, ensure_ascii=False))
    else:
        print(advice_text(scenario, a))
    return 0


def _policy_names(policies: str) -> list[str]:
    """Validate a policies argument and name the policy of each seat (N, E, S, W)."""
    from ..engine.names import policy_codes, policy_name

    return [policy_name(c) for c in policy_codes(policies)]


def _engine_ready(variant) -> None:
    from ..engine.params import engine_ready

    engine_ready(variant)


def _can_encode(text: str, stream) -> bool:
    enc = getattr(stream, "encoding", None) or "ascii"
    try:
        text.encode(enc)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def cmd_play(args) -> int:
    import numpy as np

    from ..engine.api import play_one
    from ..report.trace import format_trace
    from ..rules.cards import RANK_NAMES, format_card, parse_rank
    from ..sim.spec import parse_overrides

    overrides = parse_overrides(args.overrides)
    v = load_variant(args.variant)
    if overrides:
        v = v.with_overrides(overrides, source=f"{v.id} with --set")
    names = _policy_names(args.policies)
    level = parse_rank(args.level) if args.level is not None else None
    if level is not None:
        if args.match:
            raise SimsuiteError(
                "--level plays one hand at that level; a match (--match) starts at the variant's start "
                f"level {RANK_NAMES[v.start_level]}: leave out one of them"
            )
        if level in v.permanent_trump_ranks or not v.start_level <= level <= v.end_level:
            raise SimsuiteError(
                f"--level {args.level}: {v.id} plays levels {RANK_NAMES[v.start_level]} to "
                f"{RANK_NAMES[v.end_level]}"
                + (
                    f", never {', '.join(RANK_NAMES[r] for r in sorted(v.permanent_trump_ranks))} "
                    "(a permanent trump rank)"
                    if v.permanent_trump_ranks
                    else ""
                )
            )
    if args.match_index is not None and not args.match:
        raise SimsuiteError("--match-index picks a match of the seed: give --match too (one hand has no match index)")
    if args.match_index is None:
        args.match_index = 0
    check_seed("--seed", args.seed)
    _engine_ready(v)
    if args.match:
        return _play_match(v, args, names)
    result = play_one(v, args.seed, names, level=level, keep=True)
    if args.json:
        h = result.history

        def cards(row) -> str:
            return " ".join(format_card(int(c)) for c in np.nonzero(row)[0] for _ in range(int(row[c])))

        data = {
            "variant": v.id,
            "seed": args.seed,
            "policies": dict(zip(SEATS, names)),
            "record": result.record,
            "history": {
                "deal": {SEATS[s]: cards(h.deal[s]) for s in range(4)},
                "bottom": cards(h.bottom),
                "bids": [
                    {
                        "seat": SEATS[int(b[0])],
                        "card": format_card(int(b[1])),
                        "count": int(b[2]),
                        "kind": {1: "declare", 2: "override", 3: "reinforce"}.get(int(b[3]), int(b[3])),
                    }
                    for b in h.bids
                ],
                "bury": cards(h.bury),
                "plays": [
                    {
                        "trick": int(r[0]) + 1,
                        "seat": SEATS[int(r[1])],
                        "kind": {0: "play", 1: "failed throw"}.get(int(r[2]), int(r[2])),
                        "winner": SEATS[int(r[3])] if r[3] >= 0 else None,
                        "cards": cards(r[4:]),
                    }
                    for r in h.plays
                ],
            },
        }
        print(json.dumps(data, indent=2))
    else:
        symbols = not args.ascii and _can_encode("♠♥♦♣", sys.stdout)
        print(format_trace(v, result, symbols, seed=args.seed, policies=names, overrides=list(overrides)), end="")
    return 0


def cmd_bench(args) -> int:
    from ..report.bench_text import format_bench
    from ..sim.bench import WARMUP_HANDS, bench

    _policy_names(args.policy)
    check_int("--hands", args.hands, 1)
    check_seed("--seed", args.seed)
    check_memory(f"--hands {args.hands:,}", args.hands * HAND_BYTES, "time fewer hands")
    variants = load_all() if args.variant == "all" else [load_variant(args.variant)]
    rows = bench(variants, args.policy, args.hands, args.seed)
    print(json.dumps(rows, indent=2) if args.json else format_bench(rows, WARMUP_HANDS))
    return 0


def cmd_duel(args) -> int:
    from ..compete.duel import duel
    from ..engine.names import policy_codes, split_names
    from ..report.duel_text import format_duel

    names = split_names(args.policies)
    if len(names) != 2:
        raise SimsuiteError(f"--policies needs two names A,B; got {args.policies!r}")
    policy_codes(names)
    if args.hands is None:
        args.hands = 20000
    check_int("--hands", args.hands, 2)
    check_seed("--seed", args.seed)
    check_memory(f"--hands {args.hands:,}", args.hands * HAND_BYTES, "play fewer hands")
    check_jobs("--jobs", args.jobs)  # with --matches too, where the matches play in this process
    variants = load_all() if args.variant == "all" else [load_variant(args.variant)]
    if args.matches is not None:
        return _duel_matches(args, names, variants)
    results = [duel(v, names[0], names[1], args.hands, args.seed, jobs=args.jobs) for v in variants]
    print(
        json.dumps([r.as_dict() for r in results], indent=2)
        if args.json
        else format_duel(results, names[0], names[1], args.seed)
    )
    return 0


def _play_match(v, args, names) -> int:
    import dataclasses

    from ..report.match_text import format_match
    from ..sim.match import play_match

    check_int("--match-index", args.match_index, 0, MAX_MATCH_INDEX)
    m = play_match(v, args.seed, args.match_index, names)
    if args.json:
        print(json.dumps(dataclasses.asdict(m), indent=2))
    else:
        print(format_match(v, m), end="")
    return 0


def cmd_tournament(args) -> int:
    from ..compete.competition import make_teams, repeat_tournaments, run_policy_tournament
    from ..engine.names import policy_codes, split_names
    from ..report.tournament_text import format_repeats, format_standings, repeats_dict, standings_dict

    v = load_variant(args.variant)
    pols = [p for p in split_names(args.policies) if p]
    policy_codes(pols[:4] if len(pols) in (1, 2, 4) else pols[:1])
    for p in pols:
        policy_codes(p)
    if args.teams > MAX_TEAMS:  # make_teams names too few teams; too many would fill memory first
        raise SimsuiteError(f"--teams must be at most {MAX_TEAMS:,}; got {args.teams:,}")
    check_int("--repeat", args.repeat, 1, MAX_REPEAT)
    check_seed("--seed", args.seed)
    check_seed("--seed + --repeat - 1", args.seed + args.repeat - 1)  # tournament k plays seed + k
    if args.elimination is not None and v.tournament_format != "knockout":
        raise SimsuiteError(
            f"--elimination {args.elimination}: {v.id} plays a {v.tournament_format} tournament, not a "
            "knock-out, and --elimination applies to knock-outs only (a variant file with "
            'tournament_format = "knockout" plays one)'
        )
    teams = make_teams(args.teams, pols)
    if len(pols) > args.teams:
        raise SimsuiteError(
            f"--policies names {len(pols)} policies for {args.teams} teams: the teams take the policies "
            f"in turn, so {len(pols) - args.teams} would never play; give at most {args.teams}"
        )
    _engine_ready(v)
    if args.repeat > 1:
        r = repeat_tournaments(v, teams, args.seed, args.repeat, args.elimination)
        print(json.dumps(repeats_dict(r), indent=2) if args.json else format_repeats(r, len(teams), args.seed))
        return 0
    result, records = run_policy_tournament(v, teams, args.seed, args.elimination)
    print(json.dumps(standings_dict(result, len(records)), indent=2) if args.json else format_standings(result))
    return 0


def _duel_matches(args, names, variants) -> int:
    from ..compete.duel import duel_matches
    from ..report.duel_text import format_match_duel
    from ..sim.match import hand_cap

    check_int("--matches", args.matches, 2)

    for v in variants:
        check_memory(
            f"--matches {args.matches:,} of {v.id}", args.matches * hand_cap(v) * HAND_BYTES, "play fewer matches"
        )
    results = [duel_matches(v, names[0], names[1], args.matches, args.seed) for v in variants]
    print(
        json.dumps([r.as_dict() for r in results], indent=2)
        if args.json
        else format_match_duel(results, names[0], names[1], args.seed, args.matches)
    )
    return 0
