"""The manifest of a run: what was run, its identity, and which chunks are done (docs/results.md).

A run's *identity* (kind, seed, duplicate, chunk size, and each cell's rules hash, policies and
matches) decides whether a folder may be resumed: running again with the same identity plays only
the chunks the manifest marks missing (after checking every done chunk's parts, their checksums
included, and playing a damaged one again);
any other identity is refused with the differences named.
"""

from __future__ import annotations

import datetime as _dt
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine.names import pair_text
from ..errors import SimsuiteError
from ..rules.variant import load_variant
from . import results as R
from .results import json_hash

if TYPE_CHECKING:
    from .spec import Cell, Plan


# --- identity of a run ----------------------------------------------------------------------------


def identity_of(kind: str, cells: list[Cell], seed: int, duplicate: bool, chunk: int) -> dict:
    return {
        "kind": kind,
        "seed": seed,
        "duplicate": duplicate,
        "chunk_size": chunk,
        "cells": [
            {
                "id": c.id,
                "variant": c.variant.id,
                "rules_hash": c.variant.rules_hash,
                "policies": pair_text(c.policies),
                "matches": c.matches,
            }
            for c in cells
        ],
    }


def _identity_diff(there: dict, here: dict) -> str:
    diffs = []
    for key in ("kind", "seed", "duplicate", "chunk_size"):
        if there.get(key) != here.get(key):
            diffs.append(f"{key} {there.get(key)!r} there, {here.get(key)!r} here")
    a, b = there.get("cells") or [], here.get("cells") or []
    ids_a, ids_b = [c.get("id") for c in a], [c.get("id") for c in b]
    if ids_a != ids_b:
        diffs.append(
            f"cells {', '.join(map(str, ids_a[:4]))}{' …' if len(ids_a) > 4 else ''} there, "
            f"{', '.join(ids_b[:4])}{' …' if len(ids_b) > 4 else ''} here"
        )
    else:
        for ca, cb in zip(a, b):
            for key in ("rules_hash", "policies", "matches"):
                if ca.get(key) != cb.get(key):
                    what = "rules" if key == "rules_hash" else key
                    diffs.append(f"{ca['id']}: {what} {ca.get(key)!r} there, {cb.get(key)!r} here")
            if len(diffs) >= 3:
                break
    return "; ".join(diffs[:3]) or "a different manifest"


# --- the manifest ---------------------------------------------------------------------------------


def chunk_list(plan: Plan) -> list[dict]:
    """Chunk ``c`` of cell ``k`` covers matches ``[c*size, min((c+1)*size, matches))``."""
    out = []
    for k, cell in enumerate(plan.cells):
        for c in range(math.ceil(cell.matches / plan.chunk)):
            start = c * plan.chunk
            stop = min(start + plan.chunk, cell.matches)
            out.append({"id": f"{k:04d}-{c:06d}", "cell": cell.id, "start": start, "stop": stop, "status": R.MISSING})
    return out


def utc_now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("simsuite")
    except PackageNotFoundError:
        return "unknown"


def _new_manifest(plan: Plan, identity: dict) -> dict:
    bases: dict[str, dict] = {}
    for c in plan.cells:
        if c.given not in bases:
            b = load_variant(c.given)
            bases[c.given] = {"id": b.id, "given": c.given, "rules_hash": b.rules_hash, "version": b.version}
    return {
        "format": R.FORMAT,
        "kind": plan.kind,
        "run": plan.out.resolve().name,
        "command": plan.command,
        "package_version": package_version(),
        "variants": list(bases.values()),
        "overrides": plan.extra.get("overrides", {}) if plan.kind == "simulate" else None,
        "policies": sorted({pair_text(c.policies) for c in plan.cells}),
        "seed": plan.seed,
        "duplicate": plan.duplicate,
        "chunk_size": plan.chunk,
        "cells": [
            {
                "id": c.id,
                "variant": c.variant.id,
                "given": c.given,
                "rules_hash": c.variant.rules_hash,
                "version": c.variant.version,
                "overrides": c.overrides,
                "policies": pair_text(c.policies),
                "matches": c.matches,
                "decks": c.variant.decks,
            }
            for c in plan.cells
        ],
        "sweep": plan.extra.get("spec") if plan.kind == "sweep" else None,
        "matches_from_hands": plan.extra.get("matches_from_hands"),
        "identity": identity,
        "identity_hash": json_hash(identity)[:16],
        "started": utc_now(),
        "ended": None,
        "status": "running",
        "sessions": [],
        "chunks": chunk_list(plan),
    }


def _replay_damaged(out: Path, manifest: dict, quiet: bool) -> None:
    """Resume counts a chunk as done only if both its parts are whole (size, Parquet footer,
    columns, tag and rows) and match their recorded checksums, or, where the manifest predates
    checksums, decode in full (their checksums are then recorded); any other is marked missing,
    named on stderr, and played again."""
    bad = R.damaged_parts(out, manifest, decode_unchecked=True)
    chunk_of = {R.part_path(out, k, c["id"]): c for c in manifest["chunks"] for k in R.KINDS}
    for path, problem in bad:
        chunk_of[path]["status"] = R.MISSING
        if not quiet:
            print(f"{path}: {problem}; playing chunk {chunk_of[path]['id']} again", file=sys.stderr)


def prepare_store(plan: Plan, identity: dict, quiet: bool = False) -> dict:
    """Create the run folder, or reopen it for a resume; refuse a folder of a different run."""
    out = plan.out
    if (out / R.MANIFEST).is_file():
        manifest = R.read_manifest(out)
        if manifest.get("identity") != identity:
            raise SimsuiteError(
                f"{out} holds a different run ({_identity_diff(manifest['identity'], identity)}); "
                "choose another --out or delete it"
            )
        _replay_damaged(out, manifest, quiet)
        R.remove_stale(out, {c["id"] for c in manifest["chunks"] if c["status"] == R.DONE})
        return manifest
    try:
        out.mkdir(parents=True, exist_ok=True)
        for k in R.KINDS:
            (out / k).mkdir(exist_ok=True)
    except OSError as exc:
        raise SimsuiteError(f"--out {out}: cannot create it: {exc}") from None
    manifest = _new_manifest(plan, identity)
    R.write_manifest(out, manifest)
    return manifest
