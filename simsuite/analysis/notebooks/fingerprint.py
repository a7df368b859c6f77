"""Notebook fingerprints: what made a notebook's saved outputs, so that stale outputs are found, not trusted.

A notebook shows its fingerprint as it runs (``show_fingerprint``, through ``notebooks/_common.py``'s
``fingerprint_cell``): SHA-256 hashes of the code its numbers come from, of the shipped model, of its claims
file, and its root seed and mode. The output is saved in the ``.ipynb`` with the rest (a custom MIME type, which
``nbconvert --inplace`` keeps); ``staleness`` reads it back and says, in words, what changed since:

    python notebooks/_common.py stale notebooks/0*.ipynb

prints which notebooks are current and which are stale and why, and exits with 1 when any is stale. The cure
for a stale notebook is ``make notebooks``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NamedTuple

from simsuite.analysis.notebooks.claims import read_claims
from simsuite.errors import SimsuiteError

MIME = "application/vnd.simsuite.fingerprint+json"  # the output that carries the fingerprint


class Part(NamedTuple):
    """Some of the code a notebook's outputs are made from: ``key`` (in ``code_parts``), ``words`` (how a
    message names it) and ``paths`` (relative to the repository root: a folder ending in "/" is taken
    whole, anything else is a glob)."""

    key: str
    words: str
    paths: tuple[str, ...]


# The play-relevant source: every file whose change can change a number or a figure a notebook saved. Files are
# found on disk, not asked of git: a file the engine imports changes play whether or not it is committed yet.
CODE_PARTS = (
    # the game itself: deals, tricks, scoring, and the policies that choose every play
    Part("engine", "the engine code", ("simsuite/engine/",)),
    # what a rule set means: cards, order, legal follows, what each key of a variant file does
    Part("rules", "the rules code", ("simsuite/rules/",)),
    # the harness: runs matches and sweeps, derives each deal's seed, writes the rows the notebooks read back
    Part("sim", "the simulation harness", ("simsuite/sim/",)),
    # tournaments and champions (notebook 05's champion shares); nothing is hashed where the folder is absent
    Part("compete", "the competition code", ("simsuite/compete/",)),
    # the statistics that make the figures: estimates, intervals, the claims' tests, replication, robustness
    Part("analysis", "the statistics code", ("simsuite/analysis/",)),
    # draws the figures
    Part("plots", "the plotting code", ("simsuite/report/plots.py",)),
    # the rule sets the notebooks compare (variants/ is a link to simsuite/variants/)
    Part("variants", "the variant files", ("variants/*.toml",)),
    # the sweeps the notebooks run: their cells and sizes
    Part("sweeps", "the sweep specs", ("examples/sweeps/*.toml",)),
)
# never source: bytecode, numba's caches and compiled extensions are made from the sources above (and differ
# from machine to machine); hidden files and editor backups are read by nothing
SKIP_FOLDERS = ("__pycache__",)
SKIP_SUFFIXES = (".pyc", ".pyo", ".nbi", ".nbc", ".so", ".pyd", "~")

# the model the learned policy (and search, through it) plays: simsuite/engine/policies/model.py's SHIPPED
MODEL_FILE = "simsuite/models/learned.npz"
CLAIMS_FOLDER = "notebooks/claims"  # notebook NN's claims file, NN.toml, holds its root seed

# how a message names the other parts of a fingerprint
WORDS = {"model": "the model", "claims": "the claims file", "seed": "the root seed"}
NEVER = "never run with a fingerprint"
QUICK = "its outputs were made in quick mode (tiny samples)"
CHANGED = " changed"  # a reason that ends so names a part that changed; ``stale_message`` joins them
REMEDY = "re-run it with make notebooks"


def _skipped(name: str) -> bool:
    return name.startswith(".") or name.endswith(SKIP_SUFFIXES)


def _walk(folder: Path) -> Iterable[Path]:
    """Every file under ``folder`` (none if it is absent), but for ``SKIP_FOLDERS`` and skipped names."""
    if not folder.is_dir():
        return
    for p in folder.iterdir():
        if _skipped(p.name) or p.name in SKIP_FOLDERS:
            continue
        if p.is_dir():
            yield from _walk(p)
        elif p.is_file():
            yield p


def _part_files(root: Path, part: Part) -> list[str]:
    found: set[str] = set()
    for pattern in part.paths:
        if pattern.endswith("/"):
            found.update(p.relative_to(root).as_posix() for p in _walk(root / pattern))
        else:
            found.update(p.relative_to(root).as_posix() for p in root.glob(pattern) if p.is_file())
    return sorted(found)


def code_files(root: str | Path) -> dict[str, list[str]]:
    """The files each part of ``CODE_PARTS`` hashes under ``root``: part key -> relative paths, sorted."""
    return {part.key: _part_files(Path(root), part) for part in CODE_PARTS}


def _digest(root: Path, files: Iterable[str]) -> str:
    """SHA-256 over ``files`` in the order given: each one's relative path and length, then its bytes as they
    are (no line endings changed), so that a renamed or moved file changes the hash too."""
    h = hashlib.sha256()
    for rel in files:
        data = (root / rel).read_bytes()
        h.update(f"{rel}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


def _read_bytes(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise SimsuiteError(f"{path}: no such {what}") from None
    except OSError as e:
        raise SimsuiteError(f"{path}: cannot be read: {e}") from None


def fingerprint(number: str, root: str | Path, quick: bool = False) -> dict[str, Any]:
    """What notebook ``number`` ("01") would be made from in the checkout at ``root``: ``code`` (SHA-256 over
    every file of ``CODE_PARTS``, in sorted path order, each path hashed with its bytes), ``code_parts`` (the
    same per part, to say which changed), ``model`` (SHA-256 of ``MODEL_FILE``), ``claims`` (SHA-256 of
    ``notebooks/claims/NN.toml``), ``seed`` (the root seed that file gives) and ``quick``."""
    root = Path(root)
    if not (isinstance(number, str) and len(number) == 2 and number.isdigit()):
        raise SimsuiteError(f"notebook number {number!r}; two digits, such as '01'")
    files = code_files(root)
    claims_path = root / CLAIMS_FOLDER / f"{number}.toml"
    _read_bytes(claims_path, "claims file")  # a missing file named as such, before read_claims opens it
    claims = read_claims(claims_path)
    return {
        "notebook": number,
        "code": _digest(root, sorted({f for fs in files.values() for f in fs})),
        "code_parts": {key: _digest(root, fs) for key, fs in files.items()},
        "model": hashlib.sha256(_read_bytes(root / MODEL_FILE, "model file")).hexdigest(),
        "claims": claims.sha256,
        "seed": claims.root_seed,
        "quick": bool(quick),
    }


def fingerprint_markdown(fp: dict[str, Any]) -> str:
    """The fingerprint in one line, for readers: the first 12 hex digits of each hash."""
    line = (
        f"Made by: code {fp['code'][:12]}…, model {fp['model'][:12]}…, claims {fp['claims'][:12]}…, "
        f"root seed {fp['seed']}"
    )
    return line + (" (quick mode: tiny samples)" if fp.get("quick") else "")


def show_fingerprint(number: str, root: str | Path, quick: bool) -> None:
    """Display notebook ``number``'s fingerprint (``fingerprint``) as one output: the dict under ``MIME``,
    which the saved notebook keeps for ``saved_fingerprint``, and its one-line rendering as markdown."""
    from IPython.display import display

    fp = fingerprint(number, root, quick)
    line = fingerprint_markdown(fp)
    display({MIME: fp, "text/markdown": line, "text/plain": line}, raw=True)


def read_notebook(path: str | Path) -> dict:
    """A saved notebook's JSON (format 4), or a one-line SimsuiteError naming the file and what is wrong."""
    path = Path(path)
    if path.is_dir():
        raise SimsuiteError(f"{path}: is a folder, not a notebook")
    if path.exists() and not path.is_file():
        raise SimsuiteError(f"{path}: not a regular file (a pipe or a device?); a notebook is a file")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SimsuiteError(f"{path}: no such notebook") from None
    except (OSError, UnicodeDecodeError) as e:
        raise SimsuiteError(f"{path}: cannot be read as a notebook: {e}") from None
    try:
        nb = json.loads(text)
    except json.JSONDecodeError as e:
        raise SimsuiteError(f"{path}: not a notebook (not JSON: {e.msg}, line {e.lineno})") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise SimsuiteError(f"{path}: not a Jupyter notebook (JSON without a list of cells)")
    if nb.get("nbformat") != 4:
        raise SimsuiteError(f"{path}: notebook format {nb.get('nbformat')!r}; only format 4 is read")
    return nb


