"""Limits of the command line and the harness that do not belong to one variant field.

Seeds and match indices index the generator and the ``seed`` / ``match`` results columns, which
are Int64; counts of matches and hands are bounded by the memory a run needs, estimated before
any play (docs/harness.md, "Limits").
"""

from __future__ import annotations

import os

from ..errors import SimsuiteError

MAX_SEED = 2**63 - 1  # the results' seed column is Int64; the generator takes any seed up to this
MAX_MATCH_INDEX = 2**63 - 1  # the engine hashes the match index as an int64
MAX_REPEAT = 100_000  # tournaments by --repeat; each is a few dozen matches
MEMORY_SHARE = 0.5  # a run may plan to use at most this share of the machine's memory
FALLBACK_MEMORY_BYTES = 4 * 2**30  # when the machine does not say how much memory it has
GB = 2**30
# memory of one hand, or one match slot, held at once by bench, duel and compare-policies (records, states, frames)
HAND_BYTES = 1_000
JOBS_PER_CORE = 4  # --jobs at most this many worker processes per core (check_jobs)


def check_int(name: str, value, minimum: int, maximum: int | None = None) -> int:
    """An integer option in its range, else one line naming the option and the range."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise SimsuiteError(f"{name} must be an integer; got {value!r}")
    if value < minimum:
        raise SimsuiteError(f"{name} must be at least {minimum}; got {value}")
    if maximum is not None and value > maximum:
        raise SimsuiteError(f"{name} must be at most {maximum:,}; got {value:,}")
    return value


def check_seed(name: str, value) -> int:
    return check_int(name, value, 0, MAX_SEED)


def cores() -> int:
    """The processor cores this process may use."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except (AttributeError, OSError):
        return max(os.cpu_count() or 1, 1)


def max_jobs() -> int:
    """The most local worker processes a command starts: ``JOBS_PER_CORE`` per core."""
    return JOBS_PER_CORE * cores()


def check_jobs(name: str, value) -> int:
    """Worker processes: a positive number up to ``max_jobs()``, or -1 for one per core (joblib's
    convention). The one place every command's ``--jobs`` is checked: a number past the machine's
    cores only makes processes wait for each other, and a huge one would start processes without
    end (docs/harness.md, "Limits")."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise SimsuiteError(f"{name} must be an integer; got {value!r}")
    if value == 0 or value < -1:
        raise SimsuiteError(f"{name} must be a positive number of workers or -1 (all cores); got {value}")
    if value > max_jobs():
        raise SimsuiteError(
            f"{name} {value:,} is more worker processes than this machine runs: at most {max_jobs()} "
            f"({JOBS_PER_CORE} per core, {cores()} core(s)); -1 starts one per core"
        )
    return value


def machine_memory() -> int:
    """Physical memory in bytes (a fixed guess where the system does not tell)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return FALLBACK_MEMORY_BYTES


def check_memory(what: str, needed: int, advice: str) -> None:
    """Refuse a plan whose estimated memory is more than ``MEMORY_SHARE`` of the machine's."""
    have = machine_memory()
    if needed > have * MEMORY_SHARE:
        raise SimsuiteError(
            f"{what} needs about {needed / GB:,.1f} GB of memory, more than half of this machine's "
            f"{have / GB:,.1f} GB; {advice}"
        )
