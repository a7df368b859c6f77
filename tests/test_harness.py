"""The Monte Carlo harness and the results store (docs/harness.md, docs/results.md).

Every run here is small (a few hundred matches of school-2016, ~1 s of play); the rows of a run
must not depend on --jobs, the backend, the chunking of an interrupted run or a resume.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import polars as pl
import pytest
from cli import one_line_error, run_cli
from conftest import local_dask_cluster

from simsuite.errors import SimsuiteError
from simsuite.rules.scale import scale_decks
from simsuite.rules.variant import load_variant
from simsuite.sim import executor
from simsuite.sim.progress import Progress
from simsuite.sim.results import load
from simsuite.sim.run import simulate, sweep
from simsuite.sim.schema import HAND_SCHEMA, MATCH_SCHEMA
from simsuite.sim.spec import RunSpec
from simsuite.sim.sweep import plan_sweep

ROOT = Path(__file__).resolve().parent.parent
SPEC = dict(
    variants=["school-2016"], policies="expert,basic", matches=120, seed=3, chunk=20, duplicate=True, quiet=True
)
HAND_KEYS = ["cell", "match", "swapped", "hand"]
MATCH_KEYS = ["cell", "match", "swapped"]


def rows(path) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A run's rows without the run name, sorted by keys that do not depend on how it was run."""
    r = load(path)
    return (r.hands.drop("run").sort(HAND_KEYS).collect(), r.matches.drop("run").sort(MATCH_KEYS).collect())


def assert_same_rows(a, b) -> None:
    ha, ma = rows(a)
    hb, mb = rows(b)
    assert ha.height > 0 and ma.height > 0
    assert ha.equals(hb)
    assert ma.equals(mb)


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """One uninterrupted local run with --jobs 1."""
    return simulate({**SPEC, "out": tmp_path_factory.mktemp("ref") / "run", "jobs": 1})


def copy_of_reference(reference: Path, tmp_path: Path) -> Path:
    """A run of SPEC for a test to damage, resume or edit, without playing it again: a copy of the
    reference at ``tmp_path / "run"`` (the folder name its rows carry), whose rows are those that a
    fresh run of SPEC writes."""
    return Path(shutil.copytree(reference, tmp_path / "run"))


# --- the same rows however the work is run ---------------------------------------------------------


def test_jobs_1_and_2_write_the_same_rows(reference, tmp_path):
    out = simulate({**SPEC, "out": tmp_path / "two", "jobs": 2})
    assert_same_rows(reference, out)
    h, m = rows(out)
    assert m.height == 2 * 120  # duplicate: every match twice
    assert set(m["swapped"]) == {False, True}
    swapped = m.filter(pl.col("swapped"))
    assert (swapped["policy_ns"] == "basic").all() and (swapped["policy_ew"] == "expert").all()
    assert h.group_by(MATCH_KEYS).len().height == m.height


def test_chunk_size_does_not_change_the_rows(reference, tmp_path):
    out = simulate({**SPEC, "out": tmp_path / "c7", "chunk": 7})
    assert_same_rows(reference, out)


# --- interrupt, resume, refuse -----------------------------------------------------------------------


def _interrupt_after(monkeypatch, first_bad_start: int, exc=KeyboardInterrupt):
    real = executor.play_match_batch

    def fake(variant, seed, start, count, policies="basic", max_hands=None):
        if start >= first_bad_start:
            raise exc("injected")
        return real(variant, seed, start, count, policies, max_hands)

    monkeypatch.setattr(executor, "play_match_batch", fake)