def saved_fingerprint(ipynb_path: str | Path) -> dict[str, Any] | None:
    """The fingerprint saved in a notebook's outputs (the last one, if it shows several), or None if it has
    none. A file that is not a format-4 notebook is refused with a one-line SimsuiteError naming it."""
    path = Path(ipynb_path)
    found = None
    for cell in read_notebook(path)["cells"]:
        for output in cell.get("outputs", []) if isinstance(cell, dict) else []:
            data = output.get("data", {}) if isinstance(output, dict) else {}
            if isinstance(data, dict) and MIME in data:
                found = data[MIME]
    if isinstance(found, str) or (isinstance(found, list) and all(isinstance(t, str) for t in found)):
        try:  # a tool that saved it as text
            found = json.loads("".join(found))
        except json.JSONDecodeError:
            pass
    if found is not None and not isinstance(found, dict):
        raise SimsuiteError(f"{path}: its fingerprint output is not a JSON object")
    return found


def _number(path: Path, saved: dict | None) -> str:
    name = path.name
    if len(name) >= 2 and name[:2].isdigit():
        return name[:2]
    if saved and isinstance(saved.get("notebook"), str):
        return saved["notebook"]
    raise SimsuiteError(f"{path}: no notebook number (the file name starts with two digits, such as 01-...)")


