"""The wheel, installed outside the checkout, runs: what a user or a Dask worker gets from
``uv build`` / ``pip wheel`` and ``pip install``.

The wheel is built from a copy of the package (``simsuite/`` and the checkout's top-level files,
without caches) and installed with its dependencies into a new virtual environment in a temporary
folder, pinned to the versions of the environment running the tests (``uv pip freeze``), so that
uv's cache serves them without the network (as after ``make test``; without a cache it
downloads them). Every command then runs as ``<venv>/bin/simsuite`` from a temporary folder with no
repository in sight, with no PYTHONPATH, and must exit 0, print what it should, and print nothing on
stderr (no warning, no traceback); ``simsuite.__file__`` must lie in the new environment.

Costs, measured on two cores shared with other work (load 4 to 5), wall / CPU seconds:

- ``test_wheel_installs_and_runs``: build the wheel (``uv build --wheel``) 2 to 4 / 1.2, a venv and
  the install from uv's cache 2 / 1, ``--help``, ``variants``, ``show``, ``judge`` 0.3 / 0.2 each, a
  first import in the new venv (bytecode written) 2.5 / 1.2. No engine.
- ``test_wheel_runs_the_engine``: ``simulate`` (4 matches, ``basic,random``) 3 / 2, ``summary``
  1 / 0.8, ``exact`` 4 to 8 / 3.5 (it compiles the chain solver unless the checkout's cache has it), ``report``
  3 to 6 / 3.
  The engine is loaded from numba's cache of the checkout, copied into the install
  (``_seed_engine_cache``): numba takes a cached function only where the installed module's source
  has the same SHA-256 and the function the same bytecode, so what runs is the installed code (a
  function called from another module is not checked, in the checkout as here: after an edit of the
  engine, ``make clean-cache``). The cache is there under ``make test`` (tests/conftest.py compiles the lean set in each worker first);
  a plain ``pytest`` on a fresh checkout compiles it here, once, for the whole run.
  These two tests: 15 to 30 s of wall time, 13 to 15 CPU-s.
- ``test_wheel_compiles_the_engine`` (``slow``): the fresh install's own compile (numba's cache in an
  empty NUMBA_CACHE_DIR): the lean loop set (random, basic, expert; the cheapest set; search or
  expert-v1 would compile the full one, twice as long) took 130 / 75, over the minute the default
  run can spend.
- ``test_wheel_dask`` (``slow``): a Dask scheduler and one worker process (two threads) started from
    the new venv on 127.0.0.1 (2 s until the worker has joined), and ``simulate --backend dask`` from
  its CLI (3 s; the worker loads the engine from the seeded cache).

Run the slow ones with ``pytest -m slow tests/test_wheel.py`` (tests/conftest.py skips them
otherwise). Every process started here is stopped at the end, and each has a timeout.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# the package's files; caches (bytecode, numba's) and build leftovers stay behind
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc", "*.egg-info")
# variables that would let the installed command see the checkout or the test run
DROP_ENV = (
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONSTARTUP",
    "PYTHONDONTWRITEBYTECODE",
    "VIRTUAL_ENV",
    "NUMBA_CACHE_DIR",
    "CONDA_PREFIX",
)
# what the compile notice prints on a fresh install (engine.warm.CompileNotice)
NOTICE = re.compile(r"^simsuite: (compiling the engine, once per checkout|engine compiled in \d+ s)")
SCENARIO = """\
# a 3+3 lead in hearts: school-2016 lets E follow 2+2+2, huizhou wants the two triples first
level = "2"
trump = "S"
declarers = "NS"

[hands]
E = "H5 H5 H6 H6 H7 H7 HJ HJ HJ HK HK HK C3"

