"""Competition between policies on the compiled engine: whole matches and their clock (``match``,
``match_text``), tournament formats (``tournament``), tournaments of policy teams
(``competition``) and duplicate duels (``duel``)."""
