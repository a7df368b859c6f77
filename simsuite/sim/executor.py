"""The executor: a plan's missing chunks played in parallel and written to the results store.

The driver first compiles the engine, or loads it from numba's cache (``engine.warm``), so that
local workers start from the cache instead of compiling side by side. Chunks are played by
``play_chunk`` in local processes (joblib's ``loky``) or on a Dask cluster's workers
(``simsuite.sim.cluster``); the driver writes each chunk's parts, their checksums and where the
chunk ran into the store as results arrive (``simsuite.sim.results``), holding the folder's lock
throughout. An interrupt (Ctrl-C or SIGTERM), a failed chunk or a cluster left without workers
keeps the chunks done and says how to resume; local workers exit when the driver dies.

Seeds: match ``i`` of a run with root seed ``S`` is always played from the same generator state,
whatever the chunking, ``--jobs`` or backend, and in every cell: cells with the same deck count
see the same deals (common random numbers). With ``duplicate`` every match is played twice, the
second time with the teams' policies swapped (``swapped`` is true on those rows).
"""

from __future__ import annotations

import os
import shlex
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from ..engine.names import pair_text, policy_codes
from ..engine.policies import full_for
from ..engine.warm import warm_up
from ..errors import SimsuiteError
from ..rules.variant import Variant
from . import results as R
from .cluster import interrupted_note, no_worker_wait, play_on_cluster, stopped_error
from .manifest import identity_of, prepare_store, utc_now
from .match import play_command, play_match_batch
from .orphans import die_with_driver
from .progress import Progress
from .spec import ExecOptions, Plan, scheduler_host_port

SCHEDULER_TIMEOUT_S = 3
# the policy sets (engine.policies.full_for) this process has warmed up: one warm-up each a process
_WARMED: set = set()
MANIFEST_EVERY_S = 0.5  # the manifest is rewritten after a chunk at most this often (always at the end)


# --- a chunk, in a worker -------------------------------------------------------------------------


def _tables(pair: tuple[str, str], duplicate: bool) -> list[tuple[str, str, bool]]:
    """(policy N-S, policy E-W, swapped) of each table a match is played at."""
    a, b = pair
    return [(a, b, False)] + ([(b, a, True)] if duplicate else [])


def play_chunk(task: dict) -> tuple:
    """Play one chunk (in a worker): ``("ok", id, hands, matches, seconds)`` or
    ``("error", id, message, bad_match, policies)``. Never raises for an ordinary error, so
    the driver can name the chunk; KeyboardInterrupt passes through."""
    import polars as pl

    from .schema import hand_frame, match_frame

    t0 = time.perf_counter()
    v: Variant = task["variant"]
    try:
        hparts, mparts = [], []
        for ns, ew, swapped in _tables(task["policies"], task["duplicate"]):
            batch = play_match_batch(v, task["seed"], task["start"], task["stop"] - task["start"], f"{ns},{ew}")
            tags = dict(
                run=task["run"],
                variant=v.id,
                cell=task["cell"],
                seed=task["seed"],
                policy_ns=ns,
                policy_ew=ew,
                swapped=swapped,
            )
            hparts.append(hand_frame(batch, start_level=v.start_level, **tags))
            mparts.append(match_frame(batch, **tags))
        return ("ok", task["id"], pl.concat(hparts), pl.concat(mparts), time.perf_counter() - t0)
    except Exception as exc:  # noqa: BLE001 - reported by the driver with the chunk's coordinates
        message = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
        bad, pol = _find_bad_match(task)
        return ("error", task["id"], message, bad, pol)


def play_chunk_here(task: dict) -> tuple:
    """``play_chunk`` followed by where it ran: ``{"host", "pid", "worker"}``, ``worker`` being the
    Dask worker's address (None in a local process)."""
    return play_chunk(task) + (where_this_runs(),)


def where_this_runs() -> dict:
    try:
        from distributed import get_worker

        worker = get_worker().address
    except (ImportError, ValueError):  # not in a Dask worker
        worker = None
    return {"host": socket.gethostname(), "pid": os.getpid(), "worker": worker}


def _find_bad_match(task: dict) -> tuple[int | None, str | None]:
    """Replay the chunk's matches one by one to find the first that fails."""
    for m in range(task["start"], task["stop"]):
        for ns, ew, _ in _tables(task["policies"], task["duplicate"]):
            try:
                play_match_batch(task["variant"], task["seed"], m, 1, f"{ns},{ew}")
            except Exception:  # noqa: BLE001
                return m, f"{ns},{ew}"
    return None, None


# --- the driver -----------------------------------------------------------------------------------


