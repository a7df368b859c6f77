"""Every bad argument list gets one clear line on stderr and exit 2, and nothing runs.

Each row of the table: a case, the argument list (a string split at spaces, or a list; ``{tmp}`` is a
scratch folder, ``{out}`` a results folder in it, ``{evil}`` a policy file that leaves a marker when
imported), the words the error line must hold. Nothing is written to ``{out}`` and no policy file is
imported. A guard stops a case that runs away: an alarm after ``LIMIT_S`` seconds, and after each case
no worker process left and no memory blow-up, so that a regression fails the test rather than the
machine."""

from __future__ import annotations

import os
import resource
import signal
from pathlib import Path

import pytest
from cli import one_line_error, run_cli

ROOT = Path(__file__).resolve().parent.parent
LEAD = str(ROOT / "examples" / "scenarios" / "advise-lead.toml")
LIMIT_S = 60
MAX_GROWTH_KB = 2 << 20  # 2 GB of resident memory more than before the case
MARKER = "imported.marker"  # what evil.py writes if anything imports it

CASES = [
    # simulate, play, duel, bench and tournament: sizes, seeds, schedulers and policies
    (
        "--set seconds_per_trick=inf",
        "simulate --variant school-2016 --set seconds_per_trick=inf --matches 2 --out {out}",
        ["seconds_per_trick", "finite"],
    ),
    (
        "--set seconds_per_trick=nan",
        "simulate --variant school-2016 --set seconds_per_trick=nan --out {out}",
        ["seconds_per_trick", "finite"],
    ),
    (
        "--matches 10**12",
        f"simulate --variant school-2016 --matches {10**12} --out {{out}}",
        ["--matches 1,000,000,000,000", "more than the 1,000,000 a run's manifest tracks"],
    ),
    (
        "--hands 10**18",
        f"simulate --variant school-2016 --hands {10**18} --out {{out}}",
        ["--hands", "chunks of 50 matches, more than"],
    ),
    (
        "--chunk 10**12",
        f"simulate --variant school-2016 --matches {10**9} --chunk {10**12} --out {{out}}",
        ["a chunk of", "GB of memory"],
    ),
    (
        "play --match-index 10**20",
        f"play --variant school-2016 --seed 1 --match --match-index {10**20}",
        ["--match-index", "at most"],
    ),
    ("duel --seed -1", "duel --variant school-2016 --seed -1 --hands 2", ["--seed", "at least 0"]),
    (
        "simulate --seed 2**64",
        f"simulate --variant school-2016 --seed {2**64} --matches 2 --out {{out}}",
        ["--seed", "at most"],
    ),
    ("play --seed 2**64", f"play --variant school-2016 --seed {2**64}", ["--seed", "at most"]),
    ("duel --seed 2**64", f"duel --variant school-2016 --seed {2**64} --hands 2", ["--seed", "at most"]),
    ("bench --seed 2**64", f"bench --variant school-2016 --seed {2**64} --hands 2", ["--seed", "at most"]),
    ("tournament --repeat -1", "tournament --variant school-2016 --repeat -1", ["--repeat", "at least 1"]),
    ("tournament --teams 10**9", f"tournament --variant school-2016 --teams {10**9}", ["--teams", "at most"]),
    (
        "dask scheduler 'not a url!!'",
        ["simulate", "--variant", "school-2016", "--backend", "dask", "--scheduler", "not a url!!", "--out", "{out}"],
        ["--scheduler", "not a scheduler address"],
    ),
    (
        "dask scheduler with a broken IPv6 address",
        "simulate --variant school-2016 --backend dask --scheduler tcp://[::1 --out {out}",
        ["--scheduler", "ipv6 needs brackets"],
    ),
    (
        "dask scheduler that refuses",
        "simulate --variant school-2016 --backend dask --scheduler tcp://127.0.0.1:1 --out {out}",
        ["cannot reach the Dask scheduler", "refused"],
    ),
    ("--jobs 0", "simulate --variant school-2016 --jobs 0 --out {out}", ["--jobs"]),
    ("--matches not a number", "simulate --variant school-2016 --matches ten", ["--matches"]),
    ("unknown command", "frobnicate", ["unknown command 'frobnicate'", "simsuite --help lists the commands"]),
    (
        "simulate a Python policy",
        "simulate --variant school-2016 --policies {evil},basic --out {out}",
        ["Python policy", "evil.py"],
    ),
    # advise, calibrate, duel, compare-policies, bury, exact, learn, show, report, play, tournament, design
    ("advise seed", ["advise", LEAD, "--seed", "-1"], ["--seed must be at least 0"]),
    ("advise huge seed", ["advise", LEAD, "--seed", "99999999999999999999999"], ["--seed must be at most"]),
    ("advise two policies", ["advise", LEAD, "--policy", "expert,basic"], ["unknown policy 'expert,basic'"]),
    ("advise variant", ["advise", LEAD, "--variant", "nowhere"], ["unknown variant id"]),
    (
        "advise search range",
        ["advise", LEAD, "--policy", "search-k100000-c6"],
        ["samples 1 to 255, candidates 1 to 24"],
    ),
    ("duel search range", ["duel", "--policies", "search-k8-c1000,basic", "--hands", "2"], ["candidates 1 to 24"]),
    ("calibrate hands", ["calibrate", "--hands", "0"], ["--hands must be at least 1"]),
    ("calibrate words", ["calibrate", "--hands", "abc"], ["--hands must be an integer"]),
    ("calibrate seed", ["calibrate", "--seed", "-1"], ["--seed must be at least 0"]),
    ("calibrate jobs", ["calibrate", "--jobs", "0"], ["--jobs must be a positive number"]),
    ("calibrate fork bomb", ["calibrate", "--jobs", "400000"], ["more worker processes than this machine runs"]),
    ("calibrate two policies", ["calibrate", "--policy", "expert,basic"], ["--policy takes one policy name"]),
    ("calibrate huge", ["calibrate", "--hands", "999999999999"], ["more than the 1,000,000 a run's manifest tracks"]),
    ("duel hands", ["duel", "--hands", "1"], ["--hands must be at least 2"]),
    ("duel matches", ["duel", "--matches", "0"], ["--matches must be at least 2"]),
    ("duel one policy", ["duel", "--policies", "expert"], ["--policies needs two names"]),
    ("duel fork bomb", ["duel", "--jobs", "1000000"], ["more worker processes than this machine runs"]),
    ("duel memory", ["duel", "--hands", "999999999999999"], ["GB of memory"]),
    ("compare hands", ["compare-policies", "--hands", "0"], ["--hands must be at least 2"]),
    ("compare memory", ["compare-policies", "--hands", "99999999999999"], ["GB of memory"]),
    ("compare seed", ["compare-policies", "--seed", "-5"], ["--seed must be at least 0"]),
    ("compare policies", ["compare-policies", "--policies", "a,b"], ["unknown policy 'a'"]),
    ("compare fork bomb", ["compare-policies", "--jobs", "400000"], ["more worker processes than this machine runs"]),
    ("bury two policies", ["bury", "--variant", "school-2016", "--policy", "expert,basic"], ["takes one policy"]),
    ("bury hands", ["bury", "--variant", "school-2016", "--hands", "0"], ["--hands must be at least 2"]),
    ("bury no bottom", ["bury", "--variant", "guangxi-2012"], ["has no bottom"]),
    ("exact nowhere", ["exact", "/nowhere"], ["no such folder"]),
    (
        "learn chunk",
        ["learn", "collect", "--out", "{tmp}/c", "--hands", "2", "--chunk", "0"],
        ["--chunk must be at least 1"],
    ),
    ("learn policy", ["learn", "collect", "--out", "{tmp}/c", "--policy", "expert"], ["logs the search's decisions"]),
    ("learn fork bomb", ["learn", "collect", "--out", "{tmp}/c", "--jobs", "400000"], ["more worker processes"]),
    ("learn train nowhere", ["learn", "train", "/nowhere", "--out", "{tmp}/m.npz"], ["not a folder"]),
    ("learn train out", ["learn", "train", "/nowhere", "--out", "{tmp}/m.pkl"], ["a model file ends in .npz"]),
    ("learn evaluate", ["learn", "evaluate", "{tmp}/none.npz", "{tmp}"], ["no such model file"]),
    ("show path id", ["show", "../../tmp/odd"], ["unknown variant id (an id is 1 to 64"]),
    ("duel path id", ["duel", "--variant", "../variants/huizhou", "--hands", "2"], ["unknown variant id (an id is"]),
    ("calibrate path id", ["calibrate", "--reference", "../variants/school-2016"], ["unknown reference"]),
    (
        "duel variant twice",
        ["duel", "--variant", "school-2016", "--variant", "huizhou", "--hands", "4"],
        ["--variant given twice"],
    ),
    ("duel hands and matches", ["duel", "--hands", "10", "--matches", "10"], ["not allowed with argument --hands"]),
    (
        "report over its manifest",
        ["report", "{out}", "-o", "{out}/manifest.json"],
        ["the report must be an .html file at its top level"],
    ),
    ("report into hands", ["report", "{out}", "-o", "{out}/hands/part.html"], ["must be an .html file"]),
    (
        "play permanent trump level",
        ["play", "--variant", "guangxi-2012", "--seed", "1", "--level", "2"],
        ["--level 2: guangxi-2012 plays levels 3 to A, never 2"],
    ),
    (
        "play level past the end",
        ["play", "--variant", "huizhou", "--seed", "1", "--level", "A"],
        ["huizhou plays levels 2 to 10"],
    ),
    (
        "play level of a match",
        ["play", "--variant", "huizhou", "--seed", "1", "--level", "J", "--match"],
        ["a match (--match) starts at the variant's start level"],
    ),
    (
        "play match index alone",
        ["play", "--variant", "school-2016", "--seed", "1", "--match-index", "5"],
        ["give --match too"],
    ),
    (
        "tournament elimination of swiss",
        ["tournament", "--variant", "school-2016", "--teams", "4", "--elimination", "double"],
        ["plays a swiss tournament, not a knock-out"],
    ),
    (
        "tournament unused policies",
        ["tournament", "--variant", "school-2016", "--teams", "2", "--policies", "expert,basic,random"],
        ["so 1 would never play"],
    ),
    ("design nowhere", ["design", "{tmp}/none.toml"], ["no such design spec"]),
    (
        "design cells",
        [
            "design",
            str(ROOT / "examples" / "designs" / "two-deck-club-60.toml"),
            "--out",
            "{tmp}/d",
            "--max-cells",
            "2",
        ],
        ["cells a design plays unless asked"],
    ),
]


