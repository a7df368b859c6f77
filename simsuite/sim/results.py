"""The results store: one run is one folder ``results/<run>/`` (docs/results.md).

::

    results/<run>/
        manifest.json               what was run, and which chunks are done
        hands/part-<chunk>.parquet  one row per hand (schema.HAND_SCHEMA)
        matches/part-<chunk>.parquet one row per match (schema.MATCH_SCHEMA)

Every file is written to a temporary name in its own folder and then renamed with
``os.replace``, so a reader (or a resumed run) only ever sees whole files. A chunk counts as
done only once the manifest says so, with the SHA-256 of each of its parts; ``load`` checks the
parts of done chunks against the manifest (their checksums included) and reads nothing else, so a
part left behind by an interrupted run is never counted twice and a part changed since it was
written is named, never summarised.

``load(path)`` returns a ``Results`` with ``.manifest`` (a dict) and ``.hands`` / ``.matches``
as polars LazyFrames.
"""

from __future__ import annotations

import datetime as _dt
import errno
import hashlib
import json
import os
import socket
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from ..errors import SimsuiteError
from .schema import HAND_SCHEMA, MATCH_SCHEMA

MANIFEST = "manifest.json"
FORMAT = 1
KINDS = ("hands", "matches")
DONE, MISSING = "done", "missing"
TMP_PREFIX = ".tmp-"
LOCK = "simsuite.lock"  # held by the one run that writes the folder (docs/harness.md, "One writer")
PART_TAG = b"simsuite"  # Parquet key-value metadata of a part: its kind, chunk and run identity
PARQUET_MAGIC = b"PAR1"  # a Parquet file starts and ends with these four bytes
MIN_PARQUET_BYTES = 12  # magic, footer length, magic: anything shorter is truncated
REPAIR_HINT = (
    "run the same command again to replay its chunk (a resume checks every part and plays a damaged one again)"
)
CHECKSUM = "sha256"  # a done chunk's key in the manifest: the SHA-256 of each of its parts, by kind
CHECKSUM_BLOCK = 1 << 20


@dataclass
class Results:
    """A run loaded from its folder: the manifest and lazy frames over the done chunks' parts."""

    path: Path
    manifest: dict
    hands: pl.LazyFrame
    matches: pl.LazyFrame
    unchecked: int = 0  # parts of done chunks with no checksum recorded (a manifest written before checksums)

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
        from ..rules.variant import load_variant

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


def json_hash(obj: Any) -> str:
    """The SHA-256 of ``obj`` as canonical JSON (sorted keys, no spaces): a run's identity hash, which
    tags its manifest and every part it writes, and the suffix of a run's default folder name."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def file_checksum(path: Path) -> str:
    """The SHA-256 of a file's bytes, in hex."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(CHECKSUM_BLOCK):
            h.update(block)
    return h.hexdigest()


def recorded_checksum(chunk: dict, kind: str) -> str | None:
    sums = chunk.get(CHECKSUM)
    value = sums.get(kind) if isinstance(sums, dict) else None
    return value if isinstance(value, str) else None


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


def write_part(run: Path, kind: str, chunk_id: str, frame: pl.DataFrame, identity: str | None = None) -> Path:
    """Write one part atomically: a temporary name in the same folder, then ``os.replace``. The
    part is tagged with its kind, chunk and run identity, so a reader can tell it belongs here."""
    final = part_path(run, kind, chunk_id)
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = final.with_name(f"{TMP_PREFIX}{final.name}.{os.getpid()}")
    tag = json.dumps({"kind": kind, "chunk": chunk_id, "identity": identity})
    frame.write_parquet(tmp, metadata={PART_TAG.decode(): tag})
    os.replace(tmp, final)
    return final


def part_problem(
    path: Path,
    kind: str,
    chunk_id: str,
    identity: str | None,
    rows: int | None = None,
    columns: list[str] | None = None,
) -> str | None:
    """What is wrong with one part, in a few words, or None: missing, empty, truncated (no Parquet
    footer), a foreign file, the other kind's rows, another chunk's or another run's rows, or a
    row count the manifest does not expect. Reads the footer only. ``columns``: the part's columns
    where ``kind`` is not a run's (``hands``, ``matches``), as for a collection's decisions."""
    import pyarrow.parquet as pq

    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            head = fh.read(len(PARQUET_MAGIC))
            fh.seek(max(size - len(PARQUET_MAGIC), 0))
            tail = fh.read(len(PARQUET_MAGIC))
    except FileNotFoundError:
        return "is missing"
    except OSError as exc:
        return f"cannot be read ({_one_line(exc)})"
    if size == 0:
        return "is empty (0 bytes)"
    if head != PARQUET_MAGIC:
        return "is not a Parquet file"
    if size < MIN_PARQUET_BYTES or tail != PARQUET_MAGIC:
        return f"is truncated ({size:,} bytes, no Parquet footer)"
    try:
        meta = pq.read_metadata(path)
        names = meta.schema.to_arrow_schema().names
    except Exception as exc:  # noqa: BLE001 - pyarrow raises several types for a damaged footer
        return f"has a damaged Parquet footer ({_one_line(exc)})"
    return _tag_problem(meta, names, kind, chunk_id, identity, rows, columns)


