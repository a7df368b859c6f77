"""Policies in plain Python.

- ``policy``: the policy protocol, the four methods a policy answers and the views each one gets.
- ``builtin``: the compiled built-in policies behind that protocol (``BuiltinPolicy``).
- ``loader``: loading a policy by name or import path (``load_policy``), and checking one.
- ``pyhand``: one whole hand in plain Python, asking four policy objects.
- ``advise``: what a policy would play in a written position, and for ``search`` why (``simsuite advise``).
"""
