"""The test suite's one way to run the ``simsuite`` command in-process and check its output.

``run_cli`` runs the command as a user would, argparse's own exits included, and fails the test on any
warning the run raises or prints: a library's warning on a normal run reads as a bug to a user.
``one_line_error`` checks the shape every user mistake must have: exit 2, one line on stderr naming the
command, no traceback, and the words that say what was wrong.
"""

from __future__ import annotations

import re
import warnings

from simsuite.cli import main

# what a warning looks like once printed: "path.py:12: SomeWarning: ..." or a library's "Warning: ..."
_WARNING_LINE = re.compile(r"(\w+Warning\b|^\s*warning:|^\s*Warning:)", re.MULTILINE)


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    """``simsuite ARGV`` in this process: (exit code, stdout, stderr). argparse's errors and ``--help``
    exit through SystemExit, which counts as the exit code. Any warning raised during the run, or any
    warning text on stderr, fails the test that ran it."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    out, err = capsys.readouterr()
    raised = [f"{w.category.__name__}: {w.message}" for w in caught]
    assert not raised, f"simsuite {' '.join(argv)} raised warnings: {raised}"
    assert not _WARNING_LINE.search(err), f"simsuite {' '.join(argv)} printed a warning on stderr:\n{err}"
    return code, out, err


def one_line_error(code: int, err: str, *needles: str, command: str | None = None) -> str:
    """Exit 2 and one stderr line ``simsuite COMMAND: error: ...`` holding every needle; the line."""
    assert code == 2, (code, err)
    assert "Traceback" not in err and "Exception ignored" not in err, err
    line = err.strip()
    assert line and "\n" not in line, err
    assert line.startswith(f"simsuite {command}: error: " if command else "simsuite "), line
    assert "error:" in line, line
    for needle in needles:
        assert needle in line, (needle, line)
    return line
