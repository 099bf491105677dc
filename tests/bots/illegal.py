"""Makes one illegal move or discard, chosen by ILLEGAL (when its situation allows it; honest until then).

Moves: opening (not the 1 when it must open), not_held, too_many (more copies than held), too_low (below
last without bonus), bonus_over (more bonus chips than held), pass_forced, force_alone.
Discards: discard_count (two cards), discard_one (the 1), discard_unheld (a card it does not hold).
"""

import os

import _base

MODE = os.environ["ILLEGAL"]


def hook(msg):
    if msg["type"] == "deal":
        hand = msg["hand"]
        others = [c for c in hand if c != 1]
        if MODE == "discard_count":
            return {"type": "discard", "cards": others[:2]}
        if MODE == "discard_one" and 1 in hand:
            return {"type": "discard", "cards": [1, *others[:2]]}
        if MODE == "discard_unheld":
            missing = next(v for v in range(2, 24) if v not in hand)
            return {"type": "discard", "cards": [missing, *others[:2]]}
        return None
    if msg["type"] != "turn":
        return None
    hand, last = msg["hand"], msg["last"]
    me = msg["players"][msg["seat"]]
    if MODE == "opening" and last is None:
        return {"type": "play", "value": hand[-1], "count": 1, "bonus": 0}
    if last is None:
        return None
    if MODE == "not_held":
        missing = next(v for v in range(23, 0, -1) if v not in hand)
        return {"type": "play", "value": missing, "count": 1, "bonus": 0}
    if MODE == "too_many":
        value = max(hand)
        return {"type": "play", "value": value, "count": hand.count(value) + 1, "bonus": 0}
    if MODE == "too_low" and min(hand) < last:
        return {"type": "play", "value": min(hand), "count": 1, "bonus": 0}
    if MODE == "bonus_over":
        return {"type": "play", "value": max(hand), "count": 1, "bonus": me["bonus"] + 1}
    if MODE == "pass_forced" and msg["forced"]:
        return {"type": "pass"}
    if MODE == "force_alone":
        others_playing = [p for i, p in enumerate(msg["players"]) if i != msg["seat"] and p["status"] == "playing"]
        if not others_playing:
            return {"type": "pass", "force": True}
        return {"type": "pass"}
    return None


_base.run(hook)
