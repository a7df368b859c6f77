"""Readable output: the HTML report of a run (``html``), text tables (``text``) and the trace of
one hand (``trace``)."""
