#!/bin/bash
# Where a bench spends its time, by compiled function and by offset inside it: perf samples the
# running `simsuite bench` (4,000 per second for 5 s), and gdb names each sampled address (numba
# registers its machine code with gdb; perf alone cannot name it). Inlined helpers count in the
# function they are inlined into. Usage, from the repository root with a warm cache:
#   benchmarks/perf_hotspots.sh basic school-2016            # samples per function
#   benchmarks/perf_hotspots.sh basic school-2016 _fill      # and the hottest offsets of one function
# Then `gdb -p PID -batch -ex "x/60i ADDRESS"` on a running bench shows the instructions there.
# Figures recorded in docs/performance.md ("Twice the speed, third change").
set -u
POL=${1:-basic}; V=${2:-school-2016}; FN=${3:-}
TMP=$(mktemp -d)
.venv/bin/simsuite bench --variant "$V" --policy "$POL" --hands 4000000 >/dev/null 2>&1 &
PID=$!
sleep 5
perf record -F 4000 -p $PID -o "$TMP/perf.data" -- sleep 5 >/dev/null 2>&1
perf script -i "$TMP/perf.data" -F ip 2>/dev/null | sort | uniq -c | sort -rn > "$TMP/ips"
head -600 "$TMP/ips" | awk '{print "info symbol 0x" $2}' > "$TMP/cmds"
gdb -p $PID -batch -x "$TMP/cmds" 2>/dev/null | grep -E " in section |No symbol matches" > "$TMP/syms"
kill $PID
# one line per address: samples, function, offset
paste -d' ' <(head -"$(wc -l < "$TMP/syms")" "$TMP/ips" | awk '{print $1}') \
    <(sed -E 's/^([^[]*)\[abi.*\) \+ ([0-9]+) in .*/\1 \2/; s/^([^ ]+) \+ ([0-9]+) in .*/\1 \2/; s/^simsuite::engine:://; s/^No symbol matches.*/(unnamed) 0/' "$TMP/syms") \
    > "$TMP/hot"
echo "samples: $(awk '{s+=$1} END {print s}' "$TMP/ips"), of them named (the 600 hottest addresses): $(awk '{s+=$1} END {print s}' "$TMP/hot")"
awk '{f[$2]+=$1} END {for (k in f) print f[k], k}' "$TMP/hot" | sort -rn | head -20
if [ -n "$FN" ]; then
  echo "hottest offsets in $FN:"
  grep "::$FN " "$TMP/hot" | head -20
fi
rm -rf "$TMP"
