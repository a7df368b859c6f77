"""``simsuite exact``: the exact match model of a results folder, or its validation against another run."""

from __future__ import annotations

import json
import sys

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
        rows = validation_rows(
            args.results,
            args.validate,
            overrides,
            reps=args.reps,
            seed=args.seed,
            cells=cells,
            approximate=args.approximate,
        )
        notices = _notices(args.results) + [f"--validate {args.validate}: {n}" for n in _notices(args.validate)]
        _print(
            notices,
            json.dumps(rows, indent=2, default=_plain) if args.json else validation_table(rows, args.reps),
            args.json,
        )
        return 0
    rows = exact_results(
        args.results, overrides, reps=args.reps, seed=args.seed, cells=cells, approximate=args.approximate
    )
    _print(
        _notices(args.results), json.dumps(rows, indent=2, default=str) if args.json else format_exact(rows), args.json
    )
    return 0


def _notices(path: str) -> list[str]:
    """The incomplete-run notice of the run in ``path``, if it has one (``report.summary_text``)."""
    from ..report.summary_text import incomplete_notice
    from ..sim.results import read_manifest

    notice = incomplete_notice(read_manifest(path), path)
    return [notice] if notice else []


def _print(notices: list[str], text: str, as_json: bool) -> None:
    """The notices first, then the output; with ``--json`` the notices go to stderr, so stdout stays JSON."""
    for n in notices:
        print(f"simsuite exact: {n}" if as_json else n, file=sys.stderr if as_json else sys.stdout)
    print(text)


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
