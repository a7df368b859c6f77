"""Built-in policy names, parsed in one place: a name to its engine code and back, and the lists
of names the commands take (one to four seats, an ``"A,B"`` team pair).

``search`` takes its samples, candidates and roll-out policy in the name (``search-k16-c8``,
``search-k32-c6-rlearned``); ``reference`` is the reference search, ``search-k32-c6``; ``label-…-s<salt>``
is the search's labeller, for ``simsuite learn collect`` (``engine.policies.search``).
Python policies (an import path ``file.py:Class`` or ``package.module:Class``) are not names: the
compiled engine cannot play them, so every parser here refuses them by their shape, without
importing anything; ``simsuite.play.loader.load_policy`` loads them for the Python hand loop.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from ..errors import SimsuiteError, did_you_mean
from .policies.codes import EXPERT, LEARNED, POLICY_NAMES, SEARCH
from .policies.search import (
    CODE_FIELD_MASK,
    DEFAULT_CANDIDATES,
    DEFAULT_SAMPLES,
    MAX_CANDIDATES,
    MAX_SAMPLES,
    REFERENCE_CANDIDATES,
    REFERENCE_SAMPLES,
    code_candidates,
    code_rollout,
    code_salt,
    code_samples,
    is_search,
    labels,
    search_code,
)

_SEARCH_SPEC = re.compile(r"(search|label)(?:-k(\d{1,3}))?(?:-c(\d{1,3}))?(?:-r(expert|learned))?(?:-s(\d{1,3}))?")
REFERENCE = "reference"  # the reference search's name (``search.REFERENCE_SAMPLES``, ``REFERENCE_CANDIDATES``)


def split_names(text: str) -> list[str]:
    """``"A, B"`` to ``["A", "B"]``: the comma-separated policy names of a command or a spec."""
    return [n.strip() for n in text.split(",")]


def pair_text(pair: tuple[str, str]) -> str:
    """A team pair as written: ``"A,B"``."""
    return f"{pair[0]},{pair[1]}"


def policy_code(name: str) -> int | None:
    """The engine code of a built-in policy name, or None if ``name`` is not one. ``search``
    takes its samples and candidates in the name: ``search-k16-c8``."""
    if name in POLICY_NAMES and name != "search":
        return POLICY_NAMES.index(name)
    if name == REFERENCE:
        return search_code(REFERENCE_SAMPLES, REFERENCE_CANDIDATES)
    m = _SEARCH_SPEC.fullmatch(name)
    if m is None:
        return None
    what, ks, cs, roll, salts = m.groups()
    k, c, salt = (int(g) if g else 0 for g in (ks, cs, salts))
    if (ks and not 1 <= k <= MAX_SAMPLES) or (cs and not 1 <= c <= MAX_CANDIDATES):
        raise SimsuiteError(
            f"policy {name!r}: search takes -k<samples> from 1 to {MAX_SAMPLES} and "
            f"-c<candidates> from 1 to {MAX_CANDIDATES} (search-k{DEFAULT_SAMPLES}-c{DEFAULT_CANDIDATES} "
            f"is the default)"
        )
    if salts and what == "search":
        raise SimsuiteError(f"policy {name!r}: -s<salt> is a labeller's (label-k8-c6-s1); search takes none")
    if salt > CODE_FIELD_MASK:
        raise SimsuiteError(f"policy {name!r}: a labeller's salt is 0 to {CODE_FIELD_MASK}")
    return search_code(k, c, LEARNED if roll == "learned" else EXPERT, what == "label", salt)


def policy_name(code: int) -> str:
    """The name of an engine policy code (``policy_code``'s inverse)."""
    code = int(code)
    if not is_search(code):
        return POLICY_NAMES[code]
    k, c = int(code_samples(code)), int(code_candidates(code))
    roll = "-rlearned" if code_rollout(code) == LEARNED else ""
    label = bool(labels(code))
    salt = f"-s{int(code_salt(code))}" if label and code_salt(code) else ""
    return ("label" if label else "search") + (f"-k{k}" if k else "") + (f"-c{c}" if c else "") + roll + salt


def policy_codes(policies: str | list[str] | tuple[str, ...]) -> np.ndarray:
    """``"expert,basic"`` (team NS, team EW) or four names (N, E, S, W) to engine codes."""
    names = split_names(policies) if isinstance(policies, str) else [n.strip() for n in policies]
    if len(names) == 1:
        names = names * 2
    if len(names) == 2:
        names = [names[0], names[1], names[0], names[1]]
    if len(names) != 4:
        raise SimsuiteError(f"policies: give one name, two (team NS, team EW) or four (N, E, S, W); got {policies!r}")
    codes = [policy_code(n) for n in names]
    bad = [n for n, c in zip(names, codes) if c is None]
    if bad and (":" in bad[0] or bad[0].endswith(".py")):
        raise SimsuiteError(
            f"policy {bad[0]!r} is an import path: Python policies play on the slow path "
            f"(simsuite.play.pyhand.play_hand_py, docs/policies.md); this command takes the built-in "
            f"policies {', '.join(POLICY_NAMES)}"
        )
    if bad:
        raise SimsuiteError(
            f"unknown policy {bad[0]!r}{did_you_mean(bad[0], POLICY_NAMES)}; built-in policies: "
            f"{', '.join(POLICY_NAMES)} "
            f"(search also as search-k<samples>-c<candidates>, samples 1 to {MAX_SAMPLES}, "
            f"candidates 1 to {MAX_CANDIDATES})"
        )
    return np.array(codes, dtype=np.int64)


def parse_policies(text: Any, where: str = "policies", from_file: bool = False) -> tuple[str, str]:
    """``"A,B"`` (or one name for both teams) of built-in policies. An import path is refused
    without importing it: Python policies cannot run in the compiled match loop, and a data file
    (``from_file``) must never make simsuite run code."""
    if not isinstance(text, str) or not text.strip():
        raise SimsuiteError(f"{where}: give two policies A,B (team N-S, team E-W); got {text!r}")
    names = split_names(text)
    if len(names) == 1:
        names = names * 2
    if len(names) != 2 or not all(names):
        raise SimsuiteError(f"{where}: give two policies A,B (team N-S, team E-W); got {text!r}")
    for name in names:
        if policy_code(name) is not None:
            continue
        if ":" not in name and not name.endswith(".py"):
            raise SimsuiteError(
                f"{where}: unknown policy {name!r}{did_you_mean(name, POLICY_NAMES)}; built-in "
                f"policies: {', '.join(POLICY_NAMES)}"
            )
        if from_file:
            raise SimsuiteError(
                f"{where}: {name!r} is a Python import path; a spec file names built-in policies "
                f"only ({', '.join(POLICY_NAMES)}) and never loads code (it was not imported)"
            )
        raise SimsuiteError(
            f"{where}: policy {name!r} is a Python policy; Python policies cannot run in the "
            f"compiled match loop, so the harness plays only the built-in policies "
            f"({', '.join(POLICY_NAMES)}); play Python policies with simsuite.play.pyhand"
        )
    return names[0], names[1]


def parse_pair(text: Any) -> tuple[str, str]:
    """``"A,B"``: two different built-in policies (search with its parameters counts once)."""
    names = split_names(str(text))
    if len(names) != 2 or not all(names):
        raise SimsuiteError(f"--policies needs two policies A,B (each plays all four seats); got {text!r}")
    codes = [plays_as(int(c)) for c in policy_codes(names)]  # refuses an unknown name or an import path
    if codes[0] == codes[1]:
        same = f"names {names[0]!r} twice" if names[0] == names[1] else f"{names[0]} and {names[1]} are the same policy"
        raise SimsuiteError(f"--policies {same}; compare two different policies")
    return names[0], names[1]


def plays_as(code: int) -> tuple:
    """A policy code with search's defaults filled in: ``search`` and ``search-k8-c6`` play alike, and
    a labeller plays as ``learned`` whatever it labels."""
    if not is_search(code):
        return code, 0, 0, 0
    if labels(code):
        return LEARNED, 0, 0, 0
    return (
        SEARCH,
        int(code_samples(code)) or DEFAULT_SAMPLES,
        int(code_candidates(code)) or DEFAULT_CANDIDATES,
        int(code_rollout(code)),
    )
