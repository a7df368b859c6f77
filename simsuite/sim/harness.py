"""The Monte Carlo harness: chunks of matches, played in parallel, written to a results store.

``simulate(spec)`` plays N matches of one or more variants; ``sweep(spec_path, out)`` plays a
grid of rule settings read from a TOML file. Both validate everything before any work, split the
work into *cells* (one rule set and one policy pairing each) and *chunks* (``chunk`` matches of
one cell), play the chunks through joblib (local processes with ``loky``, or a Dask cluster) and
write each chunk's parts and the manifest as results arrive (``simsuite.sim.results``).

Seeds: match ``i`` of a run with root seed ``S`` is always played from the same generator state,
whatever the chunking, ``--jobs`` or backend, and in every cell: cells with the same deck count
see the same deals (common random numbers). With ``duplicate`` every match is played twice, the
second time with the teams' policies swapped (``swapped`` is true on those rows).

Running the same command again resumes: only the chunks the manifest marks missing are played.
See docs/harness.md.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import itertools
import json
import math
import os
import re
import shlex
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from ..engine.hand import N_RECORD
from ..errors import SimsuiteError, VariantError, read_toml
from .limits import MAX_SEED, check_int, check_memory, check_seed
from ..compete.match import hand_cap, play_match_batch
from ..rules.variant import MAX_DECKS, SPEC_BY_NAME, Variant, load_variant, override_keys
from . import results as R

DEFAULT_CHUNK = 50
DEFAULT_MATCHES = 1000
PILOT_MATCHES = 20
SCHEDULER_TIMEOUT_S = 3
MANIFEST_EVERY_S = 0.5  # the manifest is rewritten after a chunk at most this often (always at the end)
BACKENDS = ("loky", "dask")
# what a Dask scheduler address looks like: scheme://host[:port] or host:port
SCHEDULER_ADDRESS = re.compile(r"^((tcp|tls|inproc|ucx|ws|wss)://[\w.\-\[\]:]+|[\w.\-]+:\d+)/?$")
# memory estimates (docs/harness.md, "Limits"): a chunk's entry in the driver's manifest, and a
# hand slot in a worker's arrays (the record, the levels, and the rows built from them)
MANIFEST_BYTES_PER_CHUNK = 1_000
# the manifest is rewritten as chunks finish, so its size bounds a run whatever the memory
MAX_CHUNKS = 1_000_000
HAND_SLOT_BYTES = (N_RECORD + 2) * 8 * 3
DASK_DEFAULT_PORT = 8786
PARENT_POLL_S = 0.5  # how often a worker checks that the driver is alive
EXIT_ORPHANED = 70  # a worker whose driver died exits with this status
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


# --- small validators -----------------------------------------------------------------------------


def _bool_text(text: str) -> bool:
    low = text.strip().lower()
    if low == "true":
        return True
    if low == "false":
        return False
    raise ValueError("expected true or false")


def parse_override_value(key: str, text: str) -> Any:
    """``--set key=value``: the value typed by the field's kind (int, float, bool, str, rank, or a
    comma-separated list)."""
    if key not in SPEC_BY_NAME or key not in override_keys():
        raise SimsuiteError(f"--set: unknown key {key!r}; valid keys: {', '.join(override_keys())}")
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
        raise SimsuiteError(f"--set {key}={text}: {exc} ({spec.kind} field: {spec.doc})") from None


def parse_overrides(items: Sequence[str] | Mapping[str, Any]) -> dict:
    if isinstance(items, Mapping):
        for key in items:
            if key not in override_keys():
                raise SimsuiteError(f"unknown override key {key!r}; valid keys: {', '.join(override_keys())}")
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


def _format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "/".join(_format_value(v) for v in value)
    return str(value)


def _cell_value(key: str, value: Any) -> str:
    """A grid value in a cell id: lists and policy pairs joined by "/" (the id separates keys by ",")."""
    if key == "policies" and isinstance(value, str):
        return "/".join(x.strip() for x in value.split(","))
    return _format_value(value)


def parse_policies(text: Any, where: str = "policies", from_file: bool = False) -> tuple[str, str]:
    """``"A,B"`` (or one name for both teams) of built-in policies. An import path is refused
    without importing it: Python policies cannot run in the compiled match loop, and a data file
    (``from_file``) must never make simsuite run code."""
    from ..engine.api import policy_code
    from ..engine.policies import POLICY_NAMES

    if not isinstance(text, str) or not text.strip():
        raise SimsuiteError(f"{where}: give two policies A,B (team N-S, team E-W); got {text!r}")
    names = [n.strip() for n in text.split(",")]
    if len(names) == 1:
        names = names * 2
    if len(names) != 2 or not all(names):
        raise SimsuiteError(f"{where}: give two policies A,B (team N-S, team E-W); got {text!r}")
    for name in names:
        if policy_code(name) is not None:
            continue
        if ":" not in name and not name.endswith(".py"):
            raise SimsuiteError(f"{where}: unknown policy {name!r}; built-in policies: {', '.join(POLICY_NAMES)}")
        if from_file:
            raise SimsuiteError(f"{where}: {name!r} is a Python import path; a spec file names built-in policies "
                                f"only ({', '.join(POLICY_NAMES)}) and never loads code (it was not imported)")
        raise SimsuiteError(f"{where}: policy {name!r} is a Python policy; Python policies cannot run in the "
                            f"compiled match loop, so the harness plays only the built-in policies "
                            f"({', '.join(POLICY_NAMES)}); play Python policies with simsuite.play.pyhand")
    return names[0], names[1]


def _engine_ready(variant: Variant, label: str) -> None:
    from ..engine.params import compile_variant

    try:
        compile_variant(variant)
        hand_cap(variant)
    except SimsuiteError:
        raise
    except ValueError as exc:
        raise SimsuiteError(f"{label}: the compiled engine cannot play this variant: {exc}") from None


def _check_exec(opts: ExecOptions) -> None:
    if isinstance(opts.jobs, bool) or not isinstance(opts.jobs, int) or opts.jobs == 0 or opts.jobs < -1:
        raise SimsuiteError(f"--jobs must be a positive number of processes, or -1 for one per core; got {opts.jobs!r}")
    if opts.backend not in BACKENDS:
        raise SimsuiteError(f"--backend must be one of {', '.join(BACKENDS)}; got {opts.backend!r}")
    if opts.backend == "dask" and not opts.scheduler:
        raise SimsuiteError("--backend dask needs --scheduler ADDRESS (e.g. tcp://host:8786; see docs/harness.md)")
    if opts.scheduler and opts.backend != "dask":
        raise SimsuiteError("--scheduler is for --backend dask")
    if opts.scheduler:
        _scheduler_host_port(opts.scheduler)


def _scheduler_host_port(address: str) -> tuple[str, tuple[str, int] | None]:
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
        return "tcp", None  # _connect says how to install distributed
    except (ValueError, TypeError) as exc:
        raise SimsuiteError(f"{problem} ({' '.join(str(exc).split())})") from None


def check_out(out: Path) -> None:
    """Refuse an output path that is not a folder or cannot be written."""
    if out.exists():
        if not out.is_dir():
            raise SimsuiteError(f"--out {out}: exists and is not a folder")
        if not os.access(out, os.W_OK | os.X_OK):
            raise SimsuiteError(f"--out {out}: the folder is not writable")
        if not (out / R.MANIFEST).is_file() and not _unstarted(out):
            raise SimsuiteError(f"--out {out}: the folder exists and is not a simsuite run (no {R.MANIFEST}); "
                                "choose another --out or delete it")
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
        raise SimsuiteError(f"{what}: {chunks:,} chunks of {chunk:,} matches, more than the {MAX_CHUNKS:,} a run's "
                            "manifest tracks; play fewer matches, or more per chunk (--chunk)")
    check_memory(f"{what}: {chunks:,} chunks of {chunk:,} matches", chunks * MANIFEST_BYTES_PER_CHUNK,
                 "play fewer matches, or more per chunk (--chunk)")
    for c in cells:
        per_chunk = min(chunk, c.matches) * hand_cap(c.variant) * HAND_SLOT_BYTES
        check_memory(f"{what}: cell {c.id}: a chunk of {min(chunk, c.matches):,} matches of up to "
                     f"{hand_cap(c.variant):,} hands", per_chunk, "use a smaller --chunk")


def _check_hands_bound(cells: list[Cell], hands: int | None, chunk: int, duplicate: bool, what: str) -> None:
    """Before the pilot: even if every match took its most hands, ``hands`` needs this many matches."""
    if hands is None:
        return
    tables = 2 if duplicate else 1
    fewest = [Cell(c.id, c.variant, c.given, c.overrides, c.policies,
                   max(1, math.ceil(hands / (hand_cap(c.variant) * tables)))) for c in cells]
    check_run_size(fewest, chunk, what)


# --- building plans -------------------------------------------------------------------------------


def _make_variant(given: str, overrides: Mapping[str, Any], label: str) -> Variant:
    base = load_variant(given)
    v = base.with_overrides(dict(overrides), source=label) if overrides else base
    _engine_ready(v, label)
    return v


def _policy_pairs_text(pair: tuple[str, str]) -> str:
    return f"{pair[0]},{pair[1]}"


def plan_simulate(spec: RunSpec) -> tuple[Plan, ExecOptions]:
    """Validate a ``RunSpec`` and turn it into a plan (no work done, nothing written)."""
    opts = ExecOptions(spec.jobs, spec.backend, spec.scheduler, spec.quiet, spec.break_lock)
    _check_exec(opts)
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
        ident = [[c.id, c.variant.rules_hash, c.policies] for c in cells] + [seed, bool(spec.duplicate), chunk,
                                                                               spec.matches, spec.hands]
        out = Path("results") / f"{'+'.join(c.id for c in cells)}-seed{seed}-{_hash(ident)[:8]}"
    check_out(out)
    what = f"--matches {spec.matches:,}" if spec.matches is not None else (
        f"--hands {spec.hands:,}" if spec.hands is not None else "the run")
    _check_hands_bound(cells, spec.hands, chunk, bool(spec.duplicate), what)
    _set_matches(cells, spec.matches, spec.hands, seed, bool(spec.duplicate))
    check_run_size(cells, chunk, what)
    command = list(spec.command) if spec.command else _simulate_command(spec, variants, out)
    plan = Plan("simulate", cells, seed, bool(spec.duplicate), chunk, out, command,
                {"overrides": overrides, "matches_from_hands": spec.hands})
    return plan, opts


def _simulate_command(spec: RunSpec, variants: list[str], out: Path) -> list[str]:
    cmd = ["simsuite", "simulate"]
    for v in variants:
        cmd += ["--variant", str(v)]
    ov = spec.overrides.items() if isinstance(spec.overrides, Mapping) else [s.split("=", 1) for s in spec.overrides]
    for k, v in ov:
        cmd += ["--set", f"{k}={v if isinstance(v, str) else _format_value(v).replace('/', ',')}"]
    cmd += ["--policies", spec.policies]
    cmd += ["--hands", str(spec.hands)] if spec.hands is not None else ["--matches", str(spec.matches or DEFAULT_MATCHES)]
    cmd += ["--seed", str(spec.seed), "--out", str(out), "--chunk", str(spec.chunk)]
    if spec.duplicate:
        cmd.append("--duplicate")
    return cmd


def _set_matches(cells: list[Cell], matches: int | None, hands: int | None, seed: int, duplicate: bool) -> None:
    """Matches per cell: given, or from ``hands`` by a pilot of the first 20 matches of each cell:
    matches = ceil(hands / (mean hands per match x tables)), tables 2 with duplicate."""
    if hands is None:
        for c in cells:
            c.matches = matches or DEFAULT_MATCHES
        return
    for c in cells:
        batch = play_match_batch(c.variant, seed, 0, PILOT_MATCHES, _policy_pairs_text(c.policies))
        per_match = max(float(batch.hand_count.mean()), 1.0) * (2 if duplicate else 1)
        c.matches = max(1, math.ceil(hands / per_match))


# --- sweeps ---------------------------------------------------------------------------------------

SWEEP_KEYS = ("base", "variants", "matches", "hands", "seed", "policies", "duplicate", "chunk", "grid", "cells",
              "decks_scaling")
SPECIAL_GRID_KEYS = ("policies", "decks")
SCALED_BY_DECKS = ("bottom_size", "takeover", "step")


def _round5(x: float) -> int:
    return max(5, int(math.floor(x / 5.0 + 0.5)) * 5)


def scale_decks(base: Variant, decks: int, table: Mapping[str, Any] | None = None) -> dict:
    """Overrides that move ``base`` to ``decks`` decks with bottom and thresholds scaled alike.

    A ``[decks_scaling]`` entry for this deck count (``2 = { bottom_size = 8, ... }``) is used
    as given. Otherwise the rule: the bottom is proportional to the cards (the nearest size that
    deals evenly to four players, the smaller on a tie); ``takeover`` and ``step`` are multiplied
    by decks / base decks and rounded to a multiple of 5; ``max_unit`` is lowered to the deck
    count where it must be (turning off wide tractors below 3 and bombs below 4)."""
    out: dict = {"decks": decks}
    entry = (table or {}).get(str(decks))
    if entry is not None:
        out.update(entry)
        return out
    k = decks / base.decks
    target = base.bottom_size * k
    fits = [b for b in range(0, 54 * decks) if (54 * decks - b) % 4 == 0]
    out["bottom_size"] = min(fits, key=lambda b: (abs(b - target), b))
    out["takeover"] = _round5(base.takeover * k)
    out["step"] = _round5(base.step * k)
    if base.max_unit > decks:
        out["max_unit"] = decks
        if decks < 3 and base.wide_tractors:
            out["wide_tractors"] = False
    if decks < 4 and base.bombs:
        out["bombs"] = False
    return out


def _sweep_problems(raw: dict) -> list[str]:
    problems = []
    for key in raw:
        if key not in SWEEP_KEYS:
            problems.append(f"unknown key {key!r}; known keys: {', '.join(SWEEP_KEYS)}")
    if "base" in raw and "variants" in raw:
        problems.append("give base or variants, not both")
    if "base" not in raw and "variants" not in raw:
        problems.append("give base = \"VARIANT\" (or variants = [...])")
    if "base" in raw and not isinstance(raw["base"], str):
        problems.append(f"base must be a variant id or path; got {raw['base']!r}")
    if "variants" in raw and (not isinstance(raw["variants"], list) or not raw["variants"]
                              or not all(isinstance(v, str) for v in raw["variants"])):
        problems.append(f"variants must be a non-empty list of variant ids or paths; got {raw['variants']!r}")
    if "matches" in raw and "hands" in raw:
        problems.append("give matches or hands, not both")
    for key, minimum, maximum in (("matches", 1, None), ("hands", 1, None), ("seed", 0, MAX_SEED), ("chunk", 1, None)):
        try:
            if key in raw:
                check_int(key, raw[key], minimum, maximum)
        except SimsuiteError as exc:
            problems.append(str(exc))
    for where, pol in _spec_policies(raw):
        if isinstance(pol, str) and (":" in pol or ".py" in pol):  # other bad names: by their cell
            try:
                parse_policies(pol, where, from_file=True)
            except SimsuiteError as exc:
                problems.append(str(exc))
    if "duplicate" in raw and not isinstance(raw["duplicate"], bool):
        problems.append(f"duplicate must be true or false; got {raw['duplicate']!r}")
    grids = []
    if "grid" in raw:
        if not isinstance(raw["grid"], dict):
            problems.append("grid must be a table: [grid] with key = [values]")
        else:
            grids.append(("grid", raw["grid"], True))
    if "cells" in raw:
        if not isinstance(raw["cells"], list) or not all(isinstance(t, dict) for t in raw["cells"]):
            problems.append("cells must be an array of tables: [[cells]] with key = value or key = [values]")
        else:
            grids += [(f"cells[{i}]", t, False) for i, t in enumerate(raw["cells"])]
    valid = list(SPECIAL_GRID_KEYS) + override_keys()
    for where, table, lists_only in grids:
        for key, values in table.items():
            if key not in valid:
                problems.append(f"{where}: unknown key {key!r}; valid keys: {', '.join(valid)}")
            elif lists_only and (not isinstance(values, list) or not values):
                problems.append(f"{where}.{key} must be a non-empty list of values; got {values!r}")
            elif isinstance(values, list) and not values:
                problems.append(f"{where}.{key} is an empty list")
    ds = raw.get("decks_scaling")
    if ds is not None:
        if not isinstance(ds, dict):
            problems.append("decks_scaling must be a table: [decks_scaling] with 2 = { bottom_size = ..., ... }")
        else:
            for d, entry in ds.items():
                if not d.isdigit() or not isinstance(entry, dict):
                    problems.append(f"decks_scaling.{d}: write {d} = {{ key = value, ... }} under a deck count")
                    continue
                bad = [k for k in entry if k not in override_keys()]
                if bad:
                    problems.append(f"decks_scaling.{d}: unknown key {bad[0]!r}; valid keys: {', '.join(override_keys())}")
    return problems


def _spec_policies(raw: dict) -> list[tuple[str, Any]]:
    """Every policies value a spec gives (top level, [grid], [[cells]]), checked before any
    cell is built, so no import path in a spec is ever looked at beyond its name."""
    found = [("policies", raw["policies"])] if "policies" in raw else []
    tables = [("grid", raw.get("grid"))] + [(f"cells[{i}]", t) for i, t in enumerate(raw.get("cells") or [])]
    for where, table in tables:
        if isinstance(table, dict) and "policies" in table:
            values = table["policies"] if isinstance(table["policies"], list) else [table["policies"]]
            found += [(f"{where}.policies", v) for v in values]
    return found


def _combos(table: Mapping[str, Any]) -> list[list[tuple[str, Any]]]:
    keys = list(table)
    values = [table[k] if isinstance(table[k], list) else [table[k]] for k in keys]
    return [list(zip(keys, combo)) for combo in itertools.product(*values)]


def read_sweep(spec_path: str | Path) -> dict:
    path = Path(spec_path)
    raw = read_toml(path, "sweep spec")
    problems = _sweep_problems(raw)
    if problems:
        raise VariantError(str(path), problems)
    return raw


def plan_sweep(spec_path: str | Path, out: str | Path, *, jobs: int = 1, backend: str = "loky",
               scheduler: str | None = None, quiet: bool = False, chunk: int | None = None,
               command: Sequence[str] | None = None, break_lock: bool = False) -> tuple[Plan, ExecOptions]:
    """Validate a sweep spec and every one of its cells (all bad cells reported at once)."""
    opts = ExecOptions(jobs, backend, scheduler, quiet, break_lock)
    _check_exec(opts)
    raw = read_sweep(spec_path)
    src = str(spec_path)
    many = "variants" in raw
    bases = raw["variants"] if many else [raw["base"]]
    base_variants = {}
    for b in bases:
        base_variants[b] = load_variant(b)
    default_pol = raw.get("policies", "expert,basic")
    parse_policies(default_pol, f"{src}: policies", from_file=True)
    seed = raw.get("seed", 1)
    chunk = check_int("--chunk", chunk if chunk is not None else raw.get("chunk", DEFAULT_CHUNK), 1)
    combos: list[list[tuple[str, Any]]] = []
    if "grid" in raw:
        combos += _combos(raw["grid"])
    for t in raw.get("cells", []):
        combos += _combos(t)
    if not combos:
        combos = [[]]
    cells: list[Cell] = []
    problems: list[str] = []
    seen: set[str] = set()
    for b in bases:
        base = base_variants[b]
        for combo in combos:
            parts = ([("variant", base.id)] if many else []) + combo
            cid = ",".join(f"{k}={_cell_value(k, v)}" for k, v in parts) or base.id
            if cid in seen:
                problems.append(f"cell {cid!r} appears twice")
                continue
            seen.add(cid)
            try:
                pol = default_pol
                overrides: dict = {}
                for k, v in combo:
                    if k == "decks":
                        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= MAX_DECKS:
                            raise SimsuiteError(f"decks must be a whole number of decks from 1 to {MAX_DECKS}; got {v!r}")
                        overrides.update(scale_decks(base, v, raw.get("decks_scaling")))
                for k, v in combo:
                    if k == "policies":
                        pol = v
                    elif k != "decks":
                        overrides[k] = v
                pair = parse_policies(pol, "policies", from_file=True)
                v = base.with_overrides(overrides, source=cid) if overrides else base
                _engine_ready(v, cid)
                cells.append(Cell(cid, v, b, overrides, pair))
            except SimsuiteError as exc:
                msg = str(exc)
                problems.append(msg if msg.startswith(cid) else f"{cid}: {msg}")
    if problems:
        n = len(problems)
        raise SimsuiteError(f"{src}: {n} bad cell{'s' if n > 1 else ''} of {len(combos) * len(bases)}:\n"
                            + "\n".join(f"  - {p}" for p in problems))
    out = Path(out)
    check_out(out)
    dup = bool(raw.get("duplicate", False))
    what = f"{src}: matches = {raw['matches']:,}" if "matches" in raw else (
        f"{src}: hands = {raw['hands']:,}" if "hands" in raw else src)
    _check_hands_bound(cells, raw.get("hands"), chunk, dup, what)
    _set_matches(cells, raw.get("matches"), raw.get("hands"), seed, dup)
    check_run_size(cells, chunk, what)
    cmd = list(command) if command else ["simsuite", "sweep", src, "--out", str(out)]
    plan = Plan("sweep", cells, seed, bool(raw.get("duplicate", False)), chunk, out, cmd,
                {"spec_path": src, "spec": raw})
    return plan, opts


# --- identity of a run ----------------------------------------------------------------------------


def _identity_of(kind: str, cells: list[Cell], seed: int, duplicate: bool, chunk: int) -> dict:
    return {
        "kind": kind, "seed": seed, "duplicate": duplicate, "chunk_size": chunk,
        "cells": [{"id": c.id, "variant": c.variant.id, "rules_hash": c.variant.rules_hash,
                   "policies": _policy_pairs_text(c.policies), "matches": c.matches} for c in cells],
    }


def _hash(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _identity_diff(there: dict, here: dict) -> str:
    diffs = []
    for key in ("kind", "seed", "duplicate", "chunk_size"):
        if there.get(key) != here.get(key):
            diffs.append(f"{key} {there.get(key)!r} there, {here.get(key)!r} here")
    a, b = there.get("cells") or [], here.get("cells") or []
    ids_a, ids_b = [c.get("id") for c in a], [c.get("id") for c in b]
    if ids_a != ids_b:
        diffs.append(f"cells {', '.join(map(str, ids_a[:4]))}{' …' if len(ids_a) > 4 else ''} there, "
                     f"{', '.join(ids_b[:4])}{' …' if len(ids_b) > 4 else ''} here")
    else:
        for ca, cb in zip(a, b):
            for key in ("rules_hash", "policies", "matches"):
                if ca.get(key) != cb.get(key):
                    what = "rules" if key == "rules_hash" else key
                    diffs.append(f"{ca['id']}: {what} {ca.get(key)!r} there, {cb.get(key)!r} here")
            if len(diffs) >= 3:
                break
    return "; ".join(diffs[:3]) or "a different manifest"


# --- the work -------------------------------------------------------------------------------------


def chunk_list(plan: Plan) -> list[dict]:
    """Chunk ``c`` of cell ``k`` covers matches ``[c*size, min((c+1)*size, matches))``."""
    out = []
    for k, cell in enumerate(plan.cells):
        for c in range(math.ceil(cell.matches / plan.chunk)):
            start = c * plan.chunk
            stop = min(start + plan.chunk, cell.matches)
            out.append({"id": f"{k:04d}-{c:06d}", "cell": cell.id, "start": start, "stop": stop, "status": R.MISSING})
    return out


def _tables(pair: tuple[str, str], duplicate: bool) -> list[tuple[str, str, bool]]:
    """(policy N-S, policy E-W, swapped) of each table a match is played at."""
    a, b = pair
    return [(a, b, False)] + ([(b, a, True)] if duplicate else [])


def play_chunk(task: dict) -> tuple:
    """Play one chunk (in a worker): ``("ok", id, hands, matches, seconds)`` or
    ``("error", id, message, bad_match, policies)``. Never raises for an ordinary error, so
    the driver can name the chunk; KeyboardInterrupt passes through."""
    from .schema import hand_frame, match_frame
    import polars as pl

    t0 = time.perf_counter()
    v: Variant = task["variant"]
    try:
        hparts, mparts = [], []
        for ns, ew, swapped in _tables(task["policies"], task["duplicate"]):
            batch = play_match_batch(v, task["seed"], task["start"], task["stop"] - task["start"], f"{ns},{ew}")
            tags = dict(run=task["run"], variant=v.id, cell=task["cell"], seed=task["seed"], policy_ns=ns,
                        policy_ew=ew, swapped=swapped)
            hparts.append(hand_frame(batch, start_level=v.start_level, **tags))
            mparts.append(match_frame(batch, **tags))
        return ("ok", task["id"], pl.concat(hparts), pl.concat(mparts), time.perf_counter() - t0)
    except Exception as exc:  # noqa: BLE001 - reported by the driver with the chunk's coordinates
        message = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
        bad, pol = _find_bad_match(task)
        return ("error", task["id"], message, bad, pol)


def _find_bad_match(task: dict) -> tuple[int | None, str | None]:
    """Replay the chunk's matches one by one to find the first that fails."""
    for m in range(task["start"], task["stop"]):
        for ns, ew, _ in _tables(task["policies"], task["duplicate"]):
            try:
                play_match_batch(task["variant"], task["seed"], m, 1, f"{ns},{ew}")
            except Exception:  # noqa: BLE001
                return m, f"{ns},{ew}"
    return None, None


