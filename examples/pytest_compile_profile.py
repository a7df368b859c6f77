"""A pytest plugin: what numba compiles during a test run, test by test.

    NUMBA_CACHE_DIR=$(mktemp -d) PYTHONPATH=examples python -m pytest -q -p pytest_compile_profile [-n 2]

With an empty cache folder everything compiles, as on a fresh checkout. Each process (each xdist
worker) records its outermost compiles (a function's callees compile inside it) under the test
that was running, prints its tests with more than a second of compiling when it ends, and writes
them all to ``$SIMSUITE_COMPILE_PROFILE`` (default ``compile-profile``) ``-<worker>.json``.

With ``SIMSUITE_PROBE_FULL=1`` it also lists the tests that use code compiled for every policy
(a loop called with ``full_for(...)`` not ``None``, or an ``engine.hand.decide_*`` function): the
tests that tests/conftest.py marks ``full_loop``. Figures in docs/performance.md, "The test suite
on two workers".
"""

from __future__ import annotations

import collections
import json
import os
import sys
import time

from numba.core import event

_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")
_current = ["(collection)"]
_full_users: set[str] = set()


class _Outermost(event.Listener):
    def __init__(self):
        self.depth = 0
        self.t0 = 0.0
        self.name = ""
        self.rows: dict[str, list] = collections.defaultdict(list)

    def on_start(self, ev):
        if self.depth == 0:
            f = ev.data["dispatcher"].py_func
            self.t0, self.name = time.perf_counter(), f"{f.__module__}.{f.__qualname__}"
        self.depth += 1

    def on_end(self, ev):
        self.depth -= 1
        if self.depth == 0:
            self.rows[_current[0]].append((self.name, round(time.perf_counter() - self.t0, 2)))


_listener = _Outermost()
event.register("numba:compile", _listener)


def _probe_full() -> None:
    import simsuite.analysis.bury as bury
    import simsuite.compete.match as match
    import simsuite.engine.api as api
    import simsuite.engine.hand as H
    from simsuite.engine.policies import full_for

    def noting_full_for(codes):
        full = full_for(codes)
        if full is not None:
            _full_users.add(_current[0])
        return full

    for module in (api, match, bury):
        module.full_for = noting_full_for
    for name in ("decide_lead", "decide_follow", "decide_bury"):
        def noting(*args, _decide=getattr(H, name)):
            _full_users.add(_current[0])
            return _decide(*args)
        setattr(H, name, noting)


def pytest_configure(config):
    if os.environ.get("SIMSUITE_PROBE_FULL") == "1":
        _probe_full()


def pytest_runtest_setup(item):
    _current[0] = item.nodeid


def pytest_sessionfinish(session):
    rows = {test: compiles for test, compiles in _listener.rows.items()}
    path = f"{os.environ.get('SIMSUITE_COMPILE_PROFILE', 'compile-profile')}-{_WORKER}.json"
    with open(path, "w") as f:
        json.dump({"compiles": rows, "full_users": sorted(_full_users)}, f, indent=1)
    total = sum(s for compiles in rows.values() for _, s in compiles)
    lines = [f"\n[{_WORKER}] numba compiled for {total:.1f} s; tests with more than 1 s of it ({path}):"]
    for test, compiles in sorted(rows.items(), key=lambda kv: -sum(s for _, s in kv[1])):
        secs = sum(s for _, s in compiles)
        if secs > 1.0:
            top = ", ".join(f"{n.rsplit('.', 1)[-1]} {s:.1f}" for n, s in compiles if s > 1.0)
            lines.append(f"  {secs:7.1f} s  {test}  ({top})")
    if _full_users:
        lines.append(f"  {len(_full_users)} tests use code compiled for every policy (full_loop)")
    print("\n".join(lines), file=sys.stderr)
