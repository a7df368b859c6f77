"""The notebooks' helpers (simsuite.analysis.notebooks.claims, replication, robustness, pairings, summaries;
simsuite.report.findings) count deals, not tables: built on a run whose two tables are known copies,
and on a mixed duplicate run, every share and claim has n = deals."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

from simsuite.analysis.notebooks.claims import (
    Claims,
    Conclusion,
    claim_hash,
    read_claims,
)
from simsuite.analysis.notebooks.pairings import Pairings, pairing_label
from simsuite.analysis.notebooks.replication import (
    DIFFERS,
    NOT_SHOWN,
    REPLICATES,
    replication_summary,
    replication_table,
    replication_test,
)
from simsuite.analysis.notebooks.robustness import DEPENDENT, PAIRINGS, ROBUST, UNDECIDED, classify, classify_all
from simsuite.analysis.notebooks.summaries import hand_shares, match_share, per_match
from simsuite.errors import SimsuiteError
from simsuite.report.findings import MARKS_HEAD, notebook_marks
from simsuite.rules.variant import load_variant
from simsuite.sim.match import play_match_batch
from simsuite.sim.schema import hand_frame, match_frame

CLAIMS_DIR = Path(__file__).resolve().parents[1] / "notebooks" / "claims"


def _played(pairs, deals=10, seed=7, vid="school-2016"):
    v = load_variant(vid)
    hands, matches = [], []
    for swapped, (pns, pew) in pairs:
        batch = play_match_batch(v, seed, 0, deals, f"{pns},{pew}")
        tags = dict(run="t", variant=vid, cell=f"{vid}|{pns}", seed=seed, policy_ns=pns, policy_ew=pew, swapped=swapped)
        hands.append(hand_frame(batch, start_level=v.start_level, **tags))
        matches.append(match_frame(batch, **tags))
    return pl.concat(hands), pl.concat(matches)


def test_shares_count_known_copies_once():
    h, m = _played([(False, ("basic", "basic")), (True, ("basic", "basic"))])
    one_h, one_m = _played([(False, ("basic", "basic"))])
    share = match_share(m, "cell", pl.col("winner") < 0, name="draw")
    single = match_share(one_m, "cell", pl.col("winner") < 0, name="draw")
    assert share.draw_n.iloc[0] == 10 and share.equals(single)
    hs = hand_shares(h.filter(~pl.col("swapped")), "cell", {"to": pl.col("takeover")})
    assert hs.to_n.iloc[0] == 10


def test_mixed_duplicate_claims_and_shares_are_per_deal():
    h, m = _played([(False, ("expert", "basic")), (True, ("basic", "expert"))])
    m = m.with_columns(cell=pl.lit("c"))
    h = h.with_columns(cell=pl.lit("c"))
    share = match_share(m, "cell", pl.col("winner") < 0, name="draw")
    assert share.draw_n.iloc[0] == 10  # 20 tables, 10 deals
    hs = hand_shares(h, "cell", {"to": pl.col("takeover")})
    assert hs.to_n.iloc[0] == 10
    M = per_match(h, m)
    assert set(M["a_win"].unique().to_list()) <= {0.0, 1.0}
    assert (M["a_win"] + M["b_win"] + M["draw"]).to_list() == [1.0] * 20
    T = Claims(M)
    T.near("no edge for the first declarers", "c", "first_win", 0.5, 0.5)
    T.same("a cell equals itself", "c", "c", "hands", 0.1)
    t = T.table()
    assert list(t.survives) == [True, True] and "n=10" in t.estimate.iloc[1]
    # a claim on a cell with no deals was not tested: its p is NaN, outside the Holm family, and the others'
    # adjusted p-values count only the tests made (before, it entered as p = 1 and enlarged the family)
    T.near("a cell that was never played", "no such cell", "first_win", 0.5, 0.5)
    u = T.table()
    assert np.isnan(u.p.iloc[2]) and np.isnan(u["p (Holm)"].iloc[2]) and not u.survives.iloc[2]
    assert list(u["p (Holm)"].iloc[:2]) == list(t["p (Holm)"])


# --- robust, policy-dependent or undecided: the rule x policy interaction ------------------------------

E = pytest.importorskip("simsuite.analysis.stats").Estimate


def test_classify_a_noisy_search_pairing_is_undecided_not_policy_dependent():
    """docs/findings.md's example: search +0.078 [-0.028, +0.174] on 24 deals, 0.02 from the other pairings. The
    old rule (any interval that includes 0) called it policy-dependent; its interaction with the policy is
    -0.021 with an SE of 0.052, so the data cannot tell: undecided, with the deals per cell that could."""
    eff = {
        "basic": E(0.10, 0.085, 0.115, 1000),
        "expert": E(0.098, 0.083, 0.113, 1000),
        "search": E(0.078, -0.028, 0.174, 24),
    }
    v = classify(eff, +1, margin=0.05, pairings=("basic", "expert", "search"))  # the run's three pairings
    assert v["mark"] == UNDECIDED == "undecided (n too small)" and v["mark"] != DEPENDENT
    assert v["tests"]["search"]["d"] == pytest.approx(0.078 - 0.099, abs=2e-3)
    assert v["tests"]["search"]["se"] == pytest.approx(0.052, abs=1e-3)
    # one unadjusted test's n would be about 293 (x ((1.96 + 0.84) / 0.05)^2); the classifier simulated with its
    # Holm family needs more for either mark (tests/test_power.py checks its power at the printed n)
    assert v["n_robust"] > 340 and v["n_dependent"] > 340 and f"robust {v['n_robust']:,}" in v["text"]
    assert "search 24" in v["text"]


def test_classify_robust_needs_every_interaction_within_the_margin_and_the_claimed_direction():
    same = {p: E(0.10, 0.09, 0.11, 5000) for p in PAIRINGS}
    v = classify(same, +1, margin=0.05)
    assert v["mark"] == ROBUST and v["disagree"] == []
    assert classify(same, -1, margin=0.05)["mark"] == UNDECIDED  # equivalent across policies, wrong direction
    # every interval excludes 0 on the claimed side, but the effects differ by more than the margin: not robust
    spread = {
        "basic": E(0.02, 0.01, 0.03, 5000),
        "expert": E(0.10, 0.09, 0.11, 5000),
        "learned": E(0.11, 0.10, 0.12, 5000),
        "search": E(0.20, 0.19, 0.21, 5000),
    }
    w = classify(spread, +1, margin=0.02)
    assert w["mark"] == DEPENDENT and w["disagree"][0]["pairing"] in ("basic", "search")
    with pytest.raises(SimsuiteError, match="classify: margin=None; a positive smallest interaction"):
        classify(same, +1)
    with pytest.raises(SimsuiteError, match="classify: margin=0.0 for conclusion 2; a positive smallest interaction"):
        classify_all([(same, +1, 0.05), (same, +1, 0.0)])


def test_classify_names_the_pairing_that_interacts_with_its_interaction_and_se():
    v = classify(
        {
            "basic": E(0.10, 0.09, 0.11, 5000),
            "expert": E(0.101, 0.091, 0.111, 5000),
            "learned": E(0.099, 0.089, 0.109, 5000),
            "search": E(-0.10, -0.12, -0.08, 5000),
        },
        +1,
        margin=0.05,
    )
    assert v["mark"] == DEPENDENT
    d = v["disagree"][0]
    assert d["pairing"] == "search" and d["d"] == pytest.approx(-0.10 - 0.1, abs=1e-3)
    assert "search: -0.100 [-0.120, -0.080] n=5,000, interaction -0.20" in v["text"]


def test_classify_without_a_pairing_is_undecided_and_says_which():
    v = classify({"basic": E(0.10, 0.09, 0.11, 500), "expert": E(0.10, 0.09, 0.11, 500)}, +1, margin=0.05)
    assert v["mark"] == UNDECIDED and "no data or no interval: learned, search" in v["text"]


def test_one_holm_correction_over_all_the_marks_of_a_notebook():
    """A conclusion robust on its own (p just under 5%) is not once many conclusions share the correction."""
    eff = {p: E(0.10, 0.06, 0.14, 400) for p in PAIRINGS}
    alone = classify_all([(eff, +1, 0.065)])
    assert alone[0]["mark"] == ROBUST and 0.01 < alone[0]["p_robust_holm"] < 0.05
    many = classify_all([(eff, +1, 0.065)] * 10)
    assert all(v["mark"] == UNDECIDED for v in many)
    assert many[0]["p_robust_holm"] > alone[0]["p_robust_holm"]


# --- replication: an equivalence test against a stated margin -------------------------------------------------


def _rows(**vals):
    import pandas as pd

    return pd.DataFrame([{"cell": k, "x": v, "x_lo": lo, "x_hi": hi, "x_n": n} for k, (v, lo, hi, n) in vals.items()])


def test_replication_with_a_missing_or_unbounded_interval_is_not_tested():
    """N* 9.1 [6.8, inf] against 1.2 [1.0, 1.4] passed the old |z| < 1.96 rule (z was NaN); so did a missing end."""
    inf, nan = float("inf"), float("nan")
    t = replication_table(
        _rows(a=(9.1, 6.8, inf, 1000), b=(0.5, nan, 0.6, 1000)),
        _rows(a=(1.2, 1.0, 1.4, 1000), b=(0.5, 0.4, 0.6, 1000)),
        ["x"],
        "cell",
        margins={"x": "25%"},
    )
    assert list(t.verdict) == [
        "not tested (an interval is unbounded)",
        "not tested (a value or an interval end is missing)",
    ]
    assert not (t.verdict == REPLICATES).any()
    assert (
        replication_table(
            _rows(a=(0.5, 0.49, 0.51, 1000)), _rows(a=(0.5, 0.49, 0.51, 1000)), ["x"], "cell"
        ).verdict.iloc[0]
        == "not tested (no margin stated)"
    )


def test_replication_of_a_pair_that_differs_by_2_7_se_is_not_a_replication():
    """docs/findings.md's 62.9% [61.4, 64.4] (n = 2,000) against 66.5% [64.4, 68.6] (n = 1,000): z = -2.7."""
    t = replication_table(
        _rows(a=(0.629, 0.614, 0.644, 2000)),
        _rows(a=(0.665, 0.644, 0.686, 1000)),
        ["x"],
        "cell",
        margins={"x": 0.03},
        pct=["x"],
    )
    assert t.verdict.iloc[0] == DIFFERS != REPLICATES
    assert "-0.036 (SE 0.0132)" in t["difference (SE)"].iloc[0]


