"""`simsuite design`: runs the design search of a spec and prints its text or its JSON."""

from __future__ import annotations

import json

from ..analysis.design.store import json_default
from ..report.design_text import format_design, worded_design


def run(args) -> int:
    """The ``design`` command's handler: the worded design of ``args.spec``, printed."""
    res = worded_design(
        args.spec,
        args.out,
        jobs=args.jobs,
        backend=args.backend,
        scheduler=args.scheduler,
        quiet=args.quiet or args.json,
        command=["simsuite", *args.argv],
        break_lock=args.break_lock,
        max_cells=args.max_cells,
    )
    if args.json:
        print(json.dumps(res, indent=1, default=json_default))
    else:
        print(format_design(res))
    return 0
