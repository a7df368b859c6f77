"""Statistics over played hands and matches, returned as data (``simsuite.report`` lays them out).

- ``stats``: intervals and tests (Wilson, normal, bootstrap by deal, BCa, TOST, Holm).
- ``metrics``: a run's figures (game length, swing, fairness), each with its interval (``summarise``).
- ``distributions``: the share of hands at each level change, with intervals by deal.
- ``exact``: the exact match model, a package (``hands``, ``codes``, ``chain``, ``solve``, ``model``, ``validation``).
- ``calibrate``: self-play measured against outside references (``simsuite calibrate``).
- ``compare``: two policies' agreement in self-play (``simsuite compare-policies``).
- ``bury``: what a policy buries under a variant's rules (``simsuite bury``).
- ``design_spec``: a design spec, an organiser's question as data, read and checked.
- ``design``: the design search (rounds, error control, confirmation) of ``simsuite design``.
- ``design_figures``: the design's figures, the exact model re-scored per set, with delta-method intervals.
- ``design_judge``: goals against figures, the sets still open, the Pareto front, the binding goal.
- ``design_store``: the design folder, its rounds' runs and its stored result.
- ``claims``: the notebooks' pre-registered claims, their hashes and registry, tested with Holm.
- ``replication``: each figure's replication on a second seed (TOST against its margin).
- ``robustness``: each conclusion marked robust, policy-dependent or undecided across the pairings.
- ``pairings``: a notebook's three self-play pairings, figures side by side and each conclusion's effect.
- ``summaries``: the notebooks' summary tables, per-match outcomes and the duration model's band.
- ``notebook_runs``: the notebooks' sweeps, designs and pairings runs into ``results/notebooks/``.
"""
