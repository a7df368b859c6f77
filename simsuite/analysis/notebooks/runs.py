"""The notebooks' runs: a sweep, a design or the ladder's pairings run (or resumed) into results/notebooks/."""

from __future__ import annotations

import json
import time
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simsuite.analysis.notebooks.pairings import PAIRINGS, SEARCH_POLICY, Pairings, pairing_policies
from simsuite.errors import SimsuiteError, toml_value
from simsuite.sim.results import Results, load
from simsuite.sim.run import sweep


@dataclass(frozen=True)
class RunSettings:
    """Where and how the notebooks run: ``root`` (the repository; spec paths are relative to it), ``results``
    (the notebooks' results folder, ``results/notebooks``), ``quick`` (quick mode: runs named ``-quick``),
    ``jobs`` (worker processes) and ``search`` (the search pairing's policy)."""

    root: Path
    results: Path
    quick: bool = False
    jobs: int = 2
    search: str = SEARCH_POLICY


def to_toml(spec: Mapping[str, Any]) -> str:
    """A sweep spec (top-level scalars, [grid], [[cells]], [decks_scaling]) as TOML text."""
    lines = [
        f"{k} = {toml_value(v)}"
        for k, v in spec.items()
        if not isinstance(v, (Mapping, list)) or (isinstance(v, list) and not any(isinstance(x, Mapping) for x in v))
    ]
    for k, v in spec.items():
        if isinstance(v, Mapping):
            lines += ["", f"[{k}]"] + [f"{kk} = {toml_value(x)}" for kk, x in v.items()]
    for k, v in spec.items():
        if isinstance(v, list) and any(isinstance(x, Mapping) for x in v):
            for table in v:
                lines += ["", f"[[{k}]]"] + [f"{kk} = {toml_value(x)}" for kk, x in table.items()]
    return "\n".join(lines) + "\n"


def read_spec(path: str | Path, root: str | Path) -> dict:
    """A spec file, its path relative to ``root`` unless absolute."""
    p = Path(path)
    if not p.is_absolute():
        p = Path(root) / p
    return tomllib.loads(p.read_text(encoding="utf-8"))


