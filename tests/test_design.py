"""`simsuite design`: design specs, their errors, the seeds of rounds, confirmations and the independent
check, and a tiny search end to end (resume, --jobs, error control, replay, confirmation, cost against
the analyst's baseline, the recommended variant file). docs/design.md.
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

from simsuite.analysis.design import search as design_search
from simsuite.analysis.design.search import (
    ALPHA,
    ALPHA_CONFIRM,
    ALPHA_PER_TRY,
    ALPHA_SCREEN,
    CONFIRM_TRIES,
    baseline_n,
    check_seed,
    confirm_seed,
    design,
    round_seed,
    screening_seeds,
)
from simsuite.analysis.design.spec import METRIC_BY_KEY, SEARCH_MAXIMA, read_design
from simsuite.analysis.design.store import load_design, load_played
from simsuite.rules.variant import load_variant
from simsuite.sim.limits import MAX_SEED

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


@pytest.mark.parametrize("seed", [0, 1, 3, 7, 12_345, MAX_SEED])
def test_confirmation_and_check_seeds_are_disjoint_from_every_round(seed):
    """Independent by default: every confirmation's seed and the check's are none of the
    seeds any round can play (round 0 plays the spec's seed), nor each other; the check's is not
    simulate's default 1 either, so its printed command never replays the search's deals."""
    rounds = screening_seeds(seed)
    assert len(rounds) == SEARCH_MAXIMA["rounds"] and seed in rounds
    confirms = [confirm_seed(seed, i) for i in range(CONFIRM_TRIES)]
    assert len(set(confirms)) == CONFIRM_TRIES and not set(confirms) & rounds
    chk = check_seed(seed)
    assert chk not in rounds | set(confirms) | {1}
    assert 0 <= chk <= MAX_SEED


def test_a_derived_seed_that_meets_a_taken_one_moves_on(monkeypatch):
    """The guard behind the disjointness: were SeedSequence([seed, 2000]) to give a round's seed (or
    1), the check takes the next key's."""
    real = design_search._derived
    monkeypatch.setattr(design_search, "_derived", lambda s, k: 1 if k == design_search.CHECK_KEY else real(s, k))
    assert check_seed(5) == real(5, design_search.CHECK_KEY + 1)
    monkeypatch.setattr(design_search, "_derived", lambda s, k: 5 if k == design_search.CONFIRM_KEY else real(s, k))
    assert confirm_seed(5, 0) == real(5, design_search.CONFIRM_KEY + 1) != 5  # 5 is round 0's seed


def test_the_error_budget_adds_up():
    """The screening's and the confirmation's alphas add up to ALPHA; each candidate tried spends an
    equal share of the confirmation's."""
    assert ALPHA_SCREEN + ALPHA_CONFIRM == pytest.approx(ALPHA) and min(ALPHA_SCREEN, ALPHA_CONFIRM) > 0
    assert ALPHA_PER_TRY * CONFIRM_TRIES == pytest.approx(ALPHA_CONFIRM)


