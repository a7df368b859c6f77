"""Competition between policies on the compiled engine: tournament formats (``tournament``),
tournaments of policy teams (``competition``), duplicate duels (``duel``) and a match's text
(``match_text``); a match itself is played by ``sim.match``."""
