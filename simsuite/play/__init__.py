"""Policies in plain Python: the policy protocol and the views a policy sees (``policy``), the
compiled built-ins behind that protocol (``builtin``), loading a policy by name or import path
(``loader``), the Python hand loop that plays four of them (``pyhand``), and what a policy would
play in a written position (``advise``)."""
