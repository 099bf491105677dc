"""The Python bot SDK: write ``discard`` and ``move``, call ``run``; the SDK speaks protocol v1.

A bot is a subclass of ``Bot``::

    from protocol.sdk import Bot, run

    class Lowest(Bot):
        name = "lowest"

        def move(self, obs, game):
            return game.legal_moves(obs)[0]

    if __name__ == "__main__":
        run(Lowest())

or a pair of functions: ``run(move=my_move, discard=my_discard, name="mine")``.

``run`` answers ``hello`` with the bot's name, starts a fresh ``Game`` on every ``game_start`` (so per-game
state lives in ``game.data`` or is reset in ``Bot.new_game``), answers ``deal`` with ``discard`` and ``turn``
with ``move``, skips messages and fields it does not know, and returns on ``bye`` or end of input. While it
runs, ``print`` goes to stderr: stdout carries protocol lines only. When ``discard`` or ``move`` raises or
returns something illegal, the SDK logs why on stderr and answers a legal fallback instead, so that a bug costs
a bad move rather than a forfeit.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING, Any

from protocol.errors import ProtocolViolation, ViolationKind
from protocol.inbound import (
    Bye,
    DealMessage,
    ErrorMessage,
    GameEnd,
    GameStart,
    Hello,
    RoundEnd,
    Turn,
    observation_from_turn,
    parse_message,
    reply_to_action,
)
from protocol.jsonline import PROTOCOL_VERSION
from protocol.wire import legal_reply
from referee.engine.actions import Drop, Pass, Play

if TYPE_CHECKING:
    from protocol.messages import DropReply, PassReply, PlayReply
    from referee.engine import Hand, Observation, Ruleset, State

    MoveLike = Play | Pass | Drop | PlayReply | PassReply | DropReply
Move = Play | Pass | Drop
if not TYPE_CHECKING:
    MoveLike = Move  # what move() returns; a reply model of protocol.messages is accepted too

__all__ = ["Bot", "FunctionBot", "Game", "Move", "run"]


def ruleset_from_rules(rules: dict[str, Any]) -> Ruleset:
    """The ruleset of a ``game_start``'s ``rules``; options this SDK does not know are ignored.

    Falls back to the standard ruleset (with a note on stderr) when the options do not form a valid ruleset.
    """
    from dataclasses import fields

    from referee.engine import Ruleset, RulesetError

    known = {f.name for f in fields(Ruleset)}
    try:
        return Ruleset.from_dict({k: v for k, v in rules.items() if k in known})
    except (RulesetError, TypeError) as exc:
        _log(f"game_start rules not understood ({exc}); assuming the standard ruleset")
        return Ruleset()


class Game:
    """One game as the bot sees it; a new one on every ``game_start``.

    ``round`` is the current round (1-based, 0 before the first deal); ``hand`` the hand after the discard;
    ``discards`` this round's own discards (private: only this bot knows them). ``data`` is the bot's own
    per-game store. ``rng`` is a random generator for this game, seeded from game_start's ``rng_seed`` when the
    referee sends one (common random numbers: the same draws in every game that gives this seat the same cards of
    the same deal; PROTOCOL.md, "Common random numbers"); draw the bot's random choices from it. ``deadline`` is the
    ``time.monotonic()`` instant the current reply is due (the move time counted from the message's arrival).
    ``bank_ms`` is the game's time bank, when the contest gives one (game_start's ``time.bank_ms``).

    A plain class rather than a dataclass, so that a bot on the SDK starts without importing ``dataclasses``.
    """

    def __init__(
        self,
        id: str,
        seat: int,
        names: list[str],
        ruleset: Ruleset,
        move_ms: int,
        rng: random.Random,
        bank_ms: int | None = None,
        round: int = 0,
        hand: Hand = (),
        discards: Hand = (),
        deadline: float = 0.0,
        turn: Turn | None = None,
        round_ends: list[RoundEnd] | None = None,
        result: GameEnd | None = None,
        data: dict[str, Any] | None = None,
    ) -> None:
        self.id = id
        self.seat = seat
        self.names = names
        self.ruleset = ruleset
        self.move_ms = move_ms
        self.rng = rng
        self.bank_ms = bank_ms
        self.round = round
        self.hand = hand
        self.discards = discards
        self.deadline = deadline
        self.turn = turn
        self.round_ends: list[RoundEnd] = [] if round_ends is None else round_ends
        self.result = result
        self.data: dict[str, Any] = {} if data is None else data

    def __repr__(self) -> str:
        return f"Game(id={self.id!r}, seat={self.seat}, names={self.names!r}, round={self.round})"

    @property
    def players(self) -> int:
        """How many seats the game has."""
        return len(self.names)

    def time_left(self) -> float:
        """Seconds until the current reply is due (negative when late)."""
        return self.deadline - time.monotonic()

    def legal_moves(self, obs: Observation) -> list[Move]:
        """Every legal move of ``obs`` (plays by value, count, bonus; then pass, pass-and-force, drop)."""
        from referee.engine import legal_actions_for

        return [a for a in legal_actions_for(obs, self.ruleset) if isinstance(a, Play | Pass | Drop)]

    def sample_state(self, obs: Observation, rng: random.Random | None = None) -> State:
        """A full engine state consistent with ``obs`` and this bot's discards: the unseen cards dealt at random
        to the other seats (for determinized simulation with ``referee.engine.apply``)."""
        from referee.engine import sample_state

        return sample_state(obs, self.ruleset, rng or self.rng, self.discards)


class Bot:
    """Base class of an SDK bot. Override ``move`` (and usually ``discard``); set ``name``.

    ``legal_moves = True`` asks the referee to send the legal moves with every turn (``game.turn.legal``);
    the SDK can compute them anyway with ``game.legal_moves(obs)``.
    """

    name: str = "bot"
    version: str | None = None
    author: str | None = None
    legal_moves: bool = False

    def new_game(self, game: Game) -> None:
        """Called on ``game_start``: reset per-game state here."""

    def discard(self, hand: Hand, n: int, game: Game) -> Sequence[int]:
        """The ``n`` cards to discard from ``hand`` (never the 1). Default: the ``n`` highest."""
        pool = [c for c in hand if c != 1]
        return pool[len(pool) - n :] if n else []

    def move(self, obs: Observation, game: Game) -> MoveLike:
        """The move for the turn ``obs``: an engine ``Play``/``Pass``/``Drop`` (or a reply model)."""
        raise NotImplementedError("a Bot subclass must implement move(obs, game)")

    def round_end(self, msg: RoundEnd, game: Game) -> None:
        """Called on ``round_end`` with the whole public history of the round."""

    def game_end(self, msg: GameEnd, game: Game) -> None:
        """Called on ``game_end`` with the scores and ranks."""

    def error(self, msg: ErrorMessage, game: Game | None) -> None:
        """Called when the referee reports this bot's fault (just before it forfeits). Default: log it."""
        _log(f"referee reports an error: {msg.message}")


