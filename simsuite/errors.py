"""Domain errors. Every one is a ``ValueError``: a user's mistake, reported in one line."""


class SimsuiteError(ValueError):
    """Base of every error a user can cause (the command line prints it without a traceback)."""


class CardError(SimsuiteError):
    """Bad card notation, or more copies of a card than the decks hold."""


class VariantError(SimsuiteError):
    """A variant file or id that cannot be used. ``problems`` lists every problem found."""

    def __init__(self, source: str, problems: list[str]):
        self.source = source
        self.problems = list(problems)
        if len(self.problems) == 1:
            msg = f"{source}: {self.problems[0]}"
        else:
            msg = f"{source}: {len(self.problems)} problems:\n" + "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(msg)


class ScenarioError(SimsuiteError):
    """A scenario file that cannot be read or does not describe a situation."""


class IllegalPlayError(SimsuiteError):
    """A play that the rules forbid. The message names the seat, the lead and the clause."""

    def __init__(self, message: str, rule: str | None = None):
        self.rule = rule
        super().__init__(message)
