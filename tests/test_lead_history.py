"""The lead history of a run (simsuite.analysis.lead_history) and its fan chart (simsuite.report.plots).

Hand-built frames whose level paths are known give quantiles known exactly (numpy's linear interpolation
between order statistics): matches that end early keep their final difference; a pair of different
policies is read from the same policy's team at both tables of a duplicate deal. Then bad input, the
figure, and the section of a small real run's report.
"""

from __future__ import annotations

import base64
import io
import re
import time

import numpy as np
import polars as pl
import pytest
from PIL import Image

from simsuite.analysis.lead_history import Q_COLUMNS, SCHEMA, lead_history
from simsuite.errors import SimsuiteError
from simsuite.report.html import build_report
from simsuite.report.page import new_figure
from simsuite.report.plots import fan_chart, lead_history_figure
from simsuite.sim.results import load
from simsuite.sim.run import simulate
from simsuite.sim.schema import HAND_SCHEMA


def match_rows(
    diffs: list[int],
    *,
    match: int,
    cell: str = "c",
    ns: str = "basic",
    ew: str = "basic",
    swapped: bool = False,
    start: int = 0,
) -> list[dict]:
    """The hand rows of one match whose N-S minus E-W level difference after each hand is ``diffs``: each
    hand one team gains the change (the other nothing), both teams starting at ``start``."""
    rows, level, prev = [], [start, start], 0
    for hand, d in enumerate(diffs):
        gain = (d - prev, 0) if d >= prev else (0, prev - d)
        rows.append(
            {
                "run": "r",
                "variant": "v",
                "cell": cell,
                "match": match,
                "hand": hand,
                "seed": 1,
                "policy_ns": ns,
                "policy_ew": ew,
                "swapped": swapped,
                "level_before_ns": level[0],
                "level_before_ew": level[1],
                "levels_ns": gain[0],
                "levels_ew": gain[1],
            }
        )
        level = [level[0] + gain[0], level[1] + gain[1]]
        prev = d
    return rows


def frame(*matches: list[dict]) -> pl.DataFrame:
    return pl.DataFrame([r for m in matches for r in m]).cast({"hand": pl.Int32, "match": pl.Int64})


# five equal-pair matches: two end early (after one hand and after two) and keep their final difference
EQUAL_PATHS = ([1, 2, 3], [0, -1, -2], [2], [-1, 0, 1], [0, 0])
EQUAL = frame(*(match_rows(p, match=i) for i, p in enumerate(EQUAL_PATHS)))


def quantiles(out: pl.DataFrame) -> np.ndarray:
    """The quantile columns, a row per hand count."""
    return out.select(Q_COLUMNS).to_numpy()


def test_equal_pair_quantiles_are_known_exactly_and_ended_matches_carry_forward():
    out = lead_history(EQUAL)
    assert out.schema == pl.Schema(SCHEMA)
    assert out["hand"].to_list() == [1, 2, 3]
    assert out["cell"].to_list() == ["c"] * 3 and out["equal"].all()
    assert out["policy_a"].to_list() == out["policy_b"].to_list() == ["basic"] * 3
    # after 1 hand: -1 0 0 1 2; after 2: -1 0 0 2 2 (2 and 0 carried); after 3: -2 0 1 2 3 (2 and 0 carried)
    assert quantiles(out) == pytest.approx(
        np.array(
            [
                [-0.8, 0.0, 0.0, 1.0, 1.8],
                [-0.8, 0.0, 0.0, 2.0, 2.0],
                [-1.6, 0.0, 1.0, 2.0, 2.8],
            ]
        )
    )
    assert out["n"].to_list() == [5, 5, 5]
    assert out["playing"].to_list() == pytest.approx([1.0, 0.8, 0.6])
    # the same as numpy's quantiles of the carried-forward matrix
    padded = np.array([p + [p[-1]] * (3 - len(p)) for p in EQUAL_PATHS], float)
    assert quantiles(out) == pytest.approx(np.quantile(padded, [0.05, 0.25, 0.5, 0.75, 0.95], axis=0).T)


def test_max_hands_stops_the_history_early():
    out = lead_history(EQUAL, max_hands=2)
    assert out["hand"].to_list() == [1, 2]
    assert out.equals(lead_history(EQUAL).head(2))
    assert lead_history(EQUAL, max_hands=50).height == 3  # never past the longest match


# a stronger pair, duplicate: at the swapped table basic sits N-S, so expert minus basic is E-W minus N-S
DUPLICATE = frame(
    match_rows([1, 2], match=0, ns="expert", ew="basic"),
    match_rows([-1, -3], match=0, ns="basic", ew="expert", swapped=True),
    match_rows([0, -1], match=1, ns="expert", ew="basic"),
    match_rows([2, 2], match=1, ns="basic", ew="expert", swapped=True),
)