class FunctionBot(Bot):
    """A bot made of a ``move(obs, game)`` function and, optionally, a ``discard(hand, n, game)`` function."""

    def __init__(
        self,
        move: Callable[[Observation, Game], MoveLike],
        discard: Callable[[Hand, int, Game], Sequence[int]] | None = None,
        name: str = "bot",
    ) -> None:
        self._move = move
        self._discard = discard
        self.name = name

    def move(self, obs: Observation, game: Game) -> MoveLike:
        return self._move(obs, game)

    def discard(self, hand: Hand, n: int, game: Game) -> Sequence[int]:
        if self._discard is None:
            return super().discard(hand, n, game)
        return self._discard(hand, n, game)


def run(
    bot: Bot | None = None,
    *,
    move: Callable[[Observation, Game], MoveLike] | None = None,
    discard: Callable[[Hand, int, Game], Sequence[int]] | None = None,
    name: str = "bot",
    stdin: IO[bytes] | None = None,
    stdout: IO[bytes] | None = None,
    seed: int | str | None = None,
) -> None:
    """Speak protocol v1 for ``bot`` (or for the functions ``move``/``discard``) until ``bye`` or end of input.

    ``stdin``/``stdout`` default to the process's binary streams. While it runs, ``sys.stdout`` points at
    stderr so that stray prints never corrupt the protocol. Each game's ``rng`` is seeded from game_start's
    ``rng_seed`` when the referee sends one, and from fresh randomness otherwise; ``seed`` makes it reproducible
    without the referee's (with it, the two are combined: the same ``seed`` and ``rng_seed``, the same draws).
    Raises ``TypeError`` when neither a bot nor a move function is given.
    """
    if bot is None:
        if move is None:
            raise TypeError("run() needs a Bot or a move function")
        bot = FunctionBot(move, discard, name)
    out = stdout if stdout is not None else sys.stdout.buffer
    inp = stdin if stdin is not None else sys.stdin.buffer
    saved = sys.stdout
    sys.stdout = sys.stderr
    try:
        _Session(bot, out, seed).serve(inp)
    except (BrokenPipeError, KeyboardInterrupt):
        pass
    finally:
        sys.stdout = saved


