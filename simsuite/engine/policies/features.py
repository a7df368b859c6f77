"""What the ``learned`` policy sees of a decision: one row of named integer features per candidate.

A decision (a bury, a lead or a follow) has a few candidates, listed by the search's candidate
generators (``engine.policies.search``: ``bury_candidates``, ``lead_candidates``, ``follow_candidates``).
``decision_features`` writes one row per candidate: the variant's rule parameters, what the seat to
move knows of the position (its hand, the cards played, the trick so far, the voids revealed, the
score), and what the candidate spends and keeps. The same function fills the rows that
``simsuite learn collect`` stores beside the search's values and the rows that the ``learned``
policy scores in play, so training and play read the same numbers.

``FEATURES`` is the one table of the features, in column order, with what each means
(docs/learned.md prints it). Every feature is an int64 computed from what the seat may know: never
another hand or, for a seat other than the dealer, the bottom.
"""

from __future__ import annotations

from collections import namedtuple

from numba import njit

from ...rules.cards import SMALL_JOKER
from .. import core
from ..core import (
    CLAIM_KIND,
    CLAIM_TOP,
    CLAIM_TRUMP,
    CS_AT_FEATURES_CLAIM,
    CS_AT_LENGTH,
    CS_AT_UNSEEN_TOP,
    CS_COUNTERS,
    CS_LEFT,
    LI_UNITS,
    N_CLAIM,
    NC,
    TRUMP,
    as_bool,
    as_int,
    w_cs,
)
from ..order import class_span
from ..params import (
    BOTTOM,
    CAPTURE_BY,
    CAPTURE_SCHEME,
    CAPTURE_SCHEME_LAST_TRICK_POINTS,
    CAPTURE_SCHEME_POWER,
    CAPTURE_WITH,
    DECKS,
    DECLARER_CAP,
    F_LONG,
    F_PAIRS,
    F_QUADS,
    F_TCARDS,
    F_TRIPLES,
    F_WIDTH,
    FOLLOW0,
    HAND_SIZE,
    MAX_UNIT,
    STEP,
    TAKEOVER,
    TAKEOVER_BONUS,
    THROW_FAILURE,
    THROW_FAILURE_FORFEIT,
    THROW_FAILURE_PENALTY_FLAT,
    THROW_FAILURE_PENALTY_PER_CARD_TAKEN_BACK,
    THROW_PENALTY,
    THROW_TEST,
    THROWS,
)
from ..phases import (
    C_LEVEL,
    S_BOTTOM_POINTS,
    S_DEALER,
    S_DECLARERS,
    S_DEF_POINTS,
    S_K,
    S_N,
    S_PENALTIES,
    S_TRICK_POINTS,
    S_TURN,
    S_WINNER,
)
from ..trick import beats, contender
from .codes import D_BURY, D_FOLLOW, D_LEAD
from .common import ABOVE_POSITION, TRUMP_STRENGTH, next_can_beat, next_can_beat_single
from .expert import capture_multiplier

Feature = namedtuple("Feature", ["name", "group", "doc"])

