"""``simsuite learn train``: a bilinear scorer fitted to the search's values, and its evaluation.

The data are a collection's decisions (``learn.collect``): per candidate, the search's mean value
(levels first, then the stage and the points; ``engine.policies.search.value``, divided here by a level's
1000 so that one level is 1.0) and its features. The model is the one ``engine.policies.learned`` plays:
for a decision of group ``g`` (its kind, lead, follow or bury, and its deck count) with decision
features ``p`` and candidate features ``c``, the score is ``c . (A[g] [p, 1])``. It is fitted by ridge regression of each
candidate's value minus its decision's mean value on the candidate features minus their decision
mean, crossed with the decision features: what is the same for every candidate of a decision
cannot change the choice, so it is left out of both sides. The fit standardises every feature
(with the training rows' means and standard deviations) and folds the scaling back into ``A``, so
the file holds coefficients on the raw integer features. The ridge penalty is chosen on
validation deals from ``RIDGE_GRID``.

Everything is deterministic: the same data give the same coefficients (splits go by hand index;
``--seed`` only orders the subsample of rows when ``max_rows`` is below the data).

Held out, never fitted:

* deals: every hand whose index is ``TEST_DEALS`` modulo ``SPLIT_MOD`` (``VALID_DEALS``: the
  validation deals that choose the penalty);
* rules: every drawn hand with a parameter value left out of training, ``held_out_rules``: a
  single-card capture multiplier of ``HELD_CAPTURE``, or a take-over threshold at ``HELD_TAKEOVER``
  of the decks' points.

``evaluate`` reports, on any set of decisions, the share where the model picks the search's
choice (top-1 agreement) and the value it gives up against that choice by the search's own
estimates (in levels per decision), each with a 95% interval over hands (the unit: a hand's
decisions share its deal), beside the same figures for the heuristic's choice (``expert``).
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from ..engine.policies.codes import D_BURY, DECISION_NAMES, END_CARDS
from ..engine.policies.features import (
    FEATURE_NAMES,
    N_CONTEXT,
    N_FEATURES,
    X_CAPTURE_SINGLE,
    X_CARDS_LEFT,
    X_DECKS,
    X_TAKEOVER,
)
from ..engine.policies.learned import (
    DECK_GROUPS,
    END_KINDS,
    HEAD_BURY,
    HEAD_END,
    HEAD_SIZE,
    HEADER,
    HIDDEN1,
    HIDDEN2,
    KIND_BILINEAR,
    MODEL_END,
    MODEL_HEADS,
    MODEL_KIND,
    MODEL_NCTX,
    MODEL_NF,
    MODEL_SIZE,
    MODEL_TOTAL,
    N_CANDIDATE,
    N_GROUPS,
    N_KINDS,
    group_names,
)
from ..engine.policies.model import FORMAT, FORMAT_VERSION, features_hash, model_words, words_hash
from ..errors import SimsuiteError
from .collect import load_decisions, load_manifest
from .heads import Head
from .heads import fit as fit_head

LEVEL = 1000.0  # engine.policies.search.LEVEL_VALUE: the value of a level, so that values read in levels
SPLIT_MOD = 10
TEST_DEALS = 0
VALID_DEALS = 1
HELD_CAPTURE = 5  # a single-card capture multiplier of x5 (per card 5, or base and per card adding to 5)
HELD_TAKEOVER = (9, 20)  # take-over at 9/20 = 45% of the decks' points (90 at two decks, 135 at three, 180 at four)
RIDGE_GRID = (1.0, 10.0, 100.0, 1000.0, 1e4, 1e5, 1e6)  # chosen per group: the bury's few rows want more
BATCH = 100_000


@dataclass
class Decisions:
    """A collection's decisions as arrays: candidate rows ``start[d] .. start[d+1]-1`` of decision
    ``d``; ``X`` the features, ``value`` the search's mean value in levels, ``chosen`` its pick."""

    X: np.ndarray  # int32 [rows, N_FEATURES]
    value: np.ndarray  # float64 [rows]
    chosen: np.ndarray  # bool [rows]
    start: np.ndarray  # int64 [decisions + 1]
    kind: np.ndarray  # int8 [decisions]
    hand: np.ndarray  # int64 [decisions]
    drawn: np.ndarray  # bool [decisions]
    source: str = ""

    @property
    def n(self) -> int:
        return self.kind.shape[0]

    def group(self, end_cards: int = END_CARDS) -> np.ndarray:
        """Each decision's model group (``engine.policies.learned.group``): its kind and deck count,
        a lead or a follow with at most ``end_cards`` cards in hand in the end-of-hand groups."""
        return group_of(self.kind, self.X[self.start[:-1]], end_cards)

    def counts(self) -> np.ndarray:
        return np.diff(self.start)

    def rows_of(self, mask: np.ndarray) -> np.ndarray:
        """A row mask from a decision mask."""
        return np.repeat(mask, self.counts())

    def subset(self, mask: np.ndarray) -> Decisions:
        rows = self.rows_of(mask)
        counts = self.counts()[mask]
        return Decisions(
            self.X[rows],
            self.value[rows],
            self.chosen[rows],
            np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
            self.kind[mask],
            self.hand[mask],
            self.drawn[mask],
            self.source,
        )