def _children() -> set[int]:
    """The live processes this one started (from /proc; empty where there is no /proc)."""
    me = os.getpid()
    out = set()
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me and fields[0] != "Z":
            out.add(int(entry.name))
    return out


@pytest.fixture
def guard():
    """An alarm after LIMIT_S; afterwards, no new worker left running and no memory blow-up."""

    def _timeout(signum, frame):
        raise TimeoutError(f"the case ran past {LIMIT_S} s")

    before = _children()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    old = signal.signal(signal.SIGALRM, _timeout)
    signal.alarm(LIMIT_S)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert _children() <= before, "a worker process outlived the command"
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss < MAX_GROWTH_KB


def evil_policy(tmp: Path) -> str:
    p = tmp / "evil.py"
    p.write_text(f"open({str(tmp / MARKER)!r}, 'w').write('ran')\nclass Evil: pass\n", encoding="utf-8")
    return f"{p}:Evil"


@pytest.mark.parametrize("case, argv, words", CASES, ids=[c[0] for c in CASES])
def test_a_bad_argument_list_gets_one_line_naming_it(case, argv, words, tmp_path, capsys, guard):
    fill = dict(tmp=tmp_path, out=tmp_path / "run", evil=evil_policy(tmp_path))
    code, _, err = run_cli(capsys, *(a.format(**fill) for a in (argv.split() if isinstance(argv, str) else argv)))
    one_line_error(code, err, *words, usage_ok=True)
    assert not (tmp_path / MARKER).exists(), "the policy file was imported"
    assert not (tmp_path / "run").exists(), "something was written"


