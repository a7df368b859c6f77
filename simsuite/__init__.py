"""simsuite: a Monte Carlo rule-variant simulator and statistics suite for Tractor (Shengji).

The Python front door, one function per thing the ``simsuite`` command does most::

    import simsuite

    v = simsuite.load_variant("school-2016")                     # a rule set, as data
    run = simsuite.simulate("school-2016", matches=200, out="results/mine")   # play, store, load
    rows = simsuite.summarise(run)                               # figures with 95% intervals
    ruling = simsuite.judge("examples/scenarios/follow-3plus3.toml", "huizhou")
    advice = simsuite.advise("examples/scenarios/advise-lead.toml", policy="expert")

Importing ``simsuite`` loads none of the heavy modules (numba, polars): each function imports
what it needs when it is called. The layers under it (``simsuite.rules``, ``simsuite.sim``,
``simsuite.analysis``, ``simsuite.play``) hold everything else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__version__ = "0.1.0"

__all__ = ["__version__", "advise", "judge", "load_variant", "simulate", "summarise"]


def load_variant(id_or_path: str | Path):
    """The rules of one tournament: a registry id (``"huizhou"``; ``simsuite variants`` lists them)
    or the path of a variant TOML file (docs/variants.md). Returns a ``simsuite.rules.variant.Variant``."""
    from .rules.variant import load_variant as load

    return load(id_or_path)


def simulate(
    variants: str | Sequence[str] = "school-2016",
    *,
    policies: str = "expert,basic",
    matches: int | None = None,
    hands: int | None = None,
    seed: int = 1,
    jobs: int = 1,
    out: str | Path | None = None,
    overrides: Sequence[str] | Mapping[str, Any] = (),
    duplicate: bool = False,
    chunk: int | None = None,
    backend: str = "loky",
    scheduler: str | None = None,
    quiet: bool = False,
    break_lock: bool = False,
):
    """Play matches of each variant into a results folder and return the loaded results.

    What ``simsuite simulate`` does (docs/harness.md), with its flags as keyword arguments:
    ``variants`` one id or path or several, ``policies`` ``"A,B"`` (A sits N-S, B E-W; one name
    plays both), ``matches`` per variant or ``hands`` per variant (neither: 1,000 matches),
    ``seed`` the root seed, ``jobs`` worker processes (-1: one per core), ``out`` the results
    folder (None: ``results/<variants>-seed<seed>-<hash>``, the name the command gives),
    ``overrides`` rule changes as ``["key=value", ...]`` or a dict (``--set``), ``duplicate``
    each deal played twice with the seats swapped, ``quiet`` no progress on stderr. A folder that
    holds part of the same run is resumed. Returns ``simsuite.sim.results.Results``: ``.path``,
    ``.manifest`` and lazy polars frames ``.hands`` and ``.matches`` (docs/results.md)."""
    from .sim.results import load
    from .sim.run import simulate as run
    from .sim.spec import DEFAULT_CHUNK, RunSpec

    spec = RunSpec(
        variants=[variants] if isinstance(variants, (str, Path)) else list(variants),
        overrides=overrides,
        policies=policies,
        matches=matches,
        hands=hands,
        seed=seed,
        jobs=jobs,
        backend=backend,
        scheduler=scheduler,
        duplicate=duplicate,
        out=out,
        chunk=chunk if chunk is not None else DEFAULT_CHUNK,
        quiet=quiet,
        break_lock=break_lock,
    )
    return load(run(spec))


def summarise(results, *, by: str = "variant") -> list[dict]:
    """The summary rows of a results folder, as ``simsuite summary --json`` prints them: one row per
    variant (``by="variant"``) or per cell of a sweep (``by="cell"``), each with ``n_matches``,
    ``n_deals``, ``n_draws``, ``n_hands`` and every metric of docs/metrics.md as ``{"value", "low",
    "high", "n"}`` (a 95% interval; n counts deals). ``results`` is a folder's path or what
    ``simulate`` returned."""
    from .analysis import metrics
    from .sim.results import Results, load

    r = results if isinstance(results, Results) else load(results)
    return metrics.summarise(r.hands, r.matches, by=by, variants=r.variants())


def judge(scenario, variant=None):
    """Rule a written situation (a scenario file, docs/scenarios.md) under a variant, as ``simsuite
    judge`` does. ``scenario`` is a path or a loaded ``Scenario``; ``variant`` an id, a path, a
    ``Variant``, ``"all"`` (the five shipped variants) or None (the scenario's own ``variant``).
    Returns the ruling as a dict (``simsuite judge --json``: ``plays``, ``winner``, ``trick_points``,
    ``throw``, ``end``, ``declare``, ``notes``, ``error``), or a list of them for ``"all"``."""
    from .errors import SimsuiteError
    from .rules.judge import judge as rule
    from .rules.scenario import Scenario, load_scenario
    from .rules.variant import Variant, known_ids, load_all
    from .rules.variant import load_variant as load

    s = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
    choice = variant if variant is not None else s.variant
    if choice is None:
        raise SimsuiteError(
            f"{s.source}: no variant: give --variant ID or all (variant= in Python), or "
            f'variant = "ID" in the file; known ids: {", ".join(known_ids())}'
        )
    if isinstance(choice, str) and choice == "all":
        return [rule(s, v) for v in load_all()]
    return rule(s, choice if isinstance(choice, Variant) else load(choice))


def advise(scenario, variant=None, *, policy: str = "search", seed: int = 1):
    """What ``policy`` plays for the seat to move in a written position, as ``simsuite advise`` does
    (docs/scenarios.md). ``scenario`` is a path or a loaded ``Scenario``; ``variant`` an id, a path,
    a ``Variant`` or None (the scenario's own). Returns ``simsuite.play.advise.Advice``: ``choice``
    (card ids), and for ``search`` every candidate with its mean value in levels, its 95%
    half-width and its sampled deals (``learned``: each candidate's score in ``scored``)."""
    from .errors import SimsuiteError
    from .play.advise import advise as run
    from .rules.scenario import Scenario, load_scenario
    from .rules.variant import Variant, known_ids
    from .rules.variant import load_variant as load
    from .sim.limits import check_seed

    s = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
    choice = variant if variant is not None else s.variant
    if choice is None or (isinstance(choice, str) and choice == "all"):
        raise SimsuiteError(
            f'{s.source}: name one variant: --variant ID (variant= in Python), or variant = "ID" '
            f"in the file; known ids: {', '.join(known_ids())}"
        )
    check_seed("--seed", seed)
    return run(s, choice if isinstance(choice, Variant) else load(choice), policy, seed)
