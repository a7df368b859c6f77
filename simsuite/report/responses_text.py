"""The text of ``simsuite learn responses``: per rule field, the statistic it acts on under the policy and
under the reference on the same deals, their paired difference, and the field's response; the answer first."""

from __future__ import annotations

from .compare_text import fmt
from .text import table


def _where(d: dict, what: str) -> str:
    return f"{d['field']} {what}, {d['short']} {fmt(d['kind'], d, diff=True)} (n = {d['n']:,})"


def answer(r: dict) -> str:
    """The first line: where the policy's responses and figures depart from the reference's beyond their
    intervals, or that none does."""
    a, b, dep = r["policy"], r["reference"], r["departures"]
    ns, nr = dep["of_settings"], dep["of_responses"]
    if not dep["settings"] and not dep["responses"]:
        return (
            f"{a}'s responses stay within the 95% intervals of {b}'s: no response of the {nr} and no setting of "
            f"the {ns} differs beyond its interval at this sample."
        )
    parts = []
    if dep["responses"]:
        parts.append(
            f"in {len(dep['responses'])} of {nr} responses: "
            + "; ".join(_where(d, f"{d['from']} to {d['to']}") for d in dep["responses"])
        )
    if dep["settings"]:
        parts.append(
            f"at {len(dep['settings'])} of {ns} settings: "
            + "; ".join(_where(d, d["setting"]) for d in dep["settings"])
        )
    return f"{a} departs from {b} beyond the 95% intervals " + ", and ".join(parts) + "."


def format_responses(r: dict) -> str:
    """``analysis.responses.measure``'s result: the answer, then one table per field."""
    a, b = r["policy"], r["reference"]
    blocks = [
        answer(r),
        f"{a} and {b}, each at all four seats, on the same deals of seed {r['seed']}: {r['deals']:,} played "
        f"deals per setting, {r['bury_deals']:,} dealt and buried (no trick played) per bury-only setting. "
        f"Difference: {a} minus {b}, paired deal by deal. A response is the change from a field's first "
        "setting to its last, per policy, paired deal by deal.",
    ]
    for s in r["studies"]:
        k = s["kind"]
        rows = [
            [x["setting"], fmt(k, x["policy"]), fmt(k, x["reference"]), fmt(k, x["difference"], diff=True)]
            for x in s["settings"]
        ]
        resp = s["response"]
        rows.append(
            [
                f"response: {resp['from']} to {resp['to']}",
                fmt(k, resp["policy"], diff=True),
                fmt(k, resp["reference"], diff=True),
                fmt(k, resp["difference"], diff=True),
            ]
        )
        head = f"{s['field']} ({s['title']}) on {s['variant']}: {s['label']}; n = {s['deals']:,} deals per setting"
        blocks.append(head + "\n" + table(["setting", a, b, f"{a} minus {b}"], rows, max_width=44))
    if r["skipped"]:
        blocks.append("Not studied here: " + "; ".join(f"{k['field']}: {k['reason']}" for k in r["skipped"]) + ".")
    blocks.append(
        "95% intervals: shares Wilson, means and every difference normal over deals; shares in %, their "
        "differences in percentage points (pp). Departs: the whole interval of a difference lies on one side "
        "of 0 (with many rows, about one in twenty does so by chance where the two policies agree)."
    )
    return "\n\n".join(blocks)


__all__ = ["answer", "format_responses"]
