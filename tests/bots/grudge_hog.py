"""Plays honestly, but at a table with the entrant ``victim`` it allocates memory without end at its first turn: a
bot that hogs memory only in some of its ranked games (its gate, played before ``victim`` entered, saw none)."""

import _base

hoard = []
grudge = []


def hook(msg):
    if msg["type"] == "game_start":
        names = [p if isinstance(p, str) else p.get("name", "") for p in msg.get("players", [])]
        grudge[:] = [any(n.startswith("victim#") for n in names)]
    if msg["type"] == "turn" and grudge and grudge[0]:
        while True:
            hoard.append(bytearray(16 * 1024 * 1024))
    return None


_base.run(hook)
