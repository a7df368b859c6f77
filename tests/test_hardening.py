"""Hardening (issue 13): every bad input gives one clear line and a non-zero exit.

The fuzz table feeds malformed variant files, scenarios, sweep specs, manifests, parts and
argument lists to the CLI entry point in-process and checks three things for each: no
traceback (``main`` returns instead of raising), a non-zero exit, and a message naming the field
or the file. Every case listed in the issue is a row here (its id says which). A hypothesis test
then throws random values at every numeric variant field. The rest checks the results folder's
lock and damaged-part handling.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from simsuite.cli import main
from simsuite.rules.variant import SPECS
from simsuite.sim import results as R
from simsuite.sim.run import simulate

BASE = 'extends = "school-2016"\n'
MARKER = "imported.marker"  # what evil.py writes if anything imports it


def run(capsys, argv: list[str]) -> tuple[int, str, str]:
    """The CLI in-process: argparse's own errors exit through SystemExit, which counts as an exit."""
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def assert_clear_error(code, err: str, needles: list[str]) -> None:
    assert code not in (0, None), err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    # the error line (argparse's own errors follow its usage line)
    assert any(line.startswith("simsuite") and "error:" in line for line in err.splitlines()), err
    for needle in needles:
        assert needle in err, (needle, err)


def variant_file(tmp: Path, body: str, name: str = "v.toml") -> str:
    p = tmp / name
    p.write_text(BASE + body, encoding="utf-8")
    return str(p)


def spec_file(tmp: Path, body: str) -> str:
    p = tmp / "spec.toml"
    p.write_text(body, encoding="utf-8")
    return str(p)


def evil_policy(tmp: Path) -> str:
    p = tmp / "evil.py"
    p.write_text(f"open({str(tmp / MARKER)!r}, 'w').write('ran')\nclass Evil: pass\n", encoding="utf-8")
    return f"{p}:Evil"


# --- variant files: the tracebacks and silent acceptances ----------------------------------

VARIANT_CASES = [
    # (issue case, body after extends, needles)
    ("decks 10**20 (OverflowError)", "[deal]\ndecks = 100000000000000000000\n", ["decks", "out of range"]),
    ("capture_per_card 10**30 (OverflowError)", "[capture]\ncapture_per_card = 1000000000000000000000000000000\n",
     ["capture_per_card", "out of range"]),
    ("seconds_per_trick inf (OverflowError)", "[match]\nseconds_per_trick = inf\n", ["seconds_per_trick", "finite"]),
    ("NaN hand_overhead_minutes passes", "[match]\nhand_overhead_minutes = nan\n", ["hand_overhead_minutes", "finite"]),
    ("NaN seconds_per_trick passes", "[match]\nseconds_per_trick = nan\n", ["seconds_per_trick", "finite"]),
    ("match_minutes 10**12 (77.7 TiB)", "[match]\nmatch_minutes = 1000000000000\n", ["match_minutes", "out of range"]),
    ("hands_after_warning 10**9", "[match]\nhands_after_warning = 1000000000\n", ["hands_after_warning", "out of range"]),
    ("decks 130 runs for minutes", "[deal]\ndecks = 130\n", ["decks", "from 1 to 8"]),
    ("decks 100000 runs for minutes", "[deal]\ndecks = 100000\n", ["decks", "from 1 to 8"]),
    ("huge capture_per_card overflows int8 after play", "[capture]\ncapture_per_card = 100000\n",
     ["capture_per_card", "from 0 to 100"]),
    ("negative time", "[match]\nhand_overhead_minutes = -1.0\n", ["hand_overhead_minutes", "from 0 to 1440"]),
    ("every problem in one error", "[deal]\ndecks = 0\n[match]\nseconds_per_trick = nan\n",
     ["2 problems", "decks", "seconds_per_trick"]),
]


@pytest.mark.parametrize("case, body, needles", VARIANT_CASES, ids=[c[0] for c in VARIANT_CASES])
def test_bad_variant_field_is_refused_before_play(capsys, tmp_path, case, body, needles):
    path = variant_file(tmp_path, body)
    for argv in (["show", path], ["simulate", "--variant", path, "--matches", "2", "--out", str(tmp_path / "r")]):
        code, _, err = run(capsys, argv)
        assert_clear_error(code, err, [path, *needles])
    assert not (tmp_path / "r").exists()  # refused before anything was written


