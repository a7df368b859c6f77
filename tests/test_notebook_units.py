"""The notebooks' helpers (notebooks/_common.py) count deals, not tables: built on a run whose two
tables are known copies, and on a mixed duplicate run, every share and claim has n = deals."""

from __future__ import annotations

import sys
from pathlib import Path

import polars as pl
import pytest

from simsuite.compete.match import play_match_batch
from simsuite.rules.variant import load_variant
from simsuite.sim.schema import hand_frame, match_frame

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "notebooks"))
C = pytest.importorskip("_common")


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
    share = C.match_share(m, "cell", pl.col("winner") < 0, name="draw")
    single = C.match_share(one_m, "cell", pl.col("winner") < 0, name="draw")
    assert share.draw_n.iloc[0] == 10 and share.equals(single)
    hs = C.hand_shares(h.filter(~pl.col("swapped")), "cell", {"to": pl.col("takeover")})
    assert hs.to_n.iloc[0] == 10


def test_mixed_duplicate_claims_and_shares_are_per_deal():
    h, m = _played([(False, ("expert", "basic")), (True, ("basic", "expert"))])
    m = m.with_columns(cell=pl.lit("c"))
    h = h.with_columns(cell=pl.lit("c"))
    share = C.match_share(m, "cell", pl.col("winner") < 0, name="draw")
    assert share.draw_n.iloc[0] == 10  # 20 tables, 10 deals
    hs = C.hand_shares(h, "cell", {"to": pl.col("takeover")})
    assert hs.to_n.iloc[0] == 10
    M = C.per_match(h, m)
    assert set(M["a_win"].unique().to_list()) <= {0.0, 1.0}
    assert (M["a_win"] + M["b_win"] + M["draw"]).to_list() == [1.0] * 20
    T = C.Claims(M)
    T.near("no edge for the first declarers", "c", "first_win", 0.5, 0.5)
    T.same("a cell equals itself", "c", "c", "hands", 0.1)
    t = T.table()
    assert list(t.survives) == [True, True] and "n=10" in t.estimate.iloc[1]


# --- issue 11: robust or policy-dependent ------------------------------------------------------------

E = pytest.importorskip("simsuite.analysis.stats").Estimate


def test_classify_robust_when_every_pairing_is_significant_the_same_way():
    v = C.classify({"basic": E(0.10, 0.05, 0.15, 500), "expert": E(0.08, 0.02, 0.14, 500),
                    "search": E(0.12, 0.01, 0.23, 60)}, +1)
    assert v["mark"] == C.ROBUST and v["disagree"] == [] and "robust" in v["text"]
    down = C.classify({p: E(-0.3, -0.4, -0.2, 100) for p in C.PAIRINGS}, -1)
    assert down["mark"] == C.ROBUST


def test_classify_names_the_pairing_that_goes_the_other_way_and_by_how_much():
    v = C.classify({"basic": E(0.10, 0.05, 0.15, 500), "expert": E(0.06, 0.02, 0.10, 500),
                    "search": E(-0.04, -0.07, -0.01, 60)}, +1)
    assert v["mark"] == C.DEPENDENT
    [d] = v["disagree"]
    assert d["pairing"] == "search" and d["reason"] == "the other way, significant"
    assert d["gap"] == pytest.approx(-0.04 - 0.08)  # from the mean of basic's and expert's effects
    assert "search: -0.040 [-0.070, -0.010] n=60" in v["text"] and "-0.120" in v["text"]
    # a claim of the other sign turns it round: now basic and expert disagree, search agrees
    w = C.classify({"basic": E(0.10, 0.05, 0.15, 500), "expert": E(0.06, 0.02, 0.10, 500),
                    "search": E(-0.04, -0.07, -0.01, 60)}, -1)
    assert [d["pairing"] for d in w["disagree"]] == ["basic", "expert"]