# The features, in column order. ``group``: "rule" (the variant's parameters, the same in every row
# of a hand), "position" (the decision, the same for every candidate of one decision) or
# "candidate" (the candidate's own). Counts are cards (a pair counts 2); strengths are
# ``TRUMP_STRENGTH (100) x trump + position`` (``common.strength``), so that any trump is above any side card.
FEATURES: tuple[Feature, ...] = (
    Feature("decks", "rule", "decks in play (2, 3 or 4)"),
    Feature("bottom_size", "rule", "cards in the bottom"),
    Feature("hand_size", "rule", "cards dealt to each seat"),
    Feature(
        "capture_single", "rule", "multiplier of the bottom when the last trick is won with one card (0: no capture)"
    ),
    Feature("capture_pair", "rule", "multiplier of the bottom when the last trick is won with a pair (0: no capture)"),
    Feature("capture_scheme", "rule", "0 per card, 1 power, 2 the last trick's own points (guangxi-2012)"),
    Feature("capture_by_either", "rule", "1 when the declarers capture too, 0 when only the defenders do"),
    Feature("capture_trump_only", "rule", "1 when only a last trick won with trump captures"),
    Feature("takeover", "rule", "defenders' points at which they take over"),
    Feature("step", "rule", "points per level on both sides of the take-over"),
    Feature("takeover_bonus", "rule", "levels the defenders gain by taking over"),
    Feature("declarer_cap", "rule", "most levels the declarers gain in a hand (0: no cap)"),
    Feature("throws", "rule", "1 when throws may be led"),
    Feature("throw_test", "rule", "0 absolute maximum, 1 per unit"),
    Feature("throw_failure", "rule", "0 penalty per card beaten, 1 per card taken back, 2 flat, 3 forfeit"),
    Feature("throw_penalty", "rule", "penalty points of a failed throw (per card or flat)"),
    Feature(
        "follow_first", "rule", "the first field of the follow order (0 tractor count first, 1 longest tractor, ...)"
    ),
    Feature("max_unit", "rule", "largest unit of identical cards (2 pairs, 3 triples, 4 quads)"),
    # the categorical rules once more, one-hot (the integer codes above order them, which means nothing)
    Feature("scheme_power", "rule", "1 when the capture scheme is power (capture_scheme 1)"),
    Feature("scheme_last_points", "rule", "1 when the capture counts the last trick's own points (capture_scheme 2)"),
    Feature("failure_taken_back", "rule", "1 when a failed throw's penalty is per card taken back (throw_failure 1)"),
    Feature("failure_flat", "rule", "1 when a failed throw costs a flat penalty (throw_failure 2)"),
    Feature("failure_forfeit", "rule", "1 when a failed throw forfeits (throw_failure 3)"),
    Feature("follow_long", "rule", "1 when the follow order starts with the longest tractor (follow_first 1)"),
    Feature("follow_width", "rule", "1 when the follow order starts with the widest tractor (follow_first 2)"),
    Feature("follow_tcards", "rule", "1 when the follow order starts with the cards in tractors (follow_first 3)"),
    Feature(
        "follow_units", "rule", "1 when the follow order starts with quads, triples or pairs (follow_first 4 to 6)"
    ),
    Feature(
        "capture_max",
        "rule",
        "the larger of capture_single and capture_pair: what a captured bottom is multiplied by at most",
    ),
    Feature("decision_kind", "position", "0 a lead, 1 a follow, 2 the dealer's bury"),
    Feature("declarer", "position", "1 when the seat to move is on the declaring team"),
    Feature("dealer", "position", "1 when the seat to move is the dealer (it buried the bottom)"),
    Feature("position", "position", "plays already made in this trick (0 for a lead)"),
    Feature("cards_left", "position", "cards in the mover's hand before this play (the bottom included for a bury)"),
    Feature("defender_points", "position", "defenders' points so far: tricks won and throw penalties"),
    Feature("to_takeover", "position", "take-over threshold minus defender_points"),
    Feature("band_up", "position", "points the defenders still need to reach the next band edge (1 .. step)"),
    Feature("trick_points", "position", "points already in this trick"),
    Feature("partner_winning", "position", "follow: 1 when the mover's partner holds the trick so far"),
    Feature("winner_trump", "position", "follow: 1 when the trick's best play so far is trump"),
    Feature("lead_cards", "position", "follow: cards in the lead (0 for a lead or a bury)"),
    Feature("lead_trump", "position", "follow: 1 when trump was led"),
    Feature("lead_units", "position", "follow: units in the lead (2 or more: a throw)"),
    Feature("have_led", "position", "follow: the mover's cards of the led suit"),
    Feature("last_trick", "position", "follow: 1 when this is the hand's last trick"),
    Feature("opponents_after", "position", "opponents still to play in this trick after the mover"),
    Feature("next_void_led", "position", "follow: 1 when the next seat, an opponent, is known void in the led suit"),
    Feature("next_void_trump", "position", "1 when the next seat, if an opponent, is known void in trump"),
    Feature("trumps_held", "position", "trumps in the mover's hand"),
    Feature(
        "trumps_unseen", "position", "trumps the mover has not seen (other hands, and the bottom unless it buried it)"
    ),
    Feature("high_held", "position", "jokers and level cards in the mover's hand"),
    Feature("high_unseen", "position", "jokers and level cards the mover has not seen"),
    Feature("points_held", "position", "points in the mover's hand"),
    Feature("points_unseen", "position", "points the mover has not seen"),
    Feature("bottom_points", "position", "the dealer: points it buried (-1 for any other seat, which cannot see them)"),
    Feature("winner_top", "position", "follow: strength of the trick's best play so far (its key card)"),
    Feature("pairs_held", "position", "cards of the mover's hand held two or more times (pairs, triples, ...)"),
    Feature(
        "winner_sure",
        "position",
        "follow: 1 when no opponent after the mover can beat the trick's best play "
        "so far, by the voids seen and the unseen cards (as expert judges it)",
    ),
    Feature(
        "trump_share",
        "position",
        "the mover's share of the trumps it has not seen played, in percent: trumps_held x 100 / "
        "(trumps_held + trumps_unseen); the dealer side's hold on the last trick",
    ),
    Feature("heuristic", "candidate", "1 for the heuristic's own choice (expert's play, the first candidate)"),
    Feature("cards", "candidate", "cards in the candidate"),
    Feature("points", "candidate", "points in the candidate"),
    Feature("trumps", "candidate", "trumps in the candidate"),
    Feature("high", "candidate", "jokers and level cards in the candidate"),
    Feature("top", "candidate", "strength of its strongest card"),
    Feature("low", "candidate", "strength of its weakest card"),
    Feature("wins_now", "candidate", "follow: 1 when it beats the trick's best play so far; a lead: 1"),
    Feature(
        "unseen_above",
        "candidate",
        "unseen cards of its top card's suit above its top card (0: no unseen card beats it in suit)",
    ),
    Feature("opp_void", "candidate", "opponents known void in its top card's suit (a lead may be ruffed)"),
    Feature("partner_void", "candidate", "1 when the partner is known void in its top card's suit"),
    Feature("breaks", "candidate", "cards taken from a group of identical cards that is not taken whole"),
    Feature("multi", "candidate", "most copies of one card in it (1 singles, 2 a pair, ...)"),
    Feature("suit_left", "candidate", "cards left in its top card's suit after the play"),
    Feature("voids_made", "candidate", "suits (trump counted as one) it empties from the hand"),
    Feature("points_left", "candidate", "points left in the hand after the play"),
    Feature("trumps_left", "candidate", "trumps left in the hand after the play"),
    Feature("high_left", "candidate", "jokers and level cards left in the hand after the play"),
    Feature("feeds", "candidate", "follow: its points when the partner holds the trick and it does not overtake"),
    Feature("aces", "candidate", "side-suit aces in it"),
    Feature("suit_unseen", "candidate", "unseen cards of its top card's suit (how many others may still follow it)"),
    Feature(
        "wins_sure",
        "candidate",
        "1 when it wins the trick (a follow: beats the best play so far) and no "
        "opponent after it can beat it, judged as winner_sure",
    ),
    Feature(
        "bury_risk",
        "candidate",
        "a bury: its points x capture_max x trumps_unseen / (trumps left + trumps_unseen), the points a "
        "capture would multiply, weighted by the others' share of the trumps (0 for a lead or a follow)",
    ),
    Feature("pairs_left", "candidate", "cards held two or more times in the hand after the play"),
    Feature("trump_pairs_left", "candidate", "trumps held two or more times in the hand after the play"),
    Feature(
        "top_trump_left",
        "candidate",
        "1 when the hand after the play keeps a trump above every unseen trump (a single that wins any "
        "trick it leads or ruffs)",
    ),
    Feature(
        "top_pair_left",
        "candidate",
        "1 when the hand after the play keeps a trump pair above every trump unseen twice or more "
        "(a pair no unseen pair beats: a multi-card last lead that wins)",
    ),
    Feature(
        "crosses_band",
        "candidate",
        "a lead or a follow: 1 when the trick's points with its own reach band_up (the defenders "
        "cross a band edge if they take the trick)",
    ),
)
(
    X_DECKS,
    X_BOTTOM_SIZE,
    X_HAND_SIZE,
    X_CAPTURE_SINGLE,
    X_CAPTURE_PAIR,
    X_CAPTURE_SCHEME,
    X_CAPTURE_BY_EITHER,
    X_CAPTURE_TRUMP_ONLY,
    X_TAKEOVER,
    X_STEP,
    X_TAKEOVER_BONUS,
    X_DECLARER_CAP,
    X_THROWS,
    X_THROW_TEST,
    X_THROW_FAILURE,
    X_THROW_PENALTY,
    X_FOLLOW_FIRST,
    X_MAX_UNIT,
    X_SCHEME_POWER,
    X_SCHEME_LAST_POINTS,
    X_FAILURE_TAKEN_BACK,
    X_FAILURE_FLAT,
    X_FAILURE_FORFEIT,
    X_FOLLOW_LONG,
    X_FOLLOW_WIDTH,
    X_FOLLOW_TCARDS,
    X_FOLLOW_UNITS,
    X_CAPTURE_MAX,
    X_DECISION_KIND,
    X_DECLARER,
    X_DEALER,
    X_POSITION,
    X_CARDS_LEFT,
    X_DEFENDER_POINTS,
    X_TO_TAKEOVER,
    X_BAND_UP,
    X_TRICK_POINTS,
    X_PARTNER_WINNING,
    X_WINNER_TRUMP,
    X_LEAD_CARDS,
    X_LEAD_TRUMP,
    X_LEAD_UNITS,
    X_HAVE_LED,
    X_LAST_TRICK,
    X_OPPONENTS_AFTER,
    X_NEXT_VOID_LED,
    X_NEXT_VOID_TRUMP,
    X_TRUMPS_HELD,
    X_TRUMPS_UNSEEN,
    X_HIGH_HELD,
    X_HIGH_UNSEEN,
    X_POINTS_HELD,
    X_POINTS_UNSEEN,
    X_BOTTOM_POINTS,
    X_WINNER_TOP,
    X_PAIRS_HELD,
    X_WINNER_SURE,
    X_TRUMP_SHARE,
    X_HEURISTIC,
    X_CARDS,
    X_POINTS,
    X_TRUMPS,
    X_HIGH,
    X_TOP,
    X_LOW,
    X_WINS_NOW,
    X_UNSEEN_ABOVE,
    X_OPP_VOID,
    X_PARTNER_VOID,
    X_BREAKS,
    X_MULTI,
    X_SUIT_LEFT,
    X_VOIDS_MADE,
    X_POINTS_LEFT,
    X_TRUMPS_LEFT,
    X_HIGH_LEFT,
    X_FEEDS,
    X_ACES,
    X_SUIT_UNSEEN,
    X_WINS_SURE,
    X_BURY_RISK,
    X_PAIRS_LEFT,
    X_TRUMP_PAIRS_LEFT,
    X_TOP_TRUMP_LEFT,
    X_TOP_PAIR_LEFT,
    X_CROSSES_BAND,
) = range(len(FEATURES))
N_FEATURES = len(FEATURES)
FEATURE_NAMES = tuple(f.name for f in FEATURES)
# the rule and position features come first, then the candidate's: a model may read the first
# ``N_CONTEXT`` once per decision (``engine.policies.learned``)
N_CONTEXT = X_HEURISTIC
N_RULES = X_DECISION_KIND  # the rule features come first: the same for every decision of a variant
assert all(f.group == "rule" for f in FEATURES[:N_RULES])
assert all(f.group == "position" for f in FEATURES[N_RULES:N_CONTEXT])
assert all(f.group == "candidate" for f in FEATURES[N_CONTEXT:])


