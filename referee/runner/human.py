"""A person at the terminal taking a seat: shows hand, table, chips and legal moves; reads moves; no deadline."""

from __future__ import annotations

from collections.abc import Callable
from itertools import groupby

import trio

from protocol import (
    AnyReply,
    DealMessage,
    DiscardReply,
    DropReply,
    ErrorMessage,
    Expect,
    GameEnd,
    GameStart,
    HelloOptions,
    HelloReply,
    PassReply,
    PlayerEntry,
    PlayReply,
    ProtocolViolation,
    RoundEnd,
    Turn,
    parse_message,
)
from referee.runner.errors import BotCrashed, BotFault

HELP = (
    "moves: 'play V' (one card of value V), 'play VxN' (N cards), add 'bN' to spend N bonus chips "
    "(e.g. 'play 8x2 b1'), 'pass', 'force' (pass and force), 'drop', or the number of a listed move"
)


class HumanPlayer:
    """A seat played by a person. ``ask`` reads one line (default ``input``); ``say`` prints (default ``print``).

    End of input (Ctrl-D) ends the person's game like a crashed bot: it forfeits.
    """

    move_time: float | None = None
    time_bank: float | None = None
    wants_legal_moves = True

    def __init__(
        self,
        name: str = "you",
        *,
        ask: Callable[[str], str] = input,
        say: Callable[[str], object] = print,
    ) -> None:
        self._name = name
        self._ask = ask
        self._say = say
        self.hello: HelloReply | None = HelloReply(protocol=1, name=name, options=HelloOptions(legal_moves=True))
        self.startup_fault: BotFault | ProtocolViolation | None = None
        self.players: list[str] = []
        self.seat = 0

    @property
    def name(self) -> str:
        return self._name

    @property
    def ready(self) -> bool:
        return True

    async def ensure_started(self) -> None:
        return None

    async def end(self, message: str | None = None) -> None:
        if message:
            self._say(f"! {message}")

    async def aclose(self) -> None:
        return None

    def exited(self) -> BotCrashed | None:
        return None  # a person at the terminal has no process to exit

    async def notify(self, line: bytes, deadline: float) -> None:
        msg = parse_message(line)
        if isinstance(msg, GameStart):
            self.players, self.seat = list(msg.players), msg.seat
            others = ", ".join(f"{i}: {n}" for i, n in enumerate(msg.players) if i != msg.seat)
            self._say(f"Game {msg.game}: you are seat {msg.seat}; opponents {others}.")
            self._say(HELP)
        elif isinstance(msg, RoundEnd):
            self._say(f"--- round {msg.round} over ---")
            self._say(self._table(msg.players))
        elif isinstance(msg, GameEnd):
            self._say("=== game over ===")
            for seat, name in enumerate(self.players):
                note = " (forfeit)" if seat in msg.forfeits else ""
                self._say(f"  seat {seat} {name}: score {msg.scores[seat]}, rank {msg.ranks[seat]}{note}")
        elif isinstance(msg, ErrorMessage):
            self._say(f"! {msg.message}")

    async def request(self, line: bytes, expect: Expect, deadline: float) -> tuple[AnyReply, bytes]:
        msg = parse_message(line)
        if isinstance(msg, DealMessage):
            reply: AnyReply = await self._discard(msg)
        elif isinstance(msg, Turn):
            reply = await self._turn(msg)
        else:  # pragma: no cover - the referee asks a person only for discards and turns
            raise BotCrashed(f"cannot answer a {msg.type} message")
        return reply, reply.model_dump_json().encode()

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
            problem = _discard_problem(msg.hand, cards, msg.discard)
            if problem:
                self._say(f"  {problem}")
                continue
            return DiscardReply(cards=cards)

    async def _turn(self, msg: Turn) -> PlayReply | PassReply | DropReply:
        self._say("")
        self._say(self._table(msg.players, msg.seat))
        self._say(
            f"Last played: {msg.last if msg.last is not None else '-'}" + ("   YOU ARE FORCED" if msg.forced else "")
        )
        self._say(f"Your hand: {_cards(msg.hand)}   bonus chips: {msg.players[msg.seat].bonus}")
        legal = list(msg.legal or [])
        self._say("Legal: " + _legal_summary(legal))
        while True:
            text = (await self._read("Your move: ")).strip().lower()
            if text in ("?", "help", "h"):
                self._say(HELP)
                continue
            choice, error = _parse_move(text, legal)
            if choice is None:
                self._say(f"  {error}")
                continue
            return choice

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


def _discard_problem(hand: list[int], cards: list[int], need: int) -> str | None:
    if len(cards) != need:
        return f"name exactly {need} cards, you named {len(cards)}"
    if 1 in cards:
        return "the 1 may not be discarded"
    rest = list(hand)
    for c in cards:
        if c not in rest:
            return f"you do not hold {'another ' if c in hand else ''}{c}"
        rest.remove(c)
    return None


def _legal_summary(legal: list[PlayReply | PassReply | DropReply]) -> str:
    plays = [m for m in legal if isinstance(m, PlayReply)]
    parts = []
    for value, group in groupby(plays, key=lambda m: m.value):
        items = list(group)
        counts = sorted({m.count for m in items})
        bonus = sorted({m.bonus for m in items})
        text = f"play {value}"
        if counts[-1] > 1:
            text += f"x1..{counts[-1]}"
        if bonus != [0]:
            text += f" b{bonus[0]}..{bonus[-1]}" if len(bonus) > 1 else f" b{bonus[0]}"
        parts.append(text)
    for m in legal:
        if isinstance(m, PassReply):
            parts.append("force" if m.force else "pass")
        elif isinstance(m, DropReply):
            parts.append("drop")
    return ", ".join(parts)


def _parse_move(
    text: str, legal: list[PlayReply | PassReply | DropReply]
) -> tuple[PlayReply | PassReply | DropReply | None, str]:
    """The legal move ``text`` names, or None and why not."""
    words = text.split()
    if not words:
        return None, "type a move (or 'help')"
    candidate: PlayReply | PassReply | DropReply
    if words[0] in ("pass", "p") and len(words) == 1:
        candidate = PassReply()
    elif words[0] in ("force", "f") or words[:2] == ["pass", "force"]:
        candidate = PassReply(force=True)
    elif words[0] in ("drop", "d") and len(words) == 1:
        candidate = DropReply()
    elif words[0] == "play" and len(words) >= 2:
        value_text, _, count_text = words[1].partition("x")
        bonus_text = words[2][1:] if len(words) > 2 and words[2].startswith("b") else "0"
        if len(words) > 3 or (len(words) == 3 and not words[2].startswith("b")):
            return None, f"cannot read {text!r}; {HELP}"
        try:
            value, count, bonus = int(value_text), int(count_text or 1), int(bonus_text)
        except ValueError:
            return None, f"cannot read {text!r}; {HELP}"
        if not (1 <= value <= 23 and count >= 1 and bonus >= 0):
            return None, f"{text!r} is not a move: values are 1..23, count at least 1, bonus 0 or more"
        candidate = PlayReply(value=value, count=count, bonus=bonus)
    else:
        return None, f"cannot read {text!r}; {HELP}"
    if candidate in legal:
        return candidate, ""
    if isinstance(candidate, PassReply):
        return None, "you may not pass now" + (" (you are forced)" if candidate not in legal else "")
    if isinstance(candidate, PlayReply):
        return None, f"play {candidate.value}x{candidate.count} b{candidate.bonus} is not legal now"
    return None, "that move is not legal now"
