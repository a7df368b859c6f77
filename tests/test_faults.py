"""Faults the harness survives (docs/harness.md, "What a run survives"): every Dask worker lost, a
cluster of one worker thread, bytes changed inside a part, a run left unfinished, a symbolic link
loop given as a folder. Each keeps what is done, says so in one line and resumes to the rows of an
uninterrupted run.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import polars as pl
import pytest
from cli import one_line_error, run_cli
from conftest import local_dask_cluster

from simsuite.sim import executor
from simsuite.sim import results as R
from simsuite.sim.cluster import NO_WORKER_ENV, WorkersLost, interrupted_note, stopped_error
from simsuite.sim.run import simulate

ROOT = Path(__file__).resolve().parent.parent
SPEC = dict(
    variants=["school-2016"], policies="expert,basic", matches=120, seed=3, chunk=20, duplicate=True, quiet=True
)
ARGV = [
    "--variant",
    "school-2016",
    "--policies",
    "expert,basic",
    "--matches",
    "120",
    "--seed",
    "3",
    "--chunk",
    "20",
    "--duplicate",
]
HAND_KEYS = ["cell", "match", "swapped", "hand"]
MATCH_KEYS = ["cell", "match", "swapped"]


def rows(path) -> tuple[pl.DataFrame, pl.DataFrame]:
    r = R.load(path)
    return (r.hands.drop("run").sort(HAND_KEYS).collect(), r.matches.drop("run").sort(MATCH_KEYS).collect())


def assert_same_rows(a, b) -> None:
    (ha, ma), (hb, mb) = rows(a), rows(b)
    assert ha.height > 0 and ha.equals(hb) and ma.equals(mb)


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """One uninterrupted local run of SPEC."""
    return simulate({**SPEC, "out": tmp_path_factory.mktemp("ref") / "run"})


def copy_of(reference: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(reference, tmp_path / "run"))


def resume_argv(err: str) -> list[str]:
    """The arguments of the ``resume with:`` command a message ends with."""
    import shlex

    cmd = shlex.split(err.strip().split("resume with: ", 1)[1])
    assert cmd[0] == "simsuite"
    return cmd[1:]


# --- every Dask worker lost ----------------------------------------------------------------------

SLOW_WORKER = """
# A worker whose chunks take at least half a second, so that a test can kill it mid-run. Dask loads
# a preload file more than once: the real function is kept the first time only.
import time
from simsuite.sim import executor

_real = executor.__dict__.setdefault("unslowed_play_chunk", executor.play_chunk)


def _slow(task):
    time.sleep(0.5)
    return _real(task)


