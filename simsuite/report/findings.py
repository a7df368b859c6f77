"""The robustness marks for docs/findings.md: as markdown, read back from a notebook, written into the findings."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from simsuite.analysis.notebooks.pairings import MOVED

MARKS_HEAD = "For `docs/findings.md`:"  # the line the notebooks print before their marks


def marks_markdown(verdicts: pd.DataFrame, quick: bool = False) -> str:
    """The verdicts as the bullet list docs/findings.md carries: each conclusion, its mark and why (the
    pooled effect, the interactions, or the deals per cell needed; n = deals per cell), and how far its effect
    moved from the ``expert``-based finding; ``quick``: each marked as a quick run."""
    out = []
    for r in verdicts.itertuples(index=False):
        d = dict(zip(verdicts.columns, r))
        line = f"- {d['conclusion']}: **{d['verdict']}**"
        if d.get("detail"):
            line += f" ({d['detail']})"
        if d.get(MOVED) not in (None, "n/a"):
            line += f"; moved from the `expert`-based finding by {d[MOVED]} (learned's effect minus expert's)"
        out.append(line + ("" if not quick else " *(quick run)*"))
    return "\n".join(out)


def notebook_marks(path: str | Path) -> str | None:
    """The marks list an executed notebook printed (``show_verdicts``), or None if it has none."""
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    for cell in nb.get("cells", []):
        for o in cell.get("outputs", []):
            text = "".join(o.get("data", {}).get("text/markdown", ""))
            if text.startswith(MARKS_HEAD):
                return text[len(MARKS_HEAD) :].strip()
    return None


def write_marks(findings: str | Path, notebooks: Iterable[str | Path], note: str = "") -> list[str]:
    """Replace each ``<!-- marks NN -->`` ... ``<!-- /marks NN -->`` block of ``findings`` with the
    marks notebook NN printed (after ``note``, one line); returns the notebooks written."""
    f = Path(findings)
    text = f.read_text(encoding="utf-8")
    done = []
    for nbp in notebooks:
        num = Path(nbp).name[:2]
        marks = notebook_marks(nbp)
        pat = re.compile(rf"(<!-- marks {num} -->\n).*?(<!-- /marks {num} -->)", re.S)
        if marks is None or not pat.search(text):
            continue
        body = (note + "\n\n" if note else "") + marks + "\n"
        text = pat.sub(lambda m: m.group(1) + body + m.group(2), text)
        done.append(num)
    f.write_text(text, encoding="utf-8")
    return done
