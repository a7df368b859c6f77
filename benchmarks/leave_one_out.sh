#!/usr/bin/env bash
# Leave one tournament out (docs/learned.md, "Leave one tournament out"): for each of the five, the
# shipped model's recipe retrained without that tournament's hands (as written and with drawn
# parameters), then its rule responses on that tournament: the bury table where it captures per card,
# the multi-card last lead on guangxi-2012. The collections are those of docs/learned.md ("How the
# shipped model is made"); BASE is the first-format model the recipe starts from.
#   bash benchmarks/leave_one_out.sh simsuite/models/lineage/first.npz [OUT] [TOURNAMENT ...]   # about 35 minutes on one core for all five
set -euo pipefail
cd "$(dirname "$0")/.."
BASE="$1"
OUT="${2:-results/learn/loo}"
shift $(( $# < 2 ? $# : 2 ))
TOURNAMENTS="${*:-school-2016 huizhou baiyun-2016 two-deck-2011 guangxi-2012}"
S=.venv/bin/simsuite
PY=.venv/bin/python
mkdir -p "$OUT"
for t in $TOURNAMENTS; do
  $S learn train results/learn/bury-4701 --base "$BASE" --groups none --heads bury --leave-out $t \
    --out "$OUT/$t-bury.npz" > "$OUT/$t-bury.txt"
  $S learn train results/learn/iter-4702 results/learn/iter-4703 --base "$OUT/$t-bury.npz" \
    --groups end-lead,end-follow --leave-out $t --out "$OUT/$t.npz" > "$OUT/$t.txt"
  if [ $t = guangxi-2012 ]; then
    $PY benchmarks/last_lead.py --seed 5 --policies learned=4000 --model "$OUT/$t.npz" --jobs 1 > "$OUT/$t-last-lead.json"
  else
    $PY benchmarks/bury_table.py --hands 1600 --seed 5 --variants $t --models "$OUT/$t.npz" \
      --cache "$OUT/cache" --json > "$OUT/$t-bury-table.json"
  fi
done
echo "$OUT" >&2
