"""`simsuite report`: one self-contained HTML file of a results folder (docs/report.md).

The report is built once, by the command, from a small run (40 matches of two variants), and a sweep's
once from a small two-field sweep (2 x 2 cells of 12 matches). The HTML is checked for the answer first
(the headline, then Length, Swing, Fairness, the comparison hook, provenance last), every metric with
its interval and n, no network references and escaping; every embedded PNG is decoded and must not be
blank. A real headless Chromium (Debian's `chromium` package) then loads the run, sweep and design
pages: every image must decode and have a size, the first section must be the answer, no text may
overflow its box, and the page must log nothing to the console. Those tests are skipped, saying why,
where no Chromium binary is installed.
"""

from __future__ import annotations

import base64
import contextlib
import html
import io
import json
import os
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from cli import one_line_error, run_cli
from PIL import Image

from simsuite.analysis.metrics import METRICS
from simsuite.cli import main
from simsuite.report.html import _colours, _grid, build_report, comparison_section
from simsuite.report.page import setting_words
from simsuite.sim.run import simulate, sweep

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
IMG_SRC = re.compile(r'<img\b[^>]*\bsrc="data:image/png;base64,([A-Za-z0-9+/=]*)"')
INTERVAL = re.compile(r'<span class="ci">\[(-?[\d.,]+|∞|n/a), (-?[\d.,]+|∞|n/a)\]</span>')


CHROMIUM_PENDING_WAIT_S = 600  # .ci/run's background install: apt's two 300 s timeouts at the most


def browser() -> str | None:
    """The first Chromium on PATH, or None. While .ci/run installs one in the background, the file that
    SIMSUITE_CHROMIUM_PENDING names exists: wait for the install to end first."""
    pending = os.environ.get("SIMSUITE_CHROMIUM_PENDING")
    deadline = time.monotonic() + CHROMIUM_PENDING_WAIT_S
    while pending and os.path.exists(pending) and time.monotonic() < deadline:
        time.sleep(0.2)
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    return simulate(
        {
            "variants": ["school-2016", "two-deck-2011"],
            "matches": 40,
            "seed": 1,
            "jobs": 1,
            "quiet": True,
            "out": tmp_path_factory.mktemp("report") / "run",
        }
    )


@pytest.fixture(scope="module")
def report_command(run) -> tuple[Path, int, str, str]:
    """`simsuite report RUN -o sub/report.html`, run once, into a folder that does not exist yet:
    the path it was given, its exit code, stdout and stderr. What it writes is the report that the
    tests below inspect (``report``), so that the module builds it once."""
    out = run.parent / "sub" / "report.html"
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(["report", str(run), "-o", str(out)])
    return out, code, stdout.getvalue(), stderr.getvalue()


@pytest.fixture(scope="module")
def report(report_command) -> tuple[Path, str]:
    out, code, _, err = report_command
    assert code == 0, err
    return out, out.read_text(encoding="utf-8")


def pngs(text: str) -> list[bytes]:
    return [base64.b64decode(b64, validate=True) for b64 in IMG_SRC.findall(text)]


def coloured(rgb: np.ndarray) -> np.ndarray:
    """Per pixel of an RGB image: whether the standard deviation of its three values exceeds 30
    (a plot's colours; text and paper are grey). In integers, exactly: nine times their variance
    is 3 (r^2 + g^2 + b^2) - (r + g + b)^2, more than 9 x 30^2 = 8100 just when the deviation is
    more than 30. (numpy's ``std(axis=1)`` gives the same answer for a screenshot in about 1 s of
    CPU, this in about 0.1 s.)"""
    c = rgb.reshape(-1, 3).astype(np.int32)
    r, g, b = c[:, 0], c[:, 1], c[:, 2]
    s = r + g + b
    return 3 * (r * r + g * g + b * b) - s * s > 8100


# --- the HTML ----------------------------------------------------------------------------------------


