"""Policies in plain Python (``simsuite.play.policy``, ``builtin``, ``loader``) and the Python hand loop (``simsuite.play.pyhand``).

1. Four ``BuiltinPolicy`` objects at ``play_hand_py`` play exactly the hand of the compiled
   ``play_one``: the same record and the same history, for every variant and policy mix.
2. The example policy ``examples/policies/greedy.py`` plays whole hands under every variant,
   alone and at a table with the built-ins, and its hands keep the basic invariants.
3. Policies that break a rule are stopped with ``IllegalPlayError`` naming the seat, the trick,
   the lead and the rule; nothing is fixed silently.
4. ``load_policy`` and its one-line errors; ``FollowView.legal_follows`` against the rules core.
"""

from __future__ import annotations

import functools
import random
import re
from pathlib import Path

import numpy as np
import pytest

from simsuite.engine.api import play_one
from simsuite.errors import IllegalPlayError, SimsuiteError
from simsuite.play.builtin import BuiltinPolicy
from simsuite.play.loader import load_policy
from simsuite.play.policy import BidView, BuryView, FollowView, LeadView
from simsuite.play.pyhand import play_hand_py
from simsuite.rules.cards import CARD_POINTS, N_CARDS, format_cards
from simsuite.rules.follow import lead_structure, legal_follows
from simsuite.rules.legal import legal_follow_dicts
from simsuite.rules.order import hand_order
from simsuite.rules.variant import known_ids, load_variant, replace

REPO = Path(__file__).resolve().parent.parent
GREEDY = REPO / "examples" / "policies" / "greedy.py"
GREEDY_SPEC = f"{GREEDY}:Greedy"
VARIANTS = tuple(known_ids())
MIXES = ("basic", "expert,basic", "random")
SEEDS = range(10)
HISTORY_FIELDS = ("deal", "bottom", "bids", "bury", "plays")


@functools.cache
def variant(vid: str):
    return load_variant(vid)


