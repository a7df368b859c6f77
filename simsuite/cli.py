"""The ``simsuite`` command: thin sub-commands over the library.

A user's mistake (a bad file, an unknown id, bad notation) prints one line on stderr and exits
with status 2; it never shows a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path
from typing import Sequence

from .errors import SimsuiteError
from .rules.cards import SEATS
from .rules.variant import describe, known_ids, load_all, load_variant
from .sim.limits import HAND_BYTES, MAX_MATCH_INDEX, MAX_REPEAT, check_int, check_jobs, check_memory, check_seed

MAX_TEAMS = 1024  # a tournament's teams; far above any real event, small enough to pair quickly


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    args.argv = argv
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        with _compile_notice(args):
            return args.func(args) or 0
    except SimsuiteError as exc:
        print(f"simsuite {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"simsuite {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


# the commands that run the compiled engine: on a fresh checkout their first call compiles it
ENGINE_COMMANDS = frozenset({"bury", "advise", "play", "tournament", "bench", "duel", "simulate", "sweep", "design", "calibrate",
                             "compare-policies", "learn"})


def _compile_notice(args):
    """Says on stderr when, and for how long, numba compiles the engine (``engine.warm``)."""
    import contextlib

    if args.command not in ENGINE_COMMANDS or getattr(args, "quiet", False):
        return contextlib.nullcontext()  # numba is not even imported for the others
    from .engine.warm import CompileNotice

    return CompileNotice()


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="simsuite", description="Tractor (Shengji) rule-variant simulator and rulings.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    s = sub.add_parser("variants", help="compare the variants side by side")
    s.add_argument("--json", action="store_true", help="machine-readable output")
    s.set_defaults(func=cmd_variants)

    s = sub.add_parser("show", help="one variant's rules, readably")
    s.add_argument("variant", help="variant id or path to a variant TOML file")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_show)

    s = sub.add_parser("judge", help="rule on a scenario file under one variant or all")
    s.add_argument("scenario", help="scenario TOML file (see docs/scenarios.md)")
    s.add_argument("--variant", help="variant id, a path, or 'all' (default: the file's variant)")
    s.add_argument("--json", action="store_true", help="one JSON object per variant (a list for 'all')")
    s.set_defaults(func=cmd_judge)

    s = sub.add_parser("bury", help="what a policy buries under a variant's rules (deal, declare and bury only)")
    s.add_argument("--variant", required=True, help="variant id or a path")
    s.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="overrides",
                   help="override a rule field (repeat for several)")
    s.add_argument("--policy", default="search", help="built-in policy of the dealer (default search)")
    s.add_argument("--hands", type=int, default=2000, help="hands dealt (default 2000)")
    s.add_argument("--seed", type=int, default=1, help="root seed (default 1): the same deals for every --set")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_bury)

    s = sub.add_parser("advise", help="what a policy plays in a written position (search: every candidate's value)")
    s.add_argument("scenario", help="scenario TOML file with to_move (see docs/scenarios.md)")
    s.add_argument("--variant", help="variant id or a path (default: the file's variant)")
    s.add_argument("--policy", default="search", help="built-in policy (default search; search-k<K>-c<C> sets samples and candidates)")
    s.add_argument("--seed", type=int, default=1, help="seed of the search's sampling (default 1)")
    s.add_argument("--json", action="store_true", help="{variant, policy, seat, choice, candidates: [{play, value, ci95, samples}]}")
    s.set_defaults(func=cmd_advise)

    s = sub.add_parser("play", help="play one hand with the compiled engine and print its trace")
    s.add_argument("--variant", required=True, help="variant id or path to a variant TOML file")
    s.add_argument("--seed", required=True, type=int, help="the hand's seed (the same seed plays the same hand)")
    s.add_argument("--policies", default="expert,basic",
                   help="one policy, two (team NS, team EW) or four (N, E, S, W); "
                        "built-in: random, basic, expert (default: expert,basic)")
    s.add_argument("--level", help="the rank being played (default: the variant's start level)")
    s.add_argument("--ascii", action="store_true", help="suit letters instead of suit symbols")
    s.add_argument("--json", action="store_true", help="the record and the history as JSON")
    s.add_argument("--match", action="store_true", help="play a whole match: one line per hand, then the end")
    s.add_argument("--match-index", type=int, help="with --match: which match of the seed (default 0)")
    s.set_defaults(func=cmd_play)

    s = sub.add_parser("tournament", help="run one tournament of policy teams (or --repeat K of them)")
    s.add_argument("--variant", required=True, help="variant id or path")
    s.add_argument("--teams", type=int, default=8, help="number of teams (default 8)")
    s.add_argument("--policies", default="expert,basic", help="policies given to the teams in turn (default expert,basic)")
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--elimination", choices=["single", "double"], help="knock-out formats: override the variant")
    s.add_argument("--repeat", type=int, default=1, help="run K tournaments and report how often each team won")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_tournament)

    s = sub.add_parser("bench", help="hands per second of the compiled engine, per variant, on one core")
    s.add_argument("--variant", default="all", help="variant id, a path, or 'all' (default)")
    s.add_argument("--policy", default="basic", help="policies as for play (default: basic)")
    s.add_argument("--hands", type=int, default=20000, help="hands to time per variant (default: 20000)")
    s.add_argument("--seed", type=int, default=0, help="root seed of the timed hands (default: 0)")
    s.add_argument("--json", action="store_true", help="a list of one JSON object per variant")
    s.set_defaults(func=cmd_bench)

    s = sub.add_parser("duel", help="policy strength over duplicate hands (same deals, teams swapped)")
    s.add_argument("--policies", default="expert,basic", help="two policies A,B (default expert,basic)")
    s.add_argument("--variant", default="all", help="variant id, a path, or all (default)")
    size = s.add_mutually_exclusive_group()
    size.add_argument("--hands", type=int, help="duplicate pairs of hands per variant (default 20000)")
    size.add_argument("--matches", type=int, help="duplicate pairs of whole matches instead of hands")
    s.add_argument("--seed", type=int, default=1, help="root seed (default 1)")
    s.add_argument("--jobs", type=int, default=1, help="worker processes for duplicate hands (default 1; -1 all cores)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_duel)

    s = sub.add_parser("simulate", help="play N matches of one or more variants into a results folder (resumable)")
    s.add_argument("--variant", action="append", required=True, metavar="ID",
                   help="variant id or path; repeat for several variants (each is a cell)")
    s.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="overrides",
                   help="override a rule field of every variant (lists comma-separated); repeat for several")
    s.add_argument("--policies", default="expert,basic", help="A,B: team N-S plays A, team E-W plays B (default expert,basic)")
    g = s.add_mutually_exclusive_group()
    g.add_argument("--matches", type=int, help=f"matches per cell (default {DEFAULT_MATCHES_HELP})")
    g.add_argument("--hands", type=int, help="about this many hands per cell (matches estimated by a 20-match pilot)")
    _exec_args(s)
    s.add_argument("--seed", type=int, default=1, help="root seed (default 1); match i always gets the same deals")
    s.add_argument("--out", help="results folder (default results/<variants>-seed<S>-<hash>)")
    s.add_argument("--duplicate", action="store_true", help="play every match again with the teams' policies swapped")
    s.set_defaults(func=cmd_simulate)

    s = sub.add_parser("sweep", help="play every cell of a sweep spec (a grid of rule settings) into one results folder")
    s.add_argument("spec", help="sweep spec TOML (see docs/harness.md and examples/sweeps/)")
    s.add_argument("--out", required=True, help="results folder")
    _exec_args(s)
    s.set_defaults(func=cmd_sweep)

    s = sub.add_parser("design", help="the rule parameters that meet an organiser's goals (a design spec; resumable)")
    s.add_argument("spec", help="design spec TOML (see docs/design.md and examples/designs/)")
    s.add_argument("--out", default=None, help="design folder (default results/design-<spec name>)")
    _exec_args(s, chunk=False)
    s.add_argument("--json", action="store_true", help="the whole result (every figure, n and interval) as JSON")
    s.add_argument("--max-cells", type=int, default=500,
                   help="play a grid of up to this many cells (parameter sets x pairings; default 500)")
    s.set_defaults(func=cmd_design)

    s = sub.add_parser("summary", help="game length, swing and fairness of a results folder")
    s.add_argument("results", help="results folder (results/<run>)")
    s.add_argument("--by", choices=["variant", "cell"], default="variant", help="one row per variant or per cell")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_summary)

    s = sub.add_parser("calibrate", help="self-play under each outside reference's rules, beside its figures")
    s.add_argument("--reference", help="a reference id (calibration/<id>.toml) or file (default: every reference)")
    s.add_argument("--policy", default="expert", help="the policy at all four seats (default expert)")
    s.add_argument("--hands", default="10000", help="about this many hands per reference (default 10000)")
    s.add_argument("--seed", default="1", help="root seed (default 1); the figures do not depend on --jobs")
    s.add_argument("--jobs", default="1", help="worker processes (default 1; -1: one per core)")
    s.add_argument("--json", action="store_true", help="the figures with intervals as JSON")
    s.set_defaults(func=cmd_calibrate)

    s = sub.add_parser("compare-policies", help="two policies in self-play on the same deals: paired differences")
    s.add_argument("--variant", action="append", metavar="ID",
                   help="variant id or a path; repeat for several, or all (default)")
    s.add_argument("--policies", default="expert,search",
                   help="two policies A,B, each at all four seats; differences are A minus B (default expert,search)")
    s.add_argument("--hands", type=int, default=200, help="deals per variant, played by each policy (default 200)")
    s.add_argument("--seed", type=int, default=1, help="root seed (default 1); the figures do not depend on --jobs")
    s.add_argument("--jobs", type=int, default=1, help="worker processes (default 1; -1: one per core)")
    s.add_argument("--json", action="store_true", help="a list of one object per variant: every figure, n and interval")
    s.set_defaults(func=cmd_compare_policies)

    s = sub.add_parser("exact", help="the exact match model of a results folder: the match chain solved, per cell")
    s.add_argument("results", help="results folder (results/<run>)")
    s.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="overrides",
                   help="re-score the hands under changed rules (bands, clock, duration model); repeat for several")
    s.add_argument("--cell", action="append", metavar="ID", help="only this cell (repeat for several)")
    s.add_argument("--reps", type=int, default=1000,
                   help="bootstrap resamples over deals (default 1,000; fewer are labelled rough)")
    s.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default 0)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_exact)

    s = sub.add_parser("report", help="one self-contained HTML report of a results folder (tables and plots)")
    s.add_argument("results", help="results folder (results/<run>)")
    s.add_argument("-o", "--out", default="report.html",
                   help="the HTML file to write (default: report.html in the current folder)")
    s.add_argument("--by", choices=["variant", "cell"], default=None,
                   help="groups: variants or cells (default: cells when the run has more than one, else variants)")
    s.set_defaults(func=cmd_report)

    _learn_parser(sub)
    _once(p)
    return p


class _StoreOnce(argparse._StoreAction):
    """A single-valued option given twice is an error, not "the last one wins" (``duel --variant a --variant b``
    played b alone without a word)."""

    def __call__(self, parser, namespace, values, option_string=None):
        seen = namespace.__dict__.setdefault("_given", set())
        if self.dest in seen:
            parser.error(f"{option_string} given twice (the second: {values!r}); it takes one value"
                         + (": repeat --variant only where a command says it takes several" if self.dest == "variant" else ""))
        seen.add(self.dest)
        super().__call__(parser, namespace, values, option_string)


def _once(parser: argparse.ArgumentParser) -> None:
    """Every single-valued option of every sub-command refuses a second value (``_StoreOnce``)."""
    for action in parser._actions:
        if type(action) is argparse._StoreAction and action.option_strings:
            action.__class__ = _StoreOnce
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _once(sub)


def _learn_parser(sub) -> None:
    """``simsuite learn collect | train | evaluate``: the learned policy's data and model (docs/learned.md)."""
    s = sub.add_parser("learn", help="the learned policy: collect the search's decisions, train a model, evaluate it")
    learn = s.add_subparsers(dest="learn_command", metavar="STEP")
    s.set_defaults(func=lambda args: s.print_help() or 2)
    c = learn.add_parser("collect", help="play search self-play hands and store its decisions (resumable)")
    c.add_argument("--out", required=True, help="collection folder (created; a folder holding the same collection is resumed)")
    c.add_argument("--hands", type=int, default=20_000, help="hands to play (default 20000)")
    c.add_argument("--seed", type=int, default=1, help="root seed: hand i's deal, rules and level (default 1)")
    c.add_argument("--policy", default="search", help="the search whose decisions are stored (default search)")
    _exec_args(c)
    c.set_defaults(func=cmd_learn_collect)
    t = learn.add_parser("train", help="fit the learned policy's model to a collection and evaluate it on held-out data")
    t.add_argument("data", help="a complete collection folder (simsuite learn collect)")
    t.add_argument("--out", required=True, help="the model file to write (.npz; its card .json is written beside it)")
    t.add_argument("--max-rows", type=int, help="fit on at most this many candidate rows (default: all)")
    t.add_argument("--seed", type=int, default=1, help="seed of the row subsample with --max-rows (default 1)")
    t.add_argument("--json", action="store_true", help="the training figures as JSON")
    t.set_defaults(func=cmd_learn_train)
    e = learn.add_parser("evaluate", help="a model's agreement with the search on a collection's decisions")
    e.add_argument("model", help="a model file (.npz with its .json card), e.g. simsuite/models/learned.npz")
    e.add_argument("data", help="a complete collection folder")
    e.add_argument("--json", action="store_true")
    e.set_defaults(func=cmd_learn_evaluate)