def test_every_metric_is_there_with_its_interval_and_n(report):
    _, text = report
    for m in METRICS:
        assert html.escape(m.label) in text, m.label
        assert f"<code>{m.key}</code>" in text, m.key
    # two groups (cells) x every metric; a metric without an interval says so
    cells = re.findall(r'<td class="v">.*?</td>', text)
    metric_cells = [c for c in cells if '<span class="n">' in c]
    assert len(metric_cells) >= 2 * (len(METRICS) - 2)
    assert all(INTERVAL.search(c) or "no interval" in c for c in metric_cells)
    assert len(INTERVAL.findall(text)) >= 2 * (len(METRICS) - 3)
    assert re.search(r"n = 40\b", text)  # matches per group
    assert "95%" in text


def test_header_says_what_was_run(run, report):
    _, text = report
    manifest = json.loads((run / "manifest.json").read_text())
    for v in manifest["variants"]:
        assert v["id"] in text and v["rules_hash"] in text
    assert "expert,basic" in text
    assert html.escape(" ".join(manifest["command"])) in text
    assert manifest["started"] in text
    assert "80 matches" in text
    assert str(run.resolve()) in text


def test_the_file_is_self_contained(report):
    _, text = report
    assert "http://" not in text and "https://" not in text
    assert "<link" not in text and "@import" not in text and "url(" not in text
    assert not re.search(r"<script[^>]*\bsrc=", text)
    for src in re.findall(r'\bsrc="([^"]*)"', text):
        assert src.startswith("data:image/png;base64,"), src[:40]


def test_plots_are_embedded_pngs_that_render(report):
    _, text = report
    images = pngs(text)
    assert len(images) == text.count("<img") == 4  # length, swing, fairness, how a match unfolds
    for data in images:
        im = Image.open(io.BytesIO(data))
        assert im.format == "PNG"
        assert im.width >= 600 and im.height >= 150
        px = np.asarray(im.convert("RGB"), dtype=float)
        assert px.var() > 0  # not blank
    for caption in re.findall(r"<figcaption>(.*?)</figcaption>", text, re.S):
        assert re.search(r"\bn\b.*\d", caption), caption  # every figure states its sample size
        assert "95%" in caption


def test_strings_from_the_run_are_escaped(run, tmp_path):
    evil = tmp_path / "evil<run>&"
    shutil.copytree(run, evil)
    mpath = evil / "manifest.json"
    m = json.loads(mpath.read_text())
    m["command"] = ["simsuite", "simulate", "--out", "<script>alert('x')</script>"]
    m["run"] = "<b>bold</b>"
    mpath.write_text(json.dumps(m))
    text = build_report(evil, tmp_path / "r.html").read_text()
    assert "<script>alert" not in text and "<b>bold</b>" not in text
    assert "&lt;script&gt;alert(" in text and "&lt;b&gt;bold&lt;/b&gt;" in text
    assert "evil&lt;run&gt;&amp;" in text


# --- the command ---------------------------------------------------------------------------------------


def test_cli_writes_the_report_and_prints_its_path(run, report_command, tmp_path, capsys):
    out, code, stdout, err = report_command  # -o into a folder that did not exist
    assert code == 0, err
    assert stdout.strip() == str(out)
    text = out.read_text()
    assert "by cell" in text  # two cells: grouped by cell by default
    again = tmp_path / "r.html"
    shutil.copy(out, again)  # a report to overwrite; the shared one stays as it is
    code, stdout, err = run_cli(capsys, "report", str(run), "--out", str(again), "--by", "variant")
    assert code == 0, err
    assert "by variant" in again.read_text()