def test_extends_loop_through_a_path_without_toml_is_named(capsys, tmp_path):
    """Issue: an extends loop through a path without .toml raised RecursionError."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text(f'extends = "{b}"\n')
    b.write_text(f'extends = "{a}"\n')
    code, _, err = run(capsys, ["show", str(a)])
    assert_clear_error(code, err, ["extends forms a cycle"])


# --- the command line ---------------------------------------------------------------------------

ARGV_CASES = [
    # (issue case, argv (a string split at spaces, or a list) with {out} for a results folder and
    # {evil} for a policy file, needles)
    ("--set seconds_per_trick=inf (OverflowError)", "simulate --variant school-2016 --set seconds_per_trick=inf "
     "--matches 2 --out {out}", ["seconds_per_trick", "finite"]),
    ("--set seconds_per_trick=nan", "simulate --variant school-2016 --set seconds_per_trick=nan --out {out}",
     ["seconds_per_trick", "finite"]),
    ("--matches 10**12 (MemoryError)", f"simulate --variant school-2016 --matches {10**12} --out {{out}}",
     ["--matches 1,000,000,000,000", "more than the 1,000,000 a run's manifest tracks"]),
    ("--hands 10**18 (MemoryError)", f"simulate --variant school-2016 --hands {10**18} --out {{out}}",
     ["--hands", "chunks of 50 matches, more than"]),
    ("--chunk 10**12 sizes the worker arrays", f"simulate --variant school-2016 --matches {10**9} --chunk {10**12} "
     "--out {out}", ["a chunk of", "GB of memory"]),
    ("play --match-index 10**20 (TypingError)", f"play --variant school-2016 --seed 1 --match --match-index {10**20}",
     ["--match-index", "at most"]),
    ("duel --seed -1 (ValueError)", "duel --variant school-2016 --seed -1 --hands 2", ["--seed", "at least 0"]),
    ("simulate --seed 2**64 plays first", f"simulate --variant school-2016 --seed {2**64} --matches 2 --out {{out}}",
     ["--seed", "at most"]),
    ("play --seed 2**64 accepted", f"play --variant school-2016 --seed {2**64}", ["--seed", "at most"]),
    ("duel --seed 2**64 accepted", f"duel --variant school-2016 --seed {2**64} --hands 2", ["--seed", "at most"]),
    ("bench --seed 2**64", f"bench --variant school-2016 --seed {2**64} --hands 2", ["--seed", "at most"]),
    ("tournament --repeat -1 runs once", "tournament --variant school-2016 --repeat -1", ["--repeat", "at least 1"]),
    ("tournament --teams 10**9", f"tournament --variant school-2016 --teams {10**9}", ["--teams", "at most"]),
    ("dask scheduler 'not a url!!' (__del__ traceback)", ["simulate", "--variant", "school-2016", "--backend", "dask",
     "--scheduler", "not a url!!", "--out", "{out}"], ["--scheduler", "not a scheduler address"]),
    ("dask scheduler with a broken IPv6 address", "simulate --variant school-2016 --backend dask "
     "--scheduler tcp://[::1 --out {out}", ["--scheduler", "ipv6 needs brackets"]),
    ("dask scheduler that refuses", "simulate --variant school-2016 --backend dask --scheduler tcp://127.0.0.1:1 "
     "--out {out}", ["cannot reach the Dask scheduler", "refused"]),
    ("--jobs 0", "simulate --variant school-2016 --jobs 0 --out {out}", ["--jobs"]),
    ("--matches not a number", "simulate --variant school-2016 --matches ten", ["--matches"]),
    ("unknown command", "frobnicate", ["unknown command 'frobnicate'", "simsuite --help lists the commands"]),
    ("a Python policy on simulate is refused unimported", "simulate --variant school-2016 --policies {evil},basic "
     "--out {out}", ["Python policy", "evil.py"]),
]


@pytest.mark.parametrize("case, argv, needles", ARGV_CASES, ids=[c[0] for c in ARGV_CASES])
def test_bad_argv_gives_one_clear_line(capsys, tmp_path, case, argv, needles):
    words = argv.split() if isinstance(argv, str) else argv
    argv = [a.format(out=tmp_path / "run", evil=evil_policy(tmp_path)) for a in words]
    code, _, err = run(capsys, argv)
    assert_clear_error(code, err, needles)
    assert not (tmp_path / MARKER).exists(), "the policy file was imported"
    assert not (tmp_path / "run").exists(), "something was written"


# --- sweep specs: data that must never run code -----------------------------------------------------

SPEC_CASES = [
    ("policies import path", 'base = "school-2016"\nmatches = 2\npolicies = "expert,{evil}"\n', ["import path"]),
    ("grid policies import path", 'base = "school-2016"\nmatches = 2\n[grid]\npolicies = ["expert,basic", "{evil},basic"]\n',
     ["grid.policies", "import path"]),
    ("cells policies import path", 'base = "school-2016"\nmatches = 2\n[[cells]]\npolicies = "{evil}"\n',
     ["cells[0].policies", "import path"]),
    ("this:Nope imports a standard module", 'base = "school-2016"\npolicies = "this:Nope"\n', ["'this:Nope'", "import path"]),
    ("matches 10**9 (MemoryError)", 'base = "school-2016"\nmatches = 1000000000\n', ["matches = 1,000,000,000", "chunks"]),
    ("matches 10**8 in one chunk sizes the worker arrays", 'base = "school-2016"\nmatches = 100000000\n'
     'chunk = 100000000\n', ["a chunk of 100,000,000 matches", "GB of memory"]),  # ~1.4 TB: any machine refuses
    ("decks [10**9] (MemoryError)", 'base = "school-2016"\nmatches = 2\n[grid]\ndecks = [1000000000]\n',
     ["decks=1000000000", "from 1 to 8"]),
    ("seed 2**64", 'base = "school-2016"\nseed = 18446744073709551616\n', ["seed must be at most"]),
    ("grid nan", 'base = "school-2016"\n[grid]\nseconds_per_trick = [nan]\n', ["seconds_per_trick", "finite"]),
]


@pytest.mark.parametrize("case, body, needles", SPEC_CASES, ids=[c[0] for c in SPEC_CASES])
def test_bad_sweep_spec_runs_no_code_and_says_why(capsys, tmp_path, case, body, needles):
    path = spec_file(tmp_path, body.replace("{evil}", evil_policy(tmp_path)))
    code, out, err = run(capsys, ["sweep", path, "--out", str(tmp_path / "run")])
    assert_clear_error(code, err, [path, *needles])
    assert not (tmp_path / MARKER).exists(), "a spec file made simsuite import its policy"
    assert "Beautiful is better than ugly" not in out + err  # `import this` prints the Zen
    assert not (tmp_path / "run").exists()


# --- scenarios ------------------------------------------------------------------------------------

SCENARIO = Path(__file__).resolve().parent.parent / "examples" / "scenarios" / "last-trick-capture.toml"


@pytest.mark.parametrize("points, needles", [
    (10**30, ["defender_points", "out of range"]),  # issue: judge ruled on 10^30
    (-10**30, ["defender_points", "out of range"]),
    ('"sixty"', ["defender_points must be an integer"]),
])
def test_bad_scenario_end_points(capsys, tmp_path, points, needles):
    text = SCENARIO.read_text(encoding="utf-8").replace("defender_points = 60", f"defender_points = {points}")
    p = tmp_path / "s.toml"
    p.write_text(text, encoding="utf-8")
    code, _, err = run(capsys, ["judge", str(p), "--variant", "school-2016"])
    assert_clear_error(code, err, needles)


# --- results folders: manifests and parts ----------------------------------------------------------

@pytest.fixture(scope="module")
def small_run(tmp_path_factory) -> Path:
    """Four matches of school-2016 in two chunks: the folder every damaged copy starts from."""
    return simulate(dict(variants=["school-2016"], matches=4, chunk=2, seed=5, quiet=True,
                         out=tmp_path_factory.mktemp("small") / "run"))


def damaged_copy(small_run: Path, tmp: Path, damage) -> Path:
    run = tmp / "copy"
    shutil.copytree(small_run, run)
    damage(run)
    return run


def _edit_manifest(edit):
    def damage(run: Path) -> None:
        m = json.loads((run / R.MANIFEST).read_text())
        edit(m)
        (run / R.MANIFEST).write_text(json.dumps(m))
    return damage


def _part(run: Path, kind: str = "hands", chunk: str = "0000-000000") -> Path:
    return R.part_path(run, kind, chunk)


def _truncate(run: Path) -> None:
    p = _part(run)
    p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])


def _corrupt(run: Path) -> None:
    """Garbage in the middle of the data pages, the footer intact."""
    p = _part(run)
    data = bytearray(p.read_bytes())
    mid = len(data) // 3
    data[mid: mid + 200] = b"\xff" * 200
    p.write_bytes(bytes(data))


DAMAGE = [
    ("manifest chunk start 'ten' (TypeError)", _edit_manifest(lambda m: m["chunks"][0].update(start="ten")),
     ["manifest.json", "start 'ten'"]),
    ("manifest chunk of an unknown cell", _edit_manifest(lambda m: m["chunks"][0].update(cell="nowhere")),
     ["manifest.json", "'nowhere'"]),
    ("manifest chunk stop before start", _edit_manifest(lambda m: m["chunks"][0].update(start=5, stop=1)),
     ["manifest.json", "start below stop"]),
    ("manifest not JSON", lambda run: (run / R.MANIFEST).write_text("{nope"), ["manifest.json", "corrupt"]),
    ("manifest chunks not a list", _edit_manifest(lambda m: m.update(chunks={})), ["manifest.json", "'chunks'"]),
    ("truncated part", _truncate, ["part-0000-000000.parquet", "truncated"]),
    ("empty part", lambda run: _part(run).write_bytes(b""), ["part-0000-000000.parquet", "empty"]),
    ("garbage part", lambda run: _part(run).write_bytes(b"not parquet at all" * 10),
     ["part-0000-000000.parquet", "not a Parquet file"]),
    ("corrupted part", _corrupt, ["part-0000-000000.parquet"]),
    ("matches part in place of a hands part", lambda run: shutil.copy(_part(run, "matches"), _part(run)),
     ["part-0000-000000.parquet", "holds matches rows"]),
    ("foreign Parquet part", lambda run: pl.DataFrame({"x": [1]}).write_parquet(_part(run)),
     ["part-0000-000000.parquet", "hands columns"]),
    ("another chunk's part", lambda run: shutil.copy(_part(run, chunk="0000-000001"), _part(run)),
     ["part-0000-000000.parquet", "holds chunk '0000-000001'"]),
    ("a part of another run (manifest disagrees)", _edit_manifest(lambda m: m.update(identity_hash="0" * 16)),
     ["part-0000-000000.parquet", "another run"]),
    ("a part lost", lambda run: _part(run).unlink(), ["part-0000-000000.parquet", "missing"]),
]


@pytest.mark.parametrize("case, damage, needles", DAMAGE, ids=[d[0] for d in DAMAGE])
@pytest.mark.parametrize("command", ["summary", "report"])
def test_damaged_results_are_named(capsys, small_run, tmp_path, case, damage, needles, command):
    folder = damaged_copy(small_run, tmp_path, damage)
    argv = [command, str(folder)] + (["-o", str(tmp_path / "r.html")] if command == "report" else [])
    code, _, err = run(capsys, argv)
    assert_clear_error(code, err, needles)
    assert "\n" not in err.strip(), err


def test_resume_replays_a_truncated_part(capsys, small_run, tmp_path):
    """Issue: resuming a run with a truncated part said "complete already"."""
    folder = damaged_copy(small_run, tmp_path, _truncate)
    m = json.loads((folder / R.MANIFEST).read_text())
    argv = [*m["command"][1:]]
    argv[argv.index("--out") + 1] = str(folder)
    code, _, err = run(capsys, argv)
    assert code == 0, err
    assert "truncated" in err and "playing chunk 0000-000000 again" in err
    assert "complete already" not in err
    assert R.damaged_parts(folder, R.read_manifest(folder)) == []
    assert load_rows(folder).equals(load_rows(small_run))


def load_rows(run: Path) -> pl.DataFrame:
    return R.load(run).hands.drop("run").sort(["match", "hand"]).collect()


# --- random values in every numeric variant field --------------------------------------------------

NUMERIC = [s for s in SPECS if s.kind in ("int", "float")]
WILD = st.one_of(st.integers(min_value=-(2**70), max_value=2**70), st.floats(allow_nan=True, allow_infinity=True),
                 st.text(max_size=5), st.booleans())


@settings(max_examples=150, deadline=None)
@given(field=st.sampled_from(NUMERIC), value=WILD)
def test_any_value_in_a_numeric_field_is_accepted_or_named(field, value):
    """No value in any numeric field raises anything but the one-line error naming the field."""
    from simsuite.errors import VariantError
    from simsuite.rules.variant import load_variant

    base = load_variant("school-2016")
    try:
        v = base.with_overrides({field.name: value})
    except VariantError as exc:
        assert "] " in str(exc), exc  # names a field as "[section] key"
        return
    assert field.minimum is None or getattr(v, field.name) >= field.minimum
    assert field.maximum is None or getattr(v, field.name) <= field.maximum


def test_a_value_beyond_its_results_column_is_named_not_wrapped():
    """Rule: a results column never wraps silently; the overflowing column is named."""
    import numpy as np

    from simsuite.errors import SimsuiteError
    from simsuite.sim.schema import HAND_SCHEMA, _check_fits

    data = {name: np.zeros(2, np.int64) for name in HAND_SCHEMA}
    data["levels_ns"] = np.array([3, 300])
    with pytest.raises(SimsuiteError, match=r"levels_ns = 300, beyond the results column's Int8 range"):
        _check_fits(data, HAND_SCHEMA, "school-2016")
    data["levels_ns"] = np.array([3, 127])
    _check_fits(data, HAND_SCHEMA, "school-2016")


JSON_WILD = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
                      st.floats(allow_nan=False), st.text(max_size=8), st.lists(st.integers(), max_size=2),
                      st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))


@pytest.fixture(scope="module")
def fuzzed_copy(small_run, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("fuzz") / "copy"
    shutil.copytree(small_run, folder)
    return folder


@settings(max_examples=80, deadline=None)
@example(where="chunk", key="id", value="\r")  # a line break in a chunk id once reached the message, via its path
@given(where=st.sampled_from(["chunk", "cell", "top"]), key=st.sampled_from(
    ["id", "cell", "start", "stop", "status", "hands", "seed", "identity_hash", "duplicate", "chunks", "cells",
     "format", "identity", "given", "overrides"]), value=JSON_WILD)
def test_any_value_in_a_manifest_field_gives_a_summary_or_one_line(fuzzed_copy, small_run, where, key, value):
    """Rule: whatever a manifest field holds, summary prints figures or one line; never a traceback."""
    import contextlib
    import io

    m = json.loads((small_run / R.MANIFEST).read_text())
    target = {"chunk": m["chunks"][0], "cell": m["cells"][0], "top": m}[where]
    target[key] = value
    (fuzzed_copy / R.MANIFEST).write_text(json.dumps(m))
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["summary", str(fuzzed_copy)])
    assert code in (0, 2), err.getvalue()
    if code == 2:
        assert len(err.getvalue().strip().splitlines()) == 1 and "error:" in err.getvalue(), err.getvalue()


TOML_WILD = st.one_of(st.booleans(), st.integers(min_value=-(2**70), max_value=2**70), st.floats(),
                      st.text(alphabet="abc:,./ ", max_size=12), st.lists(st.integers(-3, 12), max_size=3))


@settings(max_examples=60, deadline=None)
@given(key=st.sampled_from(["matches", "hands", "seed", "chunk", "duplicate", "policies", "base", "grid.decks",
                            "grid.bottom_size", "grid.policies", "grid.seconds_per_trick"]), value=TOML_WILD)
def test_any_value_in_a_sweep_spec_is_planned_or_refused_in_one_error(tmp_path_factory, key, value):
    """Rule: a spec value either validates or gives one SimsuiteError; nothing else escapes, and
    validating never imports a policy."""
    from simsuite.errors import SimsuiteError
    from simsuite.sim.sweep import plan_sweep

    spec = {"base": "school-2016", "matches": 2, "chunk": 1}
    if key.startswith("grid."):
        spec["grid"] = {key[5:]: value if isinstance(value, list) and value else [value]}
    else:
        spec[key] = value
    folder = tmp_path_factory.mktemp("spec")
    path = folder / "spec.toml"
    path.write_text(_toml(spec), encoding="utf-8")
    try:
        plan_sweep(path, folder / "run")
    except SimsuiteError as exc:
        assert str(exc)
    assert not (folder / "run").exists()


def _toml(spec: dict) -> str:
    """A tiny TOML writer for the fuzzed spec (json spells every value TOML also reads, but nan/inf)."""
    def value(v):
        if isinstance(v, float) and v != v:
            return "nan"
        if isinstance(v, float) and v in (float("inf"), float("-inf")):
            return "inf" if v > 0 else "-inf"
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return json.dumps(v)

    top = [f"{k} = {value(v)}" for k, v in spec.items() if not isinstance(v, dict)]
    tables = [f"[{k}]\n" + "\n".join(f"{kk} = {value(vv)}" for kk, vv in v.items()) for k, v in spec.items()
              if isinstance(v, dict)]
    return "\n".join(top + tables) + "\n"


def test_a_folder_left_without_a_manifest_does_not_block_the_next_run(tmp_path, capsys):
    """Issue: a sweep that failed early left a folder with empty part folders and no manifest,
    which every later run refused as "not a simsuite run"."""
    out = tmp_path / "run"
    for kind in R.KINDS:
        (out / kind).mkdir(parents=True)
    code, _, err = run(capsys, ["simulate", "--variant", "school-2016", "--matches", "2", "--chunk", "1",
                                "--out", str(out), "--quiet"])
    assert code == 0, err
    assert R.read_manifest(out)["status"] == "complete"