[trick]
leader = "N"
plays = ["H9 H9 H9 H8 H8 H8", "H5 H5 H6 H6 H7 H7"]
"""

TIMES: list[tuple[str, float, float]] = []  # (step, wall s, CPU s): the session's finalizer prints them (pytest -s)


def _cpu() -> float:
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + kids.ru_utime + kids.ru_stime


@contextmanager
def step(name: str):
    t0, c0 = time.perf_counter(), _cpu()
    try:
        yield
    finally:
        TIMES.append((name, time.perf_counter() - t0, _cpu() - c0))


def _uv() -> str | None:
    here = Path(sys.executable).parent / "uv"
    return str(here) if here.exists() else shutil.which("uv")


def _run(cmd: list[str], timeout: float, **kw) -> subprocess.CompletedProcess:
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    assert res.returncode == 0, f"{' '.join(map(str, cmd))}: exit {res.returncode}\n{res.stdout}\n{res.stderr}"
    return res


def _offline_first(cmd: list[str], timeout: float, **kw) -> subprocess.CompletedProcess:
    """``cmd`` with uv's ``--offline`` (the cache holds everything after ``make test``), else online."""
    res = subprocess.run(cmd[:3] + ["--offline"] + cmd[3:], capture_output=True, text=True, timeout=timeout, **kw)
    return res if res.returncode == 0 else _run(cmd, timeout, **kw)


def _pins(uv: str | None) -> list[str]:
    """``name==version`` of every distribution of the running environment but simsuite itself."""
    if uv:
        text = _run([uv, "pip", "freeze", "--python", sys.executable], 60).stdout
    else:
        text = _run([sys.executable, "-m", "pip", "freeze"], 60).stdout
    return [line for line in text.splitlines() if "==" in line and not line.lower().startswith(("simsuite==", "-e"))]


class Installed:
    """A wheel of this checkout installed in ``venv``; ``cli`` runs its command from ``work``."""

    def __init__(self, venv: Path, work: Path, wheel: Path):
        self.venv, self.work, self.wheel = venv, work, wheel
        self.bin = venv / "bin"
        self.package = next(venv.glob("lib/python3*/site-packages")) / "simsuite"
        self.env = {
            k: v
            for k, v in os.environ.items()
            if k not in DROP_ENV and not k.startswith(("SIMSUITE_", "PYTEST_", "COV_CORE_"))
        }
        self.env["PATH"] = f"{self.bin}{os.pathsep}{self.env.get('PATH', '')}"

    def cli(self, *args: str, timeout: float = 120, stderr_ok: re.Pattern | None = None) -> str:
        """``simsuite ARGS`` of the installed venv: exit 0 and stderr empty (but lines matching
        ``stderr_ok``); its stdout."""
        with step(" ".join(args[:1]) or "--help"):
            res = subprocess.run(
                [str(self.bin / "simsuite"), *args],
                cwd=self.work,
                env=self.env,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        self.stderr = res.stderr
        shown = f"simsuite {' '.join(args)}: exit {res.returncode}\nstdout:\n{res.stdout}\nstderr:\n{res.stderr}"
        assert res.returncode == 0, shown
        assert "Traceback" not in res.stderr and "Warning" not in res.stderr, shown
        rest = [line for line in res.stderr.splitlines() if not (stderr_ok and stderr_ok.search(line))]
        assert not rest, shown
        return res.stdout


@pytest.fixture(scope="session")
def installed(tmp_path_factory) -> Installed:
    """Build the wheel from a copy of the package, install it with pinned dependencies into a new
    venv in a temporary folder, and return it with an empty working folder beside it."""
    base = tmp_path_factory.mktemp("wheel")
    for parent in [base, *base.parents]:  # the temporary folder must not lie in a checkout
        assert not (parent / ".git").exists() and not (parent / "pyproject.toml").exists(), parent
    uv = _uv()
    if uv is None and subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode:
        pytest.skip("neither uv nor pip is available to build and install the wheel")
    src, dist, venv, work = base / "src", base / "dist", base / "venv", base / "work"
    with step("copy sources"):
        shutil.copytree(ROOT / "simsuite", src / "simsuite", ignore=IGNORE)
        for f in ROOT.iterdir():  # pyproject.toml, README.md (the long description) and the other top-level files
            if f.is_file() and not f.is_symlink():
                shutil.copy2(f, src / f.name)
    with step("build wheel"):
        if uv:
            _offline_first([uv, "build", "--wheel", "-q", "--python", sys.executable, "-o", str(dist), str(src)], 300)
        else:
            _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(src)], 300)
    wheels = sorted(dist.glob("simsuite-*.whl"))
    assert len(wheels) == 1, wheels
    pins = base / "pins.txt"
    pins.write_text("\n".join(_pins(uv)) + "\n")
    with step("venv and install"):
        py = venv / "bin" / "python"
        if uv:
            _run([uv, "venv", "-q", "--python", sys.executable, str(venv)], 120)
            _offline_first([uv, "pip", "install", "-q", "--python", str(py), "-c", str(pins), str(wheels[0])], 600)
        else:
            _run([sys.executable, "-m", "venv", str(venv)], 120)
            _run([str(py), "-m", "pip", "install", "-q", "-c", str(pins), str(wheels[0])], 600)
    work.mkdir()
    yield Installed(venv, work, wheels[0])
    print(
        "\ntests/test_wheel.py steps (wall s / CPU s): "
        + ", ".join(f"{name} {secs:.1f}/{cpu:.1f}" for name, secs, cpu in TIMES)
    )