def dask_client(opts: ExecOptions):
    """A ``distributed.Client`` for the Dask backend (a clear error, quickly, if unreachable)."""
    try:
        from distributed import Client
    except ImportError:
        raise SimsuiteError("--backend dask needs the distributed package: pip install 'dask[distributed]'") from None
    scheme, host_port = scheduler_host_port(opts.scheduler)
    try:
        if scheme == "tcp" and host_port is not None:  # a plain socket first: a failed Client is noisy
            import socket

            socket.create_connection(host_port, timeout=SCHEDULER_TIMEOUT_S).close()
        return Client(opts.scheduler, timeout=f"{SCHEDULER_TIMEOUT_S}s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise SimsuiteError(
            f"cannot reach the Dask scheduler at {opts.scheduler} within {SCHEDULER_TIMEOUT_S} s "
            f"({' '.join(str(exc).split())}); start one with `dask scheduler` and workers with "
            "`dask worker ADDRESS`"
        ) from None


def local_processes():
    """joblib's configuration for local worker processes (``loky``): every worker, replacements
    included, watches the driver from its start. Every local pool of simsuite is configured so (the
    chunks here, the exact models of ``simsuite design``), so that loky's one reusable pool serves
    them all: a pool configured otherwise would be shut down and its workers started again, each
    importing simsuite and loading the engine from numba's cache anew."""
    import joblib

    return joblib.parallel_config(backend="loky", initializer=die_with_driver, initargs=(os.getpid(),))


def _results(tasks: list[dict], opts: ExecOptions, client=None, wait_s: float = 0.0) -> Iterator[tuple]:
    if client is not None:  # every chunk a task on the cluster's workers, whatever their thread count
        return play_on_cluster(client, play_chunk_here, tasks, wait_s, opts.scheduler or "?")
    import joblib

    with local_processes():
        par = joblib.Parallel(n_jobs=opts.jobs, return_as="generator_unordered")
    return par(joblib.delayed(play_chunk_here)(t) for t in tasks)


def check_models(pairings) -> None:
    """Load the learned policy's model now where any pairing plays ``learned``: a broken model
    (``SIMSUITE_MODEL``) is one message before any folder is made, not a failed chunk."""
    from ..engine.names import policy_code
    from ..engine.policies.codes import LEARNED
    from ..engine.policies.model import active_model

    if any(policy_code(p) == LEARNED for pair in pairings for p in pair):
        active_model()


def execute(plan: Plan, opts: ExecOptions) -> Path:
    """Play every missing chunk of ``plan`` and write it to ``plan.out``, holding the folder's
    lock throughout (one writer per folder)."""
    check_models(c.policies for c in plan.cells)
    identity = identity_of(plan.kind, plan.cells, plan.seed, plan.duplicate, plan.chunk)
    wait_s = no_worker_wait() if opts.backend == "dask" else 0.0
    client = dask_client(opts) if opts.backend == "dask" else None
    try:
        try:
            plan.out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SimsuiteError(f"--out {plan.out}: cannot create it: {exc}") from None
        with R.RunLock(plan.out, opts.break_lock), _terminate_as_interrupt():
            return _execute(plan, opts, identity, client, wait_s)
    finally:
        if client is not None:
            client.close()