def test_default_output_is_report_html_in_the_current_folder(run, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, stdout, err = run_cli(capsys, "report", str(run))
    assert code == 0, err
    assert stdout.strip() == "report.html"
    assert (tmp_path / "report.html").is_file()


def test_a_folder_that_is_not_a_run(tmp_path, capsys):
    (tmp_path / "notarun").mkdir()
    one_line_error(
        *run_cli(capsys, "report", str(tmp_path / "notarun"), "-o", str(tmp_path / "r.html"))[::2],
        "not a simsuite run",
        command="report",
    )
    one_line_error(
        *run_cli(capsys, "report", str(tmp_path / "missing"), "-o", str(tmp_path / "r.html"))[::2],
        "no such folder",
        command="report",
    )
    assert not (tmp_path / "r.html").exists()


def test_a_run_with_no_rows(run, tmp_path, capsys):
    empty = tmp_path / "empty"
    shutil.copytree(run, empty)
    m = json.loads((empty / "manifest.json").read_text())
    for c in m["chunks"]:
        c["status"] = "missing"
    (empty / "manifest.json").write_text(json.dumps(m))
    shutil.rmtree(empty / "hands")
    shutil.rmtree(empty / "matches")
    one_line_error(
        *run_cli(capsys, "report", str(empty), "-o", str(tmp_path / "r.html"))[::2], "no rows", command="report"
    )
    assert not (tmp_path / "r.html").exists()


def test_an_unwritable_output_path(run, tmp_path, capsys):
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    one_line_error(
        *run_cli(capsys, "report", str(run), "-o", str(blocker / "r.html"))[::2],
        "cannot write the report",
        "not a folder",
        command="report",
    )
    one_line_error(
        *run_cli(capsys, "report", str(run), "-o", str(tmp_path))[::2],
        "cannot write the report",
        "is a folder",
        command="report",
    )


# --- a real browser ------------------------------------------------------------------------------------


def test_the_browser_lookup_waits_for_the_ci_install(tmp_path, monkeypatch):
    """.ci/run installs Chromium in the background where it is missing; the browser tests then look
    for it only once the file SIMSUITE_CHROMIUM_PENDING names is gone (the install has ended)."""
    pending = tmp_path / "installing"
    pending.write_text("")
    monkeypatch.setenv("SIMSUITE_CHROMIUM_PENDING", str(pending))
    installed = []
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/chromium" if installed and name == "chromium" else None)

    def install():
        time.sleep(0.5)
        installed.append(True)
        pending.unlink()

    t0 = time.monotonic()
    worker = threading.Thread(target=install)
    worker.start()
    assert browser() == "/usr/bin/chromium"
    assert time.monotonic() - t0 >= 0.5
    worker.join()
    assert browser() == "/usr/bin/chromium"  # the file gone: no wait
    monkeypatch.delenv("SIMSUITE_CHROMIUM_PENDING")
    installed.clear()
    assert browser() is None


def chromium(binary: str, profile: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [
        binary,
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
        *args,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


def test_chromium_loads_the_report_and_decodes_every_image(report, tmp_path):
    binary = browser()
    if binary is None:
        pytest.skip(
            "no Chromium binary on PATH (Debian: apt-get install -y chromium); "
            "the headless-browser check of the report needs one"
        )
    out, text = report
    url = out.resolve().as_uri()
    n_img = text.count("<img")

    # the DOM after load: the page's inline script marks every image the browser decoded
    got = chromium(
        binary, tmp_path / "p1", "--enable-logging=stderr", "--v=0", "--virtual-time-budget=10000", "--dump-dom", url
    )
    assert got.returncode == 0, got.stderr[-2000:]
    dom = got.stdout
    assert "simsuite report" in dom and "</html>" in dom
    imgs = re.findall(r"<img\b[^>]*>", dom)
    assert len(imgs) == n_img == 4
    for tag in imgs:
        assert re.search(r'src="data:image/png;base64,[A-Za-z0-9+/=]{100,}"', tag), tag[:80]
        assert 'data-decoded="yes"' in tag, tag[:80]
    assert f'data-images-decoded="{n_img}/{n_img}"' in dom
    console = [line for line in got.stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]
    assert not console, console  # the page logs nothing: no errors, no warnings

    # a screenshot of the rendered page: a real image, not blank
    shot = tmp_path / "shot.png"
    got = chromium(binary, tmp_path / "p2", f"--screenshot={shot}", "--window-size=1280,4000", url)
    assert got.returncode == 0 and shot.is_file(), got.stderr[-2000:]
    im = Image.open(shot)
    assert im.size == (1280, 4000)
    px = np.asarray(im.convert("RGB"))
    assert px.var() > 100
    assert coloured(px).mean() > 0.01  # coloured plot pixels, not only text


# --- the design page (simsuite design, docs/design.md) -------------------------------------------------


@pytest.fixture(scope="module")
def design_page(tiny_design, tmp_path_factory) -> tuple[Path, str, dict]:
    _, res = tiny_design
    out = build_report(res["out"], tmp_path_factory.mktemp("page") / "design.html")
    return out, out.read_text(encoding="utf-8"), res


def test_design_page_answers_in_one_sentence_with_intervals(design_page):
    _, text, res = design_page
    answer = text[text.index('<section id="answer">') : text.index("</section>")]
    if res["recommended"]:
        params = next(s["params"] for s in res["sets"] if s["id"] == res["recommended"])
        words = setting_words(params)
        assert html.escape(f"Play {res['base']} with {words}.") in answer  # in words, not keys
        assert "step 30" in words and "=" not in words
        for g in res["goals"]:
            assert re.search(re.escape(g.split()[0]) + r" [\d.]+%? \[", answer), g  # each goal's figure, interval
    else:
        assert html.escape(res["sentence"]) in answer
    assert text.index('<section id="answer">') < text.index("<h2>The goals</h2>") < text.index("How it was found")
    assert "Pareto front" in text
    for g in res["goals"]:
        assert html.escape(g) in text
    assert len(INTERVAL.findall(text)) >= len(res["goals"]) * max(1, len(res["candidates"]))
    assert re.search(r'<span class="n">n = \d', text)
    if res["recommended"]:
        assert "<pre>" in text and html.escape(res["recommended_variant"]) in text
    assert "http://" not in text and "https://" not in text
    assert len(pngs(text)) == text.count("<img") == 1


def test_cli_report_of_a_design_folder(design_page, tmp_path, capsys):
    _, _, res = design_page
    code, out, err = run_cli(capsys, "report", res["out"], "-o", str(tmp_path / "d.html"))
    assert code == 0, err
    assert (tmp_path / "d.html").read_text(encoding="utf-8").count("simsuite design") >= 1


def test_chromium_loads_the_design_page(design_page, tmp_path):
    binary = browser()
    if binary is None:
        pytest.skip(
            "no Chromium binary on PATH (Debian: apt-get install -y chromium); "
            "the headless-browser check of the design page needs one"
        )
    out, text, _ = design_page
    got = chromium(
        binary,
        tmp_path / "p1",
        "--enable-logging=stderr",
        "--v=0",
        "--virtual-time-budget=10000",
        "--dump-dom",
        out.resolve().as_uri(),
    )
    assert got.returncode == 0, got.stderr[-2000:]
    dom = got.stdout
    assert "simsuite design" in dom and "The answer" in dom and "</html>" in dom
    assert 'data-images-decoded="1/1"' in dom
    console = [line for line in got.stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]
    assert not console, console
    shot = tmp_path / "shot.png"
    got = chromium(
        binary,
        tmp_path / "p2",
        "--virtual-time-budget=10000",
        f"--screenshot={shot}",
        "--window-size=1280,2400",
        out.resolve().as_uri(),
    )
    assert got.returncode == 0 and shot.is_file(), got.stderr[-2000:]
    px = np.asarray(Image.open(shot).convert("RGB"))
    assert px.var() > 100 and coloured(px).sum() > 500  # the plot's coloured points and bars


def test_design_page_numbers_every_point_and_lists_it_under_the_plot(design_page):
    from simsuite.report.design_page import plotted_sets, set_words

    _, text, res = design_page
    shown = plotted_sets(res)
    items = re.findall(r"<li>(.*?)</li>", text[text.index('<ol class="points">') :].split("</ol>")[0])
    assert len(items) == len(shown) >= 2
    for item, s in zip(items, shown):
        assert html.escape(set_words(res, s["id"])) in item and "n = " in item
    if res["recommended"]:
        assert sum("(recommended)" in i for i in items) == 1


def test_design_page_states_the_confirmation_its_level_the_check_and_the_cost(design_page):
    """The page says which goals were confirmed, by which one-sided bounds at what level, the seed of
    an independent check with its commands, and the cost against the analyst's baseline."""
    from simsuite.report.design_text import cost_words, level_words

    _, text, res = design_page
    assert "Candidates for confirmation, ranked" in text
    for t in res["confirmation"]["tried"]:
        section = text[text.index(f"<h2>Confirmation of <code>{html.escape(t['set'])}</code>") :]
        section = section[: section.index("</table>")]
        assert html.escape(level_words(t)) in section and "<th>one-sided bound</th>" in section
        assert section.count("<tr>") == len(t["goals"]) + 1
        assert ("confirmed</h2>" if t["confirmed"] else "not confirmed</h2>") in section
    assert html.escape(cost_words(res["cost"], len(res["rounds"]))) in text and "brute" not in text
    if res["recommended"]:
        assert f"Seed {res['check']['seed']}" in text
        for cmd in res["check"]["commands"].values():
            assert html.escape(cmd) in text
    else:
        assert "An independent check" not in text


# --- words, colours, the grid, the comparison hook -------------------------------------------------------


def test_settings_read_as_words_with_key_value_fallback():
    assert setting_words({"step": 60, "takeover": 200, "match_minutes": 240}) == (
        "step 60, take-over 200, a 240-minute clock"
    )
    assert setting_words({"match_minutes": 0, "odd_field": "x"}) == "no match clock, odd_field=x"


def test_colours_do_not_repeat_within_a_plot():
    for k in (1, 2, 10, 11, 24, 30):
        cols = [tuple(np.round(c, 4)) for c in _colours(k)]
        assert len(set(cols)) == k


@pytest.fixture(scope="module")
def sweep_report(tmp_path_factory) -> tuple[Path, str, Path]:
    """A two-field sweep (step x take-over, 2 x 2 cells of 12 matches) and its page."""
    where = tmp_path_factory.mktemp("sweep")
    spec = where / "grid.toml"
    spec.write_text(
        'base = "two-deck-2011"\nmatches = 12\nseed = 1\npolicies = "expert,basic"\n\n'
        "[grid]\nstep = [30, 60]\ntakeover = [80, 120]\n"
    )
    run_dir = sweep(spec, where / "run", quiet=True)
    out = build_report(run_dir, where / "sweep.html")
    return out, out.read_text(encoding="utf-8"), run_dir


@pytest.fixture(scope="module")
def many_cells_report(tmp_path_factory) -> tuple[Path, str]:
    """examples/sweeps/bottom-and-capture.toml at 2 matches a cell: 27 cells that vary four fields."""
    where = tmp_path_factory.mktemp("many")
    spec = where / "bc.toml"
    text = (Path(__file__).parents[1] / "examples" / "sweeps" / "bottom-and-capture.toml").read_text()
    spec.write_text(re.sub(r"(?m)^matches = \d+", "matches = 2", text))
    out = build_report(sweep(spec, where / "run", quiet=True), where / "many.html")
    return out, out.read_text(encoding="utf-8")


def test_many_cells_with_long_settings_are_numbered_with_a_key(many_cells_report):
    _, text = many_cells_report
    key = re.search(r'<ol class="points" id="key">(.*?)</ol>', text, re.S).group(1)
    items = re.findall(r"<li>(.*?)</li>", key)
    assert len(items) == 27 and "bottom 2" in key and "=None" not in key
    assert "<th>#27</th>" in text and text.count("<img") == 4
    assert sections(text) == ["answer", "length", "swing", "fairness", "comparison", "unfolds", "provenance"]


SECTIONS = ("answer", "length", "swing", "fairness", "unfolds", "provenance")


def sections(text: str) -> list[str]:
    return re.findall(r'<section id="([a-z]+)">', text)


def test_the_page_opens_with_the_answer_and_closes_with_what_was_run(report, sweep_report):
    assert sections(report[1]) == list(SECTIONS)
    assert sections(sweep_report[1]) == ["answer", "length", "swing", "fairness", "comparison", "unfolds", "provenance"]
    for text in (report[1], sweep_report[1]):
        body = text[text.index("<main>") :]
        assert body.index("<h1>") < body.index('<section id="answer">') < body.index('id="headline"')
        assert body.index("What the run shows") < body.index("<h2>Length</h2>") < body.index("<h2>What was run</h2>")
        for key in ("length", "swing", "fairness"):  # one table and one plot each
            part = text[text.index(f'<section id="{key}">') :].split("</section>")[0]
            assert part.count("<table") == 1 and part.count("<img") == 1, key


def test_the_headline_says_each_groups_figures_in_words(report):
    _, text = report
    head = re.search(r'id="headline">(.*?)</(?:ul|p)>', text, re.S).group(1)
    for v in ("school-2016", "two-deck-2011"):
        assert v in head
    assert head.count("hands and") == 2 and head.count("minutes") >= 2 and "a hand moves the levels by" in head
    assert "stronger side (expert over basic) wins" in head
    assert len(re.findall(r"\[[\d.,%]+, [\d.,%]+\]", head)) >= 8  # four figures a group, each with its interval
    assert re.search(r"n = 40\b", head)


def test_a_sweep_headline_names_the_extremes_in_words(sweep_report):
    _, text, _ = sweep_report
    head = re.search(r'id="headline">(.*?)</p>', text, re.S).group(1)
    assert head.startswith("4 cells, n = 12 deals per cell.")
    assert "longest" in head and "shortest" in head and "swings most" in head and "least" in head
    assert "take-over" in head and "step " in head  # the cells in words, not keys
    assert "intervals" in head  # whether the extremes' intervals overlap


def test_a_two_field_sweep_is_drawn_as_heatmaps(sweep_report):
    _, text, run_dir = sweep_report
    m = json.loads((run_dir / "manifest.json").read_text())
    groups = [c["id"] for c in m["cells"]]
    grid = _grid(m, groups, "cell")
    assert grid is not None and {grid.x_field, grid.y_field} == {"step", "takeover"}
    assert len(set(grid.where.values())) == 4
    assert _grid(m, groups, "variant") is None
    for caption in re.findall(r"<figcaption>(.*?)</figcaption>", text, re.S):
        assert re.search(r"n = (\d+–)?12 (deals|matches) per cell", caption), caption  # matches: the lead history


def test_captions_give_the_n_of_the_plot_and_na_once(report):
    _, text = report
    captions = re.findall(r"<figcaption>(.*?)</figcaption>", text, re.S)
    assert len(captions) == 4  # length, swing, fairness, how a match unfolds
    for caption in captions:
        assert "n = 0" not in caption
        assert re.search(r"n = \d+(–\d+)? (deals|matches) per cell", caption), caption
    fairness = captions[2]
    # expert against basic, not duplicate: the seat figures do not apply; said once, in the caption
    assert fairness.count("n/a") == 1 and "team n-s wins the match" in fairness


def test_a_sweeps_page_compares_its_settings_with_the_baseline_as_compare_does(sweep_report):
    """simsuite report on a sweep: section 3 is simsuite compare's answer and tables, the settings in words,
    each figure over its paired difference from the baseline."""
    _, text, _ = sweep_report
    part = text[text.index('<section id="comparison">') :].split("</section>")[0]
    assert "Against " in part and "(baseline)" in part and "Δ " in part and "Holm" in part
    assert part.count("<table") == 3  # match length, swing, luck
    assert "=" not in re.sub(r"<[^>]+>", "", part.split("<table")[0]), "a setting named by keys, not words"


def test_the_comparison_hook_places_the_table_as_section_3(run, tmp_path):
    assert comparison_section(None) == ""
    table = '<table id="cmp"><tr><th>cell</th><th>difference</th></tr></table>'
    text = build_report(run, tmp_path / "c.html", comparison_html=table).read_text()
    assert sections(text) == ["answer", "length", "swing", "fairness", "comparison", "unfolds", "provenance"]
    assert table in text and "<h2>Against the baseline</h2>" in text


# --- the pages in a real browser: what a reader sees ------------------------------------------------------

MEASURE = """<script>
window.addEventListener("load", function () {
  var main = document.querySelector("main"), first = main.querySelector("section"), out = {};
  out.first = first ? first.id : null;
  out.headline = !!(first && first.querySelector("#headline"));
  out.before = [];
  for (var el = main.firstElementChild; el && el !== first; el = el.nextElementSibling) { out.before.push(el.tagName); }
  out.images = Array.prototype.map.call(document.images, function (i) {
    var r = i.getBoundingClientRect(); return [r.width, r.height];
  });
  out.overflow = [];
  document.querySelectorAll("p, li, td, th, h1, h2, h3, figcaption, pre, main").forEach(function (e) {
    if (e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1) {
      out.overflow.push(e.tagName + " " + e.scrollWidth + ">" + e.clientWidth + ": " + e.textContent.slice(0, 60));
    }
  });
  out.page = [document.documentElement.scrollWidth, document.documentElement.clientWidth];
  out.height = document.documentElement.scrollHeight;
  var pre = document.createElement("pre");
  pre.id = "measured";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


def measure(binary: str, page: Path, tmp: Path, width: int = 1280) -> dict:
    """The page laid out by Chromium at ``width`` pixels: what MEASURE writes into its DOM."""
    probe = tmp / f"measure-{page.name}"
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    got = chromium(
        binary,
        tmp / f"profile-{page.stem}",
        f"--window-size={width},1200",
        "--virtual-time-budget=10000",
        "--dump-dom",
        probe.resolve().as_uri(),
    )
    assert got.returncode == 0, got.stderr[-2000:]
    found = re.search(r'<pre id="measured">(.*?)</pre>', got.stdout, re.S)
    assert found, got.stdout[-500:]
    return json.loads(html.unescape(found.group(1)))


def needs_browser() -> str:
    binary = browser()
    if binary is None:
        pytest.skip(
            "no Chromium binary on PATH (Debian: apt-get install -y chromium); "
            "the headless-browser checks of the pages need one"
        )
    return binary


@pytest.mark.parametrize("which", ["run", "sweep", "many", "design"])
def test_in_chromium_the_answer_comes_first_images_have_a_size_and_no_text_overflows(
    which, report, sweep_report, many_cells_report, design_page, tmp_path
):
    binary = needs_browser()
    pages = {"run": report, "sweep": sweep_report, "many": many_cells_report, "design": design_page}
    page = pages[which][0]
    for width in (1280, 900):
        got = measure(binary, page, tmp_path, width)
        assert got["first"] == "answer" and got["headline"], got
        assert got["before"] == ["H1"] or (which == "design" and got["before"] == ["H1", "P"]), got["before"]
        assert got["images"] and all(w > 100 and h > 50 for w, h in got["images"]), got["images"]
        assert not got["overflow"], got["overflow"]
        assert got["page"][0] <= got["page"][1], got["page"]  # nothing wider than the window
    shot = tmp_path / f"report-{which}.png"
    done = chromium(
        binary, tmp_path / "shot", f"--screenshot={shot}", "--window-size=1280,1600", page.resolve().as_uri()
    )
    assert done.returncode == 0 and shot.is_file(), done.stderr[-2000:]
    px = np.asarray(Image.open(shot).convert("RGB"))
    assert px.var() > 100 and coloured(px).sum() > 500  # the headline's box and the first plot's colours
