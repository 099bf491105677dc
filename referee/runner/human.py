"""A person at the terminal taking a seat: shows hand, table, chips and legal moves; reads moves; no deadline (and
says so)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
    ProtocolViolation,
    RoundEnd,
    Turn,
    parse_message,
)
from protocol.replies import HelloOptions, HelloReply, Reply, light_reply
from protocol.sdk import ruleset_from_rules
from referee.engine import Ruleset
from referee.runner.errors import BotCrashed, BotFault
from referee.runner.human_moves import (
    HELP,
    Move,
    describe_since,
    discard_problem,
    engine_reason,
    listed,
    move_table,
    move_text,
    parse_move,
)
from referee.runner.safe_text import visible


class PersonSeat:
    """What every seat a person plays has in common, at the terminal (``HumanPlayer``) or in a browser
    (``referee.web.human_seat``): a name, a hello that asks for the legal moves, no process, no time limit."""

    move_time: float | None = None
    time_bank: float | None = None
    wants_legal_moves = True

    def __init__(self, name: str) -> None:
        self._name = name
        self.hello: HelloReply | None = HelloReply(protocol=1, name=name, options=HelloOptions(legal_moves=True))
        self.startup_fault: BotFault | ProtocolViolation | None = None
        self.players: list[str] = []
        self.seat = 0
        self.ruleset = Ruleset()

    @property
    def name(self) -> str:
        return self._name

    @property
    def ready(self) -> bool:
        return True

    async def ensure_started(self) -> None:
        return None

    async def aclose(self) -> None:
        return None

    def exited(self) -> BotCrashed | None:
        return None  # a person has no process to exit


class HumanPlayer(PersonSeat):
    """A seat played by a person. ``ask`` reads one line (default ``input``); ``say`` prints (default ``print``).
    The person has no time limit; ``bots_move_time`` (seconds a reply), when given, is told as the bots' limit.

    End of input (Ctrl-D) ends the person's game like a crashed bot: it forfeits.
    """

    def __init__(
        self,
        name: str = "you",
        *,
        ask: Callable[[str], str] = input,
        say: Callable[[str], object] = print,
        bots_move_time: float | None = None,
    ) -> None:
        super().__init__(name)
        self._bots_move_time = bots_move_time
        self._ask = ask
        self._print = say
        self._round = 0
        self._shown = 0  # history entries of this round already shown

    def _say(self, text: str) -> None:
        """Print ``text`` line by line; names the bots chose are shown literally (``visible``)."""
        for line in text.split("\n"):
            self._print(visible(line))

    async def end(self, message: str | None = None) -> None:
        if message:
            self._say(f"! {message}")

    async def notify(self, line: bytes, deadline: float) -> None:
        msg = parse_message(line)
        if isinstance(msg, GameStart):
            self.players, self.seat = list(msg.players), msg.seat
            self.ruleset = ruleset_from_rules(msg.rules)
            others = ", ".join(f"{i}: {n}" for i, n in enumerate(msg.players) if i != msg.seat)
            self._say(f"Game {msg.game}: you are seat {msg.seat}; opponents {others}.")
            bots = "" if self._bots_move_time is None else f" (the bots have {self._bots_move_time:g} s a reply)"
            self._say(f"You have no time limit: the game waits for each of your moves{bots}.")
            self._say(HELP)
        elif isinstance(msg, RoundEnd):
            self._since(msg.round, msg.history)
            self._say(f"--- round {msg.round} over ---")
            self._say(self._table(msg.players))
        elif isinstance(msg, GameEnd):
            self._say("=== game over ===")
            for seat, name in enumerate(self.players):
                note = " (forfeit)" if seat in msg.forfeits else ""
                self._say(f"  seat {seat} {name}: score {msg.scores[seat]}, rank {msg.ranks[seat]}{note}")
        elif isinstance(msg, ErrorMessage):
            self._say(f"! {msg.message}")

    def _since(self, round_: int, history: list[Any]) -> None:
        """Say what the others did since the person's last turn (or since the round began)."""
        if round_ != self._round:
            self._round, self._shown = round_, 0
        lines = describe_since(history, self._shown, self.players, self.seat)
        self._shown = len(history)
        if lines:
            self._say("Since your last turn:" if any(e.seat == self.seat for e in history) else "This round so far:")
            for text in lines:
                self._say(f"  {text}")

    async def request(self, line: bytes, expect: Expect, deadline: float) -> tuple[Reply, bytes]:
        """The person's reply, as a bot's reads (``protocol.replies``), and its line."""
        msg = parse_message(line)
        if isinstance(msg, DealMessage):
            reply: AnyReply = await self._discard(msg)
        elif isinstance(msg, Turn):
            reply = await self._turn(msg)
        else:  # pragma: no cover - the referee asks a person only for discards and turns
            raise BotCrashed(f"cannot answer a {msg.type} message")
        return light_reply(reply), reply.model_dump_json().encode()

    async def _read(self, prompt: str) -> str:
        try:
            return await trio.to_thread.run_sync(self._ask, prompt, abandon_on_cancel=True)
        except EOFError:
            raise BotCrashed("the person at the terminal left (end of input)") from None

    async def _discard(self, msg: DealMessage) -> DiscardReply:
        self._say(f"Round {msg.round}. Your hand: {_cards(msg.hand)}")
        if msg.discard == 0:
            return DiscardReply(cards=[])  # this ruleset discards nothing: no question to ask
        while True:
            text = await self._read(f"Discard {msg.discard} cards (not the 1), e.g. '{_example(msg)}': ")
            try:
                cards = sorted(int(x) for x in text.replace(",", " ").split())
            except ValueError:
                self._say(f"  give {msg.discard} card values separated by spaces")
                continue
            problem = discard_problem(msg.hand, cards, msg.discard)
            if problem:
                self._say(f"  {problem}")
                continue
            return DiscardReply(cards=cards)

    async def _turn(self, msg: Turn) -> Move:
        self._say("")
        self._since(msg.round, msg.history)
        self._say(self._table(msg.players, msg.seat))
        last = msg.last if msg.last is not None else "- (open the round with the 1)"
        self._say(f"Last played: {last}" + ("   YOU ARE FORCED: play or drop" if msg.forced else ""))
        self._say(f"Your hand: {_cards(msg.hand)}   bonus chips: {msg.players[msg.seat].bonus}")
        legal = list(msg.legal or [])
        moves = listed(legal, msg, self.ruleset)
        self._moves(moves, msg, every=len(moves) == len(legal))
        if len(moves) < len(legal):
            self._say(
                f"  + {len(legal) - len(moves)} more legal moves (dearer, or spending chips for nothing): "
                "'all' numbers every one"
            )
        while True:
            text = (await self._read("Your move (number or e.g. 7x2, pass, drop; ? for help): ")).strip()
            if text.lower() in ("?", "help", "h"):
                self._say(HELP)
                continue
            if text.lower() == "all":
                moves = listed(legal, msg, self.ruleset, size=None)
                self._moves(moves, msg, every=True)
                continue
            choice = parse_move(text, moves)
            if isinstance(choice, str):
                self._say(f"  {choice}")
                continue
            if choice not in legal:
                self._say(f"  {move_text(choice)} is not legal: {engine_reason(choice, msg, self.ruleset)}")
                continue
            # The move counts as the person's own: the next summary starts after it.
            self._shown = len(msg.history)
            return choice

    def _moves(self, moves: list[Move], msg: Turn, *, every: bool) -> None:
        """Number ``moves`` with their cost (``every``: they are all the legal moves)."""
        what = "every legal one" if every else "cheapest first"
        worth = self.ruleset.bonus_refund
        self._say(f"Your moves, {what} (a bonus chip spent counts as {worth}: kept, it takes {worth} off your score):")
        for row in move_table(moves, msg, self.ruleset):
            self._say(row)

    def _table(self, players: list[PlayerEntry], me: int | None = None) -> str:
        rows = []
        for seat, p in enumerate(players):
            mark = "*" if seat == me else " "
            rows.append(
                f" {mark}seat {seat} {p.name:<14} cards {p.cards:>2}  penalty {p.penalty:>3}"
                f"  bonus {p.bonus}  {p.status}"
            )
        return "\n".join(rows)


def _cards(hand: list[int]) -> str:
    return " ".join(str(c) for c in hand)


def _example(msg: DealMessage) -> str:
    pool = [c for c in msg.hand if c != 1]
    return " ".join(str(c) for c in pool[len(pool) - msg.discard :])