def test_interrupt_keeps_whole_parts_and_resume_matches_an_uninterrupted_run(reference, tmp_path, monkeypatch, capsys):
    out = tmp_path / "run"
    _interrupt_after(monkeypatch, 60)
    with pytest.raises(KeyboardInterrupt):
        simulate({**SPEC, "out": out, "jobs": 1})
    err = capsys.readouterr().err
    assert "interrupted" in err and "resume with: simsuite simulate" in err
    manifest = json.loads((out / "manifest.json").read_text())
    status = {c["id"]: c["status"] for c in manifest["chunks"]}
    assert list(status.values()) == ["done"] * 3 + ["missing"] * 3
    assert manifest["status"] == "interrupted"
    parts = sorted(p.name for p in (out / "hands").iterdir())
    assert parts == [f"part-0000-00000{i}.parquet" for i in range(3)]  # whole parts only, no temporaries
    partial = load(out)
    assert partial.matches.collect().height == 2 * 60
    monkeypatch.undo()
    simulate({**SPEC, "out": out, "jobs": 1})
    assert_same_rows(reference, out)
    h, m = rows(out)
    assert h.select(HAND_KEYS).is_duplicated().sum() == 0
    assert m.select(MATCH_KEYS).is_duplicated().sum() == 0
    manifest = load(out).manifest
    assert manifest["status"] == "complete" and manifest["sessions"][-1]["chunks_played"] == 3


def test_interrupt_through_the_cli_prints_how_to_resume(tmp_path, monkeypatch, capsys):
    _interrupt_after(monkeypatch, 20)
    code, out, err = run_cli(
        capsys,
        "simulate",
        "--variant",
        "school-2016",
        "--matches",
        "40",
        "--chunk",
        "20",
        "--out",
        str(tmp_path / "r"),
        "--quiet",
    )
    assert code == 130
    assert "Traceback" not in err
    assert f"resume with: simsuite simulate --variant school-2016 --matches 40 --chunk 20 --out {tmp_path / 'r'}" in err


def test_a_lost_part_is_replayed_on_resume(reference, tmp_path):
    out = copy_of_reference(reference, tmp_path)
    (out / "hands" / "part-0000-000004.parquet").unlink()
    with pytest.raises(SimsuiteError, match="part-0000-000004.parquet: is missing; run the same command again"):
        load(out)
    simulate({**SPEC, "out": out})
    assert load(out).manifest["sessions"][-1]["chunks_played"] == 1
    assert_same_rows(reference, out)


def test_a_chunk_marked_missing_is_replayed_and_a_stale_part_not_counted(reference, tmp_path):
    out = copy_of_reference(reference, tmp_path)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["chunks"][2]["status"] = "missing"  # as if killed after writing the parts, before the manifest
    (out / "manifest.json").write_text(json.dumps(manifest))
    assert load(out).matches.collect().height == 2 * 100
    simulate({**SPEC, "out": out})
    assert_same_rows(reference, out)


def test_running_a_complete_run_again_does_nothing(reference, capsys):
    before = rows(reference)
    simulate({**SPEC, "out": reference, "quiet": False})
    assert "nothing to do" in capsys.readouterr().err
    after = rows(reference)
    assert before[0].equals(after[0]) and before[1].equals(after[1])


def test_jobs_and_backend_may_change_on_resume_but_not_the_run(reference, tmp_path, capsys):
    code, _, err = run_cli(
        capsys,
        "simulate",
        "--variant",
        "school-2016",
        "--matches",
        "120",
        "--seed",
        "4",
        "--chunk",
        "20",
        "--duplicate",
        "--out",
        str(reference),
        "--quiet",
    )
    one_line_error(
        code, err, f"{reference} holds a different run", "seed 3 there, 4 here", "choose another --out or delete it"
    )
    code, _, err = run_cli(
        capsys,
        "simulate",
        "--variant",
        "school-2016",
        "--matches",
        "100",
        "--seed",
        "3",
        "--chunk",
        "20",
        "--duplicate",
        "--out",
        str(reference),
        "--quiet",
    )
    one_line_error(code, err, "holds a different run", "matches 120 there, 100 here")
    code, _, err = run_cli(
        capsys,
        "simulate",
        "--variant",
        "school-2016",
        "--set",
        "step=40",
        "--matches",
        "120",
        "--seed",
        "3",
        "--chunk",
        "20",
        "--duplicate",
        "--out",
        str(reference),
        "--quiet",
    )
    one_line_error(code, err, "holds a different run", "rules")
    code, out, err = run_cli(
        capsys,
        "simulate",
        "--variant",
        "school-2016",
        "--matches",
        "120",
        "--seed",
        "3",
        "--chunk",
        "20",
        "--duplicate",
        "--out",
        str(reference),
        "--jobs",
        "2",
        "--quiet",
    )
    assert code == 0 and out.strip() == str(reference)


