"""Pre-registered claims: the notebooks' claims files, their hashes and registry, the claims as tests (Holm)."""

from __future__ import annotations

import hashlib
import json
import math
import shutil
import subprocess
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
# was first tested on, and the margins of the replication with the root seed they were first tested on. A claim
# changed after a run is tested again on a new root seed: notebooks/claims/registry.toml keeps, append only,
# every (notebook, claim id, hash of its text, seed first tested) there has been (the replication margins under
# the id "replication") and every seed a notebook ran on ("ran" entries). ``registry_problems`` checks the files
# against it, ``append_only_problems`` checks it against its git history, ``run_record_problems`` against the
# last full run recorded in results/; ``check_claims`` does all three (notebooks/_common.py check-claims,
# before ``make notebooks``), ``notebook_problems`` one notebook's share (``load_claims``). tests/test_registry.py
# tests them; notebooks/claims/README.md says how to change a claim.

CLAIM_TESTS = {  # test -> the fields it needs (besides id, family, text, seed)
    "differ": ("a", "b", "metric", "sign"),
    "same": ("a", "b", "metric", "margin"),
    "beyond": ("a", "metric", "ref", "sign"),
    "near": ("a", "metric", "ref", "margin"),
    "independent": ("a", "b", "metric", "sign"),
    "conclusion": ("a", "metric", "sign", "margin"),  # family "robustness": under the ladder's pairings
}
CLAIM_FAMILIES = ("conclusion", "robustness")
# the fields a claim's hash covers: everything that says what is claimed, not when it was first tested
CLAIM_HASHED = ("family", "test", "text", "a", "b", "metric", "sign", "ref", "margin", "label")
CLAIM_KEYS = set(CLAIM_HASHED) | {"id", "seed"}
# the registry's id for a notebook's replication margins (no claim may take it)
REPLICATION_ID = "replication"
# a registry entry: a claim's (or the replication margins') text first tested on a seed, or a run on a seed
REGISTRY_CLAIM_KEYS = {"notebook": str, "id": str, "hash": str, "seed": int, "void": bool, "note": str}
REGISTRY_RUN_KEYS = {"notebook": str, "ran": int, "note": str}
_KIND = {str: "a string", int: "a whole number", bool: "true or false"}