class Progress:
    """A one-line progress bar on stderr: matches done, hands per second, ETA."""

    def __init__(self, total: int, enabled: bool, stream=None):
        self.stream = stream or sys.stderr
        self.total = max(total, 1)
        self.enabled = enabled
        self.matches = 0
        self.hands = 0
        self.t0 = time.perf_counter()
        self.last = 0.0

    def update(self, matches: int, hands: int) -> None:
        self.matches += matches
        self.hands += hands
        now = time.perf_counter()
        if self.enabled and (now - self.last > 0.1 or self.matches >= self.total):
            self.last = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        secs = max(now - self.t0, 1e-9)
        rate = self.hands / secs
        frac = min(self.matches / self.total, 1.0)
        eta = (self.total - self.matches) * secs / self.matches if self.matches else float("nan")
        bar = "#" * int(frac * 24) + "." * (24 - int(frac * 24))
        eta_s = "?" if math.isnan(eta) else str(_dt.timedelta(seconds=int(eta)))
        self.stream.write(f"\r[{bar}] {self.matches:,}/{self.total:,} matches  {rate:,.0f} hands/s  ETA {eta_s} ")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self._draw(time.perf_counter())
            self.stream.write("\n")
            self.stream.flush()


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def _package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("simsuite")
    except PackageNotFoundError:
        return "unknown"


