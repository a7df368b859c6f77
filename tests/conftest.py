"""Shared helpers: situations are built from card notation, like a stacked deck."""

from __future__ import annotations

import pytest

from simsuite.engine import warm
from simsuite.rules.cards import parse_cards, parse_rank
from simsuite.rules.order import hand_order, parse_trump
from simsuite.rules.units import counts_of
from simsuite.rules.variant import load_variant


def cards(text: str) -> dict[int, int]:
    """Card notation to a count dict {card id: copies}."""
    return counts_of(parse_cards(text))


def order_for(variant_id: str, level: str = "2", trump: str = "S"):
    """The card order of a hand of ``variant_id`` played at ``level`` with ``trump``."""
    return hand_order(load_variant(variant_id), parse_rank(level), parse_trump(trump))


@pytest.fixture(autouse=True)
def _slow_only_when_asked(request):
    """The ``slow`` tests run only when the marker expression names them (``-m slow``)."""
    if request.node.get_closest_marker("slow") and "slow" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("slow: run with -m slow")


@pytest.fixture(scope="session")
def tiny_design(tmp_path_factory):
    """tests/designs/tiny.toml run once (simsuite design): its spec path and result."""
    from pathlib import Path

    from simsuite.analysis.design import design

    spec = Path(__file__).parent / "designs" / "tiny.toml"
    return spec, design(spec, tmp_path_factory.mktemp("design") / "out", quiet=True)


@pytest.fixture(params=["school-2016", "huizhou", "baiyun-2016", "two-deck-2011", "guangxi-2012"])
def variant_id(request):
    return request.param


# A test session on a fresh checkout compiles the engine piece by piece; the commands it runs would
# announce each compile on stderr, which the CLI tests check is empty. The notice's own tests pass
# ``after_s`` explicitly (tests/test_warm.py).
warm.NOTICE_AFTER_S = 24 * 3600.0