def _hash(body: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()[:12]


def claim_hash(claim: Mapping[str, Any]) -> str:
    """The hash of a claim's text: its defining fields as canonical JSON, SHA-256, first 12 hex digits.
    It covers a claim's margin (a TOST's, or a robustness conclusion's smallest interaction that matters)."""
    return _hash({k: claim[k] for k in CLAIM_HASHED if claim.get(k) is not None})


def replication_hash(margins: Mapping[str, Any]) -> str:
    """The hash of a notebook's replication margins (figure -> margin), hashed as ``claim_hash`` hashes a
    claim: ``{"replication": margins}`` as canonical JSON, SHA-256, first 12 hex digits."""
    return _hash({REPLICATION_ID: dict(margins)})


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
            r["p_equivalent"] if r["estimate"].n else float("nan"),  # no data: not tested
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
        p = tost_p(e.value - ref, se, margin) if e is not None and e.n > 1 else float("nan")
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
        df["p (Holm)"] = holm(df["p"].to_numpy())  # a NaN (not tested) is left out of the family
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
    ``sha256`` (of the file's bytes), ``path`` and ``replication_seed`` (the root seed the replication
    margins were first tested on; the file's ``replication_seed``, else its root seed)."""

    number: str
    notebook: str
    root_seed: int
    past_root_seeds: tuple[int, ...]
    claims: tuple[dict, ...]
    replication: dict
    sha256: str
    path: Path
    replication_seed: int | None = None
    claims_class: ClassVar[type[Claims]] = Claims  # what ``tests`` returns (a subclass may add a display)

    def family(self, name: str) -> list[dict]:
        return [c for c in self.claims if c["family"] == name]

    def registrations(self) -> list[tuple[str, str, int]]:
        """What the registry must hold for this file: (id, hash, seed first tested on) of every claim, and of
        the replication margins (id ``REPLICATION_ID``, ``replication_hash``) when the file has any."""
        out = [(c["id"], claim_hash(c), int(c["seed"])) for c in self.claims]
        if self.replication:
            seed = self.root_seed if self.replication_seed is None else self.replication_seed
            out.append((REPLICATION_ID, replication_hash(self.replication), int(seed)))
        return out

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
        if self.replication:
            _, h, seed = self.registrations()[-1]
            meta["replication"] = {"hash": h, "first_tested_on_seed": seed}
        (d / f"{stem}.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
        return d / f"{stem}.json"


def read_claims(path: str | Path, kind: type[ClaimsFile] = ClaimsFile) -> ClaimsFile:
    """A claims file, checked: every problem is named at once, in one SimsuiteError; read as a ``kind``."""
    p = Path(path)
    return _claims_from(p.read_bytes(), p, kind)


def _claims_from(raw: bytes, p: Path, kind: type[ClaimsFile] = ClaimsFile) -> ClaimsFile:
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise SimsuiteError(f"{p.name}: not a TOML file ({e})") from None
    problems = []
    for k in ("number", "notebook", "root_seed"):
        if k not in data:
            problems.append(f"{p.name}: '{k}' is missing")
    for k in ("root_seed", "replication_seed"):
        if k in data and (not isinstance(data[k], int) or isinstance(data[k], bool)):
            problems.append(f"{p.name}: {k} {data[k]!r}; a whole number")
    past = data.get("past_root_seeds", [])
    if not isinstance(past, list) or not all(isinstance(s, int) and not isinstance(s, bool) for s in past):
        problems.append(f"{p.name}: past_root_seeds {past!r}; a list of whole numbers")
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
        if c.get("id") == REPLICATION_ID:
            problems.append(f"{where}: the id {REPLICATION_ID!r} names the replication margins in the registry")
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
        data.get("replication_seed"),
    )


def read_registry(path: str | Path) -> list[dict]:
    """The entries of a claims registry (``notebooks/claims/registry.toml``), in the file's order, checked: an
    entry is either a text first tested on a seed (``notebook``, ``id``, ``hash``, ``seed``; ``void``, ``note``)
    or a run (``notebook``, ``ran``: the seed the notebook ran on; ``note``). Every problem is named at once, in
    one SimsuiteError."""
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise SimsuiteError(f"{p.name}: not a TOML file ({e})") from None
    entries = data.get("entry", [])
    problems = []
    for i, e in enumerate(entries, 1):
        kinds = REGISTRY_RUN_KEYS if "ran" in e else REGISTRY_CLAIM_KEYS
        where = f"{p.name}: entry {i} ({'a run' if 'ran' in e else e.get('id', 'no id')})"
        unknown = set(e) - set(kinds)
        if unknown:
            problems.append(f"{where}: unknown field(s) {sorted(unknown)}; allowed: {sorted(kinds)}")
        for k, t in kinds.items():
            if k in e and (not isinstance(e[k], t) or (t is int and isinstance(e[k], bool))):
                problems.append(f"{where}: {k} {e[k]!r}; {_KIND[t]}")
            elif k not in e and k not in ("void", "note"):
                problems.append(f"{where}: '{k}' is missing")
    if problems:
        raise SimsuiteError("; ".join(problems))
    return [dict(e) for e in entries]


def _what(notebook: str, cid: str) -> str:
    return f"notebook {notebook}, " + ("its replication margins" if cid == REPLICATION_ID else f"claim {cid}")


def _changes(f: ClaimsFile, cid: str, hashes: set, previous: Iterable[ClaimsFile]) -> str:
    """What differs between ``f``'s text of ``cid`` and an earlier one (in ``previous``) whose hash is one of
    ``hashes``: "field old -> new", comma-separated; "" when no earlier text has one of those hashes."""
    for old in previous:
        if cid == REPLICATION_ID:
            if old.replication and replication_hash(old.replication) in hashes:
                a, b, keys = old.replication, f.replication, sorted(set(old.replication) | set(f.replication))
                break
        else:
            c = next((c for c in old.claims if c["id"] == cid and claim_hash(c) in hashes), None)
            if c is not None:
                a, b, keys = c, next(c for c in f.claims if c["id"] == cid), CLAIM_HASHED
                break
    else:
        return ""
    return ", ".join(f"{k} {a.get(k)!r} -> {b.get(k)!r}" for k in keys if a.get(k) != b.get(k))


def registry_problems(
    files: Iterable[ClaimsFile],
    registry: Iterable[Mapping],
    previous: Mapping[str, Iterable[ClaimsFile]] | None = None,
) -> list[str]:
    """What breaks pre-registration, one line each (empty: nothing). ``registry``: its entries in the file's
    order (``read_registry``); ``previous``: earlier versions of each notebook's claims file (by number), to say
    which fields of a changed claim differ. Each claim of a file, and its replication margins (``registrations``):

    - whose (notebook, id, hash of its text, first seed) is not in the registry, or is there only as ``void``
      (a text tested on the seed an earlier text of it had been tested on); the line names the claim and, where
      an earlier text is known, the fields that differ;
    - that is new on a seed the notebook already ran on (a ``ran`` entry for it), or registered on such a seed
      only after the run entry: it was not written before the run;
    - first tested on a seed that is neither the file's root seed nor one of its past root seeds;
    - registered on its seed with another text as well (changed after a run and tested again on that seed).

    And: a claim id registered with two texts on the same seed; a past root seed with no ``ran`` entry (a
    notebook leaves a seed after running on it); a claim tested in the run on the file's root seed and gone
    from the file since (dropping it changes the Holm family), unless a void entry of it on that seed, above the
    run's entry, withdrew it before the run; a root seed that is also a past root seed."""
    reg = [dict(e) for e in registry]
    prev = previous or {}
    runs: dict[tuple[str, int], int] = {}  # (notebook, seed) -> its first run entry (1-based, the file's order)
    for i, e in enumerate(reg, 1):
        if "ran" in e:
            runs.setdefault((e["notebook"], int(e["ran"])), i)
    texts = [(i, e) for i, e in enumerate(reg, 1) if "ran" not in e]
    valid = [(i, e) for i, e in texts if not e.get("void")]
    keys = {(e["notebook"], e["id"], e["hash"], int(e["seed"])) for _, e in valid}
    void = {(e["notebook"], e["id"], e["hash"], int(e["seed"])) for _, e in texts if e.get("void")}
    hist: dict[tuple[str, str], dict[int, set]] = {}  # every text of a claim, by the seed it was tested on
    for _, e in texts:
        hist.setdefault((e["notebook"], e["id"]), {}).setdefault(int(e["seed"]), set()).add(e["hash"])
    valid_hist: dict[tuple[str, str], dict[int, set]] = {}
    for _, e in valid:
        valid_hist.setdefault((e["notebook"], e["id"]), {}).setdefault(int(e["seed"]), set()).add(e["hash"])
    out = []
    for (nb, cid), seeds in sorted(valid_hist.items()):
        for s, hashes in sorted(seeds.items()):
            if len(hashes) > 1:
                out.append(
                    f"{_what(nb, cid)}: {len(hashes)} different texts tested on the same root seed {s} "
                    "(a changed claim needs a new root seed)"
                )
    for i, e in valid:
        j = runs.get((e["notebook"], int(e["seed"])))
        if j is not None and j < i:
            out.append(
                f"{_what(e['notebook'], e['id'])}: registered on seed {e['seed']} (registry entry {i}) after the "
                f"notebook's run on that seed (entry {j}), so not written before it; it needs a new root seed"
            )
    for f in files:
        if f.root_seed in f.past_root_seeds:
            out.append(f"notebook {f.number}: root seed {f.root_seed} is also listed as a past root seed")
        for s in f.past_root_seeds:
            if (f.number, s) not in runs:
                out.append(
                    f'notebook {f.number}: past root seed {s} has no run entry in the registry (append [[entry]] notebook = "{f.number}", ran = {s})'
                )
        mine = f.registrations()
        for cid, h, s in mine:
            what, k, run = _what(f.number, cid), (f.number, cid, h, s), runs.get((f.number, s))
            on_seed = hist.get((f.number, cid), {}).get(s, set())
            if k in void:
                out.append(
                    f"{what}: its test on seed {s} is void in the registry (it was revised on that seed); "
                    "it needs a new root seed"
                )
            elif k not in keys and on_seed:
                changed = _changes(f, cid, on_seed, prev.get(f.number, ()))
                out.append(
                    f"{what}: (hash {h}, seed {s}) is not in the registry, which has {', '.join(sorted(on_seed))} "
                    f"for it on that seed" + (f" (changed: {changed})" if changed else "") + "; a changed claim "
                    "needs a new root seed"
                )
            elif k not in keys and (f.number, cid) not in hist and run is not None:
                out.append(
                    f"{what}: new on seed {s}, which the notebook already ran on (registry entry {run}); "
                    "a new claim needs a new root seed"
                )
            elif k not in keys:
                out.append(
                    f"{what}: (hash {h}, seed {s}) is not in the registry (append [[entry]] "
                    f'notebook = "{f.number}", id = "{cid}", hash = "{h}", seed = {s})'
                )
            if s != f.root_seed and s not in f.past_root_seeds:
                out.append(
                    f"{what}: first tested on seed {s}, which is neither the root seed {f.root_seed} nor a past one"
                )
            if k in keys and on_seed - {h}:
                out.append(
                    f"{what}: its text changed but its seed {s} is the one an earlier text was tested on "
                    "(give the notebook a new root seed)"
                )
        run = runs.get((f.number, f.root_seed))
        ids = {cid for cid, _, _ in mine}
        # a claim withdrawn before the run: a void entry of its id on the root seed, above the run's entry
        withdrawn = {
            e["id"]
            for i, e in texts
            if e.get("void") and e["notebook"] == f.number and int(e["seed"]) == f.root_seed and run and i < run
        }
        for i, e in valid:
            if (
                e["notebook"] == f.number
                and int(e["seed"]) == f.root_seed
                and run is not None
                and i < run
                and e["id"] not in ids
                and e["id"] not in withdrawn
            ):
                out.append(
                    f"{_what(f.number, e['id'])}: tested in the run on seed {f.root_seed} (registry entry {i}) and "
                    "gone from the claims file since (it changes the Holm family); it needs a new root seed"
                )
    return sorted(set(out))


def _record(cf: ClaimsFile, results: str | Path) -> Path:
    return Path(results) / "claims" / f"{cf.notebook}.json"


def run_record_problems(cf: ClaimsFile, results: str | Path) -> list[str]:
    """What changed in ``cf`` since the last full run on its root seed, as ``ClaimsFile.record`` left it in
    ``results`` (``results/notebooks``): a claim (or the replication margins) new, changed or gone since, one
    line each. No record, or one of another root seed: nothing (the run on this seed is still to come)."""
    p = _record(cf, results)
    if not p.is_file():
        return []
    try:
        meta = json.loads(p.read_text(encoding="utf-8"))
        ran = {c["id"]: c["hash"] for c in meta["claims"]}
        if "replication" in meta:
            ran[REPLICATION_ID] = meta["replication"]["hash"]
        seed = meta["root_seed"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        return [f"notebook {cf.number}: the record of its last full run, {p}, is unreadable ({e!r})"]
    if seed != cf.root_seed:
        return []
    now = {cid: h for cid, h, _ in cf.registrations()}
    if "replication" not in meta:  # recorded before the replication margins were hashed
        now.pop(REPLICATION_ID, None)
    out = []
    for cid in sorted(set(now) | set(ran)):
        if cid not in ran:
            how = "new"
        elif cid not in now:
            how = "gone from the claims file"
        elif now[cid] != ran[cid]:
            how = f"changed (hash {ran[cid]} -> {now[cid]})"
        else:
            continue
        out.append(
            f"{_what(cf.number, cid)}: {how} since the full run on root seed {seed} ({p}); "
            "a claim changed after a run needs a new root seed"
        )
    return out


def recorded_run(cf: ClaimsFile, results: str | Path) -> int | None:
    """The root seed of the last full run of ``cf``'s notebook recorded in ``results``, or None."""
    try:
        return int(json.loads(_record(cf, results).read_text(encoding="utf-8"))["root_seed"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


class HistoryUnavailable(Exception):
    """Why a file's git history cannot be read: no git, not a repository, a shallow clone, no commit."""


def _git(root: str | Path, *args: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, encoding="utf-8", timeout=120
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise HistoryUnavailable(f"git {args[0]} did not run ({e})") from None


def file_history(root: str | Path, rel: str) -> list[tuple[str, str]]:
    """Every committed version of the file ``rel`` (a path from ``root``) in the history of HEAD of the git
    repository whose top folder is ``root``, oldest first, as (commit, text). Raises HistoryUnavailable, saying
    why, where there is no git, no repository at ``root`` (an installed wheel, an exported tree), a shallow
    clone (its earlier versions are missing) or no commit of the file."""
    if shutil.which("git") is None:
        raise HistoryUnavailable("git is not installed")
    top = _git(root, "rev-parse", "--show-toplevel")
    if top.returncode or Path(top.stdout.strip()).resolve() != Path(root).resolve():
        raise HistoryUnavailable(f"{root} is not the top folder of a git repository")
    if _git(root, "rev-parse", "--is-shallow-repository").stdout.strip() != "false":
        raise HistoryUnavailable("a shallow clone: earlier versions of the file may be missing")
    log = _git(root, "log", "--format=%H", "--reverse", "--", rel)
    if log.returncode:
        raise HistoryUnavailable(f"git log failed: {log.stderr.strip()}")
    commits = log.stdout.split()
    if not commits:
        raise HistoryUnavailable(f"no commit in the history of HEAD holds {rel}")
    versions = []
    for c in commits:
        shown = _git(root, "show", f"{c}:{rel}")
        if shown.returncode == 0:  # else the commit deleted the file: no lines to keep from it
            versions.append((c[:10], shown.stdout))
    return versions


def _data_lines(text: str) -> list[tuple[int, str]]:
    """The lines that say something (neither blank nor a comment), with their line numbers."""
    return [
        (n, line.rstrip())
        for n, line in enumerate(text.splitlines(), 1)
        if line.strip() and not line.lstrip().startswith("#")
    ]


def append_only_problems(versions: Iterable[tuple[str, str]], current: str, name: str = "registry.toml") -> list[str]:
    """Where ``current`` (a file's text now) does not keep every earlier version of it (``versions``:
    (commit, text), as ``file_history`` gives them): each version's lines, blank and comment lines aside, must
    be the first lines of ``current``, unchanged and in order (append only). One line per version that is not
    kept, naming its first line changed or gone."""
    now = _data_lines(current)
    out = []
    for commit, text in versions:
        for k, (n, line) in enumerate(_data_lines(text)):
            if k >= len(now) or now[k][1] != line:
                became = f"line {now[k][0]} is now {now[k][1]!r}" if k < len(now) else "the file ends before it"
                out.append(
                    f"{name}: line {n} of commit {commit}, {line!r}, is changed or gone ({became}); "
                    "the registry is append only"
                )
                break
    return out


def previous_versions(cf: ClaimsFile, root: str | Path | None = None, results: str | Path | None = None) -> list:
    """Earlier versions of ``cf``'s file, to say what changed in a claim: the copy its last full run left in
    ``results`` (``ClaimsFile.record``) and the committed one (git HEAD of ``root``), those that can be read."""
    out = []
    if results is not None:
        copy = Path(results) / "claims" / f"{cf.notebook}.toml"
        try:
            out.append(read_claims(copy))
        except (OSError, SimsuiteError):
            pass
    if root is not None:
        try:
            rel = cf.path.resolve().relative_to(Path(root).resolve()).as_posix()
            shown = _git(root, "show", f"HEAD:{rel}")
            if shown.returncode == 0:
                out.append(_claims_from(shown.stdout.encode("utf-8"), cf.path))
        except (ValueError, HistoryUnavailable, SimsuiteError):
            pass
    return out


def notebook_problems(
    cf: ClaimsFile, registry: Iterable[Mapping], results: str | Path | None = None, root: str | Path | None = None
) -> list[str]:
    """Where one notebook's claims file disagrees with the registry (its entries only) or, with ``results``,
    with the record of its last full run; what ``load_claims`` refuses a file for."""
    mine = [e for e in registry if e["notebook"] == cf.number]
    out = registry_problems([cf], mine, {cf.number: previous_versions(cf, root, results)})
    return out + (run_record_problems(cf, results) if results is not None else [])


def check_claims(
    claims_dir: str | Path, root: str | Path | None = None, results: str | Path | None = None
) -> tuple[list[str], list[str]]:
    """Every check of the claims before a run (``notebooks/_common.py check-claims``): the claims files of
    ``claims_dir`` against its ``registry.toml`` (``registry_problems``), with ``root`` (the repository) the
    registry against its git history (``append_only_problems``), with ``results`` (``results/notebooks``) each
    file against its last full run (``run_record_problems``). Returns (problems, notes): any problem fails the
    check; a note says what was not checked, or a run entry to append. A malformed file raises SimsuiteError."""
    d = Path(claims_dir)
    files = claims_files(d)
    registry = read_registry(d / "registry.toml")
    previous = {f.number: previous_versions(f, root, results) for f in files}
    problems, notes = registry_problems(files, registry, previous), []
    if root is not None:
        try:
            try:
                rel = (d / "registry.toml").resolve().relative_to(Path(root).resolve()).as_posix()
            except ValueError:
                raise HistoryUnavailable(f"{d} is not inside {root}") from None
            history = file_history(root, rel)
            problems += append_only_problems(history, (d / "registry.toml").read_text(encoding="utf-8"))
        except HistoryUnavailable as e:
            notes.append(f"the registry's git history was not checked: {e}")
    if results is not None:
        ran = {(e["notebook"], e["ran"]) for e in registry if "ran" in e}
        for f in files:
            problems += run_record_problems(f, results)
            seed = recorded_run(f, results)
            if seed is not None and (f.number, seed) not in ran:
                notes.append(
                    f"notebook {f.number} has a full run on root seed {seed} in {results}: append "
                    f'[[entry]] notebook = "{f.number}", ran = {seed} to the registry'
                )
    return problems, notes


def claims_files(claims_dir: str | Path) -> list[ClaimsFile]:
    """Every claims file ``NN.toml`` of ``claims_dir`` (``notebooks/claims``), read and checked, in order."""
    return [read_claims(p) for p in sorted(Path(claims_dir).glob("[0-9][0-9].toml"))]
