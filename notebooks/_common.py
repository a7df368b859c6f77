"""Helpers shared by the notebooks in this folder (not part of the simsuite package).

Every notebook sizes its runs from ``SIMSUITE_QUICK`` (quick: tiny samples, only to check that
the notebook runs), runs its sweep through ``simsuite.sim.run.sweep`` into
``results/notebooks/<name>[-quick]`` (resuming a run that is there) and reads it back with
``simsuite.sim.results.load``. The figures draw 95% intervals from ``simsuite.analysis.metrics.summarise``.

Each notebook's claims are written before it runs, in ``notebooks/claims/NN.toml`` (``load_claims``): its
root seed, its claims (the conclusion's tests, and the conclusions whose dependence on the policy is marked),
and the margins its replication is tested against; ``notebooks/claims/registry.toml`` keeps every claim's
text hash with the seed it was first tested on.

Environment:
    SIMSUITE_QUICK=1      quick mode (tiny samples)
    SIMSUITE_JOBS=N       worker processes for the harness (default 2)
    SIMSUITE_ROOT=DIR     the repository (default: found from the working folder upwards)
    SIMSUITE_RESULTS=DIR  where results/notebooks/ lives (default: ROOT/results)
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
import tomllib
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

import numpy as np
import pandas as pd
import polars as pl

import simsuite
from simsuite.analysis.metrics import METRIC_KEYS, bootstrap_match_sums, count_once, deal_ids, level_change, paired_test, summarise
from simsuite.analysis.stats import Z95, Estimate, cluster_mean_ci, holm, normal_p, tost_p, wilson
from simsuite.sim.results import Results, load
from simsuite.sim.run import sweep
from simsuite.errors import SimsuiteError, toml_value

QUICK = os.environ.get("SIMSUITE_QUICK") == "1"
REPLICATION = 1000  # the replication's seed: the notebook's root seed + 1000
DURATION_FRACTIONS = (0.25, 0.4, 0.6)  # the duration model's band: a typical action at this share of its limit
JOBS = int(os.environ.get("SIMSUITE_JOBS", "2"))
VARIANT_IDS = ["school-2016", "huizhou", "baiyun-2016", "two-deck-2011", "guangxi-2012"]
COLORS = dict(zip(VARIANT_IDS, ["C0", "C1", "C2", "C3", "C4"]))


def _find_root() -> Path:
    if os.environ.get("SIMSUITE_ROOT"):
        return Path(os.environ["SIMSUITE_ROOT"]).resolve()
    here = Path.cwd().resolve()
    for p in [here, *here.parents]:
        if (p / "pyproject.toml").is_file() and (p / "examples" / "sweeps").is_dir():
            return p
    return Path(simsuite.__file__).resolve().parents[1]


ROOT = _find_root()
RESULTS = Path(os.environ.get("SIMSUITE_RESULTS") or ROOT / "results") / "notebooks"


# --- pre-registered claims (notebooks/claims/NN.toml, notebooks/claims/registry.toml) ------------------
#
# Each notebook's claims are written down before it runs, in notebooks/claims/NN.toml: the root seed the
# notebook runs on, every claim (its id, family, test, cells, metric, direction, margin) with the root seed it
# was first tested on, and the margins of the replication. A claim changed after a run is tested again on a
# new root seed: notebooks/claims/registry.toml keeps every (notebook, claim id, hash of its text, seed first
# tested) there has been, and tests/test_notebook_units.py fails when a claim's text changed on a seed an
# earlier text of it was tested on (``registry_problems``).

CLAIMS_DIR = ROOT / "notebooks" / "claims"
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

    def family(self, name: str) -> list[dict]:
        return [c for c in self.claims if c["family"] == name]

    def seeds_table(self) -> pd.DataFrame:
        """Each claim with the root seed it was first tested on and its hash."""
        return pd.DataFrame([{"id": c["id"], "family": c["family"], "claim": c["text"], "hash": claim_hash(c),
                              "first tested on seed": c["seed"]} for c in self.claims])

    def tests(self, M: pl.DataFrame, cells: Mapping[str, str] | Any, rows: Mapping[str, Mapping] | None = None,
              alpha: float = 0.05) -> "Claims":
        """The family "conclusion" as tests on ``M`` (``per_match``): each claim's cells ``a``/``b`` looked up
        in ``cells`` (a mapping, or a function of the key); an ``independent`` claim compares ``rows[a]`` and
        ``rows[b]``. Returns the ``Claims`` (Holm over all of them), each row with its id and first seed."""
        look = cells if callable(cells) else cells.__getitem__
        T = Claims(M, alpha=alpha)
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

    def conclusions(self, cells: Mapping[str, str] | Any) -> list["Conclusion"]:
        """The family "robustness" as ``Conclusion``s (cells looked up as in ``tests``)."""
        look = cells if callable(cells) else cells.__getitem__
        return [Conclusion(c["text"], look(c["a"]), look(c["b"]) if c.get("b") is not None else None, c["metric"],
                           c["sign"], c.get("ref", 0.0), c["margin"], c["id"], c["seed"]) for c in self.family("robustness")]

    def record(self) -> Path:
        """The file and its hash next to the notebook's results: ``results/notebooks/claims/<notebook>[-quick]``
        ``.toml`` (a copy) and ``.json`` (file hash, root seed, each claim's id, hash and first seed)."""
        stem = self.notebook + ("-quick" if QUICK else "")
        d = RESULTS / "claims"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{stem}.toml").write_bytes(self.path.read_bytes())
        meta = {"file": f"notebooks/claims/{self.path.name}", "sha256": self.sha256, "root_seed": self.root_seed,
                "claims": [{"id": c["id"], "hash": claim_hash(c), "first_tested_on_seed": c["seed"]}
                           for c in self.claims]}
        (d / f"{stem}.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
        return d / f"{stem}.json"


def read_claims(path: str | Path) -> ClaimsFile:
    """A claims file, checked: every problem is named at once, in one SimsuiteError."""
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
            _margin(m)
        except (ValueError, TypeError):
            problems.append(f"{p.name}: replication margin {k} = {m!r}; a number or a percentage such as '25%'")
    if problems:
        raise SimsuiteError("; ".join(problems))
    return ClaimsFile(str(data["number"]), data["notebook"], int(data["root_seed"]),
                      tuple(int(s) for s in data.get("past_root_seeds", [])), tuple(claims),
                      dict(data.get("replication", {})), hashlib.sha256(raw).hexdigest(), p)


def load_claims(number: str, show: bool = True) -> ClaimsFile:
    """Notebook ``number``'s claims file (``notebooks/claims/<number>.toml``), its hash recorded next to the
    results (``ClaimsFile.record``) and, with ``show``, printed: the file's hash, the root seed and the seed
    each claim was first tested on."""
    cf = read_claims(CLAIMS_DIR / f"{number}.toml")
    cf.record()
    if show:
        fams = ", ".join(f"{len(cf.family(f))} {f}" for f in CLAIM_FAMILIES if cf.family(f))
        new = sum(c["seed"] == cf.root_seed for c in cf.claims)
        print(f"claims: notebooks/claims/{cf.path.name}, sha256 {cf.sha256[:16]}, written before this run "
              f"({fams}); root seed {cf.root_seed}"
              + (f" (earlier root seeds: {', '.join(map(str, cf.past_root_seeds))})" if cf.past_root_seeds else "")
              + f"; {new} of {len(cf.claims)} claims were first tested on it")
        by_seed: dict[int, int] = {}
        for c in cf.claims:
            by_seed[c["seed"]] = by_seed.get(c["seed"], 0) + 1
        print("first tested on: " + (", ".join(f"seed {s}: {n} claim(s)" for s, n in sorted(by_seed.items()))
                                     or "no claims in this file (only the replication's margins)"))
    return cf


def read_registry(path: str | Path | None = None) -> list[dict]:
    p = Path(path) if path is not None else CLAIMS_DIR / "registry.toml"
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
                out.append(f"notebook {nb}, claim {cid}: {len(hashes)} different texts tested on the same root seed {s} "
                           "(a changed claim needs a new root seed)")
    for f in files:
        if f.root_seed in f.past_root_seeds:
            out.append(f"notebook {f.number}: root seed {f.root_seed} is also listed as a past root seed")
        for c in f.claims:
            h = claim_hash(c)
            if (f.number, c["id"], h, int(c["seed"])) in void:
                out.append(f"notebook {f.number}, claim {c['id']}: its test on seed {c['seed']} is void in the registry "
                           "(it was revised on that seed); it needs a new root seed")
            elif (f.number, c["id"], h, int(c["seed"])) not in keys:
                out.append(f"notebook {f.number}, claim {c['id']}: (hash {h}, seed {c['seed']}) is not in the registry")
            if c["seed"] != f.root_seed and c["seed"] not in f.past_root_seeds:
                out.append(f"notebook {f.number}, claim {c['id']}: first tested on seed {c['seed']}, which is neither "
                           f"the root seed {f.root_seed} nor a past one")
            for s, hashes in hist.get((f.number, c["id"]), {}).items():
                if s == c["seed"] and hashes - {h}:
                    out.append(f"notebook {f.number}, claim {c['id']}: its text changed but its seed {s} is the one an "
                               "earlier text was tested on (give the notebook a new root seed)")
    return sorted(set(out))


def claims_files() -> list[ClaimsFile]:
    return [read_claims(p) for p in sorted(CLAIMS_DIR.glob("[0-9][0-9].toml"))]



# --- sweep specs ------------------------------------------------------------------------------


_toml_value = toml_value  # one TOML writer: simsuite.errors


def to_toml(spec: Mapping[str, Any]) -> str:
    """A sweep spec (top-level scalars, [grid], [[cells]], [decks_scaling]) as TOML text."""
    lines = [f"{k} = {_toml_value(v)}" for k, v in spec.items() if not isinstance(v, (Mapping, list))
             or (isinstance(v, list) and not any(isinstance(x, Mapping) for x in v))]
    for k, v in spec.items():
        if isinstance(v, Mapping):
            lines += ["", f"[{k}]"] + [f"{kk} = {_toml_value(x)}" for kk, x in v.items()]
    for k, v in spec.items():
        if isinstance(v, list) and any(isinstance(x, Mapping) for x in v):
            for table in v:
                lines += ["", f"[[{k}]]"] + [f"{kk} = {_toml_value(x)}" for kk, x in table.items()]
    return "\n".join(lines) + "\n"


def read_spec(path: str | Path) -> dict:
    p = Path(path)
    if not p.is_absolute():
        p = ROOT / p
    return tomllib.loads(p.read_text(encoding="utf-8"))


def run_sweep(spec: str | Path | Mapping[str, Any], name: str, *, part: str | None = None, jobs: int | None = None,
              **changes: Any) -> Results:
    """Run (or resume, or just load) a sweep into ``results/notebooks/<name>[-quick][/part]``.

    ``spec`` is a sweep spec file (relative to the repository) or a dict in the same shape;
    ``changes`` replace its top-level keys (``matches=``, ``policies=``, ``duplicate=``,
    ``grid=``, ``cells=``; ``None`` removes a key). The spec actually run is written next to
    the results as ``<name>[-quick][-part].toml``, so the run can be repeated from the shell:
    ``simsuite sweep results/notebooks/<that file> --out <the folder>``.
    """
    raw = dict(read_spec(spec) if isinstance(spec, (str, Path)) else spec)
    for k, v in changes.items():
        if v is None:
            raw.pop(k, None)
        else:
            raw[k] = v
    stem = name + ("-quick" if QUICK else "")
    out = RESULTS / stem / part if part else RESULTS / stem
    spec_file = RESULTS / "specs" / (stem + (f"-{part}" if part else "") + ".toml")
    spec_file.parent.mkdir(parents=True, exist_ok=True)
    text = to_toml(raw)
    if not spec_file.exists() or spec_file.read_text(encoding="utf-8") != text:
        spec_file.write_text(text, encoding="utf-8")
    out.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    sweep(spec_file, out, jobs=JOBS if jobs is None else jobs, quiet=True,
          command=["simsuite", "sweep", str(spec_file), "--out", str(out), "--jobs", str(JOBS if jobs is None else jobs)])
    r = load(out)
    n_matches = sum(c["matches"] for c in r.manifest["cells"]) * (2 if r.manifest["duplicate"] else 1)
    print(f"{out.relative_to(RESULTS.parent.parent) if out.is_relative_to(RESULTS.parent.parent) else out}: "
          f"{len(r.manifest['cells'])} cells, {n_matches:,} matches (tables) "
          f"[{'quick' if QUICK else 'full'} mode; ready in {time.perf_counter() - t0:.1f} s]")
    return r


def run_design(spec: str | Path, name: str, **changes: Any) -> dict:
    """Run (or resume, or just reread) ``simsuite design`` into ``results/notebooks/<name>[-quick]``.

    ``spec`` is a design spec file (relative to the repository); ``changes`` replace its top-level
    keys or, given as dicts, update its tables (``search={"matches": 6}``, ``grid={...}``). The spec
    actually run is written to ``results/notebooks/specs/<name>[-quick].toml``, so the run can be
    repeated from the shell: ``simsuite design <that file> --out <the folder>``."""
    from simsuite.report.design_text import worded_design as design

    raw = read_spec(spec)
    for k, v in changes.items():
        if isinstance(v, Mapping) and isinstance(raw.get(k), Mapping):
            raw[k] = {**raw[k], **v}
        else:
            raw[k] = v
    stem = name + ("-quick" if QUICK else "")
    out = RESULTS / stem
    spec_file = RESULTS / "specs" / f"{stem}.toml"
    spec_file.parent.mkdir(parents=True, exist_ok=True)
    text = to_toml(raw)
    if not spec_file.exists() or spec_file.read_text(encoding="utf-8") != text:
        spec_file.write_text(text, encoding="utf-8")
    t0 = time.perf_counter()
    res = design(spec_file, out, jobs=JOBS, quiet=True,
                 command=["simsuite", "design", str(spec_file), "--out", str(out), "--jobs", str(JOBS)])
    print(f"{out}: {len(res['sets'])} parameter sets, {res['cost']['design_hands']:,} hands "
          f"[{'quick' if QUICK else 'full'} mode; ready in {time.perf_counter() - t0:.1f} s]")
    return res


# --- summaries -----------------------------------------------------------------------------------


def frames(r: Results, where: pl.Expr | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    h, m = r.hands, r.matches
    if where is not None:
        h, m = h.filter(where), m.filter(where)
    return h.collect(), m.collect()


def equal_pairs_once() -> pl.Expr:
    """Keep the first table of matches between equal policies: with ``duplicate`` their second
    table is the same match again (the same deals, the same policies in the same seats)."""
    return (pl.col("policy_ns") != pl.col("policy_ew")) | ~pl.col("swapped")


def summary(h: pl.DataFrame, m: pl.DataFrame, variants: Mapping | None = None, by: str = "cell",
            seed: int = 0) -> pd.DataFrame:
    """``summarise`` flattened: one row per group, for each metric columns ``key``, ``key_lo``,
    ``key_hi``, ``key_n`` (NaN where it does not apply; an unbounded end is inf)."""
    rows = summarise(h, m, by=by, variants=variants, seed=seed)
    flat = []
    for r in rows:
        d = {k: v for k, v in r.items() if not isinstance(v, dict)}
        for k in METRIC_KEYS:
            e = r[k]
            d[k] = np.nan if e["value"] is None else e["value"]
            d[k + "_lo"] = np.nan if e["low"] is None else e["low"]
            d[k + "_hi"] = np.nan if e["high"] is None else e["high"]
            d[k + "_n"] = e["n"]
        flat.append(d)
    return pd.DataFrame(flat)


def parse_cell(cell: str) -> dict[str, Any]:
    """``"step=30,takeover=120"`` -> ``{"step": 30, "takeover": 120}`` (numbers as numbers)."""
    out: dict[str, Any] = {}
    for part in cell.split(","):
        if "=" not in part:
            out["variant"] = part
            continue
        k, v = part.split("=", 1)
        try:
            out[k] = int(v)
        except ValueError:
            out[k] = v
    return out


def with_cell_keys(df: pd.DataFrame, col: str = "cell") -> pd.DataFrame:
    keys = pd.DataFrame([parse_cell(c) for c in df[col]], index=df.index)
    return pd.concat([keys, df.drop(columns=[c for c in keys.columns if c in df.columns and c != col])], axis=1)


def match_share(m: pl.DataFrame, by: str | list[str], cond: pl.Expr, among: pl.Expr | None = None,
                name: str = "share") -> pd.DataFrame:
    """Per group, the share of matches (among ``among``, default all) where ``cond`` holds, with
    its interval over deals (``stats.cluster_share``: both tables of a duplicate deal are one
    unit): columns ``name``, ``name_lo``, ``name_hi``, ``name_n`` (n = deals)."""
    from simsuite.analysis.stats import cluster_share

    by = [by] if isinstance(by, str) else list(by)
    f = m if among is None else m.filter(among)
    rows = []
    for key, g in f.group_by(by, maintain_order=True):
        _, g, _ = count_once(g, g)
        e = cluster_share(g.select(cond.cast(pl.Float64))[:, 0].to_numpy(), deal_ids(g))
        rows.append({**dict(zip(by, key)), name: e.value, name + "_lo": e.low, name + "_hi": e.high, name + "_n": e.n})
    return pd.DataFrame(rows).sort_values(by).reset_index(drop=True) if rows else pd.DataFrame(rows)


def hand_shares(h: pl.DataFrame, by: str | list[str], indicators: Mapping[str, pl.Expr], reps: int = 2000,
                seed: int = 0) -> pd.DataFrame:
    """Per group, the share of hands where each indicator holds, with a percentile bootstrap
    interval that resamples whole deals (hands within a match, and both tables of a duplicate
    deal, are correlated), as ``simsuite.analysis.metrics`` does for its per-hand figures; n = deals."""
    by = [by] if isinstance(by, str) else list(by)
    key = [c for c in ("run", "variant", "cell", "seed", "match") if c in h.columns]
    names = list(indicators)
    per = (h.group_by(list(dict.fromkeys(by + key)))
           .agg(pl.len().cast(pl.Float64).alias("_n"), *[e.cast(pl.Float64).sum().alias(n) for n, e in indicators.items()])
           .sort(list(dict.fromkeys(by + key))))
    rows = []
    for gkey, g in per.group_by(by, maintain_order=True):
        sums = g.select(["_n"] + names).to_numpy().astype(float)
        boots = bootstrap_match_sums(sums, reps, seed)
        tot = sums.sum(axis=0)
        d = dict(zip(by, gkey))
        for i, n in enumerate(names, start=1):
            d[n] = tot[i] / tot[0]
            lo, hi = np.quantile(boots[:, i] / boots[:, 0], [0.025, 0.975]) if len(sums) > 1 else (np.nan, np.nan)
            d[n + "_lo"], d[n + "_hi"], d[n + "_n"] = lo, hi, len(sums)
        rows.append(d)
    return pd.DataFrame(rows).sort_values(by).reset_index(drop=True)


# --- tournaments ---------------------------------------------------------------------------------


def _champions(variant, teams: dict[str, str], seed: int, repeats: int) -> dict[str, int]:
    from simsuite.compete.competition import repeat_tournaments

    r = repeat_tournaments(variant, teams, seed, repeats)
    return {p: round(e.value * repeats) for p, e in r.policy_first.items()}


def champion_shares(variant, teams: dict[str, str], seed: int, repeats: int, jobs: int | None = None) -> dict:
    """``simsuite.compete.competition.repeat_tournaments`` split over worker processes: tournaments
    ``seed .. seed + repeats - 1`` (the same ones one call would play), and for each policy the
    share of tournaments a team of that policy won, with its Wilson interval."""
    from joblib import Parallel, delayed

    jobs = JOBS if jobs is None else jobs
    parts = max(1, min(jobs * 4, repeats))
    sizes = [repeats // parts + (1 if i < repeats % parts else 0) for i in range(parts)]
    starts = [seed + sum(sizes[:i]) for i in range(parts)]
    counts = Parallel(n_jobs=jobs)(delayed(_champions)(variant, teams, s, n) for s, n in zip(starts, sizes) if n)
    total: dict[str, int] = {}
    for c in counts:
        for p, k in c.items():
            total[p] = total.get(p, 0) + k
    return {p: wilson(k, repeats) for p, k in total.items()}


# --- text ----------------------------------------------------------------------------------------


def est(row: Mapping, key: str, digits: int = 2, pct: bool = False) -> str:
    """``value [low, high]`` of one metric of a summary row."""
    v, lo, hi = row[key], row[key + "_lo"], row[key + "_hi"]
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    k, u = (100.0, "%") if pct else (1.0, "")
    d = max(digits - 2, 0) if pct else digits

    def f(x):
        if x is None or (isinstance(x, float) and math.isnan(x)):
            return "?"
        return "∞" if math.isinf(x) else f"{x * k:.{d}f}"

    return f"{f(v)}{u} [{f(lo)}, {f(hi)}]"


def conclude(quick: bool, text: str, claims: Iterable[tuple[bool, str]] = (), tests: "Claims | None" = None):
    """The closing cell. Quick mode: only the warning that the numbers are too small. Full
    mode: the conclusion, after checking each claim it rests on against the numbers computed
    above; a claim the run does not support is shown as such instead of silently kept. With
    ``tests`` (a ``Claims``), every formal test that does not survive Holm's correction is
    listed as not supported too."""
    from IPython.display import Markdown, display

    if tests is not None:
        claims = list(claims) + tests.as_claims()
    if quick:
        display(Markdown(
            "### Conclusion\n\n**Quick mode (`SIMSUITE_QUICK=1`)**: these samples are tiny and only check that the "
            "notebook runs; the numbers above are too small to conclude anything. Run the notebook at full "
            "scale (`make notebooks`) for the conclusion."))
        return
    failed = [c for ok, c in claims if not ok]
    note = ""
    if failed:
        note = ("\n\n**Warning: this run does not support the following claim(s); the text above needs "
                "revising:**\n" + "\n".join(f"- {c}" for c in failed))
    display(Markdown("### Conclusion\n\n" + text.strip() + note))


# --- plotting ------------------------------------------------------------------------------------


def errorbar(ax, x, df: pd.DataFrame, key: str, scale: float = 1.0, cap: float | None = None, **kw):
    """Points with their 95% intervals as error bars. ``cap`` clips an unbounded upper end
    (N*), drawn as an arrow-less bar to the edge."""
    v = df[key].to_numpy(float) * scale
    lo = df[key + "_lo"].to_numpy(float) * scale
    hi = df[key + "_hi"].to_numpy(float) * scale
    if cap is not None:
        hi = np.minimum(hi, cap)
        v = np.minimum(v, cap)
    lo = np.where(np.isnan(lo), v, lo)
    hi = np.where(np.isnan(hi), v, hi)
    kw.setdefault("fmt", "o")
    kw.setdefault("capsize", 3)
    return ax.errorbar(x, v, yerr=[np.maximum(v - lo, 0), np.maximum(hi - v, 0)], **kw)


def plain_log_ticks(ax, ticks, axis: str = "x"):
    """Plain numbers (4, 6, 10, 20) as the ticks of a log axis instead of powers of ten."""
    from matplotlib.ticker import FixedLocator, NullFormatter, ScalarFormatter

    a = ax.xaxis if axis == "x" else ax.yaxis
    a.set_major_locator(FixedLocator(ticks))
    a.set_major_formatter(ScalarFormatter())
    a.set_minor_formatter(NullFormatter())


def band(ax, x, df: pd.DataFrame, key: str, scale: float = 1.0, label: str | None = None, **kw):
    """A line with its 95% interval as a shaded band."""
    x = np.asarray(x, float)
    v = df[key].to_numpy(float) * scale
    lo = df[key + "_lo"].to_numpy(float) * scale
    hi = df[key + "_hi"].to_numpy(float) * scale
    (line,) = ax.plot(x, v, marker="o", label=label, **kw)
    ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.2, linewidth=0)
    return line


# --- the independent unit, paired claims, equivalence, Holm ---------------------------------------


def per_match(h: pl.DataFrame, m: pl.DataFrame, variants: Mapping | None = None) -> pl.DataFrame:
    """The match frame with per-match outcomes for paired tests: ``a_win``, ``b_win``, ``draw``,
    ``decided`` (policy A = the NS policy of the cell's unswapped tables; with equal policies A is
    team NS), ``first_win`` and ``ns_dec`` (null for a draw), and per-match means over its hands:
    ``takeover``, ``hold``, ``change`` (|level change|), ``big`` (|change| >= 2), ``bottom_points``
    (points in the bottom), ``bottom_any`` (the bottom held points), ``capture_abs`` (|capture points|)
    and, with the cells' ``variants``, ``cross`` (the capture moved the hand's band)."""
    if variants is not None:
        from simsuite.analysis.metrics import _crossings, _Variants

        crossed, _ = _crossings(h, _Variants(variants))
        if crossed is not None:
            h = h.with_columns(_cross=pl.Series(crossed, dtype=pl.Float64))
    keys = [c for c in ("run", "variant", "cell", "seed", "swapped", "policy_ns", "policy_ew", "match")
            if c in h.columns and c in m.columns]
    change = level_change().cast(pl.Float64)
    agg = h.group_by(keys).agg(pl.col("takeover").cast(pl.Float64).mean().alias("takeover"),
                               change.mean().alias("change"), (change >= 2).cast(pl.Float64).mean().alias("big"),
                               *([pl.col("_cross").mean().alias("cross")] if "_cross" in h.columns else []),
                               *([pl.col("bottom_points").cast(pl.Float64).mean().alias("bottom_points"),
                                  (pl.col("bottom_points") > 0).cast(pl.Float64).mean().alias("bottom_any")]
                                 if "bottom_points" in h.columns else []),
                               *([pl.col("capture_points").abs().cast(pl.Float64).mean().alias("capture_abs")]
                                 if "capture_points" in h.columns else []))
    a = (m.filter(~pl.col("swapped")).group_by("cell").agg(pl.col("policy_ns").first().alias("_a")))
    out = m.join(agg, on=keys, how="left").join(a, on="cell", how="left")
    a_ns = pl.col("policy_ns") == pl.col("_a")
    dec = pl.col("winner") >= 0
    return out.with_columns(
        a_win=(((pl.col("winner") == 0) & a_ns) | ((pl.col("winner") == 1) & ~a_ns)).cast(pl.Float64),
        b_win=(((pl.col("winner") == 1) & a_ns) | ((pl.col("winner") == 0) & ~a_ns)).cast(pl.Float64),
        draw=(~dec).cast(pl.Float64), decided=dec.cast(pl.Float64), hold=1.0 - pl.col("takeover"),
        net=(((pl.col("winner") == 0) & a_ns) | ((pl.col("winner") == 1) & ~a_ns)).cast(pl.Float64)
        - (((pl.col("winner") == 1) & a_ns) | ((pl.col("winner") == 0) & ~a_ns)).cast(pl.Float64),
        first_win=pl.when(dec).then((pl.col("winner") == pl.col("first_declarers")).cast(pl.Float64)),
        a_dec=pl.when(dec).then((((pl.col("winner") == 0) & a_ns) | ((pl.col("winner") == 1) & ~a_ns)).cast(pl.Float64)),
        ns_dec=pl.when(dec).then((pl.col("winner") == 0).cast(pl.Float64)),
    )


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
        return (f"{e.value * scale:+.3f} [{e.low * scale:+.3f}, {e.high * scale:+.3f}] n={e.n:,}"
                if e.n else "n/a")

    def differ(self, text: str, a: str, b: str, metric: str, sign: int = +1):
        """Claim: metric(a) - metric(b) is positive (sign +1) or negative (-1); paired over deals."""
        r = paired_test(self._cell(a), self._cell(b), pl.col(metric))
        e = r["estimate"]
        p = r["p"] if e.n and np.sign(e.value) == sign else 1.0
        self._add(text, f"paired {metric}: [{a}] - [{b}] {'>' if sign > 0 else '<'} 0", self._fmt(e), p, "difference")

    def same(self, text: str, a: str, b: str, metric: str, margin: float):
        """Claim: metric(a) and metric(b) differ by less than ``margin`` (TOST over paired deals)."""
        r = paired_test(self._cell(a), self._cell(b), pl.col(metric), margin=margin)
        self._add(text, f"TOST {metric}: |[{a}] - [{b}]| < {margin:g}", self._fmt(r["estimate"]),
                  r["p_equivalent"] if r["estimate"].n else 1.0, "equivalence")

    def independent(self, text: str, a: Mapping, b: Mapping, key: str, sign: int = +1, test: str = ""):
        """Claim: ``a[key]`` above (sign +1) or below (-1) ``b[key]`` for two independent estimates
        (rows with ``key``, ``key_lo``, ``key_hi``); normal p from the combined SE of their intervals."""
        d = a[key] - b[key]
        se = math.hypot((a[key + "_hi"] - a[key + "_lo"]) / 3.92, (b[key + "_hi"] - b[key + "_lo"]) / 3.92)
        p = normal_p(d, se) if np.sign(d) == sign else 1.0
        self._add(text, test or f"independent {key}: a {'>' if sign > 0 else '<'} b", f"{d:+.3f} (SE {se:.3f})", p,
                  "difference")

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
        self._add(text, f"TOST {metric} [{cell}]: |x - {ref:g}| < {margin:g}",
                  self._fmt(e) if e is not None else "n/a", p, "equivalence")

    def table(self) -> pd.DataFrame:
        df = pd.DataFrame(self.rows)
        if df.empty:
            return df
        df["p (Holm)"] = holm(df["p"].fillna(1.0).to_numpy())
        df["survives"] = df["p (Holm)"] < self.alpha
        return df

    def as_claims(self) -> list[tuple[bool, str]]:
        t = self.table()
        return [] if t.empty else [(bool(ok), f"{c} ({k} test, Holm-adjusted p = {p:.3g})")
                                   for c, k, p, ok in zip(t.claim, t.kind, t["p (Holm)"], t.survives)]

    def show(self):
        """The claims table, with the correction stated."""
        from IPython.display import Markdown, display

        t = self.table()
        n = len(t)
        display(Markdown(
            f"**{n} claims tested; Holm's correction over all {n}** (family-wise error 5%). The claims come from the "
            "notebook's claims file (`notebooks/claims/NN.toml`), written before the run; each row gives the root seed "
            "the claim was first tested on. A difference between "
            "cells is a paired difference over the deals both share, its interval a bootstrap over deals; "
            "\"changes nothing\" is a two-one-sided-tests (TOST) equivalence test with the margin in the test column. "
            "Claims marked False do not survive the correction and are not made in the conclusion."))
        return t if n else None


def differences(M: pl.DataFrame, baseline: str, cells: Iterable[str], metric: str) -> pd.DataFrame:
    """Paired differences of ``metric`` (a ``per_match`` column) of each cell from ``baseline``,
    over the deals both share, with bootstrap intervals over deals: columns cell, diff, diff_lo,
    diff_hi, diff_n."""
    base = M.filter(pl.col("cell") == baseline)
    rows = []
    for c in cells:
        e = paired_test(M.filter(pl.col("cell") == c), base, pl.col(metric))["estimate"]
        rows.append({"cell": c, "diff": e.value, "diff_lo": e.low, "diff_hi": e.high, "diff_n": e.n})
    return pd.DataFrame(rows)


def difference_plot(ax, M: pl.DataFrame, baseline: str, cells: list[str], metric: str, labels: list[str],
                    scale: float = 1.0, **kw):
    """The paired difference from the baseline cell, per cell, with its 95% interval over deals."""
    d = differences(M, baseline, cells, metric)
    errorbar(ax, np.arange(len(cells)), d, "diff", scale=scale, **kw)
    ax.axhline(0, color="grey", lw=1, ls="--")
    ax.set_xticks(np.arange(len(cells)), labels)
    return d


# --- replication and the duration-model band --------------------------------------------------------

REPLICATES = "replicates"
NOT_SHOWN = "not shown (equivalence not established)"
DIFFERS = "does not replicate (the seeds differ)"
NOT_TESTED = "not tested"


def _margin(spec: float | str | None) -> tuple[float, bool] | None:
    """A replication margin: a number (absolute, in the figure's units) or ``"25%"`` (relative: the
    ratio of the two seeds' values within 1/1.25 .. 1.25, tested on the log scale)."""
    if spec is None:
        return None
    bad = SimsuiteError(f"replication margin {spec!r}: a positive number or a positive percentage such as '25%'")
    rel = isinstance(spec, str)
    if isinstance(spec, bool) or not (rel and spec.strip().endswith("%") or isinstance(spec, (int, float))):
        raise bad
    try:
        x = float(spec.strip()[:-1]) if rel else float(spec)
    except ValueError:
        raise bad from None
    if not (x > 0 and math.isfinite(x)):
        raise bad
    return (math.log1p(x / 100.0), True) if rel else (x, False)


def replication_test(a: float, a_lo: float, a_hi: float, b: float, b_lo: float, b_hi: float,
                     margin: float | str | None) -> dict:
    """One figure on two independent seeds: the difference a - b (or, with a relative margin, log a - log b),
    its SE from the two 95% intervals, the two-sided p of "they differ" and the TOST p of "they differ by
    at least the margin". ``reason`` says why it could not be tested (then the p-values are NaN): a missing
    value or interval end, an unbounded interval, no margin, or a non-positive value with a relative margin."""
    nan = float("nan")
    out = {"diff": nan, "se": nan, "p_differ": nan, "p_equivalent": nan, "reason": None}
    m = _margin(margin)
    vals = [a, a_lo, a_hi, b, b_lo, b_hi]
    if m is None:
        out["reason"] = "no margin stated"
    elif any(x is None or (isinstance(x, float) and math.isnan(x)) for x in vals):
        out["reason"] = "a value or an interval end is missing"
    elif not all(math.isfinite(float(x)) for x in vals):
        out["reason"] = "an interval is unbounded"
    elif m[1] and min(vals) <= 0:
        out["reason"] = "a relative margin needs positive values"
    if out["reason"]:
        return out
    f = math.log if m[1] else float
    se = math.hypot((f(a_hi) - f(a_lo)) / 3.92, (f(b_hi) - f(b_lo)) / 3.92)
    if not se > 0:
        out["reason"] = "the intervals have no width"
        return out
    d = f(a) - f(b)
    out.update(diff=d, se=se, p_differ=normal_p(d, se), p_equivalent=tost_p(d, se, m[0]))
    return out


def replication_table(first: pd.DataFrame, second: pd.DataFrame, keys: list[str], index: str,
                      labels: Mapping[str, str] | None = None, pct: Iterable[str] = (),
                      margins: Mapping[str, float | str] | None = None, alpha: float = 0.05) -> pd.DataFrame:
    """Two seeds' summary rows side by side (``key`` with interval, n = deals) and whether each figure
    replicates: an equivalence test (TOST) of the two seeds' difference against the figure's stated
    ``margins[key]`` (a number in the figure's units, or ``"25%"`` for a ratio within 1/1.25..1.25 on the
    log scale), with Holm's correction over the table. Independent seeds: the SE of the difference
    combines the two intervals' widths.

    ``verdict``: **replicates** when the Holm-adjusted TOST p is below ``alpha``; **does not replicate**
    when the two seeds differ (two-sided p below ``alpha``, uncorrected: the stricter side for a claim of
    replication); **not shown** otherwise (the samples cannot tell); **not tested** (with the reason) when
    a value or interval end is missing or unbounded or no margin is stated. Agreement within 1.96 SE is
    not a replication: it is the absence of evidence of a difference."""
    pct, margins = set(pct), dict(margins or {})
    a, b = first.set_index(index), second.set_index(index)
    rows = []
    for i in a.index:
        if i not in b.index:
            continue
        for k in keys:
            ra, rb = a.loc[i], b.loc[i]
            t = replication_test(ra[k], ra[k + "_lo"], ra[k + "_hi"], rb[k], rb[k + "_lo"], rb[k + "_hi"],
                                 margins.get(k))
            rel = isinstance(margins.get(k), str)
            rows.append({index: i, "figure": (labels or {}).get(k, k),
                         "first seed": est(ra, k, 3, pct=k in pct) + f" n={int(ra[k + '_n']):,}",
                         "second seed": est(rb, k, 3, pct=k in pct) + f" n={int(rb[k + '_n']):,}",
                         "difference (SE)": (f"{'log ratio ' if rel else ''}{t['diff']:+.4g} (SE {t['se']:.3g})"
                                             if t["reason"] is None else "n/a"),
                         "margin": (f"±{margins[k]}" if rel else f"±{margins[k]:g}") if k in margins else "none",
                         "_p_eq": t["p_equivalent"], "_p_diff": t["p_differ"], "_reason": t["reason"]})
    df = pd.DataFrame(rows)
    if df.empty:
        return df
    tested = df["_reason"].isna()
    df["TOST p (Holm)"] = np.nan
    if tested.any():
        df.loc[tested, "TOST p (Holm)"] = holm(df.loc[tested, "_p_eq"].to_numpy())

    def verdict(r):
        if r["_reason"] is not None and not (isinstance(r["_reason"], float) and math.isnan(r["_reason"])):
            return f"{NOT_TESTED} ({r['_reason']})"
        if r["TOST p (Holm)"] < alpha:
            return REPLICATES
        if r["_p_diff"] < alpha:
            return DIFFERS
        return NOT_SHOWN

    df["verdict"] = [verdict(r) for _, r in df.iterrows()]
    df["TOST p (Holm)"] = df["TOST p (Holm)"].round(4)
    return df.drop(columns=["_p_eq", "_p_diff", "_reason"])


def replication_summary(table: pd.DataFrame) -> str:
    """One line for a conclusion: how many figures replicate, differ, are not shown, not tested."""
    if table.empty:
        return "no figure to replicate"
    v = table["verdict"]
    n_rep, n_diff, n_not = int((v == REPLICATES).sum()), int((v == DIFFERS).sum()), int((v == NOT_SHOWN).sum())
    n_untested = int(v.str.startswith(NOT_TESTED).sum())
    return (f"{n_rep} of {len(v)} figures replicate (TOST within the stated margins, Holm), {n_diff} differ, "
            f"{n_not} not shown either way, {n_untested} not tested")


def seconds_per_trick_at(variant, fraction: float) -> float:
    """The duration model's seconds per trick with a typical action at ``fraction`` of its limit
    (docs/clock.md: the default is 0.4; 4 s to gather a trick are not a limit and stay)."""
    return 4.0 + (variant.seconds_per_trick - 4.0) * fraction / 0.4


def clock_band(h: pl.DataFrame, m: pl.DataFrame, variants: Mapping, cells: Iterable[str] | None = None,
               fractions: Iterable[float] = DURATION_FRACTIONS) -> pd.DataFrame:
    """The duration model's band on the clock-derived figures of every timed cell: the exact match
    model (``simsuite.analysis.exact``) solved with each hand re-timed at each fraction of the time limits
    (0.25 / 0.4 / 0.6; docs/clock.md). Columns: cell, fraction, hands, minutes, clock_share, draw,
    a_win. An approximation (the same hands, re-timed), its error measured in docs/metrics.md."""
    from simsuite.analysis.exact import exact_model

    rows = []
    for cell in (cells if cells is not None else sorted(m["cell"].unique().to_list())):
        v = variants.get(cell)
        if v is None or v.match_minutes == 0:
            continue
        hc, mc = h.filter(pl.col("cell") == cell), m.filter(pl.col("cell") == cell)
        if mc.height == 0:
            continue
        for f in fractions:
            ov = None if f == 0.4 else {"seconds_per_trick": round(seconds_per_trick_at(v, f), 2)}
            r = exact_model(hc, mc, v, ov, reps=0)["figures"]
            rows.append({"cell": cell, "fraction": f, "hands": r["hands_mean"]["value"],
                         "minutes": r["minutes_mean"]["value"], "clock_share": r["clock_share"]["value"],
                         "draw": r["p_draw"]["value"], "a_win": r["p_a"]["value"]})
    return pd.DataFrame(rows)


def band_range(band: pd.DataFrame, cell: str, key: str) -> tuple[float, float]:
    b = band[band.cell == cell][key]
    return (float(b.min()), float(b.max())) if len(b) else (float("nan"), float("nan"))


def draw_band(ax, x, band: pd.DataFrame, cells: list[str], key: str, scale: float = 1.0, **kw):
    """The duration-model band (min to max over the fractions) as a thick grey bar behind the points."""
    kw.setdefault("color", "0.6")
    kw.setdefault("lw", 7)
    kw.setdefault("alpha", 0.45)
    first = True
    for xi, c in zip(x, cells):
        lo, hi = band_range(band, c, key)
        if math.isfinite(lo):
            ax.plot([xi, xi], [lo * scale, hi * scale], solid_capstyle="butt",
                    label="duration model 0.25-0.6 of limits" if first else None, **kw)
            first = False



# --- the three self-play pairings, and how much each conclusion depends on the policy ------------------

# search with 4 sampled deals x 4 candidates per decision: a third of the default's cost (docs/performance.md); quick
# mode only checks that the notebooks run, with the cheapest search (1 deal x 2 candidates)
SEARCH_POLICY = "search-k1-c2" if QUICK else "search-k4-c4"
PAIRINGS = ("basic", "expert", "search")
PAIRING_COLORS = {"basic": "C0", "expert": "C3", "search": "C2"}
# Matches per cell for the search pairing at full scale, per notebook (basic and expert play the notebook's own
# count). Sized so that the five notebooks' search runs together take about a quarter of an hour on two idle cores
# (README, "Notebooks"); each notebook prints the size it used.
# Measured (search-k4-c4 self-play on school-2016, huizhou and notebook 03's cells): 5.8 to 7.3 hands per CPU-second,
# so these sizes (about 6,800 search hands in all: per match of every cell 01 ~45 hands, 02 ~21, 03 ~38, 04 ~28,
# 05 ~38) take about 19 CPU-minutes, 10 minutes of wall time on two idle cores; twice that if the rebuilt expert
# (search's roll-out policy) is 2x slower. Notebook 03 gets the most: the capture multiplier's effect on what search
# buries is about 1 point in 11 at bottom 10 (a 20-match preview), which needs about 80 matches to show.
SEARCH_MATCHES = {"01": 24, "02": 40, "03": 80, "04": 32, "05": 24}
ROBUST, DEPENDENT = "robust", "policy-dependent"


def pairing_policies(pairing: str) -> str:
    """The sweep's ``policies`` for a self-play pairing: ``"basic,basic"``, ``"expert,expert"``,
    ``"search-k4-c4,search-k4-c4"``."""
    pol = SEARCH_POLICY if pairing == "search" else pairing
    return f"{pol},{pol}"


def pairing_label(pairing: str) -> str:
    pol = SEARCH_POLICY if pairing == "search" else pairing
    return f"{pol}/{pol}"


def pairing_matches(full: int, search: int, quick: int = 6, search_quick: int = 2) -> dict[str, int]:
    """Matches per cell for each pairing: ``basic`` and ``expert`` play ``full`` (``quick`` in
    quick mode), the slow ``search`` its own smaller ``search`` (``search_quick``)."""
    if QUICK:
        return {"basic": quick, "expert": quick, "search": search_quick}
    return {"basic": full, "expert": full, "search": search}


def _pairing_chunk(pairing: str, matches: int) -> int:
    # search plays a few hands a second: small chunks keep both workers busy and a stopped run resumable
    return 100 if pairing != "search" else max(1, min(10, matches // (4 * JOBS)))


def run_pairings(spec: str | Path | Mapping[str, Any], name: str, matches: Mapping[str, int], tag: str = "",
                 **changes: Any) -> "Pairings":
    """The sweep ``spec`` (with ``changes``, as in ``run_sweep``) once per self-play pairing, into
    ``results/notebooks/<name>[-quick]/pairing-<pairing>``: the same cells and the same root seed
    under every pairing, so match i of a cell is the same deal under all three (paired). One
    table per deal (``duplicate = false``: in self-play a second table is the same match again).
    A ``policies`` key of the grid is dropped (the pairing sets the policies). Resumed or reused
    like every sweep."""
    runs = {}
    for p in PAIRINGS:
        if not matches.get(p):
            continue
        ch = dict(changes)
        grid = ch.get("grid")
        if isinstance(grid, Mapping) and "policies" in grid:
            ch["grid"] = {k: v for k, v in grid.items() if k != "policies"} or None
        ch.update(matches=matches[p], policies=pairing_policies(p), duplicate=False,
                  chunk=_pairing_chunk(p, matches[p]))
        runs[p] = run_sweep(spec, name, part=f"pairing-{p}" + (f"-{tag}" if tag else ""), **ch)
    return Pairings(runs)


def merge_pairings(parts: Mapping[str, "Pairings"]) -> "Pairings":
    """Several ``run_pairings`` (e.g. one per tournament) as one, each cell renamed ``<key>|<cell>``;
    runs with the same root seed stay paired (match i is the same deal)."""
    data, variants = {}, {}
    for p in PAIRINGS:
        got = [(k, P) for k, P in parts.items() if p in P.frames]
        if not got:
            continue
        ren = lambda k: pl.lit(k + "|") + pl.col("cell")  # noqa: E731
        data[p] = (pl.concat([P.frames[p][0].with_columns(cell=ren(k)) for k, P in got], how="diagonal_relaxed"),
                   pl.concat([P.frames[p][1].with_columns(cell=ren(k)) for k, P in got], how="diagonal_relaxed"))
        variants[p] = {f"{k}|{c}": v for k, P in got for c, v in (P.variants.get(p) or {}).items()}
    return Pairings.from_frames(data, variants)


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


def _nan_estimate() -> Estimate:
    return Estimate(float("nan"), float("nan"), float("nan"), 0)


def _fmt_effect(e: Estimate, digits: int = 3) -> str:
    if not e.n or not math.isfinite(e.value):
        return "n/a"
    lo = f"{e.low:+.{digits}f}" if math.isfinite(e.low) else "?"
    hi = f"{e.high:+.{digits}f}" if math.isfinite(e.high) else "?"
    return f"{e.value:+.{digits}f} [{lo}, {hi}] n={e.n:,}"


UNDECIDED = "undecided (n too small)"
POWER = 0.8  # the power the printed sample sizes aim at, for an interaction of the stated margin


SE_FLOOR = 1e-9  # an interval of no width (every deal gave the same difference): known, but not infinitely well


def _se95(e: Estimate) -> float:
    """The SE behind a 95% interval; a zero-width interval gets a tiny floor, so that an effect every deal
    agrees on still pools and tests (with an SE of ~0) instead of counting as missing."""
    return max((e.high - e.low) / (2 * Z95), SE_FLOOR)


def _usable(e: Estimate | None) -> bool:
    return e is not None and bool(e.n) and all(math.isfinite(x) for x in (e.value, e.low, e.high))


def _pool(es: Iterable[Estimate]) -> tuple[float, float]:
    """Inverse-variance pooled effect and its SE (the SEs from the 95% intervals)."""
    w = np.array([1.0 / _se95(e) ** 2 for e in es])
    v = np.array([e.value for e in es])
    return float((w * v).sum() / w.sum()), float(1.0 / math.sqrt(w.sum()))


def interaction_tests(effects: Mapping[str, Estimate], sign: int, margin: float,
                      pairings: Iterable[str] = PAIRINGS, alpha: float = 0.05, power: float = POWER) -> dict:
    """The rule x policy interaction of one conclusion, before any correction. For each pairing with
    data: its effect minus the pooled (inverse-variance) effect of the other pairings, ``d``, with its SE
    (the two SEs combined; each from its 95% interval), the two-sided p of "the interaction is not 0"
    (``p_dependent``) and the TOST p of "|interaction| >= margin" (``p_equivalent``). Also the pooled
    effect of all pairings and the one-sided p of its claimed direction (``p_direction``); ``p_robust``,
    the intersection-union p of "robust" (every TOST and the direction: the largest of them); and
    ``n_needed``, the deals per cell, the same under every pairing, at which each interaction test would
    detect an interaction of size ``margin`` with ``power`` at two-sided ``alpha`` (each pairing's variance
    per deal, n x SE^2, taken from its interval). ``missing`` lists pairings without a usable interval."""
    pairings = list(pairings)
    ok = {p: effects[p] for p in pairings if _usable(effects.get(p))}
    missing = [p for p in pairings if p not in ok]
    nan = float("nan")
    out = {"tests": {}, "missing": missing, "pooled": nan, "pooled_se": nan, "p_direction": nan,
           "p_robust": nan, "n_needed": None, "margin": margin}
    if len(ok) < 2:
        return out
    pooled, pooled_se = _pool(ok.values())
    z = pooled / pooled_se
    out.update(pooled=pooled, pooled_se=pooled_se, p_direction=0.5 * math.erfc(sign * z / math.sqrt(2.0)))
    z_alpha, z_power = _z_quantile(1 - alpha / 2), _z_quantile(power)
    unit = {p: e.n * _se95(e) ** 2 for p, e in ok.items()}  # variance of the effect per deal
    need = 0.0
    for p, e in ok.items():
        o_val, o_se = _pool([x for q, x in ok.items() if q != p])
        d, se = e.value - o_val, math.hypot(_se95(e), o_se)
        out["tests"][p] = {"effect": e, "others": o_val, "d": d, "se": se, "p_dependent": normal_p(d, se),
                           "p_equivalent": tost_p(d, se, margin)}
        per_deal = unit[p] + 1.0 / sum(1.0 / unit[q] for q in ok if q != p)  # the interaction's variance x n
        need = max(need, per_deal * ((z_alpha + z_power) / margin) ** 2)
    out["p_robust"] = max([out["p_direction"]] + [t["p_equivalent"] for t in out["tests"].values()])
    out["n_needed"] = int(math.ceil(need))
    return out


def _z_quantile(q: float) -> float:
    """The standard normal quantile (bisection on erfc: no scipy needed here)."""
    lo, hi = -10.0, 10.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if 0.5 * math.erfc(-mid / math.sqrt(2.0)) < q:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def classify_all(items: Iterable[tuple[Mapping[str, Estimate], int, float]], pairings: Iterable[str] = PAIRINGS,
                 alpha: float = 0.05) -> list[dict]:
    """The verdicts on all the conclusions of one notebook, with **one** Holm correction over every p-value
    that grants a mark: for each conclusion its ``p_robust`` and, for each pairing, its ``p_dependent``.
    ``items``: (effects per pairing, claimed sign, margin) per conclusion; the margin is the smallest
    interaction (in the effect's units) that matters, stated before the run.

    - **robust**: the pooled effect lies on the claimed side and every pairing's interaction is within
      ±margin (TOST), Holm-adjusted p below ``alpha``;
    - **policy-dependent**: some pairing's interaction differs from 0 (Holm-adjusted p below ``alpha``);
      ``disagree`` names it with its effect, its interaction d ± SE and the pooled effect of the others;
    - **undecided (n too small)**: neither, or a pairing has no data; ``n_needed`` says how many deals per
      cell would detect an interaction of the margin's size (80% power, two-sided 5%).

    Each verdict: mark, text, disagree, tests (``interaction_tests``), p_robust_holm, n_needed."""
    items = list(items)
    pairings = list(pairings)
    for i, (_, _, margin) in enumerate(items):
        if not (isinstance(margin, (int, float)) and margin > 0):
            raise SimsuiteError(f"classify: margin={margin!r} for conclusion {i + 1}; a positive smallest interaction "
                                "of interest is required (its claims file's 'margin')")
    runs = [interaction_tests(eff, sign, margin, pairings, alpha) for eff, sign, margin in items]
    flat = []  # (conclusion index, pairing or None, p)
    for i, r in enumerate(runs):
        if r["tests"]:
            flat.append((i, None, r["p_robust"]))
            flat += [(i, p, t["p_dependent"]) for p, t in r["tests"].items()]
    adj = holm([p for _, _, p in flat]) if flat else np.array([])
    for (i, p, _), a in zip(flat, adj):
        if p is None:
            runs[i]["p_robust_holm"] = float(a)
        else:
            runs[i]["tests"][p]["p_dependent_holm"] = float(a)
    out = []
    for (eff, sign, margin), r in zip(items, runs):
        now = ", ".join(f"{q} {t['effect'].n:,}" for q, t in r["tests"].items())
        need = f"{r['n_needed']:,} under every pairing (now {now})" if r["n_needed"] is not None else ""
        dep = sorted(({"pairing": p, **t} for p, t in r["tests"].items() if t.get("p_dependent_holm", 1.0) < alpha),
                     key=lambda d: -abs(d["d"]))
        if r["tests"] and not r["missing"] and r.get("p_robust_holm", 1.0) < alpha:
            mark = ROBUST
            text = (f"**{ROBUST}** (pooled {r['pooled']:+.3f} ± {Z95 * r['pooled_se']:.3f}; every interaction within "
                    f"±{margin:g}, Holm p = {r['p_robust_holm']:.3g})")
        elif dep:
            mark = DEPENDENT
            text = f"**{DEPENDENT}** (" + "; ".join(
                f"{d['pairing']}: {_fmt_effect(d['effect'])}, interaction {d['d']:+.3f} (SE {d['se']:.3f}) from the "
                f"others' pooled {d['others']:+.3f}, Holm p = {d['p_dependent_holm']:.3g}" for d in dep) + ")"
        else:
            mark = UNDECIDED
            why = (f"no data or no interval: {', '.join(r['missing'])}" if r["missing"] else
                   f"largest |interaction| {max(abs(t['d']) for t in r['tests'].values()):.3f} against a margin of "
                   f"±{margin:g}; robust Holm p = {r.get('p_robust_holm', float('nan')):.3g}")
            text = (f"**{UNDECIDED}** ({why}" + (f"; deals per cell needed to detect ±{margin:g} (80% power): {need}"
                                                 if need else "") + ")")
        out.append({"mark": mark, "text": text, "detail": text[len(mark) + 6:-1], "disagree": dep, "tests": r["tests"],
                    "missing": r["missing"],
                    "pooled": r["pooled"], "p_robust_holm": r.get("p_robust_holm", float("nan")),
                    "n_needed": r["n_needed"], "margin": margin})
    return out


def classify(effects: Mapping[str, Estimate], sign: int = +1, margin: float | None = None,
             pairings: Iterable[str] = PAIRINGS, alpha: float = 0.05) -> dict:
    """The verdict on one conclusion (``classify_all`` with a family of one). ``margin`` is required:
    robustness is an equivalence claim and means nothing without it."""
    if margin is None or not margin > 0:
        raise SimsuiteError(f"classify: margin={margin!r}; a positive smallest interaction of interest is required")
    return classify_all([(effects, sign, margin)], pairings, alpha)[0]


class Pairings:
    """The three self-play pairings' runs of one notebook (``run_pairings``): their summaries side by
    side, each conclusion's effect under each pairing, the classifier's verdicts and the figure."""

    def __init__(self, runs: Mapping[str, Results]):
        self.runs = dict(runs)
        self._set({p: frames(r) for p, r in self.runs.items()}, {p: r.variants() for p, r in self.runs.items()})

    @classmethod
    def from_frames(cls, data: Mapping[str, tuple[pl.DataFrame, pl.DataFrame]],
                    variants: Mapping[str, Mapping] | None = None) -> "Pairings":
        """From (hands, matches) frames per pairing instead of runs (tests)."""
        self = cls.__new__(cls)
        self.runs = {}
        self._set(dict(data), dict(variants or {p: None for p in data}))
        return self

    def _set(self, data, variants):
        self.frames = data
        self.variants = variants
        self.pairings = [p for p in PAIRINGS if p in data]
        self.M = {p: per_match(h, m, variants.get(p)) for p, (h, m) in data.items()}
        self._summary: pd.DataFrame | None = None
        # the table and the figure ask for the same estimates, the figure and the verdicts for the same effects (a
        # bootstrap each): all are pure functions of the frames, so each is computed once and kept
        self._rows: dict[tuple[str, str], int] | None = None  # (pairing, cell) -> its first row in the summary
        self._estimates: dict[tuple[str, str, str], dict] = {}
        self._effects: dict[tuple[str, Conclusion], Estimate] = {}
        self._n: dict[str, int] = {}

    def summary(self) -> pd.DataFrame:
        """``summary`` per cell of every pairing, with the cell keys and a ``pairing`` column."""
        if self._summary is None:
            parts = [with_cell_keys(summary(h, m, self.variants[p], by="cell")).assign(pairing=p)
                     for p, (h, m) in self.frames.items()]
            self._summary = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
        return self._summary

    def n(self, pairing: str) -> int:
        """Deals per cell (the smallest cell) under ``pairing``."""
        if pairing not in self._n:
            m = self.M[pairing]
            self._n[pairing] = int(m.group_by("cell").agg(pl.col("match").n_unique())["match"].min()) if m.height else 0
        return self._n[pairing]

    def estimate(self, pairing: str, cell: str, key: str) -> dict:
        """One figure of one cell under one pairing: a ``summarise`` metric (METRIC_KEYS), or else the
        mean over matches of a ``per_match`` column with its interval over deals. Keys value, lo, hi, n."""
        if (pairing, cell, key) not in self._estimates:
            self._estimates[pairing, cell, key] = self._estimate(pairing, cell, key)
        return dict(self._estimates[pairing, cell, key])

    def _estimate(self, pairing: str, cell: str, key: str) -> dict:
        if key in METRIC_KEYS:
            s = self.summary()
            if self._rows is None:
                self._rows = {}
                for i, pc in enumerate(zip(s.pairing, s.cell)):
                    self._rows.setdefault(pc, i)
            if (pairing, cell) in self._rows:
                r = s.iloc[self._rows[pairing, cell]]
                return {"value": r[key], "lo": r[key + "_lo"], "hi": r[key + "_hi"], "n": r[key + "_n"]}
            return {"value": np.nan, "lo": np.nan, "hi": np.nan, "n": 0}
        f = self.M[pairing].filter(pl.col("cell") == cell).drop_nulls(key) if key in self.M[pairing].columns else None
        if f is None or f.height == 0:
            return {"value": np.nan, "lo": np.nan, "hi": np.nan, "n": 0}
        e = cluster_mean_ci(f[key].to_numpy(), deal_ids(f))
        return {"value": e.value, "lo": e.low, "hi": e.high, "n": e.n}

    def frame(self, cells: Mapping[str, str], key: str) -> pd.DataFrame:
        """One figure for every (pairing, cell): columns pairing, cell, label, key, key_lo, key_hi, key_n."""
        rows = []
        for p in self.pairings:
            for c, lab in cells.items():
                e = self.estimate(p, c, key)
                rows.append({"pairing": p, "cell": c, "label": lab, key: e["value"], key + "_lo": e["lo"],
                             key + "_hi": e["hi"], key + "_n": e["n"]})
        return pd.DataFrame(rows)

    def table(self, cells: Mapping[str, str], keys: Mapping[str, tuple[str, int, bool]]) -> pd.DataFrame:
        """The headline figures under the pairings side by side: one row per (cell, figure), one
        column per pairing, each ``value [95% interval] n=deals``. ``cells``: cell -> label;
        ``keys``: key -> (label, digits, as a percentage)."""
        rows = []
        for c, lab in cells.items():
            for k, (name, digits, pct) in keys.items():
                row = {"cell": lab, "figure": name}
                for p in self.pairings:
                    e = self.estimate(p, c, k)
                    row[pairing_label(p)] = (est({k: e["value"], k + "_lo": e["lo"], k + "_hi": e["hi"]}, k, digits,
                                                  pct=pct) + f" n={int(e['n']):,}")
                rows.append(row)
        return pd.DataFrame(rows).set_index(["cell", "figure"])

    def effect(self, pairing: str, c: Conclusion) -> Estimate:
        """The conclusion's effect under ``pairing``: the paired difference a - b over the deals both
        cells share (bootstrap over deals), or cell a's mean minus ``ref`` (interval over deals)."""
        if (pairing, c) not in self._effects:
            self._effects[pairing, c] = self._effect(pairing, c)
        return self._effects[pairing, c]

    def _effect(self, pairing: str, c: Conclusion) -> Estimate:
        M = self.M.get(pairing)
        if M is None or c.metric not in M.columns:
            return _nan_estimate()
        fa = M.filter(pl.col("cell") == c.a)
        if c.b is None:
            fa = fa.drop_nulls(c.metric)
            if fa.height == 0:
                return _nan_estimate()
            e = cluster_mean_ci(fa[c.metric].to_numpy(), deal_ids(fa))
            return Estimate(e.value - c.ref, e.low - c.ref, e.high - c.ref, e.n)
        return paired_test(fa, M.filter(pl.col("cell") == c.b), pl.col(c.metric))["estimate"]

    def verdicts(self, conclusions: Iterable[Conclusion], alpha: float = 0.05) -> pd.DataFrame:
        """Each conclusion's effect under each pairing and its verdict (``classify_all``: one Holm
        correction over all the conclusions given)."""
        conclusions = list(conclusions)
        effs = [{p: self.effect(p, c) for p in PAIRINGS} for c in conclusions]
        marks = classify_all([(e, c.sign, c.margin) for e, c in zip(effs, conclusions)], PAIRINGS, alpha)
        rows = []
        for c, eff, v in zip(conclusions, effs, marks):
            worst = max(v["tests"].items(), key=lambda kv: abs(kv[1]["d"]), default=None)
            rows.append({"conclusion": c.text, "metric": c.metric, "claimed": "> 0" if c.sign > 0 else "< 0",
                         "margin": f"±{c.margin:g}", "first tested on seed": c.seed,
                         **{pairing_label(p): _fmt_effect(eff[p]) for p in PAIRINGS},
                         "largest interaction (SE)": (f"{worst[0]}: {worst[1]['d']:+.3f} ({worst[1]['se']:.3f})"
                                                      if worst else "n/a"),
                         "robust: p (Holm)": round(v["p_robust_holm"], 4) if math.isfinite(v["p_robust_holm"]) else None,
                         "deals per cell needed (80% power)": f"{v['n_needed']:,}" if v["n_needed"] is not None else "n/a",
                         "verdict": v["mark"], "detail": v["detail"],
                         "_effects": eff})
        return pd.DataFrame(rows)

    def show_verdicts(self, conclusions: Iterable[Conclusion]) -> pd.DataFrame:
        """``verdicts`` as the notebook shows it, with the rule stated (quick mode: marked as such)."""
        from IPython.display import Markdown, display

        conclusions = list(conclusions)
        t = self.verdicts(conclusions)
        n = ", ".join(f"{pairing_label(p)} {self.n(p):,}" for p in self.pairings)
        display(Markdown(
            f"**Robust, policy-dependent or undecided** (deals per cell: {n}). Each conclusion's effect under a "
            "pairing is a paired difference over the deals the cells share (95% bootstrap interval over deals), or "
            "one cell against a reference value. Its **rule x policy interaction** under a pairing is that effect "
            "minus the pooled (inverse-variance) effect of the other two, with the SE of the difference. A "
            "conclusion is **robust** when the pooled effect lies on the claimed side and every interaction lies "
            "within ±margin (TOST; the margin, the smallest interaction that matters, is stated in the notebook's "
            "claims file before the run); **policy-dependent** when an interaction differs from 0; otherwise "
            "**undecided (n too small)**, with the deals per cell that would detect an interaction of the margin's "
            f"size (80% power, two-sided 5%). One Holm correction over all {len(conclusions) * (len(PAIRINGS) + 1)} "
            "p-values behind this notebook's marks (per conclusion: its robust test and one interaction test per "
            "pairing)."
            + ("\n\n*Quick mode: a handful of deals, so nearly every conclusion reads undecided here; the "
               "marks mean something only at full scale (`make notebooks`).*" if QUICK else "")))
        display(Markdown(MARKS_HEAD + "\n\n" + marks_markdown(t)))
        return t.drop(columns=["_effects"])

    def figure(self, cells: Mapping[str, str], keys: Iterable[tuple[str, str, float]],
               conclusions: Iterable[Conclusion] = (), title: str = ""):
        """One figure that puts the pairings next to each other: a panel per headline figure (``keys``:
        (key, axis label, scale)), the cells along x and the three pairings side by side with 95%
        intervals; and, with ``conclusions``, a last panel with each conclusion's effect under each
        pairing in the claimed direction, scaled by the largest |effect| of the three (0 = no effect;
        an interval wholly right of 0 is significant in the claimed direction)."""
        import matplotlib.pyplot as plt

        keys, conclusions = list(keys), list(conclusions)
        npan = len(keys) + (1 if conclusions else 0)
        fig, axes = plt.subplots(1, npan, figsize=(4.2 * npan, 4.4), squeeze=False)
        axes = axes[0]
        x = np.arange(len(cells))
        w = 0.22
        for ax, (key, ylabel, scale) in zip(axes, keys):
            d = self.frame(cells, key)
            for j, p in enumerate(self.pairings):
                part = d[d.pairing == p]
                errorbar(ax, x + (j - 1) * w, part, key, scale=scale, color=PAIRING_COLORS[p],
                         label=f"{pairing_label(p)} (n = {self.n(p):,})")
            ax.set_xticks(x, list(cells.values()), rotation=30 if len(cells) > 3 else 0, ha="right" if len(cells) > 3 else "center")
            ax.set(ylabel=ylabel)
            ax.grid(alpha=0.3)
        axes[0].legend(fontsize=7)
        if conclusions:
            ax = axes[-1]
            y = np.arange(len(conclusions))[::-1]
            for i, c in enumerate(conclusions):
                eff = {p: self.effect(p, c) for p in self.pairings}
                top = max([abs(e.value) for e in eff.values() if e.n and math.isfinite(e.value)] or [1.0]) or 1.0
                for j, p in enumerate(self.pairings):
                    e = eff[p]
                    if not e.n or not math.isfinite(e.value):
                        continue
                    v, lo, hi = (c.sign * np.array([e.value, e.low, e.high]) / top)
                    lo, hi = min(lo, hi), max(lo, hi)
                    ax.errorbar([v], [y[i] + (1 - j) * 0.22], xerr=[[max(v - lo, 0)], [max(hi - v, 0)]], fmt="o",
                                color=PAIRING_COLORS[p], capsize=2)
            ax.axvline(0, color="grey", ls="--", lw=1)
            ax.set_yticks(y, [textwrap_short(c.text) for c in conclusions], fontsize=7)
            ax.yaxis.tick_right()
            ax.set(xlabel="effect in the claimed direction\n(scaled by the largest of the three)",
                   title="Conclusions under each pairing")
            ax.set_xlim(-2.5, 2.5)
            ax.grid(alpha=0.3)
        fig.suptitle(title + ("; " if title else "") + "95% intervals over deals; n = deals per cell "
                     f"(search: {SEARCH_POLICY})")
        fig.tight_layout()
        return fig


def marks_markdown(verdicts: pd.DataFrame) -> str:
    """The verdicts as the bullet list docs/findings.md carries: each conclusion, its mark and why (the
    pooled effect, the interactions, or the deals per cell needed; n = deals per cell)."""
    out = []
    for r in verdicts.itertuples(index=False):
        d = dict(zip(verdicts.columns, r))
        line = f"- {d['conclusion']}: **{d['verdict']}**"
        if d.get("detail"):
            line += f" ({d['detail']})"
        out.append(line + ("" if not QUICK else " *(quick run)*"))
    return "\n".join(out)


def textwrap_short(text: str, width: int = 34) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width)[:3])


# --- the marks into docs/findings.md ---------------------------------------------------------------

MARKS_HEAD = "For `docs/findings.md`:"


def notebook_marks(path: str | Path) -> str | None:
    """The marks list an executed notebook printed (``show_verdicts``), or None if it has none."""
    import json

    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    for cell in nb.get("cells", []):
        for o in cell.get("outputs", []):
            text = "".join(o.get("data", {}).get("text/markdown", ""))
            if text.startswith(MARKS_HEAD):
                return text[len(MARKS_HEAD):].strip()
    return None


def write_marks(findings: str | Path, notebooks: Iterable[str | Path], note: str = "") -> list[str]:
    """Replace each ``<!-- marks NN -->`` ... ``<!-- /marks NN -->`` block of ``findings`` with the
    marks notebook NN printed (after ``note``, one line); returns the notebooks written."""
    import re

    f = Path(findings)
    text = f.read_text(encoding="utf-8")
    done = []
    for nbp in notebooks:
        num = Path(nbp).name[:2]
        marks = notebook_marks(nbp)
        pat = re.compile(rf"(<!-- marks {num} -->\n).*?(<!-- /marks {num} -->)", re.S)
        if marks is None or not pat.search(text):
            continue
        body = (note + "\n\n" if note else "") + marks + "\n"
        text = pat.sub(lambda m: m.group(1) + body + m.group(2), text)
        done.append(num)
    f.write_text(text, encoding="utf-8")
    return done


# Each notebook's own root seed, from its claims file (agreement between notebooks is then a replication,
# not a copy); its second seed, for the replication, is the root seed + REPLICATION.
SEEDS = {f.number: f.root_seed for f in claims_files()}

__all__ = ["SEARCH_POLICY", "PAIRINGS", "PAIRING_COLORS", "ROBUST", "DEPENDENT", "UNDECIDED", "classify_all",
           "interaction_tests", "ClaimsFile", "read_claims", "load_claims", "claim_hash", "claims_files", "read_registry",
           "registry_problems", "CLAIMS_DIR", "replication_test", "replication_summary", "REPLICATES", "NOT_SHOWN",
           "DIFFERS", "NOT_TESTED", "pairing_policies", "pairing_label",
           "pairing_matches", "run_pairings", "merge_pairings", "SEARCH_MATCHES", "Conclusion", "classify", "Pairings", "marks_markdown", "notebook_marks", "write_marks", "differences", "difference_plot", "SEEDS", "REPLICATION", "DURATION_FRACTIONS", "per_match", "Claims", "replication_table",
           "seconds_per_trick_at", "clock_band", "band_range", "draw_band", "QUICK", "JOBS", "ROOT", "RESULTS", "VARIANT_IDS", "COLORS", "run_sweep", "run_design", "read_spec", "to_toml", "frames",
           "equal_pairs_once", "summary", "match_share", "hand_shares", "champion_shares", "parse_cell", "with_cell_keys", "est", "conclude", "errorbar", "band", "plain_log_ticks"]


if __name__ == "__main__":  # python notebooks/_common.py marks docs/findings.md notebooks/0*.ipynb | check-claims
    import sys

    if sys.argv[1:2] == ["check-claims"]:  # before a full run: every claim registered, none changed on an old seed
        bad = registry_problems(claims_files(), read_registry())
        if bad:
            sys.exit("the claims files and notebooks/claims/registry.toml disagree (notebooks/claims/README.md):\n"
                     + "\n".join(f"  {b}" for b in bad))
        print(f"claims: {sum(len(f.claims) for f in claims_files())} claims in {len(claims_files())} files, all registered; "
              "root seeds " + ", ".join(f"{n} {s}" for n, s in SEEDS.items()))
        sys.exit(0)
    if len(sys.argv) < 4 or sys.argv[1] != "marks":
        sys.exit("usage: python notebooks/_common.py marks docs/findings.md NOTEBOOK.ipynb... [--note TEXT]\n"
                 "       python notebooks/_common.py check-claims")
    args = sys.argv[2:]
    note = ""
    if "--note" in args:
        i = args.index("--note")
        note, args = args[i + 1], args[:i] + args[i + 2:]
    print("marks written for notebooks", ", ".join(write_marks(args[0], args[1:], note)) or "none")