def _tag_problem(
    meta,
    names: list[str],
    kind: str,
    chunk_id: str,
    identity: str | None,
    rows: int | None,
    columns: list[str] | None = None,
) -> str | None:
    other = {"hands": "matches", "matches": "hands"}.get(kind)
    if names != list(columns if columns is not None else SCHEMAS[kind]):
        if other is not None and names == list(SCHEMAS[other]):
            return f"holds {other} rows, not {kind}"
        return f"does not have the {kind} columns"
    raw = (meta.metadata or {}).get(PART_TAG)
    if raw is not None:  # parts written before parts were tagged carry no tag; their columns were checked
        try:
            tag = json.loads(raw)
        except ValueError:
            tag = None
        if not isinstance(tag, dict):
            return "has a damaged simsuite tag"
        if tag.get("chunk") != chunk_id:
            return f"holds chunk {tag.get('chunk')!r}, not {chunk_id}"
        if identity is not None and tag.get("identity") != identity:
            return f"belongs to another run (identity {tag.get('identity')!r}, the manifest's is {identity!r})"
    if rows is not None and meta.num_rows != rows:
        return f"has {meta.num_rows:,} rows; the manifest counts {rows:,}"
    return None


def expected_rows(manifest: dict, chunk: dict, kind: str) -> int | None:
    """Rows the manifest expects in a done chunk's part (None where it does not say)."""
    if kind == "hands":
        rows = chunk.get("hands")
        return rows if isinstance(rows, int) and not isinstance(rows, bool) else None
    return (chunk["stop"] - chunk["start"]) * (2 if manifest.get("duplicate") else 1)


def damaged_parts(run: Path, manifest: dict, decode_unchecked: bool = False) -> list[tuple[Path, str]]:
    """Every part of a done chunk that is missing or damaged, with what is wrong: the footer checks of
    ``part_problem``, then the bytes against the checksum the manifest recorded. A part with no
    checksum recorded (an older manifest) is decoded in full with ``decode_unchecked`` (a resume),
    and its checksum recorded in ``manifest`` if it decodes; otherwise only its footer is checked."""
    bad = []
    identity = manifest.get("identity_hash")
    for c in manifest["chunks"]:
        if c["status"] != DONE:
            continue
        for kind in KINDS:
            path = part_path(run, kind, c["id"])
            problem = part_problem(path, kind, c["id"], identity, expected_rows(manifest, c, kind))
            if problem is None:
                problem = _bytes_problem(path, c, kind, decode_unchecked)
            if problem:
                bad.append((path, problem))
    return bad


def _bytes_problem(path: Path, chunk: dict, kind: str, decode_unchecked: bool) -> str | None:
    want = recorded_checksum(chunk, kind)
    try:
        if want is not None:
            got = file_checksum(path)
            return (
                None
                if got == want
                else ("does not match the checksum recorded when it was written (its bytes changed since)")
            )
        if decode_unchecked:
            import pyarrow.parquet as pq

            try:
                pq.read_table(path)
            except Exception as exc:  # noqa: BLE001 - any decoding failure names the part
                return f"cannot be decoded ({_one_line(exc)[:200]})"
            sums = chunk.get(CHECKSUM) if isinstance(chunk.get(CHECKSUM), dict) else {}
            chunk[CHECKSUM] = {**sums, kind: file_checksum(path)}
    except OSError as exc:
        return f"cannot be read ({_one_line(exc)})"
    return None


def unchecked_parts(manifest: dict) -> int:
    """Parts of done chunks for which the manifest records no checksum."""
    return sum(1 for c in manifest["chunks"] if c["status"] == DONE for k in KINDS if recorded_checksum(c, k) is None)


def damage_message(run: Path, bad: list[tuple[Path, str]]) -> str:
    path, problem = bad[0]
    more = f" ({len(bad) - 1} more damaged part(s) in {run})" if len(bad) > 1 else ""
    return f"{path}: {problem}; {REPAIR_HINT}{more}"