DEFAULT_MATCHES_HELP = "1000"


def cmd_learn_collect(args) -> int:
    from .learn.collect import DEFAULT_CHUNK, collect

    print(collect(args.out, hands=args.hands, seed=args.seed, policy=args.policy, jobs=args.jobs,
                  chunk=args.chunk if args.chunk is not None else DEFAULT_CHUNK, backend=args.backend,
                  scheduler=args.scheduler, quiet=args.quiet, break_lock=args.break_lock,
                  command=["simsuite", *args.argv]))
    return 0


def cmd_learn_train(args) -> int:
    from .learn.train import load, model_target, train_and_write
    from .report.learn_text import training_text

    if args.max_rows is not None:
        check_int("--max-rows", args.max_rows, 1000)
    check_seed("--seed", args.seed)
    model_target(args.out)  # a bad --out is refused before the data are read
    trained = train_and_write(load(args.data), args.data, args.out, args.max_rows, args.seed,
                              command=["simsuite", *args.argv])
    if args.json:
        print(json.dumps({"lambda": trained.lam, "rows": trained.rows, "validation": trained.validation,
                          "evaluation": trained.evaluation}, indent=1))
    else:
        print(training_text(trained, args.out))
    return 0


def cmd_learn_evaluate(args) -> int:
    from .engine.model import load_model
    from .learn.train import coefficients, evaluate, load
    from .report.learn_text import evaluation_table

    model = load_model(args.model)
    d = load(args.data)
    ev = {"decisions": d.n, "model": evaluate(coefficients(model), d), "heuristic": evaluate(None, d)}
    if args.json:
        print(json.dumps(ev, indent=1))
    else:
        print(evaluation_table(f"{args.model} on {args.data}: every decision", ev))
    return 0


