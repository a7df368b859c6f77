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

from .policies import FULL, LEARNED_SET

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
# the policy spec that warms up each policy set (``policies.full_for``): the cheapest that needs it
WARM_SPEC = {None: "basic", LEARNED_SET: "learned", FULL: "expert-v1"}
WARM_MATCH_HANDS = 4  # the warm-up's match is untimed and stops after this many hands: only its compile counts


def warm_up(variant=None, policies: str | Iterable[str] = "basic", loop: str = "matches") -> float:
    """Compile, or load from numba's cache, one of the engine's loops with everything it calls:
    ``"matches"`` (the match loop: simulate, sweep, calibrate) by playing one short match, ``"hands"``
    (the hand loop: duel, compare-policies) by playing one hand, ``"bury"`` (the bury loop:
    ``simsuite bury``) by burying four hands, all of ``variant`` (default ``school-2016``), or
    ``"every"``: the three (what the test suite calls, with the Python path's decision for the full
    set; ``tests/conftest.py``). ``policies``: the run's policy spec, or several. What compiles
    depends on their policy set, not on the policies themselves (``policies.full_for``): the lean
    loop for random, basic and expert, warmed with ``basic``; the learned one, with ``learned``; the
    full one, with search and ``expert-v1``, warmed with ``expert-v1`` (a search would play slowly). Only the engine's own
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
        spec = WARM_SPEC[full]
        aside = _tricks_aside(spec) if full is not None and loop != "bury" else None
        try:
            if loop in ("matches", "every"):
                _play_match(v, spec)
            if loop in ("hands", "every"):
                play_batch(v, 0, 1, spec)
            if loop in ("bury", "every"):
                _bury(v if v.bottom_size else load_variant("school-2016"), spec, 4)
        finally:
            if aside is not None and aside.poll() is None:  # this process compiled the tricks loop itself
                aside.kill()
                aside.wait()
    return time.perf_counter() - t0


# --- the tricks loop, compiled beside -----------------------------------------------------------------
# A fresh compile of the learned or the full set types the hand's decision first (the learned model's
# candidate lists and features, or the search), and the tricks loop (``hand.play_tricks``, about 20 s
# of the compile, 50 s with the expert's follow it calls) after it. numba compiles one function at a
# time, on one core; the machines this runs on have two. So ``warm_up`` starts a second process that
# compiles the tricks loop with the hand's argument types and writes numba's cache, while this one
# compiles the rest; when this one reaches the tricks loop it loads it from the cache (numba looks
# there before compiling any function). About 20 s of a learned compile's 95 to 120 s on these machines
# (docs/performance.md, "Compilation"). Where the cache already holds the tricks loop nothing starts;
# where the second process has not finished in time, this one compiles the loop as before and stops
# the other: only the time depends on it. SIMSUITE_COMPILE_ASIDE=0 starts none (``tests/conftest.py``).


def _tricks_aside(spec: str):
    """A process compiling ``hand.play_tricks`` for ``spec``'s policy set (``compile_tricks``), or
    None when numba's cache already holds it."""
    import os
    import subprocess

    from .hand import play_tricks

    if os.environ.get("SIMSUITE_COMPILE_ASIDE") == "0":  # the test suite, whose two workers compile already
        return None
    try:
        if os.path.exists(play_tricks._cache._cache_file._index_path):  # numba's own layout; else start it
            return None
    except AttributeError:
        pass
    code = f"from simsuite.engine.warm import compile_tricks; compile_tricks({spec!r})"
    try:
        return subprocess.Popen(
            [sys.executable, "-c", code], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
    except OSError:
        return None


def compile_tricks(spec: str = "learned") -> None:
    """Compile ``hand.play_tricks`` with the argument types the hands of ``spec``'s policy set pass
    it (``hand._play_deciding``), into numba's cache."""
    import numpy as np
    from numba import typeof

    from ..rules.variant import load_variant
    from . import phases as ph
    from .hand import PLAY_COLS, play_tricks
    from .names import policy_codes
    from .params import compile_variant
    from .policies.model import work_for

    codes = policy_codes(spec)
    args = (
        compile_variant(load_variant("school-2016")),
        ph.new_state(),
        codes,
        work_for(codes),
        np.zeros(4, np.int64),  # the hand's random state
        False,  # keep
        np.zeros((1, PLAY_COLS), np.int64),
        0,  # nplays
        0,  # first_row
        False,  # given
    )
    play_tricks.compile(tuple(typeof(a) for a in args))


def _play_match(variant, spec: str) -> None:
    """Match 0 of the run with seed 0 through the compiled match loop (``engine.api.play_matches``,
    with the arguments' types of ``sim.match.play_match_batch``), untimed and stopped after
    ``WARM_MATCH_HANDS`` hands; nothing of it is kept."""
    import numpy as np

    from . import match as M
    from .api import play_matches
    from .hand import N_RECORD
    from .names import policy_codes
    from .params import compile_variant
    from .policies import full_for
    from .policies.model import work_for
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
    from .names import policy_codes
    from .params import compile_variant
    from .policies import full_for
    from .policies.model import work_for
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
