"""The exact match model: a match as a Markov chain over hands, solved with numpy (docs/metrics.md).

State before a hand: both teams' levels, which team declares, and for a timed match the elapsed
modelled time and the warning counter; plus the team last strictly ahead, for lead changes. Who
deals is not a separate coordinate: the engine's next declaring team is the next dealer's team,
and nothing else in the chain depends on which seat of that team deals. Time is kept exactly, as
the tricks played so far (``Rules.x100``).

Each hand moves the state by an outcome drawn from a per-hand distribution estimated from
simulated hands of one cell and one policy pairing, conditioned on what the rules make a hand
depend on: the first hand of a match (the declarers come from bidding), which team (policy)
declares, and the group of the level played: special (a permanent-trump rank), a point-card level
(5, 10, K) where ``level_check`` finds hands there fall otherwise, or plain.
An outcome is (levels gained by the declarers, levels gained by the defenders, whether the deal
passes to the other team, the hand's modelled duration). The chain is then solved exactly by
propagating the probability of every state hand by hand (no sampling): P(team A wins), P(draw),
P(team B wins), the distribution of hands per match, of modelled minutes (timed matches), the
expected lead changes, and by a backward pass P(win | state), from which Ludii's drama and a
decisiveness figure follow. Sampling uncertainty of the per-hand distributions is carried
through by a bootstrap that resamples deals (all hands of a deal's tables go together): a resample
is a weight vector over the deals, its tables the weighted outcome counts (``Design``), and the
chain is solved for a batch of resamples at once (``solve_batch``). ``validation_rows`` compares
the model with matches of another seed by equivalence tests (TOST) at ``VALIDATION_MARGINS``.

Exact, here, means solved without sampling matches: every path of the chain weighted by its
probability. It is exact given the per-hand distributions; those are estimated from the run's hands
(hence the bootstrap) and assumed to depend only on the conditions above, an assumption
``validation_rows`` measures against matches as played. Its output puts each figure of the model
beside the same figure of the run's matches as played, the sample (``exact_results``' ``"sample"``).

Re-scoring: with ``overrides`` (``--set``) every hand's duration is recomputed from its tricks under
the new duration model and the chain is solved under the new clock. That is exact re-scoring: no
policy looks at the clock or the duration model (``RESCORABLE``), so the run's hands are the hands
the new rules would have seen, and nothing is approximated beyond the model itself. With
``approximate`` the bands may be changed too, and every hand's defender points are scored again
under them: approximate re-scoring, because the policies play for the bands, so the hands would
have fallen otherwise, and their points are taken as they fell at the old levels.
``docs/metrics.md`` ("Re-scoring error") records its measured error against direct simulation.

The modules, in the order they build on each other: ``hands`` (the rules the chain needs, the hands'
data, re-scoring, the outcome tables), ``codes`` (the states' codes and their numbering), ``chain``
(the states and transitions, hand by hand), ``solve`` (the chain solved, one distribution or a batch),
``sample`` (the same figures of the matches as played), ``model`` (a cell's model with its bootstrap,
the level check, a results folder, each cell beside its sample), ``validation`` (against simulated
matches of another seed). Their text is ``simsuite.report.exact_text``'s; ``simsuite exact`` is
``simsuite.cli.exact``.
"""

from .chain import Chain, ChainHand, Work, winner_probs
from .codes import decode_states, distinct, encode_states
from .hands import (
    GROUPS,
    KEYS,
    POINT_LEVELS,
    RESCORABLE,
    TIME_STEP_X100,
    UNTIMED_CAP,
    Design,
    HandData,
    Rules,
    Table,
    check_rescorable,
    complete_tables,
    hand_data,
    outcome_design,
    rescore,
)
from .model import (
    DEFAULT_REPS,
    FIGURES,
    LEVEL_CHECK_ALPHA,
    LEVEL_CHECK_REPS,
    MAX_REPS,
    MIN_REPS,
    exact_model,
    exact_results,
    level_check,
)
from .sample import simulated_figures
from .solve import (
    DECIDED_AT,
    TOL,
    Solution,
    TransitionPlan,
    solve,
    solve_batch,
    transition_plan,
)
from .validation import (
    VALIDATION_ALPHA,
    VALIDATION_MARGINS,
    equivalence,
    validation_rows,
)

__all__ = [
    "DECIDED_AT",
    "DEFAULT_REPS",
    "FIGURES",
    "GROUPS",
    "KEYS",
    "LEVEL_CHECK_ALPHA",
    "LEVEL_CHECK_REPS",
    "MAX_REPS",
    "MIN_REPS",
    "POINT_LEVELS",
    "RESCORABLE",
    "TIME_STEP_X100",
    "TOL",
    "UNTIMED_CAP",
    "VALIDATION_ALPHA",
    "VALIDATION_MARGINS",
    "Chain",
    "ChainHand",
    "Design",
    "HandData",
    "Rules",
    "Solution",
    "Table",
    "TransitionPlan",
    "Work",
    "check_rescorable",
    "complete_tables",
    "decode_states",
    "distinct",
    "encode_states",
    "equivalence",
    "exact_model",
    "exact_results",
    "hand_data",
    "level_check",
    "outcome_design",
    "rescore",
    "simulated_figures",
    "solve",
    "solve_batch",
    "transition_plan",
    "validation_rows",
    "winner_probs",
]
