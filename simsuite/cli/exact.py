"""``simsuite exact``: the exact match model of a results folder, or its validation against another run."""

from __future__ import annotations

import json

from ..errors import SimsuiteError


def run(args) -> int:
    """``simsuite exact RESULTS [--set KEY=VALUE ...] [--json] [--reps N] [--cell ID] [--seed N]
    [--approximate] [--validate SIM_RUN]``: the figures per cell; with ``--validate`` the
    out-of-sample validation table against the matches of ``SIM_RUN`` (another seed)."""
    from ..analysis.exact import exact_results, validation_rows
    from ..report.exact_text import format_exact, validation_table
    from ..sim.spec import parse_overrides

    overrides = parse_overrides(args.overrides) if args.overrides else None
    cells = args.cell or None
    if args.validate is not None:
        _check_run("--validate", args.validate)
        rows = validation_rows(args.results, args.validate, overrides, reps=args.reps, seed=args.seed, cells=cells,
                               approximate=args.approximate)
        if args.json:
            print(json.dumps(rows, indent=2, default=_plain))
        else:
            print(validation_table(rows, args.reps))
        return 0
    rows = exact_results(args.results, overrides, reps=args.reps, seed=args.seed, cells=cells,
                         approximate=args.approximate)
    if args.json:
        print(json.dumps(rows, indent=2, default=str))
    else:
        print(format_exact(rows))
    return 0


def _check_run(flag: str, path: str) -> None:
    """A results folder a flag names loads, or one error line that names the flag."""
    from ..sim.results import load

    try:
        load(path)
    except SimsuiteError as exc:
        raise SimsuiteError(f"{flag} {exc}") from None


def _plain(x):
    """A numpy scalar as its Python value (JSON), anything else as its text."""
    return x.item() if hasattr(x, "item") else str(x)
