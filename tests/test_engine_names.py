"""Every code of the compiled engine and the rules is named once: the behaviour codes are their
choices' places in ``rules.choices.CHOICES``, the rules compare behaviours with the choice enums,
and the engine indexes its state and work arrays by named constants only."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from simsuite.engine import core, names, params, phases
from simsuite.engine.policies import codes, search
from simsuite.engine.policies.codes import EXPERT, LEARNED, SEARCH
from simsuite.rules import choices
from simsuite.rules.choices import CHOICE_ENUMS, CHOICES, code
from simsuite.rules.variant import load_all

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "simsuite" / "engine"
RULES = ROOT / "simsuite" / "rules"

# The choice table as the engine has always numbered it: a variant compiled before and after any
# change to ``rules.choices`` must give the same parameter array (golden traces, results files).
NUMBERING = {
    "tie_break": ("suit_order", "first_stands"),
    "joker_bids": ("none", "pair_no_trump", "same_as_suits"),
    "fallback": ("turn_up_bottom", "first_non_joker_of_bottom", "random_bottom_card", "redeal"),
    "bidding": ("open", "concealed"),
    "throw_test": ("absolute_max", "per_unit"),
    "throw_failure": ("penalty_per_card_beaten", "penalty_per_card_taken_back", "penalty_flat", "forfeit"),
    "forced_play": ("smallest_card", "smallest_failing_unit"),
    "capture_by": ("defenders", "either"),
    "capture_with": ("any", "trump"),
    "capture_scheme": ("per_card", "power", "last_trick_points"),
    "dealer_rotation": ("hold_partner_takeover_next", "rotate"),
    "tie_rule": ("draw", "on_stage"),
    "tournament_format": ("swiss", "drawn", "knockout", "session"),
    "elimination": ("single", "double"),
    "tiebreaks": ("round_points", "round_level_diff", "round_level", "total_level_diff", "total_levels", "lots"),
    "self_override_scope": ("seat", "side"),
    "follow_order": ("tt", "long", "width", "tcards", "quads", "triples", "pairs"),
    "throw_compare": ("largest_unit",),
}


def test_choice_table_keeps_its_numbering_and_comes_from_the_enums():
    assert CHOICES == NUMBERING
    for field, enum in CHOICE_ENUMS.items():
        assert CHOICES[field] == tuple(m.value for m in enum), field
        for i, m in enumerate(enum):
            assert m.name == m.value.upper(), (field, m)  # a member's name is its value in capitals
            assert m == m.value and isinstance(CHOICES[field][i], str) and type(CHOICES[field][i]) is str
            assert code(m) == i


def test_every_behaviour_code_equals_its_choice_index():
    """``<PARAMETER>_<CHOICE>`` is the choice's index in CHOICES, for every choice of every field the
    engine reads, and no other constant carries a parameter's prefix."""
    for field, pname in params.CODED.items():
        expected = {f"{pname}_{choice.upper()}": i for i, choice in enumerate(CHOICES[field])}
        for name, i in expected.items():
            value = getattr(params, name)
            assert type(value) is int and value == i, name  # a plain int: numba compiles it as a constant
        stray = {n for n in vars(params) if n.startswith(pname + "_") and n not in expected}
        assert not stray, f"{pname}: constants that are no choice of {field}: {sorted(stray)}"
    f_codes = [
        params.F_TT,
        params.F_LONG,
        params.F_WIDTH,
        params.F_TCARDS,
        params.F_QUADS,
        params.F_TRIPLES,
        params.F_PAIRS,
    ]
    assert f_codes == [
        CHOICES["follow_order"].index(f) for f in ("tt", "long", "width", "tcards", "quads", "triples", "pairs")
    ]


def test_coded_lists_every_choice_the_engine_compiles():
    source = (ENGINE / "params.py").read_text()
    compiled = set(re.findall(r'_code\(v, "(\w+)"\)', source))
    assert compiled == set(params.CODED)
    for v in load_all():
        P = params.compile_variant(v)
        for field, pname in params.CODED.items():
            assert P[getattr(params, pname)] == CHOICES[field].index(getattr(v, field)), (v.id, field)


