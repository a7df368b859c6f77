"""The harness's entry points: ``simulate(spec)`` plays N matches of one or more variants;
``sweep(spec_path, out)`` plays a grid of rule settings read from a TOML file.

Both validate everything before any work (``sim.spec``, ``sim.sweep``), split the work into
*cells* (one rule set and one policy pairing each) and *chunks* (``chunk`` matches of one cell),
and play the chunks into a results store (``sim.executor``, ``sim.results``). Running the same
command again resumes: only the chunks the manifest marks missing are played. See docs/harness.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import SimsuiteError
from .executor import execute
from .spec import RunSpec, plan_simulate
from .sweep import plan_sweep


def simulate(spec: RunSpec | Mapping[str, Any]) -> Path:
    """Validate ``spec``, play every missing chunk and return the run's folder."""
    if isinstance(spec, Mapping):
        unknown = set(spec) - set(RunSpec.__dataclass_fields__)
        if unknown:
            raise SimsuiteError(
                f"unknown run spec key(s) {', '.join(sorted(unknown))}; "
                f"known: {', '.join(RunSpec.__dataclass_fields__)}"
            )
        spec = RunSpec(**spec)
    plan, opts = plan_simulate(spec)
    return execute(plan, opts)


def sweep(
    spec_path: str | Path,
    out: str | Path,
    *,
    jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    quiet: bool = False,
    chunk: int | None = None,
    command: Sequence[str] | None = None,
    break_lock: bool = False,
) -> Path:
    """Play every cell of the sweep in ``spec_path`` into one store at ``out``."""
    plan, opts = plan_sweep(
        spec_path,
        out,
        jobs=jobs,
        backend=backend,
        scheduler=scheduler,
        quiet=quiet,
        chunk=chunk,
        command=command,
        break_lock=break_lock,
    )
    return execute(plan, opts)


__all__ = ["simulate", "sweep"]
