"""Citations as data: every field of a built-in variant cites its source in a ``[cite.<section>]``
table (a clause of the original, or default: our reason), the loader checks their form, and
``simsuite show`` prints them. Citations never change the rules or their hash."""

from __future__ import annotations

import json
import re
import tomllib

import pytest
from cli import one_line_error, run_cli

from simsuite.errors import VariantError
from simsuite.rules.citations import NOT_CITED, Citation
from simsuite.rules.variant import (
    SPECS,
    VARIANTS_DIR,
    columns,
    describe,
    known_ids,
    load_variant,
    variant_from_table,
)

IDS = ["school-2016", "huizhou", "baiyun-2016", "two-deck-2011", "guangxi-2012"]


def registry_table(vid: str) -> dict:
    return tomllib.loads((VARIANTS_DIR / f"{vid}.toml").read_text(encoding="utf-8"))


def load_table(tmp_path, table: dict, *, built_in: bool = False, name: str = "mine.toml"):
    return variant_from_table(table, str(tmp_path / name), tmp_path, default_id="mine", built_in=built_in)


def problems(tmp_path, table: dict, **kw) -> list[str]:
    with pytest.raises(VariantError) as info:
        load_table(tmp_path, table, **kw)
    return info.value.problems


def write(tmp_path, text: str, name: str = "mine.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- the registry's citations -----------------------------------------------------------------------


def test_huizhou_4_1_three_decks_cites_its_clause_and_quote():
    c = load_variant("huizhou").cite("decks")
    assert c == Citation(clause="第四、1", note="three decks", quote="打三副牌")
    assert c.text() == '第四、1: three decks ("打三副牌")'


def test_huizhou_silence_on_dealer_rotation_is_a_default():
    c = load_variant("huizhou").cite("dealer_rotation")
    assert c.clause is None and "silent" in c.default
    assert c.text().startswith("default: ")


def test_school_2016_takeover_bonus_cites_a_clause_read_by_default():
    c = load_variant("school-2016").cite("takeover_bonus")
    assert c.clause == "三、(六)" and c.quote == "一级胜利" and c.default.startswith("reading:")
    assert "; default: reading:" in c.text()


@pytest.mark.parametrize("vid", IDS)
def test_citations_never_change_the_rules_hash(vid, tmp_path):
    table = registry_table(vid)
    bare = {k: v for k, v in table.items() if k != "cite"}
    cited, uncited = load_variant(vid), load_table(tmp_path, bare)
    assert uncited.citations == {} and cited.rules_hash == uncited.rules_hash and cited == uncited


def test_cite_of_a_field_that_does_not_exist_names_it():
    with pytest.raises(VariantError, match="no field 'colour'"):
        load_variant("huizhou").cite("colour")


# --- validation -------------------------------------------------------------------------------------


def test_a_built_in_variant_must_cite_every_rule_field(tmp_path):
    table = registry_table("huizhou")
    del table["cite"]["capture"]["capture_with"]
    found = problems(tmp_path, table, built_in=True)
    assert found == [f"[cite.capture] capture_with: {NOT_CITED} (a built-in variant cites every rule field)"]


def test_a_registry_file_without_a_citation_is_refused_naming_the_file_and_field(tmp_path, monkeypatch):
    import simsuite.rules.variant as variant

    text = (VARIANTS_DIR / "huizhou.toml").read_text(encoding="utf-8")
    text = re.sub(r"(?m)^  bombs = \{.*\}\n", "", text)
    write(tmp_path, text, "huizhou.toml")
    monkeypatch.setattr(variant, "VARIANTS_DIR", tmp_path)
    with pytest.raises(VariantError) as info:
        variant.load_variant("huizhou")
    assert (
        str(info.value)
        == f"{tmp_path / 'huizhou.toml'}: [cite.units] bombs: {NOT_CITED} (a built-in variant cites every rule field)"
    )


def test_a_user_file_may_omit_citations(tmp_path):
    v = load_variant(write(tmp_path, 'extends = "huizhou"\n[deal]\nend_level = "A"\n[cite]\n'))
    assert v.cite("end_level") is None


@pytest.mark.parametrize(
    "cite, needle",
    [
        (
            '[cite.deal]\ndecks = { clause = "1", page = "2" }',
            "[cite.deal] decks: unknown citation key(s) 'page'; a citation has clause, note, quote, default",
        ),
        (
            '[cite.deal]\ncolour = { clause = "1" }',
            "[cite.deal] colour: cites a field that does not exist; fields of [deal]: decks",
        ),
        (
            '[cite.deal]\ndecks = { note = "three decks" }',
            "[cite.deal] decks: give clause (where the original says it) or default",
        ),
        (
            '[cite.deal]\nthrows = { clause = "1" }',
            "[cite.deal] throws: the field belongs in [throw]; cite it in [cite.throw]",
        ),
        ('[cite.deal]\ndecks = "第四、1"', "[cite.deal] decks: a citation is a table"),
        ('[cite.deal]\ndecks = { default = "" }', "[cite.deal] decks: default must be non-empty text"),
        (
            '[cite.deal]\ndecks = { default = "ours", quote = "三副" }',
            "[cite.deal] decks: a quote needs the clause it comes from",
        ),
        ('[cite.colour]\ndecks = { clause = "1" }', "unknown section [cite.colour]; sections are about, deal"),
        ("cite = 3", "[cite] must hold one table per section"),
    ],
)
def test_a_malformed_citation_is_refused_naming_the_file_and_field(tmp_path, cite, needle):
    path = write(tmp_path, 'extends = "huizhou"\n' + cite + "\n")
    with pytest.raises(VariantError) as info:
        load_variant(path)
    assert str(path) in str(info.value) and needle in str(info.value)


def test_malformed_citations_are_reported_with_every_other_problem(tmp_path):
    path = write(
        tmp_path,
        'extends = "huizhou"\n[deal]\ndecks = "three"\n[cite.deal]\ndecks = { page = "1" }\n'
        'colour = { clause = "1" }\n',
    )
    with pytest.raises(VariantError) as info:
        load_variant(path)
    assert len(info.value.problems) == 4  # the unknown key, neither clause nor default, the unknown field, the value


# --- extends and overrides ------------------------------------------------------------------------------


def test_extends_inherits_the_citations_of_the_fields_it_keeps(tmp_path):
    v = load_variant(write(tmp_path, 'extends = "huizhou"\n[deal]\nend_level = "A"\n'))
    base = load_variant("huizhou")
    assert v.cite("decks") == base.cite("decks")
    assert v.cite("end_level") is None  # changed: not cited
    assert all(v.cite(s.name) == base.cite(s.name) for s in SPECS if s.name != "end_level")


def test_extends_a_changed_field_cited_by_the_file(tmp_path):
    v = load_variant(
        write(
            tmp_path,
            'extends = "huizhou"\n[deal]\nend_level = "A"\n'
            '[cite.deal]\nend_level = { default = "our club plays to A" }\n',
        )
    )
    assert v.cite("end_level") == Citation(default="our club plays to A")


def test_extends_the_same_value_keeps_the_base_citation(tmp_path):
    v = load_variant(write(tmp_path, 'extends = "huizhou"\n[deal]\ndecks = 3\n'))
    assert v.cite("decks") == load_variant("huizhou").cite("decks")


def test_an_override_is_not_cited_and_the_rest_keep_theirs():
    base = load_variant("school-2016")
    v = base.with_overrides({"bottom_size": 10, "decks": 3})
    assert v.cite("bottom_size") is None and v.cite("decks") == base.cite("decks")
    assert v.cite("takeover") == base.cite("takeover")


# --- simsuite show -------------------------------------------------------------------------------------


def test_show_prints_each_value_with_its_citation_within_100columns():
    text = describe(load_variant("huizhou"))
    assert '第四、1: three decks ("打三副牌")' in text
    assert "default: the original is silent on who deals next" in text
    assert not any(line.strip() == NOT_CITED for line in text.splitlines())
    for vid in known_ids():
        assert max(columns(line) for line in describe(load_variant(vid)).splitlines()) <= 100


def test_show_says_not_cited_for_a_changed_field(capsys, tmp_path):
    path = write(tmp_path, 'extends = "huizhou"\n[deal]\nend_level = "A"\n')
    code, out, _ = run_cli(capsys, "show", str(path))
    assert code == 0
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.lstrip().startswith("end_level"))
    assert lines[at + 1].strip() == NOT_CITED


