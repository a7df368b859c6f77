"""Two learned models at one table: duplicate duels of a model against another, on every variant.

``learned`` plays the model in its seat's slot of the work buffer (``engine.core``: ``lslot`` and the two
``model`` slots), so a table can seat two models: team A plays model A, team B model B, and the same
deals are played again with the teams swapped (``compete.duel``'s duplicate pairs). The figure is A's
net levels per hand, averaged over the two tables, with a 95% interval over pairs.

    .venv/bin/python benchmarks/model_duel.py OLD.npz --model NEW.npz --hands 2000 --seed 5
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from simsuite.analysis.stats import mean_ci
from simsuite.engine.api import play_batch
from simsuite.engine.core import Work
from simsuite.engine.hand import RECORD_FIELDS
from simsuite.engine.policies.model import SHIPPED
from simsuite.learn.train import playable_words
from simsuite.rules.variant import known_ids, load_variant

L0, L1 = RECORD_FIELDS.index("levels_ns"), RECORD_FIELDS.index("levels_ew")


def duel(vid: str, a, b, hands: int, seed: int) -> dict:
    v = load_variant(vid)
    first = play_batch(v, seed, hands, "learned", work=Work(a, b, [0, 1, 0, 1]).arrays())
    second = play_batch(v, seed, hands, "learned", work=Work(a, b, [1, 0, 1, 0]).arrays())
    net = (first[:, L0] - first[:, L1]) + (second[:, L1] - second[:, L0])
    return {"variant": vid, "pairs": hands, "net_levels": mean_ci(net / 2.0).as_dict()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("other", help="model B (.npz with its card)")
    ap.add_argument("--model", default=str(SHIPPED), help="model A (default: the shipped one)")
    ap.add_argument("--hands", type=int, default=2000, help="duplicate pairs per variant")
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    a, b = playable_words(args.model), playable_words(args.other)  # a first-format model is widened
    out = {"a": args.model, "b": args.other, "duels": [duel(v, a, b, args.hands, args.seed) for v in known_ids()]}
    print(json.dumps(out, indent=1))
    for d in out["duels"]:
        e = d["net_levels"]
        print(
            f"{d['variant']:<14} {e['value']:+.3f} [{e['low']:+.3f}, {e['high']:+.3f}] (n = {e['n']})",
            file=__import__("sys").stderr,
        )
    assert np.isfinite([d["net_levels"]["value"] for d in out["duels"]]).all()


if __name__ == "__main__":
    main()
