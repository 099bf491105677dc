"""An honest bot that trusts nothing: it recomputes from the messages alone (PROTOCOL.md and RULES.md, no referee
code) every number the referee sends and writes each disagreement to stderr as a line starting ``INCONSISTENT``.

Checked: the game and round numbers, its seat and the names, the form of ``rng_seed``; each deal (15 cards, sorted,
1..23, no value more often than the deck holds, the 1 dealt at most once per round); at each turn its own hand (the
deal less its discard and its plays), every seat's cards, penalty, bonus and status (replayed from the history with
the rules' costs), the history (a continuation of the one it saw, each play's penalty net of the finish refund, each
pass's and drop's cost, turns in seat order skipping finished and dropped seats), ``last``, ``forced``, and
``legal`` (asked for in its hello: every legal move in the protocol's order, worked out from the rules); at
round_end the table and the whole history; at game_end the scores (penalty − bonus_refund × bonus left, clipped at 0
under ``chip_floor``), the ranks (ties share a rank, the next is skipped; forfeiters below everyone else) and the
forfeits. It plays a random legal move (never passing on a stalled table) and a random discard, seeded at each
game_start by the game id and its seat (and ``STRICT_SEED`` when set), so a seeded tournament plays the same moves
every time.
"""

import json
import os
import random
import sys
from collections import Counter

SEED = os.environ.get("STRICT_SEED", "")
rng = random.Random(SEED)
PLAYING, FINISHED, DROPPED = "playing", "finished", "dropped"
problems = 0


def bad(what):
    global problems
    problems += 1
    sys.stderr.write(f"INCONSISTENT {G.get('game')} round {G.get('round')}: {what}\n")
    sys.stderr.flush()


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


G = {}  # the game as this bot reconstructs it


def start_round(rnd):
    n = len(G["names"])
    G["round"] = rnd
    G["cards"] = [G["rules"]["hand_size"] - G["rules"]["discard"]] * n
    G["status"] = [PLAYING] * n
    G["history"] = []  # entries applied so far this round
    G["last"] = None
    G["forced"] = None  # the seat forced to play, if any
    G["to_move"] = None  # whose turn it is, once known (after the opening: the seat after the mover)
    G["turns"] = 0
    G["forfeited_round"] = set()


def next_playing(seat):
    n = len(G["names"])
    for k in range(1, n + 1):
        s = (seat + k) % n
        if G["status"][s] == PLAYING:
            return s
    return None


def apply(entry):
    """Apply one history entry to the reconstructed table, checking its numbers."""
    rules = G["rules"]
    seat, action = entry["seat"], entry["action"]
    forfeit, limit = entry.get("forfeit", False), entry.get("limit", False)
    if not (0 <= seat < len(G["names"])):
        bad(f"history entry of seat {seat}")
        return
    if not forfeit and not limit:
        if G["to_move"] is not None and seat != G["to_move"]:
            bad(f"seat {seat} moved, but it was seat {G['to_move']}'s turn ({entry})")
        if G["status"][seat] != PLAYING:
            bad(f"seat {seat} moved while {G['status'][seat]}")
        G["turns"] += 1
    if action == "play":
        v, c, b = entry["value"], entry["count"], entry["bonus"]
        if not forfeit:
            if G["last"] is None and (v, c, b) != (1, 1, 0):
                bad(f"the opening is not the 1: {entry}")
            if G["last"] is not None and v < G["last"] - rules["bonus_step"] * b:
                bad(f"an illegal play was accepted: {entry}, last {G['last']}")
            if b > G["bonus"][seat]:
                bad(f"seat {seat} spent {b} bonus chips holding {G['bonus'][seat]}")
        cost = 0 if G["last"] is None else max(0, v - (G["last"] + rules["bonus_step"] * b) - 1)
        G["cards"][seat] -= c
        G["bonus"][seat] -= b
        finished = G["cards"][seat] == 0
        if finished:
            cost -= rules["finish_refund"]
        if finished != entry.get("finished", False):
            bad(f"play {entry}: finished should be {finished} (cards left {G['cards'][seat]})")
        if G["cards"][seat] < 0:
            bad(f"seat {seat} played more cards than it held: {entry}")
        if rules.get("chip_floor"):  # the count never goes below 0: the entry shows the actual change
            cost = max(0, G["penalty"][seat] + cost) - G["penalty"][seat]
        if entry["penalty"] != cost:
            bad(f"play {entry}: penalty should be {cost} (last {G['last']}, count {G['penalty'][seat]})")
        G["penalty"][seat] += entry["penalty"]
        G["last"] = v
        if finished:
            G["status"][seat] = FINISHED
        if G["forced"] == seat:
            G["forced"] = None
    elif action == "pass":
        if G["last"] is None:
            bad(f"a pass before the opening: {entry}")
        if G["forced"] == seat:
            bad(f"a forced seat passed: {entry}")
        force = entry["force"]
        want = 2 if force else 1
        if entry["penalty"] != want:
            bad(f"pass {entry}: penalty should be {want}")
        G["penalty"][seat] += entry["penalty"]
        if force:
            target = next_playing(seat)
            if target is None or target == seat:
                bad(f"a force with nobody else playing: {entry}")
            G["forced"] = target
    elif action == "drop":
        if entry["penalty"] != G["cards"][seat]:
            bad(f"drop {entry}: penalty should be {G['cards'][seat]} (cards in hand)")
        G["penalty"][seat] += entry["penalty"]
        G["status"][seat] = DROPPED
        if G["forced"] == seat:
            G["forced"] = None
        if forfeit:
            G["forfeited_round"].add(seat)
            G["forfeits"].add(seat)
    else:
        bad(f"unknown history action {entry}")
    if not forfeit and not limit:
        G["to_move"] = next_playing(seat)
    elif G["to_move"] is not None and G["status"][G["to_move"]] != PLAYING:
        G["to_move"] = next_playing(G["to_move"])