# --- a worker that raises ------------------------------------------------------------------------------


def test_a_failing_chunk_names_itself_and_how_to_reproduce(tmp_path, monkeypatch, capsys):
    _interrupt_after(monkeypatch, 40, RuntimeError)
    out = tmp_path / "run"
    code, _, err = run_cli(
        capsys,
        "simulate",
        "--variant",
        "school-2016",
        "--matches",
        "100",
        "--chunk",
        "20",
        "--seed",
        "9",
        "--out",
        str(out),
        "--quiet",
        "--jobs",
        "1",
    )
    one_line_error(
        code,
        err,
        "chunk 0000-000002",
        "cell school-2016",
        "matches 40-59",
        "seed 9",
        "RuntimeError: injected",
        "reproduce with: simsuite play --variant school-2016 --seed 9 --match --match-index 40",
        "resume with: simsuite simulate",
    )
    manifest = json.loads((out / "manifest.json").read_text())
    assert [c["status"] for c in manifest["chunks"]] == ["done", "done", "missing", "missing", "missing"]
    assert manifest["status"] == "failed"
    assert load(out).matches.collect().height == 40


# --- bad inputs: one line, exit 2, nothing written ----------------------------------------------------


@pytest.mark.parametrize(
    "argv, needles",
    [
        (["--set", "bottom_size=abc"], ["--set bottom_size=abc", "expected an integer"]),
        (["--set", "throws=maybe"], ["--set throws=maybe", "expected true or false"]),
        (
            ["--set", "no_such_key=1"],
            ["unknown key 'no_such_key'", "rule keys are the fields simsuite show VARIANT lists"],
        ),
        (["--set", "bottom_size=7"], ["bottom_size = 7 does not divide the deal evenly"]),
        (["--set", "bottom_size"], ["--set expects key=value"]),
        (["--policies", "expert,grandmaster"], ["unknown policy 'grandmaster'"]),
        (["--policies", "expert,basic,random"], ["give two policies A,B"]),
        (["--policies", "nowhere/missing.py:Bot,basic"], ["nowhere/missing.py:Bot", "Python policies cannot run"]),
        (
            ["--policies", "examples/policies/greedy.py:Greedy,basic"],
            ["Python policies cannot run in the compiled match loop", "built-in policies"],
        ),
        (["--variant", "nonesuch"], ["unknown variant id"]),
        (["--matches", "0"], ["--matches must be at least 1"]),
        (["--seed", "-1"], ["--seed must be at least 0"]),
        (["--jobs", "0"], ["--jobs must be"]),
        (["--chunk", "0"], ["--chunk must be at least 1"]),
        (["--backend", "dask"], ["--backend dask needs --scheduler"]),
        (["--scheduler", "tcp://127.0.0.1:8786"], ["--scheduler is for --backend dask"]),
    ],
)
def test_bad_simulate_input(capsys, tmp_path, monkeypatch, argv, needles):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "run"
    base = ["simulate", "--variant", "school-2016", "--matches", "10", "--out", str(out), "--quiet"]
    if argv[0] == "--variant":
        base[2] = argv[1]
        argv = []
    if argv and argv[0] == "--matches":  # an option given twice is refused as such (cli._StoreOnce)
        base[3:5] = []
    code, _, err = run_cli(capsys, *base, *argv)
    one_line_error(code, err, *needles)
    assert not out.exists()