def test_the_baselines_n_matches_the_widest_decision():
    """baseline_n: a fixed-n sweep judges every judgement at once, at z_s; the design judged each at
    its n and z; the sweep needs n (z_s / z)^2 for each, the largest for all."""
    spec = read_design(Path(__file__).parent / "designs" / "tiny.toml")
    k = sum(len(design_search.judgements(spec, s)) for s in spec.sets)
    z_s = NormalDist().inv_cdf(1 - ALPHA_SCREEN / (2 * k))
    figs, z_at = {}, {}
    for s in spec.sets:
        figs[s.id] = {}
        for gi, pair in design_search.judgements(spec, s):
            pt = ",".join(pair)
            figs[s.id].setdefault(pt, {})[spec.goals[gi].metric] = {"value": 1.0, "n": 8, "se": 0.1}
            z_at[(s.id, gi, pair)] = 3.5
    gi, pair = design_search.judgements(spec, spec.sets[1])[0]
    figs[spec.sets[1].id][",".join(pair)][spec.goals[gi].metric]["n"] = 24  # the boundary: 24 deals at z 2.5
    z_at[(spec.sets[1].id, gi, pair)] = 2.5
    n, z = baseline_n(spec, figs, z_at)
    assert z == pytest.approx(z_s)
    assert n == math.ceil(max(8 * (z_s / 3.5) ** 2, 24 * (z_s / 2.5) ** 2))
    assert n > 24  # narrower than the design's last interval: the sweep's z is the larger


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
    assert c["ratio"] is not None and c["baseline_hands"] > 0


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
        assert s["estimates_meet_all"] == (s["id"] in res["candidates"])


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
    assert ec["alpha_screen"] + ec["alpha_confirm"] == pytest.approx(ALPHA)  # the confirmation is counted
    assert ec["alpha_per_try"] * ec["confirm_tries"] == pytest.approx(ec["alpha_confirm"])
    assert len(ec["rounds"]) == len(res["rounds"]) >= 2
    for rd in ec["rounds"]:  # round r: ALPHA_SCREEN / rounds, split over the round's open judgements
        assert rd["alpha"] == pytest.approx(ALPHA_SCREEN / res["search"]["rounds"])
        assert rd["z"] == pytest.approx(NormalDist().inv_cdf(1 - rd["alpha"] / (2 * rd["judgements"])))
        assert rd["z"] > 1.96
    text = (Path(res["out"]) / "design.txt").read_text()
    assert "Error control: family-wise error rate <= 0.05 over every decision, screening and confirmation" in text
    assert "the confirmation's 0.025 split over the at most 3 candidates tried" in text and "round 0 " in text
    # a goal decided in a round keeps that decision, and was decided at that round's level
    for s in res["sets"]:
        for pair, js in s["by_pairing"].items():
            for j in js:
                if "decided_round" in j:
                    assert j["status"] in ("meets", "fails")
                else:  # never "met" on an estimate: not decided, with the deals that would decide it
                    assert j["status"] in ("not decided", "no figure"), j
                    n = (s["figures"][pair].get(j["goal"].split()[0]) or {}).get("n", 0)
                    assert j["status"] == "no figure" or j["n_needed"] is None or j["n_needed"] > n


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
    assert first["matches"] == res["cost"]["boundary_matches_per_cell"]
    manifest = json.loads((Path(res["out"]) / "runs" / "confirm0-expert-basic" / "manifest.json").read_text())
    assert manifest["seed"] == first["seed"]
    z = NormalDist().inv_cdf(1 - ALPHA_PER_TRY)
    for t in conf["tried"]:  # each try: one-sided bounds at its share of the confirmation's alpha
        assert t["alpha"] == pytest.approx(ALPHA_PER_TRY) and t["z"] == pytest.approx(z)
        for g in t["goals"]:
            sign = 1 if ">=" in g["goal"] else -1
            f = g["figure"]
            bound = f["value"] - sign * z * f["se"]
            if METRIC_BY_KEY[g["goal"].split()[0]].share:
                bound = min(max(bound, 0.0), 1.0)
            if not (f["se"] == 0 and f["source"].startswith("simulated")):  # else the zero-count bound
                assert g["bound"] == pytest.approx(bound), g
            assert g["confirmed"] == (sign * (g["bound"] - float(g["goal"].split()[-1])) >= 0)
        assert t["confirmed"] == all(g["confirmed"] for g in t["goals"] if g["primary"])
    for g in first["goals"]:  # the figures of the fresh deals alone: their n is the confirmation's
        assert g["figure"]["n"] == first["matches_by_pairing"][g["pairing"]]
        if g["primary"]:
            assert g["figure"]["n"] == first["matches"]
    for pair, k in first["matches_by_pairing"].items():  # the primary at the boundary, the others as in the rounds
        got = sum(rd["matches_per_cell"] for rd in res["rounds"] if pair in rd["cells"])
        assert k == (first["matches"] if pair in res["primary"].values() else got), (pair, k, got)
    assert first["matches_by_pairing"]["basic,basic"] < first["matches"]  # its judgements were settled early
    assert res["recommended"] == conf["confirmed"]
    assert len(conf["tried"]) <= CONFIRM_TRIES
    assert [t["confirmed"] for t in conf["tried"]].count(True) == (1 if res["recommended"] else 0)
    if res["recommended"]:
        assert conf["tried"][-1]["set"] == res["recommended"] and conf["tried"][-1]["confirmed"]
        assert conf["confirmed_goals"] == res["goals"]
        assert "it is confirmed on" in res["sentence"] and "one-sided 99.17% bounds" in res["sentence"]
    text = (Path(res["out"]) / "design.txt").read_text()
    assert f"Confirmation of {first['set']} on fresh deals (seed {first['seed']}" in text