def test_wheel_installs_and_runs(installed):
    """The cheap commands of the installed wheel: the package, its data and its command line."""
    w = installed
    with step("import"):  # the package, and the package data that no command below reads
        res = _run(
            [
                str(w.bin / "python"),
                "-c",
                "import simsuite\n"
                "from simsuite.analysis.calibrate import load_all_references\n"
                "from simsuite.engine.policies.model import active_model, active_path\n"
                "print(simsuite.__file__, simsuite.__version__, len(load_all_references()), active_path())\n"
                "assert active_model()",
            ],
            120,
            cwd=w.work,
            env=w.env,
        )
    where, version, references, model = res.stdout.split()
    for path in (where, model):
        assert Path(path).resolve().is_relative_to(w.venv.resolve()), path
    assert w.wheel.name.startswith(f"simsuite-{version}-"), (w.wheel.name, version)
    assert int(references) >= 1, "no calibration reference installed"
    assert (w.package / "py.typed").is_file()
    assert not res.stderr, res.stderr

    assert w.cli("--version").strip() == f"simsuite {version}"
    out = w.cli("--help")
    for word in ("simulate", "judge", "variants", "summary", "exact", "report"):
        assert word in out, word
    out = w.cli("variants")  # the built-in variants are package data
    for vid in ("school-2016", "huizhou", "baiyun-2016", "two-deck-2011", "guangxi-2012"):
        assert vid in out, vid
    out = w.cli("show", "huizhou")
    assert out.startswith("huizhou:") and "rules hash" in out, out[:300]
    assert "第四、1" in out and "\n      not cited" not in out, "the citations are not installed with the variants"
    (w.work / "follow.toml").write_text(SCENARIO)
    out = w.cli("judge", "follow.toml", "--variant", "all")
    assert "ILLEGAL" in out and "legal" in out and "winner" in out, out
    out = w.cli("judge", "follow.toml", "--variant", "huizhou", "--json")
    ruling = json.loads(out)
    assert ruling["variant"] == "huizhou" and ruling["winner"] == "N", ruling
    assert ruling["plays"][1]["legal"] is False, ruling
    assert list(w.work.iterdir()) == [w.work / "follow.toml"], "a command wrote into the working folder"


def _seed_engine_cache(w: Installed) -> int:
    """Copy numba's cache of the checkout's engine into the installed package's ``__pycache__``
    folders, after compiling (or loading) the lean loop set here, as tests/conftest.py does for
    every worker of ``make test``. numba accepts a cached function only where the SHA-256 of its
    module's source and the hash of its bytecode match the installed ones (``numba.core.caching``:
    the index's stamp is the source's content hash, not its path or time), so the machine code it
    loads is that of the installed source, which is what runs; a file that differs is compiled
    again. Returns the number of files copied."""
    import simsuite
    from simsuite.engine import lean
    from simsuite.engine.warm import warm_up
    from simsuite.rules.variant import load_variant

    assert Path(simsuite.__file__).resolve().is_relative_to(ROOT), f"the tests import {simsuite.__file__}, not {ROOT}"

    with step("checkout's lean set"):
        warm_up(load_variant("school-2016"), "basic", "every")
    # the engine's cache: beside the checkout's source, or where NUMBA_CACHE_DIR puts it; the other
    # packages' caches where they are beside the source
    found = {Path(lean.run.stats.cache_path): w.package / "engine" / "__pycache__"}
    for d in (ROOT / "simsuite").rglob("__pycache__"):
        found.setdefault(d, w.package / d.relative_to(ROOT / "simsuite"))
    n = 0
    with step("seed cache"):
        for src, dest in found.items():
            if not dest.parent.is_dir():  # a package the wheel does not hold
                continue
            for f in sorted(src.glob("*.nb[ic]")):
                dest.mkdir(exist_ok=True)
                shutil.copy2(f, dest / f.name)
                n += 1
    return n


