"""Loading a policy by name or import path, and checking that an object is a policy.

``load_policy(spec)`` turns ``"expert"`` (a built-in, ``simsuite.play.builtin.BuiltinPolicy``),
``"path/to/file.py:ClassName"`` or ``"package.module:ClassName"`` into a policy object;
``check_policy`` checks an object has the four methods of ``simsuite.play.policy.Policy``.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from ..errors import SimsuiteError, did_you_mean
from .builtin import BUILTIN_NAMES, BuiltinPolicy
from .policy import POLICY_METHODS


def _one_line(e: BaseException) -> str:
    text = f"{type(e).__name__}: {e}".strip()
    return text.splitlines()[0] if text else type(e).__name__


def check_policy(obj: Any, what: str) -> Any:
    """``obj`` if it has the four policy methods, else a ``SimsuiteError`` naming the missing ones."""
    missing = [m for m in POLICY_METHODS if not callable(getattr(obj, m, None))]
    if missing:
        raise SimsuiteError(
            f"{what} lacks the policy method(s) {', '.join(missing)} (a policy needs bid, bury, lead and follow)"
        )
    return obj


def _load_file(path_text: str, spec: str):
    path = Path(path_text)
    if not path.is_file():
        raise SimsuiteError(f"policy {spec!r}: file {path_text} not found")
    name = "simsuite_policy_" + "".join(ch if ch.isalnum() else "_" for ch in str(path.resolve()))
    mod_spec = importlib.util.spec_from_file_location(name, path)
    if mod_spec is None or mod_spec.loader is None:
        raise SimsuiteError(f"policy {spec!r}: file {path_text} cannot be imported as Python")
    module = importlib.util.module_from_spec(mod_spec)
    sys.modules[name] = module  # dataclasses and pickling look modules up by name
    try:
        mod_spec.loader.exec_module(module)
    except Exception as e:  # noqa: BLE001 - a user's file: report any failure in one line
        sys.modules.pop(name, None)
        raise SimsuiteError(f"policy {spec!r}: importing file {path_text} failed: {_one_line(e)}") from e
    return module, f"file {path_text}"


def _load_module(mod_name: str, spec: str):
    try:
        module = importlib.import_module(mod_name)
    except Exception as e:  # noqa: BLE001
        raise SimsuiteError(f"policy {spec!r}: module {mod_name} is not importable: {_one_line(e)}") from e
    return module, f"module {mod_name}"


def load_policy(spec: Any) -> Any:
    """A policy object from ``spec``:

    * a built-in name, ``"random"``, ``"basic"`` or ``"expert"``: a ``BuiltinPolicy``;
    * ``"path/to/file.py:ClassName"``: the class from that file, instantiated without arguments;
    * ``"package.module:ClassName"``: the class from an importable module, likewise;
    * an object that already has the four methods: itself.

    A bad spec raises ``SimsuiteError`` (a ``ValueError``) with a one-line message: the file is
    not found, the module is not importable, the class is missing, or the object lacks the
    four methods.
    """
    if not isinstance(spec, str):
        return check_policy(spec, f"policy {spec!r}")
    text = spec.strip()
    from ..engine.names import policy_code

    if policy_code(text) is not None:
        return BuiltinPolicy(text)
    if ":" not in text:
        raise SimsuiteError(
            f"policy {spec!r}: not a built-in policy ({', '.join(BUILTIN_NAMES)}) nor "
            f"path/to/file.py:ClassName nor package.module:ClassName{did_you_mean(text, BUILTIN_NAMES)}"
        )
    where, cls_name = text.rsplit(":", 1)
    where, cls_name = where.strip(), cls_name.strip()
    if not where or not cls_name.isidentifier():
        raise SimsuiteError(f"policy {spec!r}: write path/to/file.py:ClassName or package.module:ClassName")
    if where.endswith(".py") or "/" in where or "\\" in where:
        module, src = _load_file(where, spec)
    else:
        module, src = _load_module(where, spec)
    obj = getattr(module, cls_name, None)
    if obj is None:
        raise SimsuiteError(f"policy {spec!r}: {src} has no class {cls_name}")
    if isinstance(obj, type):
        check_policy(obj, f"policy {spec!r}: class {cls_name}")
        try:
            obj = obj()
        except Exception as e:  # noqa: BLE001
            raise SimsuiteError(f"policy {spec!r}: {cls_name}() failed: {_one_line(e)}") from e
    return check_policy(obj, f"policy {spec!r}: {cls_name}")