def test_unreachable_scheduler_fails_fast(capsys, tmp_path):
    t0 = time.perf_counter()
    code, _, err = run_cli(
        capsys,
        "simulate",
        "--variant",
        "school-2016",
        "--matches",
        "10",
        "--quiet",
        "--out",
        str(tmp_path / "run"),
        "--backend",
        "dask",
        "--scheduler",
        "tcp://127.0.0.1:1",
    )
    assert time.perf_counter() - t0 < 15
    one_line_error(code, err, "cannot reach the Dask scheduler at tcp://127.0.0.1:1")
    assert not (tmp_path / "run").exists()


def test_out_under_a_regular_file(capsys, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    code, _, err = run_cli(
        capsys, "simulate", "--variant", "school-2016", "--matches", "10", "--quiet", "--out", str(blocker / "run")
    )
    one_line_error(code, err, f"{blocker} is a file, not a folder")
    code, _, err = run_cli(
        capsys, "simulate", "--variant", "school-2016", "--matches", "10", "--quiet", "--out", str(blocker)
    )
    one_line_error(code, err, "exists and is not a folder")


def test_out_folder_that_is_not_a_run(capsys, tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    code, _, err = run_cli(
        capsys, "simulate", "--variant", "school-2016", "--matches", "10", "--quiet", "--out", str(tmp_path)
    )
    one_line_error(code, err, "is not a simsuite run", "choose another --out or delete it")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def write_spec(tmp_path, text: str) -> Path:
    p = tmp_path / "spec.toml"
    p.write_text(text)
    return p


@pytest.mark.parametrize(
    "text, needles",
    [
        ('base = "school-2016"\n[grid\nstep = [20]\n', ["not valid TOML"]),
        ('base = "school-2016"\nmatchez = 10\n', ["unknown key 'matchez'", "known keys: base"]),
        (
            'base = "school-2016"\n[grid]\nbottom_sise = [2]\n',
            ["grid: unknown key 'bottom_sise'", "valid keys: policies, decks"],
        ),
        ('base = "school-2016"\n[grid]\nbottom_size = 6\n', ["grid.bottom_size must be a non-empty list"]),
        ("matches = 10\n", ["give base"]),
        ('base = "school-2016"\nmatches = 0\n', ["matches must be at least 1"]),
        ('base = "nonesuch"\n', ["unknown variant id"]),
        (
            'base = "school-2016"\n[grid]\npolicies = ["expert,basic", "expert,wizard"]\n',
            ["policies=expert/wizard", "unknown policy 'wizard'"],
        ),
    ],
)
def test_bad_sweep_spec(capsys, tmp_path, text, needles):
    code, _, err = run_cli(capsys, "sweep", str(write_spec(tmp_path, text)), "--out", str(tmp_path / "run"))
    assert code == 2 and "Traceback" not in err
    for needle in needles:
        assert needle in err, (needle, err)
    assert not (tmp_path / "run").exists()


def test_every_bad_cell_is_reported_at_once(capsys, tmp_path):
    spec = write_spec(
        tmp_path,
        'base = "school-2016"\nmatches = 10\n[grid]\nbottom_size = [6, 7, 8]\ncapture_with = ["any", "spades"]\n',
    )
    code, _, err = run_cli(capsys, "sweep", str(spec), "--out", str(tmp_path / "run"))
    assert code == 2 and "Traceback" not in err
    assert "5 bad cells of 6" in err
    assert "bottom_size=7,capture_with=any: [deal] bottom_size = 7 does not divide" in err
    assert "bottom_size=8,capture_with=spades" in err
    assert "must be one of any, trump" in err
    assert not (tmp_path / "run").exists()


def test_sweep_spec_file_missing(capsys, tmp_path):
    code, _, err = run_cli(capsys, "sweep", str(tmp_path / "none.toml"), "--out", str(tmp_path / "run"))
    one_line_error(code, err, "no such sweep spec")


# --- sweeps --------------------------------------------------------------------------------------------


def test_sweep_tags_cells_shares_seeds_and_resumes(tmp_path, capsys):
    spec = write_spec(
        tmp_path,
        'base = "school-2016"\nmatches = 30\nseed = 5\nchunk = 10\n'
        '[grid]\nstep = [20, 40]\npolicies = ["expert,basic", "basic,basic"]\n',
    )
    code, out, err = run_cli(capsys, "sweep", str(spec), "--out", str(tmp_path / "run"), "--quiet")
    assert code == 0, err
    r = load(out.strip())
    cells = [
        "step=20,policies=expert/basic",
        "step=20,policies=basic/basic",
        "step=40,policies=expert/basic",
        "step=40,policies=basic/basic",
    ]
    assert [c["id"] for c in r.manifest["cells"]] == cells
    m = r.matches.collect()
    assert m.group_by("cell").len().sort("cell")["len"].to_list() == [30] * 4
    assert set(m["seed"]) == {5}
    h = r.hands.filter(pl.col("hand") == 0).collect()
    # the same match index deals the same cards in every cell: the first hand's dealer and bottom agree
    a = h.filter(pl.col("cell") == cells[0]).sort("match")
    b = h.filter(pl.col("cell") == cells[2]).sort("match")
    assert a["bottom_points"].to_list() == b["bottom_points"].to_list()
    code, _, err = run_cli(capsys, "sweep", str(spec), "--out", str(tmp_path / "run"))
    assert code == 0 and "nothing to do" in err


def test_deck_scaling_rule():
    school = load_variant("school-2016")
    assert scale_decks(school, 2) == {
        "decks": 2,
        "bottom_size": 4,
        "takeover": 80,
        "step": 20,
        "max_unit": 2,
        "wide_tractors": False,
    }
    assert scale_decks(school, 4) == {"decks": 4, "bottom_size": 8, "takeover": 160, "step": 40}
    assert scale_decks(school, 2, {"2": {"bottom_size": 8}}) == {"decks": 2, "bottom_size": 8}


@pytest.mark.parametrize("name", ["deck-count", "bottom-and-capture", "promotion-thresholds", "skill-gap"])
def test_example_sweeps_validate(name, tmp_path):
    plan, _ = plan_sweep(ROOT / "examples" / "sweeps" / f"{name}.toml", tmp_path / "run")
    assert plan.cells and not (tmp_path / "run").exists()


def test_hands_are_converted_to_matches_by_a_pilot(tmp_path):
    out = simulate(RunSpec(variants=["school-2016"], hands=700, out=tmp_path / "run", quiet=True))
    r = load(out)
    matches = r.manifest["cells"][0]["matches"]
    assert 50 <= matches <= 200  # school-2016 matches run about 7 hands
    assert r.matches.collect().height == matches
    assert r.manifest["matches_from_hands"] == 700


# --- the store -----------------------------------------------------------------------------------------


def test_load_gives_lazy_frames_with_the_schema(reference):
    r = load(reference)
    assert isinstance(r.hands, pl.LazyFrame) and isinstance(r.matches, pl.LazyFrame)
    assert dict(r.hands.collect_schema()) == HAND_SCHEMA
    assert dict(r.matches.collect_schema()) == MATCH_SCHEMA
    m = r.manifest
    for key in (
        "command",
        "variants",
        "overrides",
        "policies",
        "seed",
        "duplicate",
        "cells",
        "package_version",
        "started",
        "ended",
        "chunks",
        "chunk_size",
    ):
        assert key in m, key
    assert m["variants"][0]["rules_hash"] == load_variant("school-2016").rules_hash
    assert {c["status"] for c in m["chunks"]} == {"done"}
    assert m["chunks"][1] == {**m["chunks"][1], "start": 20, "stop": 40, "cell": "school-2016"}


def test_load_an_empty_run_gives_empty_frames_with_the_schema(reference, tmp_path):
    out = copy_of_reference(reference, tmp_path)
    manifest = json.loads((out / "manifest.json").read_text())
    for c in manifest["chunks"]:
        c["status"] = "missing"
    (out / "manifest.json").write_text(json.dumps(manifest))
    r = load(out)
    assert r.hands.collect().height == 0 and dict(r.hands.collect_schema()) == HAND_SCHEMA
    assert r.matches.collect().height == 0 and dict(r.matches.collect_schema()) == MATCH_SCHEMA


def test_load_refuses_what_is_not_a_run(tmp_path):
    with pytest.raises(SimsuiteError, match="no such folder"):
        load(tmp_path / "missing")
    with pytest.raises(SimsuiteError, match="not a simsuite run"):
        load(tmp_path)
    (tmp_path / "manifest.json").write_text("{ not json")
    with pytest.raises(SimsuiteError, match="manifest.json is corrupt"):
        load(tmp_path)
    (tmp_path / "manifest.json").write_text('{"format": 1}')
    with pytest.raises(SimsuiteError, match="corrupt"):
        load(tmp_path)


def test_summary_of_a_run(reference, capsys):
    pytest.importorskip("simsuite.analysis.metrics")
    code, out, err = run_cli(capsys, "summary", str(reference), "--by", "cell", "--json")
    assert code == 0, err
    assert isinstance(json.loads(out), list)
    code, out, err = run_cli(capsys, "summary", str(reference))
    assert code == 0 and out.strip()


def test_summary_of_a_missing_folder(capsys, tmp_path):
    pytest.importorskip("simsuite.analysis.metrics")
    code, _, err = run_cli(capsys, "summary", str(tmp_path / "none"))
    one_line_error(code, err, "no such folder")


def test_results_rebuild_each_cells_rules(tmp_path):
    spec = write_spec(tmp_path, 'base = "school-2016"\nmatches = 4\nchunk = 4\n[grid]\ndecks = [2, 3]\n')
    r = load(sweep(spec, tmp_path / "run", quiet=True))
    vs = r.variants()
    assert vs["decks=2"].decks == 2 and vs["decks=2"].bottom_size == 4 and vs["decks=3"].decks == 3
    assert r.matches.filter(pl.col("cell") == "decks=2").collect().height == 4


def test_progress_bar_shows_matches_rate_and_eta():
    import io

    stream = io.StringIO()
    p = Progress(100, enabled=True, stream=stream)
    p.update(50, 350)
    p.close()
    text = stream.getvalue()
    assert "50/100 matches" in text and "hands/s" in text and "ETA" in text and text.endswith("\n")
    quiet = io.StringIO()
    q = Progress(100, enabled=False, stream=quiet)
    q.update(100, 700)
    q.close()
    assert quiet.getvalue() == ""


# --- the same rows on a Dask cluster -------------------------------------------------------------------
# These come last in the module: pytest closes a module's fixtures after its last test in a process
# (in each worker, under xdist), and an idle cluster costs about 0.1 CPU-second a second.


@pytest.fixture(scope="module")
def dask_cluster():
    """A local Dask cluster of two worker processes, shared by the two tests below: starting one, and
    loading simsuite and the engine into its workers, costs about 4 CPU-seconds. A run leaves it as
    it found it: the run's client closes, and a chunk's rows depend on its task alone."""
    with local_dask_cluster(2) as cluster:
        yield cluster


def test_dask_local_cluster_writes_the_same_rows(reference, tmp_path, dask_cluster):
    out = simulate({**SPEC, "out": tmp_path / "dask", "backend": "dask", "scheduler": dask_cluster.scheduler_address})
    assert_same_rows(reference, out)
    m = load(out).manifest
    assert m["sessions"][-1]["backend"] == "dask" and m["status"] == "complete"


def test_dask_sweep_through_the_cli(tmp_path, capsys, dask_cluster):
    spec = tmp_path / "s.toml"
    spec.write_text('base = "school-2016"\nmatches = 100\nchunk = 10\n[grid]\nstep = [20, 40]\n')
    code, out, err = run_cli(
        capsys,
        "sweep",
        str(spec),
        "--out",
        str(tmp_path / "d"),
        "--backend",
        "dask",
        "--scheduler",
        dask_cluster.scheduler_address,
        "--quiet",
    )
    assert code == 0, err
    sweep(spec, tmp_path / "l", quiet=True)
    assert_same_rows(tmp_path / "d", tmp_path / "l")
