"""The notebooks' configuration and glue: sizes, seeds and folders from the environment, the library bound to them.

Every notebook sizes its runs from ``SIMSUITE_QUICK`` (quick: tiny samples, only to check that
the notebook runs), runs its sweep through ``simsuite.sim.run.sweep`` into
``results/notebooks/<name>[-quick]`` (resuming a run that is there) and reads it back with
``simsuite.sim.results.load``. The figures draw 95% intervals from ``simsuite.analysis.metrics.summarise``.

Each notebook's claims are written before it runs, in ``notebooks/claims/NN.toml`` (``load_claims``): its
root seed, its claims (the conclusion's tests, and the conclusions whose dependence on the policy is marked),
and the margins its replication is tested against; ``notebooks/claims/registry.toml`` keeps every claim's
text hash with the seed it was first tested on.

The helpers live in the package: ``simsuite.analysis.notebooks.claims`` (claims files, registry, ``Claims`` with Holm),
``replication`` (the replication's TOST), ``robustness`` (the rule x policy classifier), ``pairings``,
``summaries`` and ``runs``; ``simsuite.report.plots``, ``notebook`` and ``findings`` draw and show
them. This module reads the environment once and binds them to it, under the names the notebooks use.

Environment:
    SIMSUITE_QUICK=1      quick mode (tiny samples)
    SIMSUITE_JOBS=N       worker processes for the harness (default 2)
    SIMSUITE_ROOT=DIR     the repository (default: found from the working folder upwards)
    SIMSUITE_RESULTS=DIR  where results/notebooks/ lives (default: ROOT/results)

From the shell (``make notebooks``)::

    python notebooks/_common.py check-claims
    python notebooks/_common.py stale notebooks/0*.ipynb
    python notebooks/_common.py findings docs/findings.md notebooks/0*.ipynb [--check]
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import simsuite
from simsuite.analysis.notebooks import claims as _claims
from simsuite.analysis.notebooks import pairings as _pairings
from simsuite.analysis.notebooks import runs as _runs
from simsuite.analysis.notebooks.claims import (
    CLAIM_FAMILIES,
    CLAIM_HASHED,
    CLAIM_KEYS,
    CLAIM_TESTS,
    Conclusion,
    claim_hash,
    read_claims,
    registry_problems,
)
from simsuite.analysis.notebooks.fingerprint import show_fingerprint, stale_command
from simsuite.analysis.notebooks.pairings import PAIRINGS, search_policy
from simsuite.analysis.notebooks.replication import (
    DIFFERS,
    NOT_SHOWN,
    NOT_TESTED,
    REPLICATES,
    replication_summary,
    replication_table,
    replication_test,
)
from simsuite.analysis.notebooks.robustness import (
    DEPENDENT,
    ROBUST,
    UNDECIDED,
    classify,
    classify_all,
    interaction_tests,
)
from simsuite.analysis.notebooks.runs import read_spec as _read_spec
from simsuite.analysis.notebooks.runs import to_toml
from simsuite.analysis.notebooks.summaries import (
    DURATION_FRACTIONS,
    band_range,
    clock_band,
    differences,
    equal_pairs_once,
    est,
    frames,
    hand_shares,
    match_share,
    parse_cell,
    per_match,
    seconds_per_trick_at,
    summary,
    with_cell_keys,
)
from simsuite.compete import champions as _champions
from simsuite.errors import SimsuiteError
from simsuite.report import findings as _findings
from simsuite.report.findings import MARKS_HEAD
from simsuite.report.notebook import claims_banner, conclude, show_claims, show_verdicts
from simsuite.report.plots import (
    PAIRING_COLORS,
    band,
    difference_plot,
    draw_band,
    errorbar,
    pairings_figure,
    plain_log_ticks,
)

QUICK = os.environ.get("SIMSUITE_QUICK") == "1"
REPLICATION = 1000  # the replication's seed: the notebook's root seed + 1000
JOBS = int(os.environ.get("SIMSUITE_JOBS", "2"))
VARIANT_IDS = ["school-2016", "huizhou", "baiyun-2016", "two-deck-2011", "guangxi-2012"]
COLORS = dict(zip(VARIANT_IDS, ["C0", "C1", "C2", "C3", "C4"]))


def _find_root() -> Path:
    if os.environ.get("SIMSUITE_ROOT"):
        return Path(os.environ["SIMSUITE_ROOT"]).resolve()
    here = Path.cwd().resolve()
    for p in [here, *here.parents]:
        if (p / "pyproject.toml").is_file() and (p / "examples" / "sweeps").is_dir():
            return p
    return Path(simsuite.__file__).resolve().parents[1]


ROOT = _find_root()
RESULTS = Path(os.environ.get("SIMSUITE_RESULTS") or ROOT / "results") / "notebooks"
CLAIMS_DIR = ROOT / "notebooks" / "claims"

# The findings' play (docs/findings.md). Equal teams: learned self-play, the headline figures. The stronger pair at
# two skill gaps: learned against expert (small) and learned against basic (large). Each is a sweep's ``policies``
# value; the summaries name a pairing "learned/expert" (``label``), the first-named pair being policy A.
EQUAL = "learned,learned"
SMALL_GAP = "learned,expert"
LARGE_GAP = "learned,basic"
PLAYS = {EQUAL: "equal teams (learned)", SMALL_GAP: "learned against expert", LARGE_GAP: "learned against basic"}


def label(policies: str) -> str:
    """A sweep's ``policies`` value as the summaries' ``policies`` column shows it: ``"learned/expert"``."""
    return policies.replace(",", "/")


# search with 4 sampled deals x 4 candidates per decision: a third of the default's cost (docs/performance.md); quick
# mode only checks that the notebooks run, with the cheapest search (1 deal x 2 candidates)
SEARCH_POLICY = search_policy(QUICK)
# Matches per cell for the search pairing at full scale, per notebook (the other rungs of the ladder play the
# notebook's own count); each notebook prints the size it used. In `make notebooks` from a fresh clone the search
# pairings played 7,257 hands in 183 s of wall time on two cores (about 20 hands per CPU-second, 01's figure
# including the search's compile): the search rung is the ladder's smallest sample, and its n is what the
# "undecided" marks most often ask more of. Notebook 03 gets the most: the capture multiplier's effect on what
# search buries is about 1 point in 11 at bottom 10 (a 20-match preview), which needs about 80 matches to show.
SEARCH_MATCHES = {"01": 24, "02": 40, "03": 80, "04": 32, "05": 24}

RUNS = _runs.RunSettings(ROOT, RESULTS, quick=QUICK, jobs=JOBS, search=SEARCH_POLICY)


# --- the claims, shown in the notebook --------------------------------------------------------------


class Claims(_claims.Claims):
    """``simsuite.analysis.notebooks.claims.Claims`` with ``show()``, the table as the notebook displays it."""

    def show(self):
        return show_claims(self)


class ClaimsFile(_claims.ClaimsFile):
    """``simsuite.analysis.notebooks.claims.ClaimsFile`` whose ``tests`` are the notebook's ``Claims``."""

    claims_class = Claims