def _exec_args(s, chunk: bool = True) -> None:
    s.add_argument("--jobs", type=int, default=1, help="worker processes (default 1; -1: one per core)")
    s.add_argument("--backend", choices=["loky", "dask"], default="loky", help="local processes (loky) or a Dask cluster")
    s.add_argument("--scheduler", metavar="ADDRESS", help="with --backend dask: the scheduler, e.g. tcp://host:8786")
    if chunk:  # a design's chunk size is part of its spec (chunk = N): the spec decides its deals
        s.add_argument("--chunk", type=int, default=None, help="matches per chunk (default 50)")
    s.add_argument("--quiet", action="store_true", help="no progress bar or final line")
    s.add_argument("--break-lock", action="store_true",
                   help="remove the folder's lock left by a run that died (see docs/harness.md)")


def cmd_simulate(args) -> int:
    from .sim.run import simulate
    from .sim.spec import DEFAULT_CHUNK, RunSpec

    spec = RunSpec(variants=args.variant, overrides=args.overrides, policies=args.policies, matches=args.matches,
                   hands=args.hands, seed=args.seed, jobs=args.jobs, backend=args.backend, scheduler=args.scheduler,
                   duplicate=args.duplicate, out=args.out, chunk=args.chunk if args.chunk is not None else DEFAULT_CHUNK,
                   quiet=args.quiet, command=["simsuite", *args.argv], break_lock=args.break_lock)
    print(simulate(spec))
    return 0


