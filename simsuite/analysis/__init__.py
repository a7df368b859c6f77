"""Statistics over played hands and matches, returned as data (``simsuite.report`` lays them out).

- ``stats``: intervals and tests (Wilson, normal, bootstrap by deal, BCa, TOST, Holm).
- ``metrics``: a run's figures (game length, swing, fairness), each with its interval (``summarise``).
- ``distributions``: the share of hands at each level change, with intervals by deal.
- ``exact``: the exact match model, a package (``hands``, ``codes``, ``chain``, ``solve``, ``model``, ``validation``).
- ``calibrate``: self-play measured against outside references (``simsuite calibrate``).
- ``compare``: two policies' agreement in self-play (``simsuite compare-policies``).
- ``bury``: what a policy buries under a variant's rules (``simsuite bury``).
- ``settings``: a sweep's settings side by side, paired differences from a baseline, goals (``simsuite compare``).
- ``design``: the design search of ``simsuite design``, a package (``spec``, ``figures``, ``judge``, ``store``,
  ``search``).
- ``notebooks``: what the analysis notebooks compute, a package (``summaries``, ``replication``, ``claims``,
  ``robustness``, ``pairings``, ``runs``).

The core modules (``stats``, ``metrics``, ``distributions``, ``calibrate``, ``compare``, ``bury``, ``exact``)
import neither package (``[tool.importlinter]``).
"""
