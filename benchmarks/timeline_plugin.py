"""A pytest plugin: when each test ran, on which worker, and what it cost; and a summary of a run.

    NUMBA_CACHE_DIR=$(mktemp -d) PYTHONPATH=benchmarks .venv/bin/python -m pytest -q -n 2 -p timeline_plugin
    PYTHONPATH=benchmarks PYTEST_ADDOPTS="-p timeline_plugin" CI=true bash .ci/run     # in a fresh clone
    python benchmarks/timeline_plugin.py                                                # the summary

Each test process (each xdist worker) appends a line per test to ``timeline-<worker>.log`` in
``$TIMELINE_DIR`` (default: the current folder): its start (epoch seconds), wall seconds, CPU
seconds, CPU seconds of the subprocesses it waited for, seconds numba spent compiling in it, its id,
and the outermost functions compiled in it. The summary gives, per worker, the span from its first
test's start to its last test's end, and its longest tests: the difference between the span and
pytest's own time is start-up (collection) and shut-down. ``--files N`` adds the N test files that
cost the most CPU (the tests' own and their subprocesses'; a notebook kernel or a pool counts when it
is reaped, so at the test that ends it). Figures in docs/performance.md ("Each function compiled once
between the test workers", "The test suite on two workers").

    python benchmarks/timeline_plugin.py [FOLDER] [--files N]
"""

from __future__ import annotations

import os
import resource
import sys
import time
from pathlib import Path

_DIR = Path(os.environ.get("TIMELINE_DIR", "."))


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


if "pytest" in sys.modules:
    import pytest
    from numba.core import event

    class _Compiles(event.Listener):
        def __init__(self):
            self.depth, self.t0, self.total, self.top, self.name = 0, 0.0, 0.0, [], ""

        def on_start(self, ev):
            if self.depth == 0:
                self.t0, self.name = time.perf_counter(), ev.data["dispatcher"].py_func.__qualname__
            self.depth += 1

        def on_end(self, ev):
            self.depth -= 1
            if self.depth == 0:
                secs = time.perf_counter() - self.t0
                self.total += secs
                self.top.append((secs, self.name))

    _compiles = _Compiles()
    event.register("numba:compile", _compiles)
    _out = None

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item, nextitem):
        global _out
        if _out is None:
            _out = open(_DIR / f"timeline-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.log", "a")
        before, n, start, cpu, kids = (
            _compiles.total,
            len(_compiles.top),
            time.time(),
            time.process_time(),
            _children_cpu(),
        )
        yield
        top = [f"{d:.1f}:{name}" for d, name in _compiles.top[n:] if d > 0.3]
        _out.write(
            f"{start:.2f} {time.time() - start:.2f} {time.process_time() - cpu:.2f} {_children_cpu() - kids:.2f} "
            f"{_compiles.total - before:.2f} {item.nodeid} {top}\n"
        )
        _out.flush()


def _logs(folder: Path) -> dict[str, list[list[str]]]:
    """Each worker's log (by its file's stem), as rows of fields: start, wall, CPU, subprocesses'
    CPU, compiling, test id, and the compiled functions if any."""
    return {
        log.stem: [line.split(None, 6) for line in log.read_text().splitlines()]
        for log in sorted(folder.glob("timeline-*.log"))
    }


def summary(folder: Path = _DIR, longest: int = 4) -> None:
    for stem, rows in _logs(folder).items():
        start = min(float(r[0]) for r in rows)
        end = max(float(r[0]) + float(r[1]) for r in rows)
        print(
            f"{stem}: {len(rows)} tests, span {end - start:.1f} s, CPU {sum(float(r[2]) for r in rows):.1f} s, "
            f"subprocesses {sum(float(r[3]) for r in rows):.1f} s, compiling {sum(float(r[4]) for r in rows):.1f} s"
        )
        for r in sorted(rows, key=lambda r: -float(r[1]))[:longest]:
            print(f"  {float(r[1]):7.2f} s  {r[5]}  {r[6].strip() if len(r) > 6 else ''}")


def by_file(folder: Path = _DIR, most: int = 12) -> None:
    """The test files by CPU seconds over every worker: their tests' own, and their subprocesses'."""
    files: dict[str, list[float]] = {}
    for rows in _logs(folder).values():
        for r in rows:
            f = files.setdefault(r[5].split("::")[0], [0.0, 0.0, 0.0, 0])
            f[0], f[1], f[2], f[3] = f[0] + float(r[2]), f[1] + float(r[3]), f[2] + float(r[4]), f[3] + 1
    own, kids = sum(f[0] for f in files.values()), sum(f[1] for f in files.values())
    print(f"tests: CPU {own:.1f} s, subprocesses {kids:.1f} s, in {sum(f[3] for f in files.values())} tests")
    for name, (cpu, sub, comp, n) in sorted(files.items(), key=lambda kv: -(kv[1][0] + kv[1][1]))[:most]:
        print(
            f"  {cpu + sub:7.1f} s  {name} ({n} tests; own {cpu:.1f} s, subprocesses {sub:.1f} s, compiling {comp:.1f} s)"
        )


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description="Summarise the timeline-*.log files of a test run.")
    ap.add_argument("folder", nargs="?", type=Path, default=_DIR)
    ap.add_argument("--files", type=int, default=0, help="also list the N test files that cost the most CPU")
    a = ap.parse_args()
    summary(a.folder)
    if a.files:
        by_file(a.folder, a.files)
