"""`simsuite explore`: the rules explorer page (docs/explore.md).

One small sweep is played once for the module (two-deck-2011, expert against basic, capture x2 and x3,
12 matches a cell) and its page written once by the command; a second small run (guangxi-2012 and
school-2016, one policy on both sides, 10 deals at two tables) covers the rest of the rules the page
re-scores with. The checks:

- the page is one self-contained file that opens with the answer, and the command prints its path;
  bad input (a folder that is not a run, -o onto the run's own files, a bad --seed) is one line;
- the Python twin (``simsuite.analysis.explore``) is the exact model: its point figures are
  ``exact_model(..., approximate=True)``'s for the same re-scoring;
- in headless Chromium, the page's JavaScript gives the twin's figures and intervals on a grid of
  settings (TOL_VALUE, TOL_INTERVAL), and refuses the settings the rules refuse;
- driven by real input events (keys on the sliders and selects, typing, clicks), the page shows the
  twin's figures as text, its address holds the setting and the pinned one, and a fresh page opened
  at that address shows the same; a screenshot goes into the test's tmp folder.

The Chromium tests are skipped, saying why, where no Chromium binary is installed.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from urllib.parse import quote

import numpy as np
import polars as pl
import pytest
from cli import one_line_error, run_cli
from PIL import Image

from simsuite.analysis.exact import exact_model
from simsuite.analysis.explore import Setting, cell_model, explore_figures, spt_x100_at, target_variant
from simsuite.errors import SimsuiteError
from simsuite.rules.cards import RANK_NAMES
from simsuite.sim.results import load
from simsuite.sim.run import sweep

# the page's figures against the Python twin's: a point figure to 1e-9 of max(1, |value|) (the same
# sums in another order), an interval's bounds to 1e-6 of it (the twin's derivatives are central
# differences, step 1e-4, of the page's adjoint's)
TOL_VALUE = 1e-9
TOL_INTERVAL = 1e-6


@pytest.fixture(scope="module")
def grid_run(tmp_path_factory) -> Path:
    where = tmp_path_factory.mktemp("explore")
    spec = where / "grid.toml"
    spec.write_text(
        'base = "two-deck-2011"\nmatches = 12\nseed = 1\npolicies = "expert,basic"\n\n[grid]\ncapture_per_card = [2, 3]\n'
    )
    return sweep(spec, where / "run", quiet=True)


@pytest.fixture(scope="module")
def variants_page(tmp_path_factory) -> tuple[Path, Path]:
    """A run of two variants under one policy on both sides (guangxi-2012: the deal rotates, 2s are
    always trump, draws; school-2016: a warning, draws), with a team at the end level having to defend
    it, at two tables a deal: 10 deals each; and its page."""
    from simsuite.report.explore import build_explorer
    from simsuite.sim.run import simulate

    where = tmp_path_factory.mktemp("variants")
    run = simulate(
        {
            "variants": ["guangxi-2012", "school-2016"],
            "policies": "basic",
            "overrides": {"must_defend_end_level": True},
            "duplicate": True,
            "matches": 10,
            "seed": 3,
            "quiet": True,
            "out": where / "run",
        }
    )
    return run, build_explorer(run, where / "explorer.html")


@pytest.fixture(scope="module")
def page(grid_run) -> tuple[Path, str, str]:
    """`simsuite explore RUN -o sub/explorer.html`: the page, its text and what the command printed."""
    import contextlib
    import io

    from simsuite.cli import main

    out = grid_run.parent / "sub" / "explorer.html"
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(["explore", str(grid_run), "-o", str(out)])
    assert code == 0, stderr.getvalue()
    return out, out.read_text(encoding="utf-8"), stdout.getvalue()


@pytest.fixture(scope="module")
def models(grid_run) -> dict:
    """Each cell's explorer model, by cell id (the twin's input)."""
    r = load(grid_run)
    h, m = r.hands.collect(), r.matches.collect()
    return {
        cid: cell_model(h.filter(pl.col("cell") == cid), m.filter(pl.col("cell") == cid), v)
        for cid, v in r.variants().items()
    }


def embedded(text: str) -> dict:
    found = re.search(r'<script type="application/json" id="explore-data">(.*?)</script>', text, re.S)
    return json.loads(found.group(1).replace("<\\/", "</"))


def js_setting(s: Setting) -> dict:
    """A setting as the page holds it."""
    return {
        "step": s.step,
        "takeover": s.takeover,
        "start": s.start_level,
        "end": s.end_level,
        "minutes": s.match_minutes,
        "nonew": s.no_new_hand_minutes,
        "warn": s.warning_minute,
        "after": s.hands_after_warning,
        "tie": s.tie_rule,
        "pace": s.pace,
    }


def close(py: dict, js: dict) -> list[str]:
    """The figures on which the page and the twin differ beyond the tolerances (empty: they agree)."""
    bad = []
    for k, a in py["figures"].items():
        b = js["figures"][k]
        if a["value"] is None:
            if b["value"] is not None:
                bad.append(f"{k}: {b['value']} where Python has none")
            continue
        scale = max(1.0, abs(a["value"]))
        if abs(a["value"] - b["value"]) > TOL_VALUE * scale:
            bad.append(f"{k}: value {a['value']!r} vs {b['value']!r}")
        for e in ("low", "high"):
            if (a[e] is None) != (b[e] is None) or (a[e] is not None and abs(a[e] - b[e]) > TOL_INTERVAL * scale):
                bad.append(f"{k}: {e} {a[e]!r} vs {b[e]!r}")
        if a["n"] != b["n"]:
            bad.append(f"{k}: n {a['n']} vs {b['n']}")
    return bad


def shown(d: dict, share: bool) -> str:
    """A figure as the page writes it (explore.js ``figureHTML``'s text)."""

    def f(x):
        if share:
            return f"{100 * x:.1f}"
        return f"{x:,.1f}" if abs(x) >= 100 else f"{x:.2f}" if abs(x) >= 10 else f"{x:.3f}"

    return f"{f(d['value'])}{'%' if share else ''} [{f(d['low'])}, {f(d['high'])}]"


SHARES = {"clock_share", "p_draw", "stronger_win", "takeover_rate", "big_swing_share"}


# --- the file and the command ---------------------------------------------------------------------


def test_the_command_prints_the_path_and_the_page_is_self_contained(page):
    """One file, no network: no external script, style, font or image; the data and script inline."""
    out, text, printed = page
    assert printed.strip().splitlines()[-1] == str(out)
    assert "<link" not in text and "@import" not in text and "url(" not in text
    assert not re.search(r'\bsrc="(?!data:)', text) and "http://" not in text and "https://" not in text
    assert text.count("<script") == 2  # the data and the page's script


def test_the_page_opens_with_the_answer_and_closes_with_what_was_run(page):
    _, text, _ = page
    assert re.findall(r'<section id="([a-z]+)"', text) == ["answer", "model", "provenance"]
    body = text.split('<section id="answer"', 1)[1]
    assert body.index('id="headline"') < body.index('id="figures"') < body.index('id="controls"')
    # the re-scoring in one plain sentence, and the README's question
    assert "The hands are re-scored, not replayed" in text
    assert "What if the step were 30 instead of 40?" in text


def test_a_sweeps_played_cells_are_the_choices_of_what_changes_play(page):
    _, text, _ = page
    data = embedded(text)
    assert [c["field"] for c in data["choices"]] == ["capture_per_card"]
    assert data["choices"][0]["values"] == ["2", "3"] and data["choices"][0]["words"] == ["capture ×2", "capture ×3"]
    assert "any other needs a run" in text  # the choices are the played cells only


def test_a_design_folder_pools_the_rounds_of_each_pairing(tiny_design, tmp_path):
    """A design folder (tests/designs/tiny.toml): its rounds' and confirmation's hands of one cell under one
    pairing are one cell (other seeds, other deals), and the pairings are the choices."""
    from simsuite.report.explore import build_explorer

    _, res = tiny_design
    runs = sorted(p for p in (Path(res["out"]) / "runs").iterdir() if (p / "manifest.json").is_file())
    data = embedded(build_explorer(res["out"], tmp_path / "design.html").read_text(encoding="utf-8"))
    assert [c["field"] for c in data["choices"]] == ["policies"]
    assert sorted(data["choices"][0]["values"]) == ["basic vs basic", "expert vs basic"]
    assert len(data["runs"]) == len(runs) and len(data["cells"]) == 2
    played = {}
    for run in runs:
        m = load(run).matches.collect()
        pair = "basic vs basic" if "basic-basic" in run.name else "expert vs basic"
        played[pair] = played.get(pair, 0) + m.height
    assert {c["label"]: c["matches"] for c in data["cells"]} == played


def test_a_folder_that_is_not_a_run_is_one_line(tmp_path, capsys):
    code, _, err = run_cli(capsys, "explore", str(tmp_path), "-o", str(tmp_path / "x.html"))
    one_line_error(code, err, str(tmp_path), command="explore")
    assert not (tmp_path / "x.html").exists()


def test_the_page_never_replaces_the_runs_own_files(grid_run, capsys):
    code, _, err = run_cli(capsys, "explore", str(grid_run), "-o", str(grid_run / "manifest.json"))
    one_line_error(code, err, "manifest.json", command="explore")
    assert json.loads((grid_run / "manifest.json").read_text())["kind"] == "sweep"


def test_a_bad_seed_is_one_line(grid_run, tmp_path, capsys):
    code, _, err = run_cli(capsys, "explore", str(grid_run), "-o", str(tmp_path / "x.html"), "--seed", "-1")
    one_line_error(code, err, "--seed", command="explore")


# --- the Python twin is the exact model -----------------------------------------------------------


def test_the_twin_is_the_exact_model(grid_run, models):
    """``explore_figures``' point figures are ``exact_model``'s (approximate: the bands re-scored too)
    for the same overrides: the clock, the pace and the step."""
    r = load(grid_run)
    h, m = r.hands.collect(), r.matches.collect()
    cid, model = next(iter(models.items()))
    v = model.variant
    base = Setting.played(v)
    for change in (
        {},
        {"match_minutes": 60, "warning_minute": 50, "hands_after_warning": 1},
        {"pace": 25},
        {"step": 30},
    ):
        s = dataclasses.replace(base, **change)
        ours = explore_figures(model, s)["figures"]
        theirs = exact_model(
            h.filter(pl.col("cell") == cid),
            m.filter(pl.col("cell") == cid),
            v,
            s.overrides(v) or None,
            reps=0,
            approximate=True,
        )
        assert theirs["level_check"]["separate"] == bool(model.point_levels)  # the same level groups
        f = theirs["figures"]
        key = "p_a" if model.stronger == 0 else "p_b"
        for ours_key, their_key in [
            ("hands_mean", "hands_mean"),
            ("minutes_mean", "minutes_mean"),
            ("clock_share", "clock_share"),
            ("p_draw", "p_draw"),
            ("lead_changes", "lead_changes"),
            ("stronger_win", key),
        ]:
            assert ours[ours_key]["value"] == pytest.approx(f[their_key]["value"], rel=1e-12, abs=1e-12), (
                change,
                ours_key,
            )


def test_the_pace_scales_the_limit_bound_part_of_a_trick():
    """docs/clock.md: 4 s + (seconds per trick - 4 s) x pace / 0.4; school-2016's 20 s: 14 s at 0.25, 28 s at 0.6."""
    assert [spt_x100_at(2000, p) for p in (25, 40, 60)] == [1400, 2000, 2800]
    assert spt_x100_at(2200, 25) == 1525  # baiyun-2016: 15.25 s


def test_the_twin_refuses_what_the_rules_refuse(models):
    model = next(iter(models.values()))
    base = Setting.played(model.variant)
    for change in ({"step": 90}, {"end_level": 3, "start_level": 5}, {"tie_rule": "draw"}):
        with pytest.raises(SimsuiteError):
            target_variant(model.variant, dataclasses.replace(base, **change))


# --- in Chromium ---------------------------------------------------------------------------------

GRID = [  # (cell index, changes): the page's figures against the twin's on each
    (0, {}),
    (0, {"step": 30}),  # the README's question
    (0, {"step": 20, "takeover": 100}),
    (0, {"step": 60, "takeover": 60}),
    (0, {"start_level": 5, "end_level": 10}),
    (0, {"match_minutes": 60, "no_new_hand_minutes": 0, "warning_minute": 50, "hands_after_warning": 1}),
    (0, {"match_minutes": 45, "no_new_hand_minutes": 0, "warning_minute": 40, "hands_after_warning": 0}),
    (0, {"match_minutes": 120, "no_new_hand_minutes": 10, "pace": 60}),
    (0, {"pace": 25, "step": 35}),
    (0, {"match_minutes": 0, "tie_rule": "draw"}),
    (1, {"step": 30}),
    (1, {"match_minutes": 30, "no_new_hand_minutes": 5, "end_level": 6}),
]
REFUSED = [
    {"step": 90},  # larger than the take-over
    {"takeover": 85, "step": 33},  # not in fives
    {"takeover": 300},  # more than two decks' points
    {"start_level": 8, "end_level": 4},
    {"tie_rule": "draw"},  # a knock-out's timed match must have a winner
    {"warning_minute": 120},  # after the end of the match
]


def needs_browser() -> str:
    from test_report import browser

    binary = browser()
    if binary is None:
        pytest.skip(
            "no Chromium binary on PATH (Debian: apt-get install -y chromium); "
            "the explorer's checks run its JavaScript in headless Chromium"
        )
    return binary


@pytest.fixture(scope="module")
def chromium(page, tmp_path_factory):
    binary = needs_browser()
    from devtools import Chromium

    with Chromium(binary, tmp_path_factory.mktemp("chromium"), 1280, 1400) as b:
        b.open(page[0].resolve().as_uri())
        assert b.eval("document.body.getAttribute('data-ready')") == "yes"
        yield b


def test_the_pages_javascript_gives_the_twins_figures_on_a_grid_of_settings(page, models, chromium):
    """Every figure, its interval and n: the page's chain solve and re-scoring against Python's."""
    data = embedded(page[1])
    ids = [c["id"] for c in data["cells"]]
    for i, change in GRID:
        model = models[ids[i]]
        s = dataclasses.replace(Setting.played(model.variant), **change)
        py = explore_figures(model, s)
        js = chromium.eval(f"window.explorer.model({json.dumps(ids[i])}, {json.dumps(js_setting(s))})")
        assert "problem" not in js, (change, js)
        assert not close(py, js), (ids[i], change, close(py, js))
        assert np.allclose(js["hands_dist"], py["hands_dist"][: len(js["hands_dist"])], atol=1e-12)
    assert not chromium.errors()


def test_the_page_refuses_the_settings_the_rules_refuse(page, models, chromium):
    data = embedded(page[1])
    model = models[data["cells"][0]["id"]]
    for change in REFUSED:
        s = dataclasses.replace(Setting.played(model.variant), **change)
        with pytest.raises(SimsuiteError):
            target_variant(model.variant, s)
        js = chromium.eval(f"window.explorer.model({json.dumps(data['cells'][0]['id'])}, {json.dumps(js_setting(s))})")
        assert js.get("problem"), change


def test_several_variants_one_policy_on_both_sides_agree_too(variants_page, tmp_path):
    """The other rules the page re-scores with: a rotating deal, a permanent trump rank, the zero band
    below zero, draws, a warning, defending the end level; the stronger pair is NS in self-play."""
    binary = needs_browser()
    from devtools import Chromium

    run, out = variants_page
    data = embedded(out.read_text(encoding="utf-8"))
    assert [c["field"] for c in data["choices"]] == ["variant"]
    assert all(
        c["stronger"] is None and c["stronger_name"] == "one policy, basic, on both sides" for c in data["cells"]
    )
    r = load(run)
    h, m = r.hands.collect(), r.matches.collect()
    with Chromium(binary, tmp_path / "profile") as b:
        b.open(out.resolve().as_uri())
        for cid, v in r.variants().items():
            model = cell_model(h.filter(pl.col("cell") == cid), m.filter(pl.col("cell") == cid), v)
            base = Setting.played(v)
            assert v.must_defend_end_level and model.data.n_deals == 10
            for change in (
                {},
                {"step": base.step // 10 * 5},
                {"match_minutes": 0},
                {"pace": 60, "warning_minute": base.match_minutes - 10, "hands_after_warning": 1},
            ):
                s = dataclasses.replace(base, **change)
                py = explore_figures(model, s)
                js = b.eval(f"window.explorer.model({json.dumps(cid)}, {json.dumps(js_setting(s))})")
                assert not close(py, js), (cid, change, close(py, js))
        assert not b.errors()


def figures_shown(b) -> dict:
    """The figures table as the page shows it: per figure the text of the current and pinned cells."""
    return b.eval(
        "(function(){var o={};document.querySelectorAll('#figures tbody tr').forEach(function(r){"
        "o[r.id.slice(4)]=[r.querySelector('.cur').textContent,r.querySelector('.pin').textContent,"
        "r.querySelector('.n').textContent];});return o;})()"
    )


def test_real_input_moves_the_figures_the_address_round_trips_and_a_screenshot_is_taken(
    page, models, chromium, tmp_path
):
    b = chromium
    data = embedded(page[1])
    ids = [c["id"] for c in data["cells"]]
    v = models[ids[0]].variant
    played = Setting.played(v)
    b.navigate(page[0].resolve().as_uri())
    updates = lambda: int(b.eval("document.body.getAttribute('data-updates')"))  # noqa: E731

    # what if the step were 30 instead of 40? two presses of the left arrow on the step slider
    assert played.step == 40
    b.focus("#ctl-step")
    n = updates()
    b.press("ArrowLeft", 2)
    assert updates() == n + 2 and b.eval("document.getElementById('ctl-step').value") == "30"
    want = explore_figures(models[ids[0]], dataclasses.replace(played, step=30))
    got = b.eval("window.explorer.state.result")
    assert not close(want, got)
    table = figures_shown(b)
    for k, d in want["figures"].items():
        assert table[k][0] == shown(d, k in SHARES), (k, table[k])
        assert table[k][2] == str(d["n"])
    assert "step 30" in b.eval("document.getElementById('head-now').textContent")

    # pin it, then a 60-minute clock typed in, the end level one down (a key on the select), and the
    # other played cell (capture x3) chosen with a key on its select
    b.click("#pin")
    b.type_into("#ctl-minutes", "60")
    b.focus("#ctl-end")
    b.press("ArrowUp")
    b.focus("#ctl-cell-0")
    b.press("ArrowDown")
    now = dataclasses.replace(played, step=30, match_minutes=60, end_level=RANK_NAMES.index("K"))
    assert b.eval("window.explorer.state.cell") == ids[1]
    want = explore_figures(models[ids[1]], now)
    assert not close(want, b.eval("window.explorer.state.result"))
    table = figures_shown(b)
    pinned = explore_figures(models[ids[0]], dataclasses.replace(played, step=30))
    for k in want["figures"]:
        assert table[k][0] == shown(want["figures"][k], k in SHARES)
        assert table[k][1] == shown(pinned["figures"][k], k in SHARES)

    # the address holds both settings; a fresh page opened at it shows the same
    address = b.eval("location.href")
    frag = address.split("#", 1)[1]
    assert "step=30" in frag and "minutes=60" in frag and "end=K" in frag and "pin=" in frag
    assert "cell=" + quote(ids[1], safe="") in frag
    state = b.eval("JSON.stringify([window.explorer.state.cell, window.explorer.state.s, window.explorer.state.pin])")
    b.navigate("about:blank")
    b.navigate(address)
    assert b.eval("document.body.getAttribute('data-ready')") == "restored"
    again = b.eval("JSON.stringify([window.explorer.state.cell, window.explorer.state.s, window.explorer.state.pin])")
    assert json.loads(again) == json.loads(state)
    assert figures_shown(b) == table
    assert b.eval("document.getElementById('ctl-minutes').value") == "60"
    assert b.eval("location.hash") == "#" + frag
    assert not b.errors()

    shot = b.screenshot(tmp_path / "explorer.png", full=True)
    px = np.asarray(Image.open(shot).convert("RGB"))
    assert px.shape[1] == 1280 and px.var() > 100
    blue = (px[..., 2] > 150) & (px[..., 0] < 90)  # the plot's bars and the sliders
    assert blue.sum() > 2000