def cmd_sweep(args) -> int:
    from .sim.run import sweep

    print(sweep(args.spec, args.out, jobs=args.jobs, backend=args.backend, scheduler=args.scheduler, quiet=args.quiet,
                chunk=args.chunk, command=["simsuite", *args.argv], break_lock=args.break_lock))
    return 0


def cmd_design(args) -> int:
    from .analysis.design import cli

    return cli(args)


def cmd_summary(args) -> int:
    from .analysis import metrics
    from .sim.results import load

    r = load(args.results)
    variants = r.variants()  # the rules each cell was played under (overrides included)
    with _reading(args.results):
        rows = metrics.summarise(r.hands, r.matches, by=args.by, variants=variants)
    if args.json:
        print(json.dumps(rows, indent=2, default=str))
    else:
        print(metrics.format_summary(rows))
    return 0


def cmd_calibrate(args) -> int:
    from .analysis.calibrate import command

    print(command(args.reference, policy=args.policy, hands=args.hands, seed=args.seed, jobs=args.jobs,
                  as_json=args.json))
    return 0


def cmd_compare_policies(args) -> int:
    from .analysis.compare import command

    print(command(args.variant, policies=args.policies, hands=args.hands, seed=args.seed, jobs=args.jobs,
                  as_json=args.json))
    return 0


