"""guangxi-2012's multi-card last lead: the share of self-play hands whose last lead has two or more cards.

guangxi-2012 (第七章2) multiplies the last trick's points by the cards of the last lead, and a one-card
last lead captures nothing, so a player who plans the end keeps a pair for the last lead. Under its
rules (either side captures, with any suit) a hand's recorded capture multiplier is not 0 exactly when
the last lead had two or more cards (``tests/test_learned_responses.py`` checks this against the hands'
histories). Each policy plays all four seats on the same deals (hand ``i`` of the seed). The target
(docs/learned.md): learned within 25% of the reference's rate.

    .venv/bin/python benchmarks/last_lead.py --seed 5 --policies learned=4000,reference=400,expert=4000 --jobs 2
"""

from __future__ import annotations

import argparse
import json
import os

import numpy as np
from joblib import Parallel, delayed

from simsuite.analysis.stats import wilson
from simsuite.engine.api import play_batch
from simsuite.engine.hand import RECORD_FIELDS
from simsuite.engine.policies.model import ENV
from simsuite.rules.variant import load_variant

CHUNK = 50


def _multi(policy: str, seed: int, start: int, n: int, model: str | None) -> int:
    if model:
        os.environ[ENV] = model
    rows = play_batch(load_variant("guangxi-2012"), seed, n, policy, start=start)
    return int((rows[:, RECORD_FIELDS.index("capture_multiplier")] >= 2).sum())


def rate(policy: str, n: int, seed: int, jobs: int, model: str | None = None) -> dict:
    starts = range(0, n, CHUNK)
    counts = Parallel(n_jobs=jobs)(delayed(_multi)(policy, seed, s, min(CHUNK, n - s), model) for s in starts)
    return wilson(int(np.sum(counts)), n).as_dict()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument(
        "--policies", default="learned=4000,reference=400,expert=4000", help="policy=hands, comma-separated"
    )
    ap.add_argument("--model", help="the model learned plays (default: the shipped one)")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    out = {}
    for item in args.policies.split(","):
        policy, n = item.split("=")
        out[policy] = rate(policy, int(n), args.seed, args.jobs, args.model if policy == "learned" else None)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
