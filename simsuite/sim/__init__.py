"""The Monte Carlo harness and its results store (docs/harness.md, docs/results.md).

- ``match``: whole matches, hands chained under each tournament's clock (``play_match_batch``).
- ``hands``: hands of a run on several local workers, the same whatever the split.
- ``bench``: the compiled engine's hands per second (``simsuite bench``).
- ``run``: the entry points, ``simulate`` and ``sweep``.
- ``spec``: run specs, validated and turned into a plan before any work.
- ``sweep``: the sweep grammar, a grid of rule settings read from TOML.
- ``limits``: the command line's and the harness's limits (seeds, counts, ``--jobs``).
- ``executor``: a plan's missing chunks played in parallel and written to the store.
- ``cluster``: chunks played on a Dask cluster's workers, stopped when the cluster has none.
- ``orphans``: what a local worker runs first, so that it exits when the driver is gone.
- ``progress``: the progress bar on stderr.
- ``manifest``: what a run is and which of its chunks are done.
- ``results``: the results folder, read and written.
- ``schema``: the hands' and matches' columns as Parquet types.
"""
