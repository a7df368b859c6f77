"""One writer per results folder, and no worker outlives its command.

The lock tests race real ``simsuite simulate`` processes on one folder; the shutdown tests kill
the driver of a two-worker run (SIGKILL, SIGTERM) and time how long its workers survive it.
Runs are tiny (a few matches of school-2016) so that each test takes seconds.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import polars as pl
import psutil
import pytest

from simsuite.cli import main
from simsuite.errors import SimsuiteError
from simsuite.sim import results as R

RACES = 4  # pairs of concurrent runs started at once on one folder
WORKER_GRACE_S = 5  # no worker outlives its driver by more than this
START_TIMEOUT_S = 120  # a cold numba cache makes the first worker slow to start


def simulate_argv(out: Path, seed: int, matches: int = 4, jobs: int = 1) -> list[str]:
    return [
        sys.executable,
        "-m",
        "simsuite.cli",
        "simulate",
        "--variant",
        "school-2016",
        "--matches",
        str(matches),
        "--chunk",
        "2",
        "--seed",
        str(seed),
        "--jobs",
        str(jobs),
        "--out",
        str(out),
        "--quiet",
    ]


def dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def write_lock(folder: Path, **holder) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    info = {"pid": os.getpid(), "host": socket.gethostname(), "started": "2026-01-01T00:00:00+00:00", "token": "x"}
    (folder / R.LOCK).write_text(json.dumps({**info, **holder}))


# --- the lock itself --------------------------------------------------------------------------------


def test_lock_is_exclusive_between_threads(tmp_path):
    """Rule: at most one holder at a time, however the two attempts interleave (200 races)."""
    for i in range(200):
        folder = tmp_path / str(i)
        folder.mkdir()
        barrier = threading.Barrier(2)
        held, refused = [], []

        def attempt():
            barrier.wait()
            try:
                with R.RunLock(folder):
                    held.append(1)
                    barrier_hold.wait()  # hold until the other has tried
            except SimsuiteError:
                refused.append(1)
                barrier_hold.wait()

        barrier_hold = threading.Barrier(2)
        threads = [threading.Thread(target=attempt) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert (len(held), len(refused)) == (1, 1)
        assert not (folder / R.LOCK).exists()  # released by its holder


def test_a_stale_lock_is_named_and_broken_only_with_the_flag(tmp_path, capsys):
    out = tmp_path / "run"
    write_lock(out, pid=dead_pid())
    argv = ["simulate", "--variant", "school-2016", "--matches", "2", "--chunk", "1", "--out", str(out), "--quiet"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "stale lock" in err and "that process is gone" in err and "--break-lock" in err
    assert main(argv + ["--break-lock"]) == 0
    assert not (out / R.LOCK).exists()


def test_a_live_lock_is_not_broken_even_with_the_flag(tmp_path, capsys):
    out = tmp_path / "run"
    write_lock(out)  # this very process: alive
    assert main(["simulate", "--variant", "school-2016", "--matches", "2", "--out", str(out), "--break-lock"]) == 2
    assert "being written by another run" in capsys.readouterr().err


def test_a_lock_from_another_host_asks_for_the_flag(tmp_path, capsys):
    out = tmp_path / "run"
    write_lock(out, host="elsewhere.invalid")
    argv = ["simulate", "--variant", "school-2016", "--matches", "2", "--chunk", "1", "--out", str(out), "--quiet"]
    assert main(argv) == 2
    assert "another machine" in capsys.readouterr().err
    assert main(argv + ["--break-lock"]) == 0


def test_two_concurrent_runs_never_both_succeed(tmp_path):
    """The race: two seeds started at the same instant on one --out. Exactly one may
    succeed; the other says why; the folder holds only the winner's seed, as its manifest says."""
    for i in range(RACES):
        out = tmp_path / f"race{i}"
        procs = [
            subprocess.Popen(simulate_argv(out, seed), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for seed in (1, 2)
        ]
        results = [(p.wait(timeout=START_TIMEOUT_S), p.stderr.read()) for p in procs]
        codes = [c for c, _ in results]
        assert codes.count(0) == 1, results
        loser_err = next(e for c, e in results if c != 0)
        assert "being written by another run" in loser_err or "holds a different run" in loser_err, loser_err
        assert "Traceback" not in loser_err
        seed = R.read_manifest(out)["seed"]
        r = R.load(out)
        assert r.hands.select(pl.col("seed").unique()).collect()["seed"].to_list() == [seed]


# --- workers die with their driver ------------------------------------------------------------------


def _start_with_workers(tmp_path: Path, busy: bool = True) -> tuple[subprocess.Popen, list[psutil.Process]]:
    """A two-worker run big enough to be busy when it is killed; returns once both workers exist
    (and, if ``busy``, once a chunk is written: the workers are playing)."""
    proc = subprocess.Popen(
        simulate_argv(tmp_path / "run", 1, matches=20000, jobs=2),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        kids = psutil.Process(proc.pid).children(recursive=True)
        workers = [k for k in kids if "LokyProcess" in " ".join(_cmdline(k))]
        hands = tmp_path / "run" / "hands"
        if len(workers) >= 2 and (not busy or hands.is_dir() and any(hands.iterdir())):
            return proc, kids
        time.sleep(0.2)
    proc.kill()
    pytest.fail("the run did not start its workers in time")


def _cmdline(p: psutil.Process) -> list[str]:
    try:
        return p.cmdline()
    except psutil.Error:
        return []


def _survivors_after(kids: list[psutil.Process], limit_s: float) -> list[psutil.Process]:
    deadline = time.monotonic() + limit_s
    alive = kids
    while alive and time.monotonic() < deadline:
        time.sleep(0.1)
        alive = [k for k in alive if k.is_running() and k.status() != psutil.STATUS_ZOMBIE]
    return alive


@pytest.mark.parametrize("busy", [True, False], ids=["while playing", "while the workers start"])
def test_sigkill_of_the_driver_leaves_no_worker_after_5_s(tmp_path, busy):
    """Both moments matter: a starting worker used to run the queued chunks after its driver
    died and then block for ever writing a result no one reads."""
    proc, kids = _start_with_workers(tmp_path, busy)
    t0 = time.monotonic()
    proc.kill()
    alive = _survivors_after(kids, WORKER_GRACE_S)
    for k in alive:
        k.kill()
    assert not alive, f"{len(alive)} process(es) outlived the driver by {WORKER_GRACE_S} s"
    proc.communicate(timeout=WORKER_GRACE_S)  # the pipes close: no process holds them any more
    assert time.monotonic() - t0 < WORKER_GRACE_S + 1


def test_sigterm_shuts_the_pool_down_and_says_how_to_resume(tmp_path):
    proc, kids = _start_with_workers(tmp_path)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    alive = _survivors_after(kids, WORKER_GRACE_S)
    for k in alive:
        k.kill()
    assert not alive
    assert proc.returncode == 130, err
    assert "interrupted" in err and "resume with:" in err and "Traceback" not in err
    manifest = R.read_manifest(tmp_path / "run")
    assert manifest["status"] == "interrupted"
    assert not (tmp_path / "run" / R.LOCK).exists()


def test_a_parallel_duel_runs_in_the_watched_local_pool(monkeypatch):
    """``simsuite duel --jobs N`` and ``compare-policies`` use the same local pool as the runs
    (``executor.local_processes``): its workers die with their driver (the SIGKILL tests above), and a duel
    after a run in one process reuses that pool instead of starting another."""
    from simsuite.rules.variant import load_variant
    from simsuite.sim import executor, hands

    entered = []
    real = executor.local_processes
    monkeypatch.setattr(executor, "local_processes", lambda: entered.append(True) or real())
    v = load_variant("school-2016")
    rows = hands.play_hands(v, 5, 4, "basic,basic", jobs=2, chunk=2)
    assert entered == [True]
    assert (rows == hands.play_hands(v, 5, 4, "basic,basic", jobs=1)).all()


def test_a_pool_worker_watches_its_driver_before_importing_the_engine():
    """The local pool's initializer (``sim.orphans.die_with_driver``) reaches each loky worker by
    reference, so the worker imports its module first: it must import nothing heavy, or a worker
    whose driver is SIGKILLed while the worker still imports numba outlives it (the SIGKILL test
    above failed so on a loaded machine when the initializer lived in ``sim.executor``)."""
    from simsuite.sim import executor, orphans

    with executor.local_processes() as config:
        kwargs = config["backend"].backend_kwargs
    assert kwargs["initializer"] is orphans.die_with_driver and kwargs["initargs"] == (os.getpid(),)
    assert orphans.die_with_driver.__module__ == "simsuite.sim.orphans"
    code = (
        "import sys, simsuite.sim.orphans; print(sorted(m for m in ('numba', 'polars', 'numpy') if m in sys.modules))"
    )
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert got.stdout.strip() == "[]", got.stdout
