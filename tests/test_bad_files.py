"""Every bad input file gets one clear line on stderr and exit 2, before anything is played or written.

Variant files, sweep specs, scenarios and positions, design specs and a learned model, each broken the
ways a user's file can be: values out of range or not finite, loops, policy import paths where data
belong, entries nothing uses. Random values in every numeric variant field and every sweep spec key
either validate or give one error naming the field, and no spec ever imports a policy.
"""

from __future__ import annotations

import json
import shutil
import types
from pathlib import Path

import pytest
from cli import one_line_error, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from simsuite.analysis.design.spec import read_design
from simsuite.analysis.design.store import variant_toml
from simsuite.errors import SimsuiteError, VariantError
from simsuite.rules.variant import SPECS, load_variant
from simsuite.sim.sweep import plan_sweep

ROOT = Path(__file__).resolve().parent.parent
TINY_DESIGN = ROOT / "tests" / "designs" / "tiny.toml"
BASE = 'extends = "school-2016"\n'
MARKER = "imported.marker"  # what evil.py writes if anything imports it


def variant_file(tmp: Path, body: str, name: str = "v.toml") -> str:
    p = tmp / name
    p.write_text(BASE + body, encoding="utf-8")
    return str(p)


def spec_file(tmp: Path, body: str) -> str:
    p = tmp / "spec.toml"
    p.write_text(body, encoding="utf-8")
    return str(p)


def evil_policy(tmp: Path) -> str:
    p = tmp / "evil.py"
    p.write_text(f"open({str(tmp / MARKER)!r}, 'w').write('ran')\nclass Evil: pass\n", encoding="utf-8")
    return f"{p}:Evil"


# --- variant files ---------------------------------------------------------------------------------

VARIANT_CASES = [
    # (case, body after extends, needles)
    ("decks 10**20", "[deal]\ndecks = 100000000000000000000\n", ["decks", "out of range"]),
    (
        "capture_per_card 10**30",
        "[capture]\ncapture_per_card = 1000000000000000000000000000000\n",
        ["capture_per_card", "out of range"],
    ),
    ("seconds_per_trick inf", "[match]\nseconds_per_trick = inf\n", ["seconds_per_trick", "finite"]),
    ("hand_overhead_minutes nan", "[match]\nhand_overhead_minutes = nan\n", ["hand_overhead_minutes", "finite"]),
    ("seconds_per_trick nan", "[match]\nseconds_per_trick = nan\n", ["seconds_per_trick", "finite"]),
    ("match_minutes 10**12", "[match]\nmatch_minutes = 1000000000000\n", ["match_minutes", "out of range"]),
    (
        "hands_after_warning 10**9",
        "[match]\nhands_after_warning = 1000000000\n",
        ["hands_after_warning", "out of range"],
    ),
    ("decks 130", "[deal]\ndecks = 130\n", ["decks", "from 1 to 4"]),
    ("decks 100000", "[deal]\ndecks = 100000\n", ["decks", "from 1 to 4"]),
    ("capture_per_card 100000", "[capture]\ncapture_per_card = 100000\n", ["capture_per_card", "from 0 to 100"]),
    (
        "hand_overhead_minutes -1",
        "[match]\nhand_overhead_minutes = -1.0\n",
        ["hand_overhead_minutes", "from 0 to 1440"],
    ),
]


@pytest.mark.parametrize("case, body, needles", VARIANT_CASES, ids=[c[0] for c in VARIANT_CASES])
def test_bad_variant_field_is_refused_before_play(capsys, tmp_path, case, body, needles):
    path = variant_file(tmp_path, body)
    for argv in (["show", path], ["simulate", "--variant", path, "--matches", "2", "--out", str(tmp_path / "r")]):
        code, _, err = run_cli(capsys, *argv)
        one_line_error(code, err, path, *needles)
    assert not (tmp_path / "r").exists()  # refused before anything was written


def test_every_problem_in_a_variant_file_is_listed_in_one_error(capsys, tmp_path):
    """One error line says how many problems the file has; one indented line under it names each."""
    path = variant_file(tmp_path, "[deal]\ndecks = 0\n[match]\nseconds_per_trick = nan\n")
    for argv in (["show", path], ["simulate", "--variant", path, "--matches", "2", "--out", str(tmp_path / "r")]):
        code, _, err = run_cli(capsys, *argv)
        one_line_error(
            code,
            err,
            path,
            "2 problems:",
            "- [deal] decks = 0: out of range: must be from 1 to 4",
            "- [match] seconds_per_trick = nan: must be a finite number",
            command=argv[0],
            listed=True,
        )
    assert not (tmp_path / "r").exists()


