"""What a policy buries under a variant's rules: ``simsuite bury``.

Hands are dealt and declared as in play, and the dealer's policy buries; no trick is played, so a
study of thousands of burials takes seconds even for ``search``. The figures show whether a
policy's bury responds to the rules (the capture multiplier, the bottom's size) and to the
dealer's trump strength, split in thirds of the sample by the trumps the dealer keeps.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..engine.api import bury_many
from ..engine.hand import BURIED_POINTS, BURIED_TRUMPS, N_BURIED
from ..engine.names import policy_codes, policy_name
from ..engine.params import compile_variant
from ..engine.policies import full_for
from ..engine.policies.model import work_for
from ..engine.rng import run_key
from ..errors import SimsuiteError
from ..rules.variant import Variant
from .stats import Estimate, mean_ci, wilson, within


@dataclass(frozen=True)
class BuryStudy:
    variant: str
    policy: str
    hands: int
    points: Estimate  # points buried per hand
    any_points: Estimate  # share of hands with a point card buried
    by_trumps: list[tuple[str, Estimate]]  # points buried per hand, by thirds of the dealer's trumps

    def as_dict(self) -> dict:
        return {
            "variant": self.variant,
            "policy": self.policy,
            "hands": self.hands,
            "points": self.points.as_dict(),
            "any_points": self.any_points.as_dict(),
            "by_trumps": [{"trumps": k, "points": e.as_dict()} for k, e in self.by_trumps],
        }


def bury_rows(variant: Variant, policy: str, hands: int, seed: int) -> np.ndarray:
    """Rows of hands 0..hands-1 of the run ``seed``, at ``engine.hand``'s ``BURIED_*`` columns: points
    buried, the dealer's trumps, the dealer."""
    if variant.bottom_size == 0:
        raise SimsuiteError(f"{variant.id} has no bottom: nothing is buried")
    P = compile_variant(variant)
    pols = policy_codes(policy)
    out = np.zeros((hands, N_BURIED), np.int64)
    levels = np.full(hands, variant.start_level, np.int64)
    drawers = np.arange(hands, dtype=np.int64) % 4
    full = full_for(pols)
    bury_many(P, run_key(seed), 0, levels, drawers, pols, work_for(pols), out, full)
    return out


def bury_study(variant: Variant, policy: str, hands: int, seed: int) -> BuryStudy:
    rows = bury_rows(variant, policy, hands, seed)
    pts, trumps = rows[:, BURIED_POINTS].astype(float), rows[:, BURIED_TRUMPS]
    lo, hi = np.quantile(trumps, [1 / 3, 2 / 3])
    groups = [
        (f"<= {lo:g}", trumps <= lo),
        (f"{lo:g} < t <= {hi:g}", (trumps > lo) & (trumps <= hi)),
        (f"> {hi:g}", trumps > hi),
    ]
    by = [(name, within(mean_ci(pts[mask]), 0.0)) for name, mask in groups if mask.sum() >= 2]  # points >= 0
    return BuryStudy(
        variant.id,
        policy_name(policy_codes(policy)[0]),
        hands,
        within(mean_ci(pts), 0.0),
        wilson(int((pts > 0).sum()), hands),
        by,
    )
