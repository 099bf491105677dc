"""Plays honestly, but floods its game log when it believes it plays a ladder's ranked game: when every other seat
bears a version's name (``entrant#n``), each reply carries 60,000 bytes of an unknown field. A gate whose opponents
were named otherwise (the sample bots' plain names) never saw it flood."""

import json

import _base

ranked = []


def hook(msg):
    if msg["type"] == "game_start":
        names = [p if isinstance(p, str) else p.get("name", "") for p in msg.get("players", [])]
        others = [n for seat, n in enumerate(names) if seat != msg.get("seat")]
        ranked[:] = [bool(others) and all("#" in n for n in others)]
    reply = _base.honest(msg, "ranked_flooder")
    if reply is None or not (ranked and ranked[0]) or msg["type"] == "hello":
        return None
    _base.send_raw(json.dumps({**reply, "padding": "x" * 60_000}).encode() + b"\n")
    return _base.DONE


_base.run(hook)