def sync_history(history, whole):
    """Check that ``history`` continues what was seen, and apply the new entries."""
    seen = G["history"]
    if history[: len(seen)] != seen:
        bad(f"the history changed: had {len(seen)} entries, now the first ones differ")
        return
    for entry in history[len(seen) :]:
        apply(entry)
        seen.append(entry)
    if whole and G["status"].count(PLAYING):
        bad(f"round_end with seats still playing: {G['status']}")


def check_table(players):
    if [p["name"] for p in players] != G["names"]:
        bad(f"names {[p['name'] for p in players]} != {G['names']}")
    for s, p in enumerate(players):
        mine = (G["cards"][s], G["penalty"][s], G["bonus"][s], G["status"][s])
        theirs = (p["cards"], p["penalty"], p["bonus"], p["status"])
        if mine != theirs:
            bad(f"seat {s}: table says cards/penalty/bonus/status {theirs}, the history gives {mine}")


def legal_moves(hand, last, forced):
    rules, seat = G["rules"], G["seat"]
    if last is None:
        return [{"type": "play", "value": 1, "count": 1, "bonus": 0}]
    chips = G["bonus"][seat]
    out = []
    held = Counter(hand)
    for v in sorted(held):
        for c in range(1, held[v] + 1):
            for b in range(chips + 1):
                if v >= last - rules["bonus_step"] * b:
                    out.append({"type": "play", "value": v, "count": c, "bonus": b})
    others = any(st == PLAYING for s, st in enumerate(G["status"]) if s != seat)
    if not forced:
        out.append({"type": "pass"})
        if others:
            out.append({"type": "pass", "force": True})
    out.append({"type": "drop"})
    return out


def norm(move):
    return (move["type"], move.get("value"), move.get("count"), move.get("bonus"), move.get("force", False))


def on_turn(msg):
    if msg["game"] != G["game"] or msg["round"] != G["round"] or msg["seat"] != G["seat"]:
        bad(f"turn for game {msg['game']} round {msg['round']} seat {msg['seat']}")
    sync_history(msg["history"], False)
    check_table(msg["players"])
    if msg["hand"] != sorted(G["hand"]):
        bad(f"hand {msg['hand']} != {sorted(G['hand'])}")
    if msg["hand"] != sorted(msg["hand"]):
        bad("the hand is not sorted")
    if msg["last"] != G["last"]:
        bad(f"last {msg['last']} != {G['last']}")
    forced = G["forced"] == G["seat"]
    if msg["forced"] != forced:
        bad(f"forced {msg['forced']} != {forced}")
    if G["to_move"] is not None and G["to_move"] != G["seat"]:
        bad(f"asked to move, but it is seat {G['to_move']}'s turn")
    if G["status"][G["seat"]] != PLAYING:
        bad(f"asked to move while {G['status'][G['seat']]}")
    legal = legal_moves(msg["hand"], msg["last"], msg["forced"])
    if [norm(m) for m in msg.get("legal", [])] != [norm(m) for m in legal]:
        bad(f"legal {msg.get('legal')} != {legal}")
    # a random legal move; never pass on a stalled table (no play since its own last pass) or alone
    mine = G["seat"]
    last_pass = max((i for i, e in enumerate(G["history"]) if e["seat"] == mine and e["action"] == "pass"), default=-1)
    stalled = last_pass >= 0 and not any(e["action"] == "play" for e in G["history"][last_pass + 1 :])
    alone = not any(st == PLAYING for s, st in enumerate(G["status"]) if s != mine)
    choices = [m for m in legal if m["type"] != "pass" or not (stalled or alone)]
    plays = [m for m in choices if m["type"] == "play"]
    if plays and rng.random() < 0.4:  # the most cards at the least cost: rounds that end in finishes
        move = max(plays, key=lambda m: (m["count"], -m["bonus"], -m["value"]))
    else:
        move = rng.choice(plays) if plays and rng.random() < 0.8 else rng.choice(choices)
    if move["type"] == "play":
        for _ in range(move["count"]):
            G["hand"].remove(move["value"])
    send(move)


