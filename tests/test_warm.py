"""Compiling the engine once, in the driver, and saying so: a first run that says what it waits for."""

from __future__ import annotations

import inspect
import io
import types

import pytest
from numba import njit

from simsuite.cli import ENGINE_COMMANDS, _compile_notice, main
from simsuite.engine.warm import CompileNotice
from simsuite.rules.variant import load_variant
from simsuite.sim import executor
from simsuite.sim.run import simulate

EV = types.SimpleNamespace(kind="numba:compile", data={})


def test_a_long_compile_is_announced_then_timed():
    out = io.StringIO()
    notice = CompileNotice(out, after_s=60.0)
    notice.on_start(EV)
    notice.on_start(EV)  # a callee compiles inside its caller's compile
    notice._announce()  # what the timer does once after_s has passed
    notice.on_end(EV)
    assert "compiled in" not in out.getvalue()  # the outer compile is still running
    notice.on_end(EV)
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("simsuite: compiling the engine, once per checkout")
    assert lines[1].startswith("simsuite: engine compiled in ") and "cache" in lines[1]


def test_a_short_compile_says_nothing():
    out = io.StringIO()
    notice = CompileNotice(out, after_s=60.0)
    notice.on_start(EV)
    notice.on_end(EV)
    notice._announce()  # a timer that fires after the compile ended is ignored
    assert out.getvalue() == ""
    assert notice.compiled_s >= 0.0 and notice.depth == 0


def test_the_notice_sees_numba_compiles_and_stops_watching_on_exit():
    @njit(cache=False)
    def fresh(x):  # defined here so that it compiles now, whatever the cache holds
        return x + 1

    with CompileNotice(io.StringIO(), after_s=60.0) as notice:
        assert fresh(1) == 2
    assert notice.compiled_s > 0.0 and notice.depth == 0

    @njit(cache=False)
    def fresher(x):
        return x * 2

    before = notice.compiled_s
    assert fresher(2) == 4
    assert notice.compiled_s == before  # unregistered on exit


def test_a_broken_stream_never_stops_a_run():
    class Broken(io.StringIO):
        def write(self, s):
            raise OSError("closed")

    notice = CompileNotice(Broken(), after_s=60.0)
    notice.on_start(EV)
    notice._announce()
    notice.on_end(EV)  # no exception


def test_only_engine_commands_watch_compiles_and_quiet_silences_them():
    engine = types.SimpleNamespace(command="simulate", quiet=False)
    assert isinstance(_compile_notice(engine), CompileNotice)
    assert not isinstance(_compile_notice(types.SimpleNamespace(command="simulate", quiet=True)), CompileNotice)
    assert not isinstance(_compile_notice(types.SimpleNamespace(command="variants")), CompileNotice)
    assert {"simulate", "sweep", "bench", "play", "duel", "advise"} <= ENGINE_COMMANDS
    assert "judge" not in ENGINE_COMMANDS and "report" not in ENGINE_COMMANDS


