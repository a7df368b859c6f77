"""The README's quick start runs: every command of its first block, read out of README.md.

Each command runs through the command line in this process, in a temporary folder (so that
``--out results/...`` writes there), with its ``examples/`` paths pointing into the repository.
The commands run as written except for the sizes of the four that play many matches, scaled
down so that the whole block takes seconds (as written they take minutes): ``duel``'s
``--hands`` and ``simulate``'s ``--matches`` to a handful, ``--jobs`` to 1 (the figures do not
depend on it), and the ``sweep`` and ``design`` specs copied with 4 matches a cell (and one
design round). Sizes change how long a command takes and how wide its intervals are, never
whether it runs.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from cli import run_cli

ROOT = Path(__file__).resolve().parent.parent
SCALED = {"--matches": "6", "--hands": "40", "--jobs": "1"}


def quick_start_commands() -> list[list[str]]:
    """The commands of the README's "## Quick start" code block, each split into its words
    (comments dropped)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1]
    block = re.search(r"```\n(.*?)```", section, re.DOTALL).group(1)
    commands = [shlex.split(line, comments=True) for line in block.splitlines()]
    return [c for c in commands if c]


def _small_spec(path: Path, folder: Path) -> Path:
    """A copy of a sweep or design spec in ``folder`` with fewer matches (and one design round)."""
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"(?m)^matches = \d+", "matches = 4", text)
    text = re.sub(r"(?m)^rounds = \d+", "rounds = 1", text)
    out = folder / path.name
    out.write_text(text, encoding="utf-8")
    return out


def scaled(argv: list[str], folder: Path) -> list[str]:
    """``argv`` with its sizes scaled down and its example files found in the repository."""
    out = []
    for i, word in enumerate(argv):
        if i and argv[i - 1] in SCALED:
            word = SCALED[argv[i - 1]]
        elif word.startswith("examples/"):
            path = ROOT / word
            word = str(_small_spec(path, folder) if argv[0] in ("sweep", "design") else path)
        out.append(word)
    return out


def test_the_quick_start_block_is_found():
    commands = quick_start_commands()
    assert len(commands) >= 8
    assert all(c[0] == "simsuite" for c in commands), commands
    assert ["simsuite", "summary", "results/b10"] in commands


@pytest.mark.full_loop
def test_every_quick_start_command_runs(tmp_path, monkeypatch, capsys):
    """Every command of the block exits 0 and prints something, in order (``summary`` reads the
    folder that ``simulate`` wrote)."""
    monkeypatch.chdir(tmp_path)
    specs = tmp_path / "specs"
    specs.mkdir()
    for command in quick_start_commands():
        argv = scaled(command[1:], specs)
        code, out, err = run_cli(capsys, *argv)
        assert code == 0, (command, err)
        assert out.strip() or err.strip(), command
    assert (tmp_path / "results" / "b10").is_dir()