def on_message(msg):
    kind = msg["type"]
    if kind == "hello":
        if msg.get("protocol") != 1:
            bad(f"hello {msg}")
        send({"type": "hello", "protocol": 1, "name": "strict", "options": {"legal_moves": True}})
    elif kind == "game_start":
        G.clear()
        G.update(game=msg["game"], seat=msg["seat"], names=msg["players"], rules=msg["rules"], round=0)
        rng.seed(f"{SEED}/{msg['game']}/{msg['seat']}")
        n = len(G["names"])
        if not (2 <= n <= 4 and 0 <= G["seat"] < n):
            bad(f"game_start {msg}")
        seed = msg.get("rng_seed")  # optional; when sent, 16 lowercase hex digits (PROTOCOL.md)
        hexdigits = set("0123456789abcdef")
        if seed is not None and not (isinstance(seed, str) and len(seed) == 16 and set(seed) <= hexdigits):
            bad(f"game_start rng_seed {seed!r}")
        G["penalty"] = [0] * n
        G["bonus"] = [G["rules"]["start_bonus"]] * n
        G["forfeits"] = set()
        G["done_rounds"] = 0
    elif kind == "deal":
        rnd = G["round"] + 1
        if msg["game"] != G["game"] or msg["round"] != rnd:
            bad(f"deal of game {msg['game']} round {msg['round']}, expected round {rnd}")
        start_round(msg["round"])
        hand = msg["hand"]
        rules = G["rules"]
        if len(hand) != rules["hand_size"] or hand != sorted(hand) or msg["discard"] != rules["discard"]:
            bad(f"deal {msg}")
        counts = Counter(hand)
        if any(not (1 <= c <= 23) for c in hand) or counts[1] > 1 or counts[2] > 2 or max(counts.values()) > 3:
            bad(f"deal holds cards the deck does not: {hand}")
        pool = [c for c in hand if c != 1]
        discard = rng.sample(pool, msg["discard"])
        G["hand"] = list(hand)
        for c in discard:
            G["hand"].remove(c)
        send({"type": "discard", "cards": discard})
    elif kind == "turn":
        on_turn(msg)
    elif kind == "round_end":
        if msg["game"] != G["game"] or msg["round"] != G["round"]:
            bad(f"round_end of game {msg['game']} round {msg['round']}")
        sync_history(msg["history"], True)
        check_table(msg["players"])
        G["done_rounds"] += 1
    elif kind == "game_end":
        on_game_end(msg)
    elif kind == "error":
        sys.stderr.write(f"error from the referee: {msg['message']}\n")


def on_game_end(msg):
    rules, n = G["rules"], len(G["names"])
    if msg["game"] != G["game"]:
        bad(f"game_end of game {msg['game']}")
    forfeits = sorted(msg["forfeits"])
    if not set(G["forfeits"]) <= set(forfeits):
        bad(f"forfeits {forfeits} miss the forfeit drops seen {sorted(G['forfeits'])}")
    if G["done_rounds"] == rules["rounds"]:
        scores = [G["penalty"][s] - rules["bonus_refund"] * G["bonus"][s] for s in range(n)]
        if rules.get("chip_floor"):
            scores = [max(0, x) for x in scores]
        if msg["scores"] != scores:
            bad(f"scores {msg['scores']} != {scores} (penalty {G['penalty']}, bonus {G['bonus']})")
    scores = msg["scores"]
    key = [(s in forfeits, scores[s]) for s in range(n)]
    ranks = [1 + sum(1 for t in range(n) if key[t] < key[s]) for s in range(n)]
    if msg["ranks"] != ranks:
        bad(f"ranks {msg['ranks']} != {ranks} for scores {scores}, forfeits {forfeits}")


for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "bye":
        break
    try:
        on_message(message)
    except Exception as exc:  # a message this bot cannot follow is itself an inconsistency
        bad(f"{type(exc).__name__}: {exc} on {line[:200]!r}")
        raise
sys.stderr.write(f"strict checker: {problems} inconsistencies\n")