def load(folder: str | Path) -> Decisions:
    """A complete collection as ``Decisions``."""
    return from_frame(load_decisions(folder), str(folder))


HAND_OFFSET = 10**8  # the hand numbers of a second collection start here (a multiple of SPLIT_MOD: the splits hold)


def load_many(folders, leave_out: str | None = None) -> Decisions:
    """Complete collections as one ``Decisions``: collection ``i``'s hand numbers moved by
    ``i * HAND_OFFSET``, so that no two collections' hands are taken for one deal (a hand's split,
    ``hand % SPLIT_MOD``, is kept). ``leave_out``: a tournament whose hands are dropped, as written and
    with drawn parameters alike (a model that never saw its rules)."""
    folders = [folders] if isinstance(folders, (str, Path)) else list(folders)
    frames = [load_decisions(f).with_columns(pl.col("hand") + i * HAND_OFFSET) for i, f in enumerate(folders)]
    if leave_out is not None:
        frames = [f.filter(pl.col("base") != leave_out) for f in frames]
    return from_frame(pl.concat(frames), ", ".join(map(str, folders)))


def from_frame(frame: pl.LazyFrame, source: str) -> Decisions:
    """Logged decisions (a collection's parts, or several collections' concatenated) as ``Decisions``."""
    frame = frame.select(
        ["hand", "drawn", "kind", "candidate", "chosen", "value_sum", "samples", *FEATURE_NAMES]
    ).collect()
    if frame.height == 0:
        raise SimsuiteError(f"{source}: the collection holds no decisions")
    cand = frame["candidate"].to_numpy()
    first = np.flatnonzero(cand == 0)
    samples = frame["samples"].to_numpy()
    if (samples <= 0).any():
        raise SimsuiteError(f"{source}: a candidate with no sampled deal; the collection is not usable")
    value = frame["value_sum"].to_numpy() / samples / LEVEL
    start = np.concatenate([first, [frame.height]]).astype(np.int64)
    return Decisions(
        frame.select(FEATURE_NAMES).to_numpy().astype(np.int32),
        value.astype(np.float64),
        frame["chosen"].to_numpy() == 1,
        start,
        frame["kind"].to_numpy()[first].astype(np.int8),
        frame["hand"].to_numpy()[first],
        frame["drawn"].to_numpy()[first],
        source,
    )


KIND_GROUPS = {"lead": (0,), "follow": (1,), "bury": (2,), "end-lead": (3,), "end-follow": (4,)}


def parse_groups(text: str) -> set[int]:
    """``--groups lead,bury,...`` to the model's group indices (every deck count of each); ``none``: no
    group (only heads are fitted)."""
    out: set[int] = set()
    if text.strip() == "none":
        return out
    for name in (t.strip() for t in text.split(",")):
        if name not in KIND_GROUPS:
            raise SimsuiteError(f"--groups: unknown group {name!r}; the groups are {', '.join(KIND_GROUPS)} (or none)")
        for k in KIND_GROUPS[name]:
            out.update(k * len(DECK_GROUPS) + d for d in range(len(DECK_GROUPS)))
    return out


