"""Faults a collection survives on Dask (docs/learned.md, "Collecting on a Dask cluster"): a cluster of
one worker thread, every worker lost mid-collection, the scheduler lost, no worker at all. ``learn
collect`` plays its chunks through the same cluster path as ``simulate`` (``simsuite.sim.cluster``);
tests/test_faults.py has the simulate versions and the helpers that start and kill loopback workers.
"""

from __future__ import annotations

import os
import threading
import time

import polars as pl
import pytest
from cli import one_line_error, run_cli
from conftest import local_dask_cluster
from test_faults import (
    _kill_when_a_chunk_is_done,
    _start_worker,
    _wait_for_workers,
    resume_argv,
    run_while_the_scheduler_dies,
)

from simsuite.learn import collect as C
from simsuite.sim import results as R
from simsuite.sim.cluster import NO_WORKER_ENV

# collection plays search (tests/conftest.py)
pytestmark = pytest.mark.full_loop

TINY = "search-k1-c2"  # the cheapest search that logs decisions (with one candidate none weighs more than one)
HANDS, CHUNK, SEED = 12, 2, 7
ARGV = ["learn", "collect", "--hands", str(HANDS), "--chunk", str(CHUNK), "--seed", str(SEED), "--policy", TINY]

SLOW_COLLECT_WORKER = """
# A worker whose chunks take at least half a second, so that a test can kill it mid-collection. Dask
# loads a preload file more than once: the real function is kept the first time only.
import time
from simsuite.learn import collect

_real = collect.__dict__.setdefault("unslowed_collect_hands", collect.collect_hands)


def _slow(*args):
    time.sleep(0.5)
    return _real(*args)


collect.collect_hands = _slow
"""


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> pl.DataFrame:
    """The decisions of one uninterrupted collection in the driver."""
    out = C.collect(
        tmp_path_factory.mktemp("ref") / "c", hands=HANDS, seed=SEED, policy=TINY, jobs=1, chunk=CHUNK, quiet=True
    )
    return C.load_decisions(out).collect()


def test_a_one_thread_cluster_collects_every_chunk_on_its_worker(reference, tmp_path):
    """joblib's one-job shortcut played every chunk in the driver on such a cluster while recording
    dask; each chunk is a task on the worker now, and the manifest records where it ran."""
    with local_dask_cluster(1) as cluster:
        worker = next(iter(cluster.scheduler_info["workers"]))
        out = C.collect(
            tmp_path / "dask",
            hands=HANDS,
            seed=SEED,
            policy=TINY,
            chunk=CHUNK,
            backend="dask",
            scheduler=cluster.scheduler_address,
            quiet=True,
        )
    m = C.load_manifest(out)
    where = [c["ran_on"] for c in m["chunks"]]
    assert {w["worker"] for w in where} == {worker}
    assert all(w["pid"] != os.getpid() for w in where)
    session = m["sessions"][-1]
    assert session["backend"] == "dask" and session["worker_processes"] == 1 and session["hosts"]
    assert C.load_decisions(out).collect().equals(reference)


def test_a_local_collection_records_where_its_chunks_ran(tmp_path):
    out = C.collect(tmp_path / "c", hands=2, seed=SEED, policy=TINY, jobs=1, chunk=1, quiet=True)
    m = C.load_manifest(out)
    assert [c["ran_on"]["pid"] for c in m["chunks"]] == [os.getpid()] * 2  # --jobs 1 plays in the driver
    assert all(c["ran_on"]["worker"] is None for c in m["chunks"])
    assert m["sessions"][-1]["worker_processes"] == 1


