"""The ``simsuite`` command: thin sub-commands over the library.

A user's mistake (a bad file, an unknown id, bad notation) prints one line on stderr and exits
with status 2; it never shows a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..errors import SimsuiteError, did_you_mean
from .commands import (
    cmd_advise,
    cmd_bench,
    cmd_bury,
    cmd_calibrate,
    cmd_columns,
    cmd_compare,
    cmd_compare_policies,
    cmd_design,
    cmd_duel,
    cmd_exact,
    cmd_explore,
    cmd_judge,
    cmd_learn_collect,
    cmd_learn_evaluate,
    cmd_learn_responses,
    cmd_learn_train,
    cmd_play,
    cmd_report,
    cmd_show,
    cmd_simulate,
    cmd_summary,
    cmd_sweep,
    cmd_tournament,
    cmd_variants,
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    _known_command(parser, argv)
    args, extra = parser.parse_known_args(argv)
    args.argv = argv
    name = " ".join(filter(None, (args.command, getattr(args, "learn_command", None))))  # "learn collect"
    if extra:
        _unrecognized(_command_parser(parser, name) if name else parser, extra)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        with _compile_notice(args):
            return args.func(args) or 0
    except SimsuiteError as exc:
        print(f"simsuite {name}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"simsuite {name}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


def _known_command(parser: argparse.ArgumentParser, argv: list[str]) -> None:
    """A mistyped command (``simsuite dule``) is one line naming the near commands, not argparse's list of
    all of them. The first word that is not an option is the command: the top level's options take no value."""
    word = next((a for a in argv if not a.startswith("-")), None)
    commands = _command_parser(parser, "").choices if word is not None else {}
    if word is not None and word not in commands:
        parser.exit(
            2,
            f"simsuite: error: unknown command {word!r}{did_you_mean(word, commands)}; simsuite --help "
            "lists the commands\n",
        )


def _command_parser(parser: argparse.ArgumentParser, name: str):
    """The parser of the command ``name`` ("duel", "learn collect"); with "" the top level's sub-commands
    action (its ``choices``)."""
    for word in name.split():
        parser = _command_parser(parser, "").choices[word]
    if name:
        return parser
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def _unrecognized(parser: argparse.ArgumentParser, extra: list[str]) -> None:
    """Words no option of the command takes: one line, the near option named (``--polices``)."""
    options = [o for a in parser._actions for o in a.option_strings]
    near = did_you_mean(extra[0].split("=")[0], options) if extra[0].startswith("--") else ""
    parser.error(f"unrecognized arguments: {' '.join(extra)}{near}")


class _Parser(argparse.ArgumentParser):
    """argparse's own errors (a bad number, a missing option, a word too many) in the one line of every
    user mistake, ``simsuite COMMAND: error: ...``, without the usage block."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}; {self.prog} --help gives the options\n")


# the commands that run the compiled engine: on a fresh checkout their first call compiles it
ENGINE_COMMANDS = frozenset(
    {
        "bury",
        "advise",
        "play",
        "tournament",
        "bench",
        "duel",
        "simulate",
        "sweep",
        "design",
        "calibrate",
        "compare-policies",
        "learn",
    }
)


def _compile_notice(args):
    """Says on stderr when, and for how long, numba compiles the engine (``engine.warm``)."""
    import contextlib

    if args.command not in ENGINE_COMMANDS or getattr(args, "quiet", False):
        return contextlib.nullcontext()  # numba is not even imported for the others
    from ..engine.warm import CompileNotice

    return CompileNotice()


# ``simsuite --help`` lists the commands in these groups, for the people who use them; every command is in one
COMMAND_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("rules and rulings", ("variants", "show", "judge", "advise")),
    ("play", ("play", "duel", "tournament", "bury")),
    ("runs", ("simulate", "sweep", "design")),
    ("analysis", ("summary", "compare", "report", "explore", "exact", "calibrate", "compare-policies")),
    ("development", ("bench", "learn", "columns")),
)


def package_version() -> str:
    """The installed package's version; the source's ``simsuite.__version__`` where it is not installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("simsuite")
    except PackageNotFoundError:
        from .. import __version__

        return __version__