def test_replication_within_the_margin_replicates_and_a_small_sample_is_not_shown():
    close = replication_table(
        _rows(a=(0.500, 0.490, 0.510, 4000)), _rows(a=(0.503, 0.489, 0.517, 2000)), ["x"], "cell", margins={"x": 0.03}
    )
    assert close.verdict.iloc[0] == REPLICATES
    small = replication_table(
        _rows(a=(0.50, 0.40, 0.60, 50)), _rows(a=(0.52, 0.38, 0.66, 25)), ["x"], "cell", margins={"x": 0.03}
    )
    assert small.verdict.iloc[0] == NOT_SHOWN  # |z| < 1.96 used to call this replicated
    ratio = replication_table(
        _rows(a=(4.2, 3.4, 5.2, 1000)), _rows(a=(4.0, 3.3, 4.9, 1000)), ["x"], "cell", margins={"x": "25%"}
    )
    assert ratio.verdict.iloc[0] == NOT_SHOWN and "log ratio" in ratio["difference (SE)"].iloc[0]
    assert replication_summary(close).startswith("1 of 1 figures replicate")
    for bad in ("25", "x%", -0.1, 0, "-5%", True):
        with pytest.raises(
            SimsuiteError, match=f"replication margin {bad!r}: a positive number or a positive percentage"
        ):
            replication_test(1, 0, 2, 1, 0, 2, bad)


