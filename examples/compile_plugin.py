"""A pytest plugin: numba's compile time per function over a whole test session.

    NUMBA_CACHE_DIR=$(mktemp -d) PYTHONPATH=examples .venv/bin/python -m pytest -q -p compile_plugin

With an empty cache folder everything compiles, as on a fresh checkout. At the end it writes
``compile_report.json`` (or ``$COMPILE_REPORT``): each function's own compile seconds, how many
copies were compiled, and the argument types of every function compiled more than once. Only the
test process is counted (not subprocesses, notebook kernels or workers). The figure in the README
("Two commands") comes from it.
"""

from __future__ import annotations

import collections
import json
import os
import time

from numba.core import event

_stack: list[list] = []
_own: collections.Counter = collections.Counter()
_count: collections.Counter = collections.Counter()
_args: dict[str, list[str]] = collections.defaultdict(list)


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


event.register("numba:compile", _Listener())


def pytest_sessionfinish(session, exitstatus):
    report = {"total_own_s": sum(_own.values()), "own_s": dict(_own.most_common()), "copies": dict(_count),
              "args_of_repeated": {k: v for k, v in _args.items() if len(v) > 1}}
    with open(os.environ.get("COMPILE_REPORT", "compile_report.json"), "w") as fh:
        json.dump(report, fh, indent=1)