def _file_hash(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def group_of(kind: np.ndarray, first: np.ndarray, end_cards: int = END_CARDS) -> np.ndarray:
    """``engine.policies.learned.group`` over arrays: decision kinds and their first rows' features."""
    kind = kind.astype(np.int64)
    d = np.clip(first[:, X_DECKS], DECK_GROUPS[0], DECK_GROUPS[-1]).astype(np.int64) - DECK_GROUPS[0]
    end = (kind != D_BURY) & (first[:, X_CARDS_LEFT] <= end_cards)
    end_kind = N_KINDS + np.searchsorted(np.array(END_KINDS), kind)
    return np.where(end, end_kind, kind) * len(DECK_GROUPS) + d


def held_out_rules(d: Decisions) -> np.ndarray:
    """Decisions of drawn hands with a rule value left out of training (module docstring)."""
    first = d.X[d.start[:-1]]
    capture = first[:, X_CAPTURE_SINGLE] == HELD_CAPTURE
    takeover = first[:, X_TAKEOVER] * HELD_TAKEOVER[1] == HELD_TAKEOVER[0] * 100 * first[:, X_DECKS]
    return d.drawn & (capture | takeover)


def splits(d: Decisions) -> dict[str, np.ndarray]:
    """Decision masks: ``train``, ``valid``, ``test_deals`` (deals never trained on) and
    ``test_rules`` (rule values never trained on)."""
    rules = held_out_rules(d)
    part = d.hand % SPLIT_MOD
    return {
        "train": ~rules & (part != TEST_DEALS) & (part != VALID_DEALS),
        "valid": ~rules & (part == VALID_DEALS),
        "test_deals": ~rules & (part == TEST_DEALS),
        "test_rules": rules,
    }


# --- the fit ----------------------------------------------------------------------------------------


@dataclass
class Scaling:
    mu: np.ndarray  # decision features' means [N_CONTEXT]
    sigma: np.ndarray  # their standard deviations (1 where constant) [N_CONTEXT]
    scale: np.ndarray  # candidate features' standard deviations within decisions (1 where constant) [N_CANDIDATE]


def _centred(d: Decisions, rows: slice | np.ndarray | None = None):
    """Candidate features minus their decision's mean, and values likewise (all rows)."""
    counts = d.counts()
    C = d.X[:, N_CONTEXT:].astype(np.float64)
    cmean = np.add.reduceat(C, d.start[:-1], axis=0) / counts[:, None]
    vmean = np.add.reduceat(d.value, d.start[:-1]) / counts
    return C - np.repeat(cmean, counts, axis=0), d.value - np.repeat(vmean, counts)


def _centre_rows(x: np.ndarray, d: Decisions) -> np.ndarray:
    """Per-row ``x`` minus its decision's mean."""
    counts = d.counts()
    return x - np.repeat(np.add.reduceat(x, d.start[:-1]) / counts, counts)


def scaling(d: Decisions) -> Scaling:
    P = d.X[d.start[:-1], :N_CONTEXT].astype(np.float64)
    mu = P.mean(axis=0)
    sigma = P.std(axis=0)
    sigma[sigma < 1e-9] = 1.0
    C, _ = _centred(d)
    scale = np.sqrt((C * C).mean(axis=0))
    scale[scale < 1e-9] = 1.0
    return Scaling(mu, sigma, scale)


def _design(Cc: np.ndarray, P: np.ndarray, sc: Scaling) -> np.ndarray:
    """Rows of centred candidate features crossed with standardised decision features and a 1."""
    p = np.empty((P.shape[0], N_CONTEXT + 1))
    p[:, :N_CONTEXT] = (P - sc.mu) / sc.sigma
    p[:, N_CONTEXT] = 1.0
    c = Cc / sc.scale
    return (c[:, :, None] * p[:, None, :]).reshape(P.shape[0], -1)


def normal_equations(
    d: Decisions, sc: Scaling, groups: set[int] | None = None, offset: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per group (kind and deck count; only ``groups`` when given): Z'Z, Z'y and the rows used,
    accumulated in batches. ``offset``: every row's score by a base model, taken from the values
    first, so that the fit is of the base's error and its penalty shrinks towards the base."""
    m = N_CANDIDATE * (N_CONTEXT + 1)
    ZZ = np.zeros((N_GROUPS, m, m))
    Zy = np.zeros((N_GROUPS, m))
    used = np.zeros(N_GROUPS, np.int64)
    Cc, y = _centred(d)
    if offset is not None:
        y = y - _centre_rows(offset, d)
    row_group = np.repeat(d.group(), d.counts())
    for k in range(N_GROUPS):
        idx = np.flatnonzero(row_group == k)
        used[k] = idx.size
        if groups is not None and k not in groups:
            continue
        for b in range(0, idx.size, BATCH):
            r = idx[b : b + BATCH]
            Z = _design(Cc[r], d.X[r, :N_CONTEXT].astype(np.float64), sc)
            ZZ[k] += Z.T @ Z
            Zy[k] += Z.T @ y[r]
    return ZZ, Zy, used


def solve_path(ZZ: np.ndarray, Zy: np.ndarray, lams) -> list[np.ndarray]:
    """One group's ridge coefficients ``B[j, k]`` on the standardised features, for every penalty in
    ``lams`` (one solve each)."""
    eye = np.eye(ZZ.shape[0])
    return [np.linalg.solve(ZZ + lam * eye, Zy).reshape(N_CANDIDATE, N_CONTEXT + 1) for lam in lams]


def raw_coefficients(B: np.ndarray, sc: Scaling) -> np.ndarray:
    """``A`` on the raw features: ``c . (A [p, 1])`` ranks candidates as the standardised model does
    (it differs from it by a constant per decision)."""
    A = np.zeros_like(B)
    A[:, :, :N_CONTEXT] = B[:, :, :N_CONTEXT] / sc.sigma[None, None, :]
    A[:, :, N_CONTEXT] = B[:, :, N_CONTEXT] - (B[:, :, :N_CONTEXT] * (sc.mu / sc.sigma)[None, None, :]).sum(axis=2)
    return A / sc.scale[None, :, None]


@dataclass
class Parts:
    """A whole model: the bilinear coefficients ``A[group, j, k]`` and the heads' words (the bury's, then
    the end of the hand's; ``learn.heads``) with the flags of those it has (``learned.HEAD_BURY``, ``HEAD_END``)."""

    A: np.ndarray
    heads: np.ndarray
    flags: int = 0

    @classmethod
    def bilinear(cls, A: np.ndarray) -> Parts:
        return cls(A, np.zeros(2 * HEAD_SIZE), 0)

    def head(self, which: int) -> Head | None:
        if not self.flags & which:
            return None
        at = 0 if which == HEAD_BURY else HEAD_SIZE
        return Head.from_words(self.heads[at : at + HEAD_SIZE])


def _parts(model) -> Parts:
    return model if isinstance(model, Parts) else Parts.bilinear(model)


def scores(model, d: Decisions) -> np.ndarray:
    """Every candidate's score (``engine.policies.learned.score_into``, in numpy): the bilinear form,
    or a head where the model has one for the decision's group."""
    m = _parts(model)
    out = _bilinear_scores(m.A, d)
    group = d.group()
    for which, mask in ((HEAD_BURY, d.kind == D_BURY), (HEAD_END, group >= N_KINDS * len(DECK_GROUPS))):
        head = m.head(which)
        if head is not None and mask.any():
            rows = d.rows_of(mask)
            out[rows] = head.scores(d.X[rows].astype(np.float64))
    return out


def _bilinear_scores(A: np.ndarray, d: Decisions) -> np.ndarray:
    P = np.concatenate([d.X[:, :N_CONTEXT].astype(np.float64), np.ones((d.X.shape[0], 1))], axis=1)
    row_group = np.repeat(d.group(), d.counts())
    out = np.empty(d.X.shape[0])
    C = d.X[:, N_CONTEXT:].astype(np.float64)
    for k in range(N_GROUPS):
        r = row_group == k
        w = P[r] @ A[k].T  # [rows, N_CANDIDATE]
        out[r] = (C[r] * w).sum(axis=1)
    return out


def picks(row_scores: np.ndarray, d: Decisions) -> np.ndarray:
    """The row each decision picks: its best score, the first of equals (as the engine does)."""
    out = np.empty(d.n, np.int64)
    for i in range(d.n):  # decisions have a handful of rows; numpy's argmax keeps the first of equals
        a, b = d.start[i], d.start[i + 1]
        out[i] = a + int(np.argmax(row_scores[a:b]))
    return out


# --- evaluation -------------------------------------------------------------------------------------


def _hand_interval(x: np.ndarray, hands: np.ndarray, low: float = -math.inf, high: float = math.inf) -> dict:
    """Mean of per-decision ``x`` with a 95% interval over hands (cluster-robust, analytic), kept
    inside [low, high], the values the mean can take (a share; levels lost, never below 0)."""
    n = x.size
    if n == 0:
        return {"mean": float("nan"), "lo": float("nan"), "hi": float("nan"), "n": 0, "hands": 0}
    mean = float(x.mean())
    _, inv = np.unique(hands, return_inverse=True)
    g = np.bincount(inv, weights=x - mean)
    k = g.size
    se = math.sqrt((g * g).sum() * k / max(k - 1, 1)) / n if k > 1 else float("nan")
    return {"mean": mean, "lo": max(mean - 1.96 * se, low), "hi": min(mean + 1.96 * se, high), "n": n, "hands": int(k)}


def evaluate(A, d: Decisions) -> dict:
    """Agreement with the search and value given up, for the model (``A``) or, with None, the
    heuristic's choice (the first candidate); per kind and overall."""
    if A is None:
        pick = d.start[:-1].copy()
    else:
        pick = picks(scores(A, d), d)
    best = np.array(
        [d.start[i] + int(np.argmax(d.chosen[d.start[i] : d.start[i + 1]])) for i in range(d.n)], dtype=np.int64
    )
    agree = (pick == best).astype(float)
    lost = d.value[best] - d.value[pick]  # the search chose its best value: never below 0
    out = {
        "all": {"agreement": _hand_interval(agree, d.hand, 0.0, 1.0), "value_lost": _hand_interval(lost, d.hand, 0.0)}
    }
    for k, name in enumerate(DECISION_NAMES):
        m = d.kind == k
        out[name] = {
            "agreement": _hand_interval(agree[m], d.hand[m], 0.0, 1.0),
            "value_lost": _hand_interval(lost[m], d.hand[m], 0.0),
        }
    return out


# --- training and the model file ---------------------------------------------------------------------


def data_hash(folder: str | Path) -> str:
    """A hash of a collection's identity and every part's bytes."""
    from ..sim import results as R
    from .collect import KIND

    m = load_manifest(folder)
    h = hashlib.sha256(m["identity_hash"].encode())
    for c in m["chunks"]:
        with open(R.part_path(folder, KIND, c["id"]), "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


@dataclass
class Trained:
    A: np.ndarray  # [N_GROUPS, N_CANDIDATE, N_CONTEXT + 1] raw coefficients
    lam: dict  # group name -> the ridge penalty chosen on its validation decisions
    rows: dict
    validation: dict  # penalty -> validation agreement and value lost
    evaluation: dict  # split -> model and heuristic figures
    heads: np.ndarray = None  # the heads' words (``Parts``)
    flags: int = 0
    head_history: dict = None  # head -> validation value lost per epoch

    @property
    def parts(self) -> Parts:
        return Parts(self.A, self.heads if self.heads is not None else np.zeros(2 * HEAD_SIZE), self.flags)


HEAD_NAMES = {"bury": HEAD_BURY, "end": HEAD_END}


def parse_heads(text: str) -> int:
    """``--heads bury,end`` to the model's head flags."""
    flags = 0
    for name in (t.strip() for t in text.split(",")):
        if name not in HEAD_NAMES:
            raise SimsuiteError(f"--heads: unknown head {name!r}; the heads are {', '.join(HEAD_NAMES)}")
        flags |= HEAD_NAMES[name]
    return flags


def train(
    d: Decisions,
    max_rows: int | None = None,
    seed: int = 1,
    lams=RIDGE_GRID,
    base=None,
    groups: set[int] | None = None,
    heads: int = 0,
) -> Trained:
    """Fit every group with training rows (or only ``groups``; the others keep ``base``'s
    coefficients, zero without one), each with the ridge penalty that gives up the least value on
    its own validation decisions; then the heads ``heads`` asks for (``parse_heads``), each stopped
    early on its own validation decisions (the base's heads are kept otherwise); and evaluate on both
    held-out sets."""
    base = None if base is None else _parts(base)
    parts = splits(d)
    tr = d.subset(parts["train"])
    if tr.n == 0:
        raise SimsuiteError("no training decisions: the collection is too small (every hand is held out)")
    if max_rows is not None and tr.X.shape[0] > max_rows:
        keep = np.random.default_rng(seed).permutation(tr.n)
        cum = np.cumsum(tr.counts()[keep])
        tr = tr.subset(np.isin(np.arange(tr.n), keep[: int(np.searchsorted(cum, max_rows)) + 1]))
    sc = scaling(tr)
    # with a base, each group's fit is of the base's error (its penalty shrinks towards the base, not
    # towards no preference at all)
    offset = _bilinear_scores(base.A, tr) if base is not None else None
    ZZ, Zy, used = normal_equations(tr, sc, groups, offset)
    va = d.subset(parts["valid"])
    va_group = va.group()
    A = np.zeros((N_GROUPS, N_CANDIDATE, N_CONTEXT + 1)) if base is None else base.A.copy()
    validation: dict = {}
    lam_by_group: dict = {}
    names = group_names()
    for g in range(N_GROUPS):
        if used[g] == 0 or (groups is not None and g not in groups):
            continue
        sub = va.subset(va_group == g)
        best = None
        validation[names[g]] = {}
        for lam, Bg in zip(lams, solve_path(ZZ[g], Zy[g], lams)):
            B = np.zeros((N_GROUPS, N_CANDIDATE, N_CONTEXT + 1))
            B[g] = Bg
            Ag = raw_coefficients(B, sc)[g] + (base.A[g] if base is not None else 0.0)
            trial = A.copy()
            trial[g] = Ag
            ev = evaluate(trial, sub)["all"] if sub.n else {"value_lost": {"mean": 0.0}, "agreement": {"mean": 0.0}}
            validation[names[g]][str(lam)] = {
                "decisions": int(sub.n),
                "agreement": ev["agreement"]["mean"],
                "value_lost": ev["value_lost"]["mean"],
            }
            if best is None or ev["value_lost"]["mean"] < best[1]:
                best = (lam, ev["value_lost"]["mean"], Ag)
        lam_by_group[names[g]] = best[0]
        A[g] = best[2]
    model = Parts(A, base.heads.copy() if base is not None else np.zeros(2 * HEAD_SIZE), base.flags if base else 0)
    history = {}
    tr_group, va_all = tr.group(), va
    for name, which in HEAD_NAMES.items():
        if not heads & which:
            continue
        end = N_KINDS * len(DECK_GROUPS)
        mask_tr = tr.kind == D_BURY if which == HEAD_BURY else tr_group >= end
        mask_va = va.kind == D_BURY if which == HEAD_BURY else va_group >= end
        if not mask_tr.any():
            continue
        sub_va = va_all.subset(mask_va)
        at = 0 if which == HEAD_BURY else HEAD_SIZE

        def lost(head, at=at, which=which, sub_va=sub_va):
            trial = Parts(A, model.heads.copy(), model.flags | which)
            trial.heads[at : at + HEAD_SIZE] = head.words()
            return evaluate(trial, sub_va)["all"]["value_lost"]["mean"]

        head, history[name] = fit_head(tr.subset(mask_tr), sub_va, lost, seed)
        model.heads[at : at + HEAD_SIZE] = head.words()
        model.flags |= which
    evaluation = {}
    for name in ("test_deals", "test_rules"):
        sub = d.subset(parts[name])
        evaluation[name] = {"decisions": sub.n, "model": evaluate(model, sub), "heuristic": evaluate(None, sub)}
        if base is not None:
            evaluation[name]["base"] = evaluate(base, sub)
    rows = {
        "train_rows": int(tr.X.shape[0]),
        "train_decisions": int(tr.n),
        "rows_by_group": {names[g]: int(used[g]) for g in range(N_GROUPS)},
        **{f"{k}_decisions": int(v.sum()) for k, v in parts.items()},
    }
    return Trained(A, lam_by_group, rows, validation, evaluation, model.heads, model.flags, history)


def header(flags: int = 0) -> np.ndarray:
    h = np.zeros(HEADER, np.int64)
    h[MODEL_HEADS] = flags
    h[MODEL_KIND] = KIND_BILINEAR
    h[MODEL_NF] = N_FEATURES
    h[MODEL_NCTX] = N_CONTEXT
    h[MODEL_END] = END_CARDS
    return h


def model_target(path: str | Path) -> Path:
    """``path`` checked as a place to write a model, before any work: a ``.npz`` name in a folder
    that exists or can be made."""
    path = Path(path)
    if path.suffix != ".npz":
        raise SimsuiteError(f"--out {path}: a model file ends in .npz")
    for target in (path, path.with_suffix(".json")):  # the model and its card beside it
        if target.exists() and not target.is_file():
            raise SimsuiteError(f"--out {path}: {target} exists and is not a file")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SimsuiteError(f"--out {path}: cannot create its folder: {exc}") from None
    if not path.parent.is_dir():
        raise SimsuiteError(f"--out {path}: {path.parent} is not a folder")
    return path


def write_model(path: str | Path, model, card_extra: dict) -> Path:
    """``path`` (``.npz``) and its card (``.json``) beside it, each written whole (a temporary file,
    then renamed) so that a failed write never leaves half a model."""
    import os

    path = model_target(path)
    m = _parts(model)
    coef = np.ascontiguousarray(m.A.transpose(0, 2, 1), dtype=np.float64).reshape(-1)  # the engine's A[kind, k, j]
    h = header(m.flags)
    heads = np.ascontiguousarray(m.heads, dtype=np.float64)
    card = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "features": list(FEATURE_NAMES),
        "features_hash": features_hash(),
        "model": {
            "kind": "bilinear",
            "kinds": list(DECISION_NAMES),
            "decks": list(DECK_GROUPS),
            "candidate_features": N_CANDIDATE,
            "decision_features": N_CONTEXT,
            "end_cards": END_CARDS,
            "heads": [n for n, f in HEAD_NAMES.items() if m.flags & f],
            "head_layers": [N_FEATURES, HIDDEN1, HIDDEN2, 1],
        },
        "words_sha256": words_hash(model_words(h, coef, heads)),
        **card_extra,
    }
    tmp_npz, tmp_card = path.with_name(f".tmp-{path.name}"), path.with_name(f".tmp-{path.stem}.json")
    try:
        with open(tmp_npz, "wb") as fh:
            np.savez(fh, header=h, coef=coef, heads=heads)
        tmp_card.write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp_npz, path)
        os.replace(tmp_card, path.with_suffix(".json"))
    except OSError as exc:
        tmp_npz.unlink(missing_ok=True)
        tmp_card.unlink(missing_ok=True)
        raise SimsuiteError(f"--out {path}: cannot write the model: {exc}") from None
    return path


def base_model(path: str | Path) -> Parts:
    """The model at ``path`` in this version's layout (``Parts``): a model of this version as it is;
    one of the first format (fewer features, no end-of-hand groups, no heads) read by its card's
    feature names, each coefficient put at its feature's place, the features it did not have at 0,
    and its lead and follow groups copied to the end-of-hand ones. It then scores every candidate
    as it did, so that training a few groups on it keeps the rest of its play."""
    from ..engine.policies.model import ModelError, card_path, load_model

    path = Path(path)
    try:
        card = json.loads(card_path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        card = None
    if not isinstance(card, dict) or card.get("format_version") != 1:
        try:
            return model_parts(load_model(path))
        except ModelError as exc:
            raise SimsuiteError(f"--base {exc}") from None
    names = card["features"]
    n_ctx, kinds, decks = card["model"]["decision_features"], card["model"]["kinds"], card["model"]["decks"]
    if list(decks) != list(DECK_GROUPS) or list(kinds) != list(DECISION_NAMES):
        raise SimsuiteError(
            f"--base {path}: groups of kinds {kinds} and decks {decks}; this version widens models of {list(DECISION_NAMES)} by {list(DECK_GROUPS)}"
        )
    with np.load(path, allow_pickle=False) as z:
        coef = z["coef"]
    old_groups = len(kinds) * len(decks)
    n_cand = len(names) - n_ctx
    old = coef.reshape(old_groups, n_ctx + 1, n_cand)  # the file's A[g, k, j]
    A = np.zeros((N_GROUPS, N_CANDIDATE, N_CONTEXT + 1))
    k_new = [FEATURE_NAMES.index(n) for n in names[:n_ctx]] + [N_CONTEXT]
    j_new = [FEATURE_NAMES.index(n) - N_CONTEXT for n in names[n_ctx:]]
    for g in range(old_groups):
        A[g][np.ix_(j_new, k_new)] = old[g].T
    for e, kind in enumerate(END_KINDS):
        for d in range(len(DECK_GROUPS)):
            A[(N_KINDS + e) * len(DECK_GROUPS) + d] = A[kind * len(DECK_GROUPS) + d]
    return Parts.bilinear(A)


def playable_words(path: str | Path) -> np.ndarray:
    """The work buffer's model words for the model at ``path``, of this format or the first (widened,
    ``base_model``): what ``engine.core.Work`` takes to seat it at a table."""
    m = base_model(path)
    coef = np.ascontiguousarray(m.A.transpose(0, 2, 1), dtype=np.float64).reshape(-1)
    return model_words(header(m.flags), coef, m.heads)


def coefficients(model) -> np.ndarray:
    """A loaded model's ``A[kind, j, k]`` (``engine.policies.model.Model``; the file holds ``A[kind, k, j]``)."""
    return (
        model.words[HEADER:MODEL_SIZE].view(np.float64).reshape(N_GROUPS, N_CONTEXT + 1, N_CANDIDATE).transpose(0, 2, 1)
    )


def model_parts(model) -> Parts:
    """A loaded model (``engine.policies.model.Model``) as ``Parts``: its coefficients and heads."""
    return Parts(
        coefficients(model).copy(),
        model.words[MODEL_SIZE:MODEL_TOTAL].view(np.float64).copy(),
        int(model.words[MODEL_HEADS]),
    )


def train_and_write(
    d: Decisions,
    data,
    out: str | Path,
    max_rows: int | None = None,
    seed: int = 1,
    command: list[str] | None = None,
    base=None,
    groups: set[int] | None = None,
    base_path: str | Path | None = None,
    heads: int = 0,
    leave_out: str | None = None,
) -> Trained:
    """``train``, then the model file with its card: the data (each collection's identity and hash:
    the first as ``data``, any others as ``more_data``), the base model and what it was trained on
    (``lineage``), the seed, the command, the rows, the penalties and the held-out figures."""
    from ..sim.manifest import package_version

    out = model_target(out)
    trained = train(d, max_rows, seed, base=base, groups=groups, heads=heads)
    folders = [data] if isinstance(data, (str, Path)) else list(data)
    described = []
    for folder in folders:
        ident = load_manifest(folder)["identity"]
        described.append(
            {
                "seed": ident["seed"],
                "hands": ident["hands"],
                "policy": ident["policy"],
                "mode": ident.get("mode", "hands"),
                "search": ident["search"],
                "rules": ident["rules"],
                "sha256": data_hash(folder),
            }
        )
    lineage = None
    if base_path is not None:
        base_card = json.loads(Path(base_path).with_suffix(".json").read_text(encoding="utf-8"))
        bt = base_card.get("training", {})
        lineage = [
            *bt.get("lineage", []),
            {k: bt.get(k) for k in ("data", "more_data", "groups_fitted", "heads_fitted") if k in bt}
            | {"command": base_card.get("command", [])},
        ]
    card = {
        "package_version": package_version(),
        "command": command or [],
        "training": {
            "data": described[0],
            "more_data": described[1:],
            "lineage": lineage or [],
            "seed": seed,
            "max_rows": max_rows,
            "base": None if base_path is None else {"path": str(base_path), "sha256": _file_hash(base_path)},
            "groups_fitted": sorted(trained.lam),
            "heads_fitted": [n for n, f in HEAD_NAMES.items() if heads & f],
            "left_out": leave_out,
            "head_validation": trained.head_history,
            "ridge": trained.lam,
            **trained.rows,
            "held_out": {
                "deals": f"hand index % {SPLIT_MOD} == {TEST_DEALS}",
                "validation": f"hand index % {SPLIT_MOD} == {VALID_DEALS}",
                "rules": f"drawn hands with capture_single == {HELD_CAPTURE} or a take-over at "
                f"{HELD_TAKEOVER[0]}/{HELD_TAKEOVER[1]} of the decks' points",
            },
        },
        "validation": trained.validation,
        "evaluation": trained.evaluation,
    }
    write_model(out, trained.parts, card)
    return trained
