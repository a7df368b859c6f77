"""Run specs and their validation: what ``simulate`` plays, checked and turned into a plan before
any work is done (docs/harness.md).

A ``RunSpec`` (or a sweep, ``sim.sweep``) becomes a ``Plan``: its *cells* (one rule set and one
policy pairing each, ``matches`` matches) with the seed, the chunk size and the output folder,
plus the ``ExecOptions`` saying how to play it. Everything a user can get wrong (a key, a value,
the backend, the output folder, a run too big for memory) is refused here with one line.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine.hand import N_RECORD
from ..engine.names import pair_text, parse_policies
from ..errors import SimsuiteError
from ..rules.variant import SPEC_BY_NAME, Variant, load_variant, override_keys, unknown_key_problem
from . import results as R
from .limits import check_int, check_jobs, check_memory, check_seed
from .match import hand_cap, play_match_batch
from .results import json_hash

DEFAULT_CHUNK = 50
DEFAULT_MATCHES = 1000
PILOT_MATCHES = 20
BACKENDS = ("loky", "dask")
# what a Dask scheduler address looks like: scheme://host[:port] or host:port
SCHEDULER_ADDRESS = re.compile(r"^((tcp|tls|inproc|ucx|ws|wss)://[\w.\-\[\]:]+|[\w.\-]+:\d+)/?$")
# memory estimates (docs/harness.md, "Limits"): a chunk's entry in the driver's manifest, and a
# hand slot in a worker's arrays (the record, the levels, and the rows built from them)
MANIFEST_BYTES_PER_CHUNK = 2_000  # a done chunk in memory (its checksums and where it ran included) and in JSON
# the manifest is rewritten as chunks finish, so its size bounds a run whatever the memory
MAX_CHUNKS = 1_000_000
HAND_SLOT_BYTES = (N_RECORD + 2) * 8 * 3
DASK_DEFAULT_PORT = 8786
LIST_KINDS = ("rank_list", "str_list", "choice_list", "int_list")


# --- the run spec ---------------------------------------------------------------------------------


@dataclass
class RunSpec:
    """What ``simulate`` plays. ``overrides`` is a list of ``"key=value"`` strings (as given to
    ``--set``) or a dict of typed values. ``policies`` is ``"A,B"``: A sits N-S, B E-W (one name
    plays both). Give ``matches`` or ``hands`` (hands per cell, converted to matches by a pilot
    of 20 matches); neither means 1000 matches."""

    variants: Sequence[str] = ("school-2016",)
    overrides: Sequence[str] | Mapping[str, Any] = ()
    policies: str = "expert,basic"
    matches: int | None = None
    hands: int | None = None
    seed: int = 1
    jobs: int = 1
    backend: str = "loky"
    scheduler: str | None = None
    duplicate: bool = False
    out: str | Path | None = None
    chunk: int = DEFAULT_CHUNK
    quiet: bool = False
    command: Sequence[str] | None = None  # the command line, for the manifest and the resume hint
    break_lock: bool = False  # remove a stale lock left by a run that died (docs/harness.md)


@dataclass
class Cell:
    """One rule set with one policy pairing: ``matches`` matches, ids ``0 .. matches-1``."""

    id: str
    variant: Variant
    given: str  # the id or path the variant was given as (for the reproduce hint)
    overrides: dict
    policies: tuple[str, str]
    matches: int = 0


@dataclass
class Plan:
    kind: str  # "simulate" or "sweep"
    cells: list[Cell]
    seed: int
    duplicate: bool
    chunk: int
    out: Path
    command: list[str]
    extra: dict = field(default_factory=dict)


@dataclass
class ExecOptions:
    jobs: int = 1
    backend: str = "loky"
    scheduler: str | None = None
    quiet: bool = False
    break_lock: bool = False
    scratch: bool = False  # the folder is a temporary one its caller removes (calibrate): nothing is kept to resume


# --- small validators -----------------------------------------------------------------------------


def _bool_text(text: str) -> bool:
    low = text.strip().lower()
    if low == "true":
        return True
    if low == "false":
        return False
    raise ValueError("expected true or false")


def parse_override_value(key: str, text: str, flag: str = "--set") -> Any:
    """``--set key=value``: the value typed by the field's kind (int, float, bool, str, rank, or a
    comma-separated list); ``flag`` names the option in a message (``--grid`` gives one value of its list)."""
    if key not in SPEC_BY_NAME or key not in override_keys():
        raise SimsuiteError(f"{flag}: {unknown_key_problem(key)}")
    spec = SPEC_BY_NAME[key]
    text = text.strip()
    try:
        if spec.kind == "int":
            try:
                return int(text)
            except ValueError:
                raise ValueError("expected an integer") from None
        if spec.kind == "float":
            try:
                return float(text)
            except ValueError:
                raise ValueError("expected a number") from None
        if spec.kind == "bool":
            return _bool_text(text)
        if spec.kind == "int_list":
            return [int(x) for x in text.split(",") if x.strip()]
        if spec.kind in LIST_KINDS:
            return [x.strip() for x in text.split(",") if x.strip()]
        return text  # str, rank, choice: checked by the variant's validation
    except ValueError as exc:
        raise SimsuiteError(f"{flag} {key}={text}: {exc} ({spec.kind} field: {spec.doc})") from None


def parse_overrides(items: Sequence[str] | Mapping[str, Any]) -> dict:
    if isinstance(items, Mapping):
        for key in items:
            if key not in override_keys():
                raise SimsuiteError(f"overrides: {unknown_key_problem(key)}")
        return dict(items)
    out: dict = {}
    for item in items:
        if "=" not in item:
            raise SimsuiteError(f"--set expects key=value; got {item!r}")
        key, value = item.split("=", 1)
        key = key.strip()
        if key in out:
            raise SimsuiteError(f"--set {key} is given twice")
        out[key] = parse_override_value(key, value)
    return out


def format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "/".join(format_value(v) for v in value)
    return str(value)


def check_playable(variant: Variant, label: str) -> None:
    """The engine can play ``variant``, and its matches end (one line naming ``label`` if not)."""
    from ..engine.params import engine_ready

    engine_ready(variant, label)
    hand_cap(variant)


def check_exec(opts: ExecOptions) -> None:
    check_jobs("--jobs", opts.jobs)
    if opts.backend not in BACKENDS:
        raise SimsuiteError(f"--backend must be one of {', '.join(BACKENDS)}; got {opts.backend!r}")
    if opts.backend == "dask" and not opts.scheduler:
        raise SimsuiteError("--backend dask needs --scheduler ADDRESS (e.g. tcp://host:8786; see docs/harness.md)")
    if opts.scheduler and opts.backend != "dask":
        raise SimsuiteError("--scheduler is for --backend dask")
    if opts.scheduler:
        scheduler_host_port(opts.scheduler)


def scheduler_host_port(address: str) -> tuple[str, tuple[str, int] | None]:
    """The scheme and (for tcp and tls) host and port of a scheduler address, parsed as
    distributed parses it, so that a bad address never reaches ``Client`` (whose failed
    construction prints an "Exception ignored in Client.__del__" traceback)."""
    problem = f"--scheduler {address!r} is not a scheduler address; give scheme://host:port (e.g. tcp://10.0.0.5:8786) or host:port"
    if not SCHEDULER_ADDRESS.match(address):
        raise SimsuiteError(problem)
    try:
        from distributed.comm.addressing import parse_address, parse_host_port

        scheme, loc = parse_address(address)
        return scheme, parse_host_port(loc, DASK_DEFAULT_PORT) if scheme in ("tcp", "tls") else None
    except ImportError:
        return "tcp", None  # dask_client says how to install distributed
    except (ValueError, TypeError) as exc:
        raise SimsuiteError(f"{problem} ({' '.join(str(exc).split())})") from None


def check_out(out: Path) -> None:
    """Refuse an output path that is not a folder or cannot be written."""
    loop = R.link_problem(out)
    if loop:
        raise SimsuiteError(f"--out {out}: cannot use it: {loop}")
    if out.exists():
        if not out.is_dir():
            raise SimsuiteError(f"--out {out}: exists and is not a folder")
        if not os.access(out, os.W_OK | os.X_OK):
            raise SimsuiteError(f"--out {out}: the folder is not writable")
        if not (out / R.MANIFEST).is_file() and not _unstarted(out):
            raise SimsuiteError(
                f"--out {out}: the folder exists and is not a simsuite run (no {R.MANIFEST}); "
                "choose another --out or delete it"
            )
        return
    parent = out.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise SimsuiteError(f"--out {out}: cannot create it: {parent} is a file, not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise SimsuiteError(f"--out {out}: cannot create it: {parent} is not writable")


def _unstarted(out: Path) -> bool:
    """A folder that holds nothing, or only what a run leaves before its manifest: empty part
    folders, its lock (reported when the run takes the lock) and temporary files."""
    for p in out.iterdir():
        if p.name in R.KINDS and p.is_dir() and not any(p.iterdir()):
            continue
        if p.name == R.LOCK or p.name.startswith(R.TMP_PREFIX):
            continue
        return False
    return True


def check_run_size(cells: list[Cell], chunk: int, what: str) -> None:
    """Refuse, before any play, a run whose manifest (in the driver) or chunk arrays (in each
    worker) would not fit in memory; the message gives the estimate."""
    chunks = sum(math.ceil(c.matches / chunk) for c in cells)
    if chunks > MAX_CHUNKS:
        raise SimsuiteError(
            f"{what}: {chunks:,} chunks of {chunk:,} matches, more than the {MAX_CHUNKS:,} a run's "
            "manifest tracks; play fewer matches, or more per chunk (--chunk)"
        )
    check_memory(
        f"{what}: {chunks:,} chunks of {chunk:,} matches",
        chunks * MANIFEST_BYTES_PER_CHUNK,
        "play fewer matches, or more per chunk (--chunk)",
    )
    for c in cells:
        per_chunk = min(chunk, c.matches) * hand_cap(c.variant) * HAND_SLOT_BYTES
        check_memory(
            f"{what}: cell {c.id}: a chunk of {min(chunk, c.matches):,} matches of up to {hand_cap(c.variant):,} hands",
            per_chunk,
            "use a smaller --chunk",
        )


def check_hands_bound(cells: list[Cell], hands: int | None, chunk: int, duplicate: bool, what: str) -> None:
    """Before the pilot: even if every match took its most hands, ``hands`` needs this many matches."""
    if hands is None:
        return
    tables = 2 if duplicate else 1
    fewest = [
        Cell(
            c.id, c.variant, c.given, c.overrides, c.policies, max(1, math.ceil(hands / (hand_cap(c.variant) * tables)))
        )
        for c in cells
    ]
    check_run_size(fewest, chunk, what)


# --- building plans -------------------------------------------------------------------------------


def _make_variant(given: str, overrides: Mapping[str, Any], label: str) -> Variant:
    base = load_variant(given)
    v = base.with_overrides(dict(overrides), source=label) if overrides else base
    check_playable(v, label)
    return v


def plan_simulate(spec: RunSpec) -> tuple[Plan, ExecOptions]:
    """Validate a ``RunSpec`` and turn it into a plan (no work done, nothing written)."""
    opts = ExecOptions(spec.jobs, spec.backend, spec.scheduler, spec.quiet, spec.break_lock)
    check_exec(opts)
    variants = [spec.variants] if isinstance(spec.variants, str) else list(spec.variants)
    if not variants:
        raise SimsuiteError("give at least one --variant")
    overrides = parse_overrides(spec.overrides)
    policies = parse_policies(spec.policies, "--policies")
    seed = check_seed("--seed", spec.seed)
    chunk = check_int("--chunk", spec.chunk, 1)
    if spec.matches is not None and spec.hands is not None:
        raise SimsuiteError("give --matches or --hands, not both")
    if spec.matches is not None:
        check_int("--matches", spec.matches, 1)
    if spec.hands is not None:
        check_int("--hands", spec.hands, 1)
    cells: list[Cell] = []
    for given in variants:
        v = _make_variant(given, overrides, f"{given} with --set" if overrides else given)
        if any(c.id == v.id for c in cells):
            raise SimsuiteError(f"variant {v.id!r} is given twice")
        cells.append(Cell(v.id, v, str(given), dict(overrides), policies))
    if spec.out is not None:
        out = Path(spec.out)
    else:  # a name that the same command always gives again, so that running it again resumes
        ident = [[c.id, c.variant.rules_hash, c.policies] for c in cells] + [
            seed,
            bool(spec.duplicate),
            chunk,
            spec.matches,
            spec.hands,
        ]
        out = Path("results") / f"{'+'.join(c.id for c in cells)}-seed{seed}-{json_hash(ident)[:8]}"
    check_out(out)
    what = (
        f"--matches {spec.matches:,}"
        if spec.matches is not None
        else (f"--hands {spec.hands:,}" if spec.hands is not None else "the run")
    )
    check_hands_bound(cells, spec.hands, chunk, bool(spec.duplicate), what)
    set_matches(cells, spec.matches, spec.hands, seed, bool(spec.duplicate))
    check_run_size(cells, chunk, what)
    command = list(spec.command) if spec.command else _simulate_command(spec, variants, out)
    plan = Plan(
        "simulate",
        cells,
        seed,
        bool(spec.duplicate),
        chunk,
        out,
        command,
        {"overrides": overrides, "matches_from_hands": spec.hands},
    )
    return plan, opts


def _simulate_command(spec: RunSpec, variants: list[str], out: Path) -> list[str]:
    cmd = ["simsuite", "simulate"]
    for v in variants:
        cmd += ["--variant", str(v)]
    ov = spec.overrides.items() if isinstance(spec.overrides, Mapping) else [s.split("=", 1) for s in spec.overrides]
    for k, v in ov:
        cmd += ["--set", f"{k}={v if isinstance(v, str) else format_value(v).replace('/', ',')}"]
    cmd += ["--policies", spec.policies]
    cmd += (
        ["--hands", str(spec.hands)] if spec.hands is not None else ["--matches", str(spec.matches or DEFAULT_MATCHES)]
    )
    cmd += ["--seed", str(spec.seed), "--out", str(out), "--chunk", str(spec.chunk)]
    if spec.duplicate:
        cmd.append("--duplicate")
    return cmd


def set_matches(cells: list[Cell], matches: int | None, hands: int | None, seed: int, duplicate: bool) -> None:
    """Matches per cell: given, or from ``hands`` by a pilot of the first 20 matches of each cell:
    matches = ceil(hands / (mean hands per match x tables)), tables 2 with duplicate."""
    if hands is None:
        for c in cells:
            c.matches = matches or DEFAULT_MATCHES
        return
    for c in cells:
        batch = play_match_batch(c.variant, seed, 0, PILOT_MATCHES, pair_text(c.policies))
        per_match = max(float(batch.hand_count.mean()), 1.0) * (2 if duplicate else 1)
        c.matches = max(1, math.ceil(hands / per_match))
