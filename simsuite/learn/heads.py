"""The learned policy's non-linear heads: a small network fitted to the search's paired differences.

A head scores the candidates of one set of decisions (the bury; the end of the hand's leads and
follows) instead of the bilinear form (``engine.policies.learned``, "The model in W"). Each candidate's
features ``x`` (the decision's own and the candidate's, ``engine.policies.features``) are
standardised, ``z = (x - mu) * inv``, and scored by two tanh layers and a linear output:

    score = w3 . tanh(W2 tanh(W1 z + b1) + b2) + b3

The fit minimises, over the training decisions, the squared difference between the scores and the
search's values, each centred on its decision's mean: the search's paired differences between
candidates on shared sampled deals, the only part of a value that can change a choice. It runs Adam
over mini-batches of decisions, and keeps the weights of the epoch that gives up the least value
on the validation decisions (early stopping, the head's own penalty). The same data and seed give the
same weights.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..engine.policies.features import N_FEATURES
from ..engine.policies.learned import HEAD_SIZE, HIDDEN1, HIDDEN2

BATCH_DECISIONS = 1024
LEARNING_RATE = 3e-3
EPOCHS = 30
WEIGHT_DECAY = 1e-5
BETA1, BETA2, EPS = 0.9, 0.999, 1e-8


@dataclass
class Head:
    mu: np.ndarray  # [N_FEATURES]
    inv: np.ndarray  # [N_FEATURES]
    W1: np.ndarray  # [HIDDEN1, N_FEATURES]
    b1: np.ndarray
    W2: np.ndarray  # [HIDDEN2, HIDDEN1]
    b2: np.ndarray
    w3: np.ndarray  # [HIDDEN2]
    b3: float

    def words(self) -> np.ndarray:
        """The head's float64 words in the engine's order (``learned.head_scores``)."""
        out = np.concatenate(
            [self.mu, self.inv, self.W1.ravel(), self.b1, self.W2.ravel(), self.b2, self.w3, [self.b3]]
        ).astype(np.float64)
        assert out.shape == (HEAD_SIZE,)
        return out

    @classmethod
    def from_words(cls, w: np.ndarray) -> Head:
        nf = N_FEATURES
        at = 0

        def take(k):
            nonlocal at
            part = w[at : at + k]
            at += k
            return part

        mu, inv = take(nf), take(nf)
        W1 = take(HIDDEN1 * nf).reshape(HIDDEN1, nf)
        b1 = take(HIDDEN1)
        W2 = take(HIDDEN2 * HIDDEN1).reshape(HIDDEN2, HIDDEN1)
        b2, w3 = take(HIDDEN2), take(HIDDEN2)
        return cls(mu, inv, W1, b1, W2, b2, w3, float(take(1)[0]))

    def scores(self, X: np.ndarray) -> np.ndarray:
        """Every row's score (rows carry their decision's features, as a collection's do)."""
        return _forward(self._params(), (X - self.mu) * self.inv)[0]

    def _params(self) -> list[np.ndarray]:
        return [self.W1, self.b1, self.W2, self.b2, self.w3, np.array([self.b3])]


def _forward(p, Z):
    W1, b1, W2, b2, w3, b3 = p
    h1 = np.tanh(Z @ W1.T + b1)
    h2 = np.tanh(h1 @ W2.T + b2)
    return h2 @ w3 + b3[0], (h1, h2)


def _centre(x: np.ndarray, start: np.ndarray, counts: np.ndarray) -> np.ndarray:
    return x - np.repeat(np.add.reduceat(x, start[:-1]) / counts, counts)


def fit(d, valid, lost_on_valid, seed: int = 1, epochs: int = EPOCHS) -> tuple[Head, list[float]]:
    """A head fitted to the decisions ``d`` (``learn.train.Decisions``), stopped early on ``valid`` by
    ``lost_on_valid(head)`` (the value it gives up there; lower is better). Returns the head and the
    validation figure of each epoch."""
    rng = np.random.default_rng(seed)
    X = d.X.astype(np.float64)
    mu = X.mean(axis=0)
    sd = X.std(axis=0)
    inv = np.where(sd > 1e-9, 1.0 / np.where(sd > 1e-9, sd, 1.0), 0.0)
    Z = (X - mu) * inv
    counts = d.counts()
    y = _centre(d.value, d.start, counts)
    p = [
        rng.normal(0, 1 / np.sqrt(N_FEATURES), (HIDDEN1, N_FEATURES)),
        np.zeros(HIDDEN1),
        rng.normal(0, 1 / np.sqrt(HIDDEN1), (HIDDEN2, HIDDEN1)),
        np.zeros(HIDDEN2),
        rng.normal(0, 1 / np.sqrt(HIDDEN2), HIDDEN2) * 0.1,
        np.zeros(1),
    ]
    m = [np.zeros_like(q) for q in p]
    v = [np.zeros_like(q) for q in p]
    t = 0
    best = None
    history = []
    for _ in range(epochs):
        order = rng.permutation(d.n)
        for b in range(0, d.n, BATCH_DECISIONS):
            dec = np.sort(order[b : b + BATCH_DECISIONS])
            rows = np.concatenate([np.arange(d.start[i], d.start[i + 1]) for i in dec])
            c = counts[dec]
            start = np.concatenate([[0], np.cumsum(c)])
            z, yb = Z[rows], y[rows]
            s, (h1, h2) = _forward(p, z)
            r = 2.0 * (_centre(s, start, c) - yb) / rows.size  # d loss / d score (centring's own term is 0)
            W1, b1, W2, b2, w3, _ = p
            g_w3 = h2.T @ r
            g_b3 = np.array([r.sum()])
            d2 = np.outer(r, w3) * (1 - h2 * h2)
            g_W2 = d2.T @ h1
            g_b2 = d2.sum(axis=0)
            d1 = (d2 @ W2) * (1 - h1 * h1)
            g_W1 = d1.T @ z
            g_b1 = d1.sum(axis=0)
            grads = [g_W1, g_b1, g_W2, g_b2, g_w3, g_b3]
            t += 1
            for k, g in enumerate(grads):
                g = g + WEIGHT_DECAY * p[k]
                m[k] = BETA1 * m[k] + (1 - BETA1) * g
                v[k] = BETA2 * v[k] + (1 - BETA2) * g * g
                mh = m[k] / (1 - BETA1**t)
                vh = v[k] / (1 - BETA2**t)
                p[k] = p[k] - LEARNING_RATE * mh / (np.sqrt(vh) + EPS)
        head = Head(mu, inv, p[0].copy(), p[1].copy(), p[2].copy(), p[3].copy(), p[4].copy(), float(p[5][0]))
        lost = lost_on_valid(head) if valid is not None and valid.n else 0.0
        history.append(lost)
        if best is None or lost < best[0]:
            best = (lost, head)
    return best[1], history
