"""Plain-text tables of ``simsuite learn train`` and ``learn evaluate``: agreement with the search and
value given up, the model beside the heuristic, with intervals and sample sizes."""

from __future__ import annotations

from .text import table

KINDS = ("all", "lead", "follow", "bury")


def _ci(e: dict, pct: bool = False, digits: int = 4) -> str:
    if not e["n"]:
        return "no decisions"
    if pct:
        return f"{100 * e['mean']:.1f}% [{100 * e['lo']:.1f}, {100 * e['hi']:.1f}]"
    return f"{e['mean']:.{digits}f} [{e['lo']:.{digits}f}, {e['hi']:.{digits}f}]"


def evaluation_table(title: str, ev: dict) -> str:
    """One set of decisions: per kind, the model's and the heuristic's agreement and value lost."""
    rows = []
    for k in KINDS:
        m, h = ev["model"][k], ev["heuristic"][k]
        rows.append(
            [
                k,
                f"{m['agreement']['n']:,} ({m['agreement']['hands']:,} hands)",
                _ci(m["agreement"], pct=True),
                _ci(h["agreement"], pct=True),
                _ci(m["value_lost"]),
                _ci(h["value_lost"]),
            ]
        )
    head = ["decisions", "n", "agrees with search: model", "heuristic", "levels lost per decision: model", "heuristic"]
    return f"{title}\n" + table(head, rows, max_width=60)


def training_text(trained, model_path) -> str:
    r = trained.rows
    lines = [
        f"{model_path}: bilinear model, {r['train_rows']:,} candidate rows of {r['train_decisions']:,} training "
        f"decisions; {len(trained.lam)} group(s) fitted, each with the ridge penalty that gives up the least "
        "on its own validation deals",
        "group                penalty  validation decisions  agreement  levels lost per decision",
    ]
    for group, by_lam in trained.validation.items():
        lam = trained.lam[group]
        v = by_lam[str(lam)]
        lines.append(
            f"{group:<20} {float(lam):<8g} {v['decisions']:>20,}  {100 * v['agreement']:>8.1f}%  {v['value_lost']:.4f}"
        )
    for head, history in (trained.head_history or {}).items():
        best = min(range(len(history)), key=history.__getitem__)
        lines.append(
            f"head {head}: a network of two tanh layers scores these decisions; stopped at epoch {best + 1} of "
            f"{len(history)}, validation levels lost per decision {history[best]:.4f}"
        )
    for name, title in (
        ("test_deals", "held-out deals (never trained on)"),
        ("test_rules", "held-out rule values (a capture of x5, a take-over at 45%: never trained on)"),
    ):
        lines.append("")
        ev = trained.evaluation[name]
        lines.append(evaluation_table(title, ev))
        if "base" in ev:
            b, m = ev["base"]["all"]["value_lost"], ev["model"]["all"]["value_lost"]
            lines.append(
                f"the base model on the same decisions: levels lost per decision {_ci(b)}, this model {_ci(m)}"
            )
    lines.append("")
    lines.append(
        "95% intervals over hands (a hand's decisions share its deal); levels lost: the search's value of its "
        "own choice minus that of the pick, by the search's estimates"
    )
    return "\n".join(lines)
