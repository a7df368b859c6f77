"""The sweep grammar: a TOML file naming a grid of rule settings, read, validated and turned into
one plan of cells (docs/harness.md, "Sweeps").

A spec gives a ``base`` variant (or several ``variants``), a ``[grid]`` whose every combination
is a cell and/or ``[[cells]]`` tables, and ``policies``, ``matches`` or ``hands``, ``seed``,
``duplicate`` and ``chunk``. The grid key ``decks`` moves the variant to another deck count with
``rules.scale.scale_decks`` (or the spec's ``[decks_scaling]``). Every bad key and every bad cell
is reported at once, before any play; a spec is data and never makes simsuite import code.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..engine.names import parse_policies, split_names
from ..errors import SimsuiteError, VariantError, read_toml, unknown_keys
from ..rules.scale import scale_decks
from ..rules.variant import MAX_DECKS, load_variant, override_keys, unknown_key_problem
from .limits import MAX_SEED, check_int, check_seed
from .spec import (
    DEFAULT_CHUNK,
    DEFAULT_MATCHES,
    Cell,
    ExecOptions,
    Plan,
    check_exec,
    check_hands_bound,
    check_out,
    check_playable,
    check_run_size,
    format_value,
    parse_override_value,
    set_matches,
)

SWEEP_KEYS = (
    "base",
    "variants",
    "matches",
    "hands",
    "seed",
    "policies",
    "duplicate",
    "chunk",
    "grid",
    "cells",
    "decks_scaling",
)
SPECIAL_GRID_KEYS = ("policies", "decks")


def cell_value(key: str, value: Any) -> str:
    """A grid value in a cell id: lists and policy pairs joined by "/" (the id separates keys by ",")."""
    if key == "policies" and isinstance(value, str):
        return "/".join(split_names(value))
    return format_value(value)


def _sweep_problems(raw: dict) -> list[str]:
    problems = unknown_keys(raw, SWEEP_KEYS)
    if "base" in raw and "variants" in raw:
        problems.append("give base or variants, not both")
    if "base" not in raw and "variants" not in raw:
        problems.append('give base = "VARIANT" (or variants = [...])')
    if "base" in raw and not isinstance(raw["base"], str):
        problems.append(f"base must be a variant id or path; got {raw['base']!r}")
    if "variants" in raw and (
        not isinstance(raw["variants"], list)
        or not raw["variants"]
        or not all(isinstance(v, str) for v in raw["variants"])
    ):
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
    problems += grid_problems(grids)
    problems += decks_scaling_problems(raw.get("decks_scaling"), [t for _, t, _ in grids])
    return problems


def grid_problems(grids: list[tuple[str, Mapping, bool]], special: Sequence[str] = SPECIAL_GRID_KEYS) -> list[str]:
    """Unknown keys and empty value lists in grid tables: (where, table, lists only)."""
    problems = []
    valid = list(dict.fromkeys([*special, *override_keys()]))
    for where, table, lists_only in grids:
        for key, values in table.items():
            if key not in valid:
                problems.append(f"{where}: unknown key {key!r}; valid keys: {', '.join(valid)}")
            elif lists_only and (not isinstance(values, list) or not values):
                problems.append(f"{where}.{key} must be a non-empty list of values; got {values!r}")
            elif isinstance(values, list) and not values:
                problems.append(f"{where}.{key} is an empty list")
    return problems


def decks_scaling_problems(ds: Any, grids: Sequence[Mapping] | None = None) -> list[str]:
    """What is wrong with a ``[decks_scaling]`` table: its deck counts and keys, and (given the spec's grid
    tables) whether any cell sets ``decks`` for it to apply to."""
    from ..rules.variant import MAX_DECKS

    problems: list[str] = []
    if (
        ds is not None
        and grids is not None
        and isinstance(ds, dict)
        and ds
        and not any(isinstance(t, Mapping) and "decks" in t for t in grids)
    ):
        problems.append(
            "[decks_scaling] applies to cells that set decks, and no grid or cell sets decks: add decks "
            "to the grid, or remove [decks_scaling]"
        )
    if ds is not None:
        if not isinstance(ds, dict):
            problems.append("decks_scaling must be a table: [decks_scaling] with 2 = { bottom_size = ..., ... }")
        else:
            for d, entry in ds.items():
                if not d.isdigit() or not isinstance(entry, dict):
                    problems.append(f"decks_scaling.{d}: write {d} = {{ key = value, ... }} under a deck count")
                    continue
                if not 1 <= int(d) <= MAX_DECKS:
                    problems.append(f"decks_scaling.{d}: a deck count is 1 to {MAX_DECKS}")
                    continue
                bad = [k for k in entry if k not in override_keys()]
                if bad:
                    problems.append(
                        f"decks_scaling.{d}: unknown key {bad[0]!r}; valid keys: {', '.join(override_keys())}"
                    )
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


def grid_combos(table: Mapping[str, Any]) -> list[list[tuple[str, Any]]]:
    keys = list(table)
    values = [table[k] if isinstance(table[k], list) else [table[k]] for k in keys]
    return [list(zip(keys, combo)) for combo in itertools.product(*values)]


def build_cells(
    bases: Sequence[str],
    base_variants: Mapping[str, Any],
    combos: list[list[tuple[str, Any]]],
    default_pol: str,
    decks_scaling: Mapping | None = None,
    many: bool = False,
) -> tuple[list[Cell], list[str]]:
    """Every combination of grid values on every base, as cells (``matches`` still 0), with one
    problem line per bad cell (an unknown or rejected value, rules the engine cannot play); ``many``:
    cell ids start with variant=ID."""
    cells: list[Cell] = []
    problems: list[str] = []
    seen: set[str] = set()
    for b in bases:
        base = base_variants[b]
        for combo in combos:
            parts = ([("variant", base.id)] if many else []) + combo
            cid = ",".join(f"{k}={cell_value(k, v)}" for k, v in parts) or base.id
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
                            raise SimsuiteError(
                                f"decks must be a whole number of decks from 1 to {MAX_DECKS}; got {v!r}"
                            )
                        overrides.update(scale_decks(base, v, decks_scaling))
                for k, v in combo:
                    if k == "policies":
                        pol = v
                    elif k != "decks":
                        overrides[k] = v
                pair = parse_policies(pol, "policies", from_file=True)
                v = base.with_overrides(overrides, source=cid) if overrides else base
                check_playable(v, cid)
                cells.append(Cell(cid, v, b, overrides, pair))
            except SimsuiteError as exc:
                msg = str(exc)
                problems.append(msg if msg.startswith(cid) else f"{cid}: {msg}")
    return cells, problems


def read_sweep(spec_path: str | Path) -> dict:
    path = Path(spec_path)
    raw = read_toml(path, "sweep spec")
    problems = _sweep_problems(raw)
    if problems:
        raise VariantError(str(path), problems)
    return raw


def plan_sweep(
    spec_path: str | Path,
    out: str | Path | None,
    *,
    jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    quiet: bool = False,
    chunk: int | None = None,
    command: Sequence[str] | None = None,
    break_lock: bool = False,
    matches: int | None = None,
    seed: int | None = None,
) -> tuple[Plan, ExecOptions]:
    """Validate a sweep spec and every one of its cells (all bad cells reported at once). ``matches`` and
    ``seed`` (``--matches``, ``--seed``) replace the spec's; ``out`` None: ``default_out``."""
    opts = ExecOptions(jobs, backend, scheduler, quiet, break_lock)
    check_exec(opts)
    raw = with_run_size(read_sweep(spec_path), matches, seed)
    target = Path(out) if out is not None else default_out(raw, str(spec_path))
    return plan_table(raw, str(spec_path), target, chunk, command), opts


