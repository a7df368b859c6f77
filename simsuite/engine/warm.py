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

    def __enter__(self) -> CompileNotice:
        event.register("numba:compile", self)
        return self

    def __exit__(self, *exc) -> None:
        if self.timer is not None:
            self.timer.cancel()
        event.unregister("numba:compile", self)


LOOPS = ("matches", "hands", "bury", "every")
WARM_MATCH_HANDS = 4  # the warm-up's match is untimed and stops after this many hands: only its compile counts


def warm_up(variant=None, policies: str | Iterable[str] = "basic", loop: str = "matches") -> float:
    """Compile, or load from numba's cache, one of the engine's loops with everything it calls:
    ``"matches"`` (the match loop: simulate, sweep, calibrate) by playing one short match, ``"hands"``
    (the hand loop: duel, compare-policies) by playing one hand, ``"bury"`` (the bury loop:
    ``simsuite bury``) by burying four hands, all of ``variant`` (default ``school-2016``), or
    ``"every"``: the three (what the test suite calls, with the Python path's decision for the full
    set; ``tests/conftest.py``). ``policies``: the run's policy spec, or several. What compiles
    depends on their policy set, not on the policies themselves (``policies.full_for``): the lean
    loop for random, basic and expert, warmed with ``basic``; the full one, with search and
    ``expert-v1``, warmed with ``expert-v1`` (a search would play slowly). Only the engine's own
    entry points (``engine.api``) are called. Returns the seconds it took."""
    from ..rules.variant import load_variant
    from .api import play_batch
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
            _play_match(v, spec)
        if loop in ("hands", "every"):
            play_batch(v, 0, 1, spec)
        if loop in ("bury", "every"):
            _bury(v if v.bottom_size else load_variant("school-2016"), spec, 4)
    return time.perf_counter() - t0


def _play_match(variant, spec: str) -> None:
    """Match 0 of the run with seed 0 through the compiled match loop (``engine.api.play_matches``,
    with the arguments' types of ``sim.match.play_match_batch``), untimed and stopped after
    ``WARM_MATCH_HANDS`` hands; nothing of it is kept."""
    import numpy as np

    from . import match as M
    from .api import play_matches
    from .hand import N_RECORD
    from .model import work_for
    from .names import policy_codes
    from .params import compile_variant
    from .policies import full_for
    from .rng import run_key

    codes = policy_codes(spec)
    cap = WARM_MATCH_HANDS
    clock = np.zeros(6, np.int64)  # match_minutes 0: untimed (sim.match.clock_array's layout)
    play_matches(
        compile_variant(variant),
        clock,
        run_key(0),
        0,
        1,
        codes,
        cap,
        work_for(codes),
        np.zeros((1, M.N_MATCH), np.int64),
        np.zeros((1, cap, N_RECORD), np.int64),
        np.zeros(1, np.int64),
        np.zeros((1, cap, 2), np.int64),
        full_for(codes),
    )


def _bury(variant, spec: str, hands: int) -> None:
    """Hands 0..hands-1 of the run with seed 0 dealt, declared and buried through the compiled bury
    loop (``engine.api.bury_many``, with the arguments' types of ``analysis.bury.bury_rows``)."""
    import numpy as np

    from .api import bury_many
    from .model import work_for
    from .names import policy_codes
    from .params import compile_variant
    from .policies import full_for
    from .rng import run_key

    codes = policy_codes(spec)
    levels = np.full(hands, variant.start_level, np.int64)
    drawers = np.arange(hands, dtype=np.int64) % 4
    bury_many(
        compile_variant(variant),
        run_key(0),
        0,
        levels,
        drawers,
        codes,
        work_for(codes),
        np.zeros((hands, 3), np.int64),
        full_for(codes),
    )
