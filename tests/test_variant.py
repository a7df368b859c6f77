"""Variant files: the five registry variants as VARIANTS.md describes them, their citations,
the rules hash, and clear one-place errors for bad files and bad overrides."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from simsuite.errors import VariantError
from simsuite.rules.variant import SPECS, VARIANTS_DIR, known_ids, load_all, load_variant, override_keys

IDS = ["school-2016", "huizhou", "baiyun-2016", "two-deck-2011", "guangxi-2012"]

# From the table at the top of shared/rules/VARIANTS.md and each variant's scoring section.
TABLE = {
    # id: (decks, bottom, step, takeover, hand_size, document)
    "school-2016": (3, 6, 30, 120, 39, "000_244d8fdf89c44d18.txt"),
    "huizhou": (3, 6, 60, 120, 39, "001_718d4764b953e076.txt"),
    "baiyun-2016": (3, 6, 60, 120, 39, "002_31b433ac1f5c30ad.txt"),
    "two-deck-2011": (2, 8, 40, 80, 25, "003_620d31f6a5fc4aef.txt"),
    "guangxi-2012": (4, 0, 80, 160, 54, "004_1dd55b05d0ae3203.txt"),
}

SCHOOL_TEXT = (VARIANTS_DIR / "school-2016.toml").read_text(encoding="utf-8")


def school_with(*edits: tuple[str, str], extra: dict[str, str] | None = None) -> str:
    """school-2016's file text with ``key = value`` lines replaced, and lines added to sections."""
    text = SCHOOL_TEXT
    for key, value in edits:
        text, n = re.subn(rf"(?m)^{key}\s*=.*$", f"{key} = {value}", text)
        assert n == 1, key
    for section, line in (extra or {}).items():
        text, n = re.subn(rf"(?m)^\[{section}\]$", f"[{section}]\n{line}", text)
        assert n == 1, section
    return text


def load_text(tmp_path: Path, text: str, name: str = "bad.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load_variant(path)


def problems_of(tmp_path: Path, text: str) -> list[str]:
    with pytest.raises(VariantError) as info:
        load_text(tmp_path, text)
    return info.value.problems


# --- the registry ------------------------------------------------------------------------------


def test_all_five_variants_load():
    assert sorted(known_ids()) == sorted(IDS)
    assert sorted(v.id for v in load_all()) == sorted(IDS)


@pytest.mark.parametrize("vid", IDS)
def test_variant_matches_variants_md_table(vid):
    decks, bottom, step, takeover, hand, document = TABLE[vid]
    v = load_variant(vid)
    assert v.id == vid
    assert (v.decks, v.bottom_size, v.step, v.takeover) == (decks, bottom, step, takeover)
    assert v.hand_size == hand
    assert v.total_points == 100 * decks
    assert v.document == document
    assert (54 * v.decks - v.bottom_size) % 4 == 0


def test_hand_sizes():
    assert [load_variant(i).hand_size for i in IDS] == [39, 39, 39, 25, 54]


@pytest.mark.parametrize("vid", IDS)
def test_rules_hash_is_stable(vid):
    a, b = load_variant(vid), load_variant(vid)
    assert a.rules_hash == b.rules_hash
    assert re.fullmatch(r"[0-9a-f]{16}", a.rules_hash)


def test_rules_hash_ignores_id_and_file_but_not_rules(tmp_path):
    copy = load_text(tmp_path, SCHOOL_TEXT.replace('id = "school-2016"', 'id = "my-copy"'), "copy.toml")
    school = load_variant("school-2016")
    assert copy.id == "my-copy"
    assert copy.rules_hash == school.rules_hash


def test_rules_hashes_of_the_five_differ():
    assert len({v.rules_hash for v in load_all()}) == 5


@pytest.mark.parametrize(
    "vid, overrides",
    [
        ("two-deck-2011", {"bottom_size": 4}),
        ("school-2016", {"bottom_size": 10}),
        ("school-2016", {"takeover": 125}),
        ("school-2016", {"step": 40}),
        ("huizhou", {"capture_with": "any"}),
        ("huizhou", {"end_level": "A"}),
        ("baiyun-2016", {"throw_penalty": 10}),
        ("guangxi-2012", {"single_card_captures": True}),
        ("school-2016", {"version": 3}),
    ],
)
def test_rules_hash_changes_with_a_rule_field(vid, overrides):
    base = load_variant(vid)
    changed = base.with_overrides(overrides)
    assert changed.rules_hash != base.rules_hash
    key = next(iter(overrides))
    diff = {k for k in base.rules_dict() if base.rules_dict()[k] != changed.rules_dict()[k]}
    assert diff == {key}


def test_with_overrides_same_value_keeps_hash():
    base = load_variant("two-deck-2011")
    assert base.with_overrides({"bottom_size": 8}).rules_hash == base.rules_hash


# --- citations in the variant files --------------------------------------------------------------
# The citation format and its checks are tested in test_citations.py; here, the registry's content.


def _rule_fields() -> list[str]:
    return [s.name for s in SPECS if s.section != "about"]


@pytest.mark.parametrize("vid", IDS)
def test_every_rule_field_of_a_registry_variant_is_cited(vid):
    v = load_variant(vid)
    assert [f for f in _rule_fields() if v.cite(f) is None] == []


@pytest.mark.parametrize("vid", IDS)
def test_variant_file_names_its_document_and_marks_its_defaults(vid):
    v = load_variant(vid)
    assert re.fullmatch(r"00\d_[0-9a-f]{16}\.txt", v.document)
    assert any(c.default for c in v.citations.values()), f"{vid} marks no default choice"
    assert any(c.clause for c in v.citations.values())


@pytest.mark.parametrize("vid", IDS)
def test_variant_file_has_no_comment_on_a_rule_line(vid):
    # a field's source lives in its citation, never in a comment the reader drops
    section = None
    for no, line in enumerate((VARIANTS_DIR / f"{vid}.toml").read_text(encoding="utf-8").splitlines(), 1):
        if m := re.match(r"^\[([\w.]+)\]", line):
            section = m.group(1)
        elif section not in (None, "about"):
            code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)
            assert "#" not in code, f"{vid}.toml:{no}: a comment on a rule line: {line.strip()}"


