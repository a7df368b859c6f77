"""Compiling the engine: once, before any worker starts, and never in silence.

numba compiles the engine the first time a checkout runs it and keeps the machine code in its
cache (``__pycache__`` beside each module), so every later run, and every worker process, only
loads it. Two things keep that first run from being a silent wait:

- ``warm_up`` compiles (or loads) the match loop in the driver, before a pool of workers starts:
  the workers then load the cache instead of compiling the same code side by side;
- ``CompileNotice`` watches numba's compile events and, when a compile has run for
  ``NOTICE_AFTER_S``, says on stderr that the engine is compiling, then how long it took. A warm
  cache raises no compile event, so a warm run prints nothing.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterable

from numba.core import event

NOTICE_AFTER_S = 2.0  # a cached engine loads in about a second; a cold compile takes minutes
# the cold compile of the match loop: about 95 s on one core of the CI machine class for random, basic
# and expert, about 165 s with search and expert-v1 (docs/performance.md, "Compilation")
EXPECTED_COMPILE = "about 1.5 min on one core, 3 with search or expert-v1"


class CompileNotice(event.Listener):
    """While registered, announces a compile that lasts longer than ``after_s`` seconds on
    ``stream``, and its duration when it ends. Use it as a context manager."""

    def __init__(self, stream=None, after_s: float | None = None):
        self.stream = stream if stream is not None else sys.stderr
        self.after_s = NOTICE_AFTER_S if after_s is None else after_s
        self.depth = 0  # nested compile events: a function compiles its callees inside its own compile
        self.started = 0.0
        self.announced = False
        self.timer: threading.Timer | None = None
        self.compiled_s = 0.0  # total seconds spent compiling while registered

    def on_start(self, ev) -> None:
        if self.depth == 0:
            self.started = time.perf_counter()
            self.announced = False
            self.timer = threading.Timer(self.after_s, self._announce)
            self.timer.daemon = True
            self.timer.start()
        self.depth += 1

    def on_end(self, ev) -> None:
        self.depth -= 1
        if self.depth:
            return
        if self.timer is not None:
            self.timer.cancel()
        secs = time.perf_counter() - self.started
        self.compiled_s += secs
        if self.announced:
            self._say(f"simsuite: engine compiled in {secs:.0f} s; later runs load it from numba's cache")

    def _announce(self) -> None:
        if self.depth:
            self.announced = True
            self._say(f"simsuite: compiling the engine, once per checkout ({EXPECTED_COMPILE}) ...")

    def _say(self, text: str) -> None:
        try:
            print(text, file=self.stream, flush=True)
        except (OSError, ValueError):  # a closed or broken stream never stops a run
            pass

    def __enter__(self) -> "CompileNotice":
        event.register("numba:compile", self)
        return self

    def __exit__(self, *exc) -> None:
        if self.timer is not None:
            self.timer.cancel()
        event.unregister("numba:compile", self)


LOOPS = ("matches", "hands", "bury", "every")


def warm_up(variant=None, policies: str | Iterable[str] = "basic", loop: str = "matches") -> float:
    """Compile, or load from numba's cache, one of the engine's loops with everything it calls:
    ``"matches"`` (the match loop: simulate, sweep, calibrate) by playing one match, ``"hands"``
    (the hand loop: duel, compare-policies) by playing one hand, ``"bury"`` (the bury loop:
    ``simsuite bury``) by burying four hands, all of ``variant`` (default ``school-2016``), or
    ``"every"``: the three, and for the full set the Python path's decision too (what the test
    suite calls; ``tests/conftest.py``). ``policies``: the run's policy spec, or several. What
    compiles depends on their policy set, not on the policies themselves (``policies.full_for``):
    the lean loop for random, basic and expert, warmed with ``basic``; the full one, with search
    and ``expert-v1``, warmed with ``expert-v1`` (a search would play slowly). Returns the seconds
    it took."""
    from ..rules.variant import load_variant
    from .names import policy_codes
    from .policies import full_for

    if loop not in LOOPS:
        raise ValueError(f"warm_up: loop is one of {', '.join(map(repr, LOOPS))}, not {loop!r}")
    specs = [policies] if isinstance(policies, str) else list(policies)
    sets = {full_for(policy_codes(spec)) for spec in specs}
    v = variant if variant is not None else load_variant("school-2016")
    t0 = time.perf_counter()
    for full in sorted(sets, key=lambda f: f is not None):
        spec = "basic" if full is None else "expert-v1"
        if loop in ("matches", "every"):
            from ..compete.match import play_match_batch

            play_match_batch(v, 0, 0, 1, spec)
        if loop in ("hands", "every"):
            from .api import play_batch

            play_batch(v, 0, 1, spec)
        if loop in ("bury", "every"):
            from ..analysis.bury import bury_rows

            bury_rows(v if v.bottom_size else load_variant("school-2016"), spec, 4, 0)
        if loop == "every" and full is not None:
            from ..play.builtin import BuiltinPolicy
            from ..play.pyhand import play_hand_py

            play_hand_py(v, 0, [BuiltinPolicy(spec) for _ in range(4)])
    return time.perf_counter() - t0


if __name__ == "__main__":  # python -m simsuite.engine.warm: compile the match loop now, saying so
    with CompileNotice(after_s=0.0):
        print(f"simsuite: match loop ready in {warm_up():.1f} s", file=sys.stderr)