def test_the_sign_follows_the_first_named_policys_team_through_the_swapped_table():
    out = lead_history(DUPLICATE)
    assert out["policy_a"].to_list() == ["expert"] * 2 and out["policy_b"].to_list() == ["basic"] * 2
    assert not out["equal"].any() and out["n"].to_list() == [4, 4]
    # expert minus basic after 1 hand: 1, 1, 0, -2; after 2: 2, 3, -1, -2
    assert quantiles(out) == pytest.approx(np.array([[-1.7, -0.5, 0.5, 1.0, 1.0], [-1.85, -1.25, 0.5, 2.25, 2.85]]))
    # read from basic's team instead: the mirror image
    flipped = lead_history(DUPLICATE, first={"c": "basic"})
    assert flipped["policy_a"].to_list() == ["basic"] * 2
    assert quantiles(flipped) == pytest.approx(-quantiles(out)[:, ::-1])


def test_cells_and_pairings_are_kept_apart():
    both = pl.concat([EQUAL, DUPLICATE.with_columns(cell=pl.lit("d"))])
    out = lead_history(both)
    assert out.select("cell", "policy_a", "policy_b").unique(maintain_order=True).rows() == [
        ("c", "basic", "basic"),
        ("d", "expert", "basic"),
    ]
    assert out.filter(pl.col("cell") == "c").drop("cell").equals(lead_history(EQUAL).drop("cell"))


def test_rows_in_any_order_give_the_same_history():
    both = pl.concat([EQUAL, DUPLICATE.with_columns(cell=pl.lit("d"))])
    assert lead_history(both.sample(fraction=1.0, shuffle=True, seed=5)).equals(lead_history(both))


def test_an_equal_pair_duplicate_copy_is_counted_once():
    copies = EQUAL.with_columns(swapped=pl.lit(True))
    assert lead_history(pl.concat([EQUAL, copies])).equals(lead_history(EQUAL))


def test_the_final_levels_of_the_match_rows_end_the_last_hand():
    # the last hand gained 3 levels, but the match ended with N-S held at the end level: 1 above E-W
    rows = frame(match_rows([1, 4], match=0, start=10))
    matches = pl.DataFrame({"run": ["r"], "cell": ["c"], "match": [0], "final_level_ns": [12], "final_level_ew": [11]})
    assert lead_history(rows)["q50"].to_list() == [1.0, 4.0]
    assert lead_history(rows, matches=matches)["q50"].to_list() == [1.0, 1.0]


def test_tens_of_thousands_of_matches_take_well_under_a_second():
    rng = np.random.default_rng(0)
    n = 20_000
    lens = rng.integers(5, 30, n)
    match = np.repeat(np.arange(n), lens)
    hand = np.concatenate([np.arange(k) for k in lens])
    gain = rng.integers(-2, 3, len(hand))
    big = pl.DataFrame(
        {
            "cell": np.where(match % 2 == 0, "a", "b"),
            "match": match,
            "hand": hand,
            "swapped": match % 4 >= 2,
            "policy_ns": np.where(match % 4 >= 2, "basic", "expert"),
            "policy_ew": np.where(match % 4 >= 2, "expert", "basic"),
            "levels_ns": np.maximum(gain, 0),
            "levels_ew": np.maximum(-gain, 0),
        }
    ).with_columns(
        level_before_ns=pl.col("levels_ns").cum_sum().over("match") - pl.col("levels_ns"),
        level_before_ew=pl.col("levels_ew").cum_sum().over("match") - pl.col("levels_ew"),
    )
    lead_history(big.head(1000))
    t = time.perf_counter()
    out = lead_history(big)
    took = time.perf_counter() - t
    assert out["n"].unique().sort().to_list() == [10_000] and out["hand"].max() == 29
    assert took < 1.0, f"{took:.2f} s for {n:,} matches"


# --- bad input ------------------------------------------------------------------------------------


def test_an_empty_frame_says_so():
    with pytest.raises(SimsuiteError, match="the hand frame is empty"):
        lead_history(pl.DataFrame(schema=HAND_SCHEMA))


def test_missing_columns_are_named():
    with pytest.raises(SimsuiteError, match=r"lacks column\(s\) level_before_ns, levels_ew"):
        lead_history(EQUAL.drop("level_before_ns", "levels_ew"))


def test_a_gap_in_a_matchs_hands_is_an_error():
    with pytest.raises(SimsuiteError, match=r"hands of match 0 of cell 'c' .* are not 0, 1, 2"):
        lead_history(EQUAL.filter(~((pl.col("match") == 0) & (pl.col("hand") == 1))))
    with pytest.raises(SimsuiteError, match="a hand is missing or repeated"):
        lead_history(pl.concat([EQUAL, EQUAL.filter(pl.col("match") == 3)]))


