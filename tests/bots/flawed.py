"""A stdlib-only bot that plays legally except for one flaw, named by its first argument.

Base play: discard the highest cards; open with the 1; play the lowest card not below last; else lift the
highest card over last with bonus chips when it has enough; else drop. Flaws:

  none                  no flaw
  ignores-bye           keeps running after bye and end of input
  strict-fields         exits on a message with a field it does not know
  answers-unknown       answers a message of unknown type
  junk-in-round-2       prints a debug line on stdout before each round-2 reply
  crash-when-forced     exits when forced
  lower-without-bonus   plays its lowest card without bonus chips when every card is lower than last
  slow-without-bonus    sleeps past the move time once it has no bonus chips left
  force-when-alone      passes with force when it is the last player still in the round
  skips-the-1           opens with another card than the 1
  version-2             says it speaks protocol 2
  wrong-discard-count   discards one card too many
  chatty-at-end         writes "good game" on stdout after each game_end
"""

import json
import sys
import time

FLAW = sys.argv[1] if len(sys.argv) > 1 else "none"
KNOWN = {
    "hello": {"type", "protocol"},
    "game_start": {"type", "game", "seat", "players", "rules", "time"},
    "deal": {"type", "game", "round", "hand", "discard"},
    "turn": {"type", "game", "round", "seat", "hand", "last", "forced", "players", "history", "legal"},
    "round_end": {"type", "game", "round", "players", "history"},
    "game_end": {"type", "game", "scores", "ranks", "forfeits"},
    "error": {"type", "message"},
    "bye": {"type"},
}


def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def move(msg):
    hand, last = msg["hand"], msg["last"]
    me = msg["players"][msg["seat"]]
    others = [p for s, p in enumerate(msg["players"]) if s != msg["seat"]]
    if last is None:
        if FLAW == "skips-the-1" and len(hand) > 1:
            return {"type": "play", "value": hand[1], "count": 1, "bonus": 0}
        return {"type": "play", "value": 1, "count": 1, "bonus": 0}
    if FLAW == "force-when-alone" and all(p["status"] != "playing" for p in others):
        return {"type": "pass", "force": True}
    if FLAW == "lower-without-bonus" and max(hand) < last:
        return {"type": "play", "value": hand[0], "count": 1, "bonus": 0}
    higher = [c for c in hand if c >= last]
    if higher:
        return {"type": "play", "value": min(higher), "count": 1, "bonus": 0}
    need = -(-(last - hand[-1]) // 5)
    if need <= me["bonus"]:
        return {"type": "play", "value": hand[-1], "count": 1, "bonus": need}
    return {"type": "drop"}


for line in sys.stdin:
    msg = json.loads(line)
    kind = msg["type"]
    if FLAW == "strict-fields" and set(msg) - KNOWN.get(kind, set(msg)):
        sys.exit(3)
    if kind not in KNOWN:
        if FLAW == "answers-unknown":
            reply({"type": "ok"})
        continue
    if kind == "hello":
        reply({"type": "hello", "protocol": 2 if FLAW == "version-2" else 1, "name": f"flawed-{FLAW}"})
    elif kind == "deal":
        if FLAW == "junk-in-round-2" and msg["round"] == 2:
            print("thinking about my discard...", flush=True)
        n = msg["discard"] + (1 if FLAW == "wrong-discard-count" else 0)
        cards = [c for c in msg["hand"] if c != 1]
        reply({"type": "discard", "cards": cards[len(cards) - n :]})
    elif kind == "turn":
        if FLAW == "junk-in-round-2" and msg["round"] == 2:
            print("thinking...", flush=True)
        if FLAW == "crash-when-forced" and msg["forced"]:
            sys.exit(4)
        if FLAW == "slow-without-bonus" and msg["players"][msg["seat"]]["bonus"] == 0:
            time.sleep(2.0)
        reply(move(msg))
    elif kind == "game_end" and FLAW == "chatty-at-end":
        print("good game", flush=True)
    elif kind == "bye" and FLAW != "ignores-bye":
        break

if FLAW == "ignores-bye":
    time.sleep(30)