class _Terminated(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C: the pool is shut down and the manifest marked."""


def _raise_terminated(signum, frame):
    raise _Terminated()


class _terminate_as_interrupt:
    """While a run plays, SIGTERM interrupts it like SIGINT (only the main thread can set it)."""

    def __enter__(self):
        self.old = None
        if threading.current_thread() is threading.main_thread():
            self.old = signal.signal(signal.SIGTERM, _raise_terminated)
        return self

    def __exit__(self, *exc):
        if self.old is not None:
            signal.signal(signal.SIGTERM, self.old)


terminate_as_interrupt = _terminate_as_interrupt  # the public name (learn collect holds its run the same way)


def _execute(plan: Plan, opts: ExecOptions, identity: dict, client, wait_s: float) -> Path:
    import contextlib

    out = plan.out
    manifest = prepare_store(plan, identity, opts.quiet)
    cells = {c.id: c for c in plan.cells}
    todo = [c for c in manifest["chunks"] if c["status"] != R.DONE]
    session = {
        "command": plan.command,
        "started": utc_now(),
        "ended": None,
        "jobs": opts.jobs,
        "backend": opts.backend,
        "scheduler": opts.scheduler,
        "chunks_played": 0,
        "hosts": [],
        "worker_processes": 0,
        "status": "running",
    }
    ran_in: set = set()  # (host, pid) of every process that played a chunk of this session
    manifest["sessions"].append(session)
    manifest["status"] = "running"
    resume_hint = shlex.join(plan.command)
    if not todo:
        session.update(ended=utc_now(), status="complete")
        manifest.update(status="complete", ended=manifest.get("ended") or utc_now())
        R.write_manifest(out, manifest)
        if not opts.quiet:
            print(f"{out}: complete already ({len(manifest['chunks'])} chunks); nothing to do", file=sys.stderr)
        return out
    R.write_manifest(out, manifest)
    tasks = [
        {
            "id": c["id"],
            "cell": c["cell"],
            "variant": cells[c["cell"]].variant,
            "seed": plan.seed,
            "start": c["start"],
            "stop": c["stop"],
            "policies": cells[c["cell"]].policies,
            "duplicate": plan.duplicate,
            "run": out.resolve().name,
        }
        for c in todo
    ]
    by_id = {c["id"]: c for c in manifest["chunks"]}
    task_by_id = {t["id"]: t for t in tasks}
    total = sum(c["stop"] - c["start"] for c in todo)
    progress = Progress(total, enabled=not opts.quiet and sys.stderr.isatty())
    t0 = time.perf_counter()
    last_write = time.monotonic()
    failure = None
    backend_error: BaseException | None = None
    status = "running"
    gen = None
    try:
        if client is None:  # local workers then load what the driver compiled, rather than each compiling it at once
            specs = sorted({",".join(c.policies) for c in cells.values()})
            sets = {full_for(policy_codes(spec)) for spec in specs}
            if not sets <= _WARMED:  # once a process: a second run (a design's rounds) has nothing to load
                try:
                    warm_up(policies=specs)
                    _WARMED.update(sets)
                except Exception:  # noqa: BLE001 - only a head start: a worker that hits the same error reports it
                    pass
            t0 = progress.t0 = time.perf_counter()  # the final line's rate counts the play, not the compile
        try:
            gen = _results(tasks, opts, client, wait_s)
        except Exception as exc:  # noqa: BLE001 - the pool could not start
            backend_error = exc
            gen = iter(())
        while backend_error is None:
            try:
                res = next(gen)
            except StopIteration:
                break
            except (KeyboardInterrupt, SimsuiteError):
                raise
            except Exception as exc:  # noqa: BLE001 - the backend failed (workers lost, a cluster error)
                backend_error = exc
                break
            if res[0] != "ok":
                failure = res
                break
            _, cid, hands, matches, secs, where = res
            sums = {}
            try:
                for kind, frame in (("hands", hands), ("matches", matches)):
                    sums[kind] = R.file_checksum(R.write_part(out, kind, cid, frame, manifest.get("identity_hash")))
            except OSError as exc:
                raise SimsuiteError(f"cannot write the parts of chunk {cid} in {out}: {exc}") from None
            chunk = by_id[cid]
            chunk.update(status=R.DONE, hands=hands.height, seconds=round(secs, 3), sha256=sums, ran_on=where)
            session["chunks_played"] += 1
            ran_in.add((where["host"], where["pid"]))
            session.update(hosts=sorted({h for h, _ in ran_in}), worker_processes=len(ran_in))
            progress.update(chunk["stop"] - chunk["start"], hands.height)
            if time.monotonic() - last_write >= MANIFEST_EVERY_S:
                R.write_manifest(out, manifest)
                last_write = time.monotonic()
        status = "failed" if failure or backend_error else "complete"
    except KeyboardInterrupt:
        status = "interrupted"
        raise
    except BaseException:
        status = "failed"
        raise
    finally:
        if gen is not None and hasattr(gen, "close"):
            with contextlib.suppress(Exception):
                gen.close()
        progress.close()
        done = sum(c["status"] == R.DONE for c in manifest["chunks"])
        if status == "complete" and done < len(manifest["chunks"]):
            status = "incomplete"
        session.update(ended=utc_now(), status=status)
        manifest.update(status=status, ended=utc_now())
        R.write_manifest(out, manifest)
        if status == "interrupted" and opts.scratch:
            print(
                f"simsuite: interrupted after {done} of {len(manifest['chunks'])} chunks; they were played in a "
                "temporary folder, which is removed: nothing is kept, run the command again",
                file=sys.stderr,
            )
        elif status == "interrupted":
            print(interrupted_note(done, len(manifest["chunks"]), out, resume_hint), file=sys.stderr)
    stopped = stopped_error(backend_error, what="run", backend=opts.backend, done=done, out=out, resume=resume_hint)
    if stopped is not None:
        raise stopped
    if failure is not None:
        _, cid, message, bad, pol, _where = failure
        t = task_by_id[cid]
        cell = cells[t["cell"]]
        m = bad if bad is not None else t["start"]
        pol = pol or pair_text(cell.policies)
        repro = play_command(cell.variant, plan.seed, m, pol, given=cell.given)
        raise SimsuiteError(
            f"chunk {cid} (cell {cell.id}, matches {t['start']}-{t['stop'] - 1}, seed {plan.seed}) failed: "
            f"{message}; the {done} completed chunk(s) are kept in {out}; reproduce with: {repro}; "
            f"then resume with: {resume_hint}"
        )
    secs = time.perf_counter() - t0
    if not opts.quiet:
        played = progress.matches
        print(
            f"{out}: {played:,} matches, {progress.hands:,} hands in {secs:.1f} s "
            f"({progress.hands / max(secs, 1e-9):,.0f} hands/s)",
            file=sys.stderr,
        )
    return out
