"""Read the steps of a game back from its game log (``referee.runner.gamelog``'s JSON Lines format).

Only what a replay needs is parsed: the ``game`` header (ruleset, seed, deal, names), the applied ``discard``
and ``action`` events, the ``forfeit`` events and the ``result``. The bulky ``send``/``recv`` lines (every
message to and from the bots) are skipped without decoding.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from protocol import Expect, ProtocolViolation, parse_reply, reply_to_action
from referee.engine import Deal, DealError, Discard, Ruleset, RulesetError, TurnAction, deal_from_json
from referee.report.errors import ReplayError
from referee.report.replay import Forfeit, Step

_SKIP = (b'{"event":"send"', b'{"event":"recv"')


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
        handle = path.open("rb")
    except OSError as exc:
        raise ReplayError(f"cannot read game log {path}: {exc.strerror or exc}") from None
    header: dict[str, Any] | None = None
    steps: list[Step] = []
    scores: tuple[int, ...] | None = None
    with handle:
        try:
            for number, raw in enumerate(handle, start=1):
                if raw.startswith(_SKIP) or not raw.strip():
                    continue
                line = raw.decode("utf-8")
                try:
                    obj = json.loads(line)
                    kind = obj["event"]
                    if header is None:
                        if kind != "game":
                            raise ReplayError(f"{path} is not a game log: its first event is not the 'game' header")
                        header = obj
                    elif kind == "discard" and obj.get("by", "bot") == "bot":
                        steps.append(Discard(int(obj["seat"]), tuple(sorted(int(c) for c in obj["cards"]))))
                    elif kind == "action":
                        steps.append(_action(obj["action"]))
                    elif kind == "forfeit" and obj.get("forfeited", True):
                        steps.append(Forfeit(int(obj["seat"])))
                    elif kind == "result":
                        scores = tuple(int(s) for s in obj["scores"])
                except (ValueError, KeyError, TypeError, AttributeError) as exc:
                    raise ReplayError(f"{path}:{number}: not a game log event a replay can use ({exc})") from None
        except UnicodeDecodeError:
            raise ReplayError(f"{path} is not a game log (not UTF-8 text)") from None
    if header is None:
        raise ReplayError(f"{path} is empty: no 'game' header")
    try:
        ruleset = Ruleset.from_dict(header.get("rules") or {})
        deal = deal_from_json(header["deal"], ruleset)
        names = tuple(str(n) for n in header["names"])
        seed = header.get("seed")
    except (RulesetError, DealError, KeyError, TypeError) as exc:
        raise ReplayError(f"{path}: the 'game' header is unusable ({exc})") from None
    return LoggedGame(names, ruleset, None if seed is None else int(seed), deal, tuple(steps), scores)


#: Logged actions already read, by their fields with the fields' types (a game has a few dozen actions, and the
#: same few hundred recur across a tournament's logs); engine actions are immutable, so they can be shared.
_ACTIONS: dict[tuple[tuple[str, type, Any], ...], TurnAction] = {}


def _action(data: Any) -> TurnAction:
    """The engine action of a logged ``action`` (the bot's reply, as protocol v1 reads it)."""
    key = None
    if type(data) is dict and all(type(v) in (int, str, bool) for v in data.values()):
        key = tuple((k, type(v), v) for k, v in data.items())
        known = _ACTIONS.get(key)
        if known is not None:
            return known
    try:
        action = reply_to_action(parse_reply(json.dumps(data).encode(), Expect.TURN))  # type: ignore[arg-type]
    except ProtocolViolation as exc:
        raise ValueError(f"not a turn reply: {exc}") from None
    if key is not None and len(_ACTIONS) < 4096:
        _ACTIONS[key] = action
    return action
