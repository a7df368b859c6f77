"""The Python front door (``simsuite.load_variant``, ``simulate``, ``summarise``, ``judge``, ``advise``):
each gives what its command gives, importing ``simsuite`` stays light, and the README's Python quick
start runs as written."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import simsuite
from simsuite.cli import main
from simsuite.errors import SimsuiteError

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "examples" / "scenarios"
FRONT_DOOR = ("load_variant", "simulate", "summarise", "judge", "advise")


def command_json(capsys, *argv: str):
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_importing_simsuite_loads_neither_numba_nor_polars():
    """The front door imports its heavy modules when a function is called, never at ``import simsuite``."""
    code = (
        "import sys, simsuite; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numba', 'polars', 'pyarrow', 'simsuite')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    ).stdout
    assert eval(out) == ["simsuite"], out


def test_the_front_door_is_public_and_documented():
    assert set(simsuite.__all__) == {"__version__", *FRONT_DOOR}
    for name in FRONT_DOOR:
        doc = getattr(simsuite, name).__doc__
        assert doc and len(doc.split()) > 10, name
    assert re.fullmatch(r"\d+\.\d+\.\d+", simsuite.__version__)


def test_load_variant_by_id_and_by_path():
    v = simsuite.load_variant("huizhou")
    assert v.id == "huizhou"
    assert simsuite.load_variant(ROOT / "variants" / "huizhou.toml").rules_hash == v.rules_hash


def test_simulate_and_summarise_give_what_the_commands_give(tmp_path, capsys):
    """Six matches of two variants: the same hands as ``simsuite simulate`` with the same flags, and the
    summary rows ``simsuite summary --json`` prints, with n = deals and each estimate inside its interval."""
    run = simsuite.simulate(
        ["school-2016", "two-deck-2011"], policies="expert,basic", matches=6, seed=3, out=tmp_path / "api", quiet=True
    )
    assert run.path == tmp_path / "api"
    assert (
        main(
            [
                "simulate",
                "--variant",
                "school-2016",
                "--variant",
                "two-deck-2011",
                "--policies",
                "expert,basic",
                "--matches",
                "6",
                "--seed",
                "3",
                "--out",
                str(tmp_path / "cli"),
                "--quiet",
            ]
        )
        == 0
    )
    capsys.readouterr()
    from simsuite.sim.results import load

    cli = load(tmp_path / "cli")
    for frame, keys in (("hands", ["variant", "match", "hand"]), ("matches", ["variant", "match"])):
        ours, theirs = (
            getattr(r, frame).collect().drop("run").sort(keys) for r in (run, cli)
        )  # run: the folder's name
        assert ours.height > 0 and ours.equals(theirs), frame

    rows = simsuite.summarise(run)
    assert [r["variant"] for r in rows] == ["school-2016", "two-deck-2011"]
    for r in rows:
        assert r["n_matches"] == 6 and r["n_deals"] == 6
        assert r["n_hands"] == run.hands.collect().filter(variant=r["variant"]).height
        hpm = r["hands_per_match"]
        assert hpm["n"] == 6 and hpm["low"] <= hpm["value"] <= hpm["high"]
    assert json.loads(json.dumps(rows, default=str)) == command_json(capsys, "summary", str(tmp_path / "api"), "--json")
    assert simsuite.summarise(tmp_path / "api") == rows  # a folder's path reads the same run


def test_simulate_takes_overrides_and_hands(tmp_path):
    run = simsuite.simulate(
        "school-2016", policies="basic", hands=30, seed=2, overrides={"bottom_size": 6}, out=tmp_path / "r", quiet=True
    )
    cell = run.manifest["cells"][0]
    assert cell["overrides"] == {"bottom_size": 6}
    assert run.hands.collect().height >= 30
    with pytest.raises(SimsuiteError):
        simsuite.simulate("no-such-variant", matches=2, out=tmp_path / "bad", quiet=True)


@pytest.mark.parametrize("variant", ["huizhou", "all"])
def test_judge_rules_as_the_command_does(capsys, variant):
    path = SCENARIOS / "follow-3plus3.toml"
    ruling = simsuite.judge(path, variant)
    assert ruling == command_json(capsys, "judge", str(path), "--variant", variant, "--json")
    if variant == "huizhou":  # E's 2+2+2 to a 3+3 lead breaks huizhou's follow priority: N wins
        assert ruling["winner"] == "N" and [p["legal"] for p in ruling["plays"]] == [True, False]
    else:
        assert [r["variant"] for r in ruling] == sorted(r["variant"] for r in ruling) and len(ruling) == 5


def test_judge_uses_the_scenarios_own_variant_or_asks_for_one(tmp_path):
    own = SCENARIOS / "advise-lead.toml"  # variant = "two-deck-2011" in the file
    assert simsuite.judge(own)["variant"] == "two-deck-2011"
    bare = tmp_path / "bare.toml"
    bare.write_text(
        "\n".join(
            line
            for line in (SCENARIOS / "follow-3plus3.toml").read_text().splitlines()
            if not line.startswith("variant")
        )
    )
    with pytest.raises(SimsuiteError, match="no variant"):
        simsuite.judge(bare)


@pytest.mark.full_loop
@pytest.mark.parametrize("policy", ["expert", "search"])
def test_advise_gives_what_the_command_gives(capsys, policy):
    path = SCENARIOS / "advise-lead.toml"
    a = simsuite.advise(path, policy=policy)
    assert a.as_dict() == command_json(capsys, "advise", str(path), "--policy", policy, "--json")
    assert a.variant == "two-deck-2011" and a.choice
    if policy == "search":
        assert a.candidates and a.choice in [c[0] for c in a.candidates]
    with pytest.raises(SimsuiteError, match="one variant"):
        simsuite.advise(path, "all", policy=policy)


def readme_python_quick_start() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "README.md has no python block"
    return blocks[0]


@pytest.mark.full_loop
def test_the_readme_python_quick_start_runs_as_written(tmp_path, monkeypatch, capsys):
    """The README's first Python block, run as it is, in a folder of its own (the examples linked in)."""
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    exec(compile(readme_python_quick_start(), "README.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert (tmp_path / "results" / "quick-start" / "manifest.json").exists()
    assert out, "the quick start prints its figures"
