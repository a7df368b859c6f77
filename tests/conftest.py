"""Shared helpers: situations are built from card notation, like a stacked deck."""

from __future__ import annotations

import fcntl
import hashlib
import os
import sys
import tempfile
import time

import pytest

from simsuite.engine import warm
from simsuite.rules.cards import parse_cards, parse_rank
from simsuite.rules.order import hand_order, parse_trump
from simsuite.rules.units import counts_of
from simsuite.rules.variant import load_variant

# nbformat (tests/test_notebooks.py) imports jsonschema, which imports rfc3987_syntax when it is installed
# (Jupyter installs it) to check the "iri" string format, which no notebook schema uses. Building that
# package's grammar takes 1.2 s or more, in every test process at collection: without it, collecting the
# suite took 2.1 to 2.3 s instead of 5.1 to 5.3 (docs/performance.md, "Two workers that compile in
# different orders"). None in sys.modules makes the import fail, and jsonschema goes without that one check.
sys.modules.setdefault("rfc3987_syntax", None)

# The engine compiles three policy sets (engine.policies.full_for): lean, learned and full. The suite
# compiles two, lean and full: learned seats play in the full set here, with the same decision code
# (tests/test_engine.py compares the learned set's play with it, `pytest -m slow`). And no warm-up
# compiles the tricks loop in a process beside it (engine.warm, "the tricks loop, compiled beside"):
# under `make test` both cores already compile, each function once (below). Both reach the CLI's
# subprocesses through the environment.
os.environ.setdefault("SIMSUITE_LEARNED_IN_FULL", "1")
os.environ.setdefault("SIMSUITE_COMPILE_ASIDE", "0")


def cards(text: str) -> dict[int, int]:
    """Card notation to a count dict {card id: copies}."""
    return counts_of(parse_cards(text))


def order_for(variant_id: str, level: str = "2", trump: str = "S"):
    """The card order of a hand of ``variant_id`` played at ``level`` with ``trump``."""
    return hand_order(load_variant(variant_id), parse_rank(level), parse_trump(trump))


@pytest.fixture(autouse=True)
def _slow_only_when_asked(request):
    """The ``slow`` tests run only when the marker expression names them (``-m slow``)."""
    if request.node.get_closest_marker("slow") and "slow" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("slow: run with -m slow")


@pytest.fixture(scope="session")
def tiny_design(tmp_path_factory):
    """tests/designs/tiny.toml run once (simsuite design): its spec path and result."""
    from pathlib import Path

    from simsuite.report.design_text import worded_design as design

    spec = Path(__file__).parent / "designs" / "tiny.toml"
    return spec, design(spec, tmp_path_factory.mktemp("design") / "out", quiet=True)


def local_dask_cluster(n_workers: int):
    """A local Dask cluster of ``n_workers`` single-threaded worker processes, without a dashboard.
    Its scheduler serves HTTP (health, metrics) even so, on port 8787 unless told otherwise: on any
    free port here, so that a test beside another Dask process does not warn "Port 8787 is already
    in use"."""
    distributed = pytest.importorskip("distributed")
    return distributed.LocalCluster(
        n_workers=n_workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": ":0"},
    )


