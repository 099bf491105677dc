"""A naive blocking referee for bench/bench_hotpaths.py: the floor `referee run` is compared with.

One table, one thread, no deadlines, no sandbox, no game log: the json module, a small mutable engine of the
standard rules, and blocking pipes to persistent bot processes. It plays the deals of the game logs given (the
games `referee run` played, with the bots in the same seats) and prints {"games", "wall_s", "cpu_s", "bots_cpu_s"}
as JSON, where cpu_s is this process's own CPU time and bots_cpu_s its bots' (once they have exited).

Run: python bench/naive_referee.py BOT_COMMAND LOG... (the same BOT_COMMAND in every seat).
"""

import json
import resource
import shlex
import subprocess
import sys
import time

STEP, REFUND, CHIP_REFUND, START_BONUS, MAX_TURNS = 5, 3, 2, 3, 1000


def legal(hand, chips, last, forced, others):
    if last is None:
        return [("play", 1, 1, 0)]
    out = []
    for v in sorted(set(hand)):
        need = 0 if v >= last else (last - v + STEP - 1) // STEP
        out += [("play", v, c, b) for c in range(1, hand.count(v) + 1) for b in range(need, chips + 1)]
    if not forced:
        out += [("pass", False)] + ([("pass", True)] if others else [])
    return [*out, ("drop",)]


def ask(bot, msg):
    bot.stdin.write(json.dumps(msg, separators=(",", ":")) + "\n")
    bot.stdin.flush()
    return json.loads(bot.stdout.readline())


def tell(bots, msg):
    line = json.dumps(msg, separators=(",", ":")) + "\n"
    for bot in bots:
        bot.stdin.write(line)
        bot.stdin.flush()


def play(bots, gid, rounds, rules):
    n = len(bots)
    penalty, bonus = [0] * n, [START_BONUS] * n
    for seat, bot in enumerate(bots):
        start = {"type": "game_start", "game": gid, "seat": seat, "players": [f"p{s}" for s in range(n)]}
        tell([bot], {**start, "rules": rules, "time": {"move_ms": 1000}})
    for r, deal in enumerate(rounds, start=1):
        hands = [sorted(h) for h in deal["hands"]]
        for seat, bot in enumerate(bots):
            reply = ask(bot, {"type": "deal", "game": gid, "round": r, "hand": hands[seat], "discard": 3})
            for card in reply["cards"]:
                hands[seat].remove(card)
        status, history = ["playing"] * n, []
        seat, last, forced, turns = next(s for s in range(n) if 1 in hands[s]), None, False, 0
        while seat >= 0:
            players = [
                {"name": f"p{s}", "cards": len(hands[s]), "penalty": penalty[s], "bonus": bonus[s], "status": status[s]}
                for s in range(n)
            ]
            msg = {"type": "turn", "game": gid, "round": r, "seat": seat, "hand": hands[seat], "last": last}
            reply = ask(bots[seat], {**msg, "forced": forced, "players": players, "history": history})
            others = any(status[s] == "playing" for s in range(n) if s != seat)
            kind = reply["type"]
            move = (kind, reply.get("force", False)) if kind == "pass" else (kind,)
            if kind == "play":
                move = ("play", reply["value"], reply["count"], reply["bonus"])
            if move not in legal(hands[seat], bonus[seat], last, forced, others):
                raise SystemExit(f"illegal move {reply} in {gid}")
            forced, turns = False, turns + 1
            if kind == "play":
                _, v, c, b = move
                pen = 0 if last is None else max(0, v - last - STEP * b - 1)
                del hands[seat][hands[seat].index(v) : hands[seat].index(v) + c]
                bonus[seat] -= b
                last, entry = v, {"seat": seat, "action": "play", "value": v, "count": c, "bonus": b}
                if not hands[seat]:
                    status[seat], pen, entry["finished"] = "finished", pen - REFUND, True
                entry["penalty"] = pen
            elif kind == "pass":
                pen, forced = 1 + move[1], move[1]
                entry = {"seat": seat, "action": "pass", "force": move[1], "penalty": pen}
            else:
                pen, status[seat] = len(hands[seat]), "dropped"
                entry = {"seat": seat, "action": "drop", "penalty": pen}
            penalty[seat] += pen
            history.append(entry)
            nxt = [(seat + k) % n for k in range(1, n + 1) if status[(seat + k) % n] == "playing"]
            seat = nxt[0] if nxt else -1
            if seat >= 0 and turns >= MAX_TURNS:
                raise SystemExit(f"turn limit reached in {gid}: not handled by the naive referee")
        players = [
            {"name": f"p{s}", "cards": len(hands[s]), "penalty": penalty[s], "bonus": bonus[s], "status": status[s]}
            for s in range(n)
        ]
        tell(bots, {"type": "round_end", "game": gid, "round": r, "players": players, "history": history})
    scores = [p - CHIP_REFUND * b for p, b in zip(penalty, bonus, strict=True)]
    ranks = [1 + sum(o < s for o in scores) for s in scores]
    tell(bots, {"type": "game_end", "game": gid, "scores": scores, "ranks": ranks, "forfeits": []})


def main():
    command, logs = shlex.split(sys.argv[1]), sys.argv[2:]
    t0 = time.perf_counter()
    bots = [subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for _ in range(4)]
    for bot in bots:
        ask(bot, {"type": "hello", "protocol": 1})
    for k, path in enumerate(logs):
        with open(path, encoding="utf-8") as f:
            head = json.loads(f.readline())
        play(bots, f"naive-{k}", head["deal"]["rounds"], head["rules"])
    tell(bots, {"type": "bye"})
    for bot in bots:
        bot.stdin.close()
        bot.wait()
    me, bots = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu, bots_cpu = me.ru_utime + me.ru_stime, bots.ru_utime + bots.ru_stime
    print(json.dumps({"games": len(logs), "wall_s": time.perf_counter() - t0, "cpu_s": cpu, "bots_cpu_s": bots_cpu}))


if __name__ == "__main__":
    main()