def unreadable_message(run: str | Path, exc: BaseException) -> str:
    """One line for a read that failed after the footers passed: the first part that does not
    decode in full, or the error itself if every part decodes."""
    import pyarrow.parquet as pq

    run = Path(run)
    for kind in KINDS:
        for path in sorted((run / kind).glob("part-*.parquet")):
            try:
                pq.read_table(path)
            except Exception as bad:  # noqa: BLE001 - any decoding failure names the part
                return f"{path}: cannot be decoded ({_one_line(bad)[:200]}); {REPAIR_HINT}"
    return f"{run}: its parts cannot be read ({_one_line(exc)[:200]})"


# --- one writer per folder ------------------------------------------------------------------------


class RunLock:
    """An exclusive lock on a results folder: the file ``simsuite.lock`` with the owner's pid,
    host and start time, created atomically (a hard link of a complete temporary file), so two
    runs can never both hold it. A lock whose process is gone (same host) is stale; ``break_lock``
    removes a stale lock, or one held on another host (which cannot be checked from here)."""

    def __init__(self, run: Path, break_lock: bool = False):
        self.path = Path(run) / LOCK
        self.break_lock = break_lock
        self.info = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "token": uuid.uuid4().hex,
            "started": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        }

    def __enter__(self) -> RunLock:
        tmp = self.path.with_name(f"{TMP_PREFIX}lock.{self.info['token']}")
        try:
            tmp.write_text(json.dumps(self.info) + "\n", encoding="utf-8")
            for _ in range(2):  # a second try only after breaking a stale lock
                try:
                    self._create(tmp)
                    return self
                except FileExistsError:
                    self._refuse_or_break()
        except OSError as exc:
            raise SimsuiteError(f"{self.path}: cannot take the folder's lock ({_one_line(exc)})") from None
        finally:
            tmp.unlink(missing_ok=True)
        raise SimsuiteError(f"{self.path.parent}: another run took the lock just now; try again")

    def _create(self, tmp: Path) -> None:
        """Create the lock file whole or not at all; FileExistsError if it exists."""
        try:
            os.link(tmp, self.path)
        except FileExistsError:
            raise
        except OSError:  # a file system without hard links: exclusive create, then the content
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(tmp.read_text(encoding="utf-8"))

    def _refuse_or_break(self) -> None:
        holder = read_lock(self.path)
        state = lock_state(holder)
        if self.break_lock and state != "alive":
            self.path.unlink(missing_ok=True)
            return
        who = (
            f"pid {holder.get('pid')} on {holder.get('host')}, since {holder.get('started')}"
            if holder
            else "an unreadable lock file"
        )
        run = self.path.parent
        if state == "alive":
            raise SimsuiteError(
                f"{run} is being written by another run ({who}); wait for it to end or choose another --out"
            )
        if state == "stale":
            raise SimsuiteError(
                f"{run} has a stale lock ({who}: that process is gone); if no other run writes "
                "here, run the same command again with --break-lock"
            )
        raise SimsuiteError(
            f"{run} is locked by a run on another machine ({who}); if that run is over, run the "
            "same command again with --break-lock"
        )

    def __exit__(self, *exc) -> None:
        if (read_lock(self.path) or {}).get("token") == self.info["token"]:
            self.path.unlink(missing_ok=True)


def read_lock(path: Path) -> dict | None:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def lock_state(holder: dict | None) -> str:
    """ "alive", "stale" (its process is gone, or the file is unreadable) or "remote" (another host)."""
    if holder is None or not isinstance(holder.get("pid"), int):
        return "stale"
    if holder.get("host") != socket.gethostname():
        return "remote"
    try:
        os.kill(holder["pid"], 0)
    except ProcessLookupError:
        return "stale"
    except PermissionError:  # someone else's process: alive
        return "alive"
    return "alive"


def remove_stale(run: Path, keep: set[str]) -> None:
    """Delete temporary files and the parts of chunks not in ``keep`` (chunks not done)."""
    for p in Path(run).glob(f"{TMP_PREFIX}lock.*"):
        p.unlink(missing_ok=True)
    for kind in KINDS:
        folder = Path(run) / kind
        if not folder.is_dir():
            continue
        for p in folder.iterdir():
            if p.name.startswith(TMP_PREFIX):
                p.unlink(missing_ok=True)
            elif p.name.startswith("part-") and p.name.endswith(".parquet"):
                if p.name[len("part-") : -len(".parquet")] not in keep:
                    p.unlink(missing_ok=True)


def _label(path: Path) -> str:
    return str(path)


