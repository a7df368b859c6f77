"""The rules of Tractor, readable: cards and their notation, variants (the rule sets as data) and
their named choices (``choices``), card order, units, following, tricks, scoring and declaring,
scenario files and rulings on them.

Plain Python on card-count dicts, written for clarity rather than speed: the compiled engine
(``simsuite.engine``) re-expresses these rules on arrays and the tests check the two agree.
"""