def _game_seed(seed: int | str | None, rng_seed: str | None, games: int, game_id: str) -> int | str:
    """What a game's ``rng`` is seeded with: the referee's ``rng_seed`` (with ``seed`` when the bot gave one), else
    ``seed`` with the game's number and id, else fresh randomness."""
    if rng_seed is not None:
        return rng_seed if seed is None else f"{seed}:{rng_seed}"
    return random.randrange(2**63) if seed is None else f"{seed}:{games}:{game_id}"


class _Session:
    """The message loop of one bot process."""

    def __init__(self, bot: Bot, out: IO[bytes], seed: int | str | None) -> None:
        self.bot = bot
        self.out = out
        self.seed = seed
        self.game: Game | None = None
        self.games = 0

    def serve(self, inp: IO[bytes]) -> None:
        while True:
            line = inp.readline()
            if not line:
                return
            arrived = time.monotonic()
            if not line.strip():
                continue
            try:
                msg = parse_message(line)
            except ProtocolViolation as exc:
                if exc.kind != ViolationKind.UNKNOWN_TYPE:
                    _log(f"ignoring a line from the referee: {exc.detail}")
                continue
            if isinstance(msg, Bye):
                return
            self.handle(msg, arrived)

    def send(self, line: str) -> None:
        """Write one reply line (compact JSON, as ``protocol.codec.encode`` writes the reply models)."""
        self.out.write(line.encode("utf-8") + b"\n")
        self.out.flush()

    def handle(self, msg: Any, arrived: float) -> None:
        if isinstance(msg, Hello):
            self.send(self.hello_reply())
        elif isinstance(msg, GameStart):
            self.games += 1
            seed = _game_seed(self.seed, msg.rng_seed, self.games, msg.game)
            self.game = Game(
                id=msg.game,
                seat=msg.seat,
                names=list(msg.players),
                ruleset=ruleset_from_rules(msg.rules),
                move_ms=msg.time.move_ms,
                rng=random.Random(seed),
                bank_ms=msg.time.bank_ms,
            )
            self.guard("new_game", lambda g: self.bot.new_game(g))
        elif isinstance(msg, DealMessage):
            self.send(self.answer_deal(msg, arrived))
        elif isinstance(msg, Turn):
            self.send(self.answer_turn(msg, arrived))
        elif isinstance(msg, RoundEnd):
            if self.game is not None:
                self.game.round_ends.append(msg)
            self.guard("round_end", lambda g: self.bot.round_end(msg, g))
        elif isinstance(msg, GameEnd):
            if self.game is not None:
                self.game.result = msg
            self.guard("game_end", lambda g: self.bot.game_end(msg, g))
        elif isinstance(msg, ErrorMessage):
            try:
                self.bot.error(msg, self.game)
            except Exception:
                _log_exception("error")

    def hello_reply(self) -> str:
        """The hello reply: name, and version, author and options when set (as the ``HelloReply`` model)."""
        bot = self.bot
        reply: dict[str, Any] = {"type": "hello", "protocol": PROTOCOL_VERSION, "name": str(bot.name)}
        for key in ("version", "author"):
            value = getattr(bot, key)
            if value is not None:
                reply[key] = str(value)
        if bot.legal_moves:
            reply["options"] = {"legal_moves": True}
        return _json(reply)

    def current_game(self, game_id: str) -> Game:
        """The game a deal or turn belongs to; a stand-in when the referee skipped ``game_start``."""
        if self.game is None or self.game.id != game_id:
            _log(f"message for game {game_id!r} without its game_start; assuming the standard ruleset")
            from referee.engine import Ruleset

            self.game = Game(game_id, 0, [], Ruleset(), 1000, random.Random())
        return self.game

    def answer_deal(self, msg: DealMessage, arrived: float) -> str:
        game = self.current_game(msg.game)
        game.round = msg.round
        game.deadline = arrived + game.move_ms / 1000
        game.discards = ()
        hand = tuple(sorted(msg.hand))
        from referee.engine import discard_options

        options = discard_options(hand, msg.discard)
        cards: tuple[int, ...] | None = None
        try:
            chosen = tuple(sorted(int(c) for c in self.bot.discard(hand, msg.discard, game)))
            if chosen in options or (not options and not chosen):
                cards = chosen
            else:
                _log(
                    f"discard() returned {list(chosen)}, not {msg.discard} cards of the hand {list(hand)} without the 1"
                )
        except Exception:
            _log_exception("discard")
        if cards is None:
            cards = options[-1] if options else ()
            _log(f"discarding {list(cards)} instead")
        game.discards = cards
        rest = list(hand)
        for c in cards:
            rest.remove(c)
        game.hand = tuple(rest)
        return _json({"type": "discard", "cards": list(cards)})

    def answer_turn(self, msg: Turn, arrived: float) -> str:
        game = self.current_game(msg.game)
        game.round = msg.round
        game.turn = msg
        game.deadline = arrived + game.move_ms / 1000
        obs = observation_from_turn(msg)
        game.hand = obs.hand
        legal = game.legal_moves(obs)
        action: Move | None = None
        try:
            chosen = self.bot.move(obs, game)
            if not isinstance(chosen, Play | Pass | Drop) and getattr(chosen, "type", None) in ("play", "pass", "drop"):
                chosen = reply_to_action(chosen)  # type: ignore[arg-type]  # a reply model: the same fields
            if isinstance(chosen, Play | Pass | Drop) and chosen in legal:
                action = chosen
            else:
                _log(f"move() returned {chosen!r}, which is not legal here (last {obs.last}, hand {list(obs.hand)})")
        except Exception:
            _log_exception("move")
        if action is None:
            action = _fallback(legal)
            _log(f"playing {action!r} instead")
        return legal_reply(action)

    def guard(self, what: str, call: Callable[[Game], None]) -> None:
        """Call a bot hook with the current game; a hook that raises is logged, not fatal."""
        if self.game is None:
            return
        try:
            call(self.game)
        except Exception:
            _log_exception(what)


def _fallback(legal: list[Move]) -> Move:
    """A safe legal move: a plain pass if allowed, else a drop, else the only move (the opening 1)."""
    for action in legal:
        if isinstance(action, Pass) and not action.force:
            return action
    for action in legal:
        if isinstance(action, Drop):
            return action
    return legal[0]


_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _log(text: str) -> None:
    print(f"[sdk] {text}", file=sys.stderr, flush=True)


def _log_exception(where: str) -> None:
    import traceback

    _log(f"{where}() raised:")
    traceback.print_exc(file=sys.stderr)
    sys.stderr.flush()
