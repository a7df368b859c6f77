"""Learning a policy from the search: decisions collected (``collect``) under drawn rules (``rules``), and a
scorer trained on them and evaluated (``train``), for the built-in ``learned`` policy."""