@njit(cache=True, inline="always")
def _high(c, cls, level):
    """A joker or a level card."""
    return c >= SMALL_JOKER or (cls[c] == TRUMP and c % 13 == level)


@njit(cache=True, inline="always")
def _of_class(k, n0, n1, n2, n3, n4):
    """The count of class ``k`` among five counts (side suits 0..3, trump 4)."""
    if k == 0:
        return n0
    if k == 1:
        return n1
    if k == 2:
        return n2
    if k == 3:
        return n3
    return n4


@njit(cache=True, inline="always")
def _beatable(seat, after, claim_kind, trump, top, n, k, voids, unseen, cls, pos, hi_u):
    """Can an opponent among the ``after`` seats that play after ``seat`` in this trick beat the claim
    (``claim_kind``, ``trump``, ``top``) of a trick of ``n`` cards led in class ``k``? As expert's
    ``next_can_beat`` judges each of them; ``hi_u``: the highest unseen position per class."""
    for i in range(after):
        o = (seat + 1 + i) % 4
        if o % 2 == seat % 2:
            continue
        if n == 1 and claim_kind == 0:
            if next_can_beat_single(trump, top, k, o, voids, hi_u[k], hi_u[TRUMP]):
                return True
        elif next_can_beat(claim_kind, trump, top, n, k, o, voids, unseen, cls, pos):
            return True
    return False


