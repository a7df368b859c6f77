"""Domain errors. Every one is a ``ValueError``: a user's mistake, reported in one line."""

from __future__ import annotations

import tomllib
from pathlib import Path

ID_CHARS = "letters, digits, '.', '_' and '-'"
MAX_ID = 64


def id_problem(text, what: str = "id") -> str | None:
    """Why ``text`` cannot serve as an id that may name a file (a variant's, a reference's), or
    None: 1 to ``MAX_ID`` of ``ID_CHARS``, not starting with a dot (no path, no hidden file)."""
    if not isinstance(text, str) or not text:
        return f"{what} must be a non-empty string"
    if len(text) > MAX_ID or text.startswith(".") or not all(c.isascii() and (c.isalnum() or c in "._-") for c in text):
        return f"{what} {text!r} is not an id: 1 to {MAX_ID} {ID_CHARS}, not starting with '.'"
    return None


def as_id(text: str) -> str:
    """A file name's stem made an id (``id_problem``): other characters become '-'."""
    out = "".join(c if c.isascii() and (c.isalnum() or c in "._-") else "-" for c in text)[:MAX_ID].lstrip(".")
    return out or "variant"


class SimsuiteError(ValueError):
    """Base of every error a user can cause (the command line prints it without a traceback)."""


class CardError(SimsuiteError):
    """Bad card notation, or more copies of a card than the decks hold."""


class VariantError(SimsuiteError):
    """A variant file or id that cannot be used. ``problems`` lists every problem found."""

    def __init__(self, source: str, problems: list[str]):
        self.source = source
        self.problems = list(problems)
        if len(self.problems) == 1:
            msg = f"{source}: {self.problems[0]}"
        else:
            msg = f"{source}: {len(self.problems)} problems:\n" + "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(msg)


class ScenarioError(SimsuiteError):
    """A scenario file that cannot be read or does not describe a situation."""


class IllegalPlayError(SimsuiteError):
    """A play that the rules forbid. The message names the seat, the lead and the clause."""

    def __init__(self, message: str, rule: str | None = None):
        self.rule = rule
        super().__init__(message)


MAX_TOML_BYTES = 4 << 20  # a variant, scenario, spec or reference file is a few kB; past this it is not one


def read_toml(path: Path, what: str, error: type[SimsuiteError] = SimsuiteError) -> dict:
    """A user's TOML file (``what``: "sweep spec", "scenario file", ...), or ``error`` naming the
    file and what is wrong with it in one line. Only a regular file of at most ``MAX_TOML_BYTES``
    is read: a pipe or a device (``/dev/zero``) would never end."""
    import os
    import stat

    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise error(f"{path}: no such {what}") from None
    except OSError as exc:
        raise error(f"{path}: cannot be read: {exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise error(f"{path}: is a folder, not a {what}")
    if not stat.S_ISREG(info.st_mode):
        raise error(f"{path}: not a regular file (a pipe or a device?); a {what} is a file")
    if info.st_size > MAX_TOML_BYTES:
        raise error(f"{path}: {info.st_size:,} bytes; a {what} has at most {MAX_TOML_BYTES:,}")
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise error(f"{path}: no such {what}") from None
    except IsADirectoryError:
        raise error(f"{path}: is a folder, not a {what}") from None
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{path}: not valid TOML: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"{path}: cannot be read: {exc}") from None


def unknown_keys(table, known, where: str = "") -> list[str]:
    """One problem per key of a user's TOML ``table`` that is not in ``known`` (``where``: a prefix
    naming the table, e.g. "search: ")."""
    return [f"{where}unknown key {key!r}; known keys: {', '.join(known)}" for key in table if key not in known]


def _toml_char(ch: str) -> str:
    """One character inside a TOML basic string: quote, backslash and the control characters TOML
    forbids there (U+0000 to U+001F and U+007F) escaped."""
    if ch in ('"', "\\"):
        return "\\" + ch
    if ord(ch) < 0x20 or ord(ch) == 0x7F:
        return f"\\u{ord(ch):04X}"
    return ch


def toml_value(v) -> str:
    """A value as TOML text (the inverse of ``read_toml`` for the scalars, lists and inline tables
    of spec and variant files)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + "".join(_toml_char(ch) for ch in v) + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {v!r} as TOML")


def did_you_mean(word, choices) -> str:
    """For a mistyped ``word``, the nearest of ``choices`` (difflib, ignoring case) as ``" (did you mean
    'x'?)"`` or ``" (did you mean 'x' or 'y'?)"``; ``""`` where none is near. A message names these
    instead of listing every choice."""
    import difflib

    if not isinstance(word, str) or not word:
        return ""
    by_lower = {str(c).lower(): str(c) for c in choices}
    near = [by_lower[c] for c in difflib.get_close_matches(word.lower(), list(by_lower), n=3, cutoff=0.6)]
    if not near:
        return ""
    said = [repr(c) for c in near]
    return f" (did you mean {', '.join(said[:-1]) + ' or ' if len(said) > 1 else ''}{said[-1]}?)"
