"""docs/findings.md from the notebooks' saved outputs (``findings_page``): each question's answer, its marks (robust,
policy-dependent or undecided, and how far each moved from the ``expert``-based finding) and what made them."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from simsuite.analysis.notebooks.fingerprint import fingerprint_markdown, read_notebook, saved_fingerprint
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


def notebook_marks(nb: dict) -> str | None:
    """The marks list a loaded, executed notebook printed (``show_verdicts``), or None if it has none."""
    for text in _markdown_outputs(nb):
        if text.startswith(MARKS_HEAD):
            return text[len(MARKS_HEAD) :].strip()
    return None


# --- docs/findings.md, generated from the notebooks' saved outputs ------------------------------------------------

CONCLUSION_HEAD = "### Conclusion"  # the heading of the conclusion the notebooks' last cell displays (``conclude``)
PAGE_HEAD = "head.md"  # in the parts folder (notebooks/findings/): the page's opening
PAGE_TAIL = "assumptions.md"  # ... and its closing section, what the simulator assumes
NO_MARKS = "*No marks: this notebook does not re-run its answer under the policy ladder.*"
NO_CONCLUSION = "*No conclusion saved: the notebook has not been run at full scale.*"
OLD_MARKS = (
    "*Marks not shown: these outputs were made before the notebooks recorded what made them, and the rule that "
    "marks a conclusion has changed since; the marks come with the notebook's next full run (`make notebooks`).*"
)
NOT_REMADE = (
    "**Not yet re-made with the play described above:** {names}. Their sections below show the answers of "
    "their last full runs, played by the heuristics `basic` and `expert`, without marks; `make notebooks` "
    "re-makes them."
)
NO_FINGERPRINT = (
    "Made by: no fingerprint saved; these outputs were made before the notebooks recorded what made them, with the "
    "play of that time; re-run with `make notebooks`"
)


def _markdown_outputs(nb: dict) -> list[str]:
    return [
        "".join(o.get("data", {}).get("text/markdown", ""))
        for cell in nb["cells"]
        for o in cell.get("outputs", [])
        if "text/markdown" in o.get("data", {})
    ]


def notebook_question(nb: dict) -> tuple[str, str]:
    """The notebook's title (its first heading, without the ``#``) and its question (the paragraph of its first
    cell that starts with ``**Question.**``; empty when there is none)."""
    first = next((c for c in nb["cells"] if c.get("cell_type") == "markdown"), None)
    text = "".join(first["source"]) if first else ""
    lines = text.splitlines()
    title = next((ln.lstrip("#").strip() for ln in lines if ln.startswith("#")), "")
    paras = [p.strip() for p in re.split(r"\n\s*\n", text)]
    question = next((p for p in paras if p.startswith("**Question.**")), "")
    return title, question


def notebook_conclusion(nb: dict) -> str | None:
    """The conclusion the notebook displayed (after its heading), or None."""
    for text in _markdown_outputs(nb):
        if text.startswith(CONCLUSION_HEAD):
            return text[len(CONCLUSION_HEAD) :].strip()
    return None


ANSWER_TAG = "answer"  # the tag of the figure cell that answers a notebook's question (with "figure")
FIGURES = "findings"  # the answer figures' folder, beside the page: docs/findings/NN-answer.png


def notebook_answer_figure(nb: dict, path: Path) -> tuple[bytes, str] | None:
    """The figure that answers the notebook's question: the first PNG its cell tagged ``answer`` saved, with
    the caption in that cell's metadata (``simsuite.caption``); None when no cell is tagged or it saved no PNG."""
    from simsuite.errors import SimsuiteError

    for cell in nb["cells"]:
        meta = cell.get("metadata", {})
        if ANSWER_TAG not in (meta.get("tags") or []):
            continue
        caption = str(meta.get("simsuite", {}).get("caption", "")).strip()
        if not caption:
            raise SimsuiteError(f"{path}: its answer figure has no caption (the cell's metadata simsuite.caption)")
        for o in cell.get("outputs", []):
            png = o.get("data", {}).get("image/png")
            if png:
                try:
                    return base64.b64decode("".join(png), validate=True), caption
                except ValueError:
                    raise SimsuiteError(f"{path}: its answer figure is not a base64 PNG") from None
        return None
    return None