# --- claims written before the run (the registry of their seeds: tests/test_registry.py) ----------------------


def _file(tmp_path, claims, root=7, past=()):
    import tomllib

    from simsuite.errors import toml_value

    lines = ['number = "99"', 'notebook = "99-x"', f"root_seed = {root}", f"past_root_seeds = {list(past)}"]
    for c in claims:
        lines += ["", "[[claim]]"] + [f"{k} = {toml_value(v)}" for k, v in c.items()]
    p = tmp_path / "99.toml"
    p.write_text("\n".join(lines) + "\n")
    tomllib.loads(p.read_text())
    return read_claims(p)


def test_a_claims_file_names_every_problem(tmp_path):
    bad = [
        {
            "id": "x",
            "family": "conclusion",
            "test": "differ",
            "text": "t",
            "a": "c",
            "metric": "m",
            "sign": 2,
            "seed": 1,
        },
        {"id": "x", "family": "robustness", "test": "near", "text": "t", "seed": 1, "colour": "red"},
    ]
    with pytest.raises(SimsuiteError) as e:
        _file(tmp_path, bad)
    msg = str(e.value)
    for part in (
        "sign 2; allowed: 1, -1",
        "id 'x' is used twice",
        "unknown field(s) ['colour']",
        "test near needs 'margin'",
        "'robustness' and the test 'conclusion' go together",
    ):
        assert part in msg, part


