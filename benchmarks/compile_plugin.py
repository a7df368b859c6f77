"""A pytest plugin: numba's compile time over a whole test session, per function and per test.

    NUMBA_CACHE_DIR=$(mktemp -d) PYTHONPATH=benchmarks .venv/bin/python -m pytest -q -p compile_plugin [-n 2]

With an empty cache folder everything compiles, as on a fresh checkout. At the end each test
process (each xdist worker) writes ``compile_report.json`` (or ``$COMPILE_REPORT``; under xdist
with ``-gw0``, ``-gw1`` ... before ``.json``): each function's own compile seconds, how many copies
were compiled, the argument types of every function compiled more than once, and per test its
outermost compiles (a function's callees compile inside it); it also prints the tests with more
than a second of compiling. Subprocesses and notebook kernels are not counted.

With ``SIMSUITE_PROBE_FULL=1`` the report also lists the tests that run code compiled for every
policy (a loop called with ``full_for(...)`` not ``None``, or an ``engine.full.decide``
(``decide_*``)): the tests that tests/conftest.py marks ``full_loop``.

Figures in the README ("Two commands") and docs/performance.md ("The test suite on two workers").
"""

from __future__ import annotations

import collections
import json
import os
import sys
import time

from numba.core import event

_stack: list[list] = []
_own: collections.Counter = collections.Counter()
_count: collections.Counter = collections.Counter()
_args: dict[str, list[str]] = collections.defaultdict(list)
_per_test: dict[str, list] = collections.defaultdict(list)
_full_users: set[str] = set()
_test = ["(collection)"]


class _Listener(event.Listener):
    def on_start(self, ev):
        f = ev.data["dispatcher"].py_func
        name = f"{f.__module__}.{f.__qualname__}"
        _args[name].append(str(ev.data.get("args"))[:300])
        _stack.append([name, time.perf_counter(), 0.0])

    def on_end(self, ev):
        name, t0, children = _stack.pop()
        secs = time.perf_counter() - t0
        _own[name] += secs - children
        _count[name] += 1
        if _stack:
            _stack[-1][2] += secs
        else:
            _per_test[_test[0]].append((name, round(secs, 2)))


event.register("numba:compile", _Listener())


def _probe_full() -> None:
    """Note the tests that reach code compiled for every policy."""
    import simsuite.analysis.bury as bury
    import simsuite.engine.api as api
    import simsuite.engine.full as F
    import simsuite.sim.match as match
    from simsuite.engine.policies import full_for

    def noting_full_for(codes):
        full = full_for(codes)
        if full is not None:
            _full_users.add(_test[0])
        return full

    for module in (api, match, bury):
        module.full_for = noting_full_for

    def noting(*args, _decide=F.decide):
        _full_users.add(_test[0])
        return _decide(*args)

    F.decide = noting  # decide_lead, decide_follow and decide_bury call it


def pytest_configure(config):
    if os.environ.get("SIMSUITE_PROBE_FULL") == "1":
        _probe_full()


def pytest_runtest_setup(item):
    _test[0] = item.nodeid


def pytest_sessionfinish(session, exitstatus):
    report = {
        "total_own_s": sum(_own.values()),
        "own_s": dict(_own.most_common()),
        "copies": dict(_count),
        "args_of_repeated": {k: v for k, v in _args.items() if len(v) > 1},
        "per_test": _per_test,
        "full_users": sorted(_full_users),
    }
    path = os.environ.get("COMPILE_REPORT", "compile_report.json")
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:
        path = f"{path.removesuffix('.json')}-{worker}.json"
    with open(path, "w") as fh:
        json.dump(report, fh, indent=1)
    lines = [f"\n{worker or 'pytest'}: numba compiled for {report['total_own_s']:.1f} s ({path}); tests with over 1 s:"]
    for test, compiles in sorted(_per_test.items(), key=lambda kv: -sum(s for _, s in kv[1])):
        secs = sum(s for _, s in compiles)
        if secs > 1.0:
            top = ", ".join(f"{n.rsplit('.', 1)[-1]} {s:.1f}" for n, s in compiles if s > 1.0)
            lines.append(f"  {secs:7.1f} s  {test}  ({top})")
    if _full_users:
        lines.append(f"  {len(_full_users)} tests run code compiled for every policy (full_loop)")
    print("\n".join(lines), file=sys.stderr)