def _new_manifest(plan: Plan, identity: dict) -> dict:
    bases: dict[str, dict] = {}
    for c in plan.cells:
        if c.given not in bases:
            b = load_variant(c.given)
            bases[c.given] = {"id": b.id, "given": c.given, "rules_hash": b.rules_hash, "version": b.version}
    return {
        "format": R.FORMAT,
        "kind": plan.kind,
        "run": plan.out.resolve().name,
        "command": plan.command,
        "package_version": _package_version(),
        "variants": list(bases.values()),
        "overrides": plan.extra.get("overrides", {}) if plan.kind == "simulate" else None,
        "policies": sorted({_policy_pairs_text(c.policies) for c in plan.cells}),
        "seed": plan.seed,
        "duplicate": plan.duplicate,
        "chunk_size": plan.chunk,
        "cells": [{"id": c.id, "variant": c.variant.id, "given": c.given, "rules_hash": c.variant.rules_hash,
                   "version": c.variant.version, "overrides": c.overrides,
                   "policies": _policy_pairs_text(c.policies), "matches": c.matches, "decks": c.variant.decks}
                  for c in plan.cells],
        "sweep": plan.extra.get("spec") if plan.kind == "sweep" else None,
        "matches_from_hands": plan.extra.get("matches_from_hands"),
        "identity": identity,
        "identity_hash": _hash(identity)[:16],
        "started": _now(),
        "ended": None,
        "status": "running",
        "sessions": [],
        "chunks": chunk_list(plan),
    }


