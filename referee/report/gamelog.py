"""Read the steps of a game back from its game log, for a replay (``referee.runner.logrecords`` reads the lines).

Only what a replay needs is kept: the ``game`` header (ruleset, seed, deal, names), the applied ``discard``
and ``action`` events, the ``forfeit`` events and the ``result``. The bulky ``send``/``recv`` lines (every
message to and from the bots) are passed by without decoding.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from referee.engine import Deal, Discard, Ruleset
from referee.report.errors import ReplayError
from referee.report.replay import Forfeit, Step
from referee.runner.gamelog import read_records
from referee.runner.logrecords import ActionEvent, DiscardEvent, ForfeitEvent, LogError, NoHeader, ResultEvent


@dataclass(frozen=True, slots=True)
class LoggedGame:
    """A game as its log tells it: enough to re-run it through the engine."""

    names: tuple[str, ...]
    ruleset: Ruleset
    seed: int | None
    deal: Deal
    steps: tuple[Step, ...]
    scores: tuple[int, ...] | None


def read_game_log(path: Path) -> LoggedGame:
    """The header, steps and result of the game log at ``path``.

    Raises ``ReplayError`` naming the file (and line) when it is missing, not JSON Lines, has no ``game`` header,
    or holds an event a replay cannot use.
    """
    try:
        header, events = read_records(path, wire=False)
    except NoHeader as exc:
        if exc.empty:
            raise ReplayError(f"{path} is empty: no 'game' header") from None
        raise ReplayError(f"{path} is not a game log: its first event is not the 'game' header") from None
    except LogError as exc:
        if exc.line is None:
            raise ReplayError(str(exc)) from None
        raise ReplayError(f"{path}:{exc.line}: not a game log event a replay can use ({exc.reason})") from None
    steps: list[Step] = []
    scores: tuple[int, ...] | None = None
    for event in events:
        if isinstance(event, DiscardEvent) and event.by != "referee":
            steps.append(Discard(event.seat, event.cards))
        elif isinstance(event, ActionEvent):
            steps.append(event.action)
        elif isinstance(event, ForfeitEvent) and event.forfeited:
            steps.append(Forfeit(event.seat))
        elif isinstance(event, ResultEvent):
            scores = event.scores
    return LoggedGame(header.names, header.ruleset, header.seed, header.deal, tuple(steps), scores)
