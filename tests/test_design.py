"""`simsuite design`: design specs, their errors, round seeds, and a tiny search end to end (resume,
--jobs, error control, replay, confirmation, cost, the recommended variant file). docs/design.md.
Judging is tests/test_design_judge.py's, the figures tests/test_design_figures.py's, the words
tests/test_design_text.py's."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from statistics import NormalDist

import pytest
from cli import one_line_error, run_cli
from conftest import local_dask_cluster

from simsuite.analysis.design.search import ALPHA, confirm_seed, design, round_seed
from simsuite.analysis.design.spec import read_design
from simsuite.analysis.design.store import load_design
from simsuite.rules.variant import load_variant

TINY = (Path(__file__).parent / "designs" / "tiny.toml").read_text()


def write(tmp_path: Path, text: str, name: str = "spec.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def replace(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new)


# --- the spec's errors: one clear message each, no traceback, nothing written ----------------------------


@pytest.mark.parametrize(
    "old,new,needle",
    [
        ("step = [30]", "stepp = [30]", "grid: unknown key 'stepp'; valid keys: decks, decks,"[:30]),
        (
            'draws = "<= 0.2"',
            'draw_share = "<= 0.2"',
            "goals: unknown metric 'draw_share'; known metrics: match_minutes",
        ),
        ("step = [30]", "step = [30]\nbottom_size = [8, 7]", "bottom_size = 7 does not divide"),
        ('draws = "<= 0.2"', 'draws = "< 0.2"', "goals.draws: bad operator in '< 0.2'"),
        ('draws = "<= 0.2"', 'draws = "<= lots"', "goals.draws: the bound in '<= lots' is not a number"),
        ('draws = "<= 0.2"', 'draws = "<= 10"', "goals.draws: draws is a share from 0 to 1"),
        ('tradeoff = ["match_minutes", "stronger_wins"]\n', "", "give tradeoff = "),
        (
            'tradeoff = ["match_minutes", "stronger_wins"]',
            'tradeoff = ["match_minutes", "lead_changes"]',
            "tradeoff: 'lead_changes' has no goal",
        ),
        (
            'tradeoff = ["match_minutes", "stronger_wins"]',
            'tradeoff = ["match_minutes", "speed"]',
            "tradeoff: unknown metric 'speed'",
        ),
        ('pairings = ["expert,basic", "basic,basic"]', 'pairings = ["expert,basic"]', "pairings: add an equal pairing"),
        ('pairings = ["expert,basic", "basic,basic"]', 'pairings = ["basic,basic"]', "pairings: add a stronger/weaker"),
        ('pairings = ["expert,basic", "basic,basic"]\n', "", "give pairings = "),
        (
            'pairings = ["expert,basic", "basic,basic"]',
            'pairings = ["expert,wizard", "basic,basic"]',
            "unknown policy 'wizard'",
        ),
        ("step = [30]", "step = { from = 40, to = 30, by = 10 }", "grid.step: a range needs by > 0 and to >= from"),
        ("step = [30]", "step = 30", "grid.step must be a list of values or a range"),
        ("growth = 2", "growth = 1", "search.growth"),
        ("growth = 2", "speed = 2", "search: unknown key 'speed'"),
        ("reps = 1000", "reps = 20", "search.reps must be at least 1000"),
        ("seed = 3", "seed = 3\nmatches = 10", "unknown key 'matches'; known keys: base, seed"),
        ('base = "two-deck-2011"', 'base = "nonesuch"', "unknown variant id"),
    ],
)
def test_bad_design_spec_says_what_is_wrong(capsys, tmp_path, old, new, needle):
    spec = write(tmp_path, replace(TINY, old, new))
    code, out, err = run_cli(capsys, "design", str(spec), "--out", str(tmp_path / "d"), "--quiet")
    assert code == 2, err
    assert "Traceback" not in err and err.startswith("simsuite design: error: ")
    assert needle in err, (needle, err)
    assert not (tmp_path / "d").exists()


def test_every_problem_of_a_spec_is_reported_at_once(capsys, tmp_path):
    text = replace(replace(TINY, "step = [30]", "stepp = [30]"), 'draws = "<= 0.2"', 'draws = "=< 0.2"')
    code, _, err = run_cli(capsys, "design", str(write(tmp_path, text)), "--out", str(tmp_path / "d"))
    assert code == 2 and "2 problems" in err and "'stepp'" in err and "bad operator" in err


@pytest.mark.parametrize(
    "make,needle",
    [
        (lambda p: p.write_text("x"), "exists and is not a folder"),
        (lambda p: (p.mkdir(), (p / "other.txt").write_text("x")), "is not a simsuite design"),
    ],
)
def test_a_bad_output_folder(capsys, tmp_path, make, needle):
    make(tmp_path / "d")
    code, _, err = run_cli(capsys, "design", str(write(tmp_path, TINY)), "--out", str(tmp_path / "d"))
    assert code == 2 and "Traceback" not in err and needle in err, err


def test_a_missing_spec_file(capsys, tmp_path):
    code, _, err = run_cli(capsys, "design", str(tmp_path / "none.toml"), "--out", str(tmp_path / "d"))
    assert code == 2 and "no such design spec" in err, err


def test_design_has_no_chunk_option(capsys, tmp_path):
    """The chunk size is the spec's (chunk = N): --chunk is not offered (its help promised an option
    every value of which was refused)."""
    code, _, err = run_cli(capsys, "design", str(write(tmp_path, TINY)), "--chunk", "5")
    one_line_error(code, err, "unrecognized arguments: --chunk 5", usage_ok=True)
    from simsuite.cli import _parser

    design = _parser()._subparsers._group_actions[0].choices["design"]
    assert "--chunk" not in design.format_help()


def test_examples_read_and_split_played_from_rescored():
    for name in ("three-deck-90", "two-deck-club-60", "four-deck-league"):
        spec = read_design(f"examples/designs/{name}.toml")
        assert spec.sets and len(spec.played) < len(spec.sets)
        for s in spec.sets:  # the played cell is the set without its clock keys
            assert s.played in spec.played
            assert s.variant == spec.played[s.played].variant.with_overrides(s.rescore) if s.rescore else True
    spec = read_design("examples/designs/two-deck-club-60.toml")
    assert sorted({s.params["step"] for s in spec.sets}) == [30, 40]  # the range { from = 30, to = 40, by = 10 }


# --- seeds -------------------------------------------------------------------------------------------------


def test_round_seeds_differ_and_round_zero_is_the_spec_seed():
    assert round_seed(7, 0) == 7
    assert len({round_seed(7, r) for r in range(5)}) == 5


# --- a tiny search end to end ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny(tiny_design) -> tuple[Path, dict]:
    return tiny_design


def test_every_figure_has_n_and_an_interval(tiny):
    _, res = tiny
    assert len(res["sets"]) == 2 and res["pairings"] == ["expert,basic", "basic,basic"]
    for s in res["sets"]:
        for pair, figs in s["figures"].items():
            for metric, f in figs.items():
                if pair == "basic,basic" and metric == "stronger_wins":
                    assert f is None  # undefined under equal teams
                    continue
                assert f["n"] >= 8 and f["low"] <= f["value"] <= f["high"] and f["se"] >= 0, (s["id"], pair, metric, f)


def test_rounds_play_more_only_for_undecided_cells(tiny):
    spec, res = tiny
    out = Path(res["out"])
    r0 = res["rounds"][0]
    assert r0["matches_per_cell"] == 8 and r0["cells"]["expert,basic"] == ["step=30"]
    assert (out / "runs" / "round0-expert-basic" / "manifest.json").is_file()
    for later in res["rounds"][1:]:
        assert later["matches_per_cell"] == 8  # 16 in all after round 1
    c = res["cost"]
    assert c["design_hands"] == sum(res["hands_by_cell"].values()) + c["confirmation_hands"] > 0
    assert c["ratio"] is not None and c["brute_force_hands"] > sum(res["hands_by_cell"].values())  # clock re-scored


def test_recommendation_or_binding_goal_and_variant_file(tiny):
    _, res = tiny
    out = Path(res["out"])
    if res["recommended"]:
        assert res["recommended"] in res["candidates"]
        v = load_variant(out / "recommended.toml")
        rec = next(s for s in res["sets"] if s["id"] == res["recommended"])
        for k, val in rec["params"].items():
            assert getattr(v, k) == val
        assert res["sentence"].startswith("Play ")
    else:
        assert res["binding"]["goal"] in res["goals"] and set(res["binding"]["goals"]) <= set(res["goals"])
        assert res["sentence"].startswith("No parameter set meets every goal")
    assert load_design(out)["sentence"] == res["sentence"]
    assert (out / "design.txt").read_text().startswith(res["sentence"])


def test_candidates_meet_every_goal_on_their_figures(tiny):
    _, res = tiny
    sets = {s["id"]: s for s in res["sets"]}
    for cid in res["candidates"]:
        for g, j in zip(res["goals"], sets[cid]["goals"]):
            metric, op, bound = g.split()
            f = sets[cid]["figures"][res["primary"][metric]][metric]
            assert (f["value"] <= float(bound)) if op == "<=" else (f["value"] >= float(bound))
    for s in res["sets"]:
        assert s["meets_all"] == (s["id"] in res["candidates"])


def test_a_rerun_rereads_and_an_interrupted_design_resumes(tiny, capsys, tmp_path):
    spec, res = tiny
    code, out, err = run_cli(capsys, "design", str(spec), "--out", res["out"], "--json")
    assert code == 0, err
    assert json.loads(out)["sets"] == res["sets"]
    # interrupted in round 1: its play and the result are gone; the rerun plays round 1 again alike
    copy = tmp_path / "copy"
    shutil.copytree(res["out"], copy)
    (copy / "design.json").unlink()
    shutil.rmtree(copy / "runs" / "round1-expert-basic")
    code, out, err = run_cli(capsys, "design", str(spec), "--out", str(copy), "--json")
    assert code == 0, err
    again = json.loads(out)
    assert again["sets"] == res["sets"] and again["cost"]["design_hands"] == res["cost"]["design_hands"]


def test_a_different_spec_in_the_same_folder_is_refused(tiny, capsys, tmp_path):
    _, res = tiny
    other = write(tmp_path, replace(TINY, "seed = 3", "seed = 4"))
    code, _, err = run_cli(capsys, "design", str(other), "--out", res["out"])
    assert code == 2 and "holds a different design" in err


def test_same_numbers_whatever_jobs(tiny, tmp_path):
    spec, res = tiny
    two = design(spec, tmp_path / "two", jobs=2, quiet=True)
    assert two["sets"] == res["sets"] and two["recommended"] == res["recommended"]
    # the analysis alone returns the data: the words (the sentence, design.txt) are report.design_text's
    assert "sentence" not in two and not (tmp_path / "two" / "design.txt").exists()
    assert load_design(tmp_path / "two")["sets"] == two["sets"]
    assert not any(isinstance(x, float) and math.isnan(x) for x in two["cost"].values())


@pytest.mark.slow
def test_design_on_a_dask_cluster_gives_the_same_numbers(tiny, tmp_path):
    spec, res = tiny
    with local_dask_cluster(1) as c:
        got = design(spec, tmp_path / "dask", backend="dask", scheduler=c.scheduler_address, quiet=True)
    assert got["sets"] == res["sets"]
    manifest = json.loads((tmp_path / "dask" / "runs" / "round0-expert-basic" / "manifest.json").read_text())
    assert manifest["sessions"][-1]["backend"] == "dask"


# --- error control, replay, confirmation, cost ----------------------------------------------------------------


def test_error_control_method_is_applied_and_reported(tiny):
    _, res = tiny
    ec = res["error_control"]
    assert ec["method"] == "bonferroni-alpha-spending" and ec["alpha"] == ALPHA
    assert len(ec["rounds"]) == len(res["rounds"]) >= 2
    for rd in ec["rounds"]:  # round r: ALPHA / rounds, split over the round's open judgements
        assert rd["alpha"] == pytest.approx(ALPHA / res["search"]["rounds"])
        assert rd["z"] == pytest.approx(NormalDist().inv_cdf(1 - rd["alpha"] / (2 * rd["judgements"])))
        assert rd["z"] > 1.96
    text = (Path(res["out"]) / "design.txt").read_text()
    assert "Error control: Bonferroni with alpha spending" in text and "round 0 " in text
    # a goal decided in a round keeps that decision, and was decided at that round's level
    for s in res["sets"]:
        for pair, js in s["by_pairing"].items():
            for j in js:
                if "decided_round" in j:
                    assert j["status"] in ("meets", "fails")


def _open_after(res: dict, r: int) -> dict[str, set[str]]:
    """Per pairing, the played cells of the sets still open after round ``r`` (no primary goal failed
    by then) that have a judgement under that pairing still open (not decided by round ``r``)."""
    out: dict[str, set[str]] = {}
    for s in res["sets"]:
        by_goal = {pair: {j["goal"]: j for j in js} for pair, js in s["by_pairing"].items()}
        primary = [by_goal[res["primary"][g.split()[0]]][g] for g in res["goals"]]
        if any(j["status"] == "fails" and j.get("decided_round", r + 1) <= r for j in primary):
            continue
        for pair, js in s["by_pairing"].items():
            if any(j.get("decided_round", r + 1) > r for j in js):
                out.setdefault(pair, set()).add(s["played"])
    return out


def test_every_judged_pairing_is_replayed_while_a_set_is_undecided(tiny):
    """Round r plays, under each pairing, the cells of the sets with a judgement still open under
    it: the equal pairing too (it was never replayed), and no pairing whose judgements are all
    decided (its new deals would decide nothing)."""
    _, res = tiny
    assert len(res["rounds"]) == 2  # the tiny design leaves something open after round 0
    for rd in res["rounds"][1:]:
        want = _open_after(res, rd["round"] - 1)
        assert {p: set(c) for p, c in rd["cells"].items()} == want, (rd["cells"], want)
        for pair in want:
            slug = pair.replace(",", "-")
            assert (Path(res["out"]) / "runs" / f"round{rd['round']}-{slug}" / "manifest.json").is_file()


def test_the_recommendation_is_confirmed_on_fresh_deals(tiny):
    _, res = tiny
    conf = res["confirmation"]
    assert conf["tried"], "no candidate was confirmed"
    first = conf["tried"][0]
    assert first["set"] == res["candidates"][0] and first["seed"] == confirm_seed(res["seed"], 0)
    assert first["seed"] not in {rd["seed"] for rd in res["rounds"]}
    assert first["matches"] == res["cost"]["brute_force_matches_per_cell"]
    manifest = json.loads((Path(res["out"]) / "runs" / "confirm0-expert-basic" / "manifest.json").read_text())
    assert manifest["seed"] == first["seed"]
    for g in first["goals"]:  # the figures of the fresh deals alone: their n is the confirmation's
        assert g["figure"]["n"] == first["matches_by_pairing"][g["pairing"]] and g["holds"] == g["meets"]
        if g["primary"]:
            assert g["figure"]["n"] == first["matches"]
    for pair, k in first["matches_by_pairing"].items():  # the primary at the boundary, the others as in the rounds
        got = sum(rd["matches_per_cell"] for rd in res["rounds"] if pair in rd["cells"])
        assert k == (first["matches"] if pair in res["primary"].values() else got), (pair, k, got)
    assert first["matches_by_pairing"]["basic,basic"] < first["matches"]  # its judgements were settled early
    assert res["recommended"] == conf["confirmed"]
    if res["recommended"]:
        assert first["confirmed"] or len(conf["tried"]) > 1
        assert "Confirmed on" in res["sentence"]
    text = (Path(res["out"]) / "design.txt").read_text()
    assert f"Confirmation of {first['set']} on fresh deals (seed {first['seed']}" in text


def test_cost_against_brute_force_is_printed(tiny):
    _, res = tiny
    c = res["cost"]
    assert c["confirmation_hands"] == sum(t["hands"] for t in res["confirmation"]["tried"]) > 0
    assert c["design_hands"] == sum(res["hands_by_cell"].values()) + c["confirmation_hands"]
    text = (Path(res["out"]) / "design.txt").read_text()
    assert f"Cost: {c['design_hands']:,} hands played" in text and f"about {c['brute_force_hands']:,} hands" in text


def test_the_command_prints_error_control_confirmation_and_cost(tiny, capsys):
    spec, res = tiny
    code, out, err = run_cli(capsys, "design", str(spec), "--out", res["out"])
    assert code == 0, err
    assert "Error control: Bonferroni with alpha spending: family-wise error rate <= 0.05" in out
    assert "Confirmation of " in out and "on fresh deals" in out and "still holds" in out
    assert "Cost: " in out and "a brute-force sweep simulating every set" in out
    code, out, err = run_cli(capsys, "design", str(spec), "--out", res["out"], "--json")
    got = json.loads(out)
    assert got["error_control"]["method"] == "bonferroni-alpha-spending"
    assert got["confirmation"]["tried"][0]["seed"] == confirm_seed(res["seed"], 0)
    assert got["cost"]["brute_force_hands"] > 0