def link_problem(path: Path) -> str | None:
    """Where ``path`` or a folder above it is a symbolic link that leads nowhere: a loop, or a link to
    nothing. ``Path.exists`` says only "no" to both."""
    loop = None
    for p in (Path(path), *Path(path).parents):
        try:
            os.stat(p)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                loop = p  # the loop is the highest path that still loops
                continue
            if loop is None and p.is_symlink():
                return f"{p} is a symbolic link to {os.readlink(p)}, which does not exist"
            if loop is None:
                continue
        break  # the rest is reached through a folder that exists
    return f"{loop} is a symbolic link loop (it leads back to itself)" if loop is not None else None


def read_manifest(path: str | Path) -> dict:
    """The manifest of the run in ``path``; a ``SimsuiteError`` when there is none or it is corrupt."""
    run = Path(path)
    loop = link_problem(run)
    if loop:
        raise SimsuiteError(f"{_label(run)}: cannot be read: {loop}")
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
        raise SimsuiteError(
            f"{_label(mpath)} is corrupt ({_one_line(exc)}); delete the run or restore the file"
        ) from None
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
    cells = set()
    for i, c in enumerate(m["cells"]):
        if not isinstance(c, dict) or not isinstance(c.get("id"), str):
            return f"cell {i} has no id"
        if not isinstance(c.get("given", ""), str) or not isinstance(c.get("overrides") or {}, dict):
            return f"cell {c['id']!r} has a given that is not a variant id or path, or overrides that are not a table"
        cells.add(c["id"])
    for i, c in enumerate(m["chunks"]):
        problem = _chunk_problem(c, cells)
        if problem:
            return f"chunk {i} {problem}"
    return None


def _is_count(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def _chunk_problem(c: Any, cells: set[str]) -> str | None:
    if not isinstance(c, dict) or not {"id", "cell", "start", "stop", "status"} <= set(c):
        return "lacks id, cell, start, stop or status"
    if not isinstance(c["id"], str) or not c["id"] or "/" in c["id"] or not c["id"].isprintable():
        return f"has id {c['id']!r}"  # the id names a file: no folders, no line breaks in its messages
    if not isinstance(c["cell"], str) or c["cell"] not in cells:
        return f"names cell {c['cell']!r}, which the manifest does not list"
    if not (_is_count(c["start"]) and _is_count(c["stop"]) and c["start"] < c["stop"]):
        return f"has start {c['start']!r} and stop {c['stop']!r}; they must be whole numbers, start below stop"
    if c["status"] not in (DONE, MISSING):
        return f"has status {c['status']!r}"
    return None


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


SCHEMAS = {"hands": HAND_SCHEMA, "matches": MATCH_SCHEMA}


def progress_of(manifest: dict) -> dict:
    """How far a run got: matches ``done`` of ``planned`` in all, and per cell (``cells``: id, done,
    planned, in the manifest's order), with the command that resumes it (None where not recorded)."""
    cells: dict[str, list[int]] = {c["id"]: [0, 0] for c in manifest["cells"]}
    for c in manifest["chunks"]:
        n = c["stop"] - c["start"]
        counts = cells.setdefault(c["cell"], [0, 0])
        counts[1] += n
        counts[0] += n if c["status"] == DONE else 0
    command = manifest.get("command")
    ok = isinstance(command, list) and command and all(isinstance(a, str) for a in command)
    return {
        "done": sum(d for d, _ in cells.values()),
        "planned": sum(p for _, p in cells.values()),
        "cells": [{"id": k, "done": d, "planned": p} for k, (d, p) in cells.items()],
        "command": list(command) if ok else None,
    }


def empty_frame(kind: str) -> pl.LazyFrame:
    return pl.LazyFrame(schema=SCHEMAS[kind])


def load(path: str | Path) -> Results:
    """Load the run in ``path``: ``.hands`` and ``.matches`` scan the parts of the done chunks, each
    checked first (``damaged_parts``)."""
    run = Path(path)
    manifest = read_manifest(run)
    done = [c["id"] for c in manifest["chunks"] if c["status"] == DONE]
    bad = damaged_parts(run, manifest)
    if bad:
        raise SimsuiteError(damage_message(run, bad))
    frames = {}
    for kind in KINDS:
        files = [part_path(run, kind, cid) for cid in done]
        frames[kind] = pl.scan_parquet([str(f) for f in files]) if files else empty_frame(kind)
    return Results(run, manifest, frames["hands"], frames["matches"], unchecked_parts(manifest))


__all__ = [
    "Results",
    "load",
    "read_manifest",
    "write_manifest",
    "write_part",
    "part_path",
    "file_checksum",
    "progress_of",
    "MANIFEST",
]