def test_extends_loop_through_a_path_without_toml_is_named(capsys, tmp_path):
    """Two files that extend each other by paths without .toml: the cycle is named."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text(f'extends = "{b}"\n')
    b.write_text(f'extends = "{a}"\n')
    one_line_error(*run_cli(capsys, "show", str(a))[::2], "extends forms a cycle", command="show")


NUMERIC = [s for s in SPECS if s.kind in ("int", "float")]
WILD = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5),
    st.booleans(),
)


@settings(max_examples=150, deadline=None)
@given(field=st.sampled_from(NUMERIC), value=WILD)
def test_any_value_in_a_numeric_field_is_accepted_or_named(field, value):
    """No value in any numeric field raises anything but the one-line error naming the field."""
    base = load_variant("school-2016")
    try:
        v = base.with_overrides({field.name: value})
    except VariantError as exc:
        assert "] " in str(exc), exc  # names a field as "[section] key"
        return
    assert field.minimum is None or getattr(v, field.name) >= field.minimum
    assert field.maximum is None or getattr(v, field.name) <= field.maximum


# --- sweep specs: data that must never run code -----------------------------------------------------

SPEC_CASES = [
    ("policies import path", 'base = "school-2016"\nmatches = 2\npolicies = "expert,{evil}"\n', ["import path"]),
    (
        "grid policies import path",
        'base = "school-2016"\nmatches = 2\n[grid]\npolicies = ["expert,basic", "{evil},basic"]\n',
        ["grid.policies", "import path"],
    ),
    (
        "cells policies import path",
        'base = "school-2016"\nmatches = 2\n[[cells]]\npolicies = "{evil}"\n',
        ["cells[0].policies", "import path"],
    ),
    ("this:Nope", 'base = "school-2016"\npolicies = "this:Nope"\n', ["'this:Nope'", "import path"]),
    ("matches 10**9", 'base = "school-2016"\nmatches = 1000000000\n', ["matches = 1,000,000,000", "chunks"]),
    (
        "matches 10**8 in one chunk",
        'base = "school-2016"\nmatches = 100000000\nchunk = 100000000\n',
        ["a chunk of 100,000,000 matches", "GB of memory"],
    ),  # ~1.4 TB: any machine refuses
    (
        "grid decks [10**9]",
        'base = "school-2016"\nmatches = 2\n[grid]\ndecks = [1000000000]\n',
        ["decks=1000000000", "from 1 to 4"],
    ),
    ("seed 2**64", 'base = "school-2016"\nseed = 18446744073709551616\n', ["seed must be at most"]),
    ("grid nan", 'base = "school-2016"\n[grid]\nseconds_per_trick = [nan]\n', ["seconds_per_trick", "finite"]),
]


@pytest.mark.parametrize("case, body, needles", SPEC_CASES, ids=[c[0] for c in SPEC_CASES])
def test_bad_sweep_spec_runs_no_code_and_says_why(capsys, tmp_path, case, body, needles):
    path = spec_file(tmp_path, body.replace("{evil}", evil_policy(tmp_path)))
    code, out, err = run_cli(capsys, "sweep", path, "--out", str(tmp_path / "run"))
    one_line_error(code, err, path, *needles, command="sweep", listed=True)
    assert not (tmp_path / MARKER).exists(), "a spec file made simsuite import its policy"
    assert "Beautiful is better than ugly" not in out + err  # `import this` prints the Zen
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    "tail, words",
    [
        (
            "[grid]\ndecks = [2, 3]\n[decks_scaling]\n9 = { bottom_size = 8 }\n",
            "decks_scaling.9: a deck count is 1 to 4",
        ),
        ("[grid]\nstep = [20, 40]\n[decks_scaling]\n2 = { bottom_size = 8 }\n", "no grid or cell sets decks"),
    ],
    ids=["nine decks", "no decks in the grid"],
)
def test_a_sweeps_decks_scaling_that_nothing_uses_is_refused(tmp_path, capsys, tail, words):
    """Entries for a deck count no variant has, or a [decks_scaling] with no decks in the grid, are
    refused rather than ignored."""
    spec = tmp_path / "s.toml"
    spec.write_text('base = "school-2016"\nmatches = 2\n' + tail)
    one_line_error(
        *run_cli(capsys, "sweep", str(spec), "--out", str(tmp_path / "o"), "--quiet")[::2], words, command="sweep"
    )
    assert not (tmp_path / "o").exists()


TOML_WILD = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(),
    st.text(alphabet="abc:,./ ", max_size=12),
    st.lists(st.integers(-3, 12), max_size=3),
)


@settings(max_examples=60, deadline=None)
@given(
    key=st.sampled_from(
        [
            "matches",
            "hands",
            "seed",
            "chunk",
            "duplicate",
            "policies",
            "base",
            "grid.decks",
            "grid.bottom_size",
            "grid.policies",
            "grid.seconds_per_trick",
        ]
    ),
    value=TOML_WILD,
)
def test_any_value_in_a_sweep_spec_is_planned_or_refused_in_one_error(tmp_path_factory, key, value):
    """Rule: a spec value either validates or gives one SimsuiteError; nothing else escapes, and
    validating never imports a policy."""
    spec = {"base": "school-2016", "matches": 2, "chunk": 1}
    if key.startswith("grid."):
        spec["grid"] = {key[5:]: value if isinstance(value, list) and value else [value]}
    else:
        spec[key] = value
    folder = tmp_path_factory.mktemp("spec")
    path = folder / "spec.toml"
    path.write_text(_toml(spec), encoding="utf-8")
    try:
        plan_sweep(path, folder / "run")
    except SimsuiteError as exc:
        assert str(exc)
    assert not (folder / "run").exists()


def _toml(spec: dict) -> str:
    """A tiny TOML writer for the fuzzed spec (json spells every value TOML also reads, but nan/inf)."""

    def value(v):
        if isinstance(v, float) and v != v:
            return "nan"
        if isinstance(v, float) and v in (float("inf"), float("-inf")):
            return "inf" if v > 0 else "-inf"
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return json.dumps(v)

    top = [f"{k} = {value(v)}" for k, v in spec.items() if not isinstance(v, dict)]
    tables = [
        f"[{k}]\n" + "\n".join(f"{kk} = {value(vv)}" for kk, vv in v.items())
        for k, v in spec.items()
        if isinstance(v, dict)
    ]
    return "\n".join(top + tables) + "\n"


# --- scenarios and positions ------------------------------------------------------------------------

SCENARIO = ROOT / "examples" / "scenarios" / "last-trick-capture.toml"
FOLLOW = ROOT / "examples" / "scenarios" / "advise-follow.toml"


@pytest.mark.parametrize(
    "points, needles",
    [
        (10**30, ["defender_points", "out of range"]),
        (-(10**30), ["defender_points", "out of range"]),
        ('"sixty"', ["defender_points must be an integer"]),
    ],
)
def test_bad_scenario_end_points(capsys, tmp_path, points, needles):
    text = SCENARIO.read_text(encoding="utf-8").replace("defender_points = 60", f"defender_points = {points}")
    p = tmp_path / "s.toml"
    p.write_text(text, encoding="utf-8")
    one_line_error(*run_cli(capsys, "judge", str(p), "--variant", "school-2016")[::2], *needles, command="judge")


@pytest.mark.parametrize(
    "extra, words",
    [
        ('\n[shown]\nE = "CA CA"\n', "[shown] E = CA CA: E is to move and does not hold CA"),
        ('\n[shown]\nE = "C5"\n', "E is to move and does not hold C5"),
    ],
    ids=["shown beyond the decks", "shown not held"],
)
def test_advise_refuses_shown_cards_the_seat_to_move_does_not_hold(tmp_path, capsys, extra, words):
    """The seat to move's own [shown] cards are still in its hand: cards it does not hold (five copies
    of a three-deck card among them) are refused."""
    path = tmp_path / "p.toml"
    path.write_text(FOLLOW.read_text() + extra)
    one_line_error(*run_cli(capsys, "advise", str(path), "--policy", "expert")[::2], words, command="advise")


def test_advise_refuses_other_seats_hands_the_decks_cannot_hold(tmp_path, capsys):
    """Other seats' [hands] are not read, but a hand that breaks the deck count is no position."""
    text = FOLLOW.read_text().replace("[hands]\n", '[hands]\nN = "S2"\n', 1)
    path = tmp_path / "p.toml"
    path.write_text(text)
    one_line_error(
        *run_cli(capsys, "advise", str(path), "--policy", "expert")[::2],
        "[hands] of the other seats with the cards played and the bottom: 4 x S2",
        command="advise",
    )


