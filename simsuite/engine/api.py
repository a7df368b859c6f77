"""Python entry points to the compiled engine: seeds in, hand records out."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from ..errors import SimsuiteError
from ..rules.variant import Variant
from . import hand as H
from .core import Work
from .params import compile_variant
from .policies import POLICY_NAMES
from .search import DEFAULT_CANDIDATES, DEFAULT_SAMPLES, MAX_CANDIDATES, MAX_SAMPLES, is_search, search_code
from .rng import hand_state, run_key


_SEARCH_SPEC = re.compile(r"search(?:-k(\d{1,3}))?(?:-c(\d{1,3}))?")


def policy_code(name: str) -> int | None:
    """The engine code of a built-in policy name, or None if ``name`` is not one. ``search``
    takes its samples and candidates in the name: ``search-k16-c8``."""
    if name in POLICY_NAMES and name != "search":
        return POLICY_NAMES.index(name)
    m = _SEARCH_SPEC.fullmatch(name)
    if m is None:
        return None
    k, c = (int(g) if g else 0 for g in m.groups())
    if (m.group(1) and not 1 <= k <= MAX_SAMPLES) or (m.group(2) and not 1 <= c <= MAX_CANDIDATES):
        raise SimsuiteError(f"policy {name!r}: search takes -k<samples> from 1 to {MAX_SAMPLES} and "
                            f"-c<candidates> from 1 to {MAX_CANDIDATES} (search-k{DEFAULT_SAMPLES}-c{DEFAULT_CANDIDATES} "
                            f"is the default)")
    return search_code(k, c)


def policy_name(code: int) -> str:
    """The name of an engine policy code (``policy_code``'s inverse)."""
    code = int(code)
    if not is_search(code):
        return POLICY_NAMES[code]
    k, c = (code >> 4) & 255, (code >> 12) & 255
    return "search" + (f"-k{k}" if k else "") + (f"-c{c}" if c else "")


def policy_codes(policies: str | list[str] | tuple[str, ...]) -> np.ndarray:
    """``"expert,basic"`` (team NS, team EW) or four names (N, E, S, W) to engine codes."""
    names = policies.split(",") if isinstance(policies, str) else list(policies)
    names = [n.strip() for n in names]
    if len(names) == 1:
        names = names * 2
    if len(names) == 2:
        names = [names[0], names[1], names[0], names[1]]
    if len(names) != 4:
        raise SimsuiteError(f"policies: give one name, two (team NS, team EW) or four (N, E, S, W); got {policies!r}")
    codes = [policy_code(n) for n in names]
    bad = [n for n, c in zip(names, codes) if c is None]
    if bad and (":" in bad[0] or bad[0].endswith(".py")):
        raise SimsuiteError(f"policy {bad[0]!r} is an import path: Python policies play on the slow path "
                            f"(simsuite.play.pyhand.play_hand_py, docs/policies.md); this command takes the built-in "
                            f"policies {', '.join(POLICY_NAMES)}")
    if bad:
        raise SimsuiteError(f"unknown policy {bad[0]!r}; built-in policies: {', '.join(POLICY_NAMES)} "
                            f"(search also as search-k<samples>-c<candidates>)")
    return np.array(codes, dtype=np.int64)


def hand_states(seed: int, start: int, count: int) -> np.ndarray:
    """Generator states of hands ``start .. start+count-1`` of a run with root ``seed``: hand i
    always gets the same state, however the work is split."""
    key = run_key(seed)
    out = np.zeros((count, 4), np.int64)
    for i in range(count):
        hand_state(key, start + i, out[i])
    return out


@dataclass
class HandHistory:
    deal: np.ndarray
    bottom: np.ndarray
    bids: np.ndarray  # rows: seat, card, count, kind (1 declare, 2 override, 3 reinforce)
    bury: np.ndarray
    plays: np.ndarray  # rows: trick, seat, kind (0 play, 1 failed throw), winner, 54 counts


@dataclass
class HandResult:
    record: dict
    history: HandHistory | None = field(default=None)


def play_one(variant: Variant, seed: int, policies="basic", level: int | None = None, first_drawer: int = 0,
             first_hand: bool = True, keep: bool = True, hand_index: int = 0) -> HandResult:
    """Play one hand with its full history (for traces and tests)."""
    P = compile_variant(variant)
    pols = policy_codes(policies)
    W = Work().arrays()
    state = hand_states(seed, hand_index, 1)[0]
    rec = np.zeros(H.N_RECORD, np.int64)
    h_deal = np.zeros((4, 54), np.int64)
    h_bottom = np.zeros(54, np.int64)
    h_bids = np.zeros((H.MAX_BIDS, 4), np.int64)
    h_bury = np.zeros(54, np.int64)
    h_plays = np.zeros((H.MAX_PLAYS, H.PLAY_COLS), np.int64)
    h_n = np.zeros(2, np.int64)
    lvl = variant.start_level if level is None else level
    H.play_hand(P, state, lvl, first_drawer, first_hand, pols, W, rec, keep, h_deal, h_bottom, h_bids, h_bury, h_plays, h_n)
    record = dict(zip(H.RECORD_FIELDS, (int(x) for x in rec)))
    if record["error"]:
        raise SimsuiteError(f"the engine stopped on an illegal play (code {record['error']}) in hand seed {seed}")
    hist = HandHistory(h_deal, h_bottom, h_bids[: h_n[0]].copy(), h_bury, h_plays[: h_n[1]].copy()) if keep else None
    return HandResult(record, hist)


def play_batch(variant: Variant, seed: int, n: int, policies="basic", level: int | None = None,
               first_hand: bool = True, start: int = 0) -> np.ndarray:
    """Play hands ``start .. start+n-1`` of a run with root ``seed``; one record row per hand."""
    P = compile_variant(variant)
    pols = policy_codes(policies)
    W = Work().arrays()
    lvl = variant.start_level if level is None else level
    levels = np.full(n, lvl, np.int64)
    drawers = np.arange(start, start + n, dtype=np.int64) % 4
    out = np.zeros((n, H.N_RECORD), np.int64)
    H.play_many(P, run_key(seed), start, levels, drawers, first_hand, pols, W, out)
    if out[:, H.R_ERROR].any():
        bad = int(np.nonzero(out[:, H.R_ERROR])[0][0])
        raise SimsuiteError(f"the engine stopped on an illegal play in hand {start + bad} of seed {seed}")
    return out
