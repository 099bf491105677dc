"""referee: the tournament referee for bot contests in the card game 23."""

__version__ = "0.1.0"