@pytest.mark.slow  # the cluster path is simulate's (tests/test_faults.py), which make test runs
def test_every_worker_lost_stops_the_collection_keeps_its_chunks_and_resumes_to_the_same_data(
    reference, tmp_path, capsys, monkeypatch, bare_scheduler
):
    """All workers SIGKILLed mid-collection: it stops within the stated wait, names the cause in one
    line with the resume command, keeps every completed part whole, and the resume (on a new worker)
    completes with the data of an uninterrupted collection."""
    wait_s = 2
    monkeypatch.setenv(NO_WORKER_ENV, str(wait_s))
    preload = tmp_path / "slow_worker.py"
    preload.write_text(SLOW_COLLECT_WORKER)
    workers = [_start_worker(bare_scheduler, preload) for _ in range(2)]
    try:
        _wait_for_workers(bare_scheduler, 2)
        out = tmp_path / "c"
        killed_at: list[float] = []
        killer = threading.Thread(target=_kill_when_a_chunk_is_done, args=(out, workers, killed_at))
        killer.start()
        code, _, err = run_cli(
            capsys, *ARGV, "--quiet", "--out", str(out), "--backend", "dask", "--scheduler", bare_scheduler
        )
        stopped_after = time.monotonic() - killed_at[0]
        killer.join()
    finally:
        for w in workers:
            w.kill()
            w.wait()
    line = one_line_error(
        code,
        err,
        "every worker of the Dask cluster",
        f"none came back within {wait_s} s",
        "completed chunk(s) are kept in",
        "resume with: simsuite learn collect",
        command="learn collect",
    )
    assert stopped_after < wait_s + 8, stopped_after  # the wait, a scheduler heartbeat and a poll
    m = C.load_manifest(out)
    done = [c for c in m["chunks"] if c["status"] == R.DONE]
    assert 0 < len(done) < len(m["chunks"]) and m["status"] == "failed"
    assert f"the {len(done)} completed chunk(s)" in line
    for c in done:  # each kept part whole, and its hands' decisions as collected uninterrupted
        part = pl.read_parquet(R.part_path(out, C.KIND, c["id"]))
        assert part.equals(reference.filter(pl.col("hand").is_between(c["start"], c["stop"] - 1)))
    assert {c["ran_on"]["worker"] is not None for c in done} == {True}

    fresh = _start_worker(bare_scheduler)
    try:
        _wait_for_workers(bare_scheduler, 1)
        code, _, err = run_cli(capsys, *resume_argv(line))
    finally:
        fresh.kill()
        fresh.wait()
    assert code == 0, err
    assert C.load_manifest(out)["status"] == "complete"
    assert C.load_decisions(out).collect().equals(reference)


@pytest.mark.slow  # the cluster path is simulate's (tests/test_faults.py), which make test runs
def test_a_lost_scheduler_stops_the_collection_at_once(tmp_path, capsys, monkeypatch):
    """The scheduler SIGKILLed mid-collection: the client cancels every task; the collection stops with
    the cause and the resume command, its completed parts kept."""
    monkeypatch.setenv(NO_WORKER_ENV, "30")  # the stop must not wait for this
    out = tmp_path / "c"
    code, err, stopped_after, address = run_while_the_scheduler_dies(
        tmp_path,
        SLOW_COLLECT_WORKER,
        out,
        lambda address: run_cli(
            capsys, *ARGV, "--quiet", "--out", str(out), "--backend", "dask", "--scheduler", address
        ),
    )
    one_line_error(
        code,
        err,
        f"lost the connection to the Dask scheduler at {address}",
        "the collection stopped",
        "resume with: simsuite learn collect",
        command="learn collect",
    )
    assert stopped_after < 10, stopped_after
    m = C.load_manifest(out)
    assert any(c["status"] == R.DONE for c in m["chunks"]) and m["status"] == "failed"


@pytest.mark.slow  # the cluster path is simulate's (tests/test_faults.py), which make test runs
def test_a_collection_on_a_scheduler_without_workers_stops_after_the_wait(
    tmp_path, capsys, monkeypatch, bare_scheduler
):
    monkeypatch.setenv(NO_WORKER_ENV, "1")
    t0 = time.monotonic()
    code, _, err = run_cli(
        capsys, *ARGV, "--quiet", "--out", str(tmp_path / "c"), "--backend", "dask", "--scheduler", bare_scheduler
    )
    one_line_error(code, err, "has had no worker for 1 s", "dask worker", "resume with:", command="learn collect")
    assert time.monotonic() - t0 < 15


def test_a_bad_worker_wait_is_one_line_before_any_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(NO_WORKER_ENV, "soon")
    code, _, err = run_cli(
        capsys, *ARGV, "--out", str(tmp_path / "c"), "--backend", "dask", "--scheduler", "tcp://127.0.0.1:1"
    )
    one_line_error(code, err, NO_WORKER_ENV, "above 0", command="learn collect")
    assert not (tmp_path / "c").exists()
