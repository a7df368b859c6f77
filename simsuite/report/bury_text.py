"""The text of ``simsuite bury``: the points a policy buries, overall and by the trumps the dealer keeps."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..analysis.bury import BuryStudy


def format_bury(r: BuryStudy, overrides: Mapping[str, Any], seed: int) -> str:
    """The figures of ``analysis.bury.bury_study`` with their 95% intervals; the ``--set`` overrides in the title."""
    sets = " ".join(f"{k}={val}" for k, val in overrides.items())
    lines = [
        f"{r.variant}{' (' + sets + ')' if sets else ''}: {r.policy} buries, {r.hands} hands (seed {seed}); "
        "95% intervals",
        f"  points buried per hand     {r.points.fmt(2)}",
        f"  hands with points buried   {r.any_points.fmt(pct=True)}",
    ]
    lines += [f"  dealer keeps {name} trumps: {e.fmt(2)}" for name, e in r.by_trumps]
    return "\n".join(lines)