def test_the_claims_become_tests_with_their_first_seed(tmp_path):
    h, m = _played([(False, ("expert", "basic")), (True, ("basic", "expert"))])
    M = per_match(h.with_columns(cell=pl.lit("c")), m.with_columns(cell=pl.lit("c")))
    f = _file(
        tmp_path,
        [
            {
                "id": "edge",
                "family": "conclusion",
                "test": "near",
                "text": "no edge",
                "a": "cell",
                "metric": "first_win",
                "ref": 0.5,
                "margin": 0.5,
                "seed": 7,
            },
            {
                "id": "r",
                "family": "robustness",
                "test": "conclusion",
                "text": "more",
                "a": "cell",
                "b": "cell",
                "metric": "hands",
                "sign": 1,
                "margin": 1.0,
                "seed": 7,
            },
        ],
    )
    t = f.tests(M, {"cell": "c"}).table()
    assert list(t["id"]) == ["edge"] and list(t["first tested on seed"]) == [7] and bool(t.survives.iloc[0])
    [conc] = f.conclusions({"cell": "c"})
    assert (conc.a, conc.b, conc.margin, conc.id, conc.seed) == ("c", "c", 1.0, "r", 7)
    meta = __import__("json").loads(f.record(tmp_path / "results").read_text())
    assert meta["sha256"] == f.sha256 and meta["claims"][0] == {
        "id": "edge",
        "hash": claim_hash(f.claims[0]),
        "first_tested_on_seed": 7,
    }


def test_pairings_effects_are_paired_over_the_same_deals():
    """Two cells under two pairings: the effect of a conclusion is the paired difference over the deals
    both cells share, a cell against itself has effect 0 (no interval: undecided), and the table gives every
    pairing a column."""
    data = {}
    for p in ("basic", "expert"):
        h, m = _played([(False, (p, p))], deals=8)
        h2, m2 = _played([(False, (p, p))], deals=8, vid="two-deck-2011")
        data[p] = (
            pl.concat([h.with_columns(cell=pl.lit("a")), h2.with_columns(cell=pl.lit("b"))], how="diagonal_relaxed"),
            pl.concat([m.with_columns(cell=pl.lit("a")), m2.with_columns(cell=pl.lit("b"))], how="diagonal_relaxed"),
        )
    P = Pairings.from_frames(data)
    assert P.pairings == ["basic", "expert"] and P.n("basic") == 8
    same = Conclusion("a equals itself", "a", "a", "hands", +1, margin=1.0)
    assert P.effect("basic", same).value == 0 and P.effect("basic", same).n == 8
    t = P.verdicts([same, Conclusion("a takes over in some hands", "a", None, "takeover", +1, ref=0.0, margin=0.1)])
    assert list(t.verdict) == [UNDECIDED, UNDECIDED]  # learned and search have no data
    assert t.iloc[1][pairing_label("search")] == "n/a"
    assert t.iloc[1]["detail"].startswith("no data or no interval: learned, search;")
    tab = P.table(
        {"a": "cell a", "b": "cell b"}, {"hands": ("hands/match", 1, False), "takeover_rate": ("take-over", 3, True)}
    )
    assert list(tab.columns) == ["basic/basic", "expert/expert"] and tab.shape == (4, 2) and "n=8" in tab.iloc[0, 0]


def test_the_marks_an_executed_notebook_printed_are_read_back():
    nb = {
        "cells": [
            {
                "cell_type": "code",
                "outputs": [
                    {
                        "output_type": "display_data",
                        "data": {
                            "text/markdown": MARKS_HEAD
                            + "\n\n- a claim: **robust**\n- another: **policy-dependent** (search: ...)"
                        },
                    }
                ],
            }
        ]
    }
    assert notebook_marks(nb) == "- a claim: **robust**\n- another: **policy-dependent** (search: ...)"
    assert notebook_marks({"cells": []}) is None


# --- the helpers are library code: no environment, no display in analysis --------------------------------


def test_the_analysis_helpers_neither_draw_nor_read_the_environment():
    """analysis returns data (report/ draws and shows it) and takes quick mode and folders as arguments:
    notebooks/_common.py alone reads SIMSUITE_QUICK and the rest."""
    import ast

    root = Path(__file__).resolve().parents[1] / "simsuite" / "analysis" / "notebooks"
    for name in ("claims", "replication", "robustness", "pairings", "summaries", "runs"):
        tree = ast.parse((root / f"{name}.py").read_text(encoding="utf-8"))
        imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        bad = {
            m
            for m in imported
            if m.split(".")[0] in ("matplotlib", "IPython", "os")
            or m.startswith(("simsuite.report", "simsuite.compete", "simsuite.cli"))
        }
        assert not bad, (name, bad)
        assert "environ" not in ast.dump(tree), name


