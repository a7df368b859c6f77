"""simsuite: a Monte Carlo rule-variant simulator and statistics suite for Tractor (Shengji)."""

__version__ = "0.1.0"
