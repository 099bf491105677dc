"""A random legal bot of protocol v1 that imports only the standard library (json, random, sys): the baseline
bot of bench/bench_hotpaths.py. It discards its highest cards and picks uniformly among its legal moves,
computed from the turn message alone (seeded from the game id and seat, so runs are repeatable)."""

import json
import random
import sys


def legal_moves(msg, step):
    last, hand = msg["last"], msg["hand"]
    if last is None:
        return [{"type": "play", "value": 1, "count": 1, "bonus": 0}]
    me = msg["players"][msg["seat"]]
    chips = me["bonus"]
    moves = []
    for value in sorted(set(hand)):
        need = 0 if value >= last else (last - value + step - 1) // step
        for count in range(1, hand.count(value) + 1):
            for bonus in range(need, chips + 1):
                moves.append({"type": "play", "value": value, "count": count, "bonus": bonus})
    if not msg["forced"]:
        moves.append({"type": "pass"})
        if any(p["status"] == "playing" for s, p in enumerate(msg["players"]) if s != msg["seat"]):
            moves.append({"type": "pass", "force": True})
    moves.append({"type": "drop"})
    return moves


def main():
    rng, step = random.Random(0), 5
    out = sys.stdout
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        reply = None
        if kind == "hello":
            reply = {"type": "hello", "protocol": 1, "name": "stdlib_random"}
        elif kind == "game_start":
            rng = random.Random(f"{msg['game']}/{msg['seat']}")
            step = msg["rules"].get("bonus_step", 5)
        elif kind == "deal":
            cards = [c for c in msg["hand"] if c != 1]
            reply = {"type": "discard", "cards": cards[len(cards) - msg["discard"] :] if msg["discard"] else []}
        elif kind == "turn":
            reply = rng.choice(legal_moves(msg, step))
        elif kind == "bye":
            break
        if reply is not None:
            out.write(json.dumps(reply) + "\n")
            out.flush()


if __name__ == "__main__":
    main()
