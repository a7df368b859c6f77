"""The compiled engine: whole hands on integer arrays, compiled with numba.

Everything here runs in nopython mode (``@njit(cache=True)``) and also as plain Python with
``NUMBA_DISABLE_JIT=1``; the rules are those of ``simsuite.rules.order``, ``units``, ``follow``,
``trick`` and ``scoring``, re-expressed on arrays in the modules of the same names (their shared
layout in ``core``) and checked against them by the tests.
"""
