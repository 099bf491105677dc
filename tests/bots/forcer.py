"""An honest bot that passes and forces whenever it may (so the next seat is forced)."""

import _base


def hook(msg):
    if msg["type"] != "turn" or msg["last"] is None or msg["forced"]:
        return None
    if any(p["status"] == "playing" for i, p in enumerate(msg["players"]) if i != msg["seat"]):
        return {"type": "pass", "force": True}
    return None


_base.run(hook)