def _replay_damaged(out: Path, manifest: dict, quiet: bool) -> None:
    """Resume counts a chunk as done only if both its parts are whole (size, Parquet footer,
    columns, tag and rows); any other is marked missing, named on stderr, and played again."""
    bad = R.damaged_parts(out, manifest)
    chunk_of = {R.part_path(out, k, c["id"]): c for c in manifest["chunks"] for k in R.KINDS}
    for path, problem in bad:
        chunk_of[path]["status"] = R.MISSING
        if not quiet:
            print(f"{path}: {problem}; playing chunk {chunk_of[path]['id']} again", file=sys.stderr)


def _prepare_store(plan: Plan, identity: dict, quiet: bool = False) -> dict:
    """Create the run folder, or reopen it for a resume; refuse a folder of a different run."""
    out = plan.out
    if (out / R.MANIFEST).is_file():
        manifest = R.read_manifest(out)
        if manifest.get("identity") != identity:
            raise SimsuiteError(f"{out} holds a different run ({_identity_diff(manifest['identity'], identity)}); "
                                "choose another --out or delete it")
        _replay_damaged(out, manifest, quiet)
        R.remove_stale(out, {c["id"] for c in manifest["chunks"] if c["status"] == R.DONE})
        return manifest
    try:
        out.mkdir(parents=True, exist_ok=True)
        for k in R.KINDS:
            (out / k).mkdir(exist_ok=True)
    except OSError as exc:
        raise SimsuiteError(f"--out {out}: cannot create it: {exc}") from None
    manifest = _new_manifest(plan, identity)
    R.write_manifest(out, manifest)
    return manifest


