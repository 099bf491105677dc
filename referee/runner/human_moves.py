"""What the human seat shows and reads, without I/O: the table's actions in words, the legal moves numbered with
their cost (a short list, cheapest first, or every one), a typed move read (a number, shorthand such as ``7x3+1``,
or ``play 7x3 b1``), and the engine's reason when a move is not legal."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from protocol import DropEntry, DropReply, PassEntry, PassReply, PlayEntry, PlayReply, Turn, observation_from_turn
from protocol.tactics import others_playing, play_penalty, stalled
from referee.engine import Drop, IllegalMove, Pass, Play, Ruleset, apply, sample_state

Move = PlayReply | PassReply | DropReply
Entry = PlayEntry | PassEntry | DropEntry

HELP = (
    "moves: the number of a listed move; or a play such as '7x1' (one 7), '7x3' (three 7s), '7x3+1' (three 7s "
    "with 1 bonus chip; also 'play 7x3 b1'); 'pass'; 'force' (pass and force the next player); 'drop'; 'all' to "
    "number every legal move; '?' for this. Any legal move is accepted when typed, listed or not"
)
#: The plays numbered at a turn, cheapest first (pass, force and drop are numbered too); ``all`` numbers every one.
SHORTLIST = 12
_SHORT = re.compile(r"^(?:play\s+)?(\d+)(?:\s*x\s*(\d+))?(?:\s*(?:\+|\bb)\s*(\d+))?$")


def chips(n: int) -> str:
    return f"{n} chip" if abs(n) == 1 else f"{n} chips"


def move_text(move: Move) -> str:
    """``7x3+1``, ``pass``, ``force``, ``drop``: the shorthand the prompt reads back."""
    if isinstance(move, PlayReply):
        return f"{move.value}x{move.count}" + (f"+{move.bonus}" if move.bonus else "")
    if isinstance(move, PassReply):
        return "force" if move.force else "pass"
    return "drop"


def move_cost(move: Move, turn: Turn, ruleset: Ruleset) -> str:
    """What ``move`` costs now: the penalty chips it takes (net of the finishing refund) and bonus chips spent."""
    if isinstance(move, PlayReply):
        penalty = play_penalty(move.value, move.bonus, turn.last, ruleset.bonus_step)
        finishes = move.count == len(turn.hand)
        if finishes:
            penalty -= ruleset.finish_refund
        text = chips(penalty)
        if move.bonus:
            text += f", {move.bonus} bonus"
        return text + (", out" if finishes else "")
    if isinstance(move, PassReply):
        return chips(2) + ", forces" if move.force else chips(1)
    return chips(len(turn.hand))


def score_cost(move: Move, turn: Turn, ruleset: Ruleset) -> int:
    """What ``move`` adds to the mover's score now: the penalty chips it takes (net of the finishing refund), and
    for each bonus chip it spends the ``bonus_refund`` points that chip would take off the score at the end."""
    if isinstance(move, PlayReply):
        penalty = play_penalty(move.value, move.bonus, turn.last, ruleset.bonus_step)
        if move.count == len(turn.hand):
            penalty -= ruleset.finish_refund
        return penalty + ruleset.bonus_refund * move.bonus
    if isinstance(move, PassReply):
        return 2 if move.force else 1
    return len(turn.hand)


def dominated(move: Move, legal: Sequence[Move], turn: Turn, ruleset: Ruleset) -> bool:
    """Whether another legal play of the same cards spends fewer bonus chips and adds no more to the score
    (``score_cost``): whatever follows, the mover ends at least as well with it, the chips kept in hand."""
    if not isinstance(move, PlayReply) or not move.bonus:
        return False
    cost = score_cost(move, turn, ruleset)
    return any(
        isinstance(other, PlayReply)
        and (other.value, other.count) == (move.value, move.count)
        and other.bonus < move.bonus
        and score_cost(other, turn, ruleset) <= cost
        for other in legal
    )


def listed(legal: Sequence[Move], turn: Turn, ruleset: Ruleset, size: int | None = SHORTLIST) -> list[Move]:
    """The legal moves to number, cheapest first (``score_cost``; then more cards, lower value, fewer chips): the
    plays no other play of the same cards has ``dominated``, at most ``size`` of them, with pass, force and drop
    (pass and force left out at a stalled table: no one else playing, or nobody played since one's own pass);
    ``size`` None: every legal move (a stalled table's passes last). What is left out is legal, and accepted when
    typed."""
    obs = observation_from_turn(turn)  # PROTOCOL.md's stalled-table rule: a pass only comes back, so it goes
    stall = not others_playing(obs) or stalled(obs)  # last in the whole list and out of the short one

    def futile(m: Move) -> bool:
        return stall and isinstance(m, PassReply)

    ranked = sorted(legal, key=lambda m: (futile(m), score_cost(m, turn, ruleset), *_order(m)))
    if size is None:
        return ranked
    plays = [m for m in ranked if isinstance(m, PlayReply) and not dominated(m, legal, turn, ruleset)][:size]
    return [m for m in ranked if not futile(m) and (not isinstance(m, PlayReply) or m in plays)]


def _order(move: Move) -> tuple[int, int, int]:
    """Ties of cost: plays before passes and drops, more cards first, then the lower value, then fewer chips."""
    if isinstance(move, PlayReply):
        return (-move.count, move.value, move.bonus)
    return (1, 0, 0)


def move_table(moves: Sequence[Move], turn: Turn, ruleset: Ruleset, width: int = 96) -> list[str]:
    """The numbered moves with their cost, in columns."""
    cells = [f"{i:>3}) {move_text(m):<7} {move_cost(m, turn, ruleset)}" for i, m in enumerate(moves, start=1)]
    size = max((len(c) for c in cells), default=0) + 3
    per_line = max(1, width // size) if size else 1
    return ["".join(c.ljust(size) for c in cells[i : i + per_line]).rstrip() for i in range(0, len(cells), per_line)]


def describe_entry(entry: Entry, names: Sequence[str], forced: bool = False) -> str:
    """One action of the round in words: who did what and what it cost."""
    who = f"seat {entry.seat} {names[entry.seat]}" if entry.seat < len(names) else f"seat {entry.seat}"
    who += " (forced)" if forced else ""
    if isinstance(entry, PlayEntry):
        if entry.forfeit:
            return f"{who} forfeited: the referee played its 1"
        cards = f"{entry.count}x {entry.value}" if entry.count > 1 else f"a {entry.value}"
        text = f"{who} played {cards}"
        if entry.bonus:
            text += f" with {entry.bonus} bonus chip{'s' if entry.bonus > 1 else ''}"
        text += f" ({chips(entry.penalty)})"
        return text + (": out of cards" if entry.finished else "")
    if isinstance(entry, PassEntry):
        if entry.force:
            return f"{who} passed and forced the next player ({chips(entry.penalty)})"
        return f"{who} passed ({chips(entry.penalty)})"
    if entry.limit:
        return f"{who} was dropped at the turn limit ({chips(entry.penalty)})"
    if entry.forfeit:
        return f"{who} forfeited and dropped out ({chips(entry.penalty)})"
    return f"{who} dropped out ({chips(entry.penalty)})"


def describe_since(history: Sequence[Entry], start: int, names: Sequence[str], me: int) -> list[str]:
    """The actions from ``history[start:]`` in words, the person's own plain moves left out."""
    out = []
    for i in range(start, len(history)):
        entry = history[i]
        own = entry.seat == me and not getattr(entry, "forfeit", False) and not getattr(entry, "limit", False)
        if own:
            continue
        before = history[i - 1] if i > 0 else None
        forced = isinstance(before, PassEntry) and before.force and not isinstance(entry, PassEntry)
        out.append(describe_entry(entry, names, forced))
    return out


def parse_move(text: str, moves: Sequence[Move]) -> Move | str:
    """The move ``text`` names (a number of ``moves``, shorthand, ``play ...``, ``pass``, ``force``, ``drop``), or
    why it names none. Whether the move is legal is not checked here."""
    words = text.strip().lower()
    if not words:
        return "type a move (or '?')"
    if words.isdigit():
        n = int(words)
        if 1 <= n <= len(moves):
            return moves[n - 1]
        hint = f", or type '{n}x1' to play one {n}" if 1 <= n <= 23 else ""
        return f"there is no move {n}: pick a number from 1 to {len(moves)}{hint}"
    if words in ("pass", "p"):
        return PassReply()
    if words in ("force", "f", "pass force", "pass and force"):
        return PassReply(force=True)
    if words in ("drop", "d"):
        return DropReply()
    match = _SHORT.match(words)
    if match is None or (match.group(2) is None and match.group(3) is None and not words.startswith("play")):
        return f"cannot read {text.strip()!r}; {HELP}"
    value, count, bonus = int(match.group(1)), int(match.group(2) or 1), int(match.group(3) or 0)
    if not (1 <= value <= 23 and count >= 1):
        return f"{text.strip()!r} is not a move: card values are 1 to 23, and at least 1 card"
    return PlayReply(value=value, count=count, bonus=bonus)


def engine_reason(move: Move, turn: Turn, ruleset: Ruleset) -> str:
    """Why the engine refuses ``move`` in the position of ``turn`` (the others' hidden cards play no part in it)."""
    obs = observation_from_turn(turn)
    try:
        state = sample_state(obs, ruleset, random.Random(0))
    except ValueError:  # pragma: no cover - a turn message is always of the play phase
        return "that move is not legal now"
    action: Play | Pass | Drop
    if isinstance(move, PlayReply):
        action = Play(move.value, move.count, move.bonus)
    elif isinstance(move, PassReply):
        action = Pass(move.force)
    else:
        action = Drop()
    try:
        apply(state, action)
    except IllegalMove as exc:
        return str(exc)
    return "that move is not legal now"  # pragma: no cover - the referee's list holds every legal move


def discard_problem(hand: Sequence[int], cards: Sequence[int], need: int) -> str | None:
    """Why discarding ``cards`` from ``hand`` is refused when ``need`` cards are to be discarded, or None."""
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