def test_bid_kinds_and_search_code_fields_are_named_once():
    assert (phases.BID_REJECTED, phases.BID_DECLARE, phases.BID_OVERRIDE, phases.BID_REINFORCE) == (0, 1, 2, 3)
    assert phases.BID_KIND_NAMES == {1: "declare", 2: "override", 3: "reinforce"}
    c = search.search_code(16, 8)
    assert c == SEARCH + (16 << 4) + (8 << 12)  # the packing the results files hold
    assert search.is_search(c) and search.code_samples(c) == 16 and search.code_candidates(c) == 8
    assert names.policy_name(c) == "search-k16-c8" and names.plays_as(c) == (SEARCH, 16, 8, EXPERT)
    assert names.plays_as(names.policy_code("search")) == (
        SEARCH,
        search.DEFAULT_SAMPLES,
        search.DEFAULT_CANDIDATES,
        EXPERT,
    )
    r = search.search_code(4, 3, LEARNED)
    assert r == c - (16 << 4) - (8 << 12) + (4 << 4) + (3 << 12) + (1 << 20)  # the roll-out's field
    assert search.code_rollout(r) == LEARNED and names.policy_name(r) == "search-k4-c3-rlearned"
    lab = search.search_code(4, 3, EXPERT, label=True, salt=9)
    assert search.labels(lab) and search.code_salt(lab) == 9 and names.plays_as(lab) == (LEARNED, 0, 0, 0)
    assert not search.is_search(names.policy_code("expert-v1"))


# --- no literal index into a state or work array ----------------------------------------------------

# The arrays whose positions are a layout: the hand state's (``phases.HandState``), the parameters
# ``P``, the match clock, the hand and match records, the history's sizes and columns, the work
# buffer's regions (any ``w_*(W)[k]``) and the rows and small arrays taken from them (claims
# ``win_c`` / ``cur``, the capture ``cap`` and outcome ``out``, the judgement ``J``, the model ``M``,
# lead_info's keys).
CHECKED = {
    "sc",
    "hands",
    "played",
    "bottom",
    "voids",
    "shown",
    "lead",
    "LI",
    "win_c",
    "cur",
    "cls",
    "pos",
    "ctx",
    "P",
    "clock",
    "rec",
    "rec_n",
    "REC",
    "REC_N",
    "h_n",
    "hn",
    "h_bids",
    "h_plays",
    "FS",
    "LS",
    "BU",
    "HL",
    "CS",
    "T",
    "INTS",
    "ints",
    "J",
    "M",
    "cap",
    "out",
    "key",
    "best_key",
}
# arrays whose columns are a layout too: a tuple index ``h_bids[i, 0]`` is checked in each place
COLUMNS = {"h_bids", "h_plays", "out"}
# ``rng.py`` is left out: xoshiro128's four state words (``s``, ``out``) are the algorithm's own.
SKIPPED_FILES = {"warm.py", "rng.py"}


def _int_literal(node) -> int | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def _array_name(node) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr  # st.win_c
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id.startswith("w_"):
        return node.func.id + "(W)"
    return None