def cmd_exact(args) -> int:
    from .analysis.exact import cli

    return cli(args)


def cmd_report(args) -> int:
    from .report.html import build_report

    _report_not_over_input(args.results, args.out)
    with _reading(args.results):
        print(build_report(args.results, args.out, by=args.by))
    return 0


def _report_not_over_input(results: str, out: str) -> None:
    """A report written into the folder it reads must be a new page, never one of the run's own files
    (``-o RUN/manifest.json`` replaced the manifest with HTML)."""
    run, target = Path(results).resolve(), Path(out).resolve()
    if target.is_relative_to(run) and (target.suffix.lower() not in (".html", ".htm") or target.parent != run):
        raise SimsuiteError(f"-o {out}: inside the results folder {results} the report must be an .html file at its top "
                            f"level (such as {Path(results) / 'report.html'}), never one of the run's files")


@contextlib.contextmanager
def _reading(run: str):
    """A part that passes the footer check but fails to decode (bytes damaged inside it) is found
    and named, instead of a raw polars or Arrow error."""
    import polars as pl
    import pyarrow as pa

    try:
        yield
    except (pl.exceptions.PolarsError, pa.ArrowException, OSError) as exc:
        from .sim.results import unreadable_message

        raise SimsuiteError(unreadable_message(run, exc)) from None


