"""The Monte Carlo harness and its results store: whole matches (``match``) and hands on several
workers (``hands``), run specs and their validation, sweeps, the executor that plays chunks of
matches in parallel, the manifest, and the Parquet results with their schema (docs/harness.md,
docs/results.md)."""