def _connect(opts: ExecOptions):
    """A ``distributed.Client`` for the Dask backend (a clear error, quickly, if unreachable)."""
    try:
        from distributed import Client
    except ImportError:
        raise SimsuiteError("--backend dask needs the distributed package: pip install 'dask[distributed]'") from None
    scheme, host_port = _scheduler_host_port(opts.scheduler)
    try:
        if scheme == "tcp" and host_port is not None:  # a plain socket first: a failed Client is noisy
            import socket

            socket.create_connection(host_port, timeout=SCHEDULER_TIMEOUT_S).close()
        return Client(opts.scheduler, timeout=f"{SCHEDULER_TIMEOUT_S}s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise SimsuiteError(f"cannot reach the Dask scheduler at {opts.scheduler} within {SCHEDULER_TIMEOUT_S} s "
                            f"({' '.join(str(exc).split())}); start one with `dask scheduler` and workers with "
                            "`dask worker ADDRESS`") from None


def _results(tasks: list[dict], opts: ExecOptions) -> Iterator[tuple]:
    import joblib

    if opts.backend == "dask":  # under the caller's parallel_config(backend="dask")
        par = joblib.Parallel(n_jobs=-1, return_as="generator_unordered")
    else:  # every loky worker, replacements included, watches the driver from its start
        with joblib.parallel_config(backend="loky", initializer=_die_with_driver, initargs=(os.getpid(),)):
            par = joblib.Parallel(n_jobs=opts.jobs, return_as="generator_unordered")
    return par(joblib.delayed(play_chunk)(t) for t in tasks)


