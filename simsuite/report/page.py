"""The machinery of a self-contained HTML page, shared by the run report and the design page.

Inline CSS, the image-decoding script, escaping, numbers as page text, matplotlib figures on an
Agg canvas embedded as base64 PNGs, and the checked, atomic write of the page.
"""

from __future__ import annotations

import base64
import html
import io
import math
import os
from pathlib import Path
from typing import Any

from ..errors import SimsuiteError
from ..rules.words import FIELD_WORDS, setting_words

DPI = 100

CSS = """
body{font-family:-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#1d2329;margin:0;background:#f5f6f8}
main{max-width:1180px;margin:0 auto;padding:24px 28px 48px;background:#fff}
h1{font-size:1.6em;margin:0 0 4px} h2{font-size:1.25em;margin:32px 0 8px;border-bottom:2px solid #dde3ea;padding-bottom:4px}
h3{font-size:1.05em;margin:22px 0 6px}
.sub{color:#5a6570;margin:0 0 16px}
table{border-collapse:collapse;margin:8px 0 4px;font-size:.88em}
th,td{border:1px solid #d6dce3;padding:4px 8px;vertical-align:top;text-align:left}
th{background:#eef2f6}
table.metrics td.v{text-align:right;white-space:nowrap}
table.metrics td.v .ci{display:block;color:#5a6570;font-size:.85em}
table.metrics td.v .n{display:block;color:#8a949e;font-size:.8em}
table.metrics td.na{color:#8a949e;text-align:right}
table.kv{table-layout:fixed;width:100%} table.kv th{width:170px} table.kv td{overflow-wrap:anywhere}
table.metrics tr>th:first-child{min-width:13em}
code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.92em;background:#f1f3f5;padding:1px 4px;border-radius:3px;word-break:break-all}
figure{margin:14px 0 26px} figure img{max-width:100%;height:auto;border:1px solid #e3e7ec}
figcaption{font-size:.88em;color:#38424c;margin-top:4px;max-width:1100px}
.notes{font-size:.85em;color:#38424c} .notes li{margin:2px 0}
.warn{background:#fff4d6;border:1px solid #e8c860;padding:8px 12px;margin:12px 0}
.scroll{overflow-x:auto}
pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:.85em;background:#f7f8fa;padding:8px 10px}
.headline{font-size:1.05em;line-height:1.5;background:#f3f7fb;border-left:4px solid #3a78b5;padding:10px 14px;margin:10px 0}
.headline li{margin:4px 0}
ol.points{font-size:.88em;columns:2;column-gap:32px} ol.points li{margin:2px 0;break-inside:avoid}
footer{margin-top:36px;font-size:.8em;color:#6b7680}
"""

# marks every image the browser decoded (used by the headless-browser test; harmless otherwise)
SCRIPT = """
window.addEventListener("load", function () {
  var imgs = document.images, ok = 0;
  for (var i = 0; i < imgs.length; i++) {
    if (imgs[i].complete && imgs[i].naturalWidth > 0) { ok++; imgs[i].setAttribute("data-decoded", "yes"); }
  }
  document.body.setAttribute("data-images-decoded", ok + "/" + imgs.length);
});
"""


def esc(x: Any) -> str:
    """Any value as escaped HTML text (quotes included)."""
    return html.escape("" if x is None else str(x), quote=True)


def num(x: float | None) -> str:
    """A figure as page text: three significant places or so, thousands separated, ∞ for infinity."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    ax = abs(x)
    return f"{x:,.1f}" if ax >= 100 else f"{x:.2f}" if ax >= 10 else f"{x:.3f}"


# --- rule settings in words ----------------------------------------------------------------------

# rule settings in words: rules.words (FIELD_WORDS, setting_words), re-exported for the pages


# --- figures -------------------------------------------------------------------------------------


def new_figure(width: float, height: float):
    """A matplotlib Figure on an Agg canvas: no pyplot, no global backend switch."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def figure_png(fig) -> str:
    """The figure as a base64 PNG."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, facecolor="white")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def figure_html(title: str, png: str, caption: str) -> str:
    """A base64 PNG as an HTML figure with its title and caption."""
    return (
        f'<figure><img src="data:image/png;base64,{png}" alt="{esc(title)}">'
        f"<figcaption><strong>{esc(title)}.</strong> {esc(caption)}</figcaption></figure>"
    )


# --- writing -------------------------------------------------------------------------------------


def check_writable(out: Path) -> None:
    """Raise ``SimsuiteError`` (one line) unless the page can be written to ``out``."""
    if out.is_dir():
        raise SimsuiteError(
            f"cannot write the report to {out}: it is a folder; give a file name such as {out / 'report.html'}"
        )
    parent = out.parent
    probe = parent
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        raise SimsuiteError(f"cannot write the report to {out}: {probe} is a file, not a folder")
    if not os.access(probe, os.W_OK | os.X_OK) or (out.exists() and not os.access(out, os.W_OK)):
        raise SimsuiteError(f"cannot write the report to {out}: permission denied")


def write_page(out: Path, text: str) -> None:
    """Write the page through a temporary file, replaced into place; missing folders are created."""
    tmp = out.with_name(f".tmp-{out.name}.{os.getpid()}")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, out)
    except OSError as exc:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        raise SimsuiteError(f"cannot write the report to {out}: {exc.strerror or exc}") from None


__all__ = [
    "CSS",
    "SCRIPT",
    "DPI",
    "FIELD_WORDS",
    "setting_words",
    "esc",
    "num",
    "new_figure",
    "figure_png",
    "figure_html",
    "check_writable",
    "write_page",
]
