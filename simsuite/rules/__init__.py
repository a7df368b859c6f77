"""The rules of Tractor, readable.

- ``cards``: cards, card notation and decks.
- ``variant``: one tournament's rules as a frozen, validated dataclass loaded from TOML.
- ``citations``: where each field of a variant comes from (the ``[cite.*]`` tables of a file).
- ``choices``: one string enum per behaviour field of a variant, and ``code()``, a choice's engine code.
- ``scale``: a variant moved to another deck count.
- ``order``: card order for one hand (suit-classes, strength positions, adjacency).
- ``units``: units (single, pair, triple, quad, tractors) and the decomposition of a play.
- ``follow``: what a follower must play.
- ``legal``: every legal follow of a hand.
- ``trick``: one trick (lead legality, throws, trumping, the winner, the points).
- ``scoring``: the end of a hand (last-trick capture, level bands, who deals next).
- ``declare``: declaring trump during the draw.
- ``scenario``: scenario files, one written situation.
- ``judge``: rulings on a scenario under one variant (``simsuite judge``).
- ``words``: rule settings in an organiser's words (``bottom 6, capture ×3``).

Plain Python on card-count dicts, written for clarity rather than speed: the compiled engine
(``simsuite.engine``) re-expresses these rules on arrays and the tests check the two agree.
"""
