"""Where numba's first compile of the match loop spends its time, per compiled function.

    NUMBA_CACHE_DIR=$(mktemp -d) python examples/compile_profile.py [--policies basic,basic] [--variant school-2016]

With an empty cache folder (``NUMBA_CACHE_DIR``) everything compiles, as on a fresh checkout,
without touching the checkout's own cache. Prints the time of the first match, then the functions
by their own compile time (a function's compile includes its callees' first compiles; "own"
subtracts them), then every function numba compiled more than once, with the argument types of
each copy: a copy per ``Literal`` constant is the usual cause (``engine.core.as_int``).
Figures recorded in docs/performance.md ("Compilation").
"""

from __future__ import annotations

import argparse
import collections
import time

from numba.core import event


class Profile(event.Listener):
    def __init__(self):
        self.stack: list[list] = []
        self.own = collections.Counter()
        self.total = collections.Counter()
        self.count = collections.Counter()
        self.args: dict[str, list[str]] = collections.defaultdict(list)

    def on_start(self, ev):
        f = ev.data["dispatcher"].py_func
        name = f"{f.__module__.removeprefix('simsuite.')}.{f.__qualname__}"
        self.args[name].append(str(ev.data.get("args")))
        self.stack.append([name, time.perf_counter(), 0.0])

    def on_end(self, ev):
        name, t0, children = self.stack.pop()
        secs = time.perf_counter() - t0
        self.total[name] += secs
        self.own[name] += secs - children
        self.count[name] += 1
        if self.stack:
            self.stack[-1][2] += secs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--policies", default="basic,basic")
    ap.add_argument("--variant", default="school-2016")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    prof = Profile()
    event.register("numba:compile", prof)
    from simsuite.compete.match import play_match_batch
    from simsuite.rules.variant import load_variant

    t0 = time.perf_counter()
    play_match_batch(load_variant(args.variant), 1, 0, 1, args.policies)
    first = time.perf_counter() - t0
    print(f"first match: {first:.1f} s; compiling: {sum(prof.own.values()):.1f} s in "
          f"{sum(prof.count.values())} compiles of {len(prof.count)} functions")
    print(f"{'own s':>7} {'total s':>8} {'copies':>6}  function")
    for name, secs in prof.own.most_common(args.top):
        print(f"{secs:7.1f} {prof.total[name]:8.1f} {prof.count[name]:6d}  {name}")
    mine = [n for n in prof.count if prof.count[n] > 1 and n.split(".")[0] in {"engine", "compete"}]
    if mine:
        print("\ncompiled more than once (argument types of each copy):")
        for name in mine:
            print(f"  {name}")
            for a in prof.args[name]:
                print(f"    {a if len(a) <= 160 else a[:80] + ' … ' + a[-160:]}")


if __name__ == "__main__":
    main()
