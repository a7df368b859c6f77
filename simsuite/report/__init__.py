"""Readable output, laid out from the data that ``analysis`` and ``compete`` return.

- ``page``: the machinery of a self-contained HTML page, shared by the two pages below.
- ``html``: the HTML report of a results folder (``simsuite report``).
- ``design_page``: the HTML page of a ``simsuite design`` run.
- ``text``: terminal tables, variants and rulings side by side.
- ``headline``: what a run shows, in words, with intervals and n: the opening of ``report`` and ``summary``.
- ``summary_text``: the text of ``simsuite summary``: the headline, then the table (``format_summary``).
- ``calibrate_text``: the text of ``simsuite calibrate``.
- ``compare_text``: the text of ``simsuite compare-policies``.
- ``exact_text``: the exact model's figures, level check and validation table (``simsuite exact``).
- ``design_text``: the answer and the text of ``simsuite design`` (``design.txt``).
- ``learn_text``: the tables of ``simsuite learn train`` and ``learn evaluate``.
- ``match_text``: a readable account of one match, a line per hand.
- ``tournament_text``: a tournament's final standings, champion and notes.
- ``trace``: a readable trace of one hand played by the compiled engine.
- ``plots``: the notebooks' figures, with 95% intervals.
- ``notebook``: what the notebooks display (claims banner, claims tested, verdicts, conclusion).
- ``findings``: the robustness marks written into docs/findings.md.
"""
