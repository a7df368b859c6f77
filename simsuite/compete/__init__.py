"""Competition between policies on the compiled engine (a match itself is played by ``sim.match``).

- ``tournament``: the formats, who meets whom, scored and ranked, whatever plays a match.
- ``ranking``: the standings from the teams' round entries, by points then the variant's tie-breaks.
- ``competition``: tournaments of policy teams, ``tournament`` over ``sim.match``, repeated with intervals.
- ``champions``: each policy's share of repeated tournaments won, over worker processes.
- ``duel``: policy strength over duplicate hands (``simsuite duel``).

Their text is in ``simsuite.report`` (``tournament_text``, ``match_text``).
"""
