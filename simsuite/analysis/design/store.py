"""The design folder: its spec copy, the runs of its rounds and confirmation, and the stored result."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import polars as pl

from ...engine.names import pair_text
from ...errors import SimsuiteError, as_id, toml_value
from ...sim.spec import check_out
from .judge import binding
from .spec import DesignSpec, ParamSet

SPEC_COPY = "design-spec.toml"
RESULT = "design.json"
TEXT = "design.txt"
VARIANT_FILE = "recommended.toml"
RUNS = "runs"
# design.json's layout: a stored result of another layout is computed again from its runs (kept)
RESULT_FORMAT = 2


def pairing_slug(pair: tuple[str, str]) -> str:
    """A pairing as a folder name ("expert-basic")."""
    return "-".join(pair).replace("/", "_").replace(":", "_").replace(".", "_")


def run_dir(out: Path, r: int, pair: tuple[str, str]) -> Path:
    """The results folder of round r under a pairing."""
    return out / RUNS / f"round{r}-{pairing_slug(pair)}"


def confirm_dir(out: Path, i: int, pair: tuple[str, str]) -> Path:
    """The results folder of the i-th confirmation under a pairing."""
    return out / RUNS / f"confirm{i}-{pairing_slug(pair)}"


def prepare_out(spec: DesignSpec, out: Path) -> None:
    """A new folder, or one that holds this same design (then it resumes); refuse anything else."""
    if out.exists() and out.is_dir() and any(out.iterdir()):
        copy = out / SPEC_COPY
        if not copy.is_file():
            raise SimsuiteError(
                f"--out {out}: the folder exists and is not a simsuite design (no {SPEC_COPY}); "
                "choose another --out or delete it"
            )
        there = json.loads((out / "design-spec.json").read_text()) if (out / "design-spec.json").is_file() else None
        if there != json.loads(json.dumps(spec.raw, default=str)):
            raise SimsuiteError(
                f"--out {out} holds a different design (its {SPEC_COPY} differs from {spec.path}); "
                "choose another --out or delete it"
            )
        return
    check_out(out)  # a file, or a folder that cannot be written or created
    try:
        out.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(spec.path, out / SPEC_COPY)
        (out / "design-spec.json").write_text(json.dumps(spec.raw, default=str, sort_keys=True))
    except OSError as exc:
        raise SimsuiteError(f"--out {out}: cannot create it: {exc}") from None


def load_played(
    out: Path, spec: DesignSpec, rounds: int, where=None, cache: dict | None = None
) -> dict[tuple[str, tuple[str, str]], tuple]:
    """Every played cell's hands and matches under each pairing, all rounds together (``where``:
    the folders of (round, pairing), default the rounds'). ``cache``: the folders read already, by
    path (a round's folder is complete once played, so each is read once a design)."""
    from ...sim.results import load

    where = where or (lambda r, pair: run_dir(out, r, pair))
    cache = {} if cache is None else cache
    frames: dict[tuple[str, tuple[str, str]], list] = {}
    for r in range(rounds):
        for pair in spec.pairings:
            d = where(r, pair)
            if d not in cache:
                if not (d / "manifest.json").is_file():
                    continue
                res = load(d)
                h, m = res.hands.collect(), res.matches.collect()
                cache[d] = [
                    (cid, h.filter(pl.col("cell") == cid), m.filter(pl.col("cell") == cid))
                    for cid in m["cell"].unique().to_list()
                ]
            for cid, hc, mc in cache[d]:
                frames.setdefault((cid, pair), []).append((hc, mc))
    return {
        k: (pl.concat([a for a, _ in v], how="vertical_relaxed"), pl.concat([b for _, b in v], how="vertical_relaxed"))
        for k, v in frames.items()
    }


def finished(out: Path, spec: DesignSpec, wording=None) -> dict | None:
    """The stored result of this very design when it finished and every run it played is complete
    (its sentence worded again by ``wording``, as ``design.design`` takes it, when given)."""
    from ...sim.results import read_manifest

    if not (out / RESULT).is_file():
        return None
    try:
        res = load_design(out)
        if res.get("spec_hash") != spec.hash or res.get("format") != RESULT_FORMAT:
            return None
        for rd in res["rounds"]:
            for pair in spec.pairings:
                if (
                    rd["cells"].get(pair_text(pair))
                    and read_manifest(run_dir(out, rd["round"], pair)).get("status") != "complete"
                ):
                    return None
        for i, t in enumerate(res["confirmation"]["tried"]):
            for pair in spec.pairings:
                if read_manifest(confirm_dir(out, i, pair)).get("status") != "complete":
                    return None
        if res["recommended"] is None and res.get(
            "binding"
        ):  # the wording follows the code, the numbers the stored run
            res["binding"] = binding(res["goals"], {s["id"]: s for s in res["sets"]})
        if wording is not None:
            res["sentence"] = wording.sentence(res)
    except (SimsuiteError, KeyError, TypeError):
        return None
    return res


def confirmation_lines(confirmation: dict | None, check: dict | None) -> list[str]:
    """The comment lines of ``recommended.toml`` that say what was confirmed: each goal confirmed,
    its one-sided bound on the fresh deals and the level; and the independent check's seed and
    commands."""
    t = next((t for t in (confirmation or {}).get("tried", []) if t["confirmed"]), None)
    lines = []
    if t is not None:
        lines.append(
            f"# Confirmed on fresh deals (seed {t['seed']}; {t['matches']:,} matches under each goal's primary "
            f"pairing) at one-sided level {t['alpha']:.4g} (confidence {100 * (1 - t['alpha']):.2f}%; the "
            f"confirmation's alpha {confirmation['alpha']:g} split over at most {confirmation['max_tries']} "
            "candidates):"
        )
        for g in t["goals"]:
            if g["primary"]:
                f = g["figure"] or {}
                lines.append(
                    f"#   {g['goal']} under {g['pairing']}: {g['status']} (estimate {f.get('value', float('nan')):.4g}, "
                    f"one-sided bound {g['bound']:.4g}, n = {f.get('n', 0):,} deals)"
                )
    if check and check.get("commands"):
        lines.append(
            f"# An independent check: seed {check['seed']} ({check['seed_rule']}) shares no deal with the design's "
            "rounds or confirmation, e.g."
        )
        lines += [f"#   {c}" for c in check["commands"].values()]
    return ["".join(c if c.isprintable() else " " for c in line) for line in lines]


def variant_toml(s: ParamSet, spec: DesignSpec, confirmation: dict | None = None, check: dict | None = None) -> str:
    """The recommended rules as a variant file: the whole variant, every field, loadable by every
    command (``--variant recommended.toml``). Each section's ``[cite.<section>]`` keeps the base
    variant's citations, and marks each field the design chose with ``default = "chosen by simsuite
    design: <goals>"`` (docs/variants.md). With the design's ``confirmation`` and ``check``, comment
    lines say which goals were confirmed, at what level, and how to check it independently."""
    v = s.variant
    about = (
        f"The rules simsuite design recommends for {spec.path}: {spec.base} with "
        + ", ".join(f"{k}={val}" for k, val in s.params.items())
        + "."
    )
    t = next((t for t in (confirmation or {}).get("tried", []) if t["confirmed"]), None)
    chosen = {
        "default": f"chosen by simsuite design from {spec.base}, for the goals "
        + "; ".join(g.text() for g in spec.goals)
        + (
            f" (confirmed on fresh deals, seed {t['seed']}, at one-sided level {t['alpha']:.4g})"
            if t is not None
            else ""
        )
    }
    lines = [
        "# " + "".join(c if c.isprintable() else " " for c in about),  # one comment line, whatever a path holds
        f"# Written by simsuite design; use it with --variant {VARIANT_FILE}.",
        *confirmation_lines(confirmation, check),
        "",
        f"id = {toml_value(as_id('design-' + Path(spec.path).stem))}",
    ]  # an id every command loads
    for section, fields in v.to_toml_dict().items():
        lines += ["", f"[{section}]"]
        cites = {}
        for k, val in fields.items():
            lines.append(f"{k} = {toml_value(val)}")
            citation = v.citations.get(k)
            if k in s.params:
                cites[k] = chosen
            elif citation is not None:
                cites[k] = citation.as_dict()
        if cites:
            lines += ["", f"[cite.{section}]"] + [f"  {k} = {toml_value(c)}" for k, c in cites.items()]
    return "\n".join(lines) + "\n"


def write_result(out: Path, res: dict, text: str | None) -> None:
    """The result into ``design.json``, ``text`` (what was printed; None: none) into ``design.txt``
    and the recommended rules into ``recommended.toml``."""
    try:
        (out / RESULT).write_text(json.dumps(res, indent=1, default=json_default))
        if text is not None:
            (out / TEXT).write_text(text + "\n")
        if res.get("recommended_variant"):
            (out / VARIANT_FILE).write_text(res["recommended_variant"])
    except OSError as exc:
        raise SimsuiteError(f"cannot write the design's results in {out}: {exc}") from None


def json_default(x):
    """What ``json.dumps`` writes for what it cannot: numpy numbers as numbers, NaN and infinities as null."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    return str(x)


def load_design(path: str | Path) -> dict:
    """A finished design run's result (``design.json``)."""
    p = Path(path) / RESULT
    if not p.is_file():
        raise SimsuiteError(f"{path}: not a finished simsuite design (no {RESULT}); run simsuite design first")
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError) as exc:
        raise SimsuiteError(f"{p}: cannot read it: {exc}") from None
