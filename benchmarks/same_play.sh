#!/usr/bin/env bash
# Does a change leave play alone? Runs the same play commands in two checkouts (each with its own .venv,
# `make install` there) and compares what they print and store: simulate + summary (text, JSON) of the
# five tournaments, three duels (search/learned, expert/random, expert-v1/basic), a hand's trace and one
# with search seats as JSON, a tournament, the exact model, bury, calibrate, compare-policies and a
# design. Every Parquet table must be equal (the run's folder name aside) and every text identical.
#   benchmarks/same_play.sh BEFORE_CHECKOUT AFTER_CHECKOUT [OUT]
# e.g. git worktree add ../before HEAD~1 && (cd ../before && make install) && benchmarks/same_play.sh ../before .
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 BEFORE_CHECKOUT AFTER_CHECKOUT [OUT]" >&2; exit 2; }
OUT="$(realpath -m "${3:-/tmp/same-play}")"
[ ! -e "$OUT" ] || { echo "$OUT exists: name a new folder" >&2; exit 2; }
play() {  # CHECKOUT FOLDER
  local S="$1/.venv/bin/simsuite" O="$2"
  mkdir -p "$O"
  (cd "$1"
   "$S" simulate --variant school-2016 --variant huizhou --variant baiyun-2016 --variant two-deck-2011 \
     --variant guangxi-2012 --policies expert,basic --matches 200 --seed 1 --out "$O/sim" --quiet
   "$S" summary "$O/sim" > "$O/summary.txt"
   "$S" summary "$O/sim" --json > "$O/summary.json"
   "$S" duel --variant school-2016 --policies search,learned --hands 20 --seed 1 2>/dev/null > "$O/duel-search-learned.txt"
   "$S" duel --variant huizhou --policies expert,random --hands 200 --seed 3 2>/dev/null > "$O/duel-expert-random.txt"
   "$S" duel --variant two-deck-2011 --policies expert-v1,basic --hands 100 --seed 2 2>/dev/null > "$O/duel-v1-basic.txt"
   "$S" play --variant school-2016 --seed 7 --ascii 2>/dev/null > "$O/play.txt"
   "$S" play --variant guangxi-2012 --seed 3 --policies search,expert --json 2>/dev/null > "$O/play-search.json"
   "$S" tournament --variant school-2016 --teams 4 --seed 2 2>/dev/null > "$O/tournament.txt"
   "$S" exact "$O/sim" --json > "$O/exact.json"
   "$S" bury --variant school-2016 --policy expert --hands 300 --seed 1 2>/dev/null > "$O/bury.txt"
   "$S" calibrate --hands 2000 --seed 1 2>/dev/null > "$O/calibrate.txt"
   "$S" compare-policies --variant school-2016 --policies expert,learned --hands 100 --seed 1 2>/dev/null > "$O/compare.txt"
   "$S" design tests/designs/tiny.toml --out "$O/design" --quiet > "$O/design.txt")
}
play "$(realpath "$1")" "$OUT/before"
play "$(realpath "$2")" "$OUT/after"
"$(realpath "$2")/.venv/bin/python" - "$OUT" <<'PY'
import json, pathlib, sys
import polars as pl
out = pathlib.Path(sys.argv[1]); a, b = out / "before", out / "after"
bad = [f.name for f in sorted(a.glob("*.txt")) + sorted(a.glob("*.json")) if f.read_bytes() != (b / f.name).read_bytes()]
tables = sorted(p.relative_to(a) for p in (a / "sim").rglob("*.parquet"))
for t in tables:
    x, y = pl.read_parquet(a / t), pl.read_parquet(b / t)
    if not x.drop("run", strict=False).equals(y.drop("run", strict=False)):
        bad.append(str(t))
d = [json.loads((s / "design" / "design.json").read_text()) for s in (a, b)]
for r in d:
    r.pop("seconds", None); r.pop("out", None)
if d[0] != d[1]:
    bad.append("design/design.json")
print(f"{len(tables)} Parquet tables and {len(list(a.glob('*.txt')) + list(a.glob('*.json'))) + 1} outputs compared: "
      + ("identical" if not bad else "DIFFERENT: " + ", ".join(bad)))
sys.exit(1 if bad else 0)
PY
