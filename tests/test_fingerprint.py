"""Notebook fingerprints find stale outputs: the fingerprint follows the engine code, the model, the claims file
and the root seed and nothing else; it is read back from a saved notebook; ``staleness`` and the ``stale``
command say in words what changed; a file that is not a notebook is refused in one line.

Every test builds a small fake checkout in ``tmp_path`` (``fake_root``); none touches the real one.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from simsuite.analysis.notebooks import fingerprint as F
from simsuite.errors import SimsuiteError

ROOT = Path(__file__).resolve().parents[1]

CLAIMS = """number = "01"
notebook = "01-fake"
root_seed = 20101
"""

# the fake checkout: the play-relevant folders, and files beside them that must not count
FILES = {
    "simsuite/engine/core.py": "x = 1\n",
    "simsuite/engine/policies/model.py": "SHIPPED = 'learned.npz'\n",
    "simsuite/rules/cards.py": "RANKS = 13\n",
    "simsuite/sim/run.py": "def run(): ...\n",
    "simsuite/compete/duel.py": "def duel(): ...\n",
    "simsuite/analysis/metrics.py": "def summarise(): ...\n",
    "simsuite/report/plots.py": "def band(): ...\n",
    "simsuite/report/html.py": "def page(): ...\n",
    "variants/school-2016.toml": 'id = "school-2016"\n',
    "examples/sweeps/decks.toml": "matches = 10\n",
    "docs/findings.md": "# Findings\n",
    "README.md": "# simsuite\n",
    "notebooks/claims/01.toml": CLAIMS,
    "notebooks/claims/README.md": "# Claims\n",
}
MODEL = b"\x93NUMPY model weights \x00\x01"


def notebook_json(outputs: list[dict] | None = None) -> dict:
    """A format-4 notebook written by hand: a markdown cell and one code cell with ``outputs``."""
    return {
        "cells": [
            {"cell_type": "markdown", "id": "title", "metadata": {}, "source": ["# Fake\n"]},
            {
                "cell_type": "code",
                "id": "fingerprint",
                "execution_count": 1,
                "metadata": {},
                "outputs": outputs or [],
                "source": ['C.fingerprint_cell("01")'],
            },
        ],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def fingerprint_output(fp) -> dict:
    """The display_data output ``show_fingerprint`` makes, as the saved notebook holds it (``fp`` as it is)."""
    line = F.fingerprint_markdown(fp) if isinstance(fp, dict) and "seed" in fp else "?"
    return {"output_type": "display_data", "metadata": {}, "data": {F.MIME: fp, "text/markdown": line}}


def write_notebook(path: Path, outputs: list[dict] | None = None) -> Path:
    path.write_text(json.dumps(notebook_json(outputs), indent=1), encoding="utf-8")
    return path


@pytest.fixture
def root(tmp_path) -> Path:
    r = tmp_path / "checkout"
    for rel, text in FILES.items():
        (r / rel).parent.mkdir(parents=True, exist_ok=True)
        (r / rel).write_text(text, encoding="utf-8")
    (r / F.MODEL_FILE).parent.mkdir(parents=True, exist_ok=True)
    (r / F.MODEL_FILE).write_bytes(MODEL)
    return r


def saved_notebook(root: Path, quick: bool = False, name: str = "01-fake.ipynb") -> Path:
    """Notebook 01 of ``root`` with the fingerprint of the checkout as it is now."""
    return write_notebook(root / "notebooks" / name, [fingerprint_output(F.fingerprint("01", root, quick))])


# --- what the fingerprint follows ------------------------------------------------------------------


def test_the_fingerprint_names_what_made_the_outputs(root):
    fp = F.fingerprint("01", root, quick=True)
    assert set(fp) == {"notebook", "code", "code_parts", "model", "claims", "seed", "quick"}
    assert fp["notebook"] == "01" and fp["seed"] == 20101 and fp["quick"] is True
    assert fp["model"] == hashlib.sha256(MODEL).hexdigest()
    assert fp["claims"] == hashlib.sha256(CLAIMS.encode()).hexdigest()
    assert set(fp["code_parts"]) == {p.key for p in F.CODE_PARTS}
    assert all(len(fp[k]) == 64 for k in ("code", "model", "claims"))
    assert F.fingerprint("01", root)["quick"] is False
    files = F.code_files(root)
    assert files["engine"] == ["simsuite/engine/core.py", "simsuite/engine/policies/model.py"]
    assert files["plots"] == ["simsuite/report/plots.py"] and files["variants"] == ["variants/school-2016.toml"]


def _edit_engine(r: Path) -> None:
    (r / "simsuite/engine/core.py").write_text("x = 2\n")


def _add_engine_file(r: Path) -> None:
    (r / "simsuite/engine/new.py").write_text("")


def _rename_engine_file(r: Path) -> None:
    (r / "simsuite/engine/core.py").rename(r / "simsuite/engine/core2.py")


def _crlf(r: Path) -> None:  # bytes as they are: line endings count
    (r / "simsuite/engine/core.py").write_bytes(b"x = 1\r\n")


def _model(r: Path) -> None:
    (r / F.MODEL_FILE).write_bytes(MODEL + b"\x02")


def _claims_comment(r: Path) -> None:
    (r / "notebooks/claims/01.toml").write_text("# a note\n" + CLAIMS)


def _seed(r: Path) -> None:
    (r / "notebooks/claims/01.toml").write_text(CLAIMS.replace("20101", "30101"))


@pytest.mark.parametrize(
    "change, changed",
    [
        (_edit_engine, {"code", "engine"}),
        (_add_engine_file, {"code", "engine"}),
        (_rename_engine_file, {"code", "engine"}),
        (_crlf, {"code", "engine"}),
        (lambda r: (r / "simsuite/rules/cards.py").write_text("RANKS = 14\n"), {"code", "rules"}),
        (lambda r: (r / "simsuite/sim/run.py").write_text(""), {"code", "sim"}),
        (lambda r: (r / "simsuite/compete/duel.py").write_text(""), {"code", "compete"}),
        (lambda r: (r / "simsuite/analysis/metrics.py").write_text(""), {"code", "analysis"}),
        (lambda r: (r / "simsuite/report/plots.py").write_text(""), {"code", "plots"}),
        (lambda r: (r / "variants/school-2016.toml").write_text('id = "x"\n'), {"code", "variants"}),
        (lambda r: (r / "examples/sweeps/decks.toml").write_text("matches = 11\n"), {"code", "sweeps"}),
        (_model, {"model"}),
        (_claims_comment, {"claims"}),
        (_seed, {"claims", "seed"}),
    ],
    ids=lambda x: getattr(x, "__name__", None) if callable(x) else None,
)
def test_the_fingerprint_changes_with_what_makes_the_outputs(root, change, changed):
    before = F.fingerprint("01", root)
    change(root)
    after = F.fingerprint("01", root)
    differs = {k for k in ("code", "model", "claims", "seed") if before[k] != after[k]}
    differs |= {k for k in before["code_parts"] if before["code_parts"][k] != after["code_parts"][k]}
    assert differs == changed


@pytest.mark.parametrize(
    "rel, content",
    [
        ("docs/findings.md", b"# Findings, changed\n"),
        ("README.md", b"changed\n"),
        ("notebooks/01-fake.ipynb", b"{}"),
        ("notebooks/claims/README.md", b"changed\n"),
        ("notebooks/_common.py", b"QUICK = True\n"),
        ("simsuite/report/html.py", b"changed\n"),
        ("simsuite/engine/__pycache__/core.cpython-311.pyc", b"\x00bytecode"),
        ("simsuite/engine/__pycache__/core.run-12.py311.nbi", b"\x00index"),
        ("simsuite/engine/__pycache__/core.run-12.py311.1.nbc", b"\x00code"),
        ("simsuite/engine/core.run-12.py311.nbi", b"\x00index beside the source"),
        ("simsuite/analysis/.core.py.swp", b"editor"),
        ("simsuite/sim/run.py~", b"backup"),
        ("results/notebooks/01-fake/rows.parquet", b"rows"),
    ],
)
def test_the_fingerprint_ignores_what_does_not_make_the_outputs(root, rel, content):
    before = F.fingerprint("01", root)
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_bytes(content)
    assert F.fingerprint("01", root) == before


def test_a_missing_compete_folder_hashes_nothing_and_is_no_error(root):
    for p in (root / "simsuite/compete").iterdir():
        p.unlink()
    (root / "simsuite/compete").rmdir()
    fp = F.fingerprint("01", root)
    assert fp["code_parts"]["compete"] == hashlib.sha256().hexdigest()


def test_a_bad_number_or_a_missing_claims_file_or_model_is_named(root):
    with pytest.raises(SimsuiteError, match="two digits"):
        F.fingerprint("1", root)
    with pytest.raises(SimsuiteError, match=r"02\.toml: no such claims file"):
        F.fingerprint("02", root)
    (root / F.MODEL_FILE).unlink()
    with pytest.raises(SimsuiteError, match=r"learned\.npz: no such model file"):
        F.fingerprint("01", root)


# --- read back from a saved notebook ------------------------------------------------------------------


def test_the_saved_fingerprint_is_read_back_exactly(root):
    fp = F.fingerprint("01", root)
    path = saved_notebook(root)
    assert F.saved_fingerprint(path) == fp
    nbformat = pytest.importorskip("nbformat")
    nbformat.validate(nbformat.read(path, as_version=4))  # a valid notebook, as written by hand
    assert F.staleness(path, root) == []


def test_the_last_fingerprint_counts_and_one_saved_as_text_is_read(root):
    fp = F.fingerprint("01", root)
    old = {**fp, "seed": 1}
    path = write_notebook(root / "notebooks/01-fake.ipynb", [fingerprint_output(old), fingerprint_output(fp)])
    assert F.saved_fingerprint(path) == fp
    text = {"output_type": "display_data", "metadata": {}, "data": {F.MIME: json.dumps(fp)}}
    assert F.saved_fingerprint(write_notebook(path, [text])) == fp


def test_the_markdown_line_names_each_hash_and_the_seed(root):
    fp = F.fingerprint("01", root)
    line = F.fingerprint_markdown(fp)
    assert line == (
        f"Made by: code {fp['code'][:12]}…, model {fp['model'][:12]}…, claims {fp['claims'][:12]}…, root seed 20101"
    )
    assert "\n" not in line and "quick mode" in F.fingerprint_markdown({**fp, "quick": True})


def test_show_fingerprint_displays_the_dict_and_its_line(root, monkeypatch):
    import IPython.display

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda *a, **k: shown.append((a, k)))
    F.show_fingerprint("01", root, quick=False)
    [((bundle,), kw)] = shown
    assert kw == {"raw": True}
    assert bundle[F.MIME] == F.fingerprint("01", root)
    assert bundle["text/markdown"] == F.fingerprint_markdown(bundle[F.MIME])
    assert json.loads(json.dumps(bundle[F.MIME])) == bundle[F.MIME]  # plain JSON, as the notebook saves it


def test_nbconvert_in_place_keeps_the_fingerprint_as_make_notebooks_runs_it(root, tmp_path):
    """The output survives a real run: a notebook executed with ``jupyter nbconvert --execute --inplace`` (as
    ``make notebooks`` runs them, its kernel connection encrypted) saves the fingerprint, and it reads back as
    current; the run prints no warning."""
    pytest.importorskip("nbconvert")
    nbformat = pytest.importorskip("nbformat")
    code = "from simsuite.analysis.notebooks.fingerprint import show_fingerprint\n"
    code += f"show_fingerprint('01', {str(root)!r}, False)"
    path = root / "notebooks" / "01-fake.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)]), path)
    done = subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute", "--inplace"]
        + ["--ExecutePreprocessor.kernel_name=python3", "--KernelManager.transport_encryption=auto", path.name],
        cwd=path.parent,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr, done.stderr  # the Makefile's flags: no library warning on a normal run
    assert F.saved_fingerprint(path) == F.fingerprint("01", root)
    assert F.staleness(path, root) == []
    [output] = nbformat.read(path, as_version=4).cells[0].outputs
    assert output["data"]["text/markdown"] == F.fingerprint_markdown(F.fingerprint("01", root))


# --- staleness in words --------------------------------------------------------------------------------


def test_a_notebook_without_a_fingerprint_was_never_fingerprinted(root):
    path = write_notebook(root / "notebooks/01-fake.ipynb")
    assert F.saved_fingerprint(path) is None
    assert F.staleness(path, root) == ["never run with a fingerprint"]
    assert F.stale_message(path, F.staleness(path, root), root) == (
        "notebooks/01-fake.ipynb is stale (never run with a fingerprint): re-run it with make notebooks"
    )


def test_quick_mode_outputs_are_stale(root):
    path = saved_notebook(root, quick=True)
    assert F.staleness(path, root) == ["its outputs were made in quick mode (tiny samples)"]
    assert "quick mode" in F.stale_message(path, F.staleness(path, root), root)


@pytest.mark.parametrize(
    "change, words",
    [
        (_edit_engine, ["the engine code changed"]),
        (_model, ["the model changed"]),
        (_claims_comment, ["the claims file changed"]),
        (_seed, ["the claims file changed", "the root seed changed"]),
        (lambda r: (r / "simsuite/report/plots.py").write_text(""), ["the plotting code changed"]),
        (lambda r: (r / "variants/school-2016.toml").write_text(""), ["the variant files changed"]),
    ],
)
def test_staleness_names_each_changed_part(root, change, words):
    path = saved_notebook(root)
    change(root)
    assert F.staleness(path, root) == words


def test_the_message_joins_the_parts_that_changed(root):
    path = saved_notebook(root, name="03-bottom-and-capture.ipynb")
    (root / "notebooks/claims/03.toml").write_text(CLAIMS.replace('"01"', '"03"'))
    write_notebook(path, [fingerprint_output(F.fingerprint("03", root))])
    _edit_engine(root)
    _model(root)
    reasons = F.staleness(path, root)
    assert reasons == ["the engine code changed", "the model changed"]
    assert F.stale_message(path, reasons, root) == (
        "notebooks/03-bottom-and-capture.ipynb is stale (the engine code and the model changed since its outputs "
        "were made): re-run it with make notebooks"
    )
    _edit_engine(root)
    (root / "simsuite/sim/run.py").write_text("")
    said = F.stale_message(path, F.staleness(path, root), root)
    assert "(the engine code, the simulation harness and the model changed since" in said


def test_a_fingerprint_without_parts_says_the_code_changed(root):
    old = F.fingerprint("01", root)
    del old["code_parts"]
    path = write_notebook(root / "notebooks/01-fake.ipynb", [fingerprint_output(old)])
    assert F.staleness(path, root) == []
    _edit_engine(root)
    assert F.staleness(path, root) == ["the code changed"]


# --- the stale command ---------------------------------------------------------------------------------


def test_the_stale_command_answers_first_and_exits_1_when_any_is_stale(root):
    (root / "notebooks/claims/02.toml").write_text(CLAIMS.replace('"01"', '"02"').replace("20101", "20202"))
    one = saved_notebook(root)
    two = write_notebook(root / "notebooks/02-other.ipynb", [fingerprint_output(F.fingerprint("02", root))])
    lines: list[str] = []
    assert F.stale_command([one, two], root, lines.append) == 0
    assert lines == ["current: all 2 notebook(s) match the checkout (01-fake.ipynb, 02-other.ipynb)"]

    (root / "notebooks/claims/02.toml").write_text(CLAIMS.replace('"01"', '"02"').replace("20101", "20203"))
    lines.clear()
    assert F.stale_command([one, two], root, lines.append) == 1
    assert lines == [
        "stale: 1 of 2 notebook(s) (02-other.ipynb); re-run them with make notebooks",
        "  notebooks/02-other.ipynb is stale (the claims file and the root seed changed since its outputs were "
        "made): re-run it with make notebooks",
        "current: 01-fake.ipynb",
    ]
    with pytest.raises(SimsuiteError, match="no notebooks given"):
        F.stale_command([], root)


def _common(root: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """``python notebooks/_common.py ARGS`` of the real checkout, bound to the fake ``root``."""
    env = {**os.environ, "SIMSUITE_ROOT": str(root), "SIMSUITE_RESULTS": str(tmp_path / "results")}
    return subprocess.run(
        [sys.executable, str(ROOT / "notebooks" / "_common.py"), *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_stale_command_of_common_py(root, tmp_path):
    path = saved_notebook(root)
    (root / "notebooks/stray.ipynb").write_text("not json", encoding="utf-8")
    done = _common(root, tmp_path, "stale", "notebooks/01-fake.ipynb")
    assert (done.returncode, done.stdout) == (0, "current: all 1 notebook(s) match the checkout (01-fake.ipynb)\n")

    _model(root)
    done = _common(root, tmp_path, "stale", "notebooks/01-fake.ipynb")
    assert done.returncode == 1 and done.stdout.splitlines() == [
        "stale: 1 of 1 notebook(s) (01-fake.ipynb); re-run them with make notebooks",
        f"  {F.stale_message(path, ['the model changed'], root)}",
        "current: none",
    ]

    done = _common(root, tmp_path, "stale", "notebooks/01-fake.ipynb", "notebooks/stray.ipynb")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == "stale: notebooks/stray.ipynb: not a notebook (not JSON: Expecting value, line 1)\n"


# --- bad input -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, content, says",
    [
        ("code.py", b"print('hi')\n", "not a notebook (not JSON"),
        ("empty.ipynb", b"", "not a notebook (not JSON"),
        ("latin.ipynb", b"\xff\xfe\x00", "cannot be read as a notebook"),
        ("list.ipynb", b"[1, 2]", "not a Jupyter notebook (JSON without a list of cells)"),
        ("data.json", b'{"cells": 3}', "not a Jupyter notebook (JSON without a list of cells)"),
        ("old.ipynb", b'{"cells": [], "nbformat": 3}', "notebook format 3; only format 4 is read"),
        ("bad-fp.ipynb", json.dumps(notebook_json([fingerprint_output([1])])).encode(), "not a JSON object"),
        ("text-fp.ipynb", json.dumps(notebook_json([fingerprint_output("made")])).encode(), "not a JSON object"),
        ("missing.ipynb", None, "no such notebook"),
        ("folder.ipynb", "folder", "is a folder, not a notebook"),
    ],
)
def test_a_file_that_is_not_a_notebook_is_refused_in_one_line(tmp_path, root, name, content, says):
    path = tmp_path / name
    if content == "folder":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    for call in (F.saved_fingerprint, lambda p: F.staleness(p, root), lambda p: F.stale_command([p], root)):
        with pytest.raises(SimsuiteError) as e:
            call(path)
        msg = str(e.value)
        assert msg.startswith(f"{path}: ") and says in msg and "\n" not in msg


def test_a_notebook_without_a_number_is_named(root):
    path = write_notebook(root / "notebooks/fake.ipynb", [fingerprint_output({"code": "x"})])
    with pytest.raises(SimsuiteError, match=r"fake\.ipynb: no notebook number"):
        F.staleness(path, root)


# --- the real checkout (read only) ---------------------------------------------------------------------


def test_every_part_hashes_files_of_the_real_checkout_and_the_model_is_the_shipped_one():
    from simsuite.engine.policies.model import SHIPPED

    assert (ROOT / F.MODEL_FILE).resolve() == SHIPPED.resolve()
    files = F.code_files(ROOT)
    empty = [k for k, fs in files.items() if not fs]
    assert not empty, f"parts of CODE_PARTS that match no file: {empty}"
    every = [f for fs in files.values() for f in fs]
    assert "simsuite/engine/core.py" in every and "simsuite/analysis/notebooks/fingerprint.py" in every
    assert not [f for f in every if "__pycache__" in f or f.endswith((".pyc", ".nbi", ".nbc"))]
    assert len(every) == len(set(every))


# --- the play behind a results folder ---------------------------------------------------------------------------


def test_a_results_folder_played_by_other_code_is_refused_not_reused(root, tmp_path):
    """A notebook's sweep reuses a results folder it finds; the stamp written beside it when it was played says
    what played it, and a folder played by other code (or with no stamp) is refused with what changed."""
    from simsuite.analysis.notebooks import runs

    settings = runs.RunSettings(root, tmp_path / "results" / "notebooks")
    out = settings.results / "01-fake"
    stamp_file = settings.results / "played-by" / "01-fake.json"
    now = runs._played_by(settings, out, stamp_file)  # nothing there yet: played afresh
    assert now == F.play_stamp(root) and set(now) == {*F.PLAY_PARTS, "model"}
    out.mkdir(parents=True)
    with pytest.raises(
        SimsuiteError, match=r"01-fake: played by other code .*\(no record of the code that played it\)"
    ):
        runs._played_by(settings, out, stamp_file)
    runs._stamp(stamp_file, now)
    assert runs._played_by(settings, out, stamp_file) == now  # the same play: reused
    (root / "simsuite/analysis/metrics.py").write_text("def summarise(): return 1\n")
    assert runs._played_by(settings, out, stamp_file) == now  # the statistics are not the play
    _edit_engine(root)
    _model(root)
    with pytest.raises(SimsuiteError, match=r"\(the engine code, the model\): remove that folder to play it again"):
        runs._played_by(settings, out, stamp_file)
