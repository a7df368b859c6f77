"""The notebooks' helpers (notebooks/_common.py) count deals, not tables: built on a run whose two
tables are known copies, and on a mixed duplicate run, every share and claim has n = deals."""

from __future__ import annotations

import sys
from pathlib import Path

import polars as pl
import pytest

from simsuite.match import play_match_batch
from simsuite.schema import hand_frame, match_frame
from simsuite.variant import load_variant

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