@pytest.fixture
def bare_scheduler():
    """A loopback Dask scheduler with no workers of its own: the test starts and kills them."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=0,
        processes=True,
        dashboard_address=None,
        host="127.0.0.1",
        scheduler_kwargs={"dashboard_address": ":0"},
    ) as cluster:
        yield cluster.scheduler_address


@pytest.fixture(params=["school-2016", "huizhou", "baiyun-2016", "two-deck-2011", "guangxi-2012"])
def variant_id(request):
    return request.param


# A test session on a fresh checkout compiles the engine piece by piece; the commands it runs would
# announce each compile on stderr, which the CLI tests check is empty. The notice's own tests pass
# ``after_s`` explicitly (tests/test_warm.py).
warm.NOTICE_AFTER_S = 24 * 3600.0


# --- make test: two pytest-xdist workers, each loop set compiled once ---------------------------------------------
# `make test` runs the suite on two workers (`pytest -n 2`). Left alone, each worker compiles
# whatever engine loop its next test needs, and on a fresh checkout both compile the same loops at
# once (a minute and a half each for the lean set, three minutes for the full one). Instead:
# - the tests that need the full set (search, expert-v1, and the decisions the Python path calls,
#   all compiled with every policy) are marked `full_loop`;
# - the scheduler below sends the tests one at a time, in the order the workers collected them, and
#   the workers order them so: one `full_loop` test, then every other test, then the other
#   `full_loop` tests. The worker that gets the first test compiles the full set while the other
#   compiles the lean set and runs the lean tests; both share the full tests at the end;
# - each set compiles at a worker's first test that needs it, under a file lock per set: a worker
#   that needs a set the other is compiling waits for the lock, then loads numba's cache;
# - the full set calls nearly every function of the lean set, so the two compiles above would each
#   compile those (about 25 CPU-s twice). Each compiled function therefore compiles under a file lock
#   of its own (`_compile_once_across_workers`): the worker that reaches a function first compiles it
#   and writes numba's cache, and the other waits for the lock, then loads it from the cache;
# - numba compiles callees in the order their calls are written, and the two sets' orders differ
#   (`engine.full.run` starts with the search, which asks for follows first; the lean hand starts
#   with the deal and the bury, and its tricks loop with the leads), so that the two workers seldom
#   need the same function at the same moment (tests/test_warm.py pins the orders).
# A plain `pytest` run compiles lazily, as before. Only the time depends on this: a missing mark
# costs a second compile, never a result.

_warmed: set[str] = set()


def _xdist_run() -> str | None:
    """The id that the workers of one xdist run share, or None outside xdist."""
    return os.environ.get("PYTEST_XDIST_TESTRUNUID") if os.environ.get("PYTEST_XDIST_WORKER") else None


def _lock_path(run: str, kind: str) -> str:
    return os.path.join(tempfile.gettempdir(), f"simsuite-pytest-{run}-{kind}.lock")


def _warm_set(kind: str) -> None:
    """Compile (or load from the cache) the compiled entry points of one policy set that the suite
    calls: for the lean set (random, basic, expert) the match, hand and bury loops; for the full one
    ``engine.full.run`` (the same three loops' twins, among them the notebooks' search pairing, which
    plays in their kernels, and the decisions that the Python path's built-in seats call), reached
    here through each of its callers."""
    from simsuite.engine.warm import warm_up

    v = load_variant("school-2016")
    warm_up(v, "basic" if kind == "lean" else "expert-v1", "every")
    if kind == "full":  # the Python path's built-in seats: the phases it calls from Python, and the decision
        from simsuite.play.pyhand import warm_up_python_path

        warm_up_python_path(v)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Under xdist: one `full_loop` test, then the others, then the remaining `full_loop` tests."""
    if _xdist_run() is None:
        return
    full = [it for it in items if it.get_closest_marker("full_loop")]
    items[:] = full[:1] + [it for it in items if not it.get_closest_marker("full_loop")] + full[1:]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """`-n N` (xdist's default `--dist load`): the tests one at a time, in collection order (xdist's
    `load` sends each worker a quarter of the suite at the start, which would queue lean tests
    behind the full set's compile)."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class OneAtATime(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            return nodeid

    return OneAtATime(config, log)


def pytest_sessionfinish(session):
    """A worker removes the lock files of the sets and functions it compiled or loaded once it is done."""
    run = _xdist_run()
    for path in [_lock_path(run, kind) for kind in _warmed] + sorted(_fn_locks) if run else ():
        try:
            os.remove(path)
        except OSError:
            pass


_fn_locks: set[str] = set()  # the function lock files this worker opened (removed at its end)
_held: set[str] = set()  # the function locks this worker holds now (a compile nests its callees')


def _compile_once_across_workers() -> None:
    """Under xdist: wrap numba's ``Dispatcher.compile`` so that a simsuite function with a disk
    cache compiles under a file lock per (function, argument types). Inside the lock numba's own
    ``compile`` looks in the cache first, so the second worker to need a function loads what the
    first compiled. A compile holds its callees' locks inside its own; the call graph has no cycle,
    so two workers can never each wait for the other."""
    run = _xdist_run()
    if run is None:
        return
    from numba.core import sigutils
    from numba.core.caching import NullCache
    from numba.core.dispatcher import Dispatcher

    compile_ = Dispatcher.compile

    def compile(self, sig):
        args = tuple(sigutils.normalize_signature(sig)[0])
        if (
            isinstance(self._cache, NullCache)
            or args in self.overloads
            or not self.py_func.__module__.startswith("simsuite.")
        ):
            return compile_(self, sig)
        name = f"{self.py_func.__module__}.{self.py_func.__qualname__}{args}"
        key = "fn-" + hashlib.sha1(name.encode()).hexdigest()[:20]
        if key in _held:  # the same function again inside its own compile (a literal retry)
            return compile_(self, sig)
        path = _lock_path(run, key)
        _fn_locks.add(path)
        with open(path, "w") as lock:
            asked = time.time()
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or when the worker dies
            got = time.time()
            _held.add(key)
            try:
                return compile_(self, sig)
            finally:
                _held.discard(key)
                if _LOCK_LOG:
                    _log_lock(asked, got, self.py_func)

    Dispatcher.compile = compile


# SIMSUITE_LOCK_LOG=<folder>: each worker appends a line per function lock to <folder>/locks-<worker>.log:
# when it asked (epoch seconds), how long it waited for the other worker, and the function
# (docs/performance.md, "Two workers that compile in different orders")
_LOCK_LOG = os.environ.get("SIMSUITE_LOCK_LOG")


def _log_lock(asked: float, got: float, func) -> None:
    line = f"{asked:.2f} {got - asked:.2f} {func.__module__}.{func.__qualname__}\n"
    with open(os.path.join(_LOCK_LOG, f"locks-{os.environ.get('PYTEST_XDIST_WORKER')}.log"), "a") as fh:
        fh.write(line)


_compile_once_across_workers()


@pytest.fixture(autouse=True)
def _engine_compiled_once(request):
    run = _xdist_run()
    if run is None:
        return
    kind = "full" if request.node.get_closest_marker("full_loop") else "lean"
    if kind in _warmed:
        return
    with open(_lock_path(run, kind), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or when the worker dies
        _warm_set(kind)
    _warmed.add(kind)
