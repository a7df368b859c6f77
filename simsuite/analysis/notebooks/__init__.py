"""What the analysis notebooks compute: pre-registered claims, their replication and robustness across
policy pairings, and the runs behind them (notebooks/, docs/findings.md).

The modules, in the order they build on each other: ``summaries`` (the summary tables, per-match
outcomes and the duration model's band), ``replication`` (each figure's replication on a second
seed, TOST against its margin), ``claims`` (the claims files, their hashes and registry, tested
with Holm), ``robustness`` (each conclusion marked robust, policy-dependent or undecided),
``pairings`` (the self-play pairings of the policy ladder side by side, each conclusion's effect) and ``runs``
(the notebooks' sweeps, designs and pairings into ``results/notebooks/``). The core modules of
``simsuite.analysis`` never import this package (``[tool.importlinter]``).
"""
