"""Self-play figures the capture rules depend on: points buried and hands where the last-trick
capture scored, per policy (two-deck-2011, seed 1). Recorded in docs/policies.md."""

import sys

from simsuite.analysis.stats import mean_ci, wilson
from simsuite.engine.api import play_batch
from simsuite.engine.hand import RECORD_FIELDS
from simsuite.rules.variant import load_variant

v = load_variant(sys.argv[1] if len(sys.argv) > 1 else "two-deck-2011")
b, c = RECORD_FIELDS.index("bottom_points"), RECORD_FIELDS.index("capture_points")
for pol, n in (("expert", 4000), ("search", 120)):
    rows = play_batch(v, 1, n, pol)
    print(
        f"{pol:7s} points buried {mean_ci(rows[:, b]).fmt(2)}   hands with a scoring capture "
        f"{wilson(int((rows[:, c] != 0).sum()), n).fmt(pct=True)}"
    )