def _simulate(w: Installed, out: str, *extra: str, stderr_ok: str = "") -> dict:
    """``simulate`` of the installed wheel, 4 matches of school-2016 in 2 chunks, basic against random
    (the lean loop set, the cheapest to compile): its manifest, checked complete."""
    w.cli(
        "simulate",
        "--variant",
        "school-2016",
        "--matches",
        "4",
        "--chunk",
        "2",
        "--policies",
        "basic,random",
        "--seed",
        "1",
        "--out",
        out,
        *extra,
        timeout=540,
        stderr_ok=re.compile(rf"^{out}: 4 matches, \d+ hands in " + (f"|{stderr_ok}" if stderr_ok else "")),
    )
    manifest = json.loads((w.work / out / "manifest.json").read_text())
    assert manifest["status"] == "complete", manifest["status"]
    assert [c["status"] for c in manifest["chunks"]] == ["done", "done"], manifest["chunks"]
    assert manifest["package_version"] == w.wheel.name.split("-")[1], manifest["package_version"]
    return manifest


def test_wheel_runs_the_engine(installed):
    """The installed engine plays (``simulate``), from numba's cache of the checkout's identical
    source (``_seed_engine_cache``; a compile would print the compile notice, and fails here), and
    summary, exact and report read its run. ``test_wheel_compiles_the_engine`` compiles it instead."""
    w = installed
    assert _seed_engine_cache(w), "no numba cache in the checkout"
    try:
        _simulate(w, "local")
    except AssertionError as exc:
        if "compiling the engine" in w.stderr:
            raise AssertionError(
                "the installed engine compiled instead of loading the cache copied from the "
                f"checkout (is the checkout's cache stale? make clean-cache)\n{exc}"
            ) from None
        raise

    out = w.cli("summary", "local")
    assert "school-2016" in out and "policy A wins the match" in out and "n=4" in out, out
    out = w.cli("exact", "local")
    assert "school-2016, basic (A) against random (B): model A wins" in out and ": sample" in out, out
    out = w.cli("report", "local", "-o", "local/report.html")
    assert out.strip().endswith("report.html"), out
    html = (w.work / "local" / "report.html").read_text()
    assert "<html" in html.lower() and "school-2016" in html, html[:300]


@pytest.mark.slow
def test_wheel_compiles_the_engine(installed, tmp_path):
    """A fresh install compiles the engine: ``simulate`` with numba's cache in an empty folder
    (NUMBA_CACHE_DIR, which numba reads instead of the folders beside the source) compiles the lean
    loop set from the installed source, announces it, writes its cache there, and plays. About 66
    CPU-s, 2 min on two loaded cores: too long for the default run."""
    w = installed
    cache = tmp_path / "numba-cache"
    w.env["NUMBA_CACHE_DIR"] = str(cache)
    try:
        _simulate(w, "fresh", stderr_ok=NOTICE.pattern)
        assert "simsuite: compiling the engine" in w.stderr, w.stderr
    finally:
        del w.env["NUMBA_CACHE_DIR"]
    assert list(cache.rglob("lean.run-*.nbi")), "numba cached nothing in NUMBA_CACHE_DIR"


def _start(cmd: list[str], w: Installed, log: Path, procs: list) -> subprocess.Popen:
    fh = open(log, "w")
    proc = subprocess.Popen(cmd, cwd=w.work, env=w.env, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)
    procs.append((proc, fh))
    return proc


