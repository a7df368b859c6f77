"""Issue 34: the newer commands (design, exact, calibrate, advise, duel, compare-policies, bury,
learn) tried as a hostile user would, as issue 13's table tries the older ones. Each row: a bad
argument list, the words the one-line error must hold. A guard stops a case that runs away: an
alarm after ``LIMIT_S`` seconds, and after each case no worker process left and no memory blow-up,
so that a regression fails the test rather than the machine."""

from __future__ import annotations

import os
import resource
import signal
from pathlib import Path

import pytest

from simsuite.cli import main

ROOT = Path(__file__).resolve().parent.parent
LEAD = str(ROOT / "examples" / "scenarios" / "advise-lead.toml")
LIMIT_S = 60
MAX_GROWTH_KB = 2 << 20  # 2 GB of resident memory more than before the case

CASES = [
    ("advise seed", ["advise", LEAD, "--seed", "-1"], ["--seed must be at least 0"]),
    ("advise huge seed", ["advise", LEAD, "--seed", "99999999999999999999999"], ["--seed must be at most"]),
    ("advise two policies", ["advise", LEAD, "--policy", "expert,basic"], ["unknown policy 'expert,basic'"]),
    ("advise variant", ["advise", LEAD, "--variant", "nowhere"], ["unknown variant id"]),
    ("advise search range", ["advise", LEAD, "--policy", "search-k100000-c6"], ["samples 1 to 255, candidates 1 to 24"]),
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
    ("duel seed", ["duel", "--seed", "-1"], ["--seed must be at least 0"]),
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
    ("learn chunk", ["learn", "collect", "--out", "{tmp}/c", "--hands", "2", "--chunk", "0"], ["--chunk must be at least 1"]),
    ("learn policy", ["learn", "collect", "--out", "{tmp}/c", "--policy", "expert"], ["logs the search's decisions"]),
    ("learn fork bomb", ["learn", "collect", "--out", "{tmp}/c", "--jobs", "400000"], ["more worker processes"]),
    ("learn train nowhere", ["learn", "train", "/nowhere", "--out", "{tmp}/m.npz"], ["not a folder"]),
    ("learn train out", ["learn", "train", "/nowhere", "--out", "{tmp}/m.pkl"], ["a model file ends in .npz"]),
    ("learn evaluate", ["learn", "evaluate", "{tmp}/none.npz", "{tmp}"], ["no such model file"]),
    ("show path id", ["show", "../../tmp/odd"], ["unknown variant id (an id is 1 to 64"]),
    ("duel path id", ["duel", "--variant", "../variants/huizhou", "--hands", "2"], ["unknown variant id (an id is"]),
    ("calibrate path id", ["calibrate", "--reference", "../variants/school-2016"], ["unknown reference"]),
    ("duel variant twice", ["duel", "--variant", "school-2016", "--variant", "huizhou", "--hands", "4"],
     ["--variant given twice"]),
    ("duel hands and matches", ["duel", "--hands", "10", "--matches", "10"], ["not allowed with argument --hands"]),
    ("report over its manifest", ["report", "{tmp}/run", "-o", "{tmp}/run/manifest.json"],
     ["the report must be an .html file at its top level"]),
    ("report into hands", ["report", "{tmp}/run", "-o", "{tmp}/run/hands/part.html"], ["must be an .html file"]),
    ("play permanent trump level", ["play", "--variant", "guangxi-2012", "--seed", "1", "--level", "2"],
     ["--level 2: guangxi-2012 plays levels 3 to A, never 2"]),
    ("play level past the end", ["play", "--variant", "huizhou", "--seed", "1", "--level", "A"],
     ["huizhou plays levels 2 to 10"]),
    ("play level of a match", ["play", "--variant", "huizhou", "--seed", "1", "--level", "J", "--match"],
     ["a match (--match) starts at the variant's start level"]),
    ("play match index alone", ["play", "--variant", "school-2016", "--seed", "1", "--match-index", "5"],
     ["give --match too"]),
    ("tournament elimination of swiss", ["tournament", "--variant", "school-2016", "--teams", "4", "--elimination",
                                         "double"], ["plays a swiss tournament, not a knock-out"]),
    ("tournament unused policies", ["tournament", "--variant", "school-2016", "--teams", "2", "--policies",
                                    "expert,basic,random"], ["so 1 would never play"]),
    ("design nowhere", ["design", "{tmp}/none.toml"], ["no such design spec"]),
    ("design cells", ["design", str(ROOT / "examples" / "designs" / "two-deck-club-60.toml"), "--out", "{tmp}/d",
                      "--max-cells", "2"], ["cells a design plays unless asked"]),
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


@pytest.mark.parametrize("name, argv, words", CASES, ids=[c[0] for c in CASES])
def test_a_hostile_input_gets_one_line_naming_it(name, argv, words, tmp_path, capsys, guard):
    try:
        code = main([a.replace("{tmp}", str(tmp_path)) for a in argv])
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    out, err = capsys.readouterr()
    assert code == 2, (code, err)
    assert "Traceback" not in err and "Warning" not in err, err
    assert any(line.startswith("simsuite") and "error:" in line for line in err.splitlines()), err
    for w in words:
        assert w in err, (w, err)


def test_learn_train_checks_the_cards_path_before_training(tmp_path, capsys):
    """The model's card (.json beside the .npz) that cannot be written is refused before the data are
    read: a folder in its place left a model without its card after the whole fit."""
    (tmp_path / "m.json").mkdir()
    assert main(["learn", "train", str(tmp_path / "nowhere"), "--out", str(tmp_path / "m.npz")]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'm.json'} exists and is not a file" in err
    assert not (tmp_path / "m.npz").exists()


def test_learn_collect_on_sigterm_frees_its_lock_and_marks_the_run(tmp_path):
    """SIGTERM is Ctrl-C for a collection as for a run: the lock is removed and the manifest says
    interrupted (a killed collection left a stale lock that refused the next one)."""
    import json
    import subprocess
    import sys
    import time

    out = tmp_path / "c"
    proc = subprocess.Popen([sys.executable, "-m", "simsuite.cli", "learn", "collect", "--out", str(out), "--hands",
                             "4000", "--chunk", "20", "--jobs", "1", "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    manifest = out / "manifest.json"
    deadline = time.monotonic() + LIMIT_S
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if any(c.get("status") == "done" for c in json.loads(manifest.read_text())["chunks"]):
                break
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=LIMIT_S)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err, err
    assert json.loads(manifest.read_text())["status"] == "interrupted"
    assert not (out / "simsuite.lock").exists()


FOLLOW = ROOT / "examples" / "scenarios" / "advise-follow.toml"


@pytest.mark.parametrize("extra, words", [
    ('\n[shown]\nE = "CA CA"\n', "[shown] E = CA CA: E is to move and does not hold CA"),
    ('\n[shown]\nE = "C5"\n', "E is to move and does not hold C5"),
], ids=["shown beyond the decks", "shown not held"])
def test_advise_refuses_shown_cards_the_seat_to_move_does_not_hold(tmp_path, capsys, extra, words):
    """The seat to move's own [shown] cards are still in its hand; cards it does not hold were
    accepted (five copies of a three-deck card among them)."""
    path = tmp_path / "p.toml"
    path.write_text(FOLLOW.read_text() + extra)
    assert main(["advise", str(path), "--policy", "expert"]) == 2
    assert words in capsys.readouterr().err


def test_advise_refuses_other_seats_hands_the_decks_cannot_hold(tmp_path, capsys):
    """Other seats' [hands] are not read, but a hand that breaks the deck count is no position."""
    text = FOLLOW.read_text().replace('[hands]\n', '[hands]\nN = "S2"\n', 1)
    path = tmp_path / "p.toml"
    path.write_text(text)
    assert main(["advise", str(path), "--policy", "expert"]) == 2
    assert "[hands] of the other seats with the cards played and the bottom: 4 x S2" in capsys.readouterr().err


def test_advise_json_has_no_nan_where_a_candidate_has_no_interval(capsys):
    """One sample gives no interval: JSON null, never NaN (which is not JSON)."""
    import json

    assert main(["advise", str(FOLLOW), "--policy", "search-k1-c6", "--json"]) == 0
    out = capsys.readouterr().out
    data = json.loads(out, parse_constant=lambda c: pytest.fail(f"{c} in the JSON"))
    assert all(c["ci95"] is None for c in data["candidates"])


def test_an_interrupted_calibration_does_not_promise_a_folder_it_removes(tmp_path):
    """calibrate plays in a temporary folder: on an interrupt it said its chunks were 'kept in' that
    folder (removed a moment later) and gave a resume command that started from scratch."""
    import subprocess
    import sys
    import time

    proc = subprocess.Popen([sys.executable, "-m", "simsuite.cli", "calibrate", "--hands", "2000000", "--policy",
                             "basic", "--jobs", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=tmp_path, env={**os.environ, "TMPDIR": str(tmp_path)})
    deadline = time.monotonic() + LIMIT_S  # until the run plays (a fresh checkout compiles the engine first)
    while time.monotonic() < deadline and proc.poll() is None and not list(tmp_path.glob("simsuite-calibrate-*/run/hands/*")):
        time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=LIMIT_S)
    assert proc.returncode == 130, err
    assert "nothing is kept, run the command again" in err and "kept in" not in err, err
    assert "Traceback" not in err


def test_a_broken_learned_model_is_refused_before_any_folder_is_made(tmp_path, capsys, monkeypatch):
    """simulate, sweep and design played chunks (and made the folder) before a broken SIMSUITE_MODEL
    surfaced as a failed chunk; now it is one message first, as in every other command."""
    bad = tmp_path / "garbage.npz"
    bad.write_bytes(b"not a model")
    monkeypatch.setenv("SIMSUITE_MODEL", str(bad))
    out = tmp_path / "run"
    assert main(["simulate", "--variant", "school-2016", "--policies", "learned,expert", "--matches", "2",
                 "--out", str(out), "--quiet"]) == 2
    assert "the learned policy's model (from SIMSUITE_MODEL)" in capsys.readouterr().err
    assert not out.exists()
    spec = tmp_path / "d.toml"
    spec.write_text((ROOT / "tests" / "designs" / "tiny.toml").read_text().replace('"expert,basic"', '"learned,basic"'))
    assert main(["design", str(spec), "--out", str(tmp_path / "d"), "--quiet"]) == 2
    assert "the learned policy's model (from SIMSUITE_MODEL)" in capsys.readouterr().err
    assert not (tmp_path / "d").exists()


@pytest.mark.parametrize("sets, words", [
    (["hand_overhead_minutes=0", "seconds_per_trick=0"], "the clock never runs out"),
    (["hand_overhead_minutes=0.001", "seconds_per_trick=0"], "could take 90,003 hands, more than the 10,000"),
    (["tiebreaks=points"], "--set tiebreaks: a tournament setting, which no match depends on"),
], ids=["hands without time", "hands of a moment", "tournament setting"])
def test_exact_refuses_clocks_simulate_refuses(tmp_path, capsys, guard, sets, words):
    """exact re-scored a clock that never runs out and ran until memory ran out; simulate refused the same
    rules at once. A tournament setting was refused for a reason that was not its own."""
    run = tmp_path / "run"
    assert main(["simulate", "--variant", "school-2016", "--matches", "4", "--out", str(run), "--quiet"]) == 0
    capsys.readouterr()
    argv = ["exact", str(run), "--reps", "10"]
    for s in sets:
        argv += ["--set", s]
    assert main(argv) == 2
    assert words in capsys.readouterr().err


@pytest.mark.parametrize("stem", ["a" * 70, "we ird$'x\"", "nl\nid = \"evil\"\n[x]"], ids=["long", "quotes", "newlines"])
def test_designs_recommended_rules_load_whatever_the_specs_name(tmp_path, stem):
    """recommended.toml took its id from the spec's file name (over 64 characters, or with quotes: no
    command loaded it) and its comment line from the raw path (a newline broke out of the comment)."""
    import shutil
    import types

    from simsuite.analysis.design_store import variant_toml
    from simsuite.analysis.design_spec import read_design
    from simsuite.rules.variant import load_variant

    path = tmp_path / f"{stem}.toml"
    shutil.copy(ROOT / "tests" / "designs" / "tiny.toml", path)
    spec = read_design(path, 500)
    chosen = types.SimpleNamespace(params={"step": 30}, variant=spec.sets[0].variant)
    out = tmp_path / "recommended.toml"
    out.write_text(variant_toml(chosen, spec))
    v = load_variant(str(out))
    assert v.id.startswith("design-") and len(v.id) <= 64
    assert out.read_text().splitlines()[0].startswith("# The rules simsuite design recommends")
    assert out.read_text().splitlines()[1].startswith("# Written by simsuite design")


@pytest.mark.parametrize("change, words", [
    (('match_minutes = "<= 95"', 'match_minutes = "<= -5"'), "match_minutes is never negative"),
    (('base = "two-deck-2011"', 'base = "two-deck-2011.toml"'), "a relative path is read from the folder the command runs in"),
], ids=["goal below zero", "base beside the spec"])
def test_design_specs_that_cannot_mean_what_they_say(tmp_path, capsys, monkeypatch, change, words):
    import shutil

    text = (ROOT / "tests" / "designs" / "tiny.toml").read_text()
    assert change[0] in text
    (tmp_path / "spec").mkdir()
    shutil.copy(ROOT / "variants" / "two-deck-2011.toml", tmp_path / "spec")
    spec = tmp_path / "spec" / "s.toml"
    spec.write_text(text.replace(*change))
    monkeypatch.chdir(tmp_path)
    assert main(["design", str(spec), "--out", str(tmp_path / "o")]) == 2
    assert words in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_small_samples_give_intervals_inside_what_the_figure_can_be(capsys):
    """Normal intervals of two or three hands reached past the figure's range: a take-over
    difference of -148 points, a mean |level change| or points buried below 0."""
    import json

    assert main(["compare-policies", "--hands", "2", "--policies", "expert,basic", "--variant", "school-2016",
                 "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)[0]["figures"]
    for f in figures.values():
        if f["kind"] == "share":
            assert -1.0 <= f["difference"]["low"] <= f["difference"]["high"] <= 1.0, f
    for side in ("a", "b"):
        assert figures["level_change_mean"][side]["low"] >= 0.0
    assert main(["bury", "--variant", "school-2016", "--policy", "basic", "--hands", "3", "--json"]) == 0
    points = json.loads(capsys.readouterr().out)["points"]
    assert points["low"] >= 0.0


def test_within_keeps_an_interval_inside_its_range():
    from simsuite.analysis.stats import Estimate, within

    assert within(Estimate(-0.5, -1.48, 0.48, 2), -1.0, 1.0) == Estimate(-0.5, -1.0, 0.48, 2)
    assert within(Estimate(1.0, -0.96, 2.96, 2), 0.0) == Estimate(1.0, 0.0, 2.96, 2)
    empty = Estimate(float("nan"), float("nan"), float("nan"), 0)
    assert within(empty, 0.0) is empty


@pytest.mark.parametrize("tail, words", [
    ('[grid]\ndecks = [2, 3]\n[decks_scaling]\n9 = { bottom_size = 8 }\n', "decks_scaling.9: a deck count is 1 to 8"),
    ('[grid]\nstep = [20, 40]\n[decks_scaling]\n2 = { bottom_size = 8 }\n', "no grid or cell sets decks"),
], ids=["nine decks", "no decks in the grid"])
def test_a_sweeps_decks_scaling_that_nothing_uses_is_refused(tmp_path, capsys, tail, words):
    """Entries for a deck count no variant has, or a [decks_scaling] with no decks in the grid, were
    accepted and ignored."""
    spec = tmp_path / "s.toml"
    spec.write_text('base = "school-2016"\nmatches = 2\n' + tail)
    assert main(["sweep", str(spec), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    assert words in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_an_edited_collection_manifest_is_refused(tmp_path):
    """learn train copied an edited identity (hands = "x") into the model's card."""
    import json

    from simsuite.errors import SimsuiteError
    from simsuite.learn.collect import FORMAT, identity, load_manifest
    from simsuite.sim.results import json_hash

    ident = identity(1, 40, 20, "search")
    (tmp_path / "manifest.json").write_text(json.dumps({"format": FORMAT, "chunks": [], "identity": ident,
                                                        "identity_hash": json_hash(ident)}))
    assert load_manifest(tmp_path)["identity"]["hands"] == 40
    ident["hands"] = "x"
    (tmp_path / "manifest.json").write_text(json.dumps({"format": FORMAT, "chunks": [], "identity": ident,
                                                        "identity_hash": json_hash(identity(1, 40, 20, "search"))}))
    with pytest.raises(SimsuiteError, match="its identity does not match its identity_hash"):
        load_manifest(tmp_path)


def test_a_design_pairing_with_the_weaker_policy_first_is_refused(tmp_path, capsys):
    """pairings = ["basic,expert", ...] was played, and stronger_wins reported basic's 32% as the stronger's."""
    spec = tmp_path / "s.toml"
    spec.write_text((ROOT / "tests" / "designs" / "tiny.toml").read_text().replace('"expert,basic"', '"basic,expert"'))
    assert main(["design", str(spec), "--out", str(tmp_path / "o")]) == 2
    assert "pairings: 'basic,expert' puts the weaker policy first" in capsys.readouterr().err
