"""The notebooks' saved outputs are what the checkout makes: each notebook shows its fingerprint (the code, the
model, the claims file and the root seed its outputs were made from), and the saved fingerprint equals the
checkout's. A change to the play-relevant code, the model, a claims file or a root seed fails here, naming the
notebook to re-run (`make notebooks`, which also regenerates docs/findings.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from simsuite.analysis.notebooks import fingerprint as F

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_PATHS = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOK_PATHS, ids=[p.stem for p in NOTEBOOK_PATHS])
def test_each_notebook_shows_its_fingerprint(path):
    nbformat = pytest.importorskip("nbformat")
    code = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code")
    assert f'C.fingerprint_cell("{path.stem[:2]}")' in code


@pytest.mark.parametrize("path", NOTEBOOK_PATHS, ids=[p.stem for p in NOTEBOOK_PATHS])
def test_the_saved_outputs_are_what_the_checkout_makes(path):
    reasons = F.staleness(path, ROOT)
    assert not reasons, F.stale_message(path, reasons, ROOT)
