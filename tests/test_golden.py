"""Golden traces: seed 2016, policies expert (NS) and basic (EW), one file per variant.

The files pin the whole hand (deal, bids, bury, every play, the outcome), so any change in the
engine's behaviour or in the trace's layout shows up here as a diff. When a change is intended,
regenerate them (``make golden``, i.e. ``SIMSUITE_REGEN_GOLDEN=1 pytest tests/test_golden.py``)
and review the diff of ``tests/golden/`` before committing.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

from simsuite.engine.api import play_one
from simsuite.engine.names import policy_codes
from simsuite.engine.policies.codes import POLICY_NAMES
from simsuite.report.trace import format_trace
from simsuite.rules.variant import known_ids, load_variant

GOLDEN = Path(__file__).resolve().parent / "golden"
SEED = 2016
POLICIES = "expert,basic"
REGEN = os.environ.get("SIMSUITE_REGEN_GOLDEN") == "1"


def golden_trace(variant_id: str) -> str:
    v = load_variant(variant_id)
    names = [POLICY_NAMES[int(c)] for c in policy_codes(POLICIES)]
    result = play_one(v, SEED, POLICIES, keep=True)
    return format_trace(v, result, symbols=False, seed=SEED, policies=names)


@pytest.mark.parametrize("variant_id", known_ids())
def test_golden_trace(variant_id):
    path = GOLDEN / f"{variant_id}.txt"
    got = golden_trace(variant_id)
    if REGEN:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(got, encoding="utf-8")
        return
    assert path.is_file(), f"no golden trace for {variant_id}: run `make golden`"
    want = path.read_text(encoding="utf-8")
    if got != want:
        diff = "".join(
            difflib.unified_diff(
                want.splitlines(keepends=True),
                got.splitlines(keepends=True),
                fromfile=f"tests/golden/{variant_id}.txt",
                tofile="format_trace now",
            )
        )
        pytest.fail(
            f"the trace of {variant_id} seed {SEED} differs from its golden file "
            f"(regenerate with `make golden` if intended):\n{diff}",
            pytrace=False,
        )


def test_every_variant_has_a_golden_file_and_no_file_lacks_a_variant():
    files = {p.stem for p in GOLDEN.glob("*.txt")}
    ids = set(known_ids())
    assert not ids - files, f"variants without a golden trace: {sorted(ids - files)}; run `make golden`"
    assert not files - ids, f"golden traces of no variant: {sorted(files - ids)}"


def test_golden_files_are_ascii():
    for path in GOLDEN.glob("*.txt"):
        path.read_text(encoding="ascii")
