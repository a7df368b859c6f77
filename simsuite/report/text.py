"""Plain-text tables for the terminal: variants side by side, rulings side by side."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..rules.cards import RANK_NAMES
from ..rules.judge import FOLLOW_TERMS, SHAPE_TERMS
from ..rules.order import format_trump
from ..rules.variant import columns as _columns
from ..rules.variant import wrap_columns

LEGEND_WIDTH = 100


def table(header: Sequence[str], rows: Sequence[Sequence[Any]], max_width: int = 44) -> str:
    """A left-aligned text table; long cells are wrapped onto more lines."""
    cells = [[_wrap(str(c), max_width) for c in row] for row in [list(header)] + [list(r) for r in rows]]
    widths = [max(max(_columns(line) for line in cell) for cell in col) for col in zip(*cells)]
    out = []
    for i, row in enumerate(cells):
        height = max(len(c) for c in row)
        for k in range(height):
            out.append("  ".join(_pad(c[k] if k < len(c) else "", w) for c, w in zip(row, widths)).rstrip())
        if i == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def _pad(text: str, width: int) -> str:
    """``text`` padded to ``width`` terminal columns (a Chinese character takes two)."""
    return text + " " * (width - _columns(text))


def _wrap(text: str, width: int) -> list[str]:
    lines: list[str] = []
    for para in text.split("\n"):
        line = ""
        for word in para.split(" "):
            if line and _columns(line) + 1 + _columns(word) > width:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        lines.append(line)
    return lines or [""]


def _capture_text(v) -> str:
    who = "defenders" if v.capture_by == "defenders" else "either side"
    what = "trump only" if v.capture_with == "trump" else "any suit"
    if v.capture_scheme == "per_card":
        per = f"{v.capture_base}+{v.capture_per_card}/card" if v.capture_base else f"x{v.capture_per_card}/card"
        if v.capture_with == "any" and v.capture_side_per_card != v.capture_per_card:
            per += f" (side x{v.capture_side_per_card}/card)"
    elif v.capture_scheme == "power":
        per = f"x{v.capture_base}^cards"
    else:
        per = "last trick x lead cards"
    return f"{who}, {what}, {per}"


def variants_table(variants) -> str:
    header = ["variant", "decks", "bottom", "levels", "take-over", "step", "capture", "throws", "clock"]
    rows = []
    for v in variants:
        throws = f"yes, {v.throw_test.replace('_', '-')}" if v.throws else "no"
        clock = f"{v.match_minutes} min" if v.match_minutes else "untimed"
        rows.append(
            [
                v.id,
                v.decks,
                v.bottom_size,
                f"{RANK_NAMES[v.start_level]}-{RANK_NAMES[v.end_level]}",
                f"{v.takeover}/{v.total_points}",
                v.step,
                _capture_text(v),
                throws,
                clock,
            ]
        )
    return table(header, rows)


def _rule_ref(rule: dict[str, Any]) -> str:
    """``follow_order (第四、8-10)``: a field that decided a ruling and where its value comes from."""
    c = rule["cite"]
    if c is None:
        return f"{rule['field']} (not cited)"
    if "clause" in c:
        return f"{rule['field']} ({c['clause']}{', read by default' if 'default' in c else ''})"
    return f"{rule['field']} (default)"


def _with_rules(text: str, rules: list[dict[str, Any]] | None) -> str:
    return f"{text}\nrule: {'; '.join(_rule_ref(r) for r in rules)}" if rules else text


def _ruling_rows(r: dict[str, Any]) -> list[tuple[str, str]]:
    if r["error"]:
        return [("error", r["error"])]
    rows: list[tuple[str, str]] = []
    if r["declare"]:
        d = r["declare"]
        for b in d["bids"]:
            verdict = b["kind"] if b["accepted"] else f"rejected: {b['reason']}"
            rows.append((f"bid {b['seat']} {b['cards']}", _with_rules(verdict, b.get("rules"))))
        rows.append(("trump", f"{d['trump'] or '-'} (declarer {d['declarer'] or '-'}, dealer {d['dealer'] or '-'})"))
        if d["fallback"]:
            rows.append(("no declaration", d["fallback"]))
    for p in r["plays"]:
        verdict = {True: "legal", False: "ILLEGAL", None: "not checked"}[p["legal"]]
        if p["reason"]:
            verdict += f": {p['reason']}"
        rows.append((f"{p['seat']} {p['cards']}", _with_rules(f"[{p['shape']}] {verdict}", p.get("rules"))))
    if r["throw"]:
        t = r["throw"]
        if t["stands"] is None:
            text = "not tested (hands missing)"
        elif t["stands"]:
            text = "stands"
        else:
            text = f"fails ({', '.join(t['failing_units'])}): {t['consequence']}"
            if t["consequence"] == "penalty":
                text += f" {t['defender_points_delta']:+d} to the defenders; must play {t['forced_play']}"
        rows.append(("throw", _with_rules(text, t.get("rules"))))
    if r["plays"]:
        rows.append(
            (
                "winner",
                _with_rules(f"{r['winner'] or '-'} ({r['trick_points']} points in the trick)", r.get("winner_rules")),
            )
        )
    if r["end"]:
        e = r["end"]
        cap = (
            f"{e['capture_by']} x{e['capture_multiplier']} = {e['capture_points']:+d}"
            if e["capture_by"]
            else f"none ({e['capture_reason'] or 'defenders did not win it'})"
        )
        rows.append(("capture", _with_rules(cap, e.get("capture_rules"))))
        if e.get("penalty"):
            rows.append(("penalty", f"{e['penalty']:+d}"))
        rows.append(("defenders' points", _with_rules(f"{e['defender_points']} ({e['band']})", e.get("level_rules"))))
        rows.append(
            ("next", _with_rules(f"{e['next_declarers']} declare, {e['next_dealer']} deals", e.get("dealer_rules")))
        )
        rows.append(
            (
                "levels",
                f"NS +{e['level_change']['NS']}, EW +{e['level_change']['EW']}"
                + (
                    f" -> {', '.join(f'{k} {v}' for k, v in e['levels_after'].items())}"
                    if e.get("levels_after")
                    else ""
                ),
            )
        )
    for n in r["notes"]:
        rows.append(("note", n))
    return rows


def judge_table(scenario, rulings: list[dict[str, Any]]) -> str:
    head = []
    if scenario.level is not None:
        head.append(f"level {RANK_NAMES[scenario.level]}")
    if scenario.trump is not None:
        head.append(f"trump {format_trump(scenario.trump)}")
    if scenario.declarers is not None:
        head.append(f"declarers {'NS' if scenario.declarers == 0 else 'EW'}")
    title = f"{scenario.source}: " + ", ".join(head)
    return title + "\n" + _rulings_table(rulings) + _legend(rulings)


def _legend(rulings: list[dict[str, Any]]) -> str:
    """What the table's own terms mean: shapes, the follow order's counts, and the rule lines."""
    lines = ["", "", "Terms:"]
    if any(r["plays"] for r in rulings):
        lines += wrap_columns(f"  shape: {SHAPE_TERMS}.", LEGEND_WIDTH, 4)
    if any(
        rule["field"].startswith("follow_order") for r in rulings for p in r["plays"] for rule in p.get("rules", [])
    ):
        lines += wrap_columns(
            "  follow priority (a variant's follow_order): a follow is legal when no play its hand "
            "allows ranks higher, comparing these counts in the variant's order, each counted only "
            "as far as the lead itself has it:",
            LEGEND_WIDTH,
            4,
        )
        width = max(len(k) for k in FOLLOW_TERMS)
        for key, words in FOLLOW_TERMS.items():
            lines += wrap_columns(f"    {key:<{width}}  {words}", LEGEND_WIDTH, 6 + width)
    lines += wrap_columns(
        "  rule: the variant fields that decided the ruling, each with the clause of the original it "
        "cites (default: our choice where the original is silent; read by default: our reading of "
        "that clause); simsuite show ID prints every citation in full.",
        LEGEND_WIDTH,
        4,
    )
    return "\n".join(lines)


def _rulings_table(rulings: list[dict[str, Any]]) -> str:
    if len(rulings) == 1:
        r = rulings[0]
        return table([r["variant"], ""], _ruling_rows(r), max_width=70)
    # side by side: one row per item, one column per variant
    per = [dict(_merge(_ruling_rows(r))) for r in rulings]
    keys: list[str] = []
    for p in per:
        for k in p:
            if k not in keys:
                keys.append(k)
    rows = [[k] + [p.get(k, "") for p in per] for k in keys]
    return table([""] + [r["variant"] for r in rulings], rows, max_width=30)


def _merge(rows: list[tuple[str, str]]) -> list[tuple[str, str]]:
    out: dict[str, str] = {}
    for k, v in rows:
        out[k] = f"{out[k]}\n{v}" if k in out else v
    return list(out.items())
