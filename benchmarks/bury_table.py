"""The bury against the capture multiplier: points buried per hand by the dealer, learned beside the reference.

For each variant with a per-card capture (school-2016, huizhou, two-deck-2011 by default; ``--variants``) and each multiplier
(x0, x3, x6 per card of a trump unit, the side-suit factor in the variant's proportion:
``analysis.responses.multiplier_overrides``), hands are dealt, declared and buried only
(``simsuite bury``), the same deals for every policy. The target (docs/learned.md): at x3 and x6,
learned's figure inside the reference's 95% interval or within 25% of it.

    .venv/bin/python benchmarks/bury_table.py --hands 1600 --seed 4901 --models simsuite/models/learned.npz
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os

from simsuite.analysis.bury import bury_study
from simsuite.analysis.responses import multiplier_overrides
from simsuite.engine.policies.model import ENV
from simsuite.rules.variant import load_variant

VARIANTS = ("school-2016", "huizhou", "two-deck-2011")
MULTIPLIERS = (0, 3, 6)
TOLERANCE = 0.25


def figures(policy: str, model: str | None, hands: int, seed: int, cache: str | None = None, variants=VARIANTS) -> dict:
    """Every cell's points buried per hand; kept in ``cache`` (a folder) by policy, model bytes, hands and seed."""
    key = None
    if cache:
        h = hashlib.sha256(f"{policy} {hands} {seed} {' '.join(variants)}".encode())
        if model:
            h.update(open(model, "rb").read())
        key = os.path.join(cache, h.hexdigest()[:16] + ".json")
        if os.path.exists(key):
            return json.load(open(key))
    if model:
        os.environ[ENV] = model
    else:
        os.environ.pop(ENV, None)
    out = {}
    for vid in variants:
        base = load_variant(vid)
        for m in MULTIPLIERS:
            v = base.with_overrides(multiplier_overrides(base, m), source=f"{vid} x{m}")
            out[f"{vid} x{m}"] = bury_study(v, policy, hands, seed).points.as_dict()
    if key:
        os.makedirs(cache, exist_ok=True)
        json.dump(out, open(key, "w"))
    return out


def meets(learned: dict, ref: dict) -> bool:
    return (
        ref["low"] <= learned["value"] <= ref["high"]
        or abs(learned["value"] - ref["value"]) <= TOLERANCE * ref["value"]
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hands", type=int, default=1600)
    ap.add_argument("--seed", type=int, default=4901)
    ap.add_argument("--models", default="", help="learned model files, comma-separated (default: the shipped one)")
    ap.add_argument("--reference", default="reference")
    ap.add_argument("--variants", default=",".join(VARIANTS), help="tournaments that capture per card, comma-separated")
    ap.add_argument("--cache", help="a folder keeping each policy's figures (by policy, model, hands and seed)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    variants = tuple(args.variants.split(","))
    rows = {args.reference: figures(args.reference, None, args.hands, args.seed, args.cache, variants)}
    for model in [m for m in args.models.split(",") if m] or [""]:
        rows[f"learned ({model or 'shipped'})"] = figures(
            "learned", model or None, args.hands, args.seed, args.cache, variants
        )
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    ref = rows[args.reference]
    print(f"points buried per hand by the dealer, {args.hands} deals of seed {args.seed} per cell; 95% intervals")
    for name, r in rows.items():
        print(f"\n{name}")
        for cell, e in r.items():
            mark = ""
            if name != args.reference and not cell.endswith("x0"):
                mark = "  meets the target" if meets(e, ref[cell]) else "  misses the target"
                mark += f" ({e['value'] / ref[cell]['value']:.2f} of the reference)" if ref[cell]["value"] else ""
            print(f"  {cell:<18} {e['value']:6.2f} [{e['low']:.2f}, {e['high']:.2f}] (n = {e['n']}){mark}")


if __name__ == "__main__":
    main()