def test_differing_rule_values_cite_a_clause_or_a_default():
    # the fields where the tournaments differ are the interesting ones: each must say why
    variants = load_all()
    differ = [f for f in _rule_fields() if len({repr(getattr(v, f)) for v in variants}) > 1]
    for key in ("decks", "bottom_size", "capture_with", "throw_test", "takeover", "step", "tie_break"):
        assert key in differ, key
    for v in variants:
        for f in differ:
            c = v.cite(f)
            assert c is not None and (c.clause or c.default), (v.id, f)


# --- bad variant files -----------------------------------------------------------------------------


def test_school_text_helper_loads_unchanged(tmp_path):
    # the bad-file tests below each change one thing in an otherwise valid file
    v = load_text(tmp_path, SCHOOL_TEXT, "ok.toml")
    assert v.rules_hash == load_variant("school-2016").rules_hash


def test_malformed_toml(tmp_path):
    problems = problems_of(tmp_path, SCHOOL_TEXT + "\ndecks = = 3\n")
    assert len(problems) == 1
    assert "not valid TOML" in problems[0]


def test_unknown_key_names_it_and_lists_known_keys(tmp_path):
    problems = problems_of(tmp_path, school_with(extra={"deal": "colour = 3"}))
    assert len(problems) == 1
    msg = problems[0]
    assert "'colour'" in msg
    deal_keys = [s.name for s in SPECS if s.section == "deal"]
    for key in deal_keys:
        assert key in msg
    assert "takeover" not in msg  # only the keys of [deal]


def test_key_in_wrong_section(tmp_path):
    problems = problems_of(tmp_path, school_with(extra={"score": "bottom_size = 6"}))
    assert len(problems) == 1
    assert "'bottom_size'" in problems[0]
    assert "[deal]" in problems[0] and "[score]" in problems[0]


def test_wrong_type_names_field_value_and_allowed(tmp_path):
    problems = problems_of(tmp_path, school_with(("decks", '"three"')))
    assert len(problems) == 1
    msg = problems[0]
    assert "decks" in msg and "'three'" in msg and "integer" in msg


def test_wrong_type_bool(tmp_path):
    problems = problems_of(tmp_path, school_with(("throws", '"yes"')))
    assert len(problems) == 1
    assert "throws" in problems[0] and "'yes'" in problems[0] and "true or false" in problems[0]


def test_bottom_size_must_divide_the_deal(tmp_path):
    problems = problems_of(tmp_path, school_with(("bottom_size", "7")))
    assert len(problems) == 1
    assert "bottom_size = 7" in problems[0] and "does not divide the deal evenly" in problems[0]
    assert "155" in problems[0]  # 54 x 3 - 7


def test_thresholds_out_of_order(tmp_path):
    problems = problems_of(tmp_path, school_with(("step", "150")))
    assert len(problems) == 1
    assert "out of order" in problems[0] and "step = 150" in problems[0] and "takeover = 120" in problems[0]


def test_max_unit_larger_than_decks(tmp_path):
    problems = problems_of(tmp_path, school_with(("max_unit", "4")))
    assert len(problems) == 1
    assert "max_unit = 4" in problems[0] and "3 deck" in problems[0]


def test_bad_choice_lists_allowed_choices(tmp_path):
    problems = problems_of(tmp_path, school_with(("capture_with", '"spades"')))
    assert len(problems) == 1
    msg = problems[0]
    assert "capture_with" in msg and "'spades'" in msg
    assert "any" in msg and "trump" in msg


def test_bad_choice_in_a_list(tmp_path):
    problems = problems_of(tmp_path, school_with(("tiebreaks", '["lots", "coin"]')))
    assert len(problems) == 1
    assert "'coin'" in problems[0] and "round_points" in problems[0]


