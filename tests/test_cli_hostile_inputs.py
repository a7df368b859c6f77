"""Inputs a careless or hostile user may give: ``--jobs 0`` to any command that takes ``--jobs``, and a
design spec range whose count of values overflows. Each is one line, exit 2, before any work."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from cli import one_line_error, run_cli

from simsuite.cli import _parser

ROOT = Path(__file__).resolve().parents[1]
DESIGN = ROOT / "examples" / "designs" / "two-deck-club-60.toml"

# every command that takes --jobs, with the least else it needs ({tmp}: a fresh folder)
JOBS_COMMANDS = {
    "duel": ["duel", "--variant", "school-2016", "--hands", "2"],
    "duel --matches": ["duel", "--variant", "school-2016", "--matches", "2"],
    "simulate": ["simulate", "--variant", "school-2016", "--matches", "2", "--out", "{tmp}", "--quiet"],
    "sweep": ["sweep", str(ROOT / "examples" / "sweeps" / "deck-count.toml"), "--out", "{tmp}", "--quiet"],
    "design": ["design", str(DESIGN), "--out", "{tmp}", "--quiet"],
    "calibrate": ["calibrate", "--hands", "10"],
    "compare-policies": ["compare-policies", "--variant", "school-2016", "--hands", "2"],
    "learn collect": ["learn", "collect", "--out", "{tmp}", "--hands", "2", "--quiet"],
    "learn responses": ["learn", "responses", "--policy", "expert", "--reference", "basic", "--deals", "2"],
}


def test_every_command_with_jobs_is_checked_here():
    def with_jobs(parser, path=()):
        for action in parser._actions:
            if "--jobs" in action.option_strings:
                yield " ".join(path)
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from with_jobs(sub, path + (name,))

    assert sorted(with_jobs(_parser())) == sorted({k.split(" --")[0] for k in JOBS_COMMANDS})


@pytest.mark.parametrize("jobs", ["0", "-2"])
@pytest.mark.parametrize("which", sorted(JOBS_COMMANDS))
def test_jobs_zero_or_below_minus_one_is_refused(capsys, tmp_path, which, jobs):
    out = tmp_path / "out"
    argv = [a.replace("{tmp}", str(out)) for a in JOBS_COMMANDS[which]]
    code, stdout, err = run_cli(capsys, *argv, "--jobs", jobs)
    one_line_error(
        code,
        err,
        f"--jobs must be a positive number of workers or -1 (all cores); got {jobs}",
        command=which.split(" --")[0],
    )
    assert stdout == "" and not out.exists()


def _design_with_step(tmp_path: Path, step: str) -> Path:
    text = DESIGN.read_text()
    lines = [f"step = {step}" if line.startswith("step = ") else line for line in text.splitlines()]
    spec = tmp_path / "spec.toml"
    spec.write_text("\n".join(lines) + "\n")
    return spec


@pytest.mark.parametrize(
    "step, needles",
    [
        (
            "{ from = 0.0, to = 1e308, by = 1e-308 }",
            ["{ from = 0.0, to = 1e+308, by = 1e-308 } has more than 1e+15 values"],
        ),
        ("{ from = 1e300, to = 1.7e308, by = 5e-324 }", ["has more than 1e+15 values"]),
        (
            "{ from = -9223372036854775808, to = 9223372036854775807, by = 1 }",
            ["{ from = -9.22e+18, to = 9.22e+18, by = 1 } has more than 1e+15 values"],
        ),
        ("{ from = 0, to = 1" + "0" * 400 + ", by = 1 }", ["to = <401-digit integer>", "has more than 1e+15 values"]),
        ("{ from = 0, to = 1" + "0" * 400 + ", by = 0.5 }", ["to = <401-digit integer>", "has more than 1e+15 values"]),
        ("{ from = 0, to = 1000000, by = 1 }", ["has 1,000,001 values; an axis has at most 1,000"]),
        ("{ from = 1e16, to = 1.0000000000000008e16, by = 1.0 }", ["steps by less than its values can tell apart"]),
        ("{ from = 0, to = 1e-8, by = 1e-10 }", ["steps by less than its values can tell apart"]),
    ],
)
def test_design_range_too_long_or_too_fine_is_one_line(capsys, tmp_path, step, needles):
    spec = _design_with_step(tmp_path, step)
    out = tmp_path / "out"
    code, stdout, err = run_cli(capsys, "design", str(spec), "--out", str(out), "--quiet")
    line = one_line_error(code, err, "grid.step: the range", *needles, command="design")
    assert len(line) < 300 and stdout == "" and not out.exists()


def test_design_range_that_fits_expands_both_ends_included():
    from simsuite.analysis.design.spec import _expand_range

    assert _expand_range("step", {"from": 30, "to": 40, "by": 10}) == ([30, 40], None)
    assert _expand_range("x", {"from": 0.1, "to": 0.3, "by": 0.1}) == ([0.1, 0.2, 0.3], None)
