"""The design search of ``simsuite design``: an organiser's question (goals on a run's figures) answered
by the rule values that meet it, with its error control (docs/design.md).

The modules, in the order they build on each other: ``spec`` (a design spec, the question as data,
read and checked), ``figures`` (each set's figures, the exact model re-scored per set, with
delta-method intervals), ``judge`` (goals against figures, the sets still open, the Pareto front, the
binding goal), ``store`` (the design folder, its rounds' runs and its stored result) and ``search``
(the rounds, the error control and the confirmation: ``design``). Their text is
``simsuite.report.design_text``'s and ``design_page``'s.
"""
