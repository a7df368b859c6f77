"""The claims registry (notebooks/claims/registry.toml; simsuite/analysis/notebooks/claims.py) cannot be edited
quietly: every margin is hashed, a claim new on a seed its notebook ran on is refused, the registry is append
only against its git history, and ``load_claims`` and ``check-claims`` (``make notebooks``) refuse a claims
file that disagrees with it. notebooks/claims/README.md states the rules these tests check."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from simsuite.analysis.notebooks.claims import (
    REPLICATION_ID,
    HistoryUnavailable,
    append_only_problems,
    check_claims,
    claim_hash,
    claims_files,
    file_history,
    read_claims,
    read_registry,
    registry_problems,
    replication_hash,
    run_record_problems,
)
from simsuite.errors import SimsuiteError, toml_value

ROOT = Path(__file__).resolve().parents[1]
CLAIMS_DIR = ROOT / "notebooks" / "claims"
REGISTRY = "notebooks/claims/registry.toml"

ROBUST = {
    "id": "x",
    "family": "robustness",
    "test": "conclusion",
    "text": "more hands",
    "a": "c",
    "b": "d",
    "metric": "hands",
    "sign": 1,
    "margin": 0.05,
    "seed": 7,
}
MARGINS = {"policy_a_win": 0.05, "n_star": "25%"}


def _claims_text(claims, root=7, past=(), replication=None, replication_seed=None) -> str:
    lines = ['number = "99"', 'notebook = "99-x"', f"root_seed = {root}", f"past_root_seeds = {list(past)}"]
    if replication_seed is not None:
        lines.append(f"replication_seed = {replication_seed}")
    if replication:
        lines += ["", "[replication]"] + [f"{k} = {toml_value(v)}" for k, v in replication.items()]
    for c in claims:
        lines += ["", "[[claim]]"] + [f"{k} = {toml_value(v)}" for k, v in c.items()]
    return "\n".join(lines) + "\n"


def _file(d: Path, claims, **kw):
    d.mkdir(parents=True, exist_ok=True)
    (d / "99.toml").write_text(_claims_text(claims, **kw))
    return read_claims(d / "99.toml")


def _entry(cid, h, seed, **more) -> dict:
    return {"notebook": "99", "id": cid, "hash": h, "seed": seed, **more}


def _registry_text(entries) -> str:
    return "# a registry\n" + "".join(
        "\n[[entry]]\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in e.items()) for e in entries
    )


def _git(repo: Path, *args: str) -> str:
    cfg = ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false"]
    return subprocess.run(["git", "-C", str(repo), *cfg, *args], check=True, capture_output=True, text=True).stdout


def _needs_git():
    if shutil.which("git") is None:
        pytest.skip("git is not installed: the registry's history cannot be built")


def _repo(tmp_path: Path, claims, entries, **kw) -> Path:
    """A git repository with a claims file and its registry, committed once."""
    _needs_git()
    repo = tmp_path / "repo"
    d = repo / "notebooks" / "claims"
    _file(d, claims, **kw)
    (d / "registry.toml").write_text(_registry_text(entries))
    _git(repo.parent, "init", "-q", str(repo))
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "claims and registry")
    return repo


# --- the repository's own files ----------------------------------------------------------------------


def test_the_claims_files_and_the_registry_agree():
    files = claims_files(CLAIMS_DIR)
    assert [f.number for f in files] == ["01", "02", "03", "04", "05", "06"]
    assert registry_problems(files, read_registry(CLAIMS_DIR / "registry.toml")) == []
    assert len({f.root_seed for f in files}) == 6  # and notebooks/_common.py's SEEDS: tests/test_notebooks.py
    # every notebook's replication margins are registered, and every seed a notebook left has its run entry
    reg = read_registry(CLAIMS_DIR / "registry.toml")
    assert {e["notebook"] for e in reg if e.get("id") == REPLICATION_ID} == {f.number for f in files}
    ran = {(e["notebook"], e["ran"]) for e in reg if "ran" in e}
    assert all((f.number, s) in ran for f in files for s in f.past_root_seeds)


def test_claims_revised_on_an_unchanged_seed_now_await_a_new_root_seed():
    """Notebooks 01, 02 and 05 replaced failed claims by others after their runs and tested them again on the same
    seed: the notebooks moved to new root seeds, the registry keeps the void tests, and a void claim still in
    its file carries the new seed. A claim whose text differs from the one registered on the old seed is one of
    the void ones (the files have since replaced some of them by claims with new ids, one per skill gap)."""
    files = {f.number: f for f in claims_files(CLAIMS_DIR)}
    reg = [e for e in read_registry(CLAIMS_DIR / "registry.toml") if "ran" not in e]
    for nb, old, new in (("01", 101, 20101), ("02", 202, 20202), ("05", 505, 20505)):
        f = files[nb]
        assert f.root_seed == new and f.past_root_seeds == (old,)
        voids = {e["id"] for e in reg if e["notebook"] == nb and e.get("void")}
        assert voids and all(c["seed"] == new for c in f.claims if c["id"] in voids)
        revised = {
            e["id"]
            for e in reg
            if e["notebook"] == nb
            and e["seed"] == old
            and not e.get("void")
            and any(e["hash"] != claim_hash(c) for c in f.claims if c["id"] == e["id"])
        }
        assert revised <= voids, revised - voids


def test_a_claim_changed_on_the_seed_its_old_text_was_tested_on_fails_the_registry(tmp_path):
    old = {
        "id": "x",
        "family": "conclusion",
        "test": "near",
        "text": "no edge",
        "a": "c",
        "metric": "first_win",
        "ref": 0.5,
        "margin": 0.05,
        "seed": 7,
    }
    new = {**old, "test": "beyond", "text": "an edge", "sign": -1}
    new.pop("margin")
    reg = [_entry("x", claim_hash(old), 7)]
    assert registry_problems([_file(tmp_path, [old])], reg) == []
    # what notebooks 01, 02 and 05 did: the text changed, the seed stayed, the registry got the new pair on it
    reg_same = reg + [_entry("x", claim_hash(new), 7)]
    problems = registry_problems([_file(tmp_path, [new])], reg_same)
    assert any("different texts tested on the same root seed 7" in p for p in problems)
    assert any("its text changed but its seed 7" in p for p in problems)
    # ... or the new text, unregistered
    assert any("not in the registry" in p for p in registry_problems([_file(tmp_path, [new])], reg))
    # the remedy: a new root seed for the notebook (the run on the old one registered) and the claim, registered
    moved = {**new, "seed": 8}
    reg_ok = reg + [{"notebook": "99", "ran": 7}, _entry("x", claim_hash(moved), 8)]
    assert registry_problems([_file(tmp_path, [moved], root=8, past=[7])], reg_ok) == []
    # a claim left on a seed the notebook no longer runs on, and not tested there, fails too
    assert any(
        "neither the root seed" in p for p in registry_problems([_file(tmp_path, [moved], root=9, past=[7])], reg_ok)
    )


def test_every_registry_line_that_landed_is_still_there():
    """Every version of notebooks/claims/registry.toml committed in the history of HEAD (on main: every one that
    landed there) is the start of the file now, line for line (blank and comment lines aside)."""
    try:
        versions = file_history(ROOT, REGISTRY)
    except HistoryUnavailable as e:
        pytest.skip(f"the registry's git history cannot be read here: {e}")
    assert versions
    assert append_only_problems(versions, (ROOT / REGISTRY).read_text(encoding="utf-8")) == []


def test_check_claims_passes_on_the_repository(capsys):
    sys.path.insert(0, str(ROOT / "notebooks"))
    import _common as C

    assert C.main(["check-claims"]) == 0
    assert "all registered, none changed since a run" in capsys.readouterr().out


# --- the hash covers every margin --------------------------------------------------------------------


def test_the_hash_covers_what_is_claimed_not_when():
    c = {
        "id": "x",
        "family": "conclusion",
        "test": "differ",
        "text": "t",
        "a": "c",
        "b": "d",
        "metric": "m",
        "sign": 1,
        "seed": 1,
    }
    assert claim_hash(c) == claim_hash({**c, "seed": 2}) == claim_hash({**c, "id": "y"})
    for k, v in (("sign", -1), ("text", "u"), ("metric", "n"), ("b", "e")):
        assert claim_hash({**c, k: v}) != claim_hash(c)
    assert claim_hash({**c, "margin": 0.05}) != claim_hash(c)
    assert claim_hash(ROBUST) != claim_hash({**ROBUST, "margin": 0.1})  # a robustness margin
    assert replication_hash(MARGINS) != replication_hash({**MARGINS, "n_star": "20%"})
    assert replication_hash(MARGINS) == replication_hash(dict(reversed(MARGINS.items())))


def _spelled_out(body) -> str:
    """The hash as notebooks/claims/README.md defines it (a registry's hashes are data: the definition stays)."""
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()[:12]


def test_a_replication_margin_changed_on_its_seed_fails_the_registry(tmp_path):
    """Guards against: replication margins were not hashed, so changing one after a run gave no problem."""
    f = _file(tmp_path / "a", [ROBUST], replication=MARGINS)
    g = _file(tmp_path / "b", [ROBUST], replication={**MARGINS, "policy_a_win": 0.1})
    reg = [_entry("x", claim_hash(ROBUST), 7), _entry(REPLICATION_ID, _spelled_out({"replication": MARGINS}), 7)]
    [p] = registry_problems([g], reg)
    assert p.startswith("notebook 99, its replication margins: (hash ") and "not in the registry" in p
    [p] = registry_problems([g], reg, {"99": [f]})  # with the earlier file: what changed
    assert "(changed: policy_a_win 0.05 -> 0.1)" in p
    assert registry_problems([f], reg) == []
    assert f.registrations()[-1] == (REPLICATION_ID, replication_hash(MARGINS), 7)
    assert claim_hash(ROBUST) == _spelled_out({k: v for k, v in ROBUST.items() if k not in ("id", "seed")})
    # ... registered on the same seed as well: two texts on one seed
    reg2 = reg + [_entry(REPLICATION_ID, replication_hash(g.replication), 7)]
    assert any("2 different texts tested on the same root seed 7" in p for p in registry_problems([g], reg2))
    # unregistered margins are named with the entry to append; margins on a new root seed pass
    assert "its replication margins: (hash" in registry_problems([f], reg[:1])[0]
    h = _file(tmp_path / "c", [ROBUST], root=8, past=[7], replication=g.replication, replication_seed=8)
    reg3 = reg + [{"notebook": "99", "ran": 7}, _entry(REPLICATION_ID, replication_hash(g.replication), 8)]
    assert registry_problems([h], reg3) == []


def test_a_robustness_margin_changed_is_named_with_what_differs(tmp_path):
    f = _file(tmp_path / "a", [ROBUST])
    g = _file(tmp_path / "b", [{**ROBUST, "margin": 0.1}])
    [p] = registry_problems([g], [_entry("x", claim_hash(ROBUST), 7)], {"99": [f]})
    assert p.startswith("notebook 99, claim x: (hash ") and "(changed: margin 0.05 -> 0.1)" in p


# --- a new claim on a seed the notebook ran on ----------------------------------------------------------


def test_a_new_claim_on_a_seed_the_notebook_ran_on_is_refused(tmp_path):
    """Guards against: a claim id added on a seed the notebook had run on, and registered there, passed."""
    y = {**ROBUST, "id": "y", "text": "fewer hands", "sign": -1}
    reg = [_entry("x", claim_hash(ROBUST), 7), {"notebook": "99", "ran": 7}]
    # on the root seed it ran on: not registered, then registered after the run entry
    f = _file(tmp_path / "a", [ROBUST, y])
    assert registry_problems([f], reg) == [
        "notebook 99, claim y: new on seed 7, which the notebook already ran on (registry entry 2); "
        "a new claim needs a new root seed"
    ]
    [p] = registry_problems([f], [*reg, _entry("y", claim_hash(y), 7)])
    assert p == (
        "notebook 99, claim y: registered on seed 7 (registry entry 3) after the notebook's run on that seed "
        "(entry 2), so not written before it; it needs a new root seed"
    )
    # on a past root seed (the notebook moved on to 8)
    g = _file(tmp_path / "b", [ROBUST, y], root=8, past=[7])
    assert any(
        "claim y: registered on seed 7" in p for p in registry_problems([g], [*reg, _entry("y", claim_hash(y), 7)])
    )
    # a past root seed with no run entry is itself a problem: the notebook ran there
    assert registry_problems([g], [reg[0], _entry("y", claim_hash(y), 7)]) == [
        'notebook 99: past root seed 7 has no run entry in the registry (append [[entry]] notebook = "99", ran = 7)'
    ]
    # the remedy: the new claim on a new root seed
    ok = _file(tmp_path / "c", [ROBUST, {**y, "seed": 8}], root=8, past=[7])
    assert registry_problems([ok], [*reg, _entry("y", claim_hash(y), 8)]) == []
    # a claim tested in the run and dropped since changes the Holm family
    assert registry_problems([_file(tmp_path / "d", [y])], [_entry("y", claim_hash(y), 7), *reg]) == [
        "notebook 99, claim x: tested in the run on seed 7 (registry entry 2) and gone from the claims file "
        "since (it changes the Holm family); it needs a new root seed"
    ]
    # a claim withdrawn before the run (a void entry of it on that seed above the run entry) was not in its family
    withdrawn = [_entry("y", claim_hash(y), 7), reg[0], _entry("x", claim_hash(ROBUST), 7, void=True), reg[1]]
    assert registry_problems([_file(tmp_path / "e", [y])], withdrawn) == []
    # ... but a void entry written after the run withdraws nothing
    late = [_entry("y", claim_hash(y), 7), *reg, _entry("x", claim_hash(ROBUST), 7, void=True)]
    assert any(
        "claim x: tested in the run on seed 7" in p for p in registry_problems([_file(tmp_path / "f", [y])], late)
    )


def test_the_record_of_the_last_full_run_refuses_a_claim_new_or_changed_since(tmp_path):
    f = _file(tmp_path / "a", [ROBUST], replication=MARGINS)
    results = tmp_path / "results"
    meta = json.loads(f.record(results).read_text())
    assert meta["replication"] == {"hash": replication_hash(MARGINS), "first_tested_on_seed": 7}
    assert run_record_problems(f, results) == []
    y = {**ROBUST, "id": "y", "text": "fewer hands", "sign": -1}
    g = _file(tmp_path / "b", [{**ROBUST, "margin": 0.1}, y], replication=MARGINS)
    problems = run_record_problems(g, results)
    assert [p.split(" since the full run")[0] for p in problems] == [
        f"notebook 99, claim x: changed (hash {claim_hash(ROBUST)} -> {claim_hash(g.claims[0])})",
        "notebook 99, claim y: new",
    ]
    assert all(p.endswith("a claim changed after a run needs a new root seed") for p in problems)
    assert run_record_problems(_file(tmp_path / "c", [ROBUST], root=8, past=[7]), results) == []  # a new seed
    assert run_record_problems(f, tmp_path / "quick") == [] and f.record(
        tmp_path / "quick", quick=True
    )  # a quick run records apart
    assert run_record_problems(g, tmp_path / "quick") == []


# --- the registry is append only, against its git history ----------------------------------------------


def test_a_registry_line_edited_in_a_second_commit_is_found(tmp_path):
    """Guards against: a robustness margin changed and its hash overwritten in place in registry.toml gave zero
    problems. The files agree with the registry as it now stands; its history does not."""
    repo = _repo(tmp_path, [ROBUST], [_entry("x", claim_hash(ROBUST), 7)])
    d = repo / "notebooks" / "claims"
    first = _git(repo, "rev-parse", "HEAD").strip()
    assert check_claims(d, repo) == ([], [])
    new = {**ROBUST, "margin": 0.1}
    (d / "99.toml").write_text(_claims_text([new]))
    reg = (d / "registry.toml").read_text()
    (d / "registry.toml").write_text(reg.replace(claim_hash(ROBUST), claim_hash(new)))
    _git(repo, "commit", "-q", "-am", "margin and hash, in place")
    assert registry_problems(claims_files(d), read_registry(d / "registry.toml")) == []  # what it gave
    problems, notes = check_claims(d, repo)
    assert notes == [] and problems == [
        f"registry.toml: line 6 of commit {first[:10]}, 'hash = \"{claim_hash(ROBUST)}\"', is changed or gone "
        f"(line 6 is now 'hash = \"{claim_hash(new)}\"'); the registry is append only"
    ]
    assert len(file_history(repo, REGISTRY)) == 2


def test_appending_passes_and_editing_inserting_or_deleting_does_not(tmp_path):
    old = _registry_text([_entry("x", "aaa", 7), _entry("y", "bbb", 7)])
    versions = [("c1", old)]
    assert append_only_problems(versions, old + _registry_text([{"notebook": "99", "ran": 7}])) == []
    # comments and blank lines are not registry data (the header's comment has been edited once on main)
    assert append_only_problems(versions, old.replace("# a registry", "# a registry, said again") + "\n\n") == []
    inserted = _registry_text([_entry("x", "aaa", 7), _entry("w", "ccc", 7), _entry("y", "bbb", 7)])
    for now in (old.replace('"bbb"', '"ccc"'), inserted, _registry_text([_entry("x", "aaa", 7)])):
        [p] = append_only_problems(versions, now)
        assert p.startswith("registry.toml: line ") and "of commit c1" in p and "is changed or gone" in p
    assert "the file ends before it" in append_only_problems(versions, _registry_text([_entry("x", "aaa", 7)]))[0]


def test_the_history_is_unavailable_without_git_a_repository_or_a_full_clone(tmp_path, monkeypatch):
    repo = _repo(tmp_path, [ROBUST], [_entry("x", claim_hash(ROBUST), 7)])
    shallow = tmp_path / "shallow"
    _git(tmp_path, "clone", "-q", "--depth", "1", repo.resolve().as_uri(), str(shallow))
    with pytest.raises(HistoryUnavailable, match="a shallow clone"):
        file_history(shallow, REGISTRY)
    exported = tmp_path / "exported"
    shutil.copytree(repo / "notebooks", exported / "notebooks")
    with pytest.raises(HistoryUnavailable, match="is not the top folder of a git repository"):
        file_history(exported, REGISTRY)
    with pytest.raises(HistoryUnavailable, match="is not the top folder"):
        file_history(repo / "notebooks", REGISTRY)
    with pytest.raises(HistoryUnavailable, match="no commit in the history of HEAD holds"):
        file_history(repo, "notebooks/claims/other.toml")
    problems, notes = check_claims(exported / "notebooks" / "claims", exported)
    assert problems == [] and notes == [
        f"the registry's git history was not checked: {exported} is not the top folder of a git repository"
    ]
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(HistoryUnavailable, match="git is not installed"):
        file_history(repo, REGISTRY)


# --- load_claims and check-claims refuse ------------------------------------------------------------


@pytest.fixture
def common(tmp_path, monkeypatch):
    """notebooks/_common.py with its claims folder, results and root in ``tmp_path`` (no git there)."""
    sys.path.insert(0, str(ROOT / "notebooks"))
    import _common as C

    d = tmp_path / "notebooks" / "claims"
    monkeypatch.setattr(C, "CLAIMS_DIR", d)
    monkeypatch.setattr(C, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(C, "ROOT", tmp_path)
    monkeypatch.setattr(C, "QUICK", False)
    return C, d


def test_load_claims_refuses_a_file_that_disagrees_with_the_registry(common, capsys):
    """Guards against: load_claims never checked the registry."""
    C, d = common
    _file(d, [ROBUST])
    (d / "registry.toml").write_text(_registry_text([_entry("x", claim_hash(ROBUST), 7)]))
    assert C.load_claims("99", show=False).claims[0]["margin"] == 0.05  # and its run recorded
    (d / "99.toml").write_text(_claims_text([{**ROBUST, "margin": 0.1}]))
    with pytest.raises(SimsuiteError) as e:
        C.load_claims("99", show=False)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith("notebooks/claims/99.toml disagrees with the registry or its last run: ")
    assert "notebook 99, claim x: (hash " in msg and "(changed: margin 0.05 -> 0.1)" in msg
    assert f"claim x: changed (hash {claim_hash(ROBUST)} -> " in msg
    # quick mode (tiny samples, nothing tested) says so and goes on
    C.QUICK = True
    assert C.load_claims("99", show=False).claims[0]["margin"] == 0.1
    assert "a full run would refuse it: notebooks/claims/99.toml disagrees" in capsys.readouterr().out


def test_load_claims_refuses_a_claim_added_after_the_full_run(common):
    C, d = common
    _file(d, [ROBUST])
    (d / "registry.toml").write_text(_registry_text([_entry("x", claim_hash(ROBUST), 7)]))
    C.load_claims("99", show=False)
    y = {**ROBUST, "id": "y", "text": "fewer hands", "sign": -1}
    (d / "99.toml").write_text(_claims_text([ROBUST, y]))
    (d / "registry.toml").write_text(
        _registry_text([_entry("x", claim_hash(ROBUST), 7), _entry("y", claim_hash(y), 7)])
    )
    with pytest.raises(SimsuiteError, match=r"claim y: new since the full run on root seed 7 \(") as e:
        C.load_claims("99", show=False)
    assert "\n" not in str(e.value)


def test_check_claims_reports_a_registry_edited_in_place(tmp_path):
    """``make notebooks`` runs ``notebooks/_common.py check-claims`` first: it fails, naming the line."""
    repo = _repo(tmp_path, [ROBUST], [_entry("x", claim_hash(ROBUST), 7)])
    d = repo / "notebooks" / "claims"
    new = {**ROBUST, "margin": 0.1}
    (d / "99.toml").write_text(_claims_text([new]))
    (d / "registry.toml").write_text((d / "registry.toml").read_text().replace(claim_hash(ROBUST), claim_hash(new)))
    env = {
        **os.environ,
        "SIMSUITE_ROOT": str(repo),
        "SIMSUITE_RESULTS": str(tmp_path / "results"),
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    r = subprocess.run(
        [sys.executable, str(ROOT / "notebooks" / "_common.py"), "check-claims"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 1, r.stdout + r.stderr
    assert "disagree (notebooks/claims/README.md)" in r.stderr
    assert (
        "registry.toml: line 6 of commit " in r.stderr and f"'hash = \"{claim_hash(ROBUST)}\"', is changed" in r.stderr
    )


def test_check_claims_notes_a_full_run_without_its_run_entry(tmp_path):
    d = tmp_path / "claims"
    f = _file(d, [ROBUST])
    (d / "registry.toml").write_text(_registry_text([_entry("x", claim_hash(ROBUST), 7)]))
    f.record(tmp_path / "results")
    assert check_claims(d, results=tmp_path / "results") == (
        [],
        [
            f"notebook 99 has a full run on root seed 7 in {tmp_path / 'results'}: append [[entry]] "
            'notebook = "99", ran = 7 to the registry'
        ],
    )


# --- bad input: one clear line ---------------------------------------------------------------------------


def test_a_malformed_registry_entry_or_a_reserved_id_is_named(tmp_path):
    p = tmp_path / "registry.toml"
    p.write_text(_registry_text([{"notebook": "99", "id": "x", "seed": "7"}, {"notebook": "99", "ran": 7, "id": "x"}]))
    with pytest.raises(SimsuiteError) as e:
        read_registry(p)
    msg = str(e.value)
    assert "\n" not in msg
    for part in (
        "registry.toml: entry 1 (x): seed '7'; a whole number",
        "entry 1 (x): 'hash' is missing",
        "entry 2 (a run): unknown field(s) ['id']; allowed: ['note', 'notebook', 'ran']",
    ):
        assert part in msg, part
    with pytest.raises(SimsuiteError, match="'replication' names the replication margins in the registry"):
        _file(tmp_path / "a", [{**ROBUST, "id": REPLICATION_ID}])
    with pytest.raises(SimsuiteError, match="replication_seed 'x'; a whole number"):
        (tmp_path / "b").mkdir()
        (tmp_path / "b" / "99.toml").write_text(
            _claims_text([ROBUST]).replace("root_seed = 7", 'root_seed = 7\nreplication_seed = "x"')
        )
        read_claims(tmp_path / "b" / "99.toml")
    assert tomllib.loads(_registry_text([_entry("x", "a", 7)]))["entry"] == [_entry("x", "a", 7)]
