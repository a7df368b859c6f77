"""One limit for every command's --jobs (issue 34): a number of worker processes past what the
machine runs is refused in one line naming the limit, before any process starts."""

from __future__ import annotations

import pytest

from simsuite.cli import main
from simsuite.sim.limits import JOBS_PER_CORE, check_jobs, cores, max_jobs

SPEC = 'base = "two-deck-2011"\nmatches = 4\nchunk = 2\n[grid]\nstep = [20, 40]\n'
DESIGN = """base = "two-deck-2011"
pairings = ["expert,basic"]
[grid]
step = [20, 40]
[goals]
match_minutes = "<= 200"
"""


def _argv(command: str, tmp_path, jobs: str) -> list[str]:
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC)
    design = tmp_path / "d.toml"
    design.write_text(DESIGN)
    return {
        "simulate": ["simulate", "--variant", "two-deck-2011", "--matches", "2", "--out", str(tmp_path / "r"), "--jobs", jobs],
        "sweep": ["sweep", str(spec), "--out", str(tmp_path / "w"), "--jobs", jobs],
        "design": ["design", str(design), "--out", str(tmp_path / "d"), "--jobs", jobs],
        "duel": ["duel", "--variant", "two-deck-2011", "--hands", "4", "--jobs", jobs],
        "calibrate": ["calibrate", "--hands", "40", "--jobs", jobs],
        "compare-policies": ["compare-policies", "--policies", "expert,basic", "--hands", "4", "--jobs", jobs],
        "learn collect": ["learn", "collect", "--out", str(tmp_path / "c"), "--hands", "2", "--jobs", jobs],
    }[command]


COMMANDS = ["simulate", "sweep", "design", "duel", "calibrate", "compare-policies", "learn collect"]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("jobs", ["400000", "1000000"])
def test_every_command_refuses_more_jobs_than_the_machine_runs(capsys, tmp_path, command, jobs):
    code = main(_argv(command, tmp_path, jobs))
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"--jobs {int(jobs):,} is more worker processes than this machine runs: at most {max_jobs()}" in err
    assert "Traceback" not in err
    assert not any(p.name in ("r", "w", "d", "c") and any(p.iterdir()) for p in tmp_path.iterdir() if p.is_dir())


def test_the_limit_is_a_multiple_of_the_cores():
    assert max_jobs() == JOBS_PER_CORE * cores() >= JOBS_PER_CORE
    assert check_jobs("--jobs", max_jobs()) == max_jobs() and check_jobs("--jobs", -1) == -1
    for bad in (0, -2, max_jobs() + 1):
        with pytest.raises(ValueError, match="--jobs"):
            check_jobs("--jobs", bad)