@pytest.mark.parametrize("bad", [0, -3, 2.5, True])
def test_max_hands_must_be_a_whole_number_from_one(bad):
    with pytest.raises(SimsuiteError, match="max_hands must be a whole number"):
        lead_history(EQUAL, max_hands=bad)


def test_other_bad_input():
    with pytest.raises(SimsuiteError, match="must be a polars DataFrame"):
        lead_history({"hand": [0]})
    with pytest.raises(SimsuiteError, match="hold nulls"):
        lead_history(EQUAL.with_columns(levels_ns=pl.when(pl.col("hand") == 1).then(None).otherwise("levels_ns")))
    with pytest.raises(SimsuiteError, match=r"the match frame lacks column\(s\) final_level_ew"):
        lead_history(EQUAL, matches=pl.DataFrame({"match": [0], "final_level_ns": [1]}))


# --- the figure -----------------------------------------------------------------------------------


def test_fan_chart_draws_the_median_and_two_bands():
    fig = new_figure(5, 3)
    ax = fig.subplots()
    line = fan_chart(ax, lead_history(EQUAL), color="C0", label="basic vs basic")
    assert line.get_label() == "basic vs basic"
    assert list(line.get_ydata()) == [0.0, 0.0, 1.0]  # the median
    assert len(ax.collections) == 2  # the middle half and nine in ten
    with pytest.raises(SimsuiteError, match="one cell and pairing"):
        fan_chart(ax, lead_history(pl.concat([EQUAL, EQUAL.with_columns(cell=pl.lit("e"))])))
    with pytest.raises(SimsuiteError, match="lacks column"):
        fan_chart(ax, lead_history(EQUAL).drop("q25"))


def test_the_figure_has_a_panel_per_cell_titled_with_its_n():
    both = pl.concat([EQUAL, DUPLICATE.with_columns(cell=pl.lit("d"))])
    fig = lead_history_figure(lead_history(both), {"c": "first cell", "d": "second cell"})
    fans = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in fans] == ["first cell (n = 5 matches)", "second cell (n = 4 matches)"]
    assert [t.get_text() for t in fans[1].get_legend().get_texts()] == ["expert minus basic (n = 4)"]
    assert len(fig.axes) == 4  # each fan with its strip of the matches still playing
    assert "hands played" in {ax.get_xlabel() for ax in fig.axes}
    # cells given one title share a panel
    shared = lead_history_figure(lead_history(both), {"c": "rules", "d": "rules"}, playing=False)
    assert [ax.get_title() for ax in shared.axes] == ["rules (n = 9 matches)"]
    assert shared.axes[0].get_ylabel() == "level difference, expert minus basic\n(equal pair: N-S minus E-W)"


# --- a real run's report --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    return simulate(
        {
            "variants": ["school-2016"],
            "matches": 6,
            "duplicate": True,
            "seed": 4,
            "jobs": 1,
            "quiet": True,
            "out": tmp_path_factory.mktemp("lead") / "run",
        }
    )


def test_a_real_runs_last_hand_is_its_final_level_difference(small_run):
    r = load(small_run)
    hands, matches = r.hands.collect(), r.matches.collect()
    out = lead_history(hands, matches=matches)
    assert out["n"].unique().to_list() == [12]  # 6 deals, both tables
    a = out["policy_a"][0]
    final = matches.select(
        pl.when(pl.col("policy_ns") == a)
        .then(pl.col("final_level_ns").cast(pl.Int64) - pl.col("final_level_ew"))
        .otherwise(pl.col("final_level_ew").cast(pl.Int64) - pl.col("final_level_ns"))
    )[:, 0].to_numpy()
    assert list(out.row(-1)[-5:]) == pytest.approx(np.quantile(final, [0.05, 0.25, 0.5, 0.75, 0.95]).tolist())
    assert lead_history(hands).equals(out)  # the engine's levels gained agree with its final levels here


def test_the_report_shows_how_a_match_unfolds(small_run, tmp_path):
    text = build_report(small_run, tmp_path / "page.html").read_text(encoding="utf-8")
    ids = re.findall(r'<section id="([a-z]+)">', text)
    assert ids.index("fairness") < ids.index("unfolds") == len(ids) - 2 and ids[-1] == "provenance"
    part = text[text.index('<section id="unfolds">') :].split("</section>")[0]
    assert "<h2>How a match unfolds</h2>" in part and part.count("<img") == 1
    caption = re.search(r"<figcaption>(.*?)</figcaption>", part, re.S).group(1)
    assert "n = 12 matches per cell" in caption
    assert "middle half" in caption and "nine in ten" in caption and "not 95% intervals" in caption
    assert "stronger policy" in caption and "keeps its final difference" in caption
    png = base64.b64decode(re.search(r'base64,([A-Za-z0-9+/=]+)"', part).group(1))
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG" and image.width >= 600 and image.height >= 150
    assert np.asarray(image.convert("L")).std() > 5  # not blank
