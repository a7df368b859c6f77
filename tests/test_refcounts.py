"""The engine's plain (non-atomic) reference counts (simsuite/engine/__init__.py): when they apply,
and the condition that makes them safe."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import simsuite.engine

ENGINE = Path(simsuite.engine.__file__).parent

_PROBE = """
import numpy as np
from numba import njit
from numba.core.runtime import nrt
{before}
import simsuite.engine
@njit
def total(a):
    return a.sum()
assert total(np.ones(3)) == 3.0
incref = nrt.rtsys.library._final_module.get_function("NRT_incref")
noinline = any(b"noinline" in a for a in incref.attributes)
print(simsuite.engine.plain_refcounts(), "atomicrmw" in nrt.rtsys.library.get_llvm_str(), noinline)
"""

_START_NUMBA = """
@njit
def first(a):
    return a[0]
first(np.ones(1))
"""


def _probe(before: str = "") -> str:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(before=before)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_importing_the_engine_makes_refcounts_plain_and_inlinable():
    assert _probe() == "True False False"


def test_refcounts_stay_atomic_and_called_when_numba_started_first():
    assert _probe(_START_NUMBA) == "False True True"


def test_no_engine_function_releases_the_gil():
    """Plain counts are safe only while no two threads run engine code at once."""
    offenders = []
    for path in sorted(ENGINE.rglob("*.py")):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"\b(nogil|parallel)\s*=\s*True|\bprange\b", line):
                offenders.append(f"{path.relative_to(ENGINE)}:{n}")
    assert offenders == []


_FREES = """
import resource
import numpy as np
{before}
import simsuite.engine
from numba import njit
from numba.core.runtime import nrt

@njit
def scratch(k):
    t = np.zeros(64, np.int64)
    for i in range(64):
        t[i] = i
        if i > k:
            return i  # an early return inside a loop, as the search's candidate lists have
    return t.sum()

@njit
def many(n):
    total = 0
    for _ in range(n):
        total += scratch(1000)
    return total

many(10)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
many(400_000)
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(simsuite.engine.plain_refcounts(), grown < 40_000)  # kB; 400,000 leaked arrays would be about 240 MB
"""


def test_compiled_allocations_are_freed_with_plain_refcounts():
    """numba's plain counter returned the old count, so NRT_decref never saw 0 and no array that
    compiled code allocated was freed (simsuite/engine/__init__.py, ``_plain_inc_dec``)."""
    done = subprocess.run([sys.executable, "-c", _FREES.format(before="")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]
