"""Model families for the learned policy, fitted to one collection and compared on its held-out
deals (docs/learned.md, "The model"): the bilinear model the engine plays, beside gradient-boosted
trees (LightGBM, an optional package: pip install lightgbm), on the same target (each candidate's
value minus its decision's mean) and the same splits (simsuite.learn.train.splits).

    .venv/bin/python benchmarks/learned_families.py COLLECTION

Prints, for the held-out deals and rule values, the share of decisions where each model picks the
search's choice and the levels it gives up per decision (95% intervals over hands), and the
trees' prediction time per candidate row (one thread).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from simsuite.learn import train as T


def show(name: str, ev: dict) -> None:
    a = ev["all"]
    agree, lost = a["agreement"], a["value_lost"]
    print(
        f"{name:34s} agrees {100 * agree['mean']:.1f}% [{100 * agree['lo']:.1f}, {100 * agree['hi']:.1f}]  "
        f"levels lost {lost['mean']:.4f} [{lost['lo']:.4f}, {lost['hi']:.4f}]  (n = {lost['n']:,} decisions, "
        f"{lost['hands']:,} hands)",
        flush=True,
    )


def evaluate_rows(row_scores: np.ndarray, d: T.Decisions) -> dict:
    pick = T.picks(row_scores, d)
    best = np.array(
        [d.start[i] + int(np.argmax(d.chosen[d.start[i] : d.start[i + 1]])) for i in range(d.n)], dtype=np.int64
    )
    agree = (pick == best).astype(float)
    lost = d.value[best] - d.value[pick]
    return {"all": {"agreement": T._hand_interval(agree, d.hand), "value_lost": T._hand_interval(lost, d.hand)}}


def by_tournament(A: np.ndarray | None, d: T.Decisions, bases: np.ndarray, name: str) -> None:
    """The held-out deals of each tournament as written (no drawn rules)."""
    for b in sorted(set(bases)):
        sub = d.subset((bases == b) & ~d.drawn)
        show(f"  {name}, {b}", T.evaluate(A, sub))


def main(folder: str) -> None:
    from simsuite.learn.collect import load_decisions

    d = T.load(folder)
    parts = T.splits(d)
    held = {name: d.subset(parts[name]) for name in ("test_deals", "test_rules")}
    base = load_decisions(folder).select("base").collect()["base"].to_numpy()[d.start[:-1]]
    deal_bases = base[parts["test_deals"]]
    for name, sub in held.items():
        show(f"heuristic ({name})", T.evaluate(None, sub))
    by_tournament(None, held["test_deals"], deal_bases, "heuristic")
    t0 = time.perf_counter()
    r = T.train(d)
    print(f"bilinear: fitted in {time.perf_counter() - t0:.0f} s, penalty {r.lam:g}")
    for name in held:
        show(f"bilinear ({name})", r.evaluation[name]["model"])
    by_tournament(r.A, held["test_deals"], deal_bases, "bilinear")
    # the same model with one matrix per kind of decision only (the deck counts share it)
    grouped = T.Decisions.group
    T.Decisions.group = lambda self: self.kind.astype(np.int64)
    try:
        k = T.train(d, lams=(r.lam,))
        show("bilinear by kind only (test_deals)", k.evaluation["test_deals"]["model"])
        by_tournament(k.A, held["test_deals"], deal_bases, "bilinear by kind only")
    finally:
        T.Decisions.group = grouped
    import lightgbm as lgb

    tr = d.subset(parts["train"])

    def rows(dd: T.Decisions) -> np.ndarray:
        centred, _ = T._centred(dd)
        return np.concatenate([dd.X, centred], axis=1).astype(np.float32)

    _, y = T._centred(tr)
    X = rows(tr)
    for leaves, trees in ((31, 200), (63, 500)):
        t0 = time.perf_counter()
        m = lgb.LGBMRegressor(
            n_estimators=trees,
            num_leaves=leaves,
            learning_rate=0.05,
            subsample=0.5,
            subsample_freq=1,
            colsample_bytree=0.8,
            min_child_samples=100,
            verbose=-1,
            n_jobs=2,
            random_state=1,
        )
        m.fit(X, y)
        print(f"trees {leaves} leaves x {trees}: fitted in {time.perf_counter() - t0:.0f} s")
        for name, sub in held.items():
            show(f"trees {leaves}x{trees} ({name})", evaluate_rows(m.predict(rows(sub)), sub))
        sample = rows(held["test_deals"])[:100_000]
        t0 = time.perf_counter()
        m.predict(sample, num_threads=1)
        print(
            f"trees {leaves}x{trees}: {1e6 * (time.perf_counter() - t0) / sample.shape[0]:.2f} us per candidate row "
            f"(LightGBM's predictor, one thread)"
        )


if __name__ == "__main__":
    main(sys.argv[1])
