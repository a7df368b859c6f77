"""`simsuite summary` opens with the answer in words (simsuite/report/headline.py, as the HTML report's
headline): every figure with its 95% interval and n, wrapped to 100 columns, then a blank line, then the
metrics table as before; `--json` stays the rows.

Two small sweeps (2 x 2 cells of 6 matches, step x take-over): one where both teams play ``basic`` (one
policy) and one of ``expert`` against ``basic`` (two policies). By variant each is one group (the headline
speaks of each group); by cell four (it names the extremes); three of the four cells' rows give the
per-group headline of three groups.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli import run_cli

from simsuite.analysis.metrics import policy_pairs, summarise
from simsuite.report.headline import group_words
from simsuite.report.summary_text import HEADLINE_WIDTH, format_headline, format_summary
from simsuite.sim.results import load
from simsuite.sim.run import sweep

FIGURE = re.compile(r"-?[\d.,]+%? \[-?[\d.,]+%?, -?[\d.,]+%?\]")  # "7.000 [6.812, 7.188]", "83% [55%, 95%]"
ONE_POLICY = "both teams play one policy; the team that declared first wins"


def _sweep(where: Path, policies: str) -> Path:
    spec = where / "grid.toml"
    spec.write_text(
        f'base = "two-deck-2011"\nmatches = 6\nseed = 3\npolicies = "{policies}"\n\n'
        "[grid]\nstep = [30, 60]\ntakeover = [80, 120]\n"
    )
    return sweep(spec, where / "run", quiet=True)


@pytest.fixture(scope="module")
def one_policy(tmp_path_factory) -> Path:
    return _sweep(tmp_path_factory.mktemp("one"), "basic,basic")


@pytest.fixture(scope="module")
def two_policies(tmp_path_factory) -> Path:
    return _sweep(tmp_path_factory.mktemp("two"), "expert,basic")


def summary(capsys, run: Path, by: str) -> tuple[list[str], str]:
    """The headline's lines (up to the first blank line) and the rest of ``simsuite summary RUN --by BY``."""
    code, out, err = run_cli(capsys, "summary", str(run), "--by", by)
    assert code == 0, err
    head, sep, rest = out.partition("\n\n")
    assert sep, out
    lines = head.splitlines()
    assert all(len(line) <= HEADLINE_WIDTH for line in lines), [len(line) for line in lines]
    return lines, rest


def table_of(run: Path, by: str) -> str:
    r = load(run)
    return format_summary(summarise(r.hands, r.matches, by=by, variants=r.variants()))


@pytest.mark.parametrize("fixture", ["one_policy", "two_policies"])
def test_one_group_opens_with_its_figures_in_words(fixture, request, capsys):
    run = request.getfixturevalue(fixture)
    lines, rest = summary(capsys, run, "variant")
    head = " ".join(line.strip() for line in lines)
    assert lines[0].startswith("two-deck-2011: a match lasts ") and lines[1].startswith("  ")  # wrapped, indented
    assert re.search(rf"a match lasts {FIGURE.pattern} hands and {FIGURE.pattern} minutes", head), head
    assert re.search(rf"a hand moves the levels by {FIGURE.pattern} on average", head), head
    assert len(FIGURE.findall(head)) == 4 and head.endswith("(n = 24 deals).")
    if fixture == "one_policy":
        assert ONE_POLICY in head and "stronger side" not in head
    else:
        assert re.search(rf"the stronger side \(expert over basic\) wins {FIGURE.pattern} of matches", head), head
    assert rest.startswith("metric ") and rest.rstrip("\n") == table_of(run, "variant")  # the table unchanged


@pytest.mark.parametrize("fixture", ["one_policy", "two_policies"])
def test_four_cells_open_with_the_extremes_in_words(fixture, request, capsys):
    run = request.getfixturevalue(fixture)
    lines, rest = summary(capsys, run, "cell")
    assert lines[0] == "4 cells, n = 6 deals per cell."
    starts = [line for line in lines if not line.startswith("  ")]
    who = "The first declarers win" if fixture == "one_policy" else "The stronger side wins"
    assert len(starts) == 4  # the sample, then one sentence a line: length, swing, who wins
    assert starts[1].startswith("Matches are longest, in minutes, under step ")
    assert starts[2].startswith("A hand swings most (mean |level change|) under ")
    assert starts[3].startswith(f"{who} most often under ")
    head = " ".join(line.strip() for line in lines)
    assert len(FIGURE.findall(head)) == 6 and "take-over " in head and "takeover=" not in head  # cells in words
    assert head.count("their intervals") == 3
    assert rest.startswith("metric ") and rest.rstrip("\n") == table_of(run, "cell")


@pytest.mark.parametrize("fixture", ["one_policy", "two_policies"])
def test_three_groups_are_each_said_with_figures_intervals_and_n(fixture, request):
    run = request.getfixturevalue(fixture)
    r = load(run)
    rows = summarise(r.hands, r.matches, by="cell", variants=r.variants())[:3]
    pairs = policy_pairs(r.matches, "cell")
    groups = [row["cell"] for row in rows]
    words = group_words(r.manifest, groups, "cell")
    text = format_headline(rows, [pairs.get(g) for g in groups], words)
    lines = text.splitlines()
    assert all(len(line) <= HEADLINE_WIDTH for line in lines)
    items = [line for line in lines if not line.startswith("  ")]
    assert [item.split(":")[0] for item in items] == [words[g] for g in groups]
    assert all(words[g].startswith("step ") for g in groups)
    for item in re.split(r"\n(?!  )", text):
        said = " ".join(line.strip() for line in item.splitlines())
        assert len(FIGURE.findall(said)) == 4 and said.endswith("(n = 6 deals).")
        assert (ONE_POLICY in said) == (fixture == "one_policy")
    assert format_summary(rows, [pairs.get(g) for g in groups], words) == text + "\n\n" + format_summary(rows)


def test_a_figure_stays_on_one_line_with_its_interval():
    row = {"variant": "x" * 60}
    est = {"value": 7.0, "low": 6.5, "high": 7.5, "n": 12}
    share = {"value": 0.5, "low": 0.25, "high": 0.75, "n": 12}
    row.update(hands_per_match=est, minutes_per_match=est, level_change_mean=est, first_declarer_win=share)
    for width in range(40, 101, 3):
        lines = format_headline([row], [None], width=width).splitlines()
        assert all(len(line) <= width for line in lines)
        for line in lines:  # no interval is cut between two lines
            assert line.count("[") == line.count("]"), line


def test_json_has_no_headline(two_policies, capsys):
    code, out, _ = run_cli(capsys, "summary", str(two_policies), "--json")
    assert code == 0 and "a match lasts" not in out
    assert [row["variant"] for row in json.loads(out)] == ["two-deck-2011"]