class _Version(argparse.Action):
    """``--version``, the version looked up only when asked for (the search of the installed packages'
    metadata would add tens of milliseconds to every command)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"simsuite {package_version()}")
        parser.exit()


class _GroupedCommands(argparse.HelpFormatter):
    """Lists the sub-commands under ``COMMAND_GROUPS``' headings; argparse alone prints one flat list."""

    def _format_action(self, action):
        if not isinstance(action, argparse._SubParsersAction):
            return super()._format_action(action)
        by_name = {a.dest: a for a in action._get_subactions()}
        grouped = {n for _, names in COMMAND_GROUPS for n in names}
        other = tuple(n for n in by_name if n not in grouped)  # a command not yet given a group is still listed
        parts = []
        for title, names in COMMAND_GROUPS + ((("other", other),) if other else ()):
            parts.append(" " * self._current_indent + title + ":\n")
            self._indent()
            parts += [super(_GroupedCommands, self)._format_action(by_name[n]) for n in names]
            self._dedent()
        return "".join(parts)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="simsuite",
        description="Tractor (Shengji) rule-variant simulator and rulings.",
        formatter_class=_GroupedCommands,
    )
    p.add_argument("--version", action=_Version, help="print the package's version and exit")
    sub = p.add_subparsers(
        dest="command",
        metavar="COMMAND",
        title="commands",
        description="simsuite COMMAND --help gives a command's options",
    )

    s = sub.add_parser("variants", help="compare the variants side by side")
    s.add_argument("--json", action="store_true", help="machine-readable output")
    s.set_defaults(func=cmd_variants)

    s = sub.add_parser("columns", help="the results' hand and match tables, column by column (markdown)")
    s.set_defaults(func=cmd_columns)

    s = sub.add_parser("show", help="one variant's rules, readably")
    s.add_argument("variant", help="variant id or path to a variant TOML file")
    s.add_argument(
        "--json", action="store_true", help="{id, rules_hash, then one object per section of the variant file}"
    )
    s.set_defaults(func=cmd_show)

    s = sub.add_parser("judge", help="rule on a scenario file under one variant or all")
    s.add_argument("scenario", help="scenario TOML file (see docs/scenarios.md)")
    s.add_argument("--variant", help="variant id, a path, or 'all' (default: the file's variant)")
    s.add_argument("--json", action="store_true", help="one JSON object per variant (a list for 'all')")
    s.set_defaults(func=cmd_judge)

    s = sub.add_parser("bury", help="what a policy buries under a variant's rules (deal, declare and bury only)")
    s.add_argument("--variant", required=True, help="variant id or a path")
    s.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        dest="overrides",
        help="override a rule field (repeat for several)",
    )
    s.add_argument("--policy", default="search", help="built-in policy of the dealer (default search)")
    s.add_argument("--hands", type=int, default=2000, help="hands dealt (default 2000)")
    s.add_argument("--seed", type=int, default=1, help="root seed (default 1): the same deals for every --set")
    s.add_argument(
        "--json",
        action="store_true",
        help="{variant, policy, hands, points, any_points, by_trumps}, each figure with its interval",
    )
    s.set_defaults(func=cmd_bury)

    s = sub.add_parser("advise", help="what a policy plays in a written position (search: every candidate's value)")
    s.add_argument("scenario", help="scenario TOML file with to_move (see docs/scenarios.md)")
    s.add_argument("--variant", help="variant id or a path (default: the file's variant)")
    s.add_argument(
        "--policy",
        default="search",
        help="built-in policy (default search; search-k<K>-c<C> sets samples and candidates)",
    )
    s.add_argument("--seed", type=int, default=1, help="seed of the search's sampling (default 1)")
    s.add_argument(
        "--json",
        action="store_true",
        help="{variant, policy, seat, choice, candidates: [{play, value, ci95, samples}]}",
    )
    s.set_defaults(func=cmd_advise)

    s = sub.add_parser("play", help="play one hand with the compiled engine and print its trace")
    s.add_argument("--variant", required=True, help="variant id or path to a variant TOML file")
    s.add_argument("--seed", required=True, type=int, help="the hand's seed (the same seed plays the same hand)")
    s.add_argument(
        "--policies",
        default="expert,basic",
        help="one policy, two (team NS, team EW) or four (N, E, S, W); "
        "built-in: random, basic, expert (default: expert,basic)",
    )
    s.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        dest="overrides",
        help="override a rule field (lists comma-separated); repeat for several",
    )
    s.add_argument("--level", help="the rank being played (default: the variant's start level)")
    s.add_argument("--ascii", action="store_true", help="suit letters instead of suit symbols")
    s.add_argument("--json", action="store_true", help="the record and the history as JSON")
    s.add_argument("--match", action="store_true", help="play a whole match: one line per hand, then the end")
    s.add_argument("--match-index", type=int, help="with --match: which match of the seed (default 0)")
    s.set_defaults(func=cmd_play)

    s = sub.add_parser("tournament", help="run one tournament of policy teams (or --repeat K of them)")
    s.add_argument("--variant", required=True, help="variant id or path")
    s.add_argument("--teams", type=int, default=8, help="number of teams (default 8)")
    s.add_argument(
        "--policies", default="expert,basic", help="policies given to the teams in turn (default expert,basic)"
    )
    s.add_argument(
        "--seed", type=int, default=1, help="root seed (default 1); with --repeat, tournament k plays seed + k"
    )
    s.add_argument("--elimination", choices=["single", "double"], help="knock-out formats: override the variant")
    s.add_argument("--repeat", type=int, default=1, help="run K tournaments and report how often each team won")
    s.add_argument(
        "--json",
        action="store_true",
        help="{variant, champion, standings, matches, notes}; with --repeat: each team's and policy's share of wins",
    )
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
    s.add_argument(
        "--json", action="store_true", help="a list of one object per variant: every figure with its interval"
    )
    s.set_defaults(func=cmd_duel)

    s = sub.add_parser("simulate", help="play N matches of one or more variants into a results folder (resumable)")
    s.add_argument(
        "--variant",
        action="append",
        required=True,
        metavar="ID",
        help="variant id or path; repeat for several variants (each is a cell)",
    )
    s.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        dest="overrides",
        help="override a rule field of every variant (lists comma-separated); repeat for several",
    )
    s.add_argument(
        "--policies", default="expert,basic", help="A,B: team N-S plays A, team E-W plays B (default expert,basic)"
    )
    g = s.add_mutually_exclusive_group()
    g.add_argument("--matches", type=int, help=f"matches per cell (default {DEFAULT_MATCHES_HELP})")
    g.add_argument("--hands", type=int, help="about this many hands per cell (matches estimated by a 20-match pilot)")
    _exec_args(s)
    s.add_argument("--seed", type=int, default=1, help="root seed (default 1); match i always gets the same deals")
    s.add_argument("--out", help="results folder (default results/<variants>-seed<S>-<hash>)")
    s.add_argument("--duplicate", action="store_true", help="play every match again with the teams' policies swapped")
    s.set_defaults(func=cmd_simulate)

    s = sub.add_parser(
        "sweep", help="play a grid of rule settings (--variant with --grid, or a spec file) into one results folder"
    )
    s.add_argument(
        "spec", nargs="?", help="sweep spec TOML (see docs/harness.md and examples/sweeps/); or --variant with --grid"
    )
    s.add_argument("--variant", metavar="ID", help="with --grid: the variant id or path whose rules the grid changes")
    s.add_argument(
        "--grid",
        action="append",
        default=[],
        metavar="KEY=V1,V2",
        help="a rule field and its values (a list field's items joined by /); repeat for more keys: "
        "every combination is a cell",
    )
    s.add_argument("--policies", help="with --grid: A,B as for simulate (default expert,basic)")
    s.add_argument("--matches", type=int, help="matches per cell (default: the spec's; 1000 with --grid)")
    s.add_argument("--seed", type=int, help="root seed (default: the spec's; 1 with --grid)")
    s.add_argument(
        "--out",
        help="results folder (default results/sweep-<spec name>-seed<S>, or sweep-<variant>-<grid keys>-seed<S>)",
    )
    _exec_args(s)
    s.set_defaults(func=cmd_sweep)

    s = sub.add_parser("design", help="the rule parameters that meet an organiser's goals (a design spec; resumable)")
    s.add_argument("spec", help="design spec TOML (see docs/design.md and examples/designs/)")
    s.add_argument("--out", default=None, help="design folder (default results/design-<spec name>)")
    _exec_args(s, chunk=False)
    s.add_argument("--json", action="store_true", help="the whole result (every figure, n and interval) as JSON")
    s.add_argument(
        "--max-cells",
        type=int,
        default=500,
        help="play a grid of up to this many cells (parameter sets x pairings; default 500)",
    )
    s.set_defaults(func=cmd_design)

    s = sub.add_parser("summary", help="game length, swing and fairness of a results folder")
    s.add_argument("results", help="results folder (results/<run>)")
    s.add_argument(
        "--by",
        choices=["variant", "cell"],
        default="variant",
        help="group the figures by variant (default) or by cell: one column per group (one object with --json)",
    )
    s.add_argument("--json", action="store_true", help="a list of one object per group: every figure, n and interval")
    s.set_defaults(func=cmd_summary)

    s = sub.add_parser(
        "compare", help="rule settings side by side: a sweep's figures, paired differences from a baseline, goals"
    )
    s.add_argument("results", help="results folder of a run with several cells (simsuite sweep --grid ...)")
    s.add_argument(
        "--baseline",
        help="the setting the others are compared with: a cell id or its words (default: the base variant's own "
        "values where the grid has them, else the first cell)",
    )
    s.add_argument(
        "--goal",
        action="append",
        default=[],
        metavar="METRIC<=BOUND",
        help="a goal as in a design spec (METRIC<=BOUND or METRIC>=BOUND, shares from 0 to 1; docs/design.md); "
        "repeat for several",
    )
    s.add_argument(
        "--json", action="store_true", help="every figure, n, interval, difference and adjusted p, and the goals"
    )
    s.set_defaults(func=cmd_compare)

    s = sub.add_parser("calibrate", help="self-play under each outside reference's rules, beside its figures")
    s.add_argument("--reference", help="a reference id (calibration/<id>.toml) or file (default: every reference)")
    s.add_argument("--policy", default="expert", help="the policy at all four seats (default expert)")
    s.add_argument("--hands", default="10000", help="about this many hands per reference (default 10000)")
    s.add_argument("--seed", default="1", help="root seed (default 1); the figures do not depend on --jobs")
    s.add_argument("--jobs", default="1", help="worker processes (default 1; -1: one per core)")
    s.add_argument("--json", action="store_true", help="the figures with intervals as JSON")
    s.set_defaults(func=cmd_calibrate)

    s = sub.add_parser("compare-policies", help="two policies in self-play on the same deals: paired differences")
    s.add_argument(
        "--variant", action="append", metavar="ID", help="variant id or a path; repeat for several, or all (default)"
    )
    s.add_argument(
        "--policies",
        default="expert,search",
        help="two policies A,B, each at all four seats; differences are A minus B (default expert,search)",
    )
    s.add_argument("--hands", type=int, default=200, help="deals per variant, played by each policy (default 200)")
    s.add_argument("--seed", type=int, default=1, help="root seed (default 1); the figures do not depend on --jobs")
    s.add_argument("--jobs", type=int, default=1, help="worker processes (default 1; -1: one per core)")
    s.add_argument("--json", action="store_true", help="a list of one object per variant: every figure, n and interval")
    s.set_defaults(func=cmd_compare_policies)

    s = sub.add_parser("exact", help="the exact match model of a results folder: the match chain solved, per cell")
    s.add_argument("results", help="results folder (results/<run>)")
    s.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        dest="overrides",
        help="re-score the hands under another clock or duration model (exact re-scoring: they change no "
        "play); repeat for several",
    )
    s.add_argument("--cell", action="append", metavar="ID", help="only this cell (repeat for several)")
    s.add_argument(
        "--reps",
        type=int,
        default=1000,
        help="bootstrap resamples over deals (default 1,000; fewer are labelled rough)",
    )
    s.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default 0)")
    s.add_argument(
        "--json",
        action="store_true",
        help="a list of one object per cell (with --validate: per cell and figure), every interval",
    )
    s.add_argument(
        "--validate",
        metavar="SIM_RUN",
        help="out-of-sample validation: the model beside the matches of SIM_RUN (a run of another seed), "
        "per figure with its margin and TOST's p, as a markdown table",
    )
    s.add_argument(
        "--approximate",
        action="store_true",
        help="with --set: re-score the bands too, taking the hands as they fell under the old bands "
        "(approximate re-scoring; docs/metrics.md measures its error)",
    )
    s.add_argument("--quiet", action="store_true", help="no progress line on stderr during a long solve")
    s.set_defaults(func=cmd_exact)

    s = sub.add_parser("report", help="one self-contained HTML report of a results folder (tables and plots)")
    s.add_argument("results", help="results folder (results/<run>)")
    s.add_argument(
        "-o", "--out", default="report.html", help="the HTML file to write (default: report.html in the current folder)"
    )
    s.add_argument(
        "--by",
        choices=["variant", "cell"],
        default=None,
        help="groups: variants or cells (default: cells when the run has more than one, else variants)",
    )
    s.set_defaults(func=cmd_report)

    s = sub.add_parser(
        "explore",
        help="the rules explorer: one self-contained HTML page where a rule is moved and the match figures follow at once",
    )
    s.add_argument("results", help="results folder (results/<run>): a run, a sweep or a design folder")
    s.add_argument(
        "-o",
        "--out",
        default="explorer.html",
        help="the HTML file to write (default: explorer.html in the current folder)",
    )
    s.add_argument("--seed", type=int, default=0, help="seed of the level check's bootstrap (default 0)")
    s.set_defaults(func=cmd_explore)

    _learn_parser(sub)
    _once(p)
    return p