executor.play_chunk = _slow
"""


def _start_worker(address: str, preload: Path | None = None) -> subprocess.Popen:
    cmd = [
        str(Path(sys.executable).with_name("dask")),
        "worker",
        address,
        "--nthreads",
        "1",
        "--no-nanny",
        "--no-dashboard",
        "--host",
        "127.0.0.1",
    ]
    if preload is not None:
        cmd += ["--preload", str(preload)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _wait_for_workers(address: str, n: int, timeout: float = 60.0) -> None:
    from distributed import Client

    with Client(address, timeout="10s", set_as_default=False) as c:
        c.wait_for_workers(n, timeout=timeout)


def _kill_when_a_chunk_is_done(out: Path, workers: list[subprocess.Popen], killed_at: list[float]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            m = json.loads((out / R.MANIFEST).read_text())
        except (OSError, ValueError):
            m = None
        if m and any(c["status"] == R.DONE for c in m["chunks"]):
            for w in workers:
                w.send_signal(signal.SIGKILL)
            killed_at.append(time.monotonic())
            return
        time.sleep(0.05)


def run_while_the_scheduler_dies(tmp_path: Path, preload_text: str, out: Path, run) -> tuple[int, str, float, str]:
    """A loopback scheduler of its own with one slow worker; ``run(address)`` is started and the scheduler
    SIGKILLed once a chunk of ``out`` is done: (exit code, stderr, seconds from the kill to the stop,
    the scheduler's address). Both processes are ended whatever happens."""
    preload = tmp_path / "slow_worker.py"
    preload.write_text(preload_text)
    sched_file = tmp_path / "scheduler.json"
    dask = str(Path(sys.executable).with_name("dask"))
    scheduler = subprocess.Popen(
        [
            dask,
            "scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--no-dashboard",
            "--scheduler-file",
            str(sched_file),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    worker = None
    try:
        deadline = time.monotonic() + 60
        while not sched_file.is_file() and time.monotonic() < deadline:
            time.sleep(0.1)
        address = json.loads(sched_file.read_text())["address"]
        worker = _start_worker(address, preload)
        _wait_for_workers(address, 1)
        killed_at: list[float] = []
        killer = threading.Thread(target=_kill_when_a_chunk_is_done, args=(out, [scheduler], killed_at))
        killer.start()
        code, _, err = run(address)
        stopped_after = time.monotonic() - killed_at[0]
        killer.join()
    finally:
        for p in (scheduler, worker):
            if p is not None:
                p.kill()
                p.wait()
    return code, err, stopped_after, address


def test_every_worker_lost_stops_the_run_keeps_its_chunks_and_resumes_to_the_same_rows(
    reference, tmp_path, capsys, monkeypatch, bare_scheduler
):
    """All workers SIGKILLed mid-run: the run stops within the stated wait, names the cause in one line
    with the resume command, keeps every completed part whole, and the resume (on a new worker)
    completes with the rows of an uninterrupted run."""
    wait_s = 2
    monkeypatch.setenv(NO_WORKER_ENV, str(wait_s))
    preload = tmp_path / "slow_worker.py"
    preload.write_text(SLOW_WORKER)
    workers = [_start_worker(bare_scheduler, preload) for _ in range(2)]
    try:
        _wait_for_workers(bare_scheduler, 2)
        out = tmp_path / "run"
        killed_at: list[float] = []
        killer = threading.Thread(target=_kill_when_a_chunk_is_done, args=(out, workers, killed_at))
        killer.start()
        code, _, err = run_cli(
            capsys, "simulate", *ARGV, "--quiet", "--out", str(out), "--backend", "dask", "--scheduler", bare_scheduler
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
        "resume with: simsuite simulate",
        command="simulate",
    )
    assert stopped_after < wait_s + 8, stopped_after  # the wait, a scheduler heartbeat and a poll
    m = R.read_manifest(out)
    done = [c for c in m["chunks"] if c["status"] == R.DONE]
    assert 0 < len(done) < len(m["chunks"]) and m["status"] == "failed"
    assert f"the {len(done)} completed chunk(s)" in line
    assert R.damaged_parts(out, m) == []
    assert {c["ran_on"]["worker"] is not None for c in done} == {True}

    fresh = _start_worker(bare_scheduler)
    try:
        _wait_for_workers(bare_scheduler, 1)
        code, _, err = run_cli(capsys, *resume_argv(line))
    finally:
        fresh.kill()
        fresh.wait()
    assert code == 0, err
    assert R.read_manifest(out)["status"] == "complete"
    assert_same_rows(reference, out)


def test_a_lost_scheduler_stops_the_run_at_once(tmp_path, capsys, monkeypatch):
    """The scheduler SIGKILLed mid-run: the client cancels every task; the run stops with the cause and
    the resume command, its completed parts whole."""
    pytest.importorskip("distributed")
    monkeypatch.setenv(NO_WORKER_ENV, "30")  # the stop must not wait for this
    out = tmp_path / "run"
    code, err, stopped_after, address = run_while_the_scheduler_dies(
        tmp_path,
        SLOW_WORKER,
        out,
        lambda address: run_cli(
            capsys, "simulate", *ARGV, "--quiet", "--out", str(out), "--backend", "dask", "--scheduler", address
        ),
    )
    one_line_error(
        code, err, f"lost the connection to the Dask scheduler at {address}", "resume with:", command="simulate"
    )
    assert stopped_after < 10, stopped_after
    m = R.read_manifest(out)
    assert any(c["status"] == R.DONE for c in m["chunks"]) and R.damaged_parts(out, m) == []


def test_a_scheduler_without_workers_stops_after_the_wait(tmp_path, capsys, monkeypatch, bare_scheduler):
    monkeypatch.setenv(NO_WORKER_ENV, "1")
    t0 = time.monotonic()
    code, _, err = run_cli(
        capsys,
        "simulate",
        *ARGV,
        "--quiet",
        "--out",
        str(tmp_path / "run"),
        "--backend",
        "dask",
        "--scheduler",
        bare_scheduler,
    )
    one_line_error(code, err, "has had no worker for 1 s", "dask worker", "resume with:", command="simulate")
    assert time.monotonic() - t0 < 15


@pytest.mark.parametrize("value", ["soon", "0", "-5", "1e9"])
def test_a_bad_worker_wait_is_one_line(tmp_path, capsys, monkeypatch, value):
    monkeypatch.setenv(NO_WORKER_ENV, value)
    code, _, err = run_cli(
        capsys,
        "simulate",
        *ARGV,
        "--out",
        str(tmp_path / "run"),
        "--backend",
        "dask",
        "--scheduler",
        "tcp://127.0.0.1:1",
    )
    one_line_error(code, err, NO_WORKER_ENV, "above 0", command="simulate")
    assert not (tmp_path / "run").exists()


def test_simulate_and_collect_say_alike_how_a_run_stopped():
    """One message for both commands: a lost cluster names the command's run, a failed backend its
    name and error; each keeps the chunks done and gives the command that resumes."""
    lost = WorkersLost("every worker of the Dask cluster at tcp://h:1 was lost")
    kept = "the 3 completed chunk(s) are kept in out/x; resume with: simsuite simulate --out out/x"
    common = dict(backend="dask", done=3, out="out/x", resume="simsuite simulate --out out/x")
    assert str(stopped_error(lost, what="run", **common)) == f"{lost}: the run stopped; {kept}"
    assert str(stopped_error(lost, what="collection", **common)) == f"{lost}: the collection stopped; {kept}"
    failed = stopped_error(OSError("no\n  route"), what="run", **common)
    assert str(failed) == f"the dask backend failed (OSError: no route); {kept}"
    assert stopped_error(None, what="run", **common) is None
    assert interrupted_note(3, 8, "out/x", "simsuite simulate --out out/x") == (
        "simsuite: interrupted; 3 of 8 chunks are done and kept in out/x; resume with: simsuite simulate --out out/x"
    )


# --- a cluster of one worker thread --------------------------------------------------------------


def test_a_one_thread_cluster_plays_every_chunk_on_its_worker(reference, tmp_path):
    """joblib's one-job shortcut played every chunk in the driver on such a cluster; each chunk is a task
    on the worker now, and the manifest records where it ran."""
    with local_dask_cluster(1) as cluster:
        worker = next(iter(cluster.scheduler_info["workers"]))
        out = simulate({**SPEC, "out": tmp_path / "dask", "backend": "dask", "scheduler": cluster.scheduler_address})
    m = R.read_manifest(out)
    where = [c["ran_on"] for c in m["chunks"]]
    assert {w["worker"] for w in where} == {worker}
    assert all(w["pid"] != os.getpid() for w in where)
    session = m["sessions"][-1]
    assert session["backend"] == "dask" and session["worker_processes"] == 1 and session["hosts"]
    assert_same_rows(reference, out)


def test_a_local_run_records_where_its_chunks_ran(reference):
    m = R.read_manifest(reference)
    assert {c["ran_on"]["pid"] for c in m["chunks"]} == {os.getpid()}  # --jobs 1 plays in the driver
    assert all(c["ran_on"]["worker"] is None for c in m["chunks"])


# --- checksums -----------------------------------------------------------------------------------


def _flip_middle(path: Path) -> None:
    """Bytes changed in the middle of the data, the Parquet footer intact."""
    data = bytearray(path.read_bytes())
    mid = len(data) // 3
    data[mid : mid + 16] = bytes(b ^ 0xFF for b in data[mid : mid + 16])
    path.write_bytes(bytes(data))


def test_every_part_has_its_checksum_in_the_manifest(reference):
    m = R.read_manifest(reference)
    for c in m["chunks"]:
        for kind in R.KINDS:
            assert c["sha256"][kind] == R.file_checksum(R.part_path(reference, kind, c["id"]))


def test_bytes_flipped_in_a_part_are_named_and_the_same_command_replays_it(reference, tmp_path, capsys):
    run = copy_of(reference, tmp_path)
    bad = R.part_path(run, "hands", "0000-000002")
    _flip_middle(bad)
    assert R.part_problem(bad, "hands", "0000-000002", R.read_manifest(run)["identity_hash"]) is None  # footer whole
    code, _, err = run_cli(capsys, "summary", str(run))
    one_line_error(code, err, str(bad), "does not match the checksum", "run the same command again", command="summary")
    code, _, err = run_cli(capsys, "simulate", *ARGV, "--out", str(run))
    assert code == 0, err
    assert "playing chunk 0000-000002 again" in err and "complete already" not in err
    assert R.damaged_parts(run, R.read_manifest(run)) == []
    assert_same_rows(reference, run)


def _without_checksums(run: Path) -> None:
    m = json.loads((run / R.MANIFEST).read_text())
    for c in m["chunks"]:
        c.pop("sha256", None)
    (run / R.MANIFEST).write_text(json.dumps(m))


def test_a_manifest_without_checksums_reads_and_says_what_was_checked(reference, tmp_path, capsys):
    run = copy_of(reference, tmp_path)
    _without_checksums(run)
    code, out, err = run_cli(capsys, "summary", str(run))
    assert code == 0, err
    assert "12 of 12 parts have no checksum recorded" in out.strip().splitlines()[-1]
    code, _, err = run_cli(capsys, "simulate", *ARGV, "--out", str(run))  # checks every part in full, records sums
    assert code == 0 and "complete already" in err
    assert all(set(c["sha256"]) == set(R.KINDS) for c in R.read_manifest(run)["chunks"])
    code, out, _ = run_cli(capsys, "summary", str(run))
    assert code == 0 and "checksum" not in out


def test_a_part_without_checksum_that_does_not_decode_is_replayed(reference, tmp_path, capsys):
    run = copy_of(reference, tmp_path)
    _without_checksums(run)
    bad = R.part_path(run, "hands", "0000-000001")
    data = bytearray(bad.read_bytes())
    data[len(data) // 3 : len(data) // 3 + 200] = b"\xff" * 200
    bad.write_bytes(bytes(data))
    code, _, err = run_cli(capsys, "summary", str(run))
    one_line_error(code, err, str(bad), "run the same command again", command="summary")
    code, _, err = run_cli(capsys, "simulate", *ARGV, "--out", str(run))
    assert code == 0 and "playing chunk 0000-000001 again" in err, err
    assert_same_rows(reference, run)


# --- partial runs say so -------------------------------------------------------------------------

TWO_CELLS = [
    "--variant",
    "school-2016",
    "--variant",
    "huizhou",
    "--policies",
    "expert,basic",
    "--matches",
    "120",
    "--seed",
    "3",
    "--chunk",
    "20",
    "--quiet",
]


@pytest.fixture(scope="module")
def partial_run(tmp_path_factory) -> Path:
    """Two cells of 120 matches, interrupted after the first cell's first 60."""
    out = tmp_path_factory.mktemp("partial") / "run"
    real = executor.play_match_batch

    def stop_at_60(variant, seed, start, count, policies="basic", max_hands=None):
        if start >= 60:
            raise KeyboardInterrupt("injected")
        return real(variant, seed, start, count, policies, max_hands)

    executor.play_match_batch = stop_at_60
    try:
        from simsuite.cli import main

        assert main(["simulate", *TWO_CELLS, "--out", str(out)]) == 130
    finally:
        executor.play_match_batch = real
    return out


NOTICE = "incomplete run: 60 of 240 matches played (cell school-2016: 60/120, cell huizhou: 0/120)"


def test_summary_of_a_partial_run_says_so_first(partial_run, capsys):
    code, out, err = run_cli(capsys, "summary", str(partial_run))
    assert code == 0, err
    first, second = out.splitlines()[:2]
    assert first.startswith(NOTICE), first
    assert f"resume with: simsuite simulate {' '.join(TWO_CELLS[:2])}" in first and str(partial_run) in first
    assert second.startswith("school-2016: a match lasts "), second  # then the headline, of what was played
    code, out, err = run_cli(capsys, "summary", str(partial_run), "--json")
    assert code == 0 and json.loads(out) and NOTICE in err


def test_exact_of_a_partial_run_says_so_first(partial_run, capsys):
    code, out, err = run_cli(capsys, "exact", str(partial_run), "--reps", "20")
    assert code == 0, err
    assert out.splitlines()[0].startswith(NOTICE)


def test_report_of_a_partial_run_says_so_first_and_first_in_the_page(partial_run, tmp_path, capsys):
    page = tmp_path / "r.html"
    code, out, err = run_cli(capsys, "report", str(partial_run), "-o", str(page))
    assert code == 0, err
    first, second = out.splitlines()
    assert first.startswith(NOTICE) and second == str(page)
    body = page.read_text().split("<body>", 1)[1]
    assert body.lstrip().startswith('<main>\n<p class="warn" id="incomplete">incomplete run: 60 of 240')


def test_a_complete_run_has_no_notice(reference, capsys):
    code, out, _ = run_cli(capsys, "summary", str(reference))
    assert code == 0 and "incomplete" not in out


def test_a_run_being_played_says_by_whom(partial_run, tmp_path, capsys):
    run = Path(shutil.copytree(partial_run, tmp_path / "run"))
    with R.RunLock(run):
        code, out, _ = run_cli(capsys, "summary", str(run))
    assert code == 0
    assert f"it is being played now (pid {os.getpid()}" in out.splitlines()[0]


# --- symbolic link loops -------------------------------------------------------------------------


@pytest.fixture
def loop(tmp_path) -> Path:
    a, b = tmp_path / "a", tmp_path / "b"
    a.symlink_to(b)
    b.symlink_to(a)
    return a


@pytest.mark.parametrize("command", [["summary"], ["exact"], ["report", "-o", "REPORT"]])
def test_a_results_folder_that_is_a_link_loop(loop, tmp_path, capsys, command):
    argv = [a.replace("REPORT", str(tmp_path / "r.html")) for a in command]
    code, _, err = run_cli(capsys, argv[0], str(loop), *argv[1:])
    one_line_error(code, err, str(loop), "symbolic link loop", command=argv[0])


@pytest.mark.parametrize("below", [False, True])
def test_an_out_folder_that_is_a_link_loop(loop, capsys, below):
    out = loop / "sub" if below else loop
    code, _, err = run_cli(capsys, "simulate", *ARGV, "--out", str(out))
    one_line_error(code, err, f"--out {out}", "symbolic link loop", command="simulate")


def test_an_out_folder_that_links_to_nothing(tmp_path, capsys):
    out = tmp_path / "dangling"
    out.symlink_to(tmp_path / "nowhere")
    code, _, err = run_cli(capsys, "simulate", *ARGV, "--out", str(out))
    one_line_error(code, err, "is a symbolic link to", "which does not exist", command="simulate")


def test_a_report_written_through_a_link_loop(reference, loop, capsys):
    out = loop / "r.html"
    code, _, err = run_cli(capsys, "report", str(reference), "-o", str(out))
    one_line_error(code, err, f"-o {out}", "symbolic link loop", command="report")