def literal_indexes(source: str, label: str) -> list[str]:
    """``file:line: name[k]`` for every index of a checked array by a bare integer: ``FS[3]``,
    ``st.win_c[0]``, ``w_hl(W)[5]``, and for the arrays in COLUMNS a tuple index with one,
    ``h_bids[i, 0]`` (a slice
    ``FS[k][8:16]`` or an index from an expression ``out[OUT_LEVELS0 + team]`` is not flagged). Code
    only: comments and docstrings are not parsed as code."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Subscript):
            continue
        name = _array_name(node.value)
        if name is None or (name not in CHECKED and not name.endswith("(W)")):
            continue
        if isinstance(node.slice, ast.Tuple):
            parts = node.slice.elts if name in COLUMNS else []
        else:
            parts = [node.slice]
        for part in parts:
            k = _int_literal(part)
            if k is not None:
                found.append(f"{label}:{node.lineno}: {name}[{k}]")
    return found


def _engine_files():
    return [f for f in sorted(ENGINE.rglob("*.py")) if f.name not in SKIPPED_FILES]


def test_the_index_check_finds_literal_indexes():
    sample = (
        "def f(W, st, h_bids, FS):\n    a = FS[3]\n    b = st.win_c[0]\n    c = w_hl(W)[5][:3]\n"
        "    h_bids[0, 2] = 1\n    d = FS[FS_BEST][8:16]\n    e = levels[0]\n    # FS[4] in a comment\n"
        "    g = rec[REC_FIRST, 0]\n"
    )
    got = [hit.split(": ", 1)[1] for hit in literal_indexes(sample, "probe")]
    assert sorted(got) == sorted(["FS[3]", "win_c[0]", "w_hl(W)[5]", "h_bids[0]", "h_bids[2]"])


def test_engine_indexes_state_and_work_arrays_by_name_only():
    """No ``NAME[digit]`` into a state or work array in ``simsuite/engine`` (the arrays in CHECKED
    and every work region ``w_*(W)``); the layouts are named in ``engine.core`` (the scratch-row
    table, claims, captures, outcomes), ``engine.phases`` (the state), ``engine.params``,
    ``engine.hand`` / ``engine.match`` (records, history, clock) and ``engine.follow`` (lead keys)."""
    found = [hit for f in _engine_files() for hit in literal_indexes(f.read_text(), str(f.relative_to(ROOT)))]
    assert not found, "index by a named constant:\n" + "\n".join(found)


def test_scratch_row_names_are_rows_of_their_region():
    """Each row name of ``engine.core``'s table is a row of its region, and every row of ``fs``,
    ``ls``, ``hl`` and ``cs`` has one (``bu`` uses six of its eight)."""
    rows = {"BU_": 8, "FS_": 16, "LS_": 8, "HL_": 8, "CS_": 6}
    shapes = dict(core.WORK_LAYOUT)
    for prefix, n in rows.items():
        consts = {
            k: v
            for k, v in vars(core).items()
            if k.startswith(prefix) and not k.startswith(prefix + "AT_") and k != "FS_JUDGE_AT" and type(v) is int
        }
        assert consts, prefix
        assert n == shapes[prefix[:-1].lower()][0]
        assert all(0 <= v < n for v in consts.values()), prefix
        assert set(consts.values()) == set(range(n)) or prefix == "BU_", f"{prefix}: a row without a name"


# --- the rules compare behaviours with the choice enums ---------------------------------------------


@pytest.mark.parametrize("path", sorted(RULES.glob("*.py")), ids=lambda p: p.name)
def test_rules_compare_choices_by_enum_not_by_string(path):
    """A comparison of a variant's choice field (``variant.throw_failure``, ``v["tie_break"]``) with a
    string literal: the enum member (``choices.ThrowFailure.FORFEIT``) names it instead."""
    fields = set(CHOICE_ENUMS)
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        reads_field = any(
            (isinstance(s, ast.Attribute) and s.attr in fields)
            or (isinstance(s, ast.Subscript) and isinstance(s.slice, ast.Constant) and s.slice.value in fields)
            for s in sides
        )
        literal = any(isinstance(s, ast.Constant) and isinstance(s.value, str) for s in sides)
        if reads_field and literal:
            found.append(f"{path.name}:{node.lineno}")
    assert not found, found
    assert choices.ThrowFailure.FORFEIT == "forfeit"


# The names ``engine.policies.codes`` defines, each there only: the policy codes and the decision kinds.
CODE_NAMES = (
    "RANDOM",
    "BASIC",
    "EXPERT",
    "SEARCH",
    "EXPERT_V1",
    "LEARNED",
    "POLICY_NAMES",
    "D_LEAD",
    "D_FOLLOW",
    "D_BURY",
    "DECISION_NAMES",
    "N_DECISION_KINDS",
)


def test_policy_codes_and_decision_kinds_are_defined_once():
    """Their values are in results files (a seat's code) and in model files (a model's group per decision
    kind, the ``decision_kind`` feature): they keep the numbers they have always had, and every other
    module imports them from ``engine.policies.codes``."""
    assert codes.POLICY_NAMES == ("random", "basic", "expert", "search", "expert-v1", "learned")
    assert (codes.RANDOM, codes.BASIC, codes.EXPERT, codes.SEARCH, codes.EXPERT_V1, codes.LEARNED) == (0, 1, 2, 3, 4, 5)
    assert codes.DECISION_NAMES == ("lead", "follow", "bury") and (codes.D_LEAD, codes.D_FOLLOW, codes.D_BURY) == (
        0,
        1,
        2,
    )
    home = ENGINE / "policies" / "codes.py"
    for path in sorted((ROOT / "simsuite").rglob("*.py")):
        if path == home:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else [node.target]
                if isinstance(node, ast.AnnAssign)
                else []
            )
            for t in targets:
                for name in ast.walk(t):
                    assert not (isinstance(name, ast.Name) and name.id in CODE_NAMES), (
                        f"{path.relative_to(ROOT)}:{node.lineno} defines {name.id}; import it from engine.policies.codes"
                    )
