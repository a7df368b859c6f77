"""The replication verdicts and robustness marks that the current rules give for the notebooks' saved outputs.

A notebook's saved full-run outputs hold its replication table (both seeds' figures with their intervals) and its
pairings' effects; this script reads them back (as printed, to three digits) and applies ``replication_table`` and
``classify_all`` with the margins of ``notebooks/claims/NN.toml``. docs/findings.md quotes its output for the runs
made before those rules existed. Run from the repository root:

    .venv/bin/python notebooks/claims/saved_verdicts.py
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "notebooks"))
import _common as C  # noqa: E402

from simsuite.analysis.stats import Estimate  # noqa: E402

FIGURE = re.compile(r"([-\d.]+|∞|\?)(%?) \[([-\d.]+|∞|\?), ([-\d.]+|∞|\?)\] n=([\d,]+)")
EFFECT = re.compile(r"([-+][\d.]+) \[([-+][\d.]+), ([-+][\d.]+)\] n=([\d,]+)")


def _num(x: str) -> float:
    return float("inf") if x == "∞" else float("nan") if x == "?" else float(x)


def _figure(m: re.Match) -> tuple[float, float, float, int]:
    k = 0.01 if m.group(2) == "%" else 1.0
    return _num(m.group(1)) * k, _num(m.group(3)) * k, _num(m.group(4)) * k, int(m.group(5).replace(",", ""))


def _output(nb, marker: str, kind: str) -> str:
    for c in nb.cells:
        if c.cell_type == "code" and marker in c.source:
            for o in c.outputs:
                if kind in o.get("data", {}):
                    return o["data"][kind]
    raise LookupError(f"no {kind} output in the cell with {marker!r}")


def replication(nb, cf: C.ClaimsFile) -> pd.DataFrame:
    """The saved replication table, judged by ``replication_table`` with the claims file's margins."""
    first, second, keys, margins, where = {"i": 0}, {"i": 0}, [], {}, []
    for line in _output(nb, "replication_table", "text/plain").splitlines()[1:]:
        found = list(FIGURE.finditer(line))
        if len(found) < 2:
            continue
        head = line[: found[0].start()].split()
        index, fig = " ".join(head[1:-1]), head[-1]
        key = f"{fig}#{len(keys)}"
        keys.append(key)
        margins[key] = cf.replication.get(fig)
        where.append(f"{index} {fig}")
        for row, m in ((first, found[0]), (second, found[1])):
            v, lo, hi, n = _figure(m)
            row.update({key: v, key + "_lo": lo, key + "_hi": hi, key + "_n": n})
    t = C.replication_table(pd.DataFrame([first]), pd.DataFrame([second]), keys, "i", margins=margins)
    return t.assign(figure=where).drop(columns=["i"])


def marks(nb, cf: C.ClaimsFile) -> list[tuple[str, dict]]:
    """The saved pairings' effects, marked by ``classify_all`` with the claims file's margins."""
    html = _output(nb, "show_verdicts", "text/html")
    head = re.findall(r"<th>(.*?)</th>", html.split("<tbody>")[0], re.S)[1:]  # the first is the index's
    cols = [i for i, h in enumerate(head) if "/" in h]  # the pairings' columns: basic/basic, expert/expert, search...
    rows = [re.findall(r"<td>(.*?)</td>", tr, re.S) for tr in html.split("<tbody>")[1].split("</tr>") if "<td>" in tr]
    rob = cf.family("robustness")
    if len(rows) != len(rob):
        raise ValueError(f"{len(rows)} saved conclusions against {len(rob)} in {cf.path.name}")
    items = []
    for tds, c in zip(rows, rob):
        eff = {}
        for p, cell in zip(C.PAIRINGS, [tds[i] for i in cols]):
            m = EFFECT.search(cell)
            eff[p] = (
                Estimate(float(m.group(1)), float(m.group(2)), float(m.group(3)), int(m.group(4).replace(",", "")))
                if m
                else Estimate(float("nan"), float("nan"), float("nan"), 0)
            )
        items.append((eff, c["sign"], c["margin"]))
    return list(zip([c["text"] for c in rob], C.classify_all(items)))


def main() -> None:
    for path in sorted((ROOT / "notebooks").glob("0[1-5]-*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        cf = C.read_claims(ROOT / "notebooks" / "claims" / f"{path.name[:2]}.toml")
        t = replication(nb, cf)
        print(f"== {path.stem}: replication: {C.replication_summary(t)}")
        for r in t[t.verdict != C.REPLICATES].itertuples(index=False):
            print(f"   {r.figure}: {r[1]} | {r[2]} | {r[3]} {r[4]} -> {r.verdict}")
        ms = marks(nb, cf)
        print(f"   marks (one Holm correction over {len(ms) * (len(C.PAIRINGS) + 1)} p-values):")
        for text, v in ms:
            print(f"   - {text}: **{v['mark']}** ({v['detail']})")


if __name__ == "__main__":
    main()