@njit(cache=True)
def decision_features(P, st, W, seat, kind, cand, n, X, every_row):
    """Rows ``0 .. n-1`` of ``X`` (int64[>= n, N_FEATURES]): the features (``FEATURES``) of
    candidates ``cand[0 .. n-1]`` (count vectors) of the decision ``kind`` (0 lead, 1 follow,
    2 bury) of ``seat``. The decision's own features (the first ``N_CONTEXT``) are computed once,
    into row 0, and copied to the other rows when ``every_row`` (the decision log; the model reads
    them from row 0). ``W``: the trick rules' scratch, when a follow of several cards is tested
    against the trick's best play."""
    sc = st.sc
    hand = st.hands[seat]
    played = st.played
    cls = st.cls
    pos = st.pos
    voids = st.voids
    level = st.ctx[C_LEVEL]
    dealer = sc[S_DEALER]
    bury = kind == D_BURY
    follow = kind == D_FOLLOW
    decks = P[DECKS]
    knows_bottom = seat == dealer and not bury  # the dealer buried it; before the bury it is in the hand
    # the position: what the mover holds and has not seen (unseen: in other hands or the hidden bottom)
    unseen = w_cs(W)[CS_LEFT][:NC]
    held = 0
    trumps_held = 0
    trumps_unseen = 0
    high_held = 0
    high_unseen = 0
    points_held = 0
    points_unseen = 0
    pairs_held = 0
    trump_pairs_held = 0
    hi_u2 = -1  # the highest position of a trump unseen twice or more
    hi_u = w_cs(W)[CS_COUNTERS][CS_AT_UNSEEN_TOP : CS_AT_UNSEEN_TOP + 5]  # the highest unseen position per class
    nk = w_cs(W)[CS_COUNTERS][CS_AT_LENGTH : CS_AT_LENGTH + 5]  # the mover's cards per class
    for k in range(5):
        hi_u[k] = -1
        nk[k] = 0
    bottom = st.bottom
    for c in range(NC):  # few branches: the tests below are values, not jumps
        h = hand[c]
        k = cls[c]
        u = max(decks - h - played[c] - (bottom[c] if knows_bottom else 0), 0)
        unseen[c] = u
        p = pos[c]
        hi_u[k] = p if (u > 0) & (p > hi_u[k]) else hi_u[k]
        nk[k] += h
        held += h
        pairs_held += h * (h >= 2)
        pts = core.POINTS[c]
        points_held += pts * h
        points_unseen += pts * u
        t = k == TRUMP
        trumps_held += h * t
        trumps_unseen += u * t
        trump_pairs_held += h * (h >= 2) * t
        hi_u2 = p if (t & (u >= 2) & (p > hi_u2)) else hi_u2
        hg = (c >= SMALL_JOKER) | (t & (c % 13 == level))
        high_held += h * hg
        high_unseen += u * hg
    n0 = nk[0]
    n1 = nk[1]
    n2 = nk[2]
    n3 = nk[3]
    n4 = nk[4]
    row = X[0]
    row[X_DECKS] = decks
    row[X_BOTTOM_SIZE] = P[BOTTOM]
    row[X_HAND_SIZE] = P[HAND_SIZE]
    row[X_CAPTURE_SINGLE] = capture_multiplier(P, as_int(1))
    row[X_CAPTURE_PAIR] = capture_multiplier(P, as_int(2))
    row[X_CAPTURE_SCHEME] = P[CAPTURE_SCHEME]
    row[X_CAPTURE_BY_EITHER] = P[CAPTURE_BY]
    row[X_CAPTURE_TRUMP_ONLY] = P[CAPTURE_WITH]
    row[X_TAKEOVER] = P[TAKEOVER]
    row[X_STEP] = P[STEP]
    row[X_TAKEOVER_BONUS] = P[TAKEOVER_BONUS]
    row[X_DECLARER_CAP] = P[DECLARER_CAP]
    row[X_THROWS] = P[THROWS]
    row[X_THROW_TEST] = P[THROW_TEST]
    row[X_THROW_FAILURE] = P[THROW_FAILURE]
    row[X_THROW_PENALTY] = P[THROW_PENALTY]
    row[X_FOLLOW_FIRST] = P[FOLLOW0]
    row[X_MAX_UNIT] = P[MAX_UNIT]
    row[X_SCHEME_POWER] = 1 if P[CAPTURE_SCHEME] == CAPTURE_SCHEME_POWER else 0
    row[X_SCHEME_LAST_POINTS] = 1 if P[CAPTURE_SCHEME] == CAPTURE_SCHEME_LAST_TRICK_POINTS else 0
    row[X_FAILURE_TAKEN_BACK] = 1 if P[THROW_FAILURE] == THROW_FAILURE_PENALTY_PER_CARD_TAKEN_BACK else 0
    row[X_FAILURE_FLAT] = 1 if P[THROW_FAILURE] == THROW_FAILURE_PENALTY_FLAT else 0
    row[X_FAILURE_FORFEIT] = 1 if P[THROW_FAILURE] == THROW_FAILURE_FORFEIT else 0
    f0 = P[FOLLOW0]
    row[X_FOLLOW_LONG] = 1 if f0 == F_LONG else 0
    row[X_FOLLOW_WIDTH] = 1 if f0 == F_WIDTH else 0
    row[X_FOLLOW_TCARDS] = 1 if f0 == F_TCARDS else 0
    row[X_FOLLOW_UNITS] = 1 if (f0 == F_QUADS or f0 == F_TRIPLES or f0 == F_PAIRS) else 0
    capture_max = max(row[X_CAPTURE_SINGLE], row[X_CAPTURE_PAIR])
    row[X_CAPTURE_MAX] = capture_max
    row[X_DECISION_KIND] = kind
    row[X_DECLARER] = 1 if seat % 2 == sc[S_DECLARERS] else 0
    row[X_DEALER] = 1 if seat == dealer else 0
    turn = 0 if bury else sc[S_TURN]
    row[X_POSITION] = turn
    row[X_CARDS_LEFT] = held
    defender_points = sc[S_DEF_POINTS] + sc[S_PENALTIES]
    row[X_DEFENDER_POINTS] = defender_points
    to_takeover = P[TAKEOVER] - defender_points
    row[X_TO_TAKEOVER] = to_takeover
    step = max(P[STEP], 1)
    band_up = to_takeover % step
    row[X_BAND_UP] = band_up if band_up > 0 else band_up + step
    nxt = (seat + 1) % 4
    opponents_after = 0
    if not bury:  # the seats after the mover in this trick, alternating teams from the next
        for i in range(3 - turn):
            opponents_after += 1 if ((seat + 1 + i) % 4) % 2 != seat % 2 else 0
    row[X_OPPONENTS_AFTER] = opponents_after
    row[X_NEXT_VOID_TRUMP] = 1 if (not bury and turn < 3 and voids[nxt, TRUMP] == 1) else 0
    k_led = sc[S_K] if follow else -1
    lead_cards = sc[S_N] if follow else as_int(0)  # as_int: a literal 0 would compile a second next_can_beat
    have_led = _of_class(k_led, n0, n1, n2, n3, n4) if follow else 0
    row[X_TRICK_POINTS] = sc[S_TRICK_POINTS] if follow else 0
    row[X_PARTNER_WINNING] = 1 if (follow and sc[S_WINNER] % 2 == seat % 2) else 0
    row[X_WINNER_TRUMP] = st.win_c[CLAIM_TRUMP] if follow else 0
    row[X_LEAD_CARDS] = lead_cards
    row[X_LEAD_TRUMP] = 1 if k_led == TRUMP else 0
    row[X_LEAD_UNITS] = st.LI[LI_UNITS] if follow else 0
    row[X_HAVE_LED] = have_led
    row[X_LAST_TRICK] = 1 if (follow and held <= lead_cards) else 0
    row[X_NEXT_VOID_LED] = 1 if (follow and turn < 3 and voids[nxt, k_led] == 1) else 0
    row[X_TRUMPS_HELD] = trumps_held
    row[X_TRUMPS_UNSEEN] = trumps_unseen
    row[X_HIGH_HELD] = high_held
    row[X_HIGH_UNSEEN] = high_unseen
    row[X_POINTS_HELD] = points_held
    row[X_POINTS_UNSEEN] = points_unseen
    row[X_BOTTOM_POINTS] = sc[S_BOTTOM_POINTS] if knows_bottom else -1
    row[X_WINNER_TOP] = st.win_c[CLAIM_TRUMP] * TRUMP_STRENGTH + st.win_c[CLAIM_TOP] if follow else -1
    row[X_PAIRS_HELD] = pairs_held
    row[X_TRUMP_SHARE] = trumps_held * 100 // max(trumps_held + trumps_unseen, 1)
    after = 0 if bury else 3 - turn
    win_c = st.win_c
    row[X_WINNER_SURE] = (
        1
        if (
            follow
            and not _beatable(
                seat,
                after,
                win_c[CLAIM_KIND],
                win_c[CLAIM_TRUMP],
                win_c[CLAIM_TOP],
                lead_cards,
                k_led,
                voids,
                unseen,
                cls,
                pos,
                hi_u,
            )
        )
        else 0
    )
    partner_winning = row[X_PARTNER_WINNING]
    partner = (seat + 2) % 4
    band_up_now = row[X_BAND_UP]
    trick_points_now = row[X_TRICK_POINTS]
    # the hand's trumps above every unseen trump (copies), and its trump pairs above every trump unseen twice
    top_trumps = 0
    top_pairs = 0
    t_lo, t_hi = class_span(TRUMP)
    for c in range(t_lo, t_hi):
        if cls[c] == TRUMP and hand[c] > 0:
            top_trumps += hand[c] if pos[c] > hi_u[TRUMP] else 0
            top_pairs += 1 if (hand[c] >= 2 and pos[c] > hi_u2) else 0
    cur = w_cs(W)[CS_COUNTERS][CS_AT_FEATURES_CLAIM : CS_AT_FEATURES_CLAIM + N_CLAIM]
    for i in range(n):
        row = X[i]
        for j in range(N_CONTEXT if (i > 0 and every_row) else 0):
            row[j] = X[0, j]
        play = cand[i]
        cards = 0
        points = 0
        trumps = 0
        high = 0
        top = -1
        top_c = -1
        low = ABOVE_POSITION
        breaks = 0
        multi = 0
        aces = 0
        m0 = 0
        m1 = 0
        m2 = 0
        m3 = 0
        m4 = 0
        pairs_gone = 0  # cards that stop counting in pairs_held (trump_pairs_gone: of trump)
        trump_pairs_gone = 0
        top_trumps_gone = 0
        top_pairs_gone = 0
        # its cards lie between its first and last card: one card for most follows
        first = 0
        while first < NC - 1 and play[first] == 0:
            first += 1
        last = NC - 1
        while last > first and play[last] == 0:
            last -= 1
        for c in range(first, last + 1):
            m = play[c]
            if m == 0:
                continue
            cards += m
            points += core.POINTS[c] * m
            k = cls[c]
            s_c = (TRUMP_STRENGTH if k == TRUMP else 0) + pos[c]
            if k == TRUMP:
                trumps += m
                m4 += m
            elif k == 0:
                m0 += m
            elif k == 1:
                m1 += m
            elif k == 2:
                m2 += m
            else:
                m3 += m
            if _high(c, cls, level):
                high += m
            if k != TRUMP and c % 13 == 12:
                aces += m
            if s_c > top:
                top = s_c
                top_c = c
            low = min(low, s_c)
            h = hand[c]
            if m < h and h >= 2:
                breaks += m
            gone = h * (h >= 2) - (h - m) * (h - m >= 2)
            pairs_gone += gone
            if k == TRUMP:
                trump_pairs_gone += gone
                top_trumps_gone += m if pos[c] > hi_u[TRUMP] else 0
                top_pairs_gone += 1 if (h >= 2 and h - m < 2 and pos[c] > hi_u2) else 0
            multi = max(multi, m)
        k_top = cls[top_c] if top_c >= 0 else TRUMP
        unseen_above = 0
        suit_unseen = 0
        if top_c >= 0:
            lo, hi = class_span(k_top)
            for c in range(lo, hi):
                if cls[c] == k_top:
                    suit_unseen += unseen[c]
                    if pos[c] > pos[top_c]:
                        unseen_above += unseen[c]
        voids_made = 0
        voids_made += 1 if (n0 > 0 and m0 == n0) else 0
        voids_made += 1 if (n1 > 0 and m1 == n1) else 0
        voids_made += 1 if (n2 > 0 and m2 == n2) else 0
        voids_made += 1 if (n3 > 0 and m3 == n3) else 0
        voids_made += 1 if (n4 > 0 and m4 == n4) else 0
        wins = 1
        if follow:
            wins = 0
            if cards == 1:
                t = 1 if cls[top_c] == TRUMP else 0
                if cls[top_c] == k_led or t == 1:
                    cur[CLAIM_KIND] = 0
                    cur[CLAIM_TRUMP] = t
                    cur[CLAIM_TOP] = pos[top_c]
                    wins = 1 if beats(cur, st.win_c) else 0
            elif contender(play, cls, pos, P, st.LI, W, as_bool(False), cur) and beats(cur, st.win_c):
                wins = 1
        row[X_HEURISTIC] = 1 if i == 0 else 0
        row[X_CARDS] = cards
        row[X_POINTS] = points
        row[X_TRUMPS] = trumps
        row[X_HIGH] = high
        row[X_TOP] = top
        row[X_LOW] = low if cards > 0 else -1
        row[X_WINS_NOW] = wins
        row[X_UNSEEN_ABOVE] = unseen_above
        row[X_OPP_VOID] = voids[(seat + 1) % 4, k_top] + voids[(seat + 3) % 4, k_top]
        row[X_PARTNER_VOID] = voids[partner, k_top]
        row[X_BREAKS] = breaks
        row[X_MULTI] = multi
        row[X_SUIT_LEFT] = _of_class(k_top, n0 - m0, n1 - m1, n2 - m2, n3 - m3, n4 - m4)
        row[X_VOIDS_MADE] = voids_made
        row[X_POINTS_LEFT] = points_held - points
        row[X_TRUMPS_LEFT] = trumps_held - trumps
        row[X_HIGH_LEFT] = high_held - high
        row[X_FEEDS] = points if (follow and partner_winning == 1 and wins == 0) else 0
        row[X_ACES] = aces
        row[X_SUIT_UNSEEN] = suit_unseen
        sure = 0
        if follow and wins == 1:
            # the claim it makes (``cur``, written by the win test above) against the seats after it
            sure = (
                0
                if _beatable(
                    seat,
                    after,
                    cur[CLAIM_KIND],
                    cur[CLAIM_TRUMP],
                    cur[CLAIM_TOP],
                    lead_cards,
                    k_led,
                    voids,
                    unseen,
                    cls,
                    pos,
                    hi_u,
                )
                else 1
            )
        elif kind == D_LEAD and top_c >= 0:
            # a lead of one card or one group of identical cards: its top against both opponents
            if cards == multi:
                sure = (
                    0
                    if _beatable(
                        seat,
                        as_int(3),
                        as_int(0),
                        1 if k_top == TRUMP else 0,
                        pos[top_c],
                        cards,
                        k_top,
                        voids,
                        unseen,
                        cls,
                        pos,
                        hi_u,
                    )
                    else 1
                )
        row[X_WINS_SURE] = sure
        row[X_BURY_RISK] = (
            points * capture_max * trumps_unseen // max(trumps_held - trumps + trumps_unseen, 1) if bury else 0
        )
        row[X_PAIRS_LEFT] = pairs_held - pairs_gone
        row[X_TRUMP_PAIRS_LEFT] = trump_pairs_held - trump_pairs_gone
        row[X_TOP_TRUMP_LEFT] = 1 if top_trumps - top_trumps_gone > 0 else 0
        row[X_TOP_PAIR_LEFT] = 1 if top_pairs - top_pairs_gone > 0 else 0
        row[X_CROSSES_BAND] = 1 if (not bury and trick_points_now + points >= band_up_now) else 0
    return n
