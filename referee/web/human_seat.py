"""The seat of a person playing in the browser: a participant of ``play_game``, as ``runner.human.HumanPlayer`` is
at the terminal, that keeps what the person may see and waits for the move the person posts.

What it keeps comes only from the messages the referee sends to this seat (``game_start``, ``deal``, ``turn``,
``round_end``, ``game_end``): its own hand and the public table, never another seat's cards. The moves are listed,
read and explained by ``runner.human_moves``, exactly as ``referee play --human`` lists, reads and explains them:
the same cheapest-first short list (``listed``), the same typed shorthand (``parse_move``), the same reason when a
move is not legal (``engine_reason``).

The person has ``idle`` seconds for each answer; past that, ``on_idle`` is called (the game is abandoned and its
bots ended: ``human_games``) and the seat's request fails as a crashed bot's would.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import trio

from protocol import (
    AnyReply,
    DealMessage,
    DiscardReply,
    ErrorMessage,
    Expect,
    GameEnd,
    GameStart,
    PlayerEntry,
    RoundEnd,
    Turn,
    parse_message,
)
from protocol.replies import Reply, light_reply
from protocol.sdk import ruleset_from_rules
from referee.contest.pool import PlayerLike, pause_players, resume_players
from referee.runner.errors import BotCrashed
from referee.runner.human import PersonSeat
from referee.runner.human_moves import (
    SHORTLIST,
    Move,
    describe_since,
    discard_problem,
    engine_reason,
    listed,
    move_cost,
    move_text,
    parse_move,
)

__all__ = ["BrowserSeat", "MoveChoice", "RoundOver"]


@dataclass(frozen=True, slots=True)
class MoveChoice:
    """One listed move: what the form posts (``move_text``: ``7x3+1``, ``pass``, ``force``, ``drop``) and its cost."""

    text: str
    cost: str


@dataclass(frozen=True, slots=True)
class RoundOver:
    """A round's end as the seat was told it: the table then, and what happened in it, in words."""

    round: int
    players: tuple[PlayerEntry, ...]
    happened: tuple[str, ...]


class BrowserSeat(PersonSeat):
    """A seat played from the browser (see the module's docstring). ``answer`` (from a request handler, on the same
    trio loop as the game) hands over the person's move; ``changed`` is set whenever there is something new to show.
    """

    def __init__(self, name: str, *, idle: float, on_idle: Callable[[str], None]) -> None:
        super().__init__(name)
        self.idle = idle
        self._on_idle = on_idle
        #: What the seat is asked now (None while the bots play), and its number: each question has a new one.
        self.asked: DealMessage | Turn | None = None
        self.at = 0
        self.rounds: list[RoundOver] = []
        self.result: GameEnd | None = None
        self.notes: list[str] = []
        self._answer: Move | DiscardReply | None = None
        self._answered = trio.Event()
        self.changed = trio.Event()
        #: The game's bots, frozen while the person thinks over a turn (``pause``/``resume``: a ``Player`` whose
        #: ``RunnerConfig.freeze`` gave it a freezer), so that a bot burning CPU while it waits takes none of the
        #: machine meanwhile. Not at a discard: every seat is asked that at once.
        self.bots: Sequence[PlayerLike] = ()

    async def end(self, message: str | None = None) -> None:
        if message:
            self.notes.append(message)
            self._poke()

    def _poke(self) -> None:
        self.changed.set()
        self.changed = trio.Event()

    # ------------------------------------------------------------------------------------------ the referee's side

    async def notify(self, line: bytes, deadline: float) -> None:
        msg = parse_message(line)
        if isinstance(msg, GameStart):
            self.players, self.seat = list(msg.players), msg.seat
            self.ruleset = ruleset_from_rules(msg.rules)
        elif isinstance(msg, RoundEnd):
            happened = describe_since(msg.history, 0, self.players, -1)
            self.rounds.append(RoundOver(msg.round, tuple(msg.players), tuple(happened)))
        elif isinstance(msg, GameEnd):
            self.result = msg
        elif isinstance(msg, ErrorMessage):
            self.notes.append(msg.message)
        self._poke()

    async def request(self, line: bytes, expect: Expect, deadline: float) -> tuple[Reply, bytes]:
        """The person's answer to a ``deal`` or ``turn``, once posted (``answer``). Raises ``BotCrashed`` when none
        comes within ``idle`` seconds (after ``on_idle``, which abandons the game)."""
        msg = parse_message(line)
        if not isinstance(msg, DealMessage | Turn):  # pragma: no cover - a person is asked only discards and turns
            raise BotCrashed(f"cannot answer a {msg.type} message")
        if isinstance(msg, DealMessage) and msg.discard == 0:
            reply: AnyReply = DiscardReply(cards=[])  # this ruleset discards nothing: no question to ask
            return light_reply(reply), reply.model_dump_json().encode()
        self.asked, self.at, self._answer, self._answered = msg, self.at + 1, None, trio.Event()
        self._poke()
        resting = list(self.bots) if isinstance(msg, Turn) else []
        try:
            pause_players(resting)
            with trio.move_on_after(self.idle):
                await self._answered.wait()
        finally:
            resume_players(resting)
        answer, self.asked = self._answer, None
        if answer is None:
            self._on_idle(f"no move for {self.idle:g} s")
            raise BotCrashed(f"the person made no move for {self.idle:g} s")
        self._poke()
        return light_reply(answer), answer.model_dump_json().encode()

    # ------------------------------------------------------------------------------------------ the person's side

    def answer(self, at: int, move: str = "", cards: Sequence[int] = ()) -> str | None:
        """Hand over the person's answer to question ``at``: ``move`` (a listed move's text, or any move typed as
        ``referee play --human`` reads it) at a turn, ``cards`` at a discard. None when it is taken; else why not,
        in one line (the question stays open)."""
        asked = self.asked
        if asked is None or at != self.at or self._answer is not None:
            return "that question is no longer open: this is the game as it is now"
        if isinstance(asked, DealMessage):
            problem = discard_problem(asked.hand, cards, asked.discard)
            if problem is not None:
                return problem
            self._answer = DiscardReply(cards=sorted(cards))
        else:
            legal = list(asked.legal or [])
            choice = parse_move(move, listed(legal, asked, self.ruleset))
            if isinstance(choice, str):
                return choice
            if choice not in legal:
                return f"{move_text(choice)} is not legal: {engine_reason(choice, asked, self.ruleset)}"
            self._answer = choice
        self._answered.set()
        return None

    def moves(self, every: bool = False) -> list[MoveChoice]:
        """The moves to offer at this turn, cheapest first (``listed``: the short list, or ``every`` legal one)."""
        asked = self.asked
        if not isinstance(asked, Turn):
            return []
        legal = list(asked.legal or [])
        chosen = listed(legal, asked, self.ruleset, size=None if every else SHORTLIST)
        return [MoveChoice(move_text(m), move_cost(m, asked, self.ruleset)) for m in chosen]

    def more(self) -> int:
        """How many legal moves the short list leaves out (they are accepted when typed, or listed with 'all')."""
        asked = self.asked
        if not isinstance(asked, Turn):
            return 0
        legal = list(asked.legal or [])
        return len(legal) - len(listed(legal, asked, self.ruleset))

    def happened(self) -> list[str]:
        """What happened so far in this round, in words (the turn's public history)."""
        asked = self.asked
        return describe_since(asked.history, 0, self.players, -1) if isinstance(asked, Turn) else []
