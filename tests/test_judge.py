"""The worked examples of shared/rules/VARIANTS.md, each written as a scenario file and ruled
through ``load_scenario`` + ``judge`` (the JSON of ``simsuite judge``). Test names give the
tournament and the clause. Seats play N, E, S, W from the leader; N-S declare unless said."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli import one_line_error, run_cli

from simsuite.cli import main
from simsuite.errors import SimsuiteError
from simsuite.rules.judge import judge
from simsuite.rules.scenario import load_scenario
from simsuite.rules.variant import load_variant

ROOT = Path(__file__).resolve().parent.parent
IDS = ["school-2016", "huizhou", "baiyun-2016", "two-deck-2011", "guangxi-2012"]

BOTTOM_3 = "S5 SK H10 DQ DJ CQ"  # 25 points, 6 cards (three-deck variants)
BOTTOM_2 = "S5 SK H10 DQ DJ CQ CJ SQ"  # 25 points, 8 cards (two-deck-2011)


def q(cards: str) -> str:
    return json.dumps(cards)


def scenario(tmp_path: Path, text: str):
    path = tmp_path / "scenario.toml"
    path.write_text(text, encoding="utf-8")
    return load_scenario(path)


def verdicts(r):
    """A ruling without the fields that decided it (``rules``, ``*_rules``; tested on their own below)."""
    if isinstance(r, dict):
        return {k: verdicts(v) for k, v in r.items() if not (k == "rules" or k.endswith("_rules"))}
    if isinstance(r, list):
        return [verdicts(v) for v in r]
    return r


def rule(tmp_path: Path, text: str, vid: str, *, with_rules: bool = False) -> dict:
    r = json.loads(json.dumps(judge(scenario(tmp_path, text), load_variant(vid))))  # what the JSON output carries
    return r if with_rules else verdicts(r)


def rule_all(tmp_path: Path, text: str) -> dict[str, dict]:
    s = scenario(tmp_path, text)
    return {vid: verdicts(json.loads(json.dumps(judge(s, load_variant(vid))))) for vid in IDS}


def trick_text(
    plays: list[str],
    *,
    leader: str = "N",
    level: str = "7",
    trump: str = "S",
    hands: bool | dict = True,
    end: str = "",
    declarers: str = "NS",
    extra: str = "",
) -> str:
    """A scenario of one trick; with ``hands=True`` each seat holds exactly what it plays."""
    seats = "NESW"
    first = seats.index(leader)
    lines = [f'level = "{level}"', f'trump = "{trump}"', f'declarers = "{declarers}"', extra]
    if hands:
        held = hands if isinstance(hands, dict) else {seats[(first + i) % 4]: p for i, p in enumerate(plays)}
        lines.append("[hands]")
        lines += [f"{seat} = {q(cards)}" for seat, cards in held.items()]
    lines += ["[trick]", f'leader = "{leader}"', "plays = [" + ", ".join(q(p) for p in plays) + "]"]
    if end:
        lines += ["[end]", end]
    return "\n".join(lines) + "\n"


def end_text(points: int, *, level: str = "5", levels: str = "", dealer: str = "N") -> str:
    text = f'level = "{level}"\ntrump = "S"\ndeclarers = "NS"\ndealer = "{dealer}"\n[end]\ndefender_points = {points}\n'
    return text + (f"levels = {levels}\n" if levels else "")


def declare_text(bids: list[tuple[str, str]], *, level: str = "2", first_hand: bool = True, dealer: str = "") -> str:
    lines = [f'level = "{level}"', "[declare]", f"first_hand = {str(first_hand).lower()}"]
    if dealer:
        lines.append(f'dealer = "{dealer}"')
    lines.append("bids = [" + ", ".join(f"[{q(s)}, {q(c)}]" for s, c in bids) + "]")
    return "\n".join(lines) + "\n"


def bid_kinds(r: dict) -> list[str]:
    return [b["kind"] for b in r["declare"]["bids"]]


# --- bottom capture ---------------------------------------------------------------------------------

# N leads a heart pair, E (a defender, void in hearts) trumps with a spade pair and wins the last trick.
LAST_TRICK_TRUMP_PAIR = trick_text(
    ["HA HA", "S3 S3", "H4 H6", "C3 C4"],
    end=f'defender_points = 60\nbottom = "{BOTTOM_3}"\nlevels = {{ NS = "7", EW = "4" }}',
)


def test_school_2016_capture_pair_x6_on_last_trick(tmp_path):
    # 三、(五): the defenders win the last trick with a trump pair: the bottom's 25 points x 6
    r = rule(tmp_path, LAST_TRICK_TRUMP_PAIR, "school-2016")
    assert r["error"] is None
    assert [p["legal"] for p in r["plays"]] == [True, True, True, True]
    assert r["winner"] == "E" and r["trick_points"] == 0
    assert r["end"] == {
        "capture_by": "defenders",
        "capture_multiplier": 6,
        "capture_points": 150,
        "capture_reason": None,
        "penalty": 0,
        "defender_points": 210,
        "band": "210-235: defenders take over, defenders +3",
        "takeover": True,
        "next_declarers": "EW",
        "next_dealer": "E",
        "level_change": {"NS": 0, "EW": 3},
        "levels_after": {"NS": "7", "EW": "7"},
    }


def test_huizhou_trump_pair_captures_x6(tmp_path):
    r = rule(tmp_path, LAST_TRICK_TRUMP_PAIR, "huizhou")
    assert r["end"]["capture_by"] == "defenders"
    assert (r["end"]["capture_multiplier"], r["end"]["capture_points"], r["end"]["defender_points"]) == (6, 150, 210)
    assert r["end"]["band"] == "180-235: defenders take over, defenders +1"
    assert r["end"]["levels_after"] == {"NS": "7", "EW": "5"}


def test_baiyun_2016_trump_pair_captures_x3_reconstructed(tmp_path):
    r = rule(tmp_path, LAST_TRICK_TRUMP_PAIR, "baiyun-2016")
    assert (r["end"]["capture_multiplier"], r["end"]["capture_points"], r["end"]["defender_points"]) == (3, 75, 135)
    assert r["end"]["level_change"] == {"NS": 0, "EW": 0} and r["end"]["takeover"] is True


# E (a defender) leads the ace of hearts on the last trick and wins it with a side suit.
LAST_TRICK_SIDE_SINGLE = trick_text(
    ["HA", "H4", "D3", "H6"], leader="E", end=f'defender_points = 100\nbottom = "{BOTTOM_3}"'
)


def test_huizhou_side_suit_last_trick_captures_nothing(tmp_path):
    # 第五、2: only trump captures
    r = rule(tmp_path, LAST_TRICK_SIDE_SINGLE, "huizhou")
    assert r["winner"] == "E" and r["trick_points"] == 0
    assert r["end"] == {
        "capture_by": None,
        "capture_multiplier": 0,
        "capture_points": 0,
        "capture_reason": "only trump captures (capture_with = trump)",
        "penalty": 0,
        "defender_points": 100,
        "band": "60-115: declarers +1",
        "takeover": False,
        "next_declarers": "NS",
        "next_dealer": "S",
        "level_change": {"NS": 1, "EW": 0},
    }


def test_school_2016_side_suit_last_trick_captures_x3(tmp_path):
    # 三、(五)(1): trump and side cards alike
    r = rule(tmp_path, LAST_TRICK_SIDE_SINGLE, "school-2016")
    assert r["winner"] == "E"
    assert (r["end"]["capture_by"], r["end"]["capture_multiplier"], r["end"]["capture_points"]) == ("defenders", 3, 75)
    assert r["end"]["defender_points"] == 175
    assert r["end"]["band"] == "150-175: defenders take over, defenders +1"


def test_two_deck_2011_side_suit_single_captures_x1(tmp_path):
    # 三、15: won with a side suit, a single multiplies the bottom by 1
    text = trick_text(["HA", "H4", "D3", "H6"], leader="E", end=f'defender_points = 30\nbottom = "{BOTTOM_2}"')
    r = rule(tmp_path, text, "two-deck-2011")
    assert r["error"] is None and r["winner"] == "E" and r["trick_points"] == 0
    assert r["end"] == {
        "capture_by": "defenders",
        "capture_multiplier": 1,
        "capture_points": 25,
        "capture_reason": None,
        "penalty": 0,
        "defender_points": 55,
        "band": "40-75: declarers +1",
        "takeover": False,
        "next_declarers": "NS",
        "next_dealer": "S",
        "level_change": {"NS": 1, "EW": 0},
    }


LOW_HEARTS = "H3 H4 H6 H7 H8 H9".split()
LOW_CLUBS = "C3 C4 C6 C7 C8 C9".split()
LOW_DIAMONDS = "D3 D4 D6 D7 D8 D9".split()


def capture_of(tmp_path: Path, vid: str, lead: str, trump_with: str | None) -> dict:
    """The last trick at level 2, spades trump. With ``trump_with`` N leads ``lead`` and E trumps it;
    without, E leads ``lead`` and wins it in the side suit. The bottom holds 25 points."""
    n = len(lead.split())
    low_h, low_c, low_d = (" ".join(x[:n]) for x in (LOW_HEARTS, LOW_CLUBS, LOW_DIAMONDS))
    bottom = BOTTOM_2 if vid == "two-deck-2011" else BOTTOM_3
    if trump_with:
        plays, leader = [lead, trump_with, low_h, low_c], "N"
    else:
        plays, leader = [lead, low_h, low_d, low_h], "E"
    r = rule(tmp_path, trick_text(plays, leader=leader, level="2", end=f'bottom = "{bottom}"'), vid)
    assert r["error"] is None
    assert all(p["legal"] for p in r["plays"]), r["plays"]
    assert r["winner"] == "E"
    return r


# (lead, trump answer or None for a side-suit win, multiplier) per variant, as VARIANTS.md tabulates.
CAPTURE_TABLE = {
    "school-2016": [
        ("HA", "S3", 3),
        ("HA HA", "S3 S3", 6),
        ("HA HA HA", "S3 S3 S3", 9),
        ("HA HA HK HK", "S3 S3 S4 S4", 12),
        ("HA HA HA HK HK HK", "S3 S3 S3 S4 S4 S4", 18),
        ("HA", None, 3),
        ("HA HA", None, 6),
        ("HA HA HK HK", None, 12),
    ],
    "huizhou": [
        ("HA", "S3", 3),
        ("HA HA", "S3 S3", 6),
        ("HA HA HA", "S3 S3 S3", 9),
        ("HA HA HK HK", "S3 S3 S4 S4", 12),
        ("HA HA HA HK HK HK", "S3 S3 S3 S4 S4 S4", 18),
        ("HA", None, 0),
        ("HA HA", None, 0),
        ("HA HA HA", None, 0),
    ],
    "baiyun-2016": [
        ("HA", "S3", 2),
        ("HA HA", "S3 S3", 3),
        ("HA HA HA", "S3 S3 S3", 4),
        ("HA HA HK HK", "S3 S3 S4 S4", 5),
        ("HA", None, 2),
        ("HA HA", None, 3),
        ("HA HA HK HK", None, 5),
    ],
    "two-deck-2011": [
        ("HA", "S3", 2),
        ("HA HA", "S3 S3", 4),
        ("HA HA HK HK", "S3 S3 S4 S4", 8),
        ("HA HA HK HK HQ HQ", "S6 S6 S7 S7 S8 S8", 12),
        ("HA", None, 1),
        ("HA HA", None, 2),
        ("HA HA HK HK", None, 4),
    ],
}


@pytest.mark.parametrize(
    "vid, lead, trump_with, mult",
    [(vid, *row) for vid, rows in CAPTURE_TABLE.items() for row in rows],
    ids=lambda x: str(x).replace(" ", ""),
)
def test_capture_multiplier_tables(tmp_path, vid, lead, trump_with, mult):
    # school-2016 三、(五)(2); huizhou 第五、2; baiyun-2016 (八)18 [default]; two-deck-2011 三、15
    r = capture_of(tmp_path, vid, lead, trump_with)
    end = r["end"]
    assert end["capture_multiplier"] == mult
    assert end["capture_points"] == 25 * mult
    assert end["capture_by"] == ("defenders" if mult else None)
    assert end["defender_points"] == r["trick_points"] + 25 * mult


def test_school_2016_declarers_winning_the_last_trick_capture_nothing(tmp_path):
    text = trick_text(["HA HA", "H3 H4", "H6 H8", "C3 C4"], end=f'defender_points = 100\nbottom = "{BOTTOM_3}"')
    r = rule(tmp_path, text, "school-2016")
    assert r["winner"] == "N"
    assert r["end"]["capture_by"] is None and r["end"]["capture_points"] == 0
    assert r["end"]["capture_reason"] == "only the defenders capture (capture_by = defenders)"
    assert r["end"]["defender_points"] == 100


def test_school_2016_capture_of_a_throw_counts_only_its_highest_unit(tmp_path):
    # 三、(五)(2): for a throw count only the highest unit; W trumps E's throw HA HA HK with S5 S5 S3
    text = trick_text(
        ["HA HA HK", "H6 H8 H9", "S3 S5 S5", "H3 H4 H6"], leader="E", end=f'defender_points = 40\nbottom = "{BOTTOM_3}"'
    )
    r = rule(tmp_path, text, "school-2016")
    assert r["throw"]["stands"] is True
    assert r["winner"] == "W" and r["trick_points"] == 20
    assert (r["end"]["capture_multiplier"], r["end"]["capture_points"], r["end"]["defender_points"]) == (6, 150, 210)


def test_huizhou_scattered_trump_singles_count_as_a_single(tmp_path):
    # 第五、2: several scattered trump singles count as a single: x3
    text = trick_text(["HA HK", "S3 S5", "H3 H4", "H6 H8"], end=f'defender_points = 40\nbottom = "{BOTTOM_3}"')
    r = rule(tmp_path, text, "huizhou")
    assert r["throw"]["stands"] is True and r["winner"] == "E"
    assert (r["end"]["capture_multiplier"], r["end"]["capture_points"], r["end"]["defender_points"]) == (3, 75, 130)


GUANGXI_FIFTY = ["HA HA", "HK HK", "H10 H10", "H5 H5"]  # 50 points on a 2-card last lead


def test_guangxi_2012_last_trick_two_cards_counts_twice(tmp_path):
    # 第七章2 [default reading]: k = 2 times instead of once. Defenders: +100 in all.
    r = rule(tmp_path, trick_text(GUANGXI_FIFTY, leader="E", level="J", end="defender_points = 100"), "guangxi-2012")
    assert r["error"] is None and r["winner"] == "E" and r["trick_points"] == 50
    assert r["notes"] == []
    assert r["end"] == {
        "capture_by": "defenders",
        "capture_multiplier": 2,
        "capture_points": 50,
        "capture_reason": None,
        "penalty": 0,
        "defender_points": 200,
        "band": "160-235: defenders take over",
        "takeover": True,
        "next_declarers": "EW",
        "next_dealer": "E",
        "level_change": {"NS": 0, "EW": 0},
    }
    # Declarers winning the same trick take 100 off the defenders' total.
    r = rule(tmp_path, trick_text(GUANGXI_FIFTY, leader="N", level="J", end="defender_points = 200"), "guangxi-2012")
    assert r["winner"] == "N" and r["trick_points"] == 50
    assert r["end"] == {
        "capture_by": "declarers",
        "capture_multiplier": 2,
        "capture_points": -100,
        "capture_reason": None,
        "penalty": 0,
        "defender_points": 100,
        "band": "80-155: declarers +1",
        "takeover": False,
        "next_declarers": "EW",
        "next_dealer": "E",
        "level_change": {"NS": 1, "EW": 0},
    }


@pytest.mark.parametrize("leader, before, after", [("E", 100, 125), ("N", 200, 200)])
def test_guangxi_2012_one_card_last_lead_captures_nothing(tmp_path, leader, before, after):
    text = trick_text(["HA", "HK", "H10", "H5"], leader=leader, level="J", end=f"defender_points = {before}")
    r = rule(tmp_path, text, "guangxi-2012")
    assert r["end"]["capture_by"] is None and r["end"]["capture_points"] == 0
    assert r["end"]["capture_reason"] == "a one-card last lead captures nothing (single_card_captures = false)"
    assert r["end"]["defender_points"] == after


# --- following ----------------------------------------------------------------------------------------

FOLLOW_3PLUS3 = trick_text(
    ["H9 H9 H9 H8 H8 H8", "H5 H5 H6 H6 H7 H7"], level="2", hands={"E": "H5 H5 H6 H6 H7 H7 HJ HJ HJ HK HK HK C3"}
)


def test_school_2016_huizhou_differ_on_3plus3_follow(tmp_path):
    # school-2016 三、(二)A: 2+2+2 ranks above triple + triple; huizhou 第四、9: two triples come first
    school = rule(tmp_path, FOLLOW_3PLUS3, "school-2016")
    huizhou = rule(tmp_path, FOLLOW_3PLUS3, "huizhou")
    assert school["plays"][1] == {
        "seat": "E",
        "cards": "H7 H7 H6 H6 H5 H5",
        "legal": True,
        "shape": "2+2+2",
        "reason": None,
    }
    assert huizhou["plays"][1]["legal"] is False
    assert huizhou["plays"][1]["shape"] == "2+2+2"
    assert huizhou["plays"][1]["reason"].startswith("must follow the lead's shape (3+3) as far as the hand allows")
    assert "it gives 0 triples where the hand can give 2" in huizhou["plays"][1]["reason"]
    assert school["winner"] == huizhou["winner"] == "N"
    assert school["trick_points"] == huizhou["trick_points"] == 10


def test_school_2016_huizhou_differ_on_3plus3_follow_the_other_way(tmp_path):
    text = FOLLOW_3PLUS3.replace('"H5 H5 H6 H6 H7 H7"]', '"HJ HJ HJ HK HK HK"]')
    school = rule(tmp_path, text, "school-2016")
    huizhou = rule(tmp_path, text, "huizhou")
    assert huizhou["plays"][1]["legal"] is True and huizhou["plays"][1]["shape"] == "3 3"
    assert school["plays"][1]["legal"] is False
    assert "longest tractor" in school["plays"][1]["reason"]


def test_the_example_file_rules_the_same(tmp_path):
    s = load_scenario(ROOT / "examples/scenarios/follow-3plus3.toml")
    assert judge(s, load_variant("school-2016"))["plays"][1]["legal"] is True
    assert judge(s, load_variant("huizhou"))["plays"][1]["legal"] is False


@pytest.mark.parametrize(
    "hand, play, legal",
    [
        # B: a triple need not be broken while separate pairs suffice
        ("H5 H5 H5 H8 H8 HJ HJ C3", "H8 H8 HJ HJ", True),
        # B exception 1: not enough pairs: the triple must give a pair
        ("H5 H5 H5 H8 H8 H9 H10 C3", "H8 H8 H10 H9", False),
        ("H5 H5 H5 H8 H8 H9 H10 C3", "H5 H5 H8 H8", True),
        # B exception 2: a triple that forms a tractor with another pair must be broken to give it
        ("H6 H6 H6 H7 H7 HJ HJ C3", "H7 H7 HJ HJ", False),
        ("H6 H6 H6 H7 H7 HJ HJ C3", "H6 H6 H7 H7", True),
    ],
)
def test_school_2016_follow_pair_tractor_with_a_triple_in_hand(tmp_path, hand, play, legal):
    # 三、(二)B
    r = rule(tmp_path, trick_text(["HA HA HK HK", play], level="2", hands={"E": hand}), "school-2016")
    assert r["plays"][1]["legal"] is legal, r["plays"][1]


@pytest.mark.parametrize("vid", ["huizhou", "baiyun-2016"])
def test_pair_lead_must_be_answered_by_a_pair_split_from_a_triple(tmp_path, vid):
    # huizhou 第四 (pair lead); baiyun-2016 (八): a pair, even split from a triple
    hand = {"E": "H5 H5 H5 H6 C3"}
    bad = rule(tmp_path, trick_text(["HA HA", "H5 H6"], level="2", hands=hand), vid)
    good = rule(tmp_path, trick_text(["HA HA", "H5 H5"], level="2", hands=hand), vid)
    assert bad["plays"][1]["legal"] is False and "0 pairs where the hand can give 1" in bad["plays"][1]["reason"]
    assert good["plays"][1]["legal"] is True


@pytest.mark.parametrize("vid, level", [("school-2016", "2"), ("huizhou", "2"), ("guangxi-2012", "J")])
def test_triple_lead_without_a_triple_needs_a_pair_and_a_single(tmp_path, vid, level):
    hand = {"E": "H5 H5 H6 H7 C3"}
    bad = rule(tmp_path, trick_text(["HA HA HA", "H5 H6 H7"], level=level, hands=hand), vid)
    good = rule(tmp_path, trick_text(["HA HA HA", "H5 H5 H7"], level=level, hands=hand), vid)
    assert bad["plays"][1]["legal"] is False
    assert good["plays"][1]["legal"] is True and good["plays"][1]["shape"] == "2 1"


def test_guangxi_2012_lone_triple_counts_as_pair_and_single_on_triple_tractor_lead(tmp_path):
    # 第四章4: against 888999 a lone triple counts only as a pair + a single: AAA + 33 + 5 gives as much
    # as AA + 33 + 5 + 6 (two pairs)
    hand = {"E": "HA HA HA H3 H3 H5 H6 C3"}
    for play in ("HA HA HA H3 H3 H5", "HA HA H3 H3 H5 H6"):
        r = rule(tmp_path, trick_text(["H8 H8 H8 H9 H9 H9", play], level="J", hands=hand), "guangxi-2012")
        assert r["plays"][1]["legal"] is True, play


# --- units and leads -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "vid, level, lead",
    [
        ("school-2016", "6", "H5 H5 H7 H7"),  # 二、11: playing 6, a 5 and a 7 are consecutive
        ("huizhou", "10", "HJ HJ H9 H9"),  # 第三、3: JJ99 when playing 10
        ("two-deck-2011", "5", "H4 H4 H6 H6"),  # [default]: playing 5, 4466 is a tractor
    ],
)
def test_gap_over_the_level_rank_makes_a_tractor(tmp_path, vid, level, lead):
    r = rule(tmp_path, trick_text([lead], level=level, hands=False), vid)
    assert r["plays"][0]["legal"] is True and r["plays"][0]["shape"] == "2+2"
    assert r["throw"] is None


def test_guangxi_2012_no_gap_over_the_level_rank(tmp_path):
    # 第三章1: playing 4, side 3 and 5 are not consecutive; a two-pair lead is then a throw, not allowed
    r = rule(tmp_path, trick_text(["H3 H3 H5 H5"], level="4", hands=False), "guangxi-2012")
    assert r["plays"][0]["legal"] is False and r["plays"][0]["shape"] == "2 2"
    assert r["plays"][0]["reason"] == "throws are not allowed in guangxi-2012; 2 2 is not a single unit"
    assert r["winner"] is None


@pytest.mark.parametrize(
    "vid, level, trump, lead, tractor",
    [
        ("huizhou", "10", "S", "BJ BJ SJ SJ", True),
        ("huizhou", "10", "S", "S10 S10 H10 H10", True),  # trump-suit level pair + off-suit level pair
        ("huizhou", "10", "S", "H10 H10 SA SA", True),  # off-suit level pair + trump AA
        ("huizhou", "10", "S", "H10 H10 D10 D10", False),  # two off-suit level pairs
        ("huizhou", "10", "S", "SJ SJ S10 S10", True),  # 第三、2: adjacent in 第三、1's trump order
        ("huizhou", "10", "S", "SJ SJ SJ S10 S10 S10", True),  # the triple version, by the same rule
        ("huizhou", "10", "S", "SJ SJ H10 H10", False),  # the off-suit level sits below the trump-suit level
        ("two-deck-2011", "10", "S", "BJ BJ SJ SJ", True),  # 三、11
        ("two-deck-2011", "10", "S", "SJ SJ S10 S10", True),  # small-joker pair + trump-suit level pair
        ("two-deck-2011", "10", "S", "S10 S10 H10 H10", True),  # trump-suit level pair + off-suit level pair
        ("school-2016", "10", "NT", "SJ SJ H10 H10", True),  # 二、11: no-trump, small jokers + any level pair
        ("school-2016", "10", "NT", "D10 D10 H10 H10", False),  # level pairs of different suits do not
        (
            "school-2016",
            "10",
            "S",
            "SJ SJ S10 S10",
            True,
        ),  # 二、11 余类推: with a suit, small jokers + trump-suit level
        ("school-2016", "10", "S", "S10 S10 H10 H10", False),  # 二、11 "级牌之间不能组成拖拉机", with a suit too
        ("school-2016", "10", "S", "H10 H10 SA SA", False),  # [default] off-suit level pair + trump AA
        ("guangxi-2012", "10", "S", "S10 S10 H10 H10", False),  # 第三章1: level cards never link
        ("guangxi-2012", "J", "S", "S2 S2 SA SA", False),  # 2 never joins A
        ("guangxi-2012", "J", "S", "BJ BJ SJ SJ", True),
    ],
)
def test_trump_tractors(tmp_path, vid, level, trump, lead, tractor):
    r = rule(tmp_path, trick_text([lead], level=level, trump=trump, hands=False), vid)
    assert r["error"] is None
    cards = lead.split()
    size = cards.count(cards[0])  # pairs or triples
    assert (r["plays"][0]["shape"] == "+".join([str(size)] * (len(cards) // size))) is tractor, r["plays"][0]


def test_huizhou_3_2_small_joker_pair_with_trump_level_pair_is_a_tractor(tmp_path):
    # 第三、2: "主、副牌凡点数顺序相邻且花色相同的联对…均构成拖拉机"; 第三、1 puts 小王 next to 主10
    r = rule(tmp_path, trick_text(["SJ SJ S10 S10"], level="10", trump="S", hands=False), "huizhou")
    assert r["plays"][0]["shape"] == "2+2"


def test_school_2016_2_11_level_pairs_never_link(tmp_path):
    # 二、11: "级牌之间不能组成拖拉机，余类推": the trump-suit level pair and an off-suit level pair are two pairs
    r = rule(tmp_path, trick_text(["S10 S10 H10 H10"], level="10", trump="S", hands=False), "school-2016")
    assert r["plays"][0]["shape"] == "2 2"


def test_huizhou_3plus2_is_a_unit_school_2016_and_baiyun_2016_a_throw(tmp_path):
    # huizhou 第四、10 [default reading]: AAAKK is a lead in its own right, no throw test;
    # school-2016 二、11 and baiyun-2016 (八)16 ("captive"): only inside a throw
    text = trick_text(["HA HA HA HK HK"], hands={"N": "HA HA HA HK HK", "E": "HK H3", "S": "H4 H5", "W": "C3"})
    rs = rule_all(tmp_path, text)
    assert rs["huizhou"]["plays"][0]["shape"] == "3+2" and rs["huizhou"]["throw"] is None
    for vid in ("school-2016", "baiyun-2016"):
        assert rs[vid]["plays"][0]["shape"] == "3 2"
        assert rs[vid]["throw"] is not None and rs[vid]["throw"]["stands"] is True  # tested, and it stands
    assert rs["guangxi-2012"]["plays"][0]["legal"] is False
    assert "2 deck(s) hold only 2" in rs["two-deck-2011"]["error"]


# --- winning a trick ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "vid, level, plays, winner",
    [
        # school-2016 二、11 special rule: ♥555666 beats ♥AAKKQQ
        (
            "school-2016",
            "2",
            ["HA HA HK HK HQ HQ", "H5 H5 H5 H6 H6 H6", "H3 H4 H8 H9 H10 HJ", "C3 C4 C5 C6 C8 C9"],
            "E",
        ),
        # huizhou 第四、9 注: AAKKQQ led, 999888 after it wins
        ("huizhou", "2", ["HA HA HK HK HQ HQ", "H9 H9 H9 H8 H8 H8", "H3 H4 H5 H6 H10 HJ", "C3 C4 C5 C6 C8 C9"], "E"),
        # guangxi-2012 第六章3: 555666 beats AAKKQQ; 33334444 beats AAKKQQJJ
        (
            "guangxi-2012",
            "J",
            ["HA HA HK HK HQ HQ", "H5 H5 H5 H6 H6 H6", "H3 H4 H8 H9 H10 H7", "C3 C4 C5 C6 C8 C9"],
            "E",
        ),
        (
            "guangxi-2012",
            "8",
            [
                "HA HA HK HK HQ HQ HJ HJ",
                "H3 H3 H3 H3 H4 H4 H4 H4",
                "H5 H6 H7 H9 H10 H10 H9 H7",
                "C3 C4 C5 C6 C8 C9 C10 CJ",
            ],
            "E",
        ),
        # guangxi-2012 第六章4: a bomb beats a 2-pair tractor of the same count (6666 beats AAKK)
        ("guangxi-2012", "J", ["HA HA HK HK", "H6 H6 H6 H6", "H3 H4 H8 H9", "C3 C4 C5 C6"], "E"),
        # two decks: no wide units, the led tractor stands
        ("two-deck-2011", "2", ["HA HA HK HK", "H5 H5 H6 H6", "H3 H4 H8 H9", "C3 C4 C5 C6"], "N"),
        # guangxi-2012: after a side bomb, a later trumper needs a trump bomb ...
        ("guangxi-2012", "J", ["HA HA HK HK", "H7 H7 H7 H7", "S3 S3 S4 S4", "S6 S6 S6 S6"], "W"),
        # ... and a side bomb never beats an earlier trump
        ("guangxi-2012", "J", ["HA HA HK HK", "S3 S3 S4 S4", "H7 H7 H7 H7", "C6 C6 C6 C6"], "E"),
        # trump must match the led shape exactly, otherwise it is a discard (school-2016 三、(四))
        ("school-2016", "7", ["HA HA", "S3 S5", "H4 H6", "C7 C8"], "N"),
        # over-trumping: the same shape, higher
        ("school-2016", "7", ["HA HA", "S3 S3", "H4 H6", "S5 S5"], "W"),
        ("school-2016", "7", ["HA HA", "S5 S5", "H4 H6", "S3 S3"], "E"),
        # equal cards: the first played wins (off-suit level cards)
        ("school-2016", "7", ["H7", "D7", "C7", "H3"], "N"),
        ("huizhou", "7", ["H7", "D7", "C7", "H3"], "N"),
    ],
)
def test_trick_winners(tmp_path, vid, level, plays, winner):
    r = rule(tmp_path, trick_text(plays, level=level, hands=False), vid)
    assert r["error"] is None
    assert r["winner"] == winner


def test_guangxi_2012_side_bomb_then_smaller_trump_tractor_loses(tmp_path):
    # 第六章4: after E's side bomb H7777, S's trump tractor S3344 does not win
    plays = ["HA HA HK HK", "H7 H7 H7 H7", "S3 S3 S4 S4", "C3 C4 C5 C6"]
    hands = {"N": "HA HA HK HK", "E": "H7 H7 H7 H7 D3", "S": "S3 S3 S4 S4 D4", "W": "C3 C4 C5 C6"}
    r = rule(tmp_path, trick_text(plays, level="J", hands=hands), "guangxi-2012")
    assert [p["legal"] for p in r["plays"]] == [True, True, True, True]
    assert r["winner"] == "E"


# --- throws --------------------------------------------------------------------------------------------

THROW_HANDS = {"N": "HK HK HQ S3", "E": "HA H9 H10 C3", "S": "H5 H6 H8 D4", "W": "H3 H4 D9 D10"}

# N (a declarer) throws HK HK HQ while E holds HA: each variant's consequence.
DECLARER_THROW = {
    "school-2016": (
        {
            "stands": False,
            "consequence": "penalty",
            "defender_points_delta": 30,
            "forced_play": "HQ",
            "failing_units": ["1", "2"],
        },
        70,
        {"NS": 2, "EW": 0},
    ),  # 四、5(6): 10 per card beaten, pair = 2
    "baiyun-2016": (
        {
            "stands": False,
            "consequence": "penalty",
            "defender_points_delta": 20,
            "forced_play": "HQ",
            "failing_units": ["1"],
        },
        60,
        {"NS": 1, "EW": 0},
    ),  # (八)20: flat 20
    "two-deck-2011": (
        {
            "stands": False,
            "consequence": "penalty",
            "defender_points_delta": 20,
            "forced_play": "HQ",
            "failing_units": ["1"],
        },
        60,
        {"NS": 1, "EW": 0},
    ),  # 三、18: 10 per card taken back
    "huizhou": (
        {
            "stands": False,
            "consequence": "forfeit",
            "defender_points_delta": 0,
            "forced_play": None,
            "failing_units": ["1"],
        },
        120,
        {"NS": 0, "EW": 0},
    ),  # 第七: the defenders take the stage
}


@pytest.mark.parametrize("vid", list(DECLARER_THROW))
def test_failed_throw_by_a_declarer(tmp_path, vid):
    throw, points, change = DECLARER_THROW[vid]
    r = rule(tmp_path, trick_text(["HK HK HQ"], hands=THROW_HANDS, end="defender_points = 40"), vid)
    assert r["error"] is None
    assert {k: r["throw"][k] for k in throw} == throw
    assert r["throw"]["reason"].startswith("failed throw (")
    assert r["end"]["penalty"] == throw["defender_points_delta"]
    assert r["end"]["defender_points"] == points
    assert r["end"]["level_change"] == change
    if vid == "huizhou":
        assert r["winner"] is None
        assert "the throw failed: the hand ends here" in r["notes"]
        assert r["end"]["takeover"] is True and r["end"]["next_dealer"] == "E"
    else:
        assert r["winner"] == "N" and r["trick_points"] == 0  # played to the forced HQ


def test_guangxi_2012_throw_is_not_allowed(tmp_path):
    r = rule(
        tmp_path, trick_text(["HK HK HQ"], level="J", hands=THROW_HANDS, end="defender_points = 40"), "guangxi-2012"
    )
    assert r["throw"] is None and r["winner"] is None and r["end"] is None
    assert r["plays"][0]["legal"] is False
    assert r["notes"] == [
        "the lead is illegal: throws are not allowed in guangxi-2012; 2 1 is not a single unit",
        "no winner for the last trick: the end of the hand is not ruled",
    ]


DEFENDER_THROW = {  # E (a defender) throws H10 H9 while N holds HK HK HQ
    "school-2016": (-20, "H9", 80, {"NS": 2, "EW": 0}),  # 四、5(1): a defender's offence subtracts
    "baiyun-2016": (-20, "H9", 80, {"NS": 1, "EW": 0}),
    "two-deck-2011": (-10, "H9", 90, {"NS": 0, "EW": 0}),
    "huizhou": (0, None, 60, {"NS": 1, "EW": 0}),  # 第七: the declarers go up one level
}


@pytest.mark.parametrize("vid", list(DEFENDER_THROW))
def test_failed_throw_by_a_defender(tmp_path, vid):
    delta, forced, points, change = DEFENDER_THROW[vid]
    r = rule(tmp_path, trick_text(["H10 H9"], leader="E", hands=THROW_HANDS, end="defender_points = 100"), vid)
    assert r["throw"]["stands"] is False
    assert r["throw"]["defender_points_delta"] == delta
    assert r["throw"]["forced_play"] == forced
    assert r["end"]["defender_points"] == points
    assert r["end"]["level_change"] == change


@pytest.mark.parametrize("points", [0, 30, 100])
def test_huizhou_7_defenders_forfeit_moves_the_declarers_exactly_one_level(tmp_path, points):
    # 第七: "违反比赛规则者，对方直接上台或升一级": a defender's failed throw gives the declarers +1,
    # whatever the defenders had (not +2 below 60 nor +3 at 0)
    r = rule(
        tmp_path, trick_text(["H10 H9"], leader="E", hands=THROW_HANDS, end=f"defender_points = {points}"), "huizhou"
    )
    assert r["throw"]["consequence"] == "forfeit"
    assert r["end"]["level_change"] == {"NS": 1, "EW": 0} and r["end"]["takeover"] is False
    assert any("升一级" in n for n in r["notes"])


@pytest.mark.parametrize("points", [40, 200])
def test_huizhou_7_declarers_forfeit_puts_the_defenders_on_stage_with_no_level(tmp_path, points):
    # 第七: "对方直接上台": the defenders take the stage, gaining no level even from 200 points
    r = rule(tmp_path, trick_text(["HK HK HQ"], hands=THROW_HANDS, end=f"defender_points = {points}"), "huizhou")
    assert r["end"]["takeover"] is True and r["end"]["level_change"] == {"NS": 0, "EW": 0}
    assert r["end"]["defender_points"] == 120
    assert any("直接上台" in n for n in r["notes"])


def test_absolute_max_and_per_unit_differ(tmp_path):
    # school-2016 三、(三): the throw's smallest card (HQ) is below E's HK: fails, the pair counts 2.
    # The per-unit rule (huizhou, baiyun-2016, two-deck-2011): nobody holds a pair above QQ, HA is top: stands.
    hands = {"N": "HA HQ HQ S3", "E": "HK H3 D3", "S": "H4 H6 D4", "W": "H8 H9 D5"}
    rs = rule_all(tmp_path, trick_text(["HA HQ HQ"], hands=hands))
    assert rs["school-2016"]["throw"]["stands"] is False
    assert rs["school-2016"]["throw"]["failing_units"] == ["2"]
    assert rs["school-2016"]["throw"]["defender_points_delta"] == 20
    assert rs["school-2016"]["throw"]["forced_play"] == "HQ"
    for vid in ("huizhou", "baiyun-2016", "two-deck-2011"):
        assert rs[vid]["throw"] == {
            "stands": True,
            "consequence": None,
            "defender_points_delta": 0,
            "forced_play": None,
            "failing_units": [],
            "reason": None,
        }
        assert rs[vid]["winner"] == "N"


def test_throw_fails_example_per_variant():
    s = load_scenario(ROOT / "examples/scenarios/throw-fails.toml")
    got = {vid: judge(s, load_variant(vid)) for vid in IDS}
    assert [got[v]["throw"]["defender_points_delta"] for v in ("school-2016", "baiyun-2016", "two-deck-2011")] == [
        10,
        20,
        10,
    ]
    assert got["huizhou"]["throw"]["consequence"] == "forfeit"
    assert got["guangxi-2012"]["throw"] is None and got["guangxi-2012"]["plays"][0]["legal"] is False


# --- declaring -------------------------------------------------------------------------------------------


def test_school_2016_three_clubs_beat_two_big_jokers(tmp_path):
    # 三、(一): "more over less"
    r = rule(tmp_path, declare_text([("N", "BJ BJ"), ("E", "C2 C2 C2")]), "school-2016")
    assert bid_kinds(r) == ["declare", "override"]
    assert (r["declare"]["trump"], r["declare"]["declarer"], r["declare"]["dealer"]) == ("C", "E", "E")


def test_school_2016_bigger_suit_over_smaller(tmp_path):
    # 三、(一)1(2)(3): two identical cards beat two of a lower suit, never of a higher one
    r = rule(tmp_path, declare_text([("N", "D2 D2"), ("E", "H2 H2"), ("S", "C2 C2")]), "school-2016")
    assert bid_kinds(r) == ["declare", "override", "rejected"]
    assert r["declare"]["bids"][2]["reason"] == (
        "equal count (2 against 2): C does not rank above H in suit_order "
        "BJ > SJ > S > H > D > C (tie_break = suit_order)"
    )
    assert r["declare"]["trump"] == "H" and r["declare"]["declarer"] == "E"


def test_school_2016_single_declares_only_two_change_and_no_self_override(tmp_path):
    # 三、(一)1(1) and 3: one level card declares; changing needs two; the declarer may only reinforce
    r = rule(tmp_path, declare_text([("N", "H2"), ("E", "S2"), ("N", "S2 S2"), ("N", "H2 H2")]), "school-2016")
    assert bid_kinds(r) == ["declare", "rejected", "rejected", "reinforce"]
    assert "min_override = 2" in r["declare"]["bids"][1]["reason"]
    assert "self_override = false" in r["declare"]["bids"][2]["reason"]
    assert (r["declare"]["trump"], r["declare"]["declarer"]) == ("H", "N")


@pytest.mark.parametrize("vid", ["school-2016", "two-deck-2011", "baiyun-2016", "huizhou"])
def test_later_hand_override_does_not_change_the_dealer(tmp_path, vid):
    # school-2016 三、(一); two-deck-2011 三、17 "反主不反庄"
    r = rule(tmp_path, declare_text([("N", "H2"), ("E", "S2 S2")], first_hand=False, dealer="N"), vid)
    assert (r["declare"]["trump"], r["declare"]["declarer"], r["declare"]["dealer"]) == ("S", "E", "N")


@pytest.mark.parametrize(
    "bottom, trump, words",
    [
        ("H9 S3 D4 C5 C6 C7", "H", "the bottom's first card H9 makes hearts trump"),
        ("SJ S3 D4 C5 C6 C7", "NT", "the bottom's first card SJ is a joker, so the hand is no-trump"),
    ],
)
def test_school_2016_nobody_declares_turn_up_the_bottom(tmp_path, bottom, trump, words):
    text = f'level = "2"\ntrump = "S"\ndeclarers = "NS"\n[declare]\nbids = []\n[end]\nbottom = "{bottom}"\n'
    r = rule(tmp_path, text, "school-2016")
    assert r["declare"] == {
        "bids": [],
        "trump": trump,
        "declarer": None,
        "dealer": None,
        "fallback": f"nobody declared: {words}",
    }


def test_baiyun_2016_nobody_declares_first_non_joker(tmp_path):
    text = 'level = "2"\ntrump = "S"\ndeclarers = "NS"\n[declare]\nbids = []\n[end]\nbottom = "SJ D3 D4 C5 C6 C7"\n'
    r = rule(tmp_path, text, "baiyun-2016")
    assert r["declare"]["trump"] == "D"


def test_two_deck_2011_first_player_comes_back_with_a_pair(tmp_path):
    # 三、6: ♠2 declared, a ♣2 pair overrides, the first player may come back with a ♠2 pair
    r = rule(tmp_path, declare_text([("N", "S2"), ("E", "C2 C2"), ("N", "S2 S2")]), "two-deck-2011")
    assert bid_kinds(r) == ["declare", "override", "override"]
    assert (r["declare"]["trump"], r["declare"]["declarer"], r["declare"]["dealer"]) == ("S", "N", "N")


def test_two_deck_2011_joker_pairs_override_to_no_trump(tmp_path):
    # 三、6: a pair of level cards, then a pair of small jokers, then a pair of big jokers
    r = rule(tmp_path, declare_text([("N", "S2 S2"), ("E", "SJ SJ"), ("S", "BJ BJ")]), "two-deck-2011")
    assert bid_kinds(r) == ["declare", "override", "override"]
    assert (r["declare"]["trump"], r["declare"]["declarer"]) == ("NT", "S")


def test_two_deck_2011_single_joker_and_three_cards_are_no_bids(tmp_path):
    r = rule(tmp_path, declare_text([("N", "H2"), ("E", "SJ"), ("S", "C2 C2 C2")]), "two-deck-2011")
    assert bid_kinds(r) == ["declare", "rejected", "rejected"]
    assert r["declare"]["bids"][2]["reason"] == "it shows 3 x C2, but 2 deck(s) hold only 2 of each card"


def test_huizhou_count_alone_decides_and_no_jokers(tmp_path):
    # 第二、1: 2 beat 1, 3 beat 2; equal counts, the earlier stands; [default] no no-trump
    r = rule(
        tmp_path,
        declare_text([("N", "H2"), ("E", "S2 S2"), ("S", "D2 D2"), ("W", "SJ SJ"), ("S", "C2 C2 C2")]),
        "huizhou",
    )
    assert bid_kinds(r) == ["declare", "override", "rejected", "rejected", "override"]
    assert "first_stands" in r["declare"]["bids"][2]["reason"]
    assert "joker_bids = none" in r["declare"]["bids"][3]["reason"]
    assert (r["declare"]["trump"], r["declare"]["declarer"]) == ("C", "S")


def test_baiyun_2016_single_cannot_be_reinforced_after_a_pair(tmp_path):
    # (八)9②: a single declared ♥2 cannot be reinforced after a ♠2 pair
    r = rule(tmp_path, declare_text([("N", "H2"), ("E", "S2 S2"), ("N", "H2 H2")]), "baiyun-2016")
    assert bid_kinds(r) == ["declare", "override", "rejected"]
    assert (r["declare"]["trump"], r["declare"]["declarer"], r["declare"]["dealer"]) == ("S", "E", "E")


def test_guangxi_2012_opening_bid_needs_a_small_joker(tmp_path):
    # 第二章1: in the opening hand at 3 a bid must include a small joker; more cards override fewer
    r = rule(tmp_path, declare_text([("N", "H3"), ("E", "SJ S3"), ("S", "SJ D3 D3")], level="3"), "guangxi-2012")
    assert bid_kinds(r) == ["rejected", "declare", "override"]
    assert "small joker" in r["declare"]["bids"][0]["reason"]
    assert (r["declare"]["trump"], r["declare"]["declarer"], r["declare"]["dealer"]) == ("D", "S", "S")


def test_declare_bids_example_per_variant():
    s = load_scenario(ROOT / "examples/scenarios/declare-bids.toml")
    got = {vid: judge(s, load_variant(vid)) for vid in IDS}
    # 三、(一)3: W is the partner of E, whose S2 S2 stands: "亮主的一方" may not change its suit
    assert got["school-2016"]["declare"]["trump"] == "S"
    assert "partner" in got["school-2016"]["declare"]["bids"][3]["reason"]
    assert got["huizhou"]["declare"]["trump"] == "C"  # 第二、1 bars only the seat that declared
    assert got["two-deck-2011"]["declare"]["trump"] == "S"  # three C2 are impossible with two decks
    assert got["guangxi-2012"]["error"] == "level 2 is a permanent trump rank in guangxi-2012"


# --- scoring bands and levels --------------------------------------------------------------------------

BANDS = [
    # (variant, defender points, NS gain, EW gain)
    ("school-2016", 120, 0, 0),
    ("school-2016", 145, 0, 0),
    ("school-2016", 150, 0, 1),
    ("school-2016", 300, 0, 6),
    ("school-2016", 115, 1, 0),
    ("school-2016", 90, 1, 0),
    ("school-2016", 85, 2, 0),
    ("school-2016", 60, 2, 0),
    ("school-2016", 55, 3, 0),
    ("school-2016", 30, 3, 0),
    ("school-2016", 25, 4, 0),
    ("school-2016", 0, 4, 0),
    ("school-2016", -20, 4, 0),
    ("huizhou", 0, 3, 0),
    ("huizhou", 5, 2, 0),
    ("huizhou", 55, 2, 0),
    ("huizhou", 60, 1, 0),
    ("huizhou", 115, 1, 0),
    ("huizhou", 120, 0, 0),
    ("huizhou", 175, 0, 0),
    ("huizhou", 180, 0, 1),
    ("huizhou", 240, 0, 2),
    ("huizhou", 300, 0, 3),
    ("baiyun-2016", 0, 3, 0),
    ("baiyun-2016", -5, 3, 0),
    ("baiyun-2016", -60, 4, 0),
    ("baiyun-2016", 55, 2, 0),
    ("baiyun-2016", 60, 1, 0),
    ("baiyun-2016", 120, 0, 0),
    ("baiyun-2016", 180, 0, 1),
    ("two-deck-2011", 0, 3, 0),
    ("two-deck-2011", 5, 2, 0),
    ("two-deck-2011", 35, 2, 0),
    ("two-deck-2011", 40, 1, 0),
    ("two-deck-2011", 75, 1, 0),
    ("two-deck-2011", 80, 0, 0),
    ("two-deck-2011", 115, 0, 0),
    ("two-deck-2011", 120, 0, 1),
    ("two-deck-2011", 160, 0, 2),
    ("two-deck-2011", 200, 0, 3),
    ("two-deck-2011", 240, 0, 4),
    ("guangxi-2012", 160, 0, 0),
    ("guangxi-2012", 240, 0, 1),
    ("guangxi-2012", 320, 0, 2),
    ("guangxi-2012", 155, 1, 0),
    ("guangxi-2012", 80, 1, 0),
    ("guangxi-2012", 75, 2, 0),
    ("guangxi-2012", 0, 3, 0),
    ("guangxi-2012", -75, 3, 0),
    ("guangxi-2012", -80, 4, 0),
]


@pytest.mark.parametrize("vid, points, ns, ew", BANDS)
def test_scoring_bands(tmp_path, vid, points, ns, ew):
    r = rule(tmp_path, end_text(points), vid)
    end = r["end"]
    takeover = points >= load_variant(vid).takeover
    assert end["defender_points"] == points
    assert end["level_change"] == {"NS": ns, "EW": ew}
    assert end["takeover"] is takeover
    if vid == "guangxi-2012":  # 第八章4: the deal rotates whatever the result
        assert (end["next_dealer"], end["next_declarers"]) == ("E", "EW")
    elif takeover:  # the old dealer's next
        assert (end["next_dealer"], end["next_declarers"]) == ("E", "EW")
    else:  # the dealer's partner
        assert (end["next_dealer"], end["next_declarers"]) == ("S", "NS")


@pytest.mark.parametrize(
    "vid, points, band",
    [
        ("school-2016", 0, "25 and below: declarers +4 (cap)"),
        ("huizhou", 0, "0: big bald (大光), declarers +3"),
        ("huizhou", 5, "5-55: declarers +2"),
        ("two-deck-2011", 80, "80-115: defenders take over"),
        ("guangxi-2012", -80, "-155 to -80: below zero, declarers +4"),
    ],
)
def test_band_names(tmp_path, vid, points, band):
    assert rule(tmp_path, end_text(points), vid)["end"]["band"] == band


def test_levels_after_last_trick_capture_example():
    s = load_scenario(ROOT / "examples/scenarios/last-trick-capture.toml")
    after = {vid: judge(s, load_variant(vid))["end"] for vid in ("school-2016", "huizhou", "baiyun-2016")}
    # school-2016: 60 + 35 + 25 x 12 = 395: take over +9, EW 4 -> K
    assert (after["school-2016"]["defender_points"], after["school-2016"]["levels_after"]) == (
        395,
        {"NS": "7", "EW": "K"},
    )
    # huizhou: 395: 360-415 is +4, EW 4 -> 8
    assert after["huizhou"]["levels_after"] == {"NS": "7", "EW": "8"}
    # baiyun-2016 [default]: 2-pair tractor x5: 60 + 35 + 125 = 220: +1, EW 4 -> 5
    assert (after["baiyun-2016"]["defender_points"], after["baiyun-2016"]["levels_after"]) == (
        220,
        {"NS": "7", "EW": "5"},
    )


def test_levels_after_declarers_hold(tmp_path):
    r = rule(tmp_path, end_text(0, level="7", levels='{ NS = "7", EW = "4" }'), "school-2016")
    assert r["end"]["levels_after"] == {"NS": "J", "EW": "4"}  # +4: 7 -> J


def test_levels_after_past_the_end(tmp_path):
    r = rule(tmp_path, end_text(0, level="Q", levels='{ NS = "Q", EW = "4" }'), "school-2016")
    assert r["end"]["levels_after"] == {"NS": "past A (+2)", "EW": "4"}


def test_huizhou_levels_after_respect_its_end_level(tmp_path):
    r = rule(tmp_path, end_text(0, level="9", levels='{ NS = "9", EW = "4" }'), "huizhou")
    assert r["end"]["level_change"] == {"NS": 3, "EW": 0}
    assert "past" in r["end"]["levels_after"]["NS"]


def test_levels_outside_a_variant_are_an_error(tmp_path):
    r = rule(tmp_path, end_text(0, level="9", levels='{ NS = "9", EW = "J" }'), "huizhou")
    assert r["error"] == "[end] level J is outside huizhou's levels"


def test_end_levels_where_the_declarers_are_not_at_the_level_played_are_an_error(tmp_path):
    """The declarers play their own level: levels = { NS = "5" } for a hand NS declare at 7 cannot exist."""
    r = rule(tmp_path, end_text(0, level="7", levels='{ NS = "5", EW = "4" }'), "school-2016")
    assert r["error"] == "[end] levels: the declarers (NS) are at 5, but the hand is played at level 7"


def test_end_levels_must_give_both_teams(tmp_path):
    path = tmp_path / "scenario.toml"
    path.write_text(end_text(0, level="7", levels='{ NS = "7" }'))
    with pytest.raises(SimsuiteError, match=r"\[end\] levels must give both teams"):
        load_scenario(path)


# --- the same through the command line -------------------------------------------------------------------


def test_cli_json_matches_the_library(tmp_path, capsys):
    path = tmp_path / "scenario.toml"
    path.write_text(LAST_TRICK_TRUMP_PAIR, encoding="utf-8")
    assert main(["judge", str(path), "--variant", "all", "--json"]) == 0
    data = {r["variant"]: r for r in json.loads(capsys.readouterr().out)}
    assert data["school-2016"]["end"]["capture_points"] == 150
    assert data["huizhou"]["end"]["capture_points"] == 150
    assert data["baiyun-2016"]["end"]["capture_points"] == 75
    assert data["two-deck-2011"]["error"] == "the bottom has 6 cards; two-deck-2011 buries 8"
    assert data["guangxi-2012"]["error"] == "the bottom has 6 cards; guangxi-2012 buries 0"


def test_example_positions_read_per_variant_as_their_clauses_say():
    # the tractors and forfeits of the example positions, as `simsuite judge` rules on them
    def shapes(name):
        s = load_scenario(ROOT / f"examples/scenarios/{name}.toml")
        return {vid: judge(s, load_variant(vid))["plays"][0]["shape"] for vid in IDS}

    # huizhou 第三、2, school-2016 二、11 余类推, two-deck-2011 三、11; guangxi-2012 第六章2 lists none
    assert shapes("tractor-small-joker-level") == {
        "school-2016": "2+2",
        "huizhou": "2+2",
        "baiyun-2016": "2+2",
        "two-deck-2011": "2+2",
        "guangxi-2012": "2 2",
    }
    # school-2016 二、11 "级牌之间不能组成拖拉机"; guangxi-2012 第三章1
    assert shapes("tractor-level-pairs") == {
        "school-2016": "2 2",
        "huizhou": "2+2",
        "baiyun-2016": "2+2",
        "two-deck-2011": "2+2",
        "guangxi-2012": "2 2",
    }
    # huizhou 第七: a defender's forfeit is exactly +1 for the declarers, though 30 points would score +2
    s = load_scenario(ROOT / "examples/scenarios/forfeit-defender.toml")
    assert judge(s, load_variant("huizhou"))["end"]["level_change"] == {"NS": 1, "EW": 0}


# --- the clause behind each ruling ----------------------------------------------------------------------


def fields(rules: list[dict]) -> list[str]:
    return [r["field"] for r in rules]


def test_huizhou_4_9_follow_names_the_follow_order_and_its_clause(tmp_path):
    r = rule(tmp_path, FOLLOW_3PLUS3, "huizhou", with_rules=True)
    follow = r["plays"][1]["rules"]
    assert fields(follow)[0] == "follow_order"
    assert follow[0]["value"] == ["tt", "triples", "long", "width", "tcards", "pairs"]
    assert follow[0]["cite"]["clause"] == "第四、8-10"
    assert "wide_tractors" in fields(r["plays"][0]["rules"])  # 3+3 is one unit because triples make tractors


def test_school_2016_2_11_follow_of_a_pair_lead_by_suit_alone_names_no_field(tmp_path):
    text = trick_text(["H9 H9", "H5 C3"], hands={"N": "H9 H9", "E": "H5 C3 C4"})
    r = rule(tmp_path, text, "school-2016", with_rules=True)
    assert r["plays"][1]["legal"] is True and r["plays"][1]["rules"] == []  # follow suit: every variant's rule


def test_school_2016_3_5_capture_names_its_clauses(tmp_path):
    r = rule(tmp_path, LAST_TRICK_TRUMP_PAIR, "school-2016", with_rules=True)
    end = r["end"]
    assert fields(end["capture_rules"]) == [
        "capture_by",
        "capture_with",
        "capture_scheme",
        "capture_per_card",
        "capture_base",
    ]
    assert end["capture_rules"][3]["cite"]["clause"] == "三、(五)(2)"
    assert fields(end["level_rules"]) == ["takeover", "step", "takeover_bonus"]
    assert fields(end["dealer_rules"]) == ["dealer_rotation"]


def test_huizhou_5_2_side_suit_capture_names_capture_with(tmp_path):
    text = trick_text(
        ["HA HA", "H3 H3", "H4 H6", "H7 H8"],
        leader="E",
        declarers="NS",
        end=f'defender_points = 60\nbottom = "{BOTTOM_3}"',
    )
    r = rule(tmp_path, text, "huizhou", with_rules=True)
    assert r["end"]["capture_by"] is None
    assert fields(r["end"]["capture_rules"]) == ["capture_by", "capture_with"]
    assert r["end"]["capture_rules"][1]["cite"]["quote"] == "主牌才能挖底"


def test_guangxi_2012_4_6_no_throws_names_throws(tmp_path):
    r = rule(tmp_path, trick_text(["HA HK"], level="J"), "guangxi-2012", with_rules=True)
    assert r["plays"][0]["legal"] is False
    assert r["plays"][0]["rules"][0]["field"] == "throws" and r["plays"][0]["rules"][0]["cite"]["clause"] == "第四章6"


def test_school_2016_3_1_3_partner_override_names_the_self_override_scope(tmp_path):
    r = rule(tmp_path, declare_text([("N", "H2"), ("E", "S2 S2"), ("W", "C2 C2 C2")]), "school-2016", with_rules=True)
    assert fields(r["declare"]["bids"][2]["rules"]) == ["self_override", "self_override_scope"]


def test_a_changed_field_is_ruled_as_not_cited(tmp_path, capsys):
    mine = tmp_path / "mine.toml"
    mine.write_text('extends = "school-2016"\n[follow]\nfollow_order = ["tt", "triples", "long", "tcards", "pairs"]\n')
    path = tmp_path / "scenario.toml"
    path.write_text(FOLLOW_3PLUS3, encoding="utf-8")
    code, out, _ = run_cli(capsys, "judge", str(path), "--variant", str(mine))
    assert code == 0 and "rule: follow_order (not cited)" in out


def test_judge_text_names_each_clause_and_explains_its_terms(tmp_path, capsys):
    path = tmp_path / "scenario.toml"
    path.write_text(FOLLOW_3PLUS3, encoding="utf-8")
    code, out, _ = run_cli(capsys, "judge", str(path), "--variant", "huizhou")
    assert code == 0
    assert "rule: follow_order (第四、8-10); lone_triple_counts (第四、6, 9)" in out
    legend = out[out.index("Terms:") :]
    for key in ("tt", "long", "width", "tcards", "quads", "triples", "pairs"):
        assert re.search(rf"(?m)^    {key} +\w", legend), key
    assert "shape:" in legend and "rule: the variant fields that decided the ruling" in legend


def test_judge_json_carries_the_rules_of_every_ruling(tmp_path, capsys):
    path = tmp_path / "scenario.toml"
    path.write_text(LAST_TRICK_TRUMP_PAIR, encoding="utf-8")
    code, out, _ = run_cli(capsys, "judge", str(path), "--variant", "school-2016", "--json")
    data = json.loads(out)
    assert code == 0 and all("rules" in p for p in data["plays"]) and "winner_rules" in data
    assert {"capture_rules", "level_rules", "dealer_rules"} <= set(data["end"])


# --- positions that contradict their own voids --------------------------------------------------------

POSITION = (ROOT / "examples/scenarios/advise-follow.toml").read_text(encoding="utf-8")  # E to move, holds BJ, hearts


def test_position_void_in_trump_while_holding_a_level_card_is_refused_in_one_line(tmp_path, capsys):
    path = tmp_path / "position.toml"
    path.write_text(POSITION + '\n[voids]\nE = "T"\n', encoding="utf-8")
    code, out, err = run_cli(capsys, "judge", str(path))
    assert out == ""
    one_line_error(code, err, str(path), "[voids] E is void in trump but holds D2", command="judge")


def test_position_void_in_a_suit_it_holds_is_refused_in_one_line(tmp_path, capsys):
    path = tmp_path / "position.toml"
    path.write_text(POSITION + '\n[voids]\nE = "H"\n', encoding="utf-8")
    code, out, err = run_cli(capsys, "advise", str(path), "--policy", "basic")
    assert out == ""
    one_line_error(code, err, str(path), "[voids] E is void in H but holds H7", command="advise")
    assert judge(load_scenario(path), load_variant("school-2016"))["error"] == ("[voids] E is void in H but holds H7")


def test_guangxi_2012_5_1_a_two_is_trump_so_a_seat_void_in_its_suit_may_hold_it(tmp_path):
    text = (
        'level = "5"\ntrump = "H"\ndeclarers = "NS"\ndealer = "N"\nto_move = "E"\n[hands]\nE = "S2 HA C3"\n'
        '[voids]\nE = "S"\n'
    )
    s = scenario(tmp_path, text)
    assert judge(s, load_variant("guangxi-2012"))["error"] is None
    assert judge(s, load_variant("school-2016"))["error"] == "[voids] E is void in S but holds S2"