def test_quick_mode_is_an_argument(tmp_path):
    from simsuite.analysis.notebooks.pairings import (
        QUICK_SEARCH_POLICY,
        SEARCH_POLICY,
        pairing_matches,
        pairing_policies,
        search_policy,
    )
    from simsuite.report.findings import marks_markdown

    assert search_policy(True) == QUICK_SEARCH_POLICY == "search-k1-c2" and search_policy() == SEARCH_POLICY
    assert pairing_policies("search", search_policy(True)) == "search-k1-c2,search-k1-c2"
    assert pairing_label("expert", "search-k1-c2") == "expert/expert"
    assert pairing_matches(100, 10, quick_mode=True) == {"basic": 6, "expert": 6, "learned": 6, "search": 2}
    assert pairing_matches(100, 10) == {"basic": 100, "expert": 100, "learned": 100, "search": 10}
    import pandas as pd

    v = pd.DataFrame([{"conclusion": "c", "verdict": ROBUST, "detail": "why"}])
    assert marks_markdown(v) == "- c: **robust** (why)"
    assert marks_markdown(v, quick=True) == "- c: **robust** (why) *(quick run)*"
    f = read_claims(CLAIMS_DIR / "06.toml")
    assert f.record(tmp_path, quick=True) == tmp_path / "claims" / f"{f.notebook}-quick.json"
    assert (tmp_path / "claims" / f"{f.notebook}-quick.toml").read_bytes() == f.path.read_bytes()


def test_a_claims_file_read_as_a_subclass_gives_its_claims_class(tmp_path):
    """notebooks/_common.py reads the claims files as a subclass whose tests can show themselves."""
    from simsuite.analysis.notebooks.claims import ClaimsFile

    class Shown(Claims):
        pass

    class File(ClaimsFile):
        claims_class = Shown

    h, m = _played([(False, ("expert", "basic")), (True, ("basic", "expert"))])
    M = per_match(h.with_columns(cell=pl.lit("c")), m.with_columns(cell=pl.lit("c")))
    f = read_claims(
        _file(
            tmp_path,
            [
                {
                    "id": "edge",
                    "family": "conclusion",
                    "test": "near",
                    "text": "no edge",
                    "a": "cell",
                    "metric": "first_win",
                    "ref": 0.5,
                    "margin": 0.5,
                    "seed": 7,
                }
            ],
        ).path,
        kind=File,
    )
    assert type(f) is File and type(f.tests(M, {"cell": "c"})) is Shown
    assert type(read_claims(f.path).tests(M, {"cell": "c"})) is Claims


def test_the_marks_say_how_far_each_effect_moved_from_the_expert_based_finding():
    """The findings quote, per conclusion, learned's effect minus expert's with its interval (two independent
    estimates' SEs combined); a pairing without data gives no such figure and the line says nothing of it."""
    from simsuite.analysis.notebooks.pairings import MOVED, verdict_table
    from simsuite.analysis.notebooks.robustness import moved
    from simsuite.report.findings import marks_markdown

    eff = {
        "basic": E(0.10, 0.09, 0.11, 800),
        "expert": E(0.30, 0.26, 0.34, 900),
        "learned": E(0.10, 0.07, 0.13, 700),
        "search": E(0.12, 0.02, 0.22, 40),
    }
    m = moved(eff)
    half = 1.959963984540054 * np.hypot(0.03 / 1.959963984540054, 0.04 / 1.959963984540054)
    assert m.value == pytest.approx(-0.20) and m.high - m.value == pytest.approx(half) and m.n == 700
    assert moved({k: v for k, v in eff.items() if k != "learned"}).n == 0
    c = Conclusion("fewer hands", "a", "b", "hands", +1, margin=0.05)
    t = verdict_table([c], [eff], classify_all([(eff, +1, 0.05)]))
    assert t.iloc[0][MOVED] == "-0.200 [-0.250, -0.150] n=700"
    assert "moved from the `expert`-based finding by -0.200 [-0.250, -0.150] n=700" in marks_markdown(t)
    no_learned = {k: v for k, v in eff.items() if k != "learned"}
    t2 = verdict_table([c], [no_learned], classify_all([(no_learned, +1, 0.05)]))
    assert t2.iloc[0][MOVED] == "n/a" and "moved from" not in marks_markdown(t2)