def cmd_variants(args) -> int:
    from .report.text import variants_table

    variants = load_all()
    if args.json:
        print(json.dumps([_summary(v) for v in variants], indent=2, ensure_ascii=False))
    else:
        print(variants_table(variants))
    return 0


def _summary(v) -> dict:
    return {
        "id": v.id, "name": v.name, "version": v.version, "rules_hash": v.rules_hash, "decks": v.decks,
        "bottom_size": v.bottom_size, "step": v.step, "takeover": v.takeover, "total_points": v.total_points,
        "capture_by": v.capture_by, "capture_with": v.capture_with, "capture_scheme": v.capture_scheme,
        "throws": v.throws, "throw_test": v.throw_test if v.throws else None,
    }


def cmd_show(args) -> int:
    v = load_variant(args.variant)
    if args.json:
        print(json.dumps({"id": v.id, "rules_hash": v.rules_hash, **v.to_toml_dict()}, indent=2, ensure_ascii=False))
    else:
        print(describe(v))
    return 0


def cmd_judge(args) -> int:
    from .report.text import judge_table
    from .rules.judge import judge
    from .rules.scenario import load_scenario

    scenario = load_scenario(args.scenario)
    choice = args.variant or scenario.variant
    if choice is None:
        raise SimsuiteError(f"{args.scenario}: no variant: give --variant ID (or all), or variant = \"ID\" in the file; "
                            f"known ids: {', '.join(known_ids())}")
    many = choice == "all"
    variants = load_all() if many else [load_variant(choice)]
    rulings = [judge(scenario, v) for v in variants]
    if args.json:
        print(json.dumps(rulings if many else rulings[0], indent=2, ensure_ascii=False))
    else:
        print(judge_table(scenario, rulings))
    return 0


def cmd_bury(args) -> int:
    from .analysis.bury import bury_study
    from .sim.spec import parse_overrides

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
    if args.json:
        print(json.dumps(r.as_dict(), indent=2))
        return 0
    sets = " ".join(f"{k}={val}" for k, val in overrides.items())
    print(f"{r.variant}{' (' + sets + ')' if sets else ''}: {r.policy} buries, {r.hands} hands (seed {args.seed}); 95% intervals")
    print(f"  points buried per hand     {r.points.fmt(2)}")
    print(f"  hands with points buried   {r.any_points.fmt(pct=True)}")
    for name, e in r.by_trumps:
        print(f"  dealer keeps {name} trumps: {e.fmt(2)}")
    return 0


def cmd_advise(args) -> int:
    from .play.advise import advice_text, advise
    from .rules.scenario import load_scenario

    scenario = load_scenario(args.scenario)
    choice = args.variant or scenario.variant
    if choice is None or choice == "all":
        raise SimsuiteError(f"{args.scenario}: name one variant: --variant ID, or variant = \"ID\" in the file; "
                            f"known ids: {', '.join(known_ids())}")
    check_seed("--seed", args.seed)
    a = advise(scenario, load_variant(choice), args.policy, args.seed)
    if args.json:
        print(json.dumps(a.as_dict(), indent=2, ensure_ascii=False))
    else:
        print(advice_text(scenario, a))
    return 0


WARMUP_HANDS = 20


def _policy_names(policies: str) -> list[str]:
    """Validate a policies argument and name the policy of each seat (N, E, S, W)."""
    from .engine.names import policy_codes, policy_name

    return [policy_name(c) for c in policy_codes(policies)]


