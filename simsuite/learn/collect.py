"""``simsuite learn collect``: the search's decisions, with its candidates' values and features.

Hands are played with ``search`` at all four seats, under the rules ``learn.rules.hand_rules``
gives each hand (a tournament as written, or its parameters drawn across their ranges). Every
decision of a search seat that weighs more than one candidate (the bury, every lead and follow)
is logged by the engine (``engine.policies.learned``, "The decision log"): per candidate, the search's value
sum, sampled deals and sum of squares, whether the search chose it, and its features
(``engine.policies.features.FEATURES``).

``--mode bury`` deals, declares and buries only (``simsuite bury``'s loop, no trick played): every
hand gives one bury decision, so a collection of the bury alone, the rarest decision of play and
the one the capture rules act on most, costs a fraction of whole hands. A labeller
(``label-k<K>-c<C>-r<roll-out>``, ``engine.policies.search``) plays ``learned`` and logs the search's
values at the decisions it labels: the positions ``learned`` reaches, the last tricks over-sampled.

A collection is a folder like a run of ``simulate``: ``manifest.json`` (what was collected: seed,
hands, chunk size, the search's name and parameters, the rule-draw scheme, the feature list, the
package version, and each chunk's state) and one Parquet part per chunk in ``decisions/``. It is
resumable (the same command plays only the chunks not done), written by one process at a time
(the folder's lock), and the same whatever ``--jobs`` or backend: hand ``i`` has the same deal,
rules and level in every split. A collection is data: nothing in it is ever run.

Chunks are played in the driver (``--jobs 1``), in local processes (joblib's ``loky``) or on a
Dask cluster's workers through ``sim.cluster.play_on_cluster``, as ``simulate``'s are: every chunk
a task on a worker whatever the cluster's thread count, and a cluster left without workers (or a
lost scheduler) stops the collection with the chunks done kept. Each done chunk records where it
ran (``ran_on``), and each session the hosts and worker processes that played its chunks.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

from ..engine.api import bury_many, play_many
from ..engine.core import LOG_META, LOG_ROWS, O_LOG, O_LOG_N, XCOLS
from ..engine.hand import N_BURIED, N_RECORD, R_ERROR
from ..engine.names import policy_code, policy_name
from ..engine.params import compile_variant
from ..engine.policies import FULL
from ..engine.policies.codes import POLICY_NAMES
from ..engine.policies.features import FEATURE_NAMES, N_FEATURES
from ..engine.policies.learned import LOG_COLUMNS, LOG_DROPPED, LOG_ON, LOG_USED
from ..engine.policies.model import features_hash, work_for
from ..engine.policies.search import (
    DEFAULT_CANDIDATES,
    DEFAULT_SAMPLES,
    code_candidates,
    code_rollout,
    code_samples,
    is_search,
    labels,
)
from ..engine.rng import run_key
from ..errors import SimsuiteError
from ..sim import results as R
from ..sim.cluster import interrupted_note, no_worker_wait, play_on_cluster, stopped_error
from ..sim.executor import terminate_as_interrupt, where_this_runs
from ..sim.limits import check_int, check_jobs, check_seed
from ..sim.manifest import package_version, utc_now
from ..sim.results import json_hash
from .rules import DRAW_VERSION, DRAWN_SHARE, hand_rules

FORMAT = "simsuite-decisions"
KIND = "decisions"  # the parts' folder and tag
DEFAULT_HANDS = 20_000
MODES = ("hands", "bury")  # whole hands, or the deal, declaration and bury only
DEFAULT_CHUNK = 20
MAX_HANDS = 10_000_000
MAX_CHUNKS = 200_000
# the part's columns: the hand and its rules, the log's columns, then the features
HAND_COLUMNS = ("hand", "base", "drawn", "level")


def _schema() -> dict:
    s = {"hand": pl.Int64, "base": pl.Utf8, "drawn": pl.Boolean, "level": pl.Int8}
    for name in LOG_COLUMNS:
        s[name] = pl.Int64 if name in ("value_sum", "value_sq") else pl.Int32
    for name in FEATURE_NAMES:
        s[name] = pl.Int32
    return s


def collect_hands(seed: int, start: int, stop: int, policy: str, mode: str = "hands") -> pl.DataFrame:
    """The logged decisions of hands ``start .. stop-1`` of the collection ``seed`` (in a worker):
    whole hands, or with ``mode`` "bury" the bury alone."""
    code = policy_code(policy)
    pols = np.full(4, code, np.int64)
    W = work_for(pols)
    log = W[O_LOG : O_LOG + LOG_ROWS * (LOG_META + XCOLS)].reshape(LOG_ROWS, LOG_META + XCOLS)
    counts = W[O_LOG_N : O_LOG_N + 8]
    key = run_key(seed)
    out = np.zeros((1, N_RECORD), np.int64)
    buried = np.zeros((1, N_BURIED), np.int64)
    blocks, hands, bases, drawn_flags, levels = [], [], [], [], []
    for i in range(start, stop):
        v, level, drawn = hand_rules(seed, i)
        counts[:] = 0
        counts[LOG_ON] = 1
        if mode == "bury":
            if v.bottom_size > 0:
                P = compile_variant(v)
                bury_many(P, key, i, np.array([level], np.int64), np.array([i % 4], np.int64), pols, W, buried, FULL)
        else:
            play_many(
                compile_variant(v),
                key,
                i,
                np.array([level], np.int64),
                np.array([i % 4], np.int64),
                level == v.start_level,
                pols,
                W,
                out,
                FULL,
            )
            if out[0, R_ERROR]:
                raise SimsuiteError(
                    f"hand {i} of collection seed {seed} ({v.source or v.id}, level {level}) stopped on "
                    f"an illegal play (engine error {int(out[0, R_ERROR])})"
                )
        if counts[LOG_DROPPED]:
            raise SimsuiteError(
                f"hand {i} of collection seed {seed}: the decision log holds {LOG_ROWS} candidates "
                f"and this hand had more"
            )
        n = int(counts[LOG_USED])
        blocks.append(log[:n, : LOG_META + N_FEATURES].copy())
        hands.append(np.full(n, i, np.int64))
        bases.extend([v.id] * n)
        drawn_flags.append(np.full(n, drawn))
        levels.append(np.full(n, level, np.int8))
    rows = np.concatenate(blocks) if blocks else np.zeros((0, LOG_META + N_FEATURES), np.int64)
    data = {
        "hand": np.concatenate(hands) if hands else np.zeros(0, np.int64),
        "base": bases,
        "drawn": np.concatenate(drawn_flags) if drawn_flags else np.zeros(0, bool),
        "level": np.concatenate(levels) if levels else np.zeros(0, np.int8),
    }
    for j, name in enumerate(LOG_COLUMNS + FEATURE_NAMES):
        data[name] = rows[:, j]
    return pl.DataFrame(data, schema=_schema())


def _chunk_task(task: dict) -> tuple:
    """One chunk in a worker: ``("ok", id, frame, seconds, where)`` or ``("error", id, message, where)``,
    ``where`` being ``sim.executor.where_this_runs()`` (host, process id, Dask worker or None)."""
    t0 = time.perf_counter()
    try:
        frame = collect_hands(task["seed"], task["start"], task["stop"], task["policy"], task.get("mode", "hands"))
        return ("ok", task["id"], frame, time.perf_counter() - t0, where_this_runs())
    except Exception as exc:  # noqa: BLE001 - reported by the driver with the chunk's hands
        return ("error", task["id"], f"{type(exc).__name__}: {' '.join(str(exc).split())}", where_this_runs())


def identity(seed: int, hands: int, chunk: int, policy: str, mode: str = "hands") -> dict:
    """What makes two collections the same data (a resumed one must match it exactly)."""
    code = policy_code(policy)
    k, c = int(code_samples(code)) or DEFAULT_SAMPLES, int(code_candidates(code)) or DEFAULT_CANDIDATES
    return {
        "format": FORMAT,
        "seed": seed,
        "hands": hands,
        "chunk": chunk,
        "mode": mode,
        "policy": policy_name(code),
        "search": {
            "samples": k,
            "candidates": c,
            "rollout": POLICY_NAMES[int(code_rollout(code))],
            "labeller": bool(labels(code)),
        },
        "rules": {"draw_version": DRAW_VERSION, "drawn_share": DRAWN_SHARE},
        "features": list(FEATURE_NAMES),
        "features_hash": features_hash(),
        "log_columns": list(LOG_COLUMNS),
    }


def check_policy(policy: str) -> str:
    code = policy_code(policy)
    if code is None or not is_search(code):
        raise SimsuiteError(
            f"--policy {policy!r}: collection logs the search's decisions; give search, "
            f"search-k<samples>-c<candidates>[-r<roll-out>] or its labeller label-k<samples>-c<candidates>[-r<roll-out>]"
        )
    return policy


def collect(
    out: str | Path,
    hands: int = DEFAULT_HANDS,
    seed: int = 1,
    policy: str = "search",
    mode: str = "hands",
    jobs: int = 1,
    chunk: int = DEFAULT_CHUNK,
    backend: str = "loky",
    scheduler: str | None = None,
    quiet: bool = False,
    break_lock: bool = False,
    command: list[str] | None = None,
) -> Path:
    """Collect the decisions of ``hands`` hands into the folder ``out`` (resuming it if it holds
    the same collection); returns the folder."""
    check_int("--hands", hands, 1, MAX_HANDS)
    check_seed("--seed", seed)
    check_jobs("--jobs", jobs)
    check_int("--chunk", chunk, 1, MAX_HANDS)
    check_policy(policy)
    if mode not in MODES:
        raise SimsuiteError(f"--mode must be one of {', '.join(MODES)}; got {mode!r}")
    if -(-hands // chunk) > MAX_CHUNKS:
        raise SimsuiteError(
            f"--hands {hands:,} in chunks of {chunk:,} makes more than {MAX_CHUNKS:,} chunks; give a larger --chunk"
        )
    if backend not in ("loky", "dask"):
        raise SimsuiteError(f"--backend must be loky or dask; got {backend!r}")
    if backend == "dask" and not scheduler:
        raise SimsuiteError("--backend dask needs --scheduler ADDRESS (a running Dask scheduler)")
    wait_s = no_worker_wait() if backend == "dask" else 0.0  # a bad SIMSUITE_NO_WORKER_S before any folder is made
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise SimsuiteError(f"--out {out}: exists and is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SimsuiteError(f"--out {out}: cannot create it: {exc}") from None
    ident = identity(seed, hands, chunk, policy, mode)
    with R.RunLock(out, break_lock), terminate_as_interrupt():  # SIGTERM like Ctrl-C: manifest marked, lock freed
        return _collect(
            out, ident, jobs, backend, scheduler, wait_s, quiet, command or ["simsuite", "learn", "collect"]
        )


def _manifest(out: Path, ident: dict, command: list[str]) -> dict:
    path = out / R.MANIFEST
    chunks = [
        {"id": f"{i:06d}", "start": s, "stop": min(s + ident["chunk"], ident["hands"]), "status": "todo"}
        for i, s in enumerate(range(0, ident["hands"], ident["chunk"]))
    ]
    fresh = {
        "format": FORMAT,
        "identity": ident,
        "identity_hash": json_hash(ident),
        "package_version": package_version(),
        "created": utc_now(),
        "status": "running",
        "chunks": chunks,
        "sessions": [],
    }
    if not path.exists():
        if any(p for p in out.iterdir() if p.name != R.LOCK):
            raise SimsuiteError(f"--out {out}: not empty and holds no collection; choose an empty or new folder")
        return fresh
    m = load_manifest(out)
    if m["identity_hash"] != fresh["identity_hash"]:
        diff = [k for k in ident if m["identity"].get(k) != ident[k]]
        raise SimsuiteError(
            f"{out} holds another collection ({', '.join(diff)} differ); choose another --out, or "
            f"give the same options to resume it"
        )
    for c in m["chunks"]:
        if c["status"] == R.DONE and _part_problem(out, m, c):
            c["status"] = "todo"  # a missing or damaged part is played again
    return m


def _part_problem(folder: Path, m: dict, chunk: dict) -> str | None:
    path = R.part_path(folder, KIND, chunk["id"])
    problem = R.part_problem(path, KIND, chunk["id"], m["identity_hash"], chunk.get("rows"), list(_schema()))
    return f"part {path} {problem}" if problem else None


def load_manifest(folder: str | Path) -> dict:
    """A collection's manifest, or one line saying why it is not one."""
    if not Path(folder).is_dir():
        raise SimsuiteError(f"{folder}: not a folder; a collection is the folder `simsuite learn collect` wrote")
    path = Path(folder) / R.MANIFEST
    try:
        m = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SimsuiteError(f"{folder}: no {R.MANIFEST}; not a collection of `simsuite learn collect`") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise SimsuiteError(f"{path}: not readable ({' '.join(str(exc).split())})") from None
    if (
        not isinstance(m, dict)
        or m.get("format") != FORMAT
        or not isinstance(m.get("chunks"), list)
        or not isinstance(m.get("identity"), dict)
    ):
        raise SimsuiteError(f"{path}: not the manifest of a collection of `simsuite learn collect`")
    if m.get("identity_hash") != json_hash(m["identity"]):  # an edited identity would be copied into a model's card
        raise SimsuiteError(
            f"{path}: its identity does not match its identity_hash (the manifest was edited); collect the data again"
        )
    return m


