"""The notebook suite (notebooks/*.ipynb) runs end to end in quick mode.

Each notebook is executed with ``SIMSUITE_QUICK=1`` (tiny samples) in a temporary copy of the
notebooks folder, so the committed notebooks and their full-run outputs are never rewritten; its
sweeps go to a temporary results folder. A notebook fails the test on any error; it must give at
least one image (image/png) per figure it promises (``metadata.simsuite.figures``, at least 2),
one in every cell tagged ``figure``, and end with the quick-mode conclusion.

The notebooks a test process runs share one kernel, emptied before each (``RESET``): its names
are gone and the notebooks' own helpers (``_common``) are imported afresh, so a notebook that
leans on another's names or helpers still fails; only the third-party modules stay imported.
Starting a kernel and importing simsuite, polars, pandas and matplotlib into it took about a third
of each notebook's time in quick mode.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
PATHS = sorted(NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"))
# the analysis notebooks (01-05) answer their questions from sweeps, with the three self-play pairings;
# 06 walks through simsuite design, whose pairings are the design spec's own (docs/design.md)
ANALYSIS = [p for p in PATHS if p.stem != "06-design"]
TIMEOUT_S = 300  # per cell; a cold numba cache compiles the engine once (about a minute)


def test_the_suite_is_there():
    names = [p.stem for p in PATHS]
    assert names == [
        "01-five-tournaments",
        "02-deck-count",
        "03-bottom-and-capture",
        "04-promotion-thresholds",
        "05-fairness-and-skill",
        "06-design",
    ]


def test_nbformat_validates_without_the_iri_grammar():
    """tests/conftest.py keeps jsonschema from importing rfc3987_syntax (3 s of each test process's
    collection); nbformat still validates every notebook."""
    assert sys.modules.get("rfc3987_syntax") is None
    for path in PATHS:
        nbformat.validate(nbformat.read(path, as_version=4))


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A copy of the notebooks folder (notebooks and _common.py) to execute in."""
    d = tmp_path_factory.mktemp("notebooks")
    for p in NOTEBOOKS.iterdir():
        if p.suffix in (".ipynb", ".py"):
            shutil.copy2(p, d / p.name)
    return d


# run in the shared kernel before each notebook: close its figures, forget its helpers, drop every name.
# `%reset` collects garbage twice, each time walking every object in the kernel, most of them the imported
# modules' (0.3 s of CPU per reset once simsuite is imported); gc.freeze() sets aside what outlives the reset
# (modules, caches), so that the next reset walks only what the notebook in between made
RESET = """\
import sys
import matplotlib.pyplot
matplotlib.pyplot.close("all")
sys.modules.pop("_common", None)
%reset -f
__import__("gc").freeze()
"""


@pytest.fixture(scope="module")
def kernel(workdir):
    """One Jupyter kernel for the notebooks of this test process, started in ``workdir`` with the
    quick-mode environment every notebook runs under, and one client connected to it: its manager
    and that client. Every execution goes through the one client; a new client per execution waited
    for the kernel again each time (``wait_for_ready``, at least 0.2 s of an idle IOPub channel)."""
    env = {
        **os.environ,
        "SIMSUITE_QUICK": "1",
        "SIMSUITE_ROOT": str(ROOT),
        "SIMSUITE_RESULTS": str(workdir / "results"),
        # one process per sweep: `make test` already keeps both cores busy with its two workers, and two
        # more processes per sweep only add their start-up (tests/test_harness.py checks that --jobs
        # does not change a row); the six notebooks took 63 s this way against 85 s with 2, in one process
        "SIMSUITE_JOBS": "1",
        "MPLBACKEND": "module://matplotlib_inline.backend_inline",
    }
    starter = nbclient.NotebookClient(
        nbformat.v4.new_notebook(),
        timeout=TIMEOUT_S,
        kernel_name="python3",
        resources={"metadata": {"path": str(workdir)}},
    )
    km = starter.create_kernel_manager()
    km.transport_encryption = "auto"  # as `make notebooks` (Makefile): over plain TCP ipykernel warns
    starter.start_new_kernel(env=env)
    starter.start_new_kernel_client()
    yield km, starter.kc
    starter.kc.stop_channels()
    nbclient.util.run_sync(km.shutdown_kernel)(now=True)


def _execute(nb, kernel, workdir) -> None:
    """Run every cell of ``nb`` through ``kernel`` (the fixture's manager and client); raises
    CellExecutionError on any error. nbclient reads only the replies and output messages to its own
    requests, so whatever an earlier execution left unread is skipped."""
    km, kc = kernel
    client = nbclient.NotebookClient(
        nb, km=km, timeout=TIMEOUT_S, kernel_name="python3", resources={"metadata": {"path": str(workdir)}}
    )
    client.kc = kc  # after the constructor, which clears it; nbclient neither waits for nor stops a client it is given
    client.execute()


def _images(cell) -> int:
    return sum(1 for o in cell.get("outputs", []) if "image/png" in o.get("data", {}))