def load_claims(number: str, show: bool = True) -> ClaimsFile:
    """Notebook ``number``'s claims file (``notebooks/claims/<number>.toml``), its hash recorded next to the
    results (``ClaimsFile.record``) and, with ``show``, printed: the file's hash, the root seed and the seed
    each claim was first tested on. A file that disagrees with the registry, or that changed since a full run
    on its root seed (``simsuite.analysis.notebooks.claims.notebook_problems``), is refused with a
    SimsuiteError, one line naming each claim and what differs (in quick mode, printed instead)."""
    cf = read_claims(CLAIMS_DIR / f"{number}.toml", kind=ClaimsFile)
    bad = _claims.notebook_problems(cf, read_registry(), RESULTS, ROOT)
    if bad:  # one line: the claims and what differs (notebooks/claims/README.md)
        msg = f"notebooks/claims/{number}.toml disagrees with the registry or its last run: " + "; ".join(bad)
        if not QUICK:
            raise SimsuiteError(msg)
        print("quick mode (tiny samples, no claims tested), so not refused; a full run would refuse it: " + msg)
    cf.record(RESULTS, QUICK)
    if show:
        print(claims_banner(cf))
    return cf


def claims_files() -> list[ClaimsFile]:
    return _claims.claims_files(CLAIMS_DIR)