def _engine_ready(variant) -> None:
    from .engine.params import engine_ready

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

    from .engine.api import play_one
    from .report.trace import format_trace
    from .rules.cards import RANK_NAMES, format_card, parse_rank

    v = load_variant(args.variant)
    names = _policy_names(args.policies)
    level = parse_rank(args.level) if args.level is not None else None
    if level is not None:
        if args.match:
            raise SimsuiteError("--level plays one hand at that level; a match (--match) starts at the variant's start "
                                f"level {RANK_NAMES[v.start_level]}: leave out one of them")
        if level in v.permanent_trump_ranks or not v.start_level <= level <= v.end_level:
            raise SimsuiteError(f"--level {args.level}: {v.id} plays levels {RANK_NAMES[v.start_level]} to "
                                f"{RANK_NAMES[v.end_level]}" + (f", never {', '.join(RANK_NAMES[r] for r in sorted(v.permanent_trump_ranks))} "
                                "(a permanent trump rank)" if v.permanent_trump_ranks else ""))
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
            "variant": v.id, "seed": args.seed, "policies": dict(zip(SEATS, names)),
            "record": result.record,
            "history": {
                "deal": {SEATS[s]: cards(h.deal[s]) for s in range(4)},
                "bottom": cards(h.bottom),
                "bids": [{"seat": SEATS[int(b[0])], "card": format_card(int(b[1])), "count": int(b[2]),
                          "kind": {1: "declare", 2: "override", 3: "reinforce"}.get(int(b[3]), int(b[3]))}
                         for b in h.bids],
                "bury": cards(h.bury),
                "plays": [{"trick": int(r[0]) + 1, "seat": SEATS[int(r[1])],
                           "kind": {0: "play", 1: "failed throw"}.get(int(r[2]), int(r[2])),
                           "winner": SEATS[int(r[3])] if r[3] >= 0 else None, "cards": cards(r[4:])}
                          for r in h.plays],
            },
        }
        print(json.dumps(data, indent=2))
    else:
        symbols = not args.ascii and _can_encode("♠♥♦♣", sys.stdout)
        print(format_trace(v, result, symbols, seed=args.seed, policies=names), end="")
    return 0


def cmd_bench(args) -> int:
    import time

    from .engine.api import play_batch
    from .report.text import table

    _policy_names(args.policy)
    check_int("--hands", args.hands, 1)
    check_seed("--seed", args.seed)
    check_memory(f"--hands {args.hands:,}", args.hands * HAND_BYTES, "time fewer hands")
    variants = load_all() if args.variant == "all" else [load_variant(args.variant)]
    for v in variants:
        _engine_ready(v)
    rows = []
    for v in variants:
        t0 = time.perf_counter()
        play_batch(v, args.seed, WARMUP_HANDS, args.policy)  # compiles (or loads the cache) on first use
        warm = time.perf_counter() - t0
        t0 = time.perf_counter()
        play_batch(v, args.seed, args.hands, args.policy)
        secs = time.perf_counter() - t0
        rows.append({"variant": v.id, "policy": args.policy, "hands": args.hands,
                     "hands_per_s": args.hands / secs if secs > 0 else float("inf"),
                     "seconds": secs, "warmup_s": warm})
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(table(["variant", "policy", "hands", "hands/s", "seconds", f"warm-up ({WARMUP_HANDS} hands) s"],
                    [[r["variant"], r["policy"], r["hands"], f"{r['hands_per_s']:,.0f}", f"{r['seconds']:.2f}",
                      f"{r['warmup_s']:.2f}"] for r in rows]))
    return 0


def cmd_duel(args) -> int:
    from .compete.duel import duel
    from .engine.names import policy_codes, split_names
    from .report.text import table

    names = split_names(args.policies)
    if len(names) != 2:
        raise SimsuiteError(f"--policies needs two names A,B; got {args.policies!r}")
    policy_codes(names)
    if args.hands is None:
        args.hands = 20000
    check_int("--hands", args.hands, 2)
    check_seed("--seed", args.seed)
    check_memory(f"--hands {args.hands:,}", args.hands * HAND_BYTES, "play fewer hands")
    variants = load_all() if args.variant == "all" else [load_variant(args.variant)]
    if args.matches is not None:
        return _duel_matches(args, names, variants)
    check_jobs("--jobs", args.jobs)
    results = [duel(v, names[0], names[1], args.hands, args.seed, jobs=args.jobs) for v in variants]
    if args.json:
        print(json.dumps([r.as_dict() for r in results], indent=2))
        return 0
    rows = [[r.variant, r.net_levels.fmt(3), r.pair_win.fmt(pct=True), r.pair_loss.fmt(pct=True)] for r in results]
    print(f"{names[0]} against {names[1]} over duplicate hands (seed {args.seed}); 95% intervals")
    print(table(["variant", f"net levels per hand for {names[0]}", f"pairs {names[0]} wins", f"pairs {names[0]} loses"], rows, max_width=60))
    return 0