def _stop(procs: list) -> None:
    """Each process started here, and its children (its own process group), terminated, then killed."""
    for proc, _ in reversed(procs):
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    for proc, fh in reversed(procs):
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait(timeout=15)
        fh.close()


def _on_cluster(w: Installed, address: str, code: str) -> str:
    """``code`` run by the new venv's Python with ``c``, a Client of the scheduler at ``address``; its stdout."""
    script = f"import sys\nfrom distributed import Client\nc = Client(sys.argv[1], timeout='30s')\n{code}\nc.close()\n"
    return _run([str(w.bin / "python"), "-c", script, address], 120, cwd=w.work, env=w.env).stdout.strip()


@pytest.fixture
def dask_cluster(installed, tmp_path):
    """A Dask scheduler and one worker process, both the new venv's ``dask`` command, on 127.0.0.1;
    the scheduler's address. Both are stopped at the end. The worker has two threads: joblib runs a
    Parallel whose backend offers one thread in all in the calling process (its n_jobs == 1 path),
    so that on a one-thread cluster the chunks would be played by the driver, not the worker."""
    procs: list = []
    try:
        info = tmp_path / "scheduler.json"
        sched = _start(
            [
                str(installed.bin / "dask"),
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--dashboard-address",
                "127.0.0.1:0",
                "--scheduler-file",
                str(info),
                "--idle-timeout",
                "300",
            ],  # and the worker's --death-timeout: gone even if this process is killed
            installed,
            tmp_path / "scheduler.log",
            procs,
        )
        deadline = time.monotonic() + 60
        while not info.exists() and sched.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert info.exists(), (tmp_path / "scheduler.log").read_text()
        address = json.loads(info.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:"), address
        _start(
            [
                str(installed.bin / "dask"),
                "worker",
                address,
                "--host",
                "127.0.0.1",
                "--nworkers",
                "1",
                "--nthreads",
                "2",
                "--no-dashboard",
                "--death-timeout",
                "60",
                "--local-directory",
                str(tmp_path / "worker"),
            ],
            installed,
            tmp_path / "worker.log",
            procs,
        )
        with step("dask up"):  # the worker has joined (the CLI's scheduler check does not wait for workers)
            joined = _on_cluster(
                installed, address, "c.wait_for_workers(1, timeout=60); print(len(c.scheduler_info()['workers']))"
            )
        assert joined == "1", (joined, (tmp_path / "worker.log").read_text())
        yield address
    finally:
        _stop(procs)


@pytest.mark.slow
def test_wheel_dask(installed, dask_cluster):
    """``simulate --backend dask`` from the installed wheel, on a scheduler and a worker started
    from it: every chunk runs on the worker and the run is complete."""
    w = installed
    _seed_engine_cache(w)  # the worker loads the engine (test_wheel_compiles_the_engine compiles it)
    w.cli(
        "simulate",
        "--variant",
        "huizhou",
        "--matches",
        "4",
        "--chunk",
        "2",
        "--policies",
        "random,basic",
        "--seed",
        "2",
        "--backend",
        "dask",
        "--scheduler",
        dask_cluster,
        "--out",
        "dask",
        timeout=540,
        stderr_ok=re.compile(r"^dask: 4 matches, \d+ hands in "),
    )
    manifest = json.loads((w.work / "dask" / "manifest.json").read_text())
    assert manifest["status"] == "complete", manifest["status"]
    assert [c["status"] for c in manifest["chunks"]] == ["done", "done"], manifest["chunks"]
    session = manifest["sessions"][-1]
    assert session["backend"] == "dask" and session["chunks_played"] == 2, session
    out = w.cli("summary", "dask")
    assert "huizhou" in out and "n=4" in out, out
    where = json.loads(
        _on_cluster(w, dask_cluster, "import json\nprint(json.dumps(c.run(lambda: sys.modules['simsuite'].__file__)))")
    )
    assert len(where) == 1, where  # the one worker played the chunks, with simsuite from the new venv
    assert all(Path(f).resolve().is_relative_to(w.venv.resolve()) for f in where.values()), where