def test_three_problems_reported_together(tmp_path):
    text = school_with(("decks", '"three"'), ("capture_with", '"spades"'), extra={"units": "colour = 1"})
    with pytest.raises(VariantError) as info:
        load_text(tmp_path, text)
    exc = info.value
    assert len(exc.problems) == 3
    joined = "\n".join(exc.problems)
    assert "decks" in joined and "capture_with" in joined and "colour" in joined
    assert str(exc).count("\n  - ") == 3
    assert "3 problems" in str(exc)


def test_three_consistency_problems_reported_together(tmp_path):
    text = school_with(("bottom_size", "7"), ("step", "150"), ("max_unit", "4"))
    problems = problems_of(tmp_path, text)
    assert len(problems) == 3
    assert any("bottom_size" in p for p in problems)
    assert any("out of order" in p for p in problems)
    assert any("max_unit" in p for p in problems)


def test_error_names_the_file(tmp_path):
    with pytest.raises(VariantError) as info:
        load_text(tmp_path, school_with(("bottom_size", "7")), "named.toml")
    assert str(tmp_path / "named.toml") in str(info.value)


# --- extends ---------------------------------------------------------------------------------------


def test_extends_with_one_changed_key(tmp_path):
    text = 'extends = "school-2016"\nid = "school-bottom-10"\n\n[deal]\nbottom_size = 10\n'
    v = load_text(tmp_path, text, "child.toml")
    base = load_variant("school-2016")
    assert v.id == "school-bottom-10"
    assert v.bottom_size == 10 and v.hand_size == 38
    diff = {k for k in base.rules_dict() if base.rules_dict()[k] != v.rules_dict()[k]}
    assert diff == {"bottom_size"}
    assert v.rules_hash != base.rules_hash


def test_extends_without_changes_has_the_same_hash(tmp_path):
    v = load_text(tmp_path, 'extends = "huizhou"\n', "same.toml")
    assert v.id == "same"
    assert v.rules_hash == load_variant("huizhou").rules_hash


def test_extends_child_is_validated(tmp_path):
    problems = problems_of(tmp_path, 'extends = "school-2016"\n[deal]\nbottom_size = 7\n')
    assert len(problems) == 1 and "does not divide the deal evenly" in problems[0]


def test_extends_unknown_id_names_it_and_known_ids(tmp_path):
    problems = problems_of(tmp_path, 'extends = "nope"\n[deal]\nbottom_size = 6\n')
    assert "'nope'" in problems[0] and "unknown variant id" in problems[0]
    for vid in IDS:
        assert vid in problems[0]


def test_extends_unknown_id_is_one_problem(tmp_path):
    problems = problems_of(tmp_path, 'extends = "nope"\n[deal]\nbottom_size = 6\n')
    assert len(problems) == 1


# --- ids and overrides ----------------------------------------------------------------------------


def test_unknown_id_lists_known_ids():
    with pytest.raises(VariantError) as info:
        load_variant("nope")
    msg = str(info.value)
    assert "nope" in msg
    for vid in IDS:
        assert vid in msg
    assert "\n" not in msg


def test_with_overrides_unknown_key_suggests_the_near_keys():
    with pytest.raises(VariantError) as info:
        load_variant("school-2016").with_overrides({"colour": 3, "bottom_sise": 4})
    msg = str(info.value)
    assert "unknown key 'colour'; " in msg and "unknown key 'bottom_sise' (did you mean 'bottom_size'?)" in msg
    assert f"the {len(override_keys())} rule keys are the fields simsuite show VARIANT lists" in msg
    assert "capture_per_card" not in msg


def test_with_overrides_about_field_is_not_a_rule():
    with pytest.raises(VariantError) as info:
        load_variant("school-2016").with_overrides({"name": "x"})
    assert "'name'" in str(info.value)


@pytest.mark.parametrize(
    "key, value, allowed",
    [("bottom_size", "8", "integer"), ("throws", 1, "true or false"), ("capture_with", "hearts", "any, trump")],
)
def test_with_overrides_wrong_type_names_the_field(key, value, allowed):
    with pytest.raises(VariantError) as info:
        load_variant("two-deck-2011").with_overrides({key: value})
    msg = str(info.value)
    assert key in msg and repr(value) in msg and allowed in msg


def test_with_overrides_checks_consistency():
    with pytest.raises(VariantError) as info:
        load_variant("school-2016").with_overrides({"bottom_size": 8})
    assert "does not divide the deal evenly" in str(info.value)


def test_every_numeric_field_has_a_documented_range():
    """Rule: every numeric field has a range, and docs/variants.md lists it as coded."""
    from pathlib import Path

    from simsuite.rules.variant import SPECS

    doc = (Path(__file__).resolve().parent.parent / "docs" / "variants.md").read_text(encoding="utf-8")
    for spec in SPECS:
        if spec.kind not in ("int", "float"):
            continue
        assert spec.minimum is not None and spec.maximum is not None, spec.name
        assert f"| `{spec.name}` | {spec.minimum:g} | {spec.maximum:g} |" in doc, spec.name