def _play_match(v, args, names) -> int:
    import dataclasses

    from .compete.match import play_match
    from .compete.match_text import format_match

    check_int("--match-index", args.match_index, 0, MAX_MATCH_INDEX)
    m = play_match(v, args.seed, args.match_index, names)
    if args.json:
        print(json.dumps(dataclasses.asdict(m), indent=2))
    else:
        print(format_match(v, m), end="")
    return 0


def cmd_tournament(args) -> int:
    from .compete.competition import make_teams, repeat_tournaments, run_policy_tournament
    from .compete.tournament import format_standings
    from .engine.names import policy_codes, split_names
    from .report.text import table

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
        raise SimsuiteError(f"--elimination {args.elimination}: {v.id} plays a {v.tournament_format} tournament, not a "
                            "knock-out, and --elimination applies to knock-outs only (a variant file with "
                            "tournament_format = \"knockout\" plays one)")
    teams = make_teams(args.teams, pols)
    if len(pols) > args.teams:
        raise SimsuiteError(f"--policies names {len(pols)} policies for {args.teams} teams: the teams take the policies "
                            f"in turn, so {len(pols) - args.teams} would never play; give at most {args.teams}")
    _engine_ready(v)
    if args.repeat > 1:
        r = repeat_tournaments(v, teams, args.seed, args.repeat, args.elimination)
        if args.json:
            print(json.dumps({"variant": v.id, "repeats": r.repeats,
                              "first": {t: e.as_dict() for t, e in r.first.items()},
                              "policy_first": {p: e.as_dict() for p, e in r.policy_first.items()}}, indent=2))
            return 0
        print(f"{v.id}: {r.repeats} tournaments of {len(teams)} teams (seeds {args.seed}..{args.seed + r.repeats - 1}); "
              "share of tournaments won, 95% Wilson intervals")
        print(table(["team", "won the tournament"], [[t, e.fmt(pct=True)] for t, e in r.first.items()]))
        print(table(["policy", "a team of it won"], [[p, e.fmt(pct=True)] for p, e in r.policy_first.items()]))
        return 0
    result, records = run_policy_tournament(v, teams, args.seed, args.elimination)
    if args.json:
        print(json.dumps({"variant": v.id, "champion": result.champion,
                          "standings": [{"rank": s.rank, "team": s.team, "points": s.points,
                                         "level_diff": s.level_diff, "separated_by": s.separated_by}
                                        for s in result.standings],
                          "matches": len(records), "notes": list(result.notes)}, indent=2))
        return 0
    print(format_standings(result))
    return 0


def _duel_matches(args, names, variants) -> int:
    from .compete.duel import duel_matches
    from .report.text import table

    check_int("--matches", args.matches, 2)
    from .compete.match import hand_cap

    for v in variants:
        check_memory(f"--matches {args.matches:,} of {v.id}", args.matches * hand_cap(v) * HAND_BYTES,
                     "play fewer matches")
    results = [duel_matches(v, names[0], names[1], args.matches, args.seed) for v in variants]
    if args.json:
        print(json.dumps([r.as_dict() for r in results], indent=2))
        return 0
    print(f"{names[0]} against {names[1]} over duplicate matches (seed {args.seed}, {args.matches} pairs); 95% intervals")
    rows = [[r.variant, r.pair_win.fmt(pct=True), r.match_win.fmt(pct=True), r.match_draw.fmt(pct=True),
             r.hands_per_match.fmt(1)] for r in results]
    print(table(["variant", f"decided pairs {names[0]} wins", f"matches {names[0]} wins (draws counted)", "drawn",
                 "hands per match"], rows, max_width=60))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