def notebook_section(path: str | Path, figure: str | None = None) -> str:
    """One question's section of the page: its title and question, the short answer (the first paragraph of
    the conclusion the notebook displayed), the figure that answers it (``figure``: its path relative to the
    page, when it has one), the rest of the conclusion, its marks, and what made its outputs (the saved
    fingerprint) with a link to the notebook."""
    path = Path(path)
    nb = read_notebook(path)
    title, question = notebook_question(nb)
    answer = notebook_conclusion(nb)
    marks = notebook_marks(nb)
    fp = saved_fingerprint(path)
    made = fingerprint_markdown(fp) if fp is not None else NO_FINGERPRINT
    if fp is None:
        marks = OLD_MARKS if marks else None
    shown = None
    if figure is not None:
        got = notebook_answer_figure(nb, path)
        shown = f"![{got[1]}]({figure})\n\n*{got[1]}*" if got else None
    # the short answer (the conclusion's first paragraph), the figure, then the rest of the conclusion
    first, _, rest = (answer or NO_CONCLUSION).partition("\n\n")
    parts = [f"## {title or path.stem}", question, first, shown, rest.strip()]
    parts += [
        "**Marks.**\n\n" + (marks or NO_MARKS),
        f"*{made}.* The notebook: [{path.name}](../notebooks/{path.name}).",
    ]
    return "\n\n".join(p for p in parts if p) + "\n"


def findings_files(notebooks: Iterable[str | Path], parts: str | Path) -> dict[str, str | bytes]:
    """docs/findings.md and its answer figures, by path relative to the page's folder: the page
    (``findings.md``: the opening, ``parts``/head.md; one section per notebook in the order of their names;
    what the simulator assumes, ``parts``/assumptions.md) and ``findings/NN-answer.png`` for each notebook with
    an answer figure."""
    from simsuite.errors import SimsuiteError

    parts = Path(parts)
    texts = []
    for name in (PAGE_HEAD, PAGE_TAIL):
        try:
            texts.append((parts / name).read_text(encoding="utf-8").strip() + "\n")
        except OSError as e:
            raise SimsuiteError(f"{parts / name}: cannot read this part of the findings page ({e.strerror})") from None
    notebooks = sorted(Path(p) for p in notebooks)
    if not notebooks:
        raise SimsuiteError("no notebooks given: the findings page is made from the notebooks' saved outputs")
    files: dict[str, str | bytes] = {}
    sections = []
    for p in notebooks:
        got = notebook_answer_figure(read_notebook(p), p)
        figure = f"{FIGURES}/{p.name[:2]}-answer.png" if got else None
        if got:
            files[figure] = got[0]
        sections.append(notebook_section(p, figure))
    old = [p.stem for p in notebooks if (saved_fingerprint(p) or {}).get("quick", True)]
    status = [NOT_REMADE.format(names=", ".join(f"`{n}`" for n in old)) + "\n"] if old else []
    files = {"findings.md": "\n".join([texts[0], *status, *sections, texts[1]]), **files}
    return files


def findings_page(notebooks: Iterable[str | Path], parts: str | Path) -> str:
    """docs/findings.md's text (``findings_files``' page)."""
    return findings_files(notebooks, parts)["findings.md"]


def write_findings(out: str | Path, notebooks: Iterable[str | Path], parts: str | Path, check: bool = False) -> str:
    """Write the page ``out`` and its answer figures (``findings_files``: the figures in ``findings/`` beside
    it); ``check``: write nothing, say whether they are what they would be. Returns one line for the terminal;
    raises SimsuiteError when ``check`` finds one that differs."""
    from simsuite.errors import SimsuiteError

    notebooks = list(notebooks)
    out = Path(out)
    files = findings_files(notebooks, parts)
    page = files.pop("findings.md")
    files = {out.name: page, **files}
    if check:
        differ = []
        for rel, content in files.items():
            f = out.parent / rel
            now = (
                (f.read_bytes() if isinstance(content, bytes) else f.read_text(encoding="utf-8"))
                if f.is_file()
                else None
            )
            if now != content:
                differ.append(rel)
        if differ:
            raise SimsuiteError(
                f"{', '.join(differ)} in {out.parent} not what the notebooks' saved outputs give: regenerate with "
                f"python notebooks/_common.py findings {out} notebooks/0*.ipynb"
            )
        return f"{out} and its {len(files) - 1} figures are what the notebooks' saved outputs give"
    if not out.parent.is_dir():
        raise SimsuiteError(f"{out}: its folder {out.parent} does not exist")
    for rel, content in files.items():
        f = out.parent / rel
        f.parent.mkdir(exist_ok=True)
        if isinstance(content, bytes):
            f.write_bytes(content)
        else:
            f.write_text(content, encoding="utf-8")
    return f"{out}: written from the saved outputs of {len(notebooks)} notebooks, with {len(files) - 1} answer figures"
