"""The learned policy's model files: read, checked and handed to the work buffer.

A model is two files side by side: ``NAME.npz`` holds three arrays, ``header`` (int64), ``coef`` and
``heads`` (float64; the layout of ``engine.policies.learned``, "The model in W"), and ``NAME.json`` is its card: the format, the feature list
it was trained on, a hash of the words, and how it was trained (data, seed, command; docs/learned.md).
Loading reads data only: ``numpy.load`` without pickles and ``json``; nothing in a model file is
ever run. Every check that fails names the file and what is wrong, and nothing falls back to
another policy.

The model ``learned`` plays is the one shipped in the package (``simsuite/models/learned.npz``),
unless the environment variable ``SIMSUITE_MODEL`` names another model's ``.npz``: the variable is
read by every process that plays, so local worker processes inherit it (docs/learned.md).
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from ...errors import SimsuiteError
from ..core import Work
from .codes import LEARNED
from .features import FEATURE_NAMES, N_CONTEXT, N_FEATURES
from .learned import (
    HEAD_BURY,
    HEAD_END,
    HEAD_SIZE,
    HEADER,
    KIND_BILINEAR,
    MODEL_END,
    MODEL_HEADS,
    MODEL_KIND,
    MODEL_NCTX,
    MODEL_NF,
    MODEL_SIZE,
)
from .search import code_rollout, is_search, labels

MODELS_DIR = Path(str(resources.files("simsuite") / "models"))  # package data
SHIPPED = MODELS_DIR / "learned.npz"
ENV = "SIMSUITE_MODEL"
FORMAT = "simsuite-learned-model"
FORMAT_VERSION = 2  # 2: end-of-hand groups and the non-linear heads (engine.policies.learned)
MAX_FILE_BYTES = 16 << 20  # a model file larger than this is refused before it is read (the shipped one is far smaller)


class ModelError(SimsuiteError):
    """A model file that cannot be played: missing, damaged, or made for other features."""


def features_hash(names=FEATURE_NAMES) -> str:
    """A short hash of the feature list: a model trained on other features names another."""
    return hashlib.sha256("\n".join(names).encode()).hexdigest()[:16]


def words_hash(words: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(words, dtype="<i8").tobytes()).hexdigest()


@dataclass(frozen=True)
class Model:
    path: Path
    words: np.ndarray  # int64, the layout of engine.policies.learned
    card: dict

    @property
    def sha(self) -> str:
        return self.card["words_sha256"]


def card_path(path: Path) -> Path:
    return Path(path).with_suffix(".json")


def _regular(path: Path, what: str) -> None:
    if not path.exists():
        raise ModelError(f"{path}: no such {what}")
    if not path.is_file():
        raise ModelError(f"{path}: not a regular file; a {what} is a file")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise ModelError(f"{path}: {size:,} bytes; a {what} has at most {MAX_FILE_BYTES:,}")


def model_words(header: np.ndarray, coef: np.ndarray, heads: np.ndarray) -> np.ndarray:
    """The words of the work buffer's model region (``engine.policies.learned``): the header, then the
    coefficients' and the heads' float64 bits."""
    return np.concatenate(
        [
            header.astype(np.int64),
            np.ascontiguousarray(coef, dtype=np.float64).view(np.int64),
            np.ascontiguousarray(heads, dtype=np.float64).view(np.int64),
        ]
    )


def check_arrays(header: np.ndarray, coef: np.ndarray, heads: np.ndarray, where: str) -> None:
    """Refuse arrays that the compiled scorer would misread."""
    if header.dtype != np.int64 or header.shape != (HEADER,):
        raise ModelError(
            f"{where}: 'header' is {header.dtype}{list(header.shape)}; a model's header is int64[{HEADER}]"
        )
    if header[MODEL_KIND] != KIND_BILINEAR:
        raise ModelError(
            f"{where}: model kind {int(header[MODEL_KIND])}; this version reads kind {KIND_BILINEAR} (bilinear)"
        )
    if not 0 <= header[MODEL_END] <= 64:
        raise ModelError(f"{where}: end-of-hand groups from {int(header[MODEL_END])} cards; a model reads 0 to 64")
    if header[MODEL_NF] != N_FEATURES or header[MODEL_NCTX] != N_CONTEXT:
        raise ModelError(
            f"{where}: made for {int(header[MODEL_NF])} features ({int(header[MODEL_NCTX])} of the "
            f"decision); this version computes {N_FEATURES} ({N_CONTEXT} of the decision)"
        )
    want = (MODEL_SIZE - HEADER,)
    if coef.dtype != np.float64 or coef.shape != want:
        raise ModelError(
            f"{where}: 'coef' is {coef.dtype}{list(coef.shape)}; this version's bilinear model is float64{list(want)}"
        )
    if not np.isfinite(coef).all():
        raise ModelError(f"{where}: a coefficient is not a finite number")
    if header[MODEL_HEADS] & ~(HEAD_BURY | HEAD_END):
        raise ModelError(
            f"{where}: heads {int(header[MODEL_HEADS])}; a model has the bury's (1), the end's (2) or both (3)"
        )
    if heads.dtype != np.float64 or heads.shape != (2 * HEAD_SIZE,):
        raise ModelError(
            f"{where}: 'heads' is {heads.dtype}{list(heads.shape)}; this version's heads are float64[{2 * HEAD_SIZE}]"
        )
    if not np.isfinite(heads).all():
        raise ModelError(f"{where}: a head's weight is not a finite number")


def load_model(path: str | Path) -> Model:
    """The model at ``path`` (its ``.npz``; the card beside it), checked."""
    path = Path(path)
    if path.suffix != ".npz":
        raise ModelError(f"{path}: a model is a .npz file with its .json card beside it")
    _regular(path, "model file")
    cpath = card_path(path)
    _regular(cpath, "model card")
    try:
        card = json.loads(cpath.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelError(f"{cpath}: not a readable JSON card: {exc}") from None
    if not isinstance(card, dict) or card.get("format") != FORMAT:
        raise ModelError(f"{cpath}: not a simsuite model card (its format is not {FORMAT!r})")
    if card.get("format_version") != FORMAT_VERSION:
        raise ModelError(
            f"{cpath}: card format version {card.get('format_version')!r}; this version of simsuite "
            f"reads {FORMAT_VERSION}"
        )
    names = card.get("features")
    if names != list(FEATURE_NAMES):
        if not isinstance(names, list):
            raise ModelError(f"{cpath}: the card lists no features")
        missing = [f for f in FEATURE_NAMES if f not in names]
        extra = [f for f in names if f not in FEATURE_NAMES]
        detail = "; ".join(
            part
            for part in (
                f"missing {', '.join(missing[:5])}" if missing else "",
                f"unknown {', '.join(map(str, extra[:5]))}" if extra else "",
                "the same names in another order" if not missing and not extra else "",
            )
            if part
        )
        raise ModelError(
            f"{cpath}: trained on another feature list than this version computes ({detail}); "
            f"retrain it with `simsuite learn train`"
        )
    try:
        with np.load(path, allow_pickle=False) as z:
            if set(z.files) != {"header", "coef", "heads"}:
                raise ModelError(
                    f"{path}: holds {sorted(z.files)}; a model file holds three arrays, 'header', 'coef' and 'heads'"
                )
            header, coef, heads = z["header"], z["coef"], z["heads"]
    except ModelError:
        raise
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise ModelError(f"{path}: not a readable model file: {exc}") from None
    check_arrays(header, coef, heads, str(path))
    words = model_words(header, coef, heads)
    if words_hash(words) != card.get("words_sha256"):
        raise ModelError(
            f"{path}: its arrays do not match the hash on its card {cpath.name} (damaged, or the two "
            f"files are from different models)"
        )
    return Model(path, words, card)


_cache: dict[tuple[str, int, int], Model] = {}


def active_path() -> Path:
    """The model ``learned`` plays: ``SIMSUITE_MODEL`` if set, else the shipped one."""
    given = os.environ.get(ENV, "").strip()
    return Path(given) if given else SHIPPED


def active_model() -> Model:
    """The model ``learned`` plays, loaded once per file version."""
    path = active_path()
    try:
        st = path.stat()
        key = (str(path.resolve()), st.st_mtime_ns, st.st_size)
    except OSError:
        key = (str(path), 0, 0)
    if key not in _cache:
        try:
            _cache[key] = load_model(path)
        except ModelError as exc:
            source = f" (from {ENV})" if os.environ.get(ENV, "").strip() else ""
            raise ModelError(f"the learned policy's model{source}: {exc}") from None
    return _cache[key]


def plays_learned(codes) -> bool:
    """Whether a seat of ``codes`` needs the model: it plays ``learned``, or a search that rolls out
    with it or labels (``engine.policies.search``)."""
    return any(
        int(c) == LEARNED or (is_search(int(c)) and (labels(int(c)) or code_rollout(int(c)) == LEARNED)) for c in codes
    )


def work_for(codes) -> np.ndarray:
    """The work buffer ``W`` for seats playing ``codes``: with the active model where one plays
    ``learned`` (``core.Work``)."""
    return Work(active_model().words if plays_learned(codes) else None).arrays()
