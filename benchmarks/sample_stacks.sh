#!/bin/bash
# Where a bench spends its time: N gdb backtraces of a running `simsuite bench`, one line each
# (innermost frame first, frames separated by |). MCJIT registers numba's code with gdb, so the
# frames are named. Usage, from the repository root with a warm cache:
#   benchmarks/sample_stacks.sh basic school-2016 60 > samples.txt
#   cut -d'|' -f1 samples.txt | sed -E 's/\[abi.*//' | sort | uniq -c | sort -rn | head   # innermost
#   grep '^NRT_' samples.txt | cut -d'|' -f2 | sed -E 's/\[abi.*//' | sort | uniq -c | sort -rn  # who refcounts
# Figures recorded in docs/performance.md ("Where the time goes now").
set -u
POL=${1:-basic}; V=${2:-school-2016}; N=${3:-40}
.venv/bin/simsuite bench --variant $V --policy $POL --hands 400000 >/dev/null 2>&1 &
PID=$!
sleep 8
for i in $(seq $N); do
  gdb -p $PID -batch -ex "bt 12" 2>/dev/null | grep "^#" | sed -E 's/^#([0-9]+) +(0x[0-9a-f]+ in )?//; s/ \(.*//' | head -6 | tr '\n' '|' ; echo
  sleep 0.3
done
kill $PID
