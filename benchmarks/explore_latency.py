"""The rules explorer's latency: the time from a control's change to the updated figures, in the
browser (docs/performance.md, "The rules explorer"; docs/explore.md).

    python benchmarks/explore_latency.py RUN [--changes 40] [--out PAGE.html]

Writes the explorer page of the results folder RUN (``simsuite explore``), opens it in headless
Chromium over the DevTools protocol (tests/devtools.py), and for each played cell moves the step
slider with real key presses (Left, Right, Left, ...: step 35 and back), ``--changes`` times. The
page times each change itself: from its input event to the figures, intervals, plot and address
written (``performance.now()`` in explore.js's ``update``, the list ``window.explorer.timings``), and
to the next animation frame after it (``window.explorer.frames``). Printed per cell: the chain's
transitions at the played rules, the first update after the page loaded (V8 not yet warm), then
over the changes the median, 90th percentile and largest, to the next frame, the median split of
an update between the model and the page's writing (``window.explorer.phases``), and of a solve
run alone, nine times over (``window.explorer.profile``: tables, forward pass, backward pass). Last,
the machine's pace at the time: a plain multiply-add loop over typed arrays in the same page, in
ns a step (the forward pass's inner loop; the backward pass does about ten such per step). Nothing
is asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


# the machine's pace at the time, in the same page: ns per step of the forward pass's own inner loop
CALIBRATE = """(function () {
  var n = 4096, a = new Float64Array(n + 64), m = new Float64Array(n), best = Infinity;
  for (var i = 0; i < n; i++) m[i] = Math.random();
  function conv(a, m, q, t0, t1, to) { for (var t = t0; t < t1; t++) a[to + t] += m[t] * q; }
  for (var r = 0; r < 7; r++) {
    var t0 = performance.now();
    for (var k = 0; k < 2000; k++) conv(a, m, 0.5, 0, n, k % 64);
    best = Math.min(best, (performance.now() - t0) * 1e6 / (2000 * n));
  }
  return best;
})()"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", help="a results folder (a run, a sweep or a design folder)")
    ap.add_argument("--changes", type=int, default=40, help="step changes per cell (default 40)")
    ap.add_argument("--out", help="where to write the page (default: a temporary file)")
    args = ap.parse_args()

    from devtools import Chromium
    from test_report import browser

    from simsuite.report.explore import build_explorer

    binary = browser()
    if binary is None:
        sys.exit("no Chromium on PATH (apt-get install -y chromium)")
    tmp = Path(tempfile.mkdtemp(prefix="explore-latency-"))
    page = build_explorer(args.run, args.out or tmp / "explorer.html")
    data_cells = None
    with Chromium(binary, tmp / "profile", 1280, 1400) as b:
        b.open(page.resolve().as_uri())
        first = b.eval("window.explorer.timings[0]")
        data_cells = b.eval("window.explorer.data.cells.map(function (c) { return c.id; })")
        print(f"page {page} ({page.stat().st_size / 1024:.0f} KiB), first update after loading: {first:.1f} ms")
        print(
            "| cell | transitions | median ms | p90 ms | max ms | to next frame, median ms "
            "| of which the model / the page, median ms | a solve alone: tables / forward / backward, ms |"
        )
        print("|---|---|---|---|---|---|---|---|")
        for cid in data_cells:
            b.eval(f"(function(){{location.hash = 'cell=' + encodeURIComponent({json.dumps(cid)});}})()")
            b.eval("new Promise(function (r) { setTimeout(r, 50); })")
            b.focus("#ctl-step")
            start = b.eval("window.explorer.timings.length")
            for i in range(args.changes):
                b.press("ArrowLeft" if i % 2 == 0 else "ArrowRight")
            b.eval("new Promise(function (r) { requestAnimationFrame(function () { setTimeout(r, 20); }); })")
            times = b.eval(f"window.explorer.timings.slice({start})")
            frames = b.eval(f"window.explorer.frames.slice({start})")
            phases = b.eval(f"window.explorer.phases.slice({start})")
            prof = b.eval(
                "(function(){var o=[];for(var i=0;i<9;i++)o.push(window.explorer.profile("
                f"{json.dumps(cid)}, window.explorer.state.s));return o;}})()"
            )
            tr = b.eval(f"window.explorer.model({json.dumps(cid)}, window.explorer.state.s).transitions")
            times.sort()
            split = " / ".join(f"{statistics.median(p[i] for p in prof):.1f}" for i in range(3))
            inside = (
                f"{statistics.median(p[1] for p in phases):.1f} / "
                f"{statistics.median(p[0] + p[2] + p[3] for p in phases):.1f}"
            )
            print(
                f"| {cid} | {tr:,} | {statistics.median(times):.1f} | {times[int(0.9 * (len(times) - 1))]:.1f} | "
                f"{times[-1]:.1f} | {statistics.median(frames):.1f} | {inside} | {split} |"
            )
        loop = b.eval(CALIBRATE)
        print(f"{args.changes} changes per cell; console: {b.errors() or 'nothing logged'}")
        print(f"this machine now: a plain multiply-add loop over typed arrays in the page, {loop:.2f} ns a step")


if __name__ == "__main__":
    main()
