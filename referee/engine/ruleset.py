"""The ruleset: the standard rules of 23 and every option of RULES.md ("The options of the ruleset")."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from referee.engine.errors import RulesetError

DECK_SIZE = 66
MIN_PLAYERS = 2
MAX_PLAYERS = 4


def _at_least(name: str, value: int, low: int) -> None:
    if value < low:
        raise RulesetError(f"ruleset option {name} must be at least {low}, got {value}")


@dataclass(frozen=True, slots=True)
class Ruleset:
    """Options of the game; the defaults are the standard ruleset.

    Build one with ``Ruleset(...)`` or ``Ruleset.from_dict(...)`` and check it against a player count with
    ``validate(players)``; both raise ``RulesetError`` naming the offending option.
    """

    chip_floor: bool = False
    rounds: int = 2
    hand_size: int = 15
    discard: int = 3
    start_bonus: int = 3
    bonus_step: int = 5
    finish_refund: int = 3
    bonus_refund: int = 2
    max_turns_per_round: int = 1000

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "chip_floor":
                if not isinstance(value, bool):
                    raise RulesetError(f"ruleset option chip_floor must be true or false, got {value!r}")
                continue
            if isinstance(value, bool) or not isinstance(value, int):
                raise RulesetError(f"ruleset option {f.name} must be an integer, got {value!r}")
        _at_least("rounds", self.rounds, 1)
        _at_least("hand_size", self.hand_size, 1)
        _at_least("discard", self.discard, 0)
        _at_least("start_bonus", self.start_bonus, 0)
        _at_least("bonus_step", self.bonus_step, 1)
        _at_least("finish_refund", self.finish_refund, 0)
        _at_least("bonus_refund", self.bonus_refund, 0)
        _at_least("max_turns_per_round", self.max_turns_per_round, 1)
        if self.discard >= self.hand_size:
            raise RulesetError(
                f"ruleset option discard ({self.discard}) must be smaller than hand_size ({self.hand_size}):"
                " every player must keep at least one card"
            )

    def validate(self, players: int) -> None:
        """Check the ruleset for a game of ``players`` players.

        Raises ``RulesetError`` when the player count is out of range or the deck cannot deal the hands.
        """
        if isinstance(players, bool) or not isinstance(players, int):
            raise RulesetError(f"number of players must be an integer, got {players!r}")
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise RulesetError(f"a game has {MIN_PLAYERS} to {MAX_PLAYERS} players, got {players}")
        if self.hand_size * players > DECK_SIZE:
            raise RulesetError(
                f"ruleset option hand_size ({self.hand_size}) is too large for {players} players: "
                f"{self.hand_size * players} cards needed, the deck holds {DECK_SIZE}"
            )

    def to_dict(self) -> dict[str, Any]:
        """The options as a JSON-ready dict (the ``rules`` of PROTOCOL.md's ``game_start``)."""
        return {f.name: getattr(self, f.name) for f in _FIELDS}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ruleset:
        """Build a ruleset from a mapping of options; missing options take their standard value.

        Raises ``RulesetError`` for an unknown option or a bad value.
        """
        known = {f.name for f in fields(cls)}
        if not isinstance(data, Mapping):
            raise RulesetError(f"ruleset options are an object of option names and values, got {data!r}")
        for key in data:
            if key not in known:
                raise RulesetError(f"unknown ruleset option {key!r}; known options: {', '.join(sorted(known))}")
        return cls(**dict(data))


STANDARD = Ruleset()


_FIELDS = fields(Ruleset)
