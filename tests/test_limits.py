"""One limit for every command's --jobs: a number of worker processes past what the
machine runs is refused in one line naming the limit, before any process starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from simsuite.cli import main
from simsuite.sim.limits import JOBS_PER_CORE, check_jobs, cores, max_jobs

ROOT = Path(__file__).resolve().parent.parent

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
        "simulate": [
            "simulate",
            "--variant",
            "two-deck-2011",
            "--matches",
            "2",
            "--out",
            str(tmp_path / "r"),
            "--jobs",
            jobs,
        ],
        "sweep": ["sweep", str(spec), "--out", str(tmp_path / "w"), "--jobs", jobs],
        "design": ["design", str(design), "--out", str(tmp_path / "d"), "--jobs", jobs],
        "duel": ["duel", "--variant", "two-deck-2011", "--hands", "4", "--jobs", jobs],
        "calibrate": ["calibrate", "--hands", "40", "--jobs", jobs],
        "compare-policies": ["compare-policies", "--policies", "expert,basic", "--hands", "4", "--jobs", jobs],
        "learn collect": ["learn", "collect", "--out", str(tmp_path / "c"), "--hands", "2", "--jobs", jobs],
        "learn responses": ["learn", "responses", "--policy", "expert", "--reference", "basic", "--deals", "2"]
        + ["--jobs", jobs],
    }[command]


COMMANDS = ["simulate", "sweep", "design", "duel", "calibrate", "compare-policies", "learn collect", "learn responses"]


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


# --- ids never decide where a file goes -------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["/srv/elsewhere/ESCAPE", "../escape", "a/b", ".hidden", "x" * 65, "tab\there", ""])
def test_a_variant_id_that_is_not_an_id_is_refused(tmp_path, capsys, monkeypatch, bad):
    """An id names a run's default folder (results/<ids>-seed<S>-<hash>): never a path."""
    from simsuite.errors import toml_value

    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    f = tmp_path / "v.toml"
    f.write_text(f'extends = "school-2016"\nid = {toml_value(bad)}\n')
    code = main(["simulate", "--variant", str(f), "--matches", "2", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and ("is not an id" in err or "non-empty" in err), err
    assert list(work.iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["v.toml", "work"]


def test_a_file_stem_that_is_not_an_id_becomes_one(tmp_path):
    from simsuite.rules.variant import load_variant

    f = tmp_path / "my rules (v2).toml"
    f.write_text('extends = "school-2016"\n')
    assert load_variant(str(f)).id == "my-rules--v2-"


def _reference(tmp_path, rules_id: str, ref_id: str = "planted") -> str:
    from simsuite.errors import toml_value

    top, rules = (ROOT / "calibration" / "ejfn-tractor-2025.toml").read_text().split("[rules]\n", 1)
    top = top.replace('id = "ejfn-tractor-2025"', f"id = {toml_value(ref_id)}", 1)
    rules = rules.replace('id = "ejfn-tractor-2025"', f"id = {toml_value(rules_id)}", 1)
    path = tmp_path / "ref.toml"
    path.write_text(top + "[rules]\n" + rules)
    return str(path)


@pytest.mark.parametrize(
    "rules_id, ref_id",
    [
        ("/srv/elsewhere/ESCAPE", "planted"),
        ("../../ESCAPE", "planted"),
        ("fine", "../../ESCAPE"),
        ("fine", "/tmp/ESCAPE"),
    ],
)
def test_a_reference_id_never_names_a_file(tmp_path, capsys, rules_id, ref_id):
    code = main(["calibrate", "--reference", _reference(tmp_path, rules_id, ref_id), "--hands", "40"])
    err = capsys.readouterr().err
    assert code == 2 and "is not an id" in err and "Traceback" not in err, err
    assert not list(tmp_path.parent.glob("**/ESCAPE*")) and not (ROOT / "ESCAPE.toml").exists()


def test_a_reference_with_characters_toml_forbids_plays(tmp_path, capsys):
    """calibrate writes the reference's rules as a variant file of its own: every string escaped
    (a title or a deviation note may hold a quote, a backslash or a control character)."""
    path = Path(_reference(tmp_path, "fine-rules", "planted"))
    path.write_text(
        path.read_text().replace('name = "', 'name = "quote \\" backslash \\\\ del \\u007F nul \\u0000 ', 1)
    )
    code = main(["calibrate", "--reference", str(path), "--hands", "40", "--json"])
    assert code == 0, capsys.readouterr().err


# --- design specs: bounded work, goals that can hold ---------------------------------------------------


DESIGN_BASE = """base = "two-deck-2011"
pairings = ["expert,expert", "expert,basic"]
tradeoff = ["match_minutes", "stronger_wins"]
[goals]
match_minutes = "<= 200"
stronger_wins = ">= 0.5"
"""


@pytest.mark.parametrize(
    "body, words",
    [
        ("[grid]\nstep = { from = 20, to = 40, by = nan }\n", "a range's from, to and by must be finite numbers"),
        ("[grid]\nstep = { from = 20, to = inf, by = 5 }\n", "a range's from, to and by must be finite numbers"),
        ("[grid]\nstep = { from = 20, to = 1e600, by = 5 }\n", "a range's from, to and by must be finite numbers"),
        ("[grid]\nstep = { from = 0, to = 1000000000, by = 1 }\n", "an axis has at most 1,000"),
        (
            "[grid]\nstep = { from = 5, to = 400, by = 5 }\ntakeover = { from = 40, to = 200, by = 5 }\n",
            "cells a design plays unless asked (--max-cells",
        ),
        ("[grid]\nstep = [20, 40]\n[search]\nreps = 1000000000\n", "search.reps must be at most 10,000"),
        ("[grid]\nstep = [20, 40]\n[search]\nmatches = 1000000000000\n", "search.matches must be at most 100,000"),
        ("[grid]\nstep = [20, 40]\n[search]\ngrowth = 1000000\n", "search.growth must be at most 10"),
        ("[grid]\nstep = [20, 40]\n[search]\nreps = 1e9\n", "search.reps must be an integer"),
    ],
)
def test_a_design_spec_of_unbounded_work_is_refused_before_play(tmp_path, capsys, body, words):
    spec = tmp_path / "d.toml"
    spec.write_text(DESIGN_BASE + body)
    code = main(["design", str(spec), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and words in err and "Traceback" not in err, err
    assert not (tmp_path / "out").exists()


def test_contradictory_goals_on_one_metric_are_refused(tmp_path, capsys):
    """Goals no figure can meet together are refused before anything is played."""
    spec = tmp_path / "d.toml"
    spec.write_text(
        DESIGN_BASE.replace('match_minutes = "<= 200"', 'match_minutes = ["<= 10", ">= 20"]')
        + "[grid]\nstep = [20, 40]\n"
    )
    code = main(["design", str(spec), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and '"<= 10" and ">= 20" cannot both hold' in err, err


def test_max_cells_prices_and_raises_the_limit(tmp_path):
    from simsuite.analysis.design.spec import read_design

    spec = tmp_path / "d.toml"
    spec.write_text(DESIGN_BASE + "[grid]\nstep = [20, 30, 40]\n")
    with pytest.raises(ValueError, match="3 parameter set\\(s\\) x 2 pairing\\(s\\) = 6 cells"):
        read_design(spec, max_cells=5)
    assert len(read_design(spec, max_cells=6).sets) == 3


# --- files that are not files ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["advise", "{path}", "--variant", "two-deck-2011"],
        ["judge", "{path}"],
        ["simulate", "--variant", "{path}", "--matches", "2"],
        ["sweep", "{path}", "--out", "{tmp}/w"],
        ["design", "{path}", "--out", "{tmp}/d"],
        ["calibrate", "--reference", "{path}"],
    ],
)
@pytest.mark.parametrize("kind", ["fifo", "device", "huge"])
def test_a_file_that_never_ends_is_not_read(tmp_path, capsys, argv, kind):
    """A position file that never ends (a FIFO, a device, a huge file) is refused: only regular files
    of sane size are read."""
    import os

    if kind == "fifo":
        path = tmp_path / "pipe.toml"
        os.mkfifo(path)  # opening it for reading would wait for a writer forever
    elif kind == "device":
        path = Path("/dev/zero")
    else:
        path = tmp_path / "huge.toml"
        with open(path, "wb") as fh:
            fh.truncate(5 << 20)
    code = main([a.format(path=path, tmp=tmp_path) for a in argv])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err, err
    if kind == "huge":
        assert "at most 4,194,304" in err, err
    else:  # refused unread: as no file, or (a name without .toml) as an unknown id
        assert "not a regular file" in err or "unknown" in err, err