# --- design specs and learned models ----------------------------------------------------------------


@pytest.mark.parametrize(
    "change, words",
    [
        (('match_minutes = "<= 95"', 'match_minutes = "<= -5"'), "match_minutes is never negative"),
        (
            ('base = "two-deck-2011"', 'base = "two-deck-2011.toml"'),
            "a relative path is read from the folder the command runs in",
        ),
    ],
    ids=["goal below zero", "base beside the spec"],
)
def test_design_specs_that_cannot_mean_what_they_say(tmp_path, capsys, monkeypatch, change, words):
    text = TINY_DESIGN.read_text()
    assert change[0] in text
    (tmp_path / "spec").mkdir()
    shutil.copy(ROOT / "variants" / "two-deck-2011.toml", tmp_path / "spec")
    spec = tmp_path / "spec" / "s.toml"
    spec.write_text(text.replace(*change))
    monkeypatch.chdir(tmp_path)
    one_line_error(*run_cli(capsys, "design", str(spec), "--out", str(tmp_path / "o"))[::2], words, command="design")
    assert not (tmp_path / "o").exists()


def test_a_design_pairing_with_the_weaker_policy_first_is_refused(tmp_path, capsys):
    """pairings = ["basic,expert", ...] is refused: stronger_wins reads the first policy as the stronger."""
    spec = tmp_path / "s.toml"
    spec.write_text(TINY_DESIGN.read_text().replace('"expert,basic"', '"basic,expert"'))
    one_line_error(
        *run_cli(capsys, "design", str(spec), "--out", str(tmp_path / "o"))[::2],
        "pairings: 'basic,expert' puts the weaker policy first",
        command="design",
    )