def test_simulate_warms_the_engine_in_the_driver_before_local_workers(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(executor, "warm_up", lambda *a, **k: calls.append(a) or 0.0)
    monkeypatch.setattr(executor, "_WARMED", set())
    simulate(
        dict(
            variants=["school-2016"],
            policies="basic",
            matches=4,
            seed=1,
            chunk=2,
            jobs=1,
            quiet=True,
            out=tmp_path / "run",
        )
    )
    assert calls == [()]
    # a second run of the same policy set in this process (a design's next round) has nothing to warm
    simulate(
        dict(
            variants=["school-2016"],
            policies="expert,basic",
            matches=4,
            seed=1,
            chunk=2,
            jobs=1,
            quiet=True,
            out=tmp_path / "run2",
        )
    )
    assert calls == [()]


def test_a_failed_warm_up_leaves_the_run_to_the_workers(tmp_path, monkeypatch):
    def boom(*a, **k):
        raise RuntimeError("no compiler today")

    monkeypatch.setattr(executor, "warm_up", boom)
    monkeypatch.setattr(executor, "_WARMED", set())
    out = simulate(
        dict(
            variants=["school-2016"],
            policies="basic",
            matches=4,
            seed=1,
            chunk=2,
            jobs=1,
            quiet=True,
            out=tmp_path / "run",
        )
    )
    assert (out / "manifest.json").exists()


@pytest.mark.parametrize("command", ["variants", "show school-2016"])
def test_commands_without_the_engine_print_no_compile_notice(command, capsys):
    assert main(command.split()) == 0
    assert "compiling" not in capsys.readouterr().err


def test_a_parallel_duel_warms_the_hand_loop_in_the_driver(monkeypatch):
    from simsuite.engine import warm
    from simsuite.rules.variant import load_variant
    from simsuite.sim.hands import play_hands

    calls = []
    real = warm.warm_up
    monkeypatch.setattr(warm, "warm_up", lambda *a, **k: calls.append(k.get("loop")) or real(*a, **k))
    v = load_variant("school-2016")
    rows = play_hands(v, 5, 4, "basic,basic", jobs=2, chunk=2)
    assert calls == ["hands"]
    assert (rows == play_hands(v, 5, 4, "basic,basic", jobs=1)).all()  # the warm-up changes no row


def test_warm_up_names_its_loops():
    from simsuite.engine.warm import warm_up

    assert warm_up(loop="hands") >= 0.0
    assert warm_up(load_variant("guangxi-2012"), loop="bury") >= 0.0  # no bottom there: buries school-2016's
    with pytest.raises(ValueError, match="loop is one of 'matches', 'hands', 'bury', 'every', not 'tricks'"):
        warm_up(loop="tricks")


def _order(func, *needles: str) -> list[int]:
    src = inspect.getsource(func.py_func)
    return [src.index(n) for n in needles]


def test_the_two_sets_compile_their_shared_policies_in_different_orders():
    """`make test`'s two workers compile the lean and the full set at once, each shared function once
    (tests/conftest.py): the one that reaches a function second waits for the other. numba compiles
    callees in the order their calls are written, so the orders are written to differ: the full run
    types the decision (the search) before the hand, whose deal and bury the lean worker compiles
    first; the search asks for follow candidates first, while the lean tricks loop compiles the lead
    policies first (docs/performance.md, "Two workers that compile in different orders"). Measured:
    the workers' waits for each other's locks went from 34 s to 1 s in a cold run."""
    from simsuite.engine import full, hand
    from simsuite.engine.policies import search

    decide, matches = _order(full.run, "H.decide(", "M.play_matches(")
    assert decide < matches
    follow, lead, bury = _order(search.decide, "follow_candidates(", "lead_candidates(", "bury_candidates(")
    assert follow < lead < bury
    lead_first, follow_second = _order(hand.play_tricks, "lead_three(", "follow_three(")
    assert lead_first < follow_second


@pytest.mark.parametrize("loop", ["matches", "bury"])
def test_the_engine_warm_up_compiles_what_the_library_then_plays(loop, monkeypatch):
    """The warm-up calls only the engine's entry points, with arguments of the types that the match API
    (``sim.match.play_match_batch``) and the bury study (``analysis.bury.bury_rows``) pass: the same
    compiled loop, so that the workers load it from the cache rather than compile another."""
    import numba

    from simsuite.analysis.bury import bury_rows
    from simsuite.engine import lean
    from simsuite.engine.warm import warm_up
    from simsuite.sim.match import play_match_batch

    seen = []
    real = lean.run
    monkeypatch.setattr(lean, "run", lambda *a: seen.append(tuple(numba.typeof(x) for x in a)) or real(*a))
    v = load_variant("school-2016")
    warm_up(v, "basic", loop=loop)
    if loop == "matches":
        play_match_batch(v, 1, 0, 2, "basic")
    else:
        bury_rows(v, "basic", 8, 1)
    assert len(seen) == 2 and seen[0] == seen[1]


@pytest.mark.full_loop  # the full set's hand calls the tricks loop: compiled (or loaded) by then
def test_the_tricks_loop_compiled_beside_is_the_one_the_hands_call():
    """``engine.warm.compile_tricks``, which a fresh learned or full compile runs in a second process,
    compiles ``hand.play_tricks`` with the argument types the hands pass it: numba's cache then holds
    one copy, which the hands load. With other types it would hold two, and the process beside would
    save nothing."""
    from simsuite.engine import hand
    from simsuite.engine.warm import compile_tricks, warm_up

    if not hasattr(hand.play_tricks, "_cache"):
        pytest.skip("NUMBA_DISABLE_JIT: nothing compiles")
    warm_up(load_variant("school-2016"), "expert-v1", "hands")
    compile_tricks("learned")
    index = hand.play_tricks._cache._cache_file._load_index()
    assert len(index) == 1, [key[0] for key in index]


def test_no_compile_beside_where_asked_or_cached(monkeypatch):
    """``SIMSUITE_COMPILE_ASIDE=0`` (the test suite's two workers) starts no second process."""
    from simsuite.engine import warm

    monkeypatch.setenv("SIMSUITE_COMPILE_ASIDE", "0")
    assert warm._tricks_aside("learned") is None
