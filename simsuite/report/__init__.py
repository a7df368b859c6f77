"""Readable output, laid out from the data analysis returns: HTML pages (``html`` the run report,
``design_page``, both built on ``page``), terminal text (``text`` tables, and a ``*_text`` module
per command such as ``summary_text``, ``calibrate_text``, ``compare_text``) and the trace of one
hand (``trace``)."""