@pytest.mark.parametrize("stem", ["a" * 70, "we ird$'x\"", 'nl\nid = "evil"\n[x]'], ids=["long", "quotes", "newlines"])
def test_designs_recommended_rules_load_whatever_the_specs_name(tmp_path, stem):
    """recommended.toml loads whatever the spec's file is called: its id is at most 64 characters and
    quotes nothing from the name, and a newline in the path stays inside its comment line."""
    path = tmp_path / f"{stem}.toml"
    shutil.copy(TINY_DESIGN, path)
    spec = read_design(path, 500)
    chosen = types.SimpleNamespace(params={"step": 30}, variant=spec.sets[0].variant)
    out = tmp_path / "recommended.toml"
    out.write_text(variant_toml(chosen, spec))
    v = load_variant(str(out))
    assert v.id.startswith("design-") and len(v.id) <= 64
    assert out.read_text().splitlines()[0].startswith("# The rules simsuite design recommends")
    assert out.read_text().splitlines()[1].startswith("# Written by simsuite design")


def test_a_broken_learned_model_is_refused_before_any_folder_is_made(tmp_path, capsys, monkeypatch):
    """simulate and design refuse a broken SIMSUITE_MODEL in one message before they play a chunk or make
    a folder, as every other command does."""
    bad = tmp_path / "garbage.npz"
    bad.write_bytes(b"not a model")
    monkeypatch.setenv("SIMSUITE_MODEL", str(bad))
    out = tmp_path / "run"
    one_line_error(
        *run_cli(
            capsys,
            "simulate",
            "--variant",
            "school-2016",
            "--policies",
            "learned,expert",
            "--matches",
            "2",
            "--out",
            str(out),
            "--quiet",
        )[::2],
        "the learned policy's model (from SIMSUITE_MODEL)",
    )
    assert not out.exists()
    spec = tmp_path / "d.toml"
    spec.write_text(TINY_DESIGN.read_text().replace('"expert,basic"', '"learned,basic"'))
    one_line_error(
        *run_cli(capsys, "design", str(spec), "--out", str(tmp_path / "d"), "--quiet")[::2],
        "the learned policy's model (from SIMSUITE_MODEL)",
    )
    assert not (tmp_path / "d").exists()