def with_run_size(raw: dict, matches: int | None, seed: int | None) -> dict:
    """A spec's table with ``--matches`` (in place of its matches or hands) and ``--seed`` given on the
    command line."""
    raw = dict(raw)
    if matches is not None:
        raw.pop("hands", None)
        raw["matches"] = check_int("--matches", matches, 1)
    if seed is not None:
        raw["seed"] = check_seed("--seed", seed)
    return raw


def grid_table(variant: str, grid: Sequence[str], policies: str | None = None) -> dict:
    """``--variant V --grid KEY=V1,V2 ...`` as a sweep spec's table (``base``, ``[grid]``, ``policies``).

    Each ``--grid`` names one rule field (or ``decks``, ``policies``) and its values, comma-separated; a
    list field's value joins its items with ``/`` (``trump_ranks=2/5/10,2/10``), as do a pairing's two
    policies (``policies=expert/basic,basic/basic``). Every value is checked alone against the variant,
    so a bad one is named before any combination is built."""
    base = load_variant(variant)
    table: dict[str, list] = {}
    for item in grid:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise SimsuiteError(f"--grid expects KEY=V1,V2,...; got {item!r}")
        if key in table:
            raise SimsuiteError(f"--grid {key} is given twice; give all its values in one --grid {key}=V1,V2,...")
        if key not in SPECIAL_GRID_KEYS and key not in override_keys():
            raise SimsuiteError(f"--grid: {unknown_key_problem(key)}")
        words = [w.strip() for w in text.split(",")]
        if not any(words):
            raise SimsuiteError(f"--grid {key}= has no values; give at least one, e.g. --grid {key}=V1,V2")
        if "" in words:
            raise SimsuiteError(f"--grid {item}: an empty value between commas; write {key}=V1,V2")
        values = [_grid_value(base, key, w) for w in words]
        twice = next((w for i, w in enumerate(words) if w in words[:i]), None)
        if twice is not None:
            raise SimsuiteError(f"--grid {key}: the value {twice} is given twice")
        table[key] = values
    raw: dict[str, Any] = {"base": variant, "grid": table}
    if policies is not None:
        raw["policies"] = policies
    return raw


