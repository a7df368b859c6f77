"""``simsuite exact``: the exact match model of a results folder, or its validation against another run."""

from __future__ import annotations

import json
import sys
import threading
import time

from ..errors import SimsuiteError

PROGRESS_AFTER_S = 2.0  # a solve that lasts longer than this says how far it is, on stderr


class SolveProgress:
    """Once the solves have lasted ``after_s`` seconds, one line on ``stream`` (stderr), redrawn in
    place: the cell being solved, its bootstrap resamples done, the time so far and the time left;
    when they end, a last line with the total. Silent when not ``enabled`` (``--quiet``, or stderr
    not a terminal), as ``simulate``'s progress bar (``sim.progress``); a timer draws the line at
    ``after_s`` even while the first batch is still being solved (as ``engine.warm.CompileNotice``)."""

    def __init__(self, cells: int, enabled: bool, stream=None, after_s: float | None = None):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.after_s = PROGRESS_AFTER_S if after_s is None else after_s
        self.cells = max(cells, 1)
        self.t0 = time.perf_counter()
        self.state: tuple[str, int, int, int] | None = None  # cell, its number, resamples done, of
        self.cell_t0 = self.t0
        self.shown = False
        self.width = 0
        self.lock = threading.Lock()
        self.timer = threading.Timer(self.after_s, self._draw) if enabled else None
        if self.timer is not None:
            self.timer.daemon = True
            self.timer.start()

    def __call__(self, cell: str, done: int, total: int) -> None:
        """``exact_results``' ``progress``: ``cell`` has ``done`` of its ``total`` resamples solved."""
        with self.lock:
            if self.state is None or self.state[0] != cell:
                number = 1 if self.state is None else self.state[1] + 1
            else:
                number = self.state[1]
            if done == 0:  # the cell, or its resamples, start: the time left is timed from here
                self.cell_t0 = time.perf_counter()
            self.state = (cell, number, done, total)
        if self.enabled and (self.shown or time.perf_counter() - self.t0 >= self.after_s):
            self._draw()

    def _draw(self) -> None:
        with self.lock:
            if self.state is None:
                return
            cell, number, done, total = self.state
            now = time.perf_counter()
            spent = now - self.cell_t0
            left = f", about {spent * (total - done) / done:.0f} s left" if 0 < done < total else ""
            line = (
                f"simsuite exact: {cell} (cell {number} of {self.cells}): {done:,}/{total:,} bootstrap "
                f"resamples solved, {now - self.t0:.0f} s{left}"
            )
            self._write("\r" + line.ljust(self.width))
            self.width = max(self.width, len(line))
            self.shown = True

    def close(self, failed: bool = False) -> None:
        """The last line: the total time (``failed``: the line drawn so far is ended, and no more)."""
        if self.timer is not None:
            self.timer.cancel()
        with self.lock:
            if not self.shown:
                return
            if failed:
                self._write("\n")
                return
            cells = f"{self.cells} cell{'s' if self.cells != 1 else ''}"
            line = f"simsuite exact: {cells} solved in {time.perf_counter() - self.t0:.0f} s"
            self._write("\r" + line.ljust(self.width) + "\n")

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a closed or broken stream never stops a solve
            pass

    def __enter__(self) -> SolveProgress:
        return self

    def __exit__(self, kind, *exc) -> None:
        self.close(failed=kind is not None)


def run(args) -> int:
    """``simsuite exact RESULTS [--set KEY=VALUE ...] [--json] [--reps N] [--cell ID] [--seed N]
    [--approximate] [--validate SIM_RUN] [--quiet]``: the figures per cell, the model's beside the
    sample's; with ``--validate`` the out-of-sample validation table against the matches of
    ``SIM_RUN`` (another seed). A solve that lasts more than ``PROGRESS_AFTER_S`` says how far it is
    on stderr (``SolveProgress``; not with ``--quiet`` or where stderr is not a terminal)."""
    from ..analysis.exact import exact_results, validation_rows
    from ..report.exact_text import format_exact, validation_table
    from ..sim.spec import parse_overrides

    overrides = parse_overrides(args.overrides) if args.overrides else None
    cells = args.cell or None
    if args.validate is not None:
        _check_run("--validate", args.validate)
        with _progress(args) as progress:
            rows = validation_rows(
                args.results,
                args.validate,
                overrides,
                reps=args.reps,
                seed=args.seed,
                cells=cells,
                approximate=args.approximate,
                progress=progress,
            )
        notices = _notices(args.results) + [f"--validate {args.validate}: {n}" for n in _notices(args.validate)]
        _print(
            notices,
            json.dumps(rows, indent=2, default=_plain) if args.json else validation_table(rows, args.reps),
            args.json,
        )
        return 0
    with _progress(args) as progress:
        rows = exact_results(
            args.results,
            overrides,
            reps=args.reps,
            seed=args.seed,
            cells=cells,
            approximate=args.approximate,
            progress=progress,
        )
    _print(
        _notices(args.results), json.dumps(rows, indent=2, default=str) if args.json else format_exact(rows), args.json
    )
    return 0


def _progress(args) -> SolveProgress:
    """The progress line of this command's solves: on, unless ``--quiet`` or stderr is not a terminal."""
    cells = args.cell or _cell_ids(args.results)
    return SolveProgress(len(cells), enabled=not args.quiet and sys.stderr.isatty())


def _cell_ids(path: str) -> list[str]:
    from ..sim.results import read_manifest

    try:
        return [c["id"] for c in read_manifest(path).get("cells", [])]
    except (SimsuiteError, OSError, ValueError):  # exact_results says what is wrong with the folder
        return []


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
