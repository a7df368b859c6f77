"""Chunks played on a Dask cluster: one task a chunk, submitted through the distributed client and
watched, so that every chunk runs on a worker and a cluster left without workers stops the run.

The driver submits the chunks itself, a few per worker thread at a time, so that a cluster of a
single worker thread plays every chunk on that worker (joblib's Dask backend would play them in the
driver, its one-job shortcut). It checks the cluster between results: when it has had no worker
(or no connection to its scheduler) for ``no_worker_wait()`` seconds, ``WorkersLost`` ends the
run, and the caller keeps the chunks done and says how to resume. Both Dask runs go through
``play_on_cluster``: ``simulate``'s chunks (``sim.executor``) and ``learn collect``'s
(``learn.collect``). Both say in the same words how a run stopped early (``stopped_error``,
whatever the backend, and ``interrupted_note``).
"""

from __future__ import annotations

import math
import os
import time
import uuid
from collections.abc import Callable, Iterator

from ..errors import SimsuiteError

NO_WORKER_S = 10.0  # a cluster without a worker for this long stops the run (docs/harness.md, "Dask")
NO_WORKER_ENV = "SIMSUITE_NO_WORKER_S"  # sets that wait, in seconds
MAX_NO_WORKER_S = 86_400.0
POLL_S = 0.5  # how often the driver looks at the cluster while it waits for a result
IN_FLIGHT_PER_THREAD = 2  # chunks queued on the cluster per worker thread, so no thread waits for the driver
MIN_IN_FLIGHT = 4
SCHEDULER_LOST = "scheduler-connection-lost"  # the reason distributed gives the futures it cancels then


class WorkersLost(Exception):
    """The cluster had no worker, or the driver no scheduler, for the whole wait."""


def no_worker_wait() -> float:
    """Seconds a run waits for a worker before it stops: ``SIMSUITE_NO_WORKER_S``, else 10."""
    raw = os.environ.get(NO_WORKER_ENV)
    if raw is None or not raw.strip():
        return NO_WORKER_S
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not 0 < value <= MAX_NO_WORKER_S:
        raise SimsuiteError(
            f"{NO_WORKER_ENV}={raw!r}: the seconds a Dask run waits for a worker must be a number "
            f"above 0 and at most {MAX_NO_WORKER_S:,.0f}"
        )
    return value


def _cluster_state(client) -> tuple[bool, int, int]:
    """(the scheduler answers, its workers, their threads)."""
    if client.status != "running":
        return False, 0, 0
    try:
        info = client.scheduler_info(n_workers=0)  # the totals only: cheap however large the cluster
    except Exception:  # noqa: BLE001 - a scheduler that stopped answering counts as no cluster
        return False, 0, 0
    return True, int(info.get("n_workers") or 0), int(info.get("total_threads") or 0)


def play_on_cluster(
    client, fn: Callable[[dict], tuple], tasks: list[dict], wait_s: float, address: str
) -> Iterator[tuple]:
    """``fn(task)`` of every task on the cluster's workers, yielded as each finishes. Raises
    ``WorkersLost`` after ``wait_s`` seconds without a worker, or at once when the scheduler goes;
    a task's own exception (a worker killed while running it too often, say) passes through.
    Pending tasks are cancelled on exit."""
    from distributed import wait
    from distributed.client import CancelledError

    queue = list(reversed(tasks))  # popped from the end: chunks go out in the plan's order
    pending: set = set()
    run_key = uuid.uuid4().hex[:8]
    seen_worker = False
    without_since: float | None = None
    try:
        while queue or pending:
            answers, workers, threads = _cluster_state(client)
            if workers:
                seen_worker, without_since = True, None
            else:
                now = time.monotonic()
                without_since = without_since if without_since is not None else now
                if now - without_since >= wait_s:
                    raise WorkersLost(_lost_text(address, answers, seen_worker, wait_s))
            window = max(IN_FLIGHT_PER_THREAD * threads, MIN_IN_FLIGHT)
            while queue and len(pending) < window:
                t = queue.pop()
                pending.add(client.submit(fn, t, pure=False, key=f"simsuite-chunk-{t['id']}-{run_key}"))
            try:
                with client.as_current():  # distributed.wait uses the current client; this run's is not the default
                    done, _ = wait(list(pending), timeout=POLL_S, return_when="FIRST_COMPLETED")
            except TimeoutError:
                continue
            except CancelledError as exc:
                raise _lost_or(exc, client, address) from None
            for f in done:
                try:
                    res = f.result(timeout=POLL_S)
                except TimeoutError:  # its worker left before the rows came back: the scheduler plays it again
                    continue
                except CancelledError as exc:
                    raise _lost_or(exc, client, address) from None
                pending.discard(f)
                f.release()
                yield res
    finally:
        if pending and client.status == "running":
            try:
                client.cancel(list(pending))
            except Exception:  # noqa: BLE001 - the client closes next in any case
                pass


def _lost_or(exc: BaseException, client, address: str) -> BaseException:
    """The client cancels every future when its scheduler goes: that is ``WorkersLost``; any other
    cancellation is itself."""
    if SCHEDULER_LOST in str(exc) or client.status != "running":
        return WorkersLost(f"lost the connection to the Dask scheduler at {address}")
    return exc


def stopped_error(
    backend_error: BaseException | None, *, what: str, backend: str, done: int, out, resume: str
) -> SimsuiteError | None:
    """The error that ends a run of chunks whose backend failed (``WorkersLost``, or any other
    exception of the backend ``backend``), None when it did not. ``what`` names the run
    (``"run"``, ``"collection"``); the message keeps the ``done`` chunks in ``out`` and gives the
    ``resume`` command."""
    if backend_error is None:
        return None
    kept = f"the {done} completed chunk(s) are kept in {out}; resume with: {resume}"
    if isinstance(backend_error, WorkersLost):
        return SimsuiteError(f"{backend_error}: the {what} stopped; {kept}")
    return SimsuiteError(
        f"the {backend} backend failed ({type(backend_error).__name__}: {' '.join(str(backend_error).split())}); {kept}"
    )


def interrupted_note(done: int, total: int, out, resume: str) -> str:
    """The line a run of chunks interrupted by Ctrl-C or SIGTERM prints: what it kept, where, and
    the command that resumes it."""
    return f"simsuite: interrupted; {done} of {total} chunks are done and kept in {out}; resume with: {resume}"


def _lost_text(address: str, answers: bool, seen_worker: bool, wait_s: float) -> str:
    secs = f"{wait_s:g} s"
    if not answers:
        return f"lost the connection to the Dask scheduler at {address} for {secs}"
    if seen_worker:
        return (
            f"every worker of the Dask cluster at {address} was lost and none came back within {secs} "
            f"({NO_WORKER_ENV} sets the wait)"
        )
    return f"the Dask scheduler at {address} has had no worker for {secs}; start workers with `dask worker {address}`"


__all__ = [
    "play_on_cluster",
    "WorkersLost",
    "no_worker_wait",
    "stopped_error",
    "interrupted_note",
    "NO_WORKER_S",
    "NO_WORKER_ENV",
]