def test_cost_against_the_analysts_baseline(tiny):
    """The cost compares with a fixed-n sweep of the played cells alone (the clock re-scored), at the
    n whose screening intervals are as narrow as the design's decisions, recomputed here from the
    stored judgements (the z of the round that decided each, else of its last round) and the
    played hands per table."""
    spec_path, res = tiny
    spec = read_design(spec_path)
    c = res["cost"]
    assert c["confirmation_hands"] == sum(t["hands"] for t in res["confirmation"]["tried"]) > 0
    assert c["design_hands"] == c["rounds_hands"] + c["confirmation_hands"]
    assert c["rounds_hands"] == sum(res["hands_by_cell"].values())
    k = sum(len(s["by_pairing"][p]) for s in res["sets"] for p in s["by_pairing"])
    z_s = NormalDist().inv_cdf(1 - ALPHA_SCREEN / (2 * k))
    assert c["baseline_z"] == pytest.approx(z_s)
    need = 0.0
    for s in res["sets"]:
        for pair, js in s["by_pairing"].items():
            for j in js:
                z = res["rounds"][j["decided_round"]]["z"] if "decided_round" in j else j["n_needed_z"]
                need = max(need, s["figures"][pair][j["goal"].split()[0]]["n"] * (z_s / z) ** 2)
    assert c["baseline_matches_per_cell"] == math.ceil(need - 1e-9)
    played = load_played(Path(res["out"]), spec, len(res["rounds"]))
    assert len(played) == len(spec.played) * len(spec.pairings)  # the played cells only: no clock set
    hands = sum(
        c["baseline_matches_per_cell"] * (2 if p[0] != p[1] else 1) * float(m["hands"].mean())
        for (_, p), (_, m) in played.items()
    )
    assert c["baseline_hands"] == round(hands)
    assert c["ratio"] == round(hands / c["design_hands"], 2)
    assert c["ratio_screening"] == round(hands / c["rounds_hands"], 2)
    text = (Path(res["out"]) / "design.txt").read_text()
    assert f"Cost: {c['design_hands']:,} hands played" in text and f"about {c['baseline_hands']:,} hands" in text
    assert "brute" not in text


def test_the_design_names_an_independent_check(tiny, capsys, tmp_path):
    """Independent by default: the design names a seed disjoint from its rounds and
    confirmations and, with a recommendation, simulate commands on it; the command printed runs as
    printed and plays that seed."""
    _, res = tiny
    chk = res["check"]
    assert chk["seed"] == check_seed(res["seed"])
    assert chk["seed"] not in {rd["seed"] for rd in res["rounds"]} | {t["seed"] for t in res["confirmation"]["tried"]}
    text = (Path(res["out"]) / "design.txt").read_text()
    if not res["recommended"]:
        assert chk["commands"] == {} and "Independent check" not in text
        return
    assert set(chk["commands"]) == set(res["pairings"])
    t = res["confirmation"]["tried"][-1]
    for pair, cmd in chk["commands"].items():
        assert f"--seed {chk['seed']}" in cmd and f"--matches {t['matches_by_pairing'][pair]}" in cmd
        assert f"--policies {pair}" in cmd and ("--duplicate" in cmd) == (pair.split(",")[0] != pair.split(",")[1])
        assert cmd in text
    assert f"Independent check: seed {chk['seed']}" in text
    toml = (Path(res["out"]) / "recommended.toml").read_text()
    assert f"seed {chk['seed']}" in toml and all(cmd in toml for cmd in chk["commands"].values())
    pair = res["pairings"][1]  # the equal pairing: the quickest to play
    argv = chk["commands"][pair].split()[1:] + ["--out", str(tmp_path / "check"), "--quiet"]
    code, _, err = run_cli(capsys, *argv)
    assert code == 0, err
    manifest = json.loads((tmp_path / "check" / "manifest.json").read_text())
    assert manifest["seed"] == chk["seed"]


def test_recommended_toml_says_what_was_confirmed_and_at_what_level(tiny):
    _, res = tiny
    if not res["recommended"]:
        assert not (Path(res["out"]) / "recommended.toml").exists()
        return
    toml = (Path(res["out"]) / "recommended.toml").read_text()
    t = res["confirmation"]["tried"][-1]
    head = [line for line in toml.splitlines() if line.startswith("#")]
    assert any(f"at one-sided level {t['alpha']:.4g}" in line and f"seed {t['seed']}" in line for line in head)
    for g in res["confirmation"]["confirmed_goals"]:
        assert any(line.startswith(f"#   {g} under ") and ": confirmed (" in line for line in head), g
    load_variant(Path(res["out"]) / "recommended.toml")  # the comments leave it loadable


def test_the_command_prints_error_control_confirmation_and_cost(tiny, capsys):
    spec, res = tiny
    code, out, err = run_cli(capsys, "design", str(spec), "--out", res["out"])
    assert code == 0, err
    assert "Error control: family-wise error rate <= 0.05 over every decision" in out
    assert "Confirmation of " in out and "on fresh deals" in out and "one-sided bound" in out
    assert "Cost: " in out and "The analyst's baseline, a fixed-n sweep of the 1 played cells" in out
    code, out, err = run_cli(capsys, "design", str(spec), "--out", res["out"], "--json")
    got = json.loads(out)
    assert got["error_control"]["method"] == "bonferroni-alpha-spending"
    assert got["confirmation"]["tried"][0]["seed"] == confirm_seed(res["seed"], 0)
    assert got["cost"]["baseline_hands"] > 0 and got["check"]["seed"] == check_seed(res["seed"])