def _results(tasks: list[dict], jobs: int, client, wait_s: float, scheduler: str | None):
    import joblib

    from ..sim.executor import local_processes

    if client is not None:  # every chunk a task on the cluster's workers, whatever their thread count
        yield from play_on_cluster(client, _chunk_task, tasks, wait_s, scheduler or "?")
        return
    if jobs == 1:
        for t in tasks:
            yield _chunk_task(t)
        return
    with local_processes():
        yield from joblib.Parallel(n_jobs=jobs, return_as="generator_unordered")(
            joblib.delayed(_chunk_task)(t) for t in tasks
        )


def _collect(
    out: Path,
    ident: dict,
    jobs: int,
    backend: str,
    scheduler: str | None,
    wait_s: float,
    quiet: bool,
    command: list[str],
) -> Path:
    from ..engine.warm import warm_up
    from ..sim.executor import dask_client
    from ..sim.spec import ExecOptions

    m = _manifest(out, ident, command)
    todo = [c for c in m["chunks"] if c["status"] != R.DONE]
    session = {
        "command": command,
        "started": utc_now(),
        "ended": None,
        "jobs": jobs,
        "backend": backend,
        "scheduler": scheduler,
        "chunks_played": 0,
        "hosts": [],
        "worker_processes": 0,
        "status": "running",
    }
    ran_in: set = set()  # (host, pid) of every process that played a chunk of this session
    m["sessions"].append(session)
    R.remove_stale(out, {c["id"] for c in m["chunks"] if c["status"] == R.DONE})
    R.write_manifest(out, m)
    resume = shlex.join(command)
    if not todo:
        session.update(ended=utc_now(), status="complete")
        m["status"] = "complete"
        R.write_manifest(out, m)
        if not quiet:
            print(f"{out}: complete already ({len(m['chunks'])} chunks); nothing to do", file=sys.stderr)
        return out
    client = dask_client(ExecOptions(jobs=jobs, backend=backend, scheduler=scheduler)) if backend == "dask" else None
    tasks = [
        {
            "id": c["id"],
            "seed": ident["seed"],
            "start": c["start"],
            "stop": c["stop"],
            "policy": ident["policy"],
            "mode": ident.get("mode", "hands"),
        }
        for c in todo
    ]
    by_id = {c["id"]: c for c in m["chunks"]}
    status = "running"
    failure = None
    backend_error: BaseException | None = None
    t0 = time.perf_counter()
    played = decisions = 0
    gen = None
    try:
        if client is None:
            warm_up(policies=ident["policy"], loop="hands")  # compiled once here; the workers load it
            t0 = time.perf_counter()
        gen = _results(tasks, jobs, client, wait_s, scheduler)
        while True:
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
            _, cid, frame, secs, where = res
            try:
                R.write_part(out, KIND, cid, frame, m["identity_hash"])
            except OSError as exc:
                raise SimsuiteError(f"cannot write chunk {cid} in {out}: {exc}") from None
            c = by_id[cid]
            n_dec = frame.select(pl.struct("hand", "decision").n_unique()).item() if frame.height else 0
            c.update(status=R.DONE, rows=frame.height, decisions=n_dec, seconds=round(secs, 3), ran_on=where)
            session["chunks_played"] += 1
            ran_in.add((where["host"], where["pid"]))
            session.update(hosts=sorted({h for h, _ in ran_in}), worker_processes=len(ran_in))
            played += c["stop"] - c["start"]
            decisions += n_dec
            R.write_manifest(out, m)
            if not quiet and sys.stderr.isatty():
                rate = decisions / max(time.perf_counter() - t0, 1e-9)
                print(f"\r{played:,} hands, {decisions:,} decisions ({rate:,.0f}/s)", end="", file=sys.stderr)
        status = "failed" if failure or backend_error else "complete"
    except KeyboardInterrupt:
        status = "interrupted"
        raise
    except BaseException:
        status = "failed"
        raise
    finally:
        if gen is not None:
            with contextlib.suppress(Exception):
                gen.close()
        if client is not None:
            client.close()
        done = sum(c["status"] == R.DONE for c in m["chunks"])
        session.update(ended=utc_now(), status=status)
        m["status"] = "complete" if done == len(m["chunks"]) else status
        R.write_manifest(out, m)
        if status == "interrupted":  # on a line of its own, after the progress line
            print("\n" + interrupted_note(done, len(m["chunks"]), out, resume), file=sys.stderr)
    stopped = stopped_error(backend_error, what="collection", backend=backend, done=done, out=out, resume=resume)
    if stopped is not None:
        raise stopped
    if failure is not None:
        _, cid, message, _where = failure
        c = by_id[cid]
        raise SimsuiteError(
            f"chunk {cid} (hands {c['start']}-{c['stop'] - 1}) failed: {message}; the {done} "
            f"completed chunk(s) are kept in {out}; resume with: {resume}"
        )
    if not quiet:
        secs = time.perf_counter() - t0
        print(
            f"\r{out}: {played:,} hands, {decisions:,} decisions in {secs:.1f} s "
            f"({decisions / max(secs, 1e-9):,.0f} decisions/s, {jobs} job(s))",
            file=sys.stderr,
        )
    return out


def load_decisions(folder: str | Path) -> pl.LazyFrame:
    """A complete collection's decisions (every part checked against the manifest)."""
    folder = Path(folder)
    m = load_manifest(folder)
    missing = [c["id"] for c in m["chunks"] if c.get("status") != R.DONE]
    if missing:
        raise SimsuiteError(
            f"{folder}: {len(missing)} of {len(m['chunks'])} chunks are not collected yet (first: "
            f"{missing[0]}); finish it with the command in its manifest"
        )
    if m["identity"].get("features_hash") != features_hash():
        raise SimsuiteError(f"{folder}: collected with another feature list than this version computes; collect again")
    bad = [(c["id"], p) for c in m["chunks"] if (p := _part_problem(folder, m, c))]
    if bad:
        raise SimsuiteError(
            f"{folder}: {len(bad)} damaged part(s); chunk {bad[0][0]}'s {bad[0][1]}; run the "
            f"collection's command again to replay it"
        )
    return pl.scan_parquet([R.part_path(folder, KIND, c["id"]) for c in m["chunks"]])