class _StoreOnce(argparse._StoreAction):
    """A single-valued option given twice is an error, not "the last one wins" (``duel --variant a --variant b``
    played b alone without a word)."""

    def __call__(self, parser, namespace, values, option_string=None):
        seen = namespace.__dict__.setdefault("_given", set())
        if self.dest in seen:
            parser.error(
                f"{option_string} given twice (the second: {values!r}); it takes one value"
                + (": repeat --variant only where a command says it takes several" if self.dest == "variant" else "")
            )
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
    """``simsuite learn collect | train | evaluate | responses``: the learned policy's data, model and rule
    responses (docs/learned.md)."""
    s = sub.add_parser(
        "learn",
        help="the learned policy: collect the search's decisions, train a model, evaluate it, measure its rule responses",
    )
    learn = s.add_subparsers(dest="learn_command", metavar="STEP")
    s.set_defaults(func=lambda args: s.print_help() or 2)
    c = learn.add_parser("collect", help="play search self-play hands and store its decisions (resumable)")
    c.add_argument(
        "--out", required=True, help="collection folder (created; a folder holding the same collection is resumed)"
    )
    c.add_argument("--hands", type=int, default=20_000, help="hands to play (default 20000)")
    c.add_argument("--seed", type=int, default=1, help="root seed: hand i's deal, rules and level (default 1)")
    c.add_argument(
        "--policy",
        default="search",
        help="the search whose decisions are stored (default search; search-k32-c6-rlearned rolls out with "
        "learned; label-k8-c6-rlearned plays learned and labels its decisions)",
    )
    c.add_argument(
        "--mode",
        default="hands",
        help="hands: whole hands (default); bury: deal, declare and bury only, one bury decision a hand",
    )
    _exec_args(c)
    c.set_defaults(func=cmd_learn_collect)
    t = learn.add_parser(
        "train", help="fit the learned policy's model to a collection and evaluate it on held-out data"
    )
    t.add_argument("data", nargs="+", help="complete collection folders (simsuite learn collect), one or more")
    t.add_argument("--out", required=True, help="the model file to write (.npz; its card .json is written beside it)")
    t.add_argument("--max-rows", type=int, help="fit on at most this many candidate rows (default: all)")
    t.add_argument("--seed", type=int, default=1, help="seed of the row subsample with --max-rows (default 1)")
    t.add_argument(
        "--base",
        help="a model whose coefficients the groups not fitted keep (an older model is widened to this "
        "version's features)",
    )
    t.add_argument(
        "--groups",
        help="fit only these groups, comma-separated: lead, follow, bury, end-lead, end-follow "
        "(default: every group with training rows)",
    )
    t.add_argument(
        "--heads",
        help="fit these non-linear heads too, comma-separated: bury, end (they then score those decisions; "
        "default: none fitted, the base's kept)",
    )
    t.add_argument(
        "--leave-out",
        metavar="TOURNAMENT",
        help="drop this tournament's hands, as written and with drawn parameters (a model that never saw its rules)",
    )
    t.add_argument("--json", action="store_true", help="the training figures as JSON")
    t.set_defaults(func=cmd_learn_train)
    e = learn.add_parser("evaluate", help="a model's agreement with the search on a collection's decisions")
    e.add_argument("model", help="a model file (.npz with its .json card), e.g. simsuite/models/learned.npz")
    e.add_argument("data", help="a complete collection folder")
    e.add_argument(
        "--json",
        action="store_true",
        help="agreement and value lost, overall and per decision kind, for the model and the heuristic",
    )
    e.set_defaults(func=cmd_learn_evaluate)
    r = learn.add_parser(
        "responses",
        help="how learned's play answers each rule field the notebooks vary, beside a reference's, on the same deals",
    )
    r.add_argument("--policy", default="learned", help="the policy studied (default learned)")
    r.add_argument(
        "--reference",
        default="reference",
        help="the reference policy (default reference, search-k32-c6; search, at 8 samples, is about four times faster and noisier)",
    )
    r.add_argument(
        "--deals",
        type=int,
        default=50,
        help="played deals per rule setting (default 50); the bury-only settings deal eight times as many",
    )
    r.add_argument("--seed", type=int, default=1, help="root seed (default 1); the figures do not depend on --jobs")
    r.add_argument("--jobs", type=int, default=1, help="worker processes (default 1; -1: one per core)")
    r.add_argument(
        "--variant",
        help="study every field that applies on this variant's rules (default: school-2016, and guangxi-2012 "
        "for the capture by lead size)",
    )
    r.add_argument(
        "--json", action="store_true", help="every figure, n, interval and paired difference, and the departures"
    )
    r.set_defaults(func=cmd_learn_responses)


DEFAULT_MATCHES_HELP = "1000"


def _exec_args(s, chunk: bool = True) -> None:
    s.add_argument("--jobs", type=int, default=1, help="worker processes (default 1; -1: one per core)")
    s.add_argument(
        "--backend", choices=["loky", "dask"], default="loky", help="local processes (loky) or a Dask cluster"
    )
    s.add_argument("--scheduler", metavar="ADDRESS", help="with --backend dask: the scheduler, e.g. tcp://host:8786")
    if chunk:  # a design's chunk size is part of its spec (chunk = N): the spec decides its deals
        s.add_argument("--chunk", type=int, default=None, help="matches per chunk (default 50)")
    s.add_argument("--quiet", action="store_true", help="no progress bar or final line")
    s.add_argument(
        "--break-lock",
        action="store_true",
        help="remove the folder's lock left by a run that died (see docs/harness.md)",
    )
