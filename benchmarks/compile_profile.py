"""Where numba's first compile of the match loop spends its time, per compiled function.

    NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/compile_profile.py [--policies basic,basic] [--variant school-2016]
    NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/compile_profile.py --sets lean,full
    NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/compile_profile.py --policies learned --warm

With an empty cache folder (``NUMBA_CACHE_DIR``) everything compiles, as on a fresh checkout,
without touching the checkout's own cache. Prints the time of the first match, then the functions
by their own compile time (a function's compile includes its callees' first compiles; "own"
subtracts them) with the part of it that LLVM took ("llvm": numba's ``finalize`` of the function's
library, which optimises and generates the machine code of the function and of every callee linked
into it), then every function numba compiled more than once, with the argument types of each copy:
a copy per ``Literal`` constant is the usual cause (``engine.core.as_int``).

``--sets`` compiles policy sets instead, as ``make test`` does (``tests/conftest.py``): ``lean``
(the match, hand and bury loops with random, basic and expert), ``learned`` (the same with learned:
``engine.lean.run_learned``, what ``make demo`` compiles) and ``full`` (``engine.full.run``
and ``hand.play_hand_full``, reached through each of their callers), one after the other, and
profiles the last one named: ``--sets lean,full`` is the full set once the lean set is compiled.
The CPU seconds beside each time are the process's own: two runs side by side on two cores
compare by them better than by their wall times. Figures recorded in docs/performance.md
("Compilation").
"""

from __future__ import annotations

import argparse
import collections
import time

from numba.core import codegen, event


class Profile(event.Listener):
    def __init__(self):
        self.stack: list[list] = []
        self.own = collections.Counter()
        self.total = collections.Counter()
        self.count = collections.Counter()
        self.args: dict[str, list[str]] = collections.defaultdict(list)
        self.llvm = collections.Counter()

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


def time_llvm(prof: Profile) -> None:
    """Add LLVM's time (numba's ``CPUCodeLibrary.finalize``) to ``prof.llvm``, under the function
    being compiled: a function's library is finalised inside its own compile, after its callees'."""
    finalize = codegen.CPUCodeLibrary.finalize

    def timed(lib):
        t0 = time.perf_counter()
        try:
            return finalize(lib)
        finally:
            prof.llvm[prof.stack[-1][0] if prof.stack else "(outside a compile)"] += time.perf_counter() - t0

    codegen.CPUCodeLibrary.finalize = timed


def compile_set(kind: str, variant) -> None:
    """Compile one policy set's entry points as ``make test`` does (``tests/conftest.py``)."""
    from simsuite.engine.warm import warm_up

    warm_up(variant, {"lean": "basic", "learned": "learned", "full": "expert-v1"}[kind], "every")
    if kind == "full":  # the Python path's built-in seats, as conftest warms them
        from simsuite.play.pyhand import warm_up_python_path

        warm_up_python_path(variant)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--policies", default="basic,basic")
    ap.add_argument("--variant", default="school-2016")
    ap.add_argument("--sets", default="", help="lean, learned, full, or several (lean,full): compile policy sets")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument(
        "--warm",
        action="store_true",
        help="compile the match loop as simulate does (engine.warm.warm_up, with the tricks loop compiled beside "
        "unless SIMSUITE_COMPILE_ASIDE=0) rather than by playing a match",
    )
    args = ap.parse_args()
    from simsuite.rules.variant import load_variant
    from simsuite.sim.match import play_match_batch

    variant = load_variant(args.variant)
    sets = [k for k in args.sets.split(",") if k]
    if any(k not in ("lean", "learned", "full") for k in sets):
        ap.error(f"--sets: lean, learned or full, comma-separated, not {args.sets!r}")
    for kind in sets[:-1]:
        t0, c0 = time.perf_counter(), time.process_time()
        compile_set(kind, variant)
        print(f"{kind} set first: {time.perf_counter() - t0:.1f} s ({time.process_time() - c0:.1f} CPU-s)")
    prof = Profile()
    time_llvm(prof)
    event.register("numba:compile", prof)
    t0, c0 = time.perf_counter(), time.process_time()
    if sets:
        compile_set(sets[-1], variant)
        what = f"{sets[-1]} set"
    elif args.warm:
        from simsuite.engine.warm import warm_up

        warm_up(variant, args.policies, "matches")
        what = "warm-up of the match loop"
    else:
        play_match_batch(variant, 1, 0, 1, args.policies)
        what = "first match"
    first, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(
        f"{what}: {first:.1f} s ({cpu:.1f} CPU-s); compiling: {sum(prof.own.values()):.1f} s in "
        f"{sum(prof.count.values())} compiles of {len(prof.count)} functions; LLVM {sum(prof.llvm.values()):.1f} s"
    )
    print(f"{'own s':>7} {'llvm s':>7} {'total s':>8} {'copies':>6}  function")
    for name, secs in prof.own.most_common(args.top):
        print(f"{secs:7.1f} {prof.llvm[name]:7.1f} {prof.total[name]:8.1f} {prof.count[name]:6d}  {name}")
    mine = [n for n in prof.count if prof.count[n] > 1 and n.split(".")[0] in {"engine", "sim"}]
    if mine:
        print("\ncompiled more than once (argument types of each copy):")
        for name in mine:
            print(f"  {name}")
            for a in prof.args[name]:
                print(f"    {a if len(a) <= 160 else a[:80] + ' … ' + a[-160:]}")


if __name__ == "__main__":
    main()