def builtins(mix: str) -> list[BuiltinPolicy]:
    names = [n.strip() for n in mix.split(",")]
    names = names * (4 // len(names))
    return [BuiltinPolicy(n) for n in names]


def _args(seed: int) -> dict:
    """Vary the hand, the first drawer and opening / later hand with the seed."""
    return dict(hand_index=3 * seed + 1, first_drawer=seed % 4, first_hand=seed % 3 != 2)


def assert_same_hand(a, b, where: str) -> None:
    assert a.record == b.record, f"{where}: records differ: " + ", ".join(
        f"{k} {a.record[k]} != {b.record[k]}" for k in a.record if a.record[k] != b.record.get(k)
    )
    for f in HISTORY_FIELDS:
        x, y = getattr(a.history, f), getattr(b.history, f)
        assert x.shape == y.shape and np.array_equal(x, y), f"{where}: history.{f} differs"


# --- 1. built-ins at the Python table = the compiled engine ----------------------------------------


@pytest.mark.full_loop
@pytest.mark.parametrize("mix", MIXES)
@pytest.mark.parametrize("vid", VARIANTS)
def test_builtin_policies_replay_the_engine_exactly(vid, mix):
    v = variant(vid)
    for seed in SEEDS:
        kw = _args(seed)
        engine = play_one(v, seed, mix, **kw)
        py = play_hand_py(v, seed, builtins(mix), **kw)
        assert_same_hand(engine, py, f"{vid}, {mix!r}, seed {seed}, {kw}")


@pytest.mark.parametrize(
    "changes",
    [
        dict(override_takes_deal=True, self_override=True),  # 反主反庄 in later hands
        dict(bidding="concealed"),
        dict(fallback="random_bottom_card", min_declare=3, min_override=3),  # few declarations: the fallback decides
        dict(fallback="redeal", min_declare=3, min_override=3),
        dict(throw_failure="forfeit"),
    ],
)
@pytest.mark.full_loop
def test_builtin_policies_replay_the_engine_on_changed_rules(changes):
    v = replace(variant("school-2016"), **changes)
    for seed in range(6):
        for mix in ("expert,basic", "random"):
            kw = _args(seed)
            assert_same_hand(
                play_one(v, seed, mix, **kw),
                play_hand_py(v, seed, builtins(mix), **kw),
                f"school-2016 with {changes}, {mix!r}, seed {seed}",
            )


def test_full_for_compiles_the_lean_loops_only_for_the_three_heuristics(monkeypatch):
    # engine.policies.full_for: None keeps search, expert-v1 and learned out of the compiled loops, and
    # LEARNED_SET keeps search and expert-v1 out (the suite itself plays learned in the full set)
    from simsuite.engine.names import policy_codes
    from simsuite.engine.policies import FULL, LEARNED_IN_FULL, LEARNED_SET, full_for

    monkeypatch.delenv(LEARNED_IN_FULL, raising=False)
    for mix in ("basic", "expert,basic", "random,expert"):
        assert full_for(policy_codes(mix)) is None, mix
    for mix in ("learned", "learned,basic", "expert,learned", "random,learned"):
        assert full_for(policy_codes(mix)) == LEARNED_SET, mix
    for mix in ("expert-v1", "expert,expert-v1", "search,basic", "search-k4-c3", "learned,search", "learned,expert-v1"):
        assert full_for(policy_codes(mix)) == FULL, mix
    monkeypatch.setenv(LEARNED_IN_FULL, "1")
    assert full_for(policy_codes("learned,basic")) == FULL


@pytest.mark.full_loop
def test_expert_v1_seats_play_expert_v1_in_the_compiled_and_python_loops():
    # The lean loops fall through to expert for any other code, so a wrong policy set would let
    # expert-v1's seats play expert's cards without a word: both loops must play expert-v1 itself.
    v = variant("school-2016")
    differ = 0
    for seed in range(6):
        a = play_one(v, seed, "expert-v1,basic")
        if seed < 2:
            assert_same_hand(a, play_hand_py(v, seed, builtins("expert-v1,basic")), f"expert-v1 seed {seed}")
        differ += not np.array_equal(a.history.plays, play_one(v, seed, "expert,basic").history.plays)
    assert differ >= 3, f"expert-v1 played as expert in {6 - differ} of 6 hands"


@pytest.mark.full_loop
def test_level_and_keep():
    v = variant("two-deck-2011")
    a = play_one(v, 5, "expert", level=7, hand_index=2)
    b = play_hand_py(v, 5, builtins("expert"), level=7, hand_index=2)
    assert_same_hand(a, b, "two-deck-2011 at level 9")
    c = play_hand_py(v, 5, builtins("expert"), level=7, hand_index=2, keep=False)
    assert c.history is None and c.record == a.record


@pytest.mark.full_loop
def test_specs_and_variant_ids_are_accepted():
    a = play_one(variant("huizhou"), 3, "basic,expert")
    b = play_hand_py("huizhou", 3, ["basic", "expert", "basic", "expert"])
    assert_same_hand(a, b, "huizhou by id and spec")


@pytest.mark.full_loop
def test_one_builtin_object_can_take_every_seat():
    p = BuiltinPolicy("expert")
    assert_same_hand(
        play_one(variant("baiyun-2016"), 9, "expert"),
        play_hand_py("baiyun-2016", 9, [p] * 4),
        "one object at four seats",
    )
    assert p.seated_at is None  # detached after the hand


# --- 2. the example policy -----------------------------------------------------------------------


def check_invariants(v, res, where: str) -> None:
    """Every card is played or buried once; the points add up to 100 per deck; the record's
    points are those of the history."""
    rec, h = res.record, res.history
    full = np.full(N_CARDS, v.decks, np.int64)
    assert rec["error"] == 0 and rec["forfeit"] == 0, where
    assert (h.deal.sum(axis=0) + h.bottom == full).all(), f"{where}: the deal is not the decks"
    plays = h.plays[h.plays[:, 2] == 0]
    played = plays[:, 4:].sum(axis=0)
    assert (played + h.bury == full).all(), f"{where}: not every card was played or buried"
    assert int(h.bury.sum()) == v.bottom_size, where
    trick_points = int(CARD_POINTS @ played)
    assert trick_points + rec["bottom_points"] == 100 * v.decks, f"{where}: points do not add up"
    defenders = sum(int(CARD_POINTS @ r[4:]) for r in plays if r[3] % 2 != rec["declarers"])
    assert rec["trick_points"] == defenders, where
    assert rec["final_points"] == rec["trick_points"] + rec["capture_points"] + rec["penalties"], where
    assert rec["tricks"] == len(set(plays[:, 0].tolist())), where
    # every trick: four plays of the lead's size, one winner
    for t in range(rec["tricks"]):
        rows = plays[plays[:, 0] == t]
        sizes = rows[:, 4:].sum(axis=1).tolist()
        assert len(rows) == 4 and len(set(sizes)) == 1 and len(set(rows[:, 3].tolist())) == 1, f"{where}, trick {t}"


@pytest.fixture(scope="module")
def greedy():
    return load_policy(GREEDY_SPEC)


@pytest.mark.full_loop
@pytest.mark.parametrize("vid", VARIANTS)
def test_greedy_plays_whole_hands(vid, greedy):
    """Basic invariants, then the whole hand replayed through the rules core as the engine's
    own hands are (``tests/test_engine.py``)."""
    from test_engine import check_bids, check_hand

    v = variant(vid)
    tables = {
        "greedy x4": [greedy] * 4,
        "greedy NS, expert EW": [greedy, BuiltinPolicy("expert")] * 2,
        "basic NS, greedy EW": [BuiltinPolicy("basic"), greedy] * 2,
    }
    for seed in range(6):
        for name, pols in tables.items():
            kw = _args(seed)
            res = play_hand_py(v, seed, pols, **kw)
            where = f"{vid}, {name}, seed {seed}"
            check_invariants(v, res, where)
            check_hand(v, res, kw["first_drawer"], where)
            check_bids(v, res, kw["first_drawer"], where, first_hand=kw["first_hand"])


def test_greedy_is_deterministic_and_python_policies_do_not_touch_the_engine_stream(greedy):
    v = variant("school-2016")
    a = play_hand_py(v, 4, [greedy] * 4)
    b = play_hand_py(v, 4, [load_policy(GREEDY_SPEC)] * 4)
    assert_same_hand(a, b, "greedy twice")
    # the deal depends only on the seed, the hand index and the first drawer, never on the policies
    e = play_one(v, 4, "random")
    assert a.record["redeals"] == e.record["redeals"] == 0
    assert np.array_equal(a.history.deal, e.history.deal) and np.array_equal(a.history.bottom, e.history.bottom)


def test_views_show_only_the_players_own_cards(greedy):
    seen = []

    class Spy:
        def __init__(self):
            self.base = load_policy(GREEDY_SPEC)

        def bid(self, view):
            seen.append(view)
            return self.base.bid(view)

        def bury(self, view):
            seen.append(view)
            return self.base.bury(view)

        def lead(self, view):
            seen.append(view)
            return self.base.lead(view)

        def follow(self, view):
            seen.append(view)
            return self.base.follow(view)

    res = play_hand_py("school-2016", 2, [Spy(), greedy, greedy, greedy])
    kinds = {type(x) for x in seen}
    assert {BidView, LeadView, FollowView} <= kinds
    for view in seen:
        assert view.seat == 0
        assert not view.counts.flags.writeable
        assert list(view.hand) == [c for c in range(N_CARDS) for _ in range(int(view.counts[c]))]
        assert not any(name in vars(view) for name in ("hands", "deck", "s", "rng", "_table"))
        if isinstance(view, BidView):
            assert view.trump is None and view.declarers is None and view.order is None
        else:
            assert view.trump == res.record["trump"] and view.declarers == res.record["declarers"]
        if isinstance(view, BuryView):
            assert len(view.bottom) == view.bottom_size == 6
        if isinstance(view, FollowView):
            assert view.trick[0] == (view.leader, view.lead) and len(view.lead) == view.lead_size
            assert view.check(view.legal_follows()[0]).legal


@pytest.mark.full_loop
def test_a_python_policy_can_delegate_to_a_builtin():
    class Wrapped:
        """Expert in everything, but buries like greedy."""

        def __init__(self):
            self.expert = BuiltinPolicy("expert", seed=1)
            self.greedy = load_policy(GREEDY_SPEC)

        def bid(self, view):
            return self.expert.bid(view)

        def bury(self, view):
            return self.greedy.bury(view)

        def lead(self, view):
            return self.expert.lead(view)

        def follow(self, view):
            return self.expert.follow(view)

    for vid in VARIANTS:
        v = variant(vid)
        for seed in range(3):
            res = play_hand_py(v, seed, [Wrapped(), BuiltinPolicy("basic")] * 2, **_args(seed))
            if res.record["forfeit"] == 0:
                check_invariants(v, res, f"{vid}, delegating policy, seed {seed}")


def test_search_on_its_own_says_to_seat_it():
    """A built-in policy on its own answers a view; the search cannot (it samples from the whole
    hand's state), and says so for each kind of decision, the bury included."""
    views = {}

    class Recorder:
        def __init__(self):
            self.basic = BuiltinPolicy("basic", seed=1)

        def bid(self, view):
            return self.basic.bid(view)

        def bury(self, view):
            views.setdefault("bury", view)
            return self.basic.bury(view)

        def lead(self, view):
            views.setdefault("lead", view)
            return self.basic.lead(view)

        def follow(self, view):
            views.setdefault("follow", view)
            return self.basic.follow(view)

    play_hand_py(variant("school-2016"), 1, [Recorder() for _ in range(4)])
    search = BuiltinPolicy("search")
    for kind, view in views.items():
        with pytest.raises(
            SimsuiteError,
            match="the search policy reads the hand's whole state .*: seat it at simsuite.play.pyhand.play_hand_py",
        ):
            getattr(search, kind)(view)
    assert set(views) == {"bury", "lead", "follow"}


class Reckless:
    """Greedy, but leads a throw (the highest and the lowest card of its longest side suit)
    whenever it can: most of these throws fail."""

    def __init__(self):
        self.g = load_policy(GREEDY_SPEC)
        self.saw_failed_throw = False

    def bid(self, view):
        return self.g.bid(view)

    def bury(self, view):
        return self.g.bury(view)

    def lead(self, view):
        side = [k for k in range(4) if len({view.order.pos[c] for c in view.in_class(k)}) >= 2]
        if view.variant.throws and side:
            cards = view.in_class(max(side, key=lambda k: len(view.in_class(k))))
            if view.order.pos[cards[-1]] - view.order.pos[cards[0]] >= 2:
                return [cards[0], cards[-1]]
        return self.g.lead(view)

    def follow(self, view):
        if view.failed_throw is not None:
            self.saw_failed_throw = True
            assert view.tricks == () or view.tricks[-1].number == view.trick_number - 1
        return self.g.follow(view)


@pytest.mark.parametrize("vid", [v for v in VARIANTS if load_variant(v).throws])
def test_failed_throws_follow_the_rules_core(vid):
    """Throws that fail: the forced play, the penalty or the forfeit are those of the rules core
    (``tests/test_engine.check_hand`` replays the whole history through it)."""
    from test_engine import check_bids, check_hand

    v = variant(vid)
    failed = 0
    for seed in range(4):
        pols = [Reckless() for _ in range(4)]
        kw = _args(seed)
        res = play_hand_py(v, seed, pols, **kw)
        where = f"{vid}, reckless throws, seed {seed}"
        check_hand(v, res, kw["first_drawer"], where)
        check_bids(v, res, kw["first_drawer"], where, first_hand=kw["first_hand"])
        failed += res.record["throws_failed"]
        if res.record["forfeit"] == 0 and res.record["throws_failed"]:
            assert any(p.saw_failed_throw for p in pols)
    assert failed > 0


# --- 3. illegal answers --------------------------------------------------------------------------


def _greedy():
    return load_policy(GREEDY_SPEC)


class Breaker:
    """Greedy, except for the one answer a test replaces."""

    def __init__(self):
        self.g = _greedy()

    def bid(self, view):
        return self.g.bid(view)

    def bury(self, view):
        return self.g.bury(view)

    def lead(self, view):
        return self.g.lead(view)

    def follow(self, view):
        return self.g.follow(view)


def _raises(policy, vid="school-2016", seeds=range(20), seat=1, others=_greedy) -> IllegalPlayError:
    """Play hands with ``policy`` at ``seat`` (``others()`` elsewhere) until one raises."""
    for seed in seeds:
        pols = [others() for _ in range(4)]
        pols[seat] = policy
        try:
            play_hand_py(vid, seed, pols)
        except IllegalPlayError as e:
            return e
    pytest.fail("no hand raised IllegalPlayError")


FOLLOW_HEAD = r"^(?P<seat>[NESW])'s follow in trick (?P<trick>\d+) to (?P<leader>[NESW])'s lead (?P<lead>.+?) \(.+?\) is illegal: "


def test_revoking_is_stopped_with_the_follow_suit_rule():
    class Revoke(Breaker):
        def follow(self, view):
            mine = view.in_class(view.lead_class)
            other = [c for c in view.hand if view.class_of(c) != view.lead_class]
            if view.lead_size == 1 and mine and other:
                return [other[0]]
            return super().follow(view)

    e = _raises(Revoke())
    msg = str(e)
    m = re.match(FOLLOW_HEAD + r"E holds \d+ (S|H|D|C|trump) card", msg)
    assert m, msg
    assert m["seat"] == "E" and int(m["trick"]) >= 1 and "follow suit" in msg and "played " in msg
    assert e.rule is not None and "follow suit" in e.rule and e.rule in msg
    assert isinstance(e, ValueError) and "\n" not in msg


@pytest.mark.full_loop
def test_breaking_the_lead_shape_is_stopped_with_the_follow_priority_rule():
    class BreakPairs(Breaker):
        def follow(self, view):
            n = view.lead_size
            mine = view.in_class(view.lead_class)
            if n >= 2 and len(mine) > n:
                # n distinct cards of the class, if that is illegal here
                distinct = sorted(set(mine), key=mine.index)[:n]
                if len(distinct) == n and not view.check(distinct).legal:
                    return distinct
            return super().follow(view)

    e = _raises(BreakPairs(), seeds=range(30), seat=2, others=lambda: BuiltinPolicy("expert"))
    msg = str(e)
    assert re.match(FOLLOW_HEAD + r"S must follow the lead's shape \(.+\) as far as the hand allows: it gives", msg), (
        msg
    )
    assert "follow priority:" in msg and e.rule in msg


def test_cards_not_in_the_hand():
    class Phantom(Breaker):
        def follow(self, view):
            missing = next(c for c in range(N_CARDS) if view.counts[c] == 0)
            return [missing] * view.lead_size

    msg = str(_raises(Phantom()))
    assert re.match(FOLLOW_HEAD + r"plays cards that are not in E's hand: .+ x\d+ \(holds 0\)", msg), msg

    class PhantomLead(Breaker):
        def lead(self, view):
            return [next(c for c in range(N_CARDS) if view.counts[c] == 0)]

    msg = str(_raises(PhantomLead(), seat=0))
    assert re.match(r"^N's lead in trick \d+ \(.+\) is illegal: plays cards that are not in N's hand", msg), msg


def test_wrong_number_of_cards():
    class TooMany(Breaker):
        def follow(self, view):
            play = super().follow(view)
            extra = list(view.hand)
            for c in play:
                extra.remove(c)
            return play + extra[:1]

    msg = str(_raises(TooMany()))
    assert re.match(FOLLOW_HEAD + r"E plays (\d+) cards to a (\d+)-card lead", msg), msg
    m = re.search(r"plays (\d+) cards to a (\d+)-card lead", msg)
    assert int(m[1]) == int(m[2]) + 1

    class Nothing(Breaker):
        def follow(self, view):
            return []

    assert "plays 0 cards to a" in str(_raises(Nothing()))


def test_two_suit_lead():
    class TwoSuits(Breaker):
        def lead(self, view):
            side = [k for k in range(4) if view.in_class(k)]
            if len(side) >= 2:
                return [view.in_class(side[0])[-1], view.in_class(side[1])[-1]]
            return super().lead(view)

    e = _raises(TwoSuits(), seat=0)
    msg = str(e)
    assert re.match(
        r"^N's lead in trick \d+ \(\S+ \S+\) is illegal: a lead must be of one suit-class; "
        r"this mixes (S|H|D|C), (S|H|D|C|trump)$",
        msg,
    ), msg
    assert e.rule.startswith("a lead must be of one suit-class")


def test_a_throw_where_throws_are_not_allowed():
    class Thrower(Breaker):
        def lead(self, view):
            for k in range(4):
                cards = sorted(set(view.in_class(k)), key=lambda c: view.order.pos[c])
                for a in cards:
                    for b in cards:
                        if view.order.pos[b] - view.order.pos[a] >= 2:
                            return [a, b]  # two singles: a throw
            return super().lead(view)

    assert not variant("guangxi-2012").throws
    msg = str(_raises(Thrower(), vid="guangxi-2012", seat=0, seeds=range(10)))
    assert re.match(r"^[NESW]'s lead in trick \d+ \(.+\) is illegal: throws are not allowed in guangxi-2012", msg), msg


def test_illegal_bury():
    class ShortBury(Breaker):
        def bury(self, view):
            return list(view.hand[: view.bottom_size - 1])

    class FakeBury(Breaker):
        def bury(self, view):
            missing = next(c for c in range(N_CARDS) if view.counts[c] == 0)
            return list(view.hand[: view.bottom_size - 1]) + [missing]

    for cls, text in (
        (ShortBury, r"buries 5 card\(s\), but the bottom is 6 cards and exactly 6 must be buried"),
        (FakeBury, r"buries cards that are not in [NESW]'s hand"),
    ):
        err = None
        for seed in range(10):
            try:
                play_hand_py("school-2016", seed, [cls() for _ in range(4)])
            except IllegalPlayError as e:
                err = e
                break
        assert err is not None
        assert re.match(r"^[NESW]'s bury \(.+\): " + text, str(err)), str(err)


def test_bad_answers_are_not_card_lists():
    class Garbage(Breaker):
        def lead(self, view):
            return "SA"

    class OutOfRange(Breaker):
        def follow(self, view):
            return [99] * view.lead_size

    assert "not a list of card ids" in str(_raises(Garbage(), seat=0))
    assert "99 is not a card id" in str(_raises(OutOfRange()))


def test_rejected_bids_are_simply_not_made():
    class Wild(Breaker):
        """Bids nonsense: mixed cards, non-level cards, a lone joker."""

        def bid(self, view):
            h = list(view.hand)
            if view.drawn == 3 and len(set(h)) >= 2:
                return h[:2] if h[0] != h[1] else None
            if view.drawn == 5 and 52 in h:
                return [52]
            return None

    res = play_hand_py("school-2016", 1, [Wild() for _ in range(4)])
    assert res.history.bids.shape[0] == 0 and res.record["declared"] == 0

    class Cheat(Breaker):
        def bid(self, view):
            return [view.level] * 3 if view.counts[view.level] < 3 else None

    with pytest.raises(IllegalPlayError, match=r"^[NESW]'s bid \(.+\) shows cards [NESW] does not hold"):
        play_hand_py("school-2016", 1, [Cheat() for _ in range(4)])


# --- 4. load_policy --------------------------------------------------------------------------------


def test_load_policy_builtins_files_and_modules(tmp_path, monkeypatch):
    p = load_policy("expert")
    assert isinstance(p, BuiltinPolicy) and p.name == "expert"
    g = load_policy(GREEDY_SPEC)
    assert type(g).__name__ == "Greedy"
    rel = load_policy("examples/policies/greedy.py:Greedy") if Path("examples/policies/greedy.py").is_file() else g
    assert type(rel).__name__ == "Greedy"
    (tmp_path / "my_policies.py").write_text(
        "from simsuite.play.builtin import BuiltinPolicy\n"
        "class Basic(BuiltinPolicy):\n"
        "    def __init__(self):\n"
        "        super().__init__('basic')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    m = load_policy("my_policies:Basic")
    assert isinstance(m, BuiltinPolicy) and m.name == "basic"
    assert load_policy(g) is g


@pytest.mark.parametrize(
    "spec, message",
    [
        (
            "nosuch",
            r"^policy 'nosuch': not a built-in policy \(random, basic, expert, search, expert-v1, learned\) nor path/to/file.py:ClassName nor package.module:ClassName$",
        ),
        ("nowhere/missing.py:Greedy", r"^policy 'nowhere/missing.py:Greedy': file nowhere/missing.py not found$"),
        (
            "no_such_module_xyz:Greedy",
            r"^policy 'no_such_module_xyz:Greedy': module no_such_module_xyz is not importable: ModuleNotFoundError: No module named 'no_such_module_xyz'$",
        ),
        (
            "simsuite.nothing_here:X",
            r"^policy 'simsuite.nothing_here:X': module simsuite.nothing_here is not importable: ModuleNotFoundError",
        ),
        (f"{GREEDY}:Nope", r"^policy '.*greedy.py:Nope': file .*greedy.py has no class Nope$"),
        (
            "simsuite.play.policy:Nope",
            r"^policy 'simsuite.play.policy:Nope': module simsuite.play.policy has no class Nope$",
        ),
        (
            "simsuite.play.policy:View",
            r"^policy 'simsuite.play.policy:View': class View lacks the policy method\(s\) bid, bury, lead, follow \(a policy needs bid, bury, lead and follow\)$",
        ),
        (
            "simsuite.rules.cards:N_CARDS",
            r"^policy 'simsuite.rules.cards:N_CARDS': N_CARDS lacks the policy method\(s\) bid, bury, lead, follow",
        ),
        ("expert:", r"^policy 'expert:': write path/to/file.py:ClassName or package.module:ClassName$"),
    ],
)
def test_load_policy_bad_specs(spec, message):
    with pytest.raises(SimsuiteError) as info:
        load_policy(spec)
    msg = str(info.value)
    assert isinstance(info.value, ValueError) and "\n" not in msg
    assert re.match(message, msg), msg


def test_load_policy_file_that_fails(tmp_path):
    bad = tmp_path / "broken.py"
    bad.write_text("import no_such_thing_at_all\n")
    with pytest.raises(SimsuiteError, match=r"importing file .*broken.py failed: ModuleNotFoundError"):
        load_policy(f"{bad}:X")
    half = tmp_path / "half.py"
    half.write_text(
        "class Half:\n    def bid(self, view):\n        return None\n    def lead(self, view):\n        return []\n"
    )
    with pytest.raises(SimsuiteError, match=r"class Half lacks the policy method\(s\) bury, follow \("):
        load_policy(f"{half}:Half")
    with pytest.raises(SimsuiteError, match=r"unknown built-in policy 'clever'"):
        BuiltinPolicy("clever")
    with pytest.raises(SimsuiteError, match=r"four policies"):
        play_hand_py("school-2016", 1, ["basic"] * 3)
    with pytest.raises(SimsuiteError, match=r"policy for seat E lacks the policy method\(s\) bid, bury, lead, follow"):
        play_hand_py("school-2016", 1, [BuiltinPolicy("basic"), object(), "basic", "basic"])


# --- 5. legal_follows ------------------------------------------------------------------------------


@pytest.mark.parametrize("vid", VARIANTS)
def test_legal_follows_equal_the_rules_core(vid):
    """The view's enumeration gives the same set as ``simsuite.rules.follow.legal_follows``."""
    v = variant(vid)
    rng = random.Random(vid)
    checked = 0
    for _ in range(150):
        order = hand_order(v, rng.randrange(13), rng.choice([0, 1, 2, 3] + ([-1] if v.no_trump else [])))
        k = rng.randrange(5)
        members = list(order.members[k])
        if not members:
            continue
        lead = {c: rng.randint(1, min(v.decks, 3)) for c in rng.sample(members, min(3, len(members)))}
        hand = {}
        for c in members[:8] + list(order.members[(k + 1) % 5])[:4]:
            m = min(rng.choice([0, 0, 1, 1, 2, 3, v.decks]), v.decks)
            if m:
                hand[c] = m
        structure = lead_structure(order, lead)
        if sum(hand.values()) < structure.n_cards:
            continue
        want = sorted(tuple(sorted(d.items())) for d in legal_follows(order, structure, hand))
        got = sorted(tuple(sorted(d.items())) for d in legal_follow_dicts(order, structure, hand))
        assert got == want, f"lead {format_cards(list(lead))}, hand {hand}"
        checked += 1
    assert checked > 50