def _played_by(settings: RunSettings, out: Path, stamp_file: Path) -> dict[str, str]:
    """The play stamp of the checkout (``fingerprint.play_stamp``), after checking that a results folder
    ``out`` already there was played by the same code (``stamp_file``, written when it was played): a sweep
    resumes or reuses whatever it finds, so a folder played by other code would pass old play off as new."""
    from simsuite.analysis.notebooks.fingerprint import play_changes, play_stamp

    now = play_stamp(settings.root)
    if out.exists():
        try:
            saved = json.loads(stamp_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            saved = None
        changed = play_changes(saved if isinstance(saved, dict) else None, now)
        if changed:
            raise SimsuiteError(
                f"{out}: played by other code than this checkout's ({', '.join(changed)}): remove that folder to "
                "play it again"
            )
    return now


def _stamp(stamp_file: Path, stamp: dict[str, str]) -> None:
    stamp_file.parent.mkdir(parents=True, exist_ok=True)
    stamp_file.write_text(json.dumps(stamp, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def run_sweep(
    settings: RunSettings,
    spec: str | Path | Mapping[str, Any],
    name: str,
    *,
    part: str | None = None,
    jobs: int | None = None,
    **changes: Any,
) -> Results:
    """Run (or resume, or just load) a sweep into ``results/notebooks/<name>[-quick][/part]``
    (``settings.results``; ``jobs``: instead of ``settings.jobs``).

    ``spec`` is a sweep spec file (relative to the repository) or a dict in the same shape;
    ``changes`` replace its top-level keys (``matches=``, ``policies=``, ``duplicate=``,
    ``grid=``, ``cells=``; ``None`` removes a key). The spec actually run is written next to
    the results as ``<name>[-quick][-part].toml``, so the run can be repeated from the shell:
    ``simsuite sweep results/notebooks/<that file> --out <the folder>``. What played it (``fingerprint.play_stamp``)
    is written to ``results/notebooks/played-by/``; a folder played by other code is refused, never reused.
    """
    raw = dict(read_spec(spec, settings.root) if isinstance(spec, (str, Path)) else spec)
    for k, v in changes.items():
        if v is None:
            raw.pop(k, None)
        else:
            raw[k] = v
    stem = name + ("-quick" if settings.quick else "")
    out = settings.results / stem / part if part else settings.results / stem
    spec_file = settings.results / "specs" / (stem + (f"-{part}" if part else "") + ".toml")
    spec_file.parent.mkdir(parents=True, exist_ok=True)
    text = to_toml(raw)
    if not spec_file.exists() or spec_file.read_text(encoding="utf-8") != text:
        spec_file.write_text(text, encoding="utf-8")
    stamp_file = settings.results / "played-by" / (stem + (f"-{part}" if part else "") + ".json")
    stamp = _played_by(settings, out, stamp_file)
    out.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    jobs = settings.jobs if jobs is None else jobs
    sweep(
        spec_file,
        out,
        jobs=jobs,
        quiet=True,
        command=["simsuite", "sweep", str(spec_file), "--out", str(out), "--jobs", str(jobs)],
    )
    _stamp(stamp_file, stamp)
    r = load(out)
    n_matches = sum(c["matches"] for c in r.manifest["cells"]) * (2 if r.manifest["duplicate"] else 1)
    base = settings.results.parent.parent  # the repository, with the default results folder
    print(
        f"{out.relative_to(base) if out.is_relative_to(base) else out}: "
        f"{len(r.manifest['cells'])} cells, {n_matches:,} matches (tables) "
        f"[{'quick' if settings.quick else 'full'} mode; ready in {time.perf_counter() - t0:.1f} s]"
    )
    return r


def run_design(settings: RunSettings, spec: str | Path, name: str, *, wording=None, **changes: Any) -> dict:
    """Run (or resume, or just reread) ``simsuite design`` into ``results/notebooks/<name>[-quick]``.

    ``spec`` is a design spec file (relative to the repository); ``changes`` replace its top-level
    keys or, given as dicts, update its tables (``search={"matches": 6}``, ``grid={...}``). The spec
    actually run is written to ``results/notebooks/specs/<name>[-quick].toml``, so the run can be
    repeated from the shell: ``simsuite design <that file> --out <the folder>``. ``wording``: passed to
    ``design`` (``simsuite.report.design_text`` words the result as the command does)."""
    from simsuite.analysis.design.search import design

    raw = read_spec(spec, settings.root)
    for k, v in changes.items():
        if isinstance(v, Mapping) and isinstance(raw.get(k), Mapping):
            raw[k] = {**raw[k], **v}
        else:
            raw[k] = v
    stem = name + ("-quick" if settings.quick else "")
    out = settings.results / stem
    spec_file = settings.results / "specs" / f"{stem}.toml"
    spec_file.parent.mkdir(parents=True, exist_ok=True)
    text = to_toml(raw)
    if not spec_file.exists() or spec_file.read_text(encoding="utf-8") != text:
        spec_file.write_text(text, encoding="utf-8")
    stamp_file = settings.results / "played-by" / f"{stem}.json"
    stamp = _played_by(settings, out, stamp_file)
    t0 = time.perf_counter()
    res = design(
        spec_file,
        out,
        jobs=settings.jobs,
        quiet=True,
        wording=wording,
        command=["simsuite", "design", str(spec_file), "--out", str(out), "--jobs", str(settings.jobs)],
    )
    _stamp(stamp_file, stamp)
    print(
        f"{out}: {len(res['sets'])} parameter sets, {res['cost']['design_hands']:,} hands "
        f"[{'quick' if settings.quick else 'full'} mode; ready in {time.perf_counter() - t0:.1f} s]"
    )
    return res


def pairing_chunk(pairing: str, matches: int, jobs: int) -> int:
    """Matches per chunk of a pairing's sweep: search plays a few hands a second, so small chunks keep
    the ``jobs`` workers busy and a stopped run resumable."""
    return 100 if pairing != "search" else max(1, min(10, matches // (4 * jobs)))


def run_pairings(
    settings: RunSettings,
    spec: str | Path | Mapping[str, Any],
    name: str,
    matches: Mapping[str, int],
    tag: str = "",
    kind: type[Pairings] = Pairings,
    **changes: Any,
) -> Pairings:
    """The sweep ``spec`` (with ``changes``, as in ``run_sweep``) once per self-play pairing, into
    ``results/notebooks/<name>[-quick]/pairing-<pairing>``: the same cells and the same root seed
    under every pairing, so match i of a cell is the same deal under each (paired). One
    table per deal (``duplicate = false``: in self-play a second table is the same match again).
    A ``policies`` key of the grid is dropped (the pairing sets the policies). Resumed or reused
    like every sweep. Returns them as a ``kind``."""
    runs = {}
    for p in PAIRINGS:
        if not matches.get(p):
            continue
        ch = dict(changes)
        grid = ch.get("grid")
        if isinstance(grid, Mapping) and "policies" in grid:
            ch["grid"] = {k: v for k, v in grid.items() if k != "policies"} or None
        ch.update(
            matches=matches[p],
            policies=pairing_policies(p, settings.search),
            duplicate=False,
            chunk=pairing_chunk(p, matches[p], settings.jobs),
        )
        runs[p] = run_sweep(settings, spec, name, part=f"pairing-{p}" + (f"-{tag}" if tag else ""), **ch)
    return kind(runs, settings.search)
