"""``simsuite play --set KEY=VALUE`` plays a variant with some fields changed, and the command an
engine error prints to reproduce a failed match carries those overrides, so that it replays the
very rules that failed."""

from __future__ import annotations

import json
import shlex

import pytest
from cli import one_line_error, run_cli

from simsuite.engine import match as M
from simsuite.errors import SimsuiteError
from simsuite.rules.variant import load_variant
from simsuite.sim import executor
from simsuite.sim import match as sim_match


def test_play_with_set_deals_the_overridden_bottom(capsys):
    code, out, err = run_cli(
        capsys, "play", "--variant", "school-2016", "--seed", "7", "--set", "bottom_size=10", "--json"
    )
    assert code == 0, err
    history = json.loads(out)["history"]
    assert len(history["bottom"].split()) == 10
    assert all(len(cards.split()) == (162 - 10) // 4 for cards in history["deal"].values())


def test_play_with_several_sets_plays_a_match(capsys):
    code, out, err = run_cli(
        capsys,
        "play",
        "--variant",
        "two-deck-2011",
        "--seed",
        "3",
        "--set",
        "bottom_size=4",
        "--set",
        "takeover=60",
        "--match",
        "--policies",
        "basic",
    )
    assert code == 0, err
    assert "two-deck-2011: match 0 of seed 3" in out


@pytest.mark.parametrize(
    "argv, needles",
    [
        (["--set", "bottom_size=8"], ["bottom_size = 8 does not divide the deal evenly", "2, 6, 10"]),
        (["--set", "decks=5"], ["decks = 5", "from 1 to 4", "216 cards"]),
        (["--set", "no_such_key=1"], ["unknown key 'no_such_key'"]),
        (["--set", "bottom_size"], ["--set expects key=value"]),
        (["--set", "step=10", "--set", "step=20"], ["--set step is given twice"]),
    ],
)
def test_play_refuses_a_bad_set_in_one_line(capsys, argv, needles):
    code, _, err = run_cli(capsys, "play", "--variant", "school-2016", "--seed", "1", *argv)
    one_line_error(code, err, *needles, command="play")


def _fail_match(monkeypatch, bad: int):
    """The compiled match loop reports an illegal play in match ``bad`` (an engine error, injected)."""
    real = sim_match.play_matches

    def fake(P, clock, key, start, count, *rest):
        real(P, clock, key, start, count, *rest)
        recs = rest[3]  # after pols, max_hands and W
        if start <= bad < start + count:
            recs[bad - start, M.M_ERROR] = 1

    monkeypatch.setattr(sim_match, "play_matches", fake)


def _replayed_variant(monkeypatch, capsys, command: str):
    """Run ``command`` (a ``simsuite play ... --match`` line) and return the variant it played."""
    seen = []
    real = sim_match.play_match

    def spy(variant, *args, **kwargs):
        seen.append(variant)
        return real(variant, *args, **kwargs)

    monkeypatch.setattr(sim_match, "play_match", spy)
    argv = shlex.split(command)
    assert argv[0] == "simsuite"
    code, _, err = run_cli(capsys, *argv[1:])
    assert code == 0, err
    (variant,) = seen
    return variant


def test_an_engine_error_prints_a_play_command_with_the_overrides(monkeypatch, capsys):
    v = load_variant("school-2016").with_overrides(
        {"bottom_size": 10, "follow_order": ["tt", "long", "pairs"], "throws": False}, source="school-2016 with --set"
    )
    _fail_match(monkeypatch, 3)
    with pytest.raises(SimsuiteError) as info:
        sim_match.play_match_batch(v, 5, 0, 4, "expert,basic")
    message = str(info.value)
    command = message.split("reproduce it with: ")[1]
    assert command == (
        "simsuite play --variant school-2016 --set bottom_size=10 --set follow_order=tt,long,pairs "
        "--set throws=false --seed 5 --match --match-index 3 --policies expert,basic"
    )
    monkeypatch.undo()
    replayed = _replayed_variant(monkeypatch, capsys, command)
    assert replayed.rules_hash == v.rules_hash


def test_a_failed_simulate_chunk_prints_a_play_command_with_the_overrides(tmp_path, monkeypatch, capsys):
    real = executor.play_match_batch

    def fake(variant, seed, start, count, policies="basic", max_hands=None):
        if start <= 2 < start + count:
            raise SimsuiteError("injected")
        return real(variant, seed, start, count, policies, max_hands)

    monkeypatch.setattr(executor, "play_match_batch", fake)
    code, _, err = run_cli(
        capsys,
        "simulate",
        "--variant",
        "two-deck-2011",
        "--set",
        "bottom_size=4",
        "--set",
        "throws=false",
        "--matches",
        "4",
        "--chunk",
        "2",
        "--seed",
        "9",
        "--out",
        str(tmp_path / "run"),
        "--quiet",
        "--jobs",
        "1",
    )
    line = one_line_error(
        code,
        err,
        "SimsuiteError: injected",
        "reproduce with: simsuite play --variant two-deck-2011 "
        "--set bottom_size=4 --set throws=false --seed 9 --match --match-index 2 --policies expert,basic",
    )
    command = line.split("reproduce with: ")[1].split("; then resume")[0]
    monkeypatch.undo()
    replayed = _replayed_variant(monkeypatch, capsys, command)
    assert (
        replayed.rules_hash
        == load_variant("two-deck-2011").with_overrides({"bottom_size": 4, "throws": False}).rules_hash
    )


def test_the_play_command_of_a_variant_file_names_the_file_and_only_what_was_set(tmp_path, monkeypatch, capsys):
    path = tmp_path / "club.toml"
    path.write_text('extends = "school-2016"\n[deal]\nbottom_size = 10\n', encoding="utf-8")
    v = load_variant(str(path)).with_overrides({"throws": False}, source=f"{path} with --set")
    _fail_match(monkeypatch, 0)
    with pytest.raises(SimsuiteError) as info:
        sim_match.play_match_batch(v, 2, 0, 1, "basic")
    command = str(info.value).split("reproduce it with: ")[1]
    assert command == (
        f"simsuite play --variant {shlex.quote(str(path))} --set throws=false --seed 2 --match "
        "--match-index 0 --policies basic"
    )
    monkeypatch.undo()
    assert _replayed_variant(monkeypatch, capsys, command).rules_hash == v.rules_hash


def test_the_trace_of_a_hand_with_set_names_the_overrides_in_its_header(capsys):
    code, out, err = run_cli(
        capsys,
        "play",
        "--variant",
        "school-2016",
        "--seed",
        "7",
        "--set",
        "bottom_size=10",
        "--set",
        "throws=False",
        "--ascii",
    )
    assert code == 0, err
    name = load_variant("school-2016").name
    assert out.splitlines()[0] == f"variant school-2016 with bottom_size=10, throws=false: {name}"
    code, out, err = run_cli(capsys, "play", "--variant", "school-2016", "--seed", "7", "--ascii")
    assert code == 0, err
    assert out.splitlines()[0] == f"variant school-2016: {name}"