def execute(plan: Plan, opts: ExecOptions) -> Path:
    """Play every missing chunk of ``plan`` and write it to ``plan.out``, holding the folder's
    lock throughout (one writer per folder)."""
    identity = _identity_of(plan.kind, plan.cells, plan.seed, plan.duplicate, plan.chunk)
    client = _connect(opts) if opts.backend == "dask" else None
    try:
        try:
            plan.out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SimsuiteError(f"--out {plan.out}: cannot create it: {exc}") from None
        with R.RunLock(plan.out, opts.break_lock), _terminate_as_interrupt():
            return _execute(plan, opts, identity, client)
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


def _die_with_driver(driver_pid: int) -> None:
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


def _execute(plan: Plan, opts: ExecOptions, identity: dict, client) -> Path:
    import contextlib

    import joblib

    out = plan.out
    manifest = _prepare_store(plan, identity, opts.quiet)
    cells = {c.id: c for c in plan.cells}
    todo = [c for c in manifest["chunks"] if c["status"] != R.DONE]
    session = {"command": plan.command, "started": _now(), "ended": None, "jobs": opts.jobs,
               "backend": opts.backend, "scheduler": opts.scheduler, "chunks_played": 0, "status": "running"}
    manifest["sessions"].append(session)
    manifest["status"] = "running"
    resume_hint = shlex.join(plan.command)
    if not todo:
        session.update(ended=_now(), status="complete")
        manifest.update(status="complete", ended=manifest.get("ended") or _now())
        R.write_manifest(out, manifest)
        if not opts.quiet:
            print(f"{out}: complete already ({len(manifest['chunks'])} chunks); nothing to do", file=sys.stderr)
        return out
    R.write_manifest(out, manifest)
    tasks = [{"id": c["id"], "cell": c["cell"], "variant": cells[c["cell"]].variant, "seed": plan.seed,
              "start": c["start"], "stop": c["stop"], "policies": cells[c["cell"]].policies,
              "duplicate": plan.duplicate, "run": out.resolve().name} for c in todo]
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
    ctx = joblib.parallel_config(backend="dask", client=client) if client is not None else contextlib.nullcontext()
    try:
        with ctx:
            try:
                gen = _results(tasks, opts)
            except Exception as exc:  # noqa: BLE001 - e.g. a scheduler without workers
                backend_error = exc
                gen = iter(())
            while backend_error is None:
                try:
                    res = next(gen)
                except StopIteration:
                    break
                except (KeyboardInterrupt, SimsuiteError):
                    raise
                except Exception as exc:  # noqa: BLE001 - the backend failed (a lost worker, a cluster error)
                    backend_error = exc
                    break
                if res[0] != "ok":
                    failure = res
                    break
                _, cid, hands, matches, secs = res
                try:
                    R.write_part(out, "hands", cid, hands, manifest.get("identity_hash"))
                    R.write_part(out, "matches", cid, matches, manifest.get("identity_hash"))
                except OSError as exc:
                    raise SimsuiteError(f"cannot write the parts of chunk {cid} in {out}: {exc}") from None
                chunk = by_id[cid]
                chunk.update(status=R.DONE, hands=hands.height, seconds=round(secs, 3))
                session["chunks_played"] += 1
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
        session.update(ended=_now(), status=status)
        manifest.update(status=status, ended=_now())
        R.write_manifest(out, manifest)
        if status == "interrupted":
            print(f"simsuite: interrupted; {done} of {len(manifest['chunks'])} chunks are done and kept in {out}; "
                  f"resume with: {resume_hint}", file=sys.stderr)
    if backend_error is not None:
        raise SimsuiteError(f"the {opts.backend} backend failed ({type(backend_error).__name__}: "
                            f"{' '.join(str(backend_error).split())}); the {done} completed chunk(s) are kept in "
                            f"{out}; resume with: {resume_hint}")
    if failure is not None:
        _, cid, message, bad, pol = failure
        t = task_by_id[cid]
        cell = cells[t["cell"]]
        m = bad if bad is not None else t["start"]
        pol = pol or _policy_pairs_text(cell.policies)
        repro = (f"simsuite play --variant {shlex.quote(cell.given)} --seed {plan.seed} --match --match-index {m} "
                 f"--policies {pol}")
        if cell.overrides:
            repro += " (with the cell's overrides " + ", ".join(f"{k}={_format_value(v)}" for k, v in cell.overrides.items()) + ")"
        raise SimsuiteError(f"chunk {cid} (cell {cell.id}, matches {t['start']}-{t['stop'] - 1}, seed {plan.seed}) failed: "
                            f"{message}; the {done} completed chunk(s) are kept in {out}; reproduce with: {repro}; "
                            f"then resume with: {resume_hint}")
    secs = time.perf_counter() - t0
    if not opts.quiet:
        played = progress.matches
        print(f"{out}: {played:,} matches, {progress.hands:,} hands in {secs:.1f} s "
              f"({progress.hands / max(secs, 1e-9):,.0f} hands/s)", file=sys.stderr)
    return out