# The analysis notebooks' search pairing plays the match loop with every policy (`engine.full.run`) in
# the kernel, where tests/conftest.py's probe cannot see it: marked by hand, so that `make test` runs them
# after the full set (which warms that loop) is in numba's cache, and no kernel compiles it alongside.
@pytest.mark.full_loop
@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_notebook_runs_in_quick_mode(path, workdir, kernel):
    committed = path.read_bytes()
    copy = workdir / path.name
    nb = nbformat.read(copy, as_version=4)
    promised = nb.metadata.get("simsuite", {}).get("figures", 0)
    assert promised >= 2, f"{path.name} promises {promised} figures; each notebook shows at least 2"
    first_code = next(c for c in nb.cells if c.cell_type == "code")
    assert 'QUICK = os.environ.get("SIMSUITE_QUICK") == "1"' in first_code.source

    _execute(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(RESET)]), kernel, workdir)
    _execute(nb, kernel, workdir)  # raises CellExecutionError on any error
    nbformat.write(nb, copy)

    code = [c for c in nb.cells if c.cell_type == "code"]
    errors = [o for c in code for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, errors
    images = sum(_images(c) for c in code)
    assert images >= promised, f"{path.name}: {images} image(s) for {promised} promised figures"
    figure_cells = [c for c in code if "figure" in c.metadata.get("tags", [])]
    assert len(figure_cells) == promised
    for c in figure_cells:
        assert _images(c) >= 1, f"{path.name}: a figure cell gave no image:\n{c.source[:200]}"
    last = code[-1]
    text = "".join(o.get("data", {}).get("text/markdown", "") for o in last.get("outputs", []))
    assert "too small to conclude" in text, f"{path.name}: the last cell must give the quick-mode conclusion"
    assert (workdir / "results" / "notebooks" / f"{path.stem}-quick").is_dir()
    # the claims file the run used, and its hash, are recorded with its results and printed
    import hashlib

    claims_file = NOTEBOOKS / "claims" / f"{path.stem[:2]}.toml"
    sha = hashlib.sha256(claims_file.read_bytes()).hexdigest()
    meta = json.loads((workdir / "results" / "notebooks" / "claims" / f"{path.stem}-quick.json").read_text())
    assert meta["sha256"] == sha
    printed = "".join(o.get("text", "") for c in code for o in c.get("outputs", []) if o.get("output_type") == "stream")
    assert f"sha256 {sha[:16]}" in printed and "first tested on: " in printed
    assert "first tested on: seed" in printed or path not in ANALYSIS
    assert path.read_bytes() == committed, f"{path.name}: the committed notebook was rewritten"


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_each_notebook_has_its_own_seed_a_replication_and_tested_claims(path):
    """Agreement between notebooks is a replication only if they use different seeds; each replicates its
    headline on a second seed (an equivalence test against its claims file's margins) and tests its claims
    with Holm's correction."""
    import sys

    sys.path.insert(0, str(NOTEBOOKS))
    import _common as C

    nb = nbformat.read(path, as_version=4)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    number = path.stem[:2]
    assert f'C.SEEDS["{number}"]' in code and '"seed": 1,' not in code and "seed=1," not in code
    assert "C.REPLICATION" in code and "replication_table" in code and "margins=CLAIMS.replication" in code
    if path in ANALYSIS:  # 06's claim is its replication of the recommendation
        assert "CLAIMS.tests(" in code and "tests=" in code
    assert len(set(C.SEEDS.values())) == len(C.SEEDS) == len(PATHS)
    assert C.SEEDS == {f.number: f.root_seed for f in C.claims_files()}


# a claim or a conclusion made in the notebook itself instead of in its claims file
INLINE = re.compile(r"C\.Claims\(|C\.Conclusion\(|\.(differ|same|near|beyond|independent)\(")


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_each_notebook_loads_its_claims_from_its_file_and_defines_none_inline(path):
    """Pre-registration: a notebook's claims live in notebooks/claims/NN.toml, written before the run; the
    notebook loads them (printing the file's hash and each claim's first seed) and makes none of its own."""
    nb = nbformat.read(path, as_version=4)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    number = path.stem[:2]
    assert f'CLAIMS = C.load_claims("{number}")' in code
    assert (NOTEBOOKS / "claims" / f"{number}.toml").is_file()
    inline = [m.group(0) for m in INLINE.finditer(code)]
    assert not inline, f"{path.name} defines claims inline: {inline}"
    if path in ANALYSIS:
        assert "CLAIMS.conclusions(" in code


def test_the_inline_check_catches_a_claim_made_in_a_notebook():
    assert INLINE.search("T = C.Claims(M)") and INLINE.search('T.near("x", c, "m", 0.5, 0.05)')
    assert INLINE.search('C.Conclusion("x", a, b, "m", +1)') and not INLINE.search("T = CLAIMS.tests(M, CELLS)")


@pytest.mark.parametrize("path", ANALYSIS, ids=[p.stem for p in ANALYSIS])
def test_each_notebook_shows_its_headline_under_the_three_pairings(path):
    """Every notebook re-runs its headline under basic, expert and search self-play (paired, through the
    sweep machinery), shows it in a table and one figure, and marks each conclusion (C.classify_all); the
    pairings section comes before the conclusion cell."""
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    src = "\n".join(c.source for c in code)
    assert "C.run_pairings(" in src and "C.pairing_matches(" in src and "P.table(" in src
    assert "C.SEARCH_MATCHES[" in src and "CLAIMS.conclusions(" in src
    figure = [c for c in code if "P.figure(" in c.source]
    assert len(figure) == 1 and "figure" in figure[0].metadata.get("tags", [])
    verdict = [i for i, c in enumerate(code) if "P.show_verdicts(" in c.source]
    assert len(verdict) == 1 and verdict[0] < len(code) - 1
