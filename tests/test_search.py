"""The search policy, the hand state it samples from, and ``simsuite advise``.

Search plays through the same phases as every driver, so its hands are checked move by move by
the readable rules core on the Python path; positions with a known right answer check that it
chooses by the result.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from positions import position

from simsuite.cli import main
from simsuite.engine import phases as ph
from simsuite.engine.api import play_batch, play_one
from simsuite.engine.core import NC
from simsuite.engine.names import policy_code, policy_codes, policy_name
from simsuite.engine.policies import search
from simsuite.engine.policies.codes import SEARCH
from simsuite.errors import SimsuiteError
from simsuite.play.advise import advise
from simsuite.play.pyhand import play_hand_py
from simsuite.rules.cards import format_cards, parse_cards
from simsuite.rules.variant import load_variant

# these tests run code compiled for every policy (search, expert-v1, engine.full.decide_*): tests/conftest.py
pytestmark = pytest.mark.full_loop

ROOT = Path(__file__).resolve().parent.parent
IDS = ["school-2016", "huizhou", "baiyun-2016", "two-deck-2011", "guangxi-2012"]
FAST = "search-k2-c3"  # small enough for tests


# --- names ----------------------------------------------------------------------------------------


def test_search_names_round_trip():
    assert policy_code("search") == SEARCH
    code = policy_code("search-k16-c8")
    assert search.is_search(code) and search.samples_of(code) == 16 and search.candidates_of(code) == 8
    assert policy_name(code) == "search-k16-c8" and policy_name(policy_code("search-c4")) == "search-c4"
    assert list(policy_codes("search,expert")[1::2]) == [2, 2]
    assert not search.is_search(policy_code("expert"))


@pytest.mark.parametrize("name", ["search-k0", "search-k300", "search-c0", "search-c99"])
def test_search_parameters_out_of_range_are_named(name):
    with pytest.raises(SimsuiteError, match="search takes -k<samples> from 1 to 255"):
        policy_code(name)


def test_unknown_policy_lists_search():
    with pytest.raises(SimsuiteError, match="search also as search-k<samples>-c<candidates>"):
        policy_codes("searchy,expert")


# --- whole hands --------------------------------------------------------------------------------------


@pytest.mark.parametrize("vid", IDS)
def test_search_hands_are_legal_and_match_the_python_path(vid):
    # the Python path checks every bid, bury, lead and follow with the readable rules core, and
    # drives the same phases: the records must be identical
    v = load_variant(vid)
    py = play_hand_py(v, 11, [FAST, "expert", FAST, "expert"])
    fast = play_one(v, 11, f"{FAST},expert")
    assert py.record == fast.record
    assert py.record["error"] == 0
    assert np.array_equal(py.history.plays, fast.history.plays)


def test_search_is_deterministic_for_a_seed():
    v = load_variant("two-deck-2011")
    a = play_batch(v, 3, 4, f"{FAST},expert")
    b = play_batch(v, 3, 4, f"{FAST},expert")
    assert np.array_equal(a, b)


def test_search_changes_play():
    # the search is not the roll-out policy in disguise: over a few hands some decision differs
    v = load_variant("school-2016")
    a = play_batch(v, 5, 6, "search-k4-c4,expert")
    b = play_batch(v, 5, 6, "expert,expert")
    assert not np.array_equal(a, b)


# --- sampling -----------------------------------------------------------------------------------------


def _midhand_state(vid="two-deck-2011", seed=4, tricks=6):
    """The state of an expert hand after ``tricks`` tricks (via the phases)."""
    from simsuite.engine import full as F
    from simsuite.engine import hand as H
    from simsuite.engine.api import hand_states
    from simsuite.engine.core import Work
    from simsuite.engine.params import compile_variant

    v = load_variant(vid)
    P = compile_variant(v)
    s = hand_states(seed, 0, 1)[0].copy()
    W = Work().arrays()
    st = ph.new_state()
    pols = policy_codes("expert")
    H.deal_and_declare(P, s, st, W, v.start_level, 0, True, pols, False, np.zeros((1, 4), np.int64))
    bury = np.zeros(NC, np.int64)
    ph.take_bottom(st)
    F.decide_bury(P, st, 2, W, s, bury)
    ph.apply_bury(st, bury)
    lead, play, forced = (np.zeros(NC, np.int64) for _ in range(3))
    while st.sc[ph.S_TRICKS] < tricks:
        if st.sc[ph.S_TURN] == 0:
            F.decide_lead(P, st, 2, W, s, lead)
            ph.apply_lead(P, st, W, lead, forced)
        else:
            F.decide_follow(P, st, 2, W, s, play)
            ph.apply_follow(P, st, W, play)
            if st.sc[ph.S_TURN] == 4:
                ph.finish_trick(st)
    return P, st, s


def test_sample_world_keeps_what_the_seat_knows():
    P, st, s = _midhand_state()
    seat = (int(st.sc[ph.S_DEALER]) + 1) % 4  # a defender: the bottom is unseen to it
    # pretend W (or the seat after) showed a card it still holds, and is void in diamonds
    other = (seat + 1) % 4
    held = int(np.nonzero(st.hands[other])[0][0])
    st.shown[other, held] = 1
    d_class = 2
    if st.hands[other][st.cls == d_class].sum() == 0:
        st.voids[other, d_class] = 1
    ws = ph.new_state()
    unseen = st.hands.sum(axis=0) - st.hands[seat] + st.bottom
    for _ in range(30):
        search.sample_world(P, st, seat, s, ws)
        assert np.array_equal(ws.hands[seat], st.hands[seat])  # its own hand
        assert np.array_equal(ws.played, st.played)
        assert list(ws.hands.sum(axis=1)) == list(st.hands.sum(axis=1))  # hand sizes
        assert ws.bottom.sum() == st.bottom.sum()
        assert np.array_equal(ws.hands.sum(axis=0) - ws.hands[seat] + ws.bottom, unseen)  # the same cards
        assert ws.hands[other, held] >= 1  # shown and still held
        for o in range(4):
            for k in range(5):
                if st.voids[o, k] and o != seat:
                    assert ws.hands[o][st.cls == k].sum() == 0  # revealed voids


def test_the_dealer_knows_the_bottom():
    P, st, s = _midhand_state()
    dealer = int(st.sc[ph.S_DEALER])
    ws = ph.new_state()
    search.sample_world(P, st, dealer, s, ws)
    assert np.array_equal(ws.bottom, st.bottom)


# --- positions with a known right answer -----------------------------------------------------------------


def test_feed_points_to_a_partner_whose_trick_is_sure():
    # two-deck-2011, two cards left each: N (declarer) leads the last big joker, E follows, S (void
    # in trump) holds D10 and D3. N's trick is sure; the D10 kept for the last trick may fall to the
    # defenders (and be multiplied as the bottom is captured): feed it now.
    s = position(
        {}, {"S": "D10 D3"}, ["BJ", "C4"], "N", "S", unseen="C5 H6 H7 C8 C9 HJ D4 H3 C3 C6 H4 H8", bottom_hidden=""
    )
    # the 12 unseen cards: N 1, E 1, W 2 and the 8 of the bottom
    a = advise(s, load_variant("two-deck-2011"), "search-k12-c6")
    assert format_cards(a.choice) == "D10"
    assert {format_cards(p) for p, *_ in a.candidates} >= {"D10", "D3"}


def test_take_the_last_trick_when_the_bottom_is_rich():
    # two-deck-2011 三、15 (the defenders capture the bottom x2 with a single trump): E, a defender,
    # leads with two cards each left, holding the last big joker and C3. Leading C3 keeps the joker
    # for the last trick, which it is sure to win, capturing the bottom; leading the joker first
    # leaves C3 to lose the last trick. Search must lead C3.
    s = position(
        {"points": 60},
        {"E": "BJ C3"},
        None,
        None,
        "E",
        unseen="C4 C5 D6 D7 H6 H7 DK D10 D5 HK H10 H5 S3 S4",
        bottom_hidden="",
        decks=2,
    )
    a = advise(s, load_variant("two-deck-2011"), "search-k12-c6")
    assert format_cards(a.choice) == "C3"


# --- advise: command line ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["advise-lead", "advise-follow", "advise-near-the-end"])
def test_advise_json_contract(name, capsys):
    rc = main(["advise", str(ROOT / f"examples/scenarios/{name}.toml"), "--policy", FAST, "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"variant", "policy", "seat", "choice", "candidates"}
    assert out["policy"] == FAST and out["seat"] in "NESW"
    parse_cards(out["choice"])  # card notation
    for c in out["candidates"]:
        assert set(c) == {"play", "value", "ci95", "samples"}
        parse_cards(c["play"])
    if len(out["candidates"]) > 1:
        assert out["choice"] in [c["play"] for c in out["candidates"]]
        assert all(c["samples"] == 2 for c in out["candidates"])


def test_advise_expert_gives_its_choice_only(capsys):
    rc = main(["advise", str(ROOT / "examples/scenarios/advise-lead.toml"), "--policy", "expert", "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["candidates"] == [] and out["choice"]


BAD_POSITIONS = [
    (
        'level = "2"\ntrump = "S"\ndeclarers = "NS"\ndealer = "N"\nto_move = "E"\n[hands]\nN = "S3"\n',
        "give the hand of the seat to move",
    ),
    (
        'level = "2"\ntrump = "S"\ndeclarers = "NS"\ndealer = "N"\nto_move = "E"\nplayed = "S3"\n[hands]\nE = "S4 S5"\n',
        "played lists 1 card(s)",
    ),
    (
        'level = "2"\ntrump = "S"\ndeclarers = "NS"\nto_move = "E"\n[hands]\nE = "S4"\n',
        "needs level, trump, declarers and dealer",
    ),
    (
        'level = "2"\ntrump = "S"\ndeclarers = "NS"\ndealer = "N"\nplayed = "S3"\n[hands]\nE = "S4"\n',
        "give to_move too",
    ),
    (
        'level = "2"\ntrump = "S"\ndeclarers = "NS"\ndealer = "N"\nto_move = "N"\n[hands]\nN = "S4"\n',
        "is the dealer and buried the bottom",
    ),
    (
        'level = "2"\ntrump = "S"\ndeclarers = "NS"\ndealer = "N"\nto_move = "E"\n[hands]\nE = "S4 S4 S4"\n',
        "deck(s) hold only 2",
    ),
    (
        'level = "2"\ntrump = "S"\ndeclarers = "NS"\ndealer = "N"\nto_move = "S"\n[hands]\nS = "S4"\n'
        '[trick]\nleader = "N"\nplays = ["S3"]\n',
        "it is E's turn",
    ),
    (
        'level = "2"\ntrump = "S"\ndeclarers = "NS"\ndealer = "N"\nto_move = "E"\n[voids]\nW = "X"\n[hands]\nE = "S4"\n',
        "[voids] W",
    ),
]


@pytest.mark.parametrize("text, words", BAD_POSITIONS)
def test_advise_bad_positions_get_one_line(tmp_path, capsys, text, words):
    path = tmp_path / "p.toml"
    path.write_text(text, encoding="utf-8")
    rc = main(["advise", str(path), "--variant", "two-deck-2011", "--policy", FAST])
    err = capsys.readouterr().err
    assert rc == 2
    assert words in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    "extra, hands, plays, words",
    [
        # a seat void in a suit it holds, shows or plays
        ({"voids": {"S": "D"}}, {"S": "D10 D3"}, ["BJ", "C4"], "[voids] S is void in D but holds D3"),
        ({"voids": {"E": "C"}}, {"S": "D10 D3"}, ["BJ", "C4"], "[voids] E is void in C but shows or plays C4"),
        (
            {"voids": {"W": "T"}, "shown": {"W": "S3"}},
            {"S": "D10 D3"},
            None,
            "[voids] W is void in trump but shows or plays S3",
        ),
        # voids that leave seats fewer cards than they hold: each alone, and three together
        ({"voids": {"W": "S H D C T"}}, {"S": "D10 D3"}, ["BJ", "C4"], "[voids] leave W 0 unseen card(s)"),
        (
            {"voids": {"N": "S H D C T", "E": "S H D C T", "W": "S H D C T"}},
            {"S": "D10 D3"},
            None,
            "[voids] leave N 0 unseen card(s)",
        ),
    ],
)
def test_advise_refuses_voids_the_position_contradicts(extra, hands, plays, words):
    s = position(
        extra,
        hands,
        plays,
        "N" if plays else None,
        "S",
        unseen="C5 H6 H7 C8 C9 HJ D4 H3 C3 C6 H4 H8" if plays else "C5 H6 H7 C8 C9 HJ D4 H3 C3 C6 H4 H8 S3 S4",
        bottom_hidden="",
    )
    with pytest.raises(SimsuiteError, match=re.escape(words)):
        advise(s, load_variant("two-deck-2011"), FAST)


def test_advise_needs_one_variant(tmp_path, capsys):
    rc = main(["advise", str(ROOT / "examples/scenarios/advise-lead.toml"), "--variant", "all"])
    assert rc == 2 and "name one variant" in capsys.readouterr().err


# --- the bury responds to the rules -------------------------------------------------------------------


def test_search_buries_fewer_points_as_the_capture_multiplier_grows():
    # school-2016 三、(五)(2): the bottom is multiplied 3 per card of the capturing unit; with no
    # capture a point in the bottom is safe, at x6 per card it is costly. Same deals in both runs.
    from simsuite.analysis.bury import bury_rows

    v = load_variant("school-2016")
    free = bury_rows(v.with_overrides({"capture_per_card": 0, "capture_side_per_card": 0}), "search-k4-c4", 120, 2)
    dear = bury_rows(v.with_overrides({"capture_per_card": 6, "capture_side_per_card": 6}), "search-k4-c4", 120, 2)
    assert free[:, 0].mean() > 2 * dear[:, 0].mean() + 2
    assert np.array_equal(free[:, 2], dear[:, 2])  # the same dealers: the same deals


def test_bury_names_a_variant_without_bottom(capsys):
    assert main(["bury", "--variant", "guangxi-2012", "--policy", "expert", "--hands", "10"]) == 2
    assert "has no bottom" in capsys.readouterr().err


def test_bury_takes_one_policy(capsys):
    """``--policy expert,basic`` is refused: bury plays one policy, not one of the two."""
    assert main(["bury", "--variant", "two-deck-2011", "--policy", "expert,basic", "--hands", "10"]) == 2
    assert "--policy takes one policy" in capsys.readouterr().err


def test_bury_command_json(capsys):
    assert main(["bury", "--variant", "two-deck-2011", "--policy", "basic", "--hands", "60", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["hands"] == 60 and out["points"]["n"] == 60 and len(out["by_trumps"]) >= 2