def test_classify_a_pairing_that_is_not_significant_or_missing_makes_it_policy_dependent():
    v = C.classify({"basic": E(0.10, 0.05, 0.15, 500), "expert": E(0.03, -0.01, 0.07, 500),
                    "search": E(0.09, 0.02, 0.16, 60)}, +1)
    assert v["mark"] == C.DEPENDENT
    [d] = v["disagree"]
    assert d["pairing"] == "expert" and d["reason"] == "same direction, not significant"
    assert d["gap"] == pytest.approx(0.03 - 0.095)
    flat = C.classify({"basic": E(-0.01, -0.05, 0.03, 500), "expert": E(0.0, -0.04, 0.04, 500)}, +1)
    assert flat["mark"] == C.DEPENDENT
    reasons = {d["pairing"]: (d["reason"], d["gap"]) for d in flat["disagree"]}
    assert reasons == {"basic": ("the other way, not significant", None),
                       "expert": ("no difference", None), "search": ("no data", None)}


def test_pairings_effects_are_paired_over_the_same_deals():
    """Two cells under two pairings: the effect of a conclusion is the paired difference over the deals
    both cells share, a cell against itself has effect 0 (not significant: policy-dependent), and the
    table gives every pairing a column."""
    data = {}
    for p in ("basic", "expert"):
        h, m = _played([(False, (p, p))], deals=8)
        h2, m2 = _played([(False, (p, p))], deals=8, vid="two-deck-2011")
        data[p] = (pl.concat([h.with_columns(cell=pl.lit("a")), h2.with_columns(cell=pl.lit("b"))], how="diagonal_relaxed"),
                   pl.concat([m.with_columns(cell=pl.lit("a")), m2.with_columns(cell=pl.lit("b"))], how="diagonal_relaxed"))
    P = C.Pairings.from_frames(data)
    assert P.pairings == ["basic", "expert"] and P.n("basic") == 8
    same = C.Conclusion("a equals itself", "a", "a", "hands", +1)
    assert P.effect("basic", same).value == 0 and P.effect("basic", same).n == 8
    t = P.verdicts([same, C.Conclusion("more hands in a than 0", "a", None, "hands", +1, ref=0.0)])
    assert list(t.verdict) == [C.DEPENDENT, C.DEPENDENT]  # the second: search has no data
    assert "search: n/a, no data" in t.iloc[1, -2]
    tab = P.table({"a": "cell a", "b": "cell b"}, {"hands": ("hands/match", 1, False), "takeover_rate": ("take-over", 3, True)})
    assert list(tab.columns) == ["basic/basic", "expert/expert"] and tab.shape == (4, 2) and "n=8" in tab.iloc[0, 0]


def test_marks_go_from_an_executed_notebook_into_the_findings(tmp_path):
    import json

    nb = {"cells": [{"cell_type": "code", "outputs": [{"output_type": "display_data", "data": {
        "text/markdown": C.MARKS_HEAD + "\n\n- a claim: **robust**\n- another: **policy-dependent** (search: ...)"}}]}]}
    (tmp_path / "02-x.ipynb").write_text(json.dumps(nb))
    (tmp_path / "03-y.ipynb").write_text(json.dumps({"cells": []}))
    f = tmp_path / "findings.md"
    f.write_text("## 2\n<!-- marks 02 -->\nold\n<!-- /marks 02 -->\n## 3\n<!-- marks 03 -->\nkept\n<!-- /marks 03 -->\n")
    assert C.write_marks(f, [tmp_path / "02-x.ipynb", tmp_path / "03-y.ipynb"], note="*full run*") == ["02"]
    assert f.read_text() == ("## 2\n<!-- marks 02 -->\n*full run*\n\n- a claim: **robust**\n- another: **policy-dependent** "
                             "(search: ...)\n<!-- /marks 02 -->\n## 3\n<!-- marks 03 -->\nkept\n<!-- /marks 03 -->\n")
