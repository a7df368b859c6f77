#!/usr/bin/env bash
# The learned policy against its targets (docs/policies.md, "The learned policy"): every figure of that
# section's table, from the shipped model, into one folder of text and JSON files. Seed 5 throughout
# (the collections the model was trained on are seeds 4701 to 4703; seed 5 was never trained on).
#   bash benchmarks/learned_targets.sh [OUT] [PREVIOUS_MODEL.npz]   # about 40 minutes on two cores
# PREVIOUS_MODEL: the model shipped before this one, for the duel against it (default: skipped).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-results/learned-targets}"
PREVIOUS="${2:-}"
S=.venv/bin/simsuite
PY=.venv/bin/python
mkdir -p "$OUT"
run() { local name=$1; shift; echo "== $name: simsuite $*" >&2; "$S" "$@" > "$OUT/$name"; }

# rule responses: every field the notebooks vary, learned beside the reference on the same deals
run responses.json learn responses --reference reference --deals 100 --seed 5 --jobs 2 --json
# the bury table: x3 and x6 against the reference on three tournaments
$PY benchmarks/bury_table.py --hands 1600 --seed 5 --json > "$OUT/bury-table.json"
# guangxi-2012's multi-card last lead
$PY benchmarks/last_lead.py --seed 5 --policies learned=4000,reference=600,expert=4000 --jobs 2 > "$OUT/last-lead.json"
# strength: against the reference (300 pairs a variant), against expert, against the previous model
run duel-reference.json duel --policies learned,reference --hands 300 --seed 5 --jobs 2 --json
run duel-expert.json duel --policies learned,expert --hands 2000 --seed 5 --jobs 2 --json
if [ -n "$PREVIOUS" ]; then
  $PY benchmarks/model_duel.py "$PREVIOUS" --hands 2000 --seed 5 > "$OUT/duel-previous.json"
fi
# calibrated against the outside reference
run calibrate.json calibrate --policy learned --hands 6000 --seed 5 --jobs 2 --json
# fast: hands per second beside expert, alternating, three rounds each
for round in 1 2 3; do
  for v in school-2016 guangxi-2012; do
    for p in expert learned; do
      "$S" bench --policy $p --variant $v --hands 10000 --json >> "$OUT/bench.jsonl"
    done
  done
done
echo "$OUT" >&2