def test_show_json_carries_every_fields_citation(capsys, tmp_path):
    code, out, _ = run_cli(capsys, "show", "two-deck-2011", "--json")
    data = json.loads(out)
    assert code == 0 and data["rules_hash"] == load_variant("two-deck-2011").rules_hash
    assert data["cite"]["deal"]["decks"] == {"clause": "三、1", "note": "two decks of 54"}
    assert all(data["cite"][s.section][s.name] is not None for s in SPECS if s.section != "about")
    path = write(tmp_path, 'extends = "two-deck-2011"\n[deal]\nend_level = "K"\n')
    data = json.loads(run_cli(capsys, "show", str(path), "--json")[1])
    assert data["cite"]["deal"]["end_level"] is None


def test_show_of_a_malformed_citation_is_one_line(capsys, tmp_path):
    path = write(tmp_path, 'extends = "huizhou"\n[cite.deal]\ndecks = { clause = "1", page = "1" }\n')
    code, _, err = run_cli(capsys, "show", str(path))
    one_line_error(code, err, str(path), "[cite.deal] decks", "unknown citation key(s) 'page'", command="show")


# --- design's recommended.toml ----------------------------------------------------------------------------


def test_design_recommendation_keeps_the_base_citations_and_marks_its_choices(tmp_path):
    import types

    from simsuite.analysis.design.spec import Goal
    from simsuite.analysis.design.store import variant_toml

    base = load_variant("school-2016")
    chosen = types.SimpleNamespace(params={"step": 40, "decks": 3}, variant=base.with_overrides({"step": 40}))
    spec = types.SimpleNamespace(
        path="club.toml", base="school-2016", goals=[Goal("draw_rate", "<=", 0.1), Goal("declarer_edge", ">=", 0.0)]
    )
    path = write(tmp_path, variant_toml(chosen, spec), "recommended.toml")
    v = load_variant(path)
    expected = "chosen by simsuite design from school-2016, for the goals draw_rate <= 0.1; declarer_edge >= 0"
    assert v.cite("step") == Citation(default=expected)
    assert v.cite("decks") == Citation(default=expected)  # searched, though the base's value won
    assert v.cite("takeover") == base.cite("takeover") and v.cite("bottom_size") == base.cite("bottom_size")
    assert v.rules_hash == base.with_overrides({"step": 40}).rules_hash
