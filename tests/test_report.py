"""`simsuite report`: one self-contained HTML file of a results folder (docs/report.md).

The report is built once, by the command, from a small run (40 matches of two variants). The HTML
is checked for every metric with its interval and n, for no network references, and for escaping;
every embedded PNG is decoded and must not be blank. A real headless Chromium (Debian's
`chromium` package) then loads the page: every image must decode in the browser and the page must
log nothing to the console. That test is skipped, saying why, where no Chromium binary is
installed.
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
from simsuite.report.html import build_report
from simsuite.sim.run import simulate

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
    assert len(images) == text.count("<img") >= 6  # length, change, take-over, clock, fairness, policy
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
    assert len(imgs) == n_img >= 6
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
    assert html.escape(res["sentence"]) in text
    assert "<h2>The answer</h2>" in text and "Pareto front" in text
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
