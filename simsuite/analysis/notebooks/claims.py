"""Pre-registered claims: the notebooks' claims files, their hashes and registry, the claims as tests (Holm)."""

from __future__ import annotations

import hashlib
import json
import math
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import polars as pl

from simsuite.analysis.metrics import deal_ids, paired_test
from simsuite.analysis.notebooks.replication import parse_margin
from simsuite.analysis.stats import cluster_mean_ci, holm, normal_p, tost_p
from simsuite.errors import SimsuiteError

# Each notebook's claims are written down before it runs, in notebooks/claims/NN.toml: the root seed the
# notebook runs on, every claim (its id, family, test, cells, metric, direction, margin) with the root seed it
# was first tested on, and the margins of the replication. A claim changed after a run is tested again on a
# new root seed: notebooks/claims/registry.toml keeps every (notebook, claim id, hash of its text, seed first
# tested) there has been, and tests/test_notebook_units.py fails when a claim's text changed on a seed an
# earlier text of it was tested on (``registry_problems``).

CLAIM_TESTS = {  # test -> the fields it needs (besides id, family, text, seed)
    "differ": ("a", "b", "metric", "sign"),
    "same": ("a", "b", "metric", "margin"),
    "beyond": ("a", "metric", "ref", "sign"),
    "near": ("a", "metric", "ref", "margin"),
    "independent": ("a", "b", "metric", "sign"),
    "conclusion": ("a", "metric", "sign", "margin"),  # family "robustness": under the three pairings
}
CLAIM_FAMILIES = ("conclusion", "robustness")
# the fields a claim's hash covers: everything that says what is claimed, not when it was first tested
CLAIM_HASHED = ("family", "test", "text", "a", "b", "metric", "sign", "ref", "margin", "label")
CLAIM_KEYS = set(CLAIM_HASHED) | {"id", "seed"}


def claim_hash(claim: Mapping[str, Any]) -> str:
    """The hash of a claim's text: its defining fields as canonical JSON, SHA-256, first 12 hex digits."""
    body = {k: claim[k] for k in CLAIM_HASHED if claim.get(k) is not None}
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()[:12]


