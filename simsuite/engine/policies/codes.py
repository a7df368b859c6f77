"""The engine's policy codes and decision kinds, each defined here once with its name.

A seat's policy is an integer code in ``pols`` (``POLICY_NAMES[code]`` is its name; ``engine.names``
parses names to codes). ``search`` packs its samples and candidates into the bits above ``SEARCH``
(``search.search_code``), so a search seat's code is ``SEARCH`` only with the defaults.

A decision is a lead, a follow or the dealer's bury (``DECISION_NAMES[kind]``). The compiled loops
pass the kind to ``search.decide`` and ``learned.decide``; the learned policy's features record it
(``features.X_DECISION_KIND``) and its model keeps one group of coefficients per kind
(``learned.group``), so these values are part of a model file's layout: do not renumber them.

Numba reads these module globals as compile-time constants wherever a compiled function uses them.
"""

from __future__ import annotations

# the built-in policies, by code (the index of each name):
# random      uniformly random legal play (``random_play``)
# basic       a careful beginner's habits (``basic``)
# expert      the strongest heuristic, and search's roll-out policy (``expert``)
# search      determinised Monte Carlo search (``search``); K and C in the code's higher bits
# expert-v1   ``expert`` before its rebuild, frozen as a reference for duels (``expert_v1``)
# learned     search's candidates scored by a trained model (``learned``)
POLICY_NAMES = ("random", "basic", "expert", "search", "expert-v1", "learned")
RANDOM, BASIC, EXPERT, SEARCH, EXPERT_V1, LEARNED = range(len(POLICY_NAMES))

# what a decision is, by kind (the index of each name): the seat to move leads a trick, follows the
# trick's lead, or (the dealer, with the bottom already in its hand) buries the bottom
DECISION_NAMES = ("lead", "follow", "bury")
D_LEAD, D_FOLLOW, D_BURY = range(len(DECISION_NAMES))
N_DECISION_KINDS = len(DECISION_NAMES)

# an end-of-hand decision: a lead or a follow with this many cards or fewer in the mover's hand (the last
# tricks: four of single cards, fewer of pairs). The learned model scores them with groups of their own
# (``learned.group``) and the search's labeller labels every one of them (``search``).
END_CARDS = 8