# --- entry points ---------------------------------------------------------------------------------


def simulate(spec: RunSpec | Mapping[str, Any]) -> Path:
    """Validate ``spec``, play every missing chunk and return the run's folder."""
    if isinstance(spec, Mapping):
        unknown = set(spec) - set(RunSpec.__dataclass_fields__)
        if unknown:
            raise SimsuiteError(f"unknown run spec key(s) {', '.join(sorted(unknown))}; "
                                f"known: {', '.join(RunSpec.__dataclass_fields__)}")
        spec = RunSpec(**spec)
    plan, opts = plan_simulate(spec)
    return execute(plan, opts)


def sweep(spec_path: str | Path, out: str | Path, *, jobs: int = 1, backend: str = "loky",
          scheduler: str | None = None, quiet: bool = False, chunk: int | None = None,
          command: Sequence[str] | None = None, break_lock: bool = False) -> Path:
    """Play every cell of the sweep in ``spec_path`` into one store at ``out``."""
    plan, opts = plan_sweep(spec_path, out, jobs=jobs, backend=backend, scheduler=scheduler, quiet=quiet,
                            chunk=chunk, command=command, break_lock=break_lock)
    return execute(plan, opts)


__all__ = ["RunSpec", "simulate", "sweep", "plan_simulate", "plan_sweep", "execute", "parse_overrides",
           "parse_policies", "scale_decks", "play_chunk"]