class Claims:
    """The claims a notebook's conclusion makes, each as a test, with Holm's correction over all
    of them (the notebook's family): a difference between two cells is a paired difference over
    the deals they share (bootstrap over deals); "changes nothing" is a TOST equivalence test with
    its margin; a single cell against a reference value uses its interval over deals."""

    def __init__(self, m: pl.DataFrame, alpha: float = 0.05):
        self.m = m
        self.alpha = alpha
        self.rows: list[dict] = []
        self._meta: dict = {}  # set by ClaimsFile.tests: the claim's id and first seed, kept with its row

    def _cell(self, cell: str) -> pl.DataFrame:
        return self.m.filter(pl.col("cell") == cell)

    def _add(self, text, test, est, p, kind):
        self.rows.append({**self._meta, "claim": text, "test": test, "estimate": est, "p": p, "kind": kind})

    @staticmethod
    def _fmt(e, scale=1.0) -> str:
        return f"{e.value * scale:+.3f} [{e.low * scale:+.3f}, {e.high * scale:+.3f}] n={e.n:,}" if e.n else "n/a"

    def differ(self, text: str, a: str, b: str, metric: str, sign: int = +1):
        """Claim: metric(a) - metric(b) is positive (sign +1) or negative (-1); paired over deals."""
        r = paired_test(self._cell(a), self._cell(b), pl.col(metric))
        e = r["estimate"]
        p = r["p"] if e.n and np.sign(e.value) == sign else 1.0
        self._add(text, f"paired {metric}: [{a}] - [{b}] {'>' if sign > 0 else '<'} 0", self._fmt(e), p, "difference")

    def same(self, text: str, a: str, b: str, metric: str, margin: float):
        """Claim: metric(a) and metric(b) differ by less than ``margin`` (TOST over paired deals)."""
        r = paired_test(self._cell(a), self._cell(b), pl.col(metric), margin=margin)
        self._add(
            text,
            f"TOST {metric}: |[{a}] - [{b}]| < {margin:g}",
            self._fmt(r["estimate"]),
            r["p_equivalent"] if r["estimate"].n else 1.0,
            "equivalence",
        )

    def independent(self, text: str, a: Mapping, b: Mapping, key: str, sign: int = +1, test: str = ""):
        """Claim: ``a[key]`` above (sign +1) or below (-1) ``b[key]`` for two independent estimates
        (rows with ``key``, ``key_lo``, ``key_hi``); normal p from the combined SE of their intervals."""
        d = a[key] - b[key]
        se = math.hypot((a[key + "_hi"] - a[key + "_lo"]) / 3.92, (b[key + "_hi"] - b[key + "_lo"]) / 3.92)
        p = normal_p(d, se) if np.sign(d) == sign else 1.0
        self._add(
            text,
            test or f"independent {key}: a {'>' if sign > 0 else '<'} b",
            f"{d:+.3f} (SE {se:.3f})",
            p,
            "difference",
        )

    def _one(self, cell, metric):
        f = self._cell(cell).drop_nulls(metric)
        e = cluster_mean_ci(f[metric].to_numpy(), deal_ids(f)) if f.height else None
        return e, ((e.high - e.low) / 3.92 if e is not None and e.n > 1 else float("nan"))

    def beyond(self, text: str, cell: str, metric: str, ref: float, sign: int = +1):
        """Claim: metric(cell) lies above (sign +1) or below (-1) ``ref``."""
        e, se = self._one(cell, metric)
        if e is None:
            return self._add(text, f"{metric} [{cell}] vs {ref:g}", "n/a", 1.0, "level")
        p = normal_p(e.value - ref, se) if np.sign(e.value - ref) == sign else 1.0
        self._add(text, f"{metric} [{cell}] {'>' if sign > 0 else '<'} {ref:g}", self._fmt(e), p, "level")

    def near(self, text: str, cell: str, metric: str, ref: float, margin: float):
        """Claim: metric(cell) is within ``margin`` of ``ref`` (TOST)."""
        e, se = self._one(cell, metric)
        p = tost_p(e.value - ref, se, margin) if e is not None and e.n > 1 else 1.0
        self._add(
            text,
            f"TOST {metric} [{cell}]: |x - {ref:g}| < {margin:g}",
            self._fmt(e) if e is not None else "n/a",
            p,
            "equivalence",
        )

    def table(self) -> pd.DataFrame:
        df = pd.DataFrame(self.rows)
        if df.empty:
            return df
        df["p (Holm)"] = holm(df["p"].fillna(1.0).to_numpy())
        df["survives"] = df["p (Holm)"] < self.alpha
        return df

    def as_claims(self) -> list[tuple[bool, str]]:
        """Each test as (survives Holm's correction, what it claims), as ``report.notebook.conclude`` takes them."""
        t = self.table()
        return (
            []
            if t.empty
            else [
                (bool(ok), f"{c} ({k} test, Holm-adjusted p = {p:.3g})")
                for c, k, p, ok in zip(t.claim, t.kind, t["p (Holm)"], t.survives)
            ]
        )


@dataclass(frozen=True)
class Conclusion:
    """A named comparison with a direction: ``metric`` (a ``per_match`` column) of cell ``a`` minus
    cell ``b`` is positive (``sign`` +1) or negative (-1); with ``b`` None, cell ``a`` against the
    value ``ref``. ``margin``: the smallest rule x policy interaction (in the effect's units) that
    matters, for ``classify``; ``id``: its id in the notebook's claims file."""

    text: str
    a: str
    b: str | None
    metric: str
    sign: int = +1
    ref: float = 0.0
    margin: float = 0.0
    id: str = ""
    seed: int | None = None  # the root seed it was first tested on (its claims file)


