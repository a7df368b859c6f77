"""The results store: one run is one folder ``results/<run>/`` (docs/results.md).

::

    results/<run>/
        manifest.json               what was run, and which chunks are done
        hands/part-<chunk>.parquet  one row per hand (schema.HAND_SCHEMA)
        matches/part-<chunk>.parquet one row per match (schema.MATCH_SCHEMA)

Every file is written to a temporary name in its own folder and then renamed with
``os.replace``, so a reader (or a resumed run) only ever sees whole files. A chunk counts as
done only once the manifest says so; ``load`` reads the parts of done chunks and nothing else,
so a part left behind by an interrupted run is never counted twice.

``load(path)`` returns a ``Results`` with ``.manifest`` (a dict) and ``.hands`` / ``.matches``
as polars LazyFrames.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from .errors import SimsuiteError
from .schema import HAND_SCHEMA, MATCH_SCHEMA

MANIFEST = "manifest.json"
FORMAT = 1
KINDS = ("hands", "matches")
DONE, MISSING = "done", "missing"
TMP_PREFIX = ".tmp-"


@dataclass
class Results:
    """A run loaded from its folder: the manifest and lazy frames over the done chunks' parts."""

    path: Path
    manifest: dict
    hands: pl.LazyFrame
    matches: pl.LazyFrame

    @property
    def complete(self) -> bool:
        return all(c["status"] == DONE for c in self.manifest["chunks"])

    @property
    def missing_chunks(self) -> list[dict]:
        return [c for c in self.manifest["chunks"] if c["status"] != DONE]

    def variants(self) -> dict:
        """Each cell's rules rebuilt from the manifest (its variant and overrides), by cell id.
        A cell whose variant no longer loads, or whose rules hash changed since the run, is left
        out."""
        from .variant import load_variant

        out = {}
        for cell in self.manifest.get("cells", []):
            try:
                v = load_variant(cell["given"])
                if cell.get("overrides"):
                    v = v.with_overrides(cell["overrides"], source=cell["id"])
            except (SimsuiteError, KeyError, TypeError):
                continue
            if v.rules_hash == cell.get("rules_hash"):
                out[cell["id"]] = v
        return out


def part_path(run: Path, kind: str, chunk_id: str) -> Path:
    return Path(run) / kind / f"part-{chunk_id}.parquet"


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    tmp = path.with_name(f"{TMP_PREFIX}{path.name}.{os.getpid()}")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def write_manifest(run: Path, manifest: dict) -> None:
    """Rewrite ``manifest.json`` atomically."""
    _atomic_write_bytes(Path(run) / MANIFEST, (json.dumps(manifest, indent=1, ensure_ascii=False) + "\n").encode())


def write_part(run: Path, kind: str, chunk_id: str, frame: pl.DataFrame) -> Path:
    """Write one part atomically: a temporary name in the same folder, then ``os.replace``."""
    final = part_path(run, kind, chunk_id)
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = final.with_name(f"{TMP_PREFIX}{final.name}.{os.getpid()}")
    frame.write_parquet(tmp)
    os.replace(tmp, final)
    return final


def remove_stale(run: Path, keep: set[str]) -> None:
    """Delete temporary files and the parts of chunks not in ``keep`` (chunks not done)."""
    for kind in KINDS:
        folder = Path(run) / kind
        if not folder.is_dir():
            continue
        for p in folder.iterdir():
            if p.name.startswith(TMP_PREFIX):
                p.unlink(missing_ok=True)
            elif p.name.startswith("part-") and p.name.endswith(".parquet"):
                if p.name[len("part-"):-len(".parquet")] not in keep:
                    p.unlink(missing_ok=True)


def _label(path: Path) -> str:
    return str(path)


def read_manifest(path: str | Path) -> dict:
    """The manifest of the run in ``path``; a ``SimsuiteError`` when there is none or it is corrupt."""
    run = Path(path)
    if not run.exists():
        raise SimsuiteError(f"{_label(run)}: no such folder")
    if not run.is_dir():
        raise SimsuiteError(f"{_label(run)}: not a folder (a results run is a folder with {MANIFEST})")
    mpath = run / MANIFEST
    if not mpath.is_file():
        raise SimsuiteError(f"{_label(run)}: not a simsuite run (no {MANIFEST})")
    try:
        manifest = json.loads(mpath.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise SimsuiteError(f"{_label(mpath)} is corrupt ({_one_line(exc)}); delete the run or restore the file") from None
    except OSError as exc:
        raise SimsuiteError(f"{_label(mpath)} cannot be read: {_one_line(exc)}") from None
    problem = _manifest_problem(manifest)
    if problem:
        raise SimsuiteError(f"{_label(mpath)} is corrupt ({problem}); delete the run or restore the file")
    return manifest


def _manifest_problem(m: Any) -> str | None:
    if not isinstance(m, dict):
        return "not a JSON object"
    for key, kind in (("format", int), ("identity", dict), ("chunks", list), ("cells", list), ("seed", int)):
        if key not in m:
            return f"no {key!r}"
        if not isinstance(m[key], kind):
            return f"{key!r} is not a {kind.__name__}"
    if m["format"] != FORMAT:
        return f"format {m['format']!r}; this simsuite reads format {FORMAT}"
    for i, c in enumerate(m["chunks"]):
        if not isinstance(c, dict) or not {"id", "cell", "start", "stop", "status"} <= set(c):
            return f"chunk {i} lacks id, cell, start, stop or status"
        if c["status"] not in (DONE, MISSING):
            return f"chunk {c['id']!r} has status {c['status']!r}"
    return None


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def empty_frame(kind: str) -> pl.LazyFrame:
    return pl.LazyFrame(schema=HAND_SCHEMA if kind == "hands" else MATCH_SCHEMA)


def load(path: str | Path) -> Results:
    """Load the run in ``path``: ``.hands`` and ``.matches`` scan the parts of the done chunks."""
    run = Path(path)
    manifest = read_manifest(run)
    done = [c["id"] for c in manifest["chunks"] if c["status"] == DONE]
    frames = {}
    for kind in KINDS:
        files = [part_path(run, kind, cid) for cid in done]
        lost = [f for f in files if not f.is_file()]
        if lost:
            raise SimsuiteError(f"{_label(run)}: {len(lost)} part(s) marked done are missing "
                                f"(first: {lost[0].relative_to(run)}); run the same command again to replay them")
        frames[kind] = pl.scan_parquet([str(f) for f in files]) if files else empty_frame(kind)
    return Results(run, manifest, frames["hands"], frames["matches"])


__all__ = ["Results", "load", "read_manifest", "write_manifest", "write_part", "part_path", "MANIFEST"]
