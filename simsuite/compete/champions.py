"""Who wins repeated tournaments: each policy's share of the tournaments won, played over worker processes."""

from __future__ import annotations

from simsuite.analysis.stats import wilson
from simsuite.compete.competition import repeat_tournaments


def _champions(variant, teams: dict[str, str], seed: int, repeats: int) -> dict[str, int]:
    r = repeat_tournaments(variant, teams, seed, repeats)
    return {p: round(e.value * repeats) for p, e in r.policy_first.items()}


def champion_shares(variant, teams: dict[str, str], seed: int, repeats: int, jobs: int = 2) -> dict:
    """``simsuite.compete.competition.repeat_tournaments`` split over worker processes: tournaments
    ``seed .. seed + repeats - 1`` (the same ones one call would play), and for each policy the
    share of tournaments a team of that policy won, with its Wilson interval (``jobs`` processes)."""
    from joblib import Parallel, delayed

    parts = max(1, min(jobs * 4, repeats))
    sizes = [repeats // parts + (1 if i < repeats % parts else 0) for i in range(parts)]
    starts = [seed + sum(sizes[:i]) for i in range(parts)]
    counts = Parallel(n_jobs=jobs)(delayed(_champions)(variant, teams, s, n) for s, n in zip(starts, sizes) if n)
    total: dict[str, int] = {}
    for c in counts:
        for p, k in c.items():
            total[p] = total.get(p, 0) + k
    return {p: wilson(k, repeats) for p, k in total.items()}