def read_registry(path: str | Path | None = None) -> list[dict]:
    return _claims.read_registry(path if path is not None else CLAIMS_DIR / "registry.toml")


# --- the runs, in results/notebooks/ -----------------------------------------------------------------


class Pairings(_pairings.Pairings):
    """``simsuite.analysis.notebooks.pairings.Pairings`` with the notebook's search policy, figure and verdicts display."""

    def __init__(self, runs: Mapping[str, Any], search: str = SEARCH_POLICY):
        super().__init__(runs, search)

    @classmethod
    def from_frames(
        cls, data: Mapping[str, Any], variants: Mapping[str, Mapping] | None = None, search: str = SEARCH_POLICY
    ) -> Pairings:
        return super().from_frames(data, variants, search)

    def figure(
        self,
        cells: Mapping[str, str],
        keys: Iterable[tuple[str, str, float]],
        conclusions: Iterable[Conclusion] = (),
        title: str = "",
    ):
        return pairings_figure(self, cells, keys, conclusions, title)

    def show_verdicts(self, conclusions: Iterable[Conclusion]):
        return show_verdicts(self, conclusions, QUICK)


def read_spec(path: str | Path) -> dict:
    return _read_spec(path, ROOT)


def run_sweep(
    spec: str | Path | Mapping[str, Any], name: str, *, part: str | None = None, jobs: int | None = None, **changes: Any
):
    return _runs.run_sweep(RUNS, spec, name, part=part, jobs=jobs, **changes)


def run_design(spec: str | Path, name: str, **changes: Any) -> dict:
    from simsuite.report import design_text

    return _runs.run_design(RUNS, spec, name, wording=design_text, **changes)


def run_pairings(
    spec: str | Path | Mapping[str, Any], name: str, matches: Mapping[str, int], tag: str = "", **changes: Any
) -> Pairings:
    return _runs.run_pairings(RUNS, spec, name, matches, tag, kind=Pairings, **changes)


def merge_pairings(parts: Mapping[str, Pairings]) -> Pairings:
    return _pairings.merge_pairings(parts, kind=Pairings)


def pairing_policies(pairing: str) -> str:
    return _pairings.pairing_policies(pairing, SEARCH_POLICY)


def pairing_label(pairing: str) -> str:
    return _pairings.pairing_label(pairing, SEARCH_POLICY)


def pairing_matches(full: int, search: int, quick: int = 6, search_quick: int = 2) -> dict[str, int]:
    return _pairings.pairing_matches(full, search, quick, search_quick, quick_mode=QUICK)


def champion_shares(variant, teams: dict[str, str], seed: int, repeats: int, jobs: int | None = None) -> dict:
    return _champions.champion_shares(variant, teams, seed, repeats, JOBS if jobs is None else jobs)


def marks_markdown(verdicts) -> str:
    return _findings.marks_markdown(verdicts, QUICK)


def fingerprint_cell(number: str) -> None:
    """Show notebook ``number``'s fingerprint (the code, model, claims file and root seed its outputs are made
    from), saved with its outputs; ``python notebooks/_common.py stale`` compares it with the checkout."""
    show_fingerprint(number, ROOT, QUICK)


# Each notebook's own root seed, from its claims file (agreement between notebooks is then a replication,
# not a copy); its second seed, for the replication, is the root seed + REPLICATION.
SEEDS = {f.number: f.root_seed for f in claims_files()}

