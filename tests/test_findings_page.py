"""docs/findings.md is generated from the notebooks' saved outputs (``simsuite.report.findings.findings_page``,
``python notebooks/_common.py findings``): the page in the repository is what the command gives, each section
opens with its answer, and outputs made before the notebooks recorded their fingerprint show no marks."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest

from simsuite.analysis.notebooks.fingerprint import MIME
from simsuite.errors import SimsuiteError
from simsuite.report.findings import (
    ANSWER_TAG,
    MARKS_HEAD,
    NO_CONCLUSION,
    NO_FINGERPRINT,
    NO_MARKS,
    OLD_MARKS,
    findings_files,
    findings_page,
    notebook_section,
    write_findings,
)

ROOT = Path(__file__).resolve().parents[1]
PARTS = ROOT / "notebooks" / "findings"


def test_the_findings_page_is_what_the_notebooks_saved_outputs_give():
    """Fails when a notebook's saved outputs, or notebooks/findings/, changed and docs/findings.md and its
    answer figures (docs/findings/) were not regenerated: run the command the message names."""
    notebooks = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
    files = findings_files(notebooks, PARTS)
    regenerate = "python notebooks/_common.py findings docs/findings.md notebooks/0*.ipynb"
    page = (ROOT / "docs" / "findings.md").read_text(encoding="utf-8")
    assert page == files.pop("findings.md"), f"docs/findings.md is not what the saved outputs give: {regenerate}"
    assert "awaiting" not in page.lower()
    assert sorted(files) == [f"findings/{p.name[:2]}-answer.png" for p in notebooks]  # one answer figure each
    for rel, png in files.items():
        assert (ROOT / "docs" / rel).read_bytes() == png, f"docs/{rel} is not the saved figure: {regenerate}"
        assert f"]({rel})" in page


PNG = b"\x89PNG\r\n\x1a\n-a-figure"


def _notebook(
    path: Path, conclusion: str | None, marks: str | None, fingerprint: dict | None, caption: str | None = None
) -> Path:
    outputs = []
    if fingerprint is not None:
        outputs.append({"output_type": "display_data", "metadata": {}, "data": {MIME: fingerprint}})
    if marks is not None:
        outputs.append({"output_type": "display_data", "metadata": {}, "data": {"text/markdown": marks}})
    if conclusion is not None:
        outputs.append({"output_type": "display_data", "metadata": {}, "data": {"text/markdown": conclusion}})
    nb = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [
            {
                "cell_type": "markdown",
                "metadata": {},
                "source": "# 07 · A question\n\n**Question.** Does it?\n\n**Design.** A sweep.",
            },
            {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": "x", "outputs": outputs},
        ],
    }
    if caption is not None:
        png = {"output_type": "display_data", "metadata": {}, "data": {"image/png": base64.b64encode(PNG).decode()}}
        meta = {"tags": ["figure", ANSWER_TAG], "simsuite": {"caption": caption}}
        nb["cells"].append(
            {"cell_type": "code", "metadata": meta, "execution_count": 2, "source": "y", "outputs": [png]}
        )
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


FP = {"notebook": "07", "code": "a" * 64, "model": "b" * 64, "claims": "c" * 64, "seed": 40707, "quick": False}


def test_a_section_opens_with_its_answer_then_its_marks_then_what_made_it(tmp_path):
    nb = _notebook(
        tmp_path / "07-a-question.ipynb",
        "### Conclusion\n\n**Yes.** It does in 61.0% [59.0, 63.0] of matches (n = 2,000).",
        MARKS_HEAD + "\n\n- it does: **robust**",
        FP,
    )
    s = notebook_section(nb)
    assert s.startswith("## 07 · A question\n\n**Question.** Does it?\n\n**Yes.** It does in 61.0%")
    assert "![" not in s  # no figure asked for
    assert s.index("**Yes.**") < s.index("**Marks.**") < s.index("- it does: **robust**") < s.index("*Made by:")
    assert "40707" in s and "aaaaaaa" in s and "[07-a-question.ipynb](../notebooks/07-a-question.ipynb)" in s
    assert "**Design.**" not in s  # the method stays in the notebook


def test_outputs_without_a_fingerprint_show_no_marks_and_are_named_at_the_top(tmp_path):
    old = _notebook(
        tmp_path / "07-a-question.ipynb", "### Conclusion\n\nOld.", MARKS_HEAD + "\n\n- x: **robust**", None
    )
    s = notebook_section(old)
    assert OLD_MARKS in s and "**robust**" not in s and NO_FINGERPRINT in s
    bare = _notebook(tmp_path / "08-bare.ipynb", None, None, FP | {"notebook": "08"})
    assert NO_CONCLUSION in notebook_section(bare) and NO_MARKS in notebook_section(bare)
    page = findings_page([old, bare], PARTS)
    assert page.startswith((PARTS / "head.md").read_text(encoding="utf-8").strip())
    assert "**Not yet re-made with the play described above:** `07-a-question`." in page
    assert page.rstrip().endswith((PARTS / "assumptions.md").read_text(encoding="utf-8").strip())


def test_the_answer_figure_follows_the_short_answer_with_its_caption(tmp_path):
    nb = _notebook(
        tmp_path / "07-a-question.ipynb",
        "### Conclusion\n\n**Answer.** Yes (n = 10).\n\n**In detail.** More.",
        MARKS_HEAD + "\n\n- it does: **robust**",
        FP,
        caption="Yes, drawn.",
    )
    files = findings_files([nb], PARTS)
    assert files["findings/07-answer.png"] == PNG
    s = files["findings.md"]
    fig = "![Yes, drawn.](findings/07-answer.png)\n\n*Yes, drawn.*"
    assert s.index("**Answer.** Yes") < s.index(fig) < s.index("**In detail.**") < s.index("**Marks.**")
    no_caption = json.loads(nb.read_text())
    del no_caption["cells"][-1]["metadata"]["simsuite"]
    nb.write_text(json.dumps(no_caption))
    with pytest.raises(SimsuiteError, match="its answer figure has no caption"):
        findings_files([nb], PARTS)


def test_write_and_check(tmp_path):
    nb = _notebook(tmp_path / "07-a-question.ipynb", "### Conclusion\n\nYes.", None, FP, caption="Drawn.")
    out = tmp_path / "findings.md"
    with pytest.raises(SimsuiteError, match="findings.md, findings/07-answer.png in .* not what the notebooks'"):
        write_findings(out, [nb], PARTS, check=True)
    assert not out.exists() and not (tmp_path / "findings").exists()  # a check writes nothing
    assert "written from the saved outputs of 1 notebooks, with 1 answer figures" in write_findings(out, [nb], PARTS)
    assert (tmp_path / "findings" / "07-answer.png").read_bytes() == PNG
    assert "its 1 figures are what the notebooks' saved outputs give" in write_findings(out, [nb], PARTS, check=True)
    (tmp_path / "findings" / "07-answer.png").write_bytes(b"another figure")
    with pytest.raises(SimsuiteError, match="^findings/07-answer.png in "):
        write_findings(out, [nb], PARTS, check=True)


def test_bad_input_is_named_in_one_line(tmp_path):
    junk = tmp_path / "07-junk.ipynb"
    junk.write_text("{not json", encoding="utf-8")
    with pytest.raises(SimsuiteError, match="07-junk.ipynb"):
        findings_page([junk], PARTS)
    with pytest.raises(SimsuiteError, match="no notebooks given"):
        findings_page([], PARTS)
    nb = _notebook(tmp_path / "07-a-question.ipynb", "### Conclusion\n\nYes.", None, FP)
    with pytest.raises(SimsuiteError, match="cannot read this part of the findings page"):
        findings_page([nb], tmp_path / "nowhere")
    with pytest.raises(SimsuiteError, match="does not exist"):
        write_findings(tmp_path / "no" / "findings.md", [nb], PARTS)
    r = subprocess.run(
        [sys.executable, str(ROOT / "notebooks" / "_common.py"), "findings", str(tmp_path / "f.md"), str(junk)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 1 and "findings:" in r.stderr and "07-junk.ipynb" in r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "f.md").exists()