def staleness(ipynb_path: str | Path, root: str | Path) -> list[str]:
    """Why notebook ``ipynb_path``'s saved outputs differ from what the checkout at ``root`` would make, in
    plain words, or [] when they are current: never run with a fingerprint (``NEVER``), made in quick mode
    (``QUICK``), or "<part> changed" for each part that differs (the engine code, the model, the claims file,
    the root seed, ...)."""
    path = Path(ipynb_path)
    saved = saved_fingerprint(path)
    if saved is None:
        return [NEVER]
    number = _number(path, saved)
    current = fingerprint(number, root)
    reasons = []
    if saved.get("notebook") not in (None, number):
        reasons.append(f"its fingerprint is notebook {saved['notebook']}'s")
    if saved.get("quick"):
        reasons.append(QUICK)
    if saved.get("code") != current["code"]:
        was = saved.get("code_parts")
        changed = [
            p.words for p in CODE_PARTS if isinstance(was, dict) and was.get(p.key) != current["code_parts"][p.key]
        ]
        reasons += [w + CHANGED for w in changed or ["the code"]]
    reasons += [WORDS[k] + CHANGED for k in ("model", "claims", "seed") if saved.get(k) != current[k]]
    return reasons


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _shown(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def stale_message(ipynb_path: str | Path, reasons: list[str], root: str | Path | None = None) -> str:
    """One line for a stale notebook: "notebooks/03-....ipynb is stale (the engine code and the model changed
    since its outputs were made): re-run it with make notebooks"; the path relative to ``root`` when inside it."""
    path = Path(ipynb_path)
    changed = [r[: -len(CHANGED)] for r in reasons if r.endswith(CHANGED)]
    said = [r for r in reasons if not r.endswith(CHANGED)]
    if changed:
        said.append(f"{_and(changed)} changed since its outputs were made")
    where = _shown(path, Path(root)) if root is not None else str(path)
    return f"{where} is stale ({'; '.join(said)}): {REMEDY}"


def stale_command(paths: Iterable[str | Path], root: str | Path, out: Callable[[str], Any] = print) -> int:
    """``python notebooks/_common.py stale NOTEBOOK.ipynb...``: the answer first (how many are stale, or that all
    are current), then one line per stale notebook saying why, then the current ones; 1 when any is stale, else
    0. A file that is not a notebook raises SimsuiteError (one line naming it) before anything is printed."""
    paths = [Path(p) for p in paths]
    if not paths:
        raise SimsuiteError("no notebooks given; usage: python notebooks/_common.py stale NOTEBOOK.ipynb...")
    root = Path(root)
    found = [(p, staleness(p, root)) for p in paths]
    stale = [(p, r) for p, r in found if r]
    current = [p.name for p, r in found if not r]
    if not stale:
        out(f"current: all {len(paths)} notebook(s) match the checkout ({', '.join(current)})")
        return 0
    names = ", ".join(p.name for p, _ in stale)
    out(f"stale: {len(stale)} of {len(paths)} notebook(s) ({names}); re-run them with make notebooks")
    for p, r in stale:
        out("  " + stale_message(p, r, root))
    out(f"current: {', '.join(current) if current else 'none'}")
    return 1


# --- the play behind a notebook's results folder -----------------------------------------------------------------

# the parts of CODE_PARTS that decide the cards played (not the statistics or the plots drawn from them): a
# results folder played by other code than these must be played again, not reused
PLAY_PARTS = ("engine", "rules", "sim", "compete", "variants", "sweeps")


def play_stamp(root: str | Path) -> dict[str, str]:
    """What plays the notebooks' matches in the checkout at ``root``: the SHA-256 of each of ``PLAY_PARTS`` and
    of the model. ``simsuite.analysis.notebooks.runs`` writes it beside each results folder it plays, and
    refuses to reuse a folder played by other code (``play_changes``)."""
    root = Path(root)
    files = code_files(root)
    stamp = {key: _digest(root, files[key]) for key in PLAY_PARTS}
    stamp["model"] = hashlib.sha256(_read_bytes(root / MODEL_FILE, "model file")).hexdigest()
    return stamp


def play_changes(saved: dict[str, str] | None, now: dict[str, str]) -> list[str]:
    """The parts of the play that differ between a saved stamp and ``now``, in words ("the engine code"); for
    no saved stamp, one reason saying so."""
    if saved is None:
        return ["no record of the code that played it"]
    names = {part.key: part.words for part in CODE_PARTS} | WORDS
    return [names.get(k, k) for k in now if saved.get(k) != now[k]]
