"""The ``simsuite`` command: thin sub-commands over the library.

A user's mistake (a bad file, an unknown id, bad notation) prints one line on stderr and exits
with status 2; it never shows a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from .errors import SimsuiteError
from .variant import describe, known_ids, load_all, load_variant


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return args.func(args) or 0
    except SimsuiteError as exc:
        print(f"simsuite {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"simsuite {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="simsuite", description="Tractor (Shengji) rule-variant simulator and rulings.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    s = sub.add_parser("variants", help="compare the variants side by side")
    s.add_argument("--json", action="store_true", help="machine-readable output")
    s.set_defaults(func=cmd_variants)

    s = sub.add_parser("show", help="one variant's rules, readably")
    s.add_argument("variant", help="variant id or path to a variant TOML file")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_show)

    s = sub.add_parser("judge", help="rule on a scenario file under one variant or all")
    s.add_argument("scenario", help="scenario TOML file (see docs/scenarios.md)")
    s.add_argument("--variant", help="variant id, a path, or 'all' (default: the file's variant)")
    s.add_argument("--json", action="store_true", help="one JSON object per variant (a list for 'all')")
    s.set_defaults(func=cmd_judge)
    return p


def cmd_variants(args) -> int:
    from .report_text import variants_table

    variants = load_all()
    if args.json:
        print(json.dumps([_summary(v) for v in variants], indent=2, ensure_ascii=False))
    else:
        print(variants_table(variants))
    return 0


def _summary(v) -> dict:
    return {
        "id": v.id, "name": v.name, "version": v.version, "rules_hash": v.rules_hash, "decks": v.decks,
        "bottom_size": v.bottom_size, "step": v.step, "takeover": v.takeover, "total_points": v.total_points,
        "capture_by": v.capture_by, "capture_with": v.capture_with, "capture_scheme": v.capture_scheme,
        "throws": v.throws, "throw_test": v.throw_test if v.throws else None,
    }


def cmd_show(args) -> int:
    v = load_variant(args.variant)
    if args.json:
        print(json.dumps({"id": v.id, "rules_hash": v.rules_hash, **v.to_toml_dict()}, indent=2, ensure_ascii=False))
    else:
        print(describe(v))
    return 0


def cmd_judge(args) -> int:
    from .judge import judge
    from .report_text import judge_table
    from .scenario import load_scenario

    scenario = load_scenario(args.scenario)
    choice = args.variant or scenario.variant
    if choice is None:
        raise SimsuiteError(f"{args.scenario}: no variant: give --variant ID (or all), or variant = \"ID\" in the file; "
                            f"known ids: {', '.join(known_ids())}")
    many = choice == "all"
    variants = load_all() if many else [load_variant(choice)]
    rulings = [judge(scenario, v) for v in variants]
    if args.json:
        print(json.dumps(rulings if many else rulings[0], indent=2, ensure_ascii=False))
    else:
        print(judge_table(scenario, rulings))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
