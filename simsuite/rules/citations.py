"""Citations: where each field of a variant comes from, read from a file's ``[cite.*]`` tables.

A registry file cites every rule field in a ``[cite.<section>]`` table after the section::

    [cite.deal]
      decks = { clause = "第四、1", note = "three decks", quote = "三副牌" }
      must_defend_end_level = { default = "the original is silent; we take no defence rule" }

``clause``: where in the original; ``note``: what it says, in English; ``quote``: the original's
words, briefly, where they decide the reading; ``default``: our reason where the original is
silent, truncated or ambiguous (with a clause: the reading we chose of that clause).

Citations never enter the rules hash. This module knows fields only as the ``specs`` its callers
pass (``rules.variant.SPECS``): anything with a ``name`` and a ``section``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from ..errors import VariantError

CITE_SECTION = "cite"
CITE_KEYS = ("clause", "note", "quote", "default")
NOT_CITED = "not cited"


class Field(Protocol):
    """A variant field as citations see it (``rules.variant.FieldSpec``)."""

    name: str
    section: str


@dataclass(frozen=True)
class Citation:
    """Where one field's value comes from: a clause of the original, our ``default``, or both."""

    clause: str | None = None
    note: str | None = None
    quote: str | None = None
    default: str | None = None

    def as_dict(self) -> dict[str, str]:
        return {k: getattr(self, k) for k in CITE_KEYS if getattr(self, k) is not None}

    def text(self) -> str:
        """One line for a reader: ``第四、1: three decks ("三副牌")``, ``default: ...``, or both."""
        parts = []
        if self.clause is not None:
            said = self.clause + (f": {self.note}" if self.note else "")
            parts.append(said + (f' ("{self.quote}")' if self.quote else ""))
        elif self.note:
            parts.append(self.note)
        if self.default is not None:
            parts.append(f"default: {self.default}")
        return "; ".join(parts)


def cite_text(citation: Citation | None) -> str:
    return NOT_CITED if citation is None else citation.text()


def read_citations(table: Any, problems: list[str], specs: Sequence[Field]) -> dict[str, Citation]:
    """The ``[cite.*]`` tables of a file as citations of ``specs``; every malformed one adds to
    ``problems``."""
    if table is None:
        return {}
    if not isinstance(table, dict):
        problems.append(f"[{CITE_SECTION}] must hold one table per section, such as [{CITE_SECTION}.deal]")
        return {}
    sections = tuple(dict.fromkeys(s.section for s in specs))
    by_name = {s.name: s for s in specs}
    out: dict[str, Citation] = {}
    for section, entries in table.items():
        where = f"[{CITE_SECTION}.{section}]"
        if section not in sections:
            problems.append(f"unknown section {where}; sections are {', '.join(sections)}")
            continue
        if not isinstance(entries, dict):
            problems.append(f"{where} must be a table of field = {{ clause = ..., note = ... }}")
            continue
        for name, entry in entries.items():
            spec = by_name.get(name)
            if spec is None:
                problems.append(
                    f"{where} {name}: cites a field that does not exist; fields of [{section}]: "
                    f"{', '.join(s.name for s in specs if s.section == section)}"
                )
                continue
            if spec.section != section:
                problems.append(
                    f"{where} {name}: the field belongs in [{spec.section}]; cite it in [{CITE_SECTION}.{spec.section}]"
                )
                continue
            citation = _citation(entry, f"{where} {name}", problems)
            if citation is not None:
                out[name] = citation
    return out


def _citation(entry: Any, where: str, problems: list[str]) -> Citation | None:
    if not isinstance(entry, dict):
        problems.append(
            f'{where}: a citation is a table, {{ clause = "...", note = "..." }} or {{ default = "..." }}; '
            f"got {entry!r}"
        )
        return None
    bad = [k for k in entry if k not in CITE_KEYS]
    if bad:
        problems.append(
            f"{where}: unknown citation key(s) {', '.join(map(repr, bad))}; a citation has {', '.join(CITE_KEYS)}"
        )
    empty = [k for k in CITE_KEYS if k in entry and (not isinstance(entry[k], str) or not entry[k].strip())]
    if empty:
        problems.append(f"{where}: {', '.join(empty)} must be non-empty text")
    if "clause" not in entry and "default" not in entry:
        problems.append(
            f"{where}: give clause (where the original says it) or default (our reason where the original is silent)"
        )
    elif "quote" in entry and "clause" not in entry:
        problems.append(f"{where}: a quote needs the clause it comes from")
    if bad or empty or "clause" not in entry and "default" not in entry:
        return None
    return Citation(**{k: entry[k] for k in CITE_KEYS if k in entry})


def inherited_citations(base: Any, new: Any) -> dict[str, Citation]:
    """Variant ``base``'s citations of the fields variant ``new`` keeps unchanged: a changed value
    is not cited."""
    return {k: c for k, c in base.citations.items() if getattr(base, k) == getattr(new, k)}


V = TypeVar("V")


def with_citations(
    variant: V, parent: Any | None, own: dict[str, Citation], source: str, *, required: bool, specs: Sequence[Field]
) -> V:
    """``variant`` with its citations: those of ``parent`` (the variant it extends) for the values
    it keeps, then its ``own``. ``required``: a built-in variant, which must cite every rule field
    of ``specs`` (all but the ``about`` section)."""
    citations = inherited_citations(parent, variant) if parent is not None else {}
    citations.update(own)
    if required:
        missing = [s for s in specs if s.section != "about" and s.name not in citations]
        if missing:
            raise VariantError(
                source,
                [
                    f"[{CITE_SECTION}.{s.section}] {s.name}: {NOT_CITED} (a built-in variant cites every rule field)"
                    for s in missing
                ],
            )
    return dataclasses.replace(variant, citations=citations)


__all__ = [
    "CITE_KEYS",
    "CITE_SECTION",
    "NOT_CITED",
    "Citation",
    "cite_text",
    "inherited_citations",
    "read_citations",
    "with_citations",
]
