"""What the notebooks display: the claims file's banner, the claims tested, the robustness verdicts, the conclusion."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from simsuite.analysis.notebooks.claims import CLAIM_FAMILIES, Claims, ClaimsFile, Conclusion
from simsuite.analysis.notebooks.pairings import Pairings, pairing_label
from simsuite.analysis.notebooks.robustness import PAIRINGS, POWER_REPS, POWER_SEED
from simsuite.report.findings import MARKS_HEAD, marks_markdown


def claims_banner(cf: ClaimsFile) -> str:
    """Two lines on a notebook's claims file: its hash, the root seed and the seed each claim was first
    tested on."""
    fams = ", ".join(f"{len(cf.family(f))} {f}" for f in CLAIM_FAMILIES if cf.family(f))
    new = sum(c["seed"] == cf.root_seed for c in cf.claims)
    by_seed: dict[int, int] = {}
    for c in cf.claims:
        by_seed[c["seed"]] = by_seed.get(c["seed"], 0) + 1
    return (
        f"claims: notebooks/claims/{cf.path.name}, sha256 {cf.sha256[:16]}, written before this run "
        f"({fams}); root seed {cf.root_seed}"
        + (f" (earlier root seeds: {', '.join(map(str, cf.past_root_seeds))})" if cf.past_root_seeds else "")
        + f"; {new} of {len(cf.claims)} claims were first tested on it\n"
        + "first tested on: "
        + (
            ", ".join(f"seed {s}: {n} claim(s)" for s, n in sorted(by_seed.items()))
            or "no claims in this file (only the replication's margins)"
        )
    )


def not_tested(t: pd.DataFrame) -> pd.DataFrame:
    """A claims table as shown: where a claim's p-value could not be computed (NaN: no data, or a standard
    error that is not finite), its Holm p and whether it survives read "not tested" instead of a number."""
    if t.empty or "p" not in t.columns:
        return t
    t = t.copy()
    bad = ~np.isfinite(pd.to_numeric(t["p"], errors="coerce").astype(float).to_numpy())
    for col in ("p", "p (Holm)", "survives"):
        if col in t.columns:
            t[col] = t[col].astype(object)
            t.loc[bad, col] = "not tested"
    return t


def show_claims(T: Claims) -> pd.DataFrame | None:
    """The claims table of ``T``, with the correction stated."""
    from IPython.display import Markdown, display

    t = not_tested(T.table())
    n = len(t)
    display(
        Markdown(
            f"**{n} claims tested; Holm's correction over all {n}** (family-wise error 5%). The claims come from the "
            "notebook's claims file (`notebooks/claims/NN.toml`), written before the run; each row gives the root seed "
            "the claim was first tested on. A difference between "
            "cells is a paired difference over the deals both share, its interval a bootstrap over deals; "
            '"changes nothing" is a two-one-sided-tests (TOST) equivalence test with the margin in the test column. '
            "Claims marked False do not survive the correction and are not made in the conclusion."
        )
    )
    return t if n else None


def show_verdicts(P: Pairings, conclusions: Iterable[Conclusion], quick: bool = False) -> pd.DataFrame:
    """``P.verdicts`` as the notebook shows it, with the rule stated (``quick``: marked as a quick run)."""
    from IPython.display import Markdown, display

    conclusions = list(conclusions)
    t = P.verdicts(conclusions)
    n = ", ".join(f"{pairing_label(p, P.search)} {P.n(p):,}" for p in P.pairings)
    display(
        Markdown(
            f"**Robust, policy-dependent or undecided** (deals per cell: {n}). Each conclusion's effect under a "
            "pairing is a paired difference over the deals the cells share (95% bootstrap interval over deals), or "
            "one cell against a reference value. Its **rule x policy interaction** under a pairing is that effect "
            "minus the pooled (inverse-variance) effect of the others, with the SE of the difference. A "
            "conclusion is **robust** when the pooled effect lies on the claimed side and every interaction lies "
            "within ±margin (TOST; the margin, the smallest interaction that matters, is stated in the notebook's "
            "claims file before the run); **policy-dependent** when an interaction differs from 0; otherwise "
            "**undecided (n too small)**, with two deals-per-cell figures: the n at which this classifier, simulated "
            "with this notebook's Holm family (normal effects with the observed SEs scaled to n; "
            f"{POWER_REPS:,} simulated notebooks, seed {POWER_SEED}), marks the conclusion **robust** 80% of the "
            "time when there is no interaction, and the n at which it marks it **policy-dependent** 80% of the "
            "time when one pairing's effect differs from the others' by the margin. One Holm correction over all "
            f"{len(conclusions) * (len(PAIRINGS) + 1)} p-values behind this notebook's marks (per conclusion: its "
            "robust test and one interaction test per pairing); a p-value that cannot be computed is **not "
            "tested** and left out of it. An effect whose interval has no width (every deal gave the same "
            "difference) is tested against the others but left out of every pooled effect."
            + (
                "\n\n*Quick mode: a handful of deals, so nearly every conclusion reads undecided here; the "
                "marks mean something only at full scale (`make notebooks`).*"
                if quick
                else ""
            )
        )
    )
    display(Markdown(MARKS_HEAD + "\n\n" + marks_markdown(t, quick)))
    return t.drop(columns=["_effects"])


def conclude(quick: bool, text: str, claims: Iterable[tuple[bool, str]] = (), tests: Claims | None = None):
    """The closing cell. Quick mode: only the warning that the numbers are too small. Full
    mode: the conclusion, after checking each claim it rests on against the numbers computed
    above; a claim the run does not support is listed after it as failed, never silently dropped. With
    ``tests`` (a ``Claims``), every formal test that does not survive Holm's correction is
    listed as not supported too."""
    from IPython.display import Markdown, display

    if tests is not None:
        claims = list(claims) + tests.as_claims()
    if quick:
        display(
            Markdown(
                "### Conclusion\n\n**Quick mode (`SIMSUITE_QUICK=1`)**: these samples are tiny and only check that the "
                "notebook runs; the numbers above are too small to conclude anything. Run the notebook at full "
                "scale (`make notebooks`) for the conclusion."
            )
        )
        return
    failed = [c for ok, c in claims if not ok]
    note = ""
    if failed:
        note = (
            "\n\n**Claims this run does not support** (written before the run, they stay here as failed):\n"
            + "\n".join(f"- {c}" for c in failed)
        )
    display(Markdown("### Conclusion\n\n" + text.strip() + note))
