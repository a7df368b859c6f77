"""What a loky worker of the local pool runs first: exit as soon as the driver is gone.

The pool's initializer reaches a worker by reference, so the worker imports this module before
running it. It imports nothing heavy, so that a worker starts watching its driver at once: from
``simsuite.sim.executor`` (numba, polars) the import took more than 5 s on a loaded machine, and a
worker whose driver was SIGKILLed in that time outlived it (``tests/test_run_lock.py``).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

PARENT_POLL_S = 0.5  # how often a worker checks that the driver is alive
EXIT_ORPHANED = 70  # a worker whose driver died exits with this status

_WATCHING: list[int] = []  # the driver pid this worker process watches (at most one)
PR_SET_PDEATHSIG = 1  # Linux prctl option: a signal for this process when its parent dies


def _kill_me_with_parent() -> None:
    """On Linux, ask the kernel to SIGKILL this worker when the driver dies: it works even while
    the worker's main thread holds the GIL or is blocked writing a result no one will read,
    where the watch thread below cannot run. Elsewhere the watch thread alone does it."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def die_with_driver(driver_pid: int) -> None:
    """The loky workers' initializer: exit as soon as the driver is gone, so that a SIGKILLed
    driver leaves no worker holding its stderr, even one still starting up or blocked writing a
    result that no one will read."""
    if _WATCHING:
        return
    _WATCHING.append(driver_pid)
    _kill_me_with_parent()
    if os.getppid() != driver_pid:  # loky starts workers from the driver: it died while this one started
        os._exit(EXIT_ORPHANED)

    def watch() -> None:
        while os.getppid() == driver_pid:
            time.sleep(PARENT_POLL_S)
        os._exit(EXIT_ORPHANED)

    threading.Thread(target=watch, name="simsuite-driver-watch", daemon=True).start()