def _grid_value(base, key: str, word: str) -> Any:
    """One value of ``--grid KEY=...``, typed by its field and checked alone against ``base``."""
    if key == "policies":
        text = word.replace("/", ",")
        parse_policies(text, f"--grid policies={word}")
        return text
    if key == "decks":
        try:
            n = int(word)
        except ValueError:
            raise SimsuiteError(f"--grid decks={word}: a deck count is a whole number from 1 to {MAX_DECKS}") from None
        if not 1 <= n <= MAX_DECKS:
            raise SimsuiteError(f"--grid decks={word}: a deck count is a whole number from 1 to {MAX_DECKS}")
        return n
    value = parse_override_value(key, word.replace("/", ","), flag="--grid")
    try:
        base.with_overrides({key: value}, source=f"--grid {key}={word}")
    except SimsuiteError as exc:
        raise SimsuiteError(f"--grid {key}={word}: {_one_line(exc)}") from None
    return value


def _one_line(exc: BaseException) -> str:
    """A validation error's problems on one line (a VariantError lists them under its source)."""
    problems = getattr(exc, "problems", None)
    return "; ".join(problems) if problems else " ".join(str(exc).split())


def default_out(raw: dict, spec_path: str | None) -> Path:
    """The folder a sweep without ``--out`` plays into: named after the spec file, or after the base and the
    grid's keys, and the seed (``results/sweep-school-2016-bottom_size-capture_per_card-seed1``). The same
    command always names the same folder, so running it again resumes; a different run there is refused."""
    seed = raw.get("seed", 1)
    if spec_path is not None:
        name = Path(spec_path).stem
    else:
        name = "-".join([Path(raw["base"]).stem if raw["base"].endswith(".toml") else raw["base"], *raw["grid"]])
    return Path("results") / f"sweep-{name}-seed{seed}"


def plan_command(
    spec: str | None,
    variant: str | None,
    grid: Sequence[str],
    *,
    policies: str | None = None,
    matches: int | None = None,
    seed: int | None = None,
    out: str | Path | None = None,
    jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    quiet: bool = False,
    chunk: int | None = None,
    command: Sequence[str] | None = None,
    break_lock: bool = False,
) -> tuple[Plan, ExecOptions]:
    """``simsuite sweep``: a spec file, or ``--variant`` with ``--grid`` (exactly one of the two), with
    ``--matches`` and ``--seed`` over the spec's own."""
    if spec is not None and grid:
        raise SimsuiteError("give a spec file or --variant with --grid, not both")
    if spec is not None and variant is not None:
        raise SimsuiteError("--variant is for the grid form (--variant V --grid KEY=V1,V2); a spec names its base")
    if spec is not None and policies is not None:
        raise SimsuiteError('--policies is for the grid form; a spec names its policies (policies = "A,B")')
    if spec is None and not grid:
        raise SimsuiteError(
            "give a sweep spec file, or --variant V with --grid KEY=V1,V2 (repeat --grid for more keys)"
            if variant is None
            else "--variant needs --grid KEY=V1,V2 (repeat --grid for more keys)"
        )
    if spec is None and variant is None:
        raise SimsuiteError("--grid needs --variant: the variant whose rules the grid changes")
    opts = ExecOptions(jobs, backend, scheduler, quiet, break_lock)
    check_exec(opts)
    if spec is not None:
        raw = with_run_size(read_sweep(spec), matches, seed)
        src = spec
    else:
        if policies is not None:
            parse_policies(policies, "--policies")
        raw = with_run_size(
            grid_table(variant, grid, policies), matches if matches is not None else DEFAULT_MATCHES, seed
        )
        problems = _sweep_problems(raw)
        if problems:
            raise SimsuiteError("; ".join(problems))
        src = "--grid"
    target = Path(out) if out is not None else default_out(raw, spec)
    return plan_table(raw, src, target, chunk, command), opts


def plan_table(
    raw: dict,
    src: str,
    out: str | Path,
    chunk: int | None = None,
    command: Sequence[str] | None = None,
) -> Plan:
    """A checked sweep table (``read_sweep``'s or ``grid_table``'s) as a plan; ``src`` names it in messages."""
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
        combos += grid_combos(raw["grid"])
    for t in raw.get("cells", []):
        combos += grid_combos(t)
    if not combos:
        combos = [[]]
    cells, problems = build_cells(bases, base_variants, combos, default_pol, raw.get("decks_scaling"), many)
    if problems:
        n = len(problems)
        raise SimsuiteError(
            f"{src}: {n} bad cell{'s' if n > 1 else ''} of {len(combos) * len(bases)}:\n"
            + "\n".join(f"  - {p}" for p in problems)
        )
    out = Path(out)
    check_out(out)
    dup = bool(raw.get("duplicate", False))
    what = (
        f"{src}: matches = {raw['matches']:,}"
        if "matches" in raw
        else (f"{src}: hands = {raw['hands']:,}" if "hands" in raw else src)
    )
    check_hands_bound(cells, raw.get("hands"), chunk, dup, what)
    set_matches(cells, raw.get("matches"), raw.get("hands"), seed, dup)
    check_run_size(cells, chunk, what)
    cmd = list(command) if command else ["simsuite", "sweep", src, "--out", str(out)]
    return Plan("sweep", cells, seed, dup, chunk, out, cmd, {"spec_path": src, "spec": raw})