__all__ = [
    "EQUAL",
    "SMALL_GAP",
    "LARGE_GAP",
    "PLAYS",
    "label",
    "SEARCH_POLICY",
    "PAIRINGS",
    "PAIRING_COLORS",
    "ROBUST",
    "DEPENDENT",
    "UNDECIDED",
    "classify_all",
    "interaction_tests",
    "ClaimsFile",
    "read_claims",
    "load_claims",
    "claim_hash",
    "claims_files",
    "read_registry",
    "registry_problems",
    "CLAIMS_DIR",
    "CLAIM_TESTS",
    "CLAIM_FAMILIES",
    "CLAIM_HASHED",
    "CLAIM_KEYS",
    "replication_test",
    "replication_summary",
    "NOT_SHOWN",
    "REPLICATES",
    "DIFFERS",
    "NOT_TESTED",
    "pairing_policies",
    "pairing_label",
    "MARKS_HEAD",
    "pairing_matches",
    "run_pairings",
    "merge_pairings",
    "SEARCH_MATCHES",
    "Conclusion",
    "classify",
    "Pairings",
    "marks_markdown",
    "show_fingerprint",
    "differences",
    "difference_plot",
    "SEEDS",
    "REPLICATION",
    "DURATION_FRACTIONS",
    "per_match",
    "Claims",
    "replication_table",
    "RUNS",
    "conclude",
    "seconds_per_trick_at",
    "clock_band",
    "band_range",
    "draw_band",
    "QUICK",
    "JOBS",
    "ROOT",
    "RESULTS",
    "VARIANT_IDS",
    "COLORS",
    "run_sweep",
    "run_design",
    "read_spec",
    "to_toml",
    "frames",
    "equal_pairs_once",
    "summary",
    "match_share",
    "hand_shares",
    "champion_shares",
    "parse_cell",
    "with_cell_keys",
    "est",
    "errorbar",
    "band",
    "plain_log_ticks",
]


def main(argv: list[str]) -> int | str:
    """``check-claims``: every claim and replication table registered, none changed on an old seed nor added
    on a seed the notebook ran on, the registry append only against its git history, no claim changed since
    the last full run recorded in RESULTS (before a full run; ``check_claims``); ``stale``: which notebooks'
    saved outputs the checkout no longer makes; ``findings``: docs/findings.md generated from the notebooks'
    saved outputs (``--check``: only say whether it is)."""
    if argv[:1] == ["check-claims"]:
        try:
            bad, notes = _claims.check_claims(CLAIMS_DIR, ROOT, RESULTS)
        except SimsuiteError as e:
            return f"check-claims: {e}"
        for n in notes:
            print(f"note: {n}")
        if bad:
            return (
                "the claims files, notebooks/claims/registry.toml, its git history and the last full runs "
                "disagree (notebooks/claims/README.md):\n" + "\n".join(f"  {b}" for b in bad)
            )
        files = claims_files()
        print(
            f"claims: {sum(len(f.claims) for f in files)} claims and {sum(bool(f.replication) for f in files)} "
            f"replication tables in {len(files)} files, all registered, none changed since a run; "
            "root seeds " + ", ".join(f"{n} {s}" for n, s in SEEDS.items())
        )
        return 0
    if argv[:1] == ["stale"]:
        try:
            return stale_command(argv[1:], ROOT)
        except SimsuiteError as e:
            return f"stale: {e}"
    if argv[:1] == ["findings"]:
        args = [a for a in argv[1:] if a != "--check"]
        if len(args) < 2:
            return "usage: python notebooks/_common.py findings docs/findings.md NOTEBOOK.ipynb... [--check]"
        try:
            print(_findings.write_findings(args[0], args[1:], ROOT / "notebooks" / "findings", "--check" in argv))
        except SimsuiteError as e:
            return f"findings: {e}"
        return 0
    return (
        "usage: python notebooks/_common.py check-claims\n"
        "       python notebooks/_common.py stale NOTEBOOK.ipynb...\n"
        "       python notebooks/_common.py findings docs/findings.md NOTEBOOK.ipynb... [--check]"
    )


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
