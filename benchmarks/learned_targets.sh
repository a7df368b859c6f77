#!/usr/bin/env bash
# The learned policy against its targets (docs/policies.md, "The learned policy"): every
# figure of that section's table, from the shipped model, into one folder of text and JSON files.
# Seed 5 throughout (the model was trained on the deals of seed 2026 and developed on seed 1).
#   bash benchmarks/learned_targets.sh [OUT]        # about 25 minutes on two cores
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-results/learned-targets}"
S=.venv/bin/simsuite
mkdir -p "$OUT"
run() { local name=$1; shift; echo "== $name: simsuite $*" >&2; "$S" "$@" > "$OUT/$name"; }

# plays like search on every variant: take-over and defender points, paired on the same deals
run compare.json compare-policies --policies learned,search --hands 2000 --seed 5 --jobs 2 --json
# stronger than expert; close to search (duplicate hands)
run duel-expert.json duel --policies learned,expert --hands 2000 --seed 5 --jobs 2 --json
run duel-search.json duel --policies learned,search --hands 1000 --seed 5 --jobs 2 --json
# calibrated against the outside reference
run calibrate.json calibrate --policy learned --hands 6000 --seed 5 --jobs 2 --json
# responds to the rules: the bury under three capture multipliers, learned beside search
for m in 0 3 6; do
  for p in learned search; do
    run "bury-x$m-$p.json" bury --variant school-2016 --hands 400 --seed 5 --policy $p \
      --set capture_per_card=$m --set capture_side_per_card=$m --json
  done
done
# responds to the rules: guangxi-2012's multi-card last lead (the capture multiplier is the lead's size)
.venv/bin/python - > "$OUT/last-lead.json" <<'EOF'
import json
from simsuite.analysis.stats import wilson
from simsuite.engine.api import play_batch
from simsuite.engine.hand import RECORD_FIELDS
from simsuite.rules.variant import load_variant
m = RECORD_FIELDS.index("capture_multiplier")
out = {}
for pol, n in (("learned", 4000), ("search", 600), ("expert", 4000)):
    rows = play_batch(load_variant("guangxi-2012"), 5, n, pol)
    out[pol] = wilson(int((rows[:, m] >= 2).sum()), n).as_dict()
print(json.dumps(out, indent=1))
EOF
# fast: hands per second beside expert, alternating, three rounds each
for round in 1 2 3; do
  for v in school-2016 guangxi-2012; do
    for p in expert learned; do
      "$S" bench --policy $p --variant $v --hands 10000 --json >> "$OUT/bench.jsonl"
    done
  done
done
echo "$OUT" >&2
