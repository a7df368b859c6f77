"""The command line's help: ``--version``, the commands in groups, a line of help for every option, and the
near names a mistyped key, variant id or policy gets."""

from __future__ import annotations

import argparse
import re

import pytest
from cli import one_line_error, run_cli

from simsuite.cli import COMMAND_GROUPS, _parser, package_version
from simsuite.errors import SimsuiteError, did_you_mean
from simsuite.rules.variant import override_keys


def _parsers(parser: argparse.ArgumentParser, path: tuple[str, ...] = ("simsuite",)):
    """Every parser under ``parser``, sub-commands of sub-commands too, with its command path."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, path + (name,))


def _commands(parser: argparse.ArgumentParser) -> list[str]:
    return [name for a in parser._actions if isinstance(a, argparse._SubParsersAction) for name in a.choices]


def test_version_prints_the_package_version(capsys):
    code, out, err = run_cli(capsys, "--version")
    assert code == 0 and err == ""
    assert out == f"simsuite {package_version()}\n"
    assert re.fullmatch(r"simsuite \d+\.\d+\S*\n", out)


def test_version_falls_back_to_the_source_version_where_not_installed(monkeypatch):
    import importlib.metadata

    import simsuite

    def not_installed(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", not_installed)
    assert package_version() == simsuite.__version__


def test_every_option_of_every_command_has_help():
    missing = [
        f"{' '.join(path)} {'/'.join(a.option_strings) or a.dest}"
        for path, parser in _parsers(_parser())
        for a in parser._actions
        if not a.help and not isinstance(a, argparse._SubParsersAction)
    ]
    assert not missing, f"options without help: {missing}"


def test_every_command_has_help():
    missing = [
        f"{' '.join(path)} {c.dest}"
        for path, parser in _parsers(_parser())
        for a in parser._actions
        if isinstance(a, argparse._SubParsersAction)
        for c in a._get_subactions()
        if not c.help
    ]
    assert not missing, f"commands without help: {missing}"


def test_command_groups_hold_every_command_once():
    grouped = [name for _, names in COMMAND_GROUPS for name in names]
    assert sorted(grouped) == sorted(_commands(_parser()))
    assert len(grouped) == len(set(grouped))


def test_help_lists_the_commands_under_their_groups(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # one line per command
    code, out, err = run_cli(capsys, "--help")
    assert code == 0 and err == ""
    assert out.startswith("usage: simsuite [-h] [--version] COMMAND ...")
    assert "{" not in out  # argparse's flat {variants,show,...} list is hidden by the metavar
    lines = out.splitlines()
    for title, names in COMMAND_GROUPS:
        at = lines.index(f"  {title}:")
        listed = [line.split()[0] for line in lines[at + 1 : at + 1 + len(names)]]
        assert listed == list(names), (title, listed)
    assert (
        lines.index("  rules and rulings:")
        < lines.index("  play:")
        < lines.index("  runs:")
        < lines.index("  analysis:")
        < lines.index("  development:")
    )
    assert "  --version" in out


def test_summary_by_help_says_groups_are_columns(capsys):
    from simsuite.report.summary_text import format_summary

    code, out, _ = run_cli(capsys, "summary", "--help")
    assert code == 0 and "one column per group" in " ".join(out.split())
    rows = [{"variant": v, "n_matches": 3, "n_hands": 30} for v in ("school-2016", "huizhou")]
    header = format_summary(rows).splitlines()[0].split()
    assert header == ["metric", "school-2016", "huizhou"]  # what the help says: the groups run across


# --- did you mean: the near names, not every name ---------------------------------------------------


def test_did_you_mean_names_the_near_choices_or_nothing():
    assert did_you_mean("bottom_sise", override_keys()) == " (did you mean 'bottom_size'?)"
    assert did_you_mean("Expert", ["random", "basic", "expert"]) == " (did you mean 'expert'?)"
    assert did_you_mean("ab", ["abxy", "abc", "xyz"]) == " (did you mean 'abc' or 'abxy'?)"  # nearest first
    assert did_you_mean("qqqq", override_keys()) == ""


def test_set_key_typo_names_the_near_key_not_every_key(capsys):
    code, _, err = run_cli(capsys, "bury", "--variant", "school-2016", "--set", "bottom_sise=4", "--hands", "10")
    line = one_line_error(
        code,
        err,
        "--set: unknown key 'bottom_sise' (did you mean 'bottom_size'?)",
        "simsuite show VARIANT",
        command="bury",
    )
    assert "capture_per_card" not in line and len(line) < 200


def test_set_key_far_from_every_key_points_to_show(capsys):
    code, _, err = run_cli(capsys, "bury", "--variant", "school-2016", "--set", "qqqq=4", "--hands", "10")
    line = one_line_error(
        code,
        err,
        "unknown key 'qqqq';",
        f"the {len(override_keys())} rule keys",
        "simsuite show VARIANT",
        command="bury",
    )
    assert "did you mean" not in line and "bottom_size" not in line


def test_variant_id_typo_names_the_near_id(capsys):
    code, _, err = run_cli(capsys, "show", "school2016")
    one_line_error(code, err, "unknown variant id (did you mean 'school-2016'?)", "known ids:", command="show")


def test_policy_typo_names_the_near_policy(capsys):
    code, _, err = run_cli(capsys, "duel", "--policies", "exprt,basic", "--variant", "school-2016", "--hands", "2")
    one_line_error(code, err, "unknown policy 'exprt' (did you mean 'expert'", "built-in policies", command="duel")


def test_policy_typo_in_a_pair_names_the_near_policy(capsys, tmp_path):
    code, _, err = run_cli(
        capsys,
        "simulate",
        "--variant",
        "school-2016",
        "--policies",
        "expert,basc",
        "--matches",
        "2",
        "--out",
        str(tmp_path / "run"),
        "--quiet",
    )
    one_line_error(code, err, "unknown policy 'basc' (did you mean 'basic'?)", command="simulate")
    assert not (tmp_path / "run").exists()


def test_loaded_policy_typo_names_the_near_built_in():
    from simsuite.play.loader import load_policy

    with pytest.raises(SimsuiteError, match=r"not a built-in policy .* \(did you mean 'random'\?\)$"):
        load_policy("randm")


def test_help_lists_a_command_without_a_group_under_other(capsys, monkeypatch):
    import simsuite.cli as cli

    monkeypatch.setattr(
        cli, "COMMAND_GROUPS", tuple((t, tuple(n for n in names if n != "columns")) for t, names in cli.COMMAND_GROUPS)
    )
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run_cli(capsys, "--help")
    lines = out.splitlines()
    assert code == 0 and lines[lines.index("  other:") + 1].split()[0] == "columns"


# --- argparse's own errors: one line too --------------------------------------------------------------


def test_command_typo_names_the_near_command(capsys):
    code, out, err = run_cli(capsys, "dule", "--hands", "2")
    assert code == 2 and out == ""
    assert err == (
        "simsuite: error: unknown command 'dule' (did you mean 'duel'?); simsuite --help lists the commands\n"
    )


def test_option_typo_names_the_near_option(capsys):
    code, _, err = run_cli(capsys, "duel", "--polices", "expert,basic")
    one_line_error(
        code,
        err,
        "unrecognized arguments: --polices expert,basic (did you mean '--policies'?)",
        "simsuite duel --help gives the options",
        command="duel",
    )


def test_learn_step_option_typo_names_the_step(capsys):
    code, _, err = run_cli(capsys, "learn", "train", "data", "--out", "m.npz", "--max-row", "5", "--jsn")
    one_line_error(code, err, "unrecognized arguments: --jsn (did you mean '--json'?)", command="learn train")


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["duel", "--hands", "abc"], "argument --hands: invalid int value: 'abc'"),
        (["show"], "the following arguments are required: variant"),
        (["summary", "results", "--by", "row"], "argument --by: invalid choice: 'row'"),
        (["duel", "--hands", "2", "--matches", "2"], "argument --matches: not allowed with argument --hands"),
        (["duel", "--variant", "huizhou", "--variant", "school-2016"], "--variant given twice"),
    ],
)
def test_argparse_errors_are_one_line_without_the_usage_block(capsys, argv, needle):
    code, _, err = run_cli(capsys, *argv)
    line = one_line_error(code, err, needle, f"simsuite {argv[0]} --help gives the options", command=argv[0])
    assert "usage:" not in line