@dataclass(frozen=True)
class ClaimsFile:
    """One notebook's claims file, read and checked: ``number`` ("01"), ``notebook`` (its results name),
    ``root_seed``, ``past_root_seeds``, ``claims`` (dicts), ``replication`` (figure -> margin),
    ``sha256`` (of the file's bytes) and ``path``."""

    number: str
    notebook: str
    root_seed: int
    past_root_seeds: tuple[int, ...]
    claims: tuple[dict, ...]
    replication: dict
    sha256: str
    path: Path
    claims_class: ClassVar[type[Claims]] = Claims  # what ``tests`` returns (a subclass may add a display)

    def family(self, name: str) -> list[dict]:
        return [c for c in self.claims if c["family"] == name]

    def seeds_table(self) -> pd.DataFrame:
        """Each claim with the root seed it was first tested on and its hash."""
        return pd.DataFrame(
            [
                {
                    "id": c["id"],
                    "family": c["family"],
                    "claim": c["text"],
                    "hash": claim_hash(c),
                    "first tested on seed": c["seed"],
                }
                for c in self.claims
            ]
        )

    def tests(
        self,
        M: pl.DataFrame,
        cells: Mapping[str, str] | Any,
        rows: Mapping[str, Mapping] | None = None,
        alpha: float = 0.05,
    ) -> Claims:
        """The family "conclusion" as tests on ``M`` (``per_match``): each claim's cells ``a``/``b`` looked up
        in ``cells`` (a mapping, or a function of the key); an ``independent`` claim compares ``rows[a]`` and
        ``rows[b]``. Returns the ``Claims`` (Holm over all of them), each row with its id and first seed."""
        look = cells if callable(cells) else cells.__getitem__
        T = self.claims_class(M, alpha=alpha)
        for c in self.family("conclusion"):
            T._meta = {"id": c["id"], "first tested on seed": c["seed"]}
            t = c["test"]
            if t == "differ":
                T.differ(c["text"], look(c["a"]), look(c["b"]), c["metric"], c["sign"])
            elif t == "same":
                T.same(c["text"], look(c["a"]), look(c["b"]), c["metric"], c["margin"])
            elif t == "beyond":
                T.beyond(c["text"], look(c["a"]), c["metric"], c["ref"], c["sign"])
            elif t == "near":
                T.near(c["text"], look(c["a"]), c["metric"], c["ref"], c["margin"])
            elif t == "independent":
                T.independent(c["text"], rows[c["a"]], rows[c["b"]], c["metric"], c["sign"], c.get("label", ""))
        T._meta = {}
        return T

    def conclusions(self, cells: Mapping[str, str] | Any) -> list[Conclusion]:
        """The family "robustness" as ``Conclusion``s (cells looked up as in ``tests``)."""
        look = cells if callable(cells) else cells.__getitem__
        return [
            Conclusion(
                c["text"],
                look(c["a"]),
                look(c["b"]) if c.get("b") is not None else None,
                c["metric"],
                c["sign"],
                c.get("ref", 0.0),
                c["margin"],
                c["id"],
                c["seed"],
            )
            for c in self.family("robustness")
        ]

    def record(self, results: str | Path, quick: bool = False) -> Path:
        """The file and its hash next to the notebook's results (``results``, the notebooks' results folder):
        ``results/claims/<notebook>[-quick]`` ``.toml`` (a copy) and ``.json`` (file hash, root seed, each
        claim's id, hash and first seed); ``-quick`` for a quick-mode run."""
        stem = self.notebook + ("-quick" if quick else "")
        d = Path(results) / "claims"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{stem}.toml").write_bytes(self.path.read_bytes())
        meta = {
            "file": f"notebooks/claims/{self.path.name}",
            "sha256": self.sha256,
            "root_seed": self.root_seed,
            "claims": [{"id": c["id"], "hash": claim_hash(c), "first_tested_on_seed": c["seed"]} for c in self.claims],
        }
        (d / f"{stem}.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
        return d / f"{stem}.json"


def read_claims(path: str | Path, kind: type[ClaimsFile] = ClaimsFile) -> ClaimsFile:
    """A claims file, checked: every problem is named at once, in one SimsuiteError; read as a ``kind``."""
    p = Path(path)
    raw = p.read_bytes()
    data = tomllib.loads(raw.decode("utf-8"))
    problems = []
    for k in ("number", "notebook", "root_seed"):
        if k not in data:
            problems.append(f"{p.name}: '{k}' is missing")
    seen = set()
    claims = []
    for i, c in enumerate(data.get("claim", [])):
        where = f"{p.name}: claim {i + 1} ({c.get('id', 'no id')})"
        unknown = set(c) - CLAIM_KEYS
        if unknown:
            problems.append(f"{where}: unknown field(s) {sorted(unknown)}; allowed: {sorted(CLAIM_KEYS)}")
        for k in ("id", "family", "test", "text", "seed"):
            if k not in c:
                problems.append(f"{where}: '{k}' is missing")
        if c.get("family") not in CLAIM_FAMILIES:
            problems.append(f"{where}: family {c.get('family')!r}; allowed: {', '.join(CLAIM_FAMILIES)}")
        need = CLAIM_TESTS.get(c.get("test"))
        if need is None:
            problems.append(f"{where}: test {c.get('test')!r}; allowed: {', '.join(CLAIM_TESTS)}")
        else:
            problems += [f"{where}: test {c['test']} needs '{k}'" for k in need if k not in c]
        if (c.get("test") == "conclusion") != (c.get("family") == "robustness"):
            problems.append(f"{where}: the family 'robustness' and the test 'conclusion' go together")
        if "sign" in c and c["sign"] not in (1, -1):
            problems.append(f"{where}: sign {c['sign']!r}; allowed: 1, -1")
        if "margin" in c and not (isinstance(c["margin"], (int, float)) and c["margin"] > 0):
            problems.append(f"{where}: margin {c['margin']!r}; a positive number")
        if c.get("id") in seen:
            problems.append(f"{where}: id {c['id']!r} is used twice")
        seen.add(c.get("id"))
        claims.append(dict(c))
    for k, m in data.get("replication", {}).items():
        try:
            parse_margin(m)
        except (ValueError, TypeError):
            problems.append(f"{p.name}: replication margin {k} = {m!r}; a number or a percentage such as '25%'")
    if problems:
        raise SimsuiteError("; ".join(problems))
    return kind(
        str(data["number"]),
        data["notebook"],
        int(data["root_seed"]),
        tuple(int(s) for s in data.get("past_root_seeds", [])),
        tuple(claims),
        dict(data.get("replication", {})),
        hashlib.sha256(raw).hexdigest(),
        p,
    )


def read_registry(path: str | Path) -> list[dict]:
    """The entries of a claims registry (``notebooks/claims/registry.toml``)."""
    p = Path(path)
    return list(tomllib.loads(p.read_text(encoding="utf-8")).get("entry", []))


def registry_problems(files: Iterable[ClaimsFile], registry: Iterable[Mapping]) -> list[str]:
    """What breaks pre-registration, one line each (empty: nothing):

    - a claim whose (notebook, id, hash of its text, first seed) is not in the registry, or is there only as
      ``void`` (a text tested on the seed an earlier text of it had been tested on);
    - a claim id registered with two different texts on the same seed (changed after a run and tested
      again on the seed the earlier text was tested on);
    - a claim first tested on a seed that is neither the file's root seed nor one of its past root seeds;
    - a root seed that is also a past root seed (a new root seed must be new)."""
    reg = [dict(e) for e in registry]
    out = []
    valid = [e for e in reg if not e.get("void")]
    keys = {(e["notebook"], e["id"], e["hash"], int(e["seed"])) for e in valid}
    void = {(e["notebook"], e["id"], e["hash"], int(e["seed"])) for e in reg if e.get("void")}
    hist: dict[tuple[str, str], dict[int, set]] = {}  # every text of a claim, by the seed it was tested on
    for e in reg:
        hist.setdefault((e["notebook"], e["id"]), {}).setdefault(int(e["seed"]), set()).add(e["hash"])
    valid_hist: dict[tuple[str, str], dict[int, set]] = {}
    for e in valid:
        valid_hist.setdefault((e["notebook"], e["id"]), {}).setdefault(int(e["seed"]), set()).add(e["hash"])
    for (nb, cid), seeds in sorted(valid_hist.items()):
        for s, hashes in sorted(seeds.items()):
            if len(hashes) > 1:
                out.append(
                    f"notebook {nb}, claim {cid}: {len(hashes)} different texts tested on the same root seed {s} "
                    "(a changed claim needs a new root seed)"
                )
    for f in files:
        if f.root_seed in f.past_root_seeds:
            out.append(f"notebook {f.number}: root seed {f.root_seed} is also listed as a past root seed")
        for c in f.claims:
            h = claim_hash(c)
            if (f.number, c["id"], h, int(c["seed"])) in void:
                out.append(
                    f"notebook {f.number}, claim {c['id']}: its test on seed {c['seed']} is void in the registry "
                    "(it was revised on that seed); it needs a new root seed"
                )
            elif (f.number, c["id"], h, int(c["seed"])) not in keys:
                out.append(f"notebook {f.number}, claim {c['id']}: (hash {h}, seed {c['seed']}) is not in the registry")
            if c["seed"] != f.root_seed and c["seed"] not in f.past_root_seeds:
                out.append(
                    f"notebook {f.number}, claim {c['id']}: first tested on seed {c['seed']}, which is neither "
                    f"the root seed {f.root_seed} nor a past one"
                )
            for s, hashes in hist.get((f.number, c["id"]), {}).items():
                if s == c["seed"] and hashes - {h}:
                    out.append(
                        f"notebook {f.number}, claim {c['id']}: its text changed but its seed {s} is the one an "
                        "earlier text was tested on (give the notebook a new root seed)"
                    )
    return sorted(set(out))


def claims_files(claims_dir: str | Path) -> list[ClaimsFile]:
    """Every claims file ``NN.toml`` of ``claims_dir`` (``notebooks/claims``), read and checked, in order."""
    return [read_claims(p) for p in sorted(Path(claims_dir).glob("[0-9][0-9].toml"))]
