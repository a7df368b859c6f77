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
# the error line: "simsuite: error: ..." (the top-level parser) or "simsuite simulate: error: ..."
_ERROR_LINE = re.compile(r"simsuite( [\w-]+)*: error: ")


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


def one_line_error(
    code: int, err: str, *needles: str, command: str | None = None, usage_ok: bool = False, listed: bool = False
) -> str:
    """Exit 2 and one stderr line ``simsuite COMMAND: error: ...`` holding every needle; the line.

    ``usage_ok`` allows argparse's usage block (``usage: simsuite ...`` and its indented continuation
    lines) before the error line: argparse prints it above its own errors (a bad number, an unknown
    command); simsuite's errors never have it. ``listed`` allows the shape of an error that reports
    several problems at once: the error line ends with ``N problems:`` (or ``N bad cells of M:``) and
    one ``  - `` line under it names each; the needles may be in any of those lines."""
    assert code == 2, (code, err)
    assert "Traceback" not in err and "Exception ignored" not in err, err
    lines = err.strip().splitlines()
    if usage_ok and lines and lines[0].startswith("usage: simsuite"):
        usage, lines = lines[:-1], lines[-1:]
        assert all(line.startswith(" ") for line in usage[1:]), err
    if listed and len(lines) > 1:
        assert lines[0].endswith(":") and all(line.startswith("  - ") for line in lines[1:]), err
        lines = [" ".join(lines)]
    assert len(lines) == 1, err
    line = lines[0]
    prefix = f"simsuite {command}: error: " if command else "simsuite"
    assert line.startswith(prefix), line
    assert _ERROR_LINE.match(line), line
    for needle in needles:
        assert needle in line, (needle, line)
    return line