def test_learn_train_checks_the_cards_path_before_training(tmp_path, capsys):
    """The model's card (.json beside the .npz) that cannot be written is refused before the data are
    read, so that no fit ends in a model without its card."""
    (tmp_path / "m.json").mkdir()
    code, _, err = run_cli(capsys, "learn", "train", str(tmp_path / "nowhere"), "--out", str(tmp_path / "m.npz"))
    one_line_error(code, err, f"{tmp_path / 'm.json'} exists and is not a file")
    assert not (tmp_path / "m.npz").exists()


@pytest.mark.parametrize(
    "sets, words",
    [
        (["hand_overhead_minutes=0", "seconds_per_trick=0"], "the clock never runs out"),
        (["hand_overhead_minutes=0.001", "seconds_per_trick=0"], "could take 90,003 hands, more than the 10,000"),
        (["tiebreaks=points"], "--set tiebreaks: a tournament setting, which no match depends on"),
    ],
    ids=["hands without time", "hands of a moment", "tournament setting"],
)
def test_exact_refuses_clocks_simulate_refuses(tmp_path, capsys, guard, sets, words):
    """exact refuses at once, as simulate does, a clock that never runs out or that allows more hands than
    a match may play, and refuses a tournament setting for being one."""
    run = tmp_path / "run"
    code, _, err = run_cli(
        capsys, "simulate", "--variant", "school-2016", "--matches", "4", "--out", str(run), "--quiet"
    )
    assert code == 0, err
    argv = ["exact", str(run), "--reps", "10"]
    for s in sets:
        argv += ["--set", s]
    one_line_error(*run_cli(capsys, *argv)[::2], words, command="exact")
