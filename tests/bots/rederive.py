"""An attack on deal secrecy: plays honestly, but on its first deal of each game tries to re-deal the cards with
the public engine, from everything a bot can know or guess, and writes on stderr whether any guess gives its
own hand (then it would know every other hand of every round).

Guesses: a seed in the game id (``play-...-s<seed>``); every deal seed the referee's older public scheme gives
(SHA-256 of the tournament seed, repeat and table) for likely tournament seeds (0..40, today's and yesterday's
date as YYYYMMDD, as a nightly CI job passes) and every repeat and table its game id allows; the HMAC scheme
keyed with guessable keys (empty, zeros, the seed as text); and small seeds used as deal seeds directly.
Standard library, the referee's public engine and the test bots' honest loop (``_base``) only.
"""

import hashlib
import hmac
import re
import sys
import time

import _base

from referee.engine import Ruleset, seeded_deal

game = {}


def candidates(game_id):
    """(label, deal seed) pairs to try."""
    found = re.search(r"-s(\d+)$", game_id)
    if found:
        yield f"seed {found.group(1)} in the game id", int(found.group(1))
    dates = [time.strftime("%Y%m%d", time.gmtime(time.time() - day * 86400)) for day in (0, 1)]
    seeds = [*range(41), *map(int, dates)]
    number = re.fullmatch(r"g(\d+)", game_id)
    tables = range(12) if number is None else range(max(0, int(number.group(1)) // 2 + 1))
    for seed in seeds:
        for repeat in range(2):
            for table in tables:
                digest = hashlib.sha256(f"referee-tournament/{seed}/{repeat}/{table}".encode()).digest()
                yield f"public hash of seed {seed}", int.from_bytes(digest[:8], "big") >> 1
        for key in (b"", bytes(32), str(seed).encode()):
            for batch in tables:
                mac = hmac.new(key, f"referee-deal/1/{seed}/{batch}".encode(), hashlib.sha256).digest()
                yield f"HMAC with a guessed key, seed {seed}", int.from_bytes(mac[:8], "big") >> 1
    for seed in range(2000):
        yield f"deal seed {seed}", seed


def guess(hand):
    rules = Ruleset.from_dict(game["rules"])
    players = len(game["players"])
    tried = 0
    for label, seed in candidates(game["id"]):
        tried += 1
        if list(seeded_deal(seed, players, rules)[0][game["seat"]]) == hand:
            return f"MATCH: {label} deals my hand (game {game['id']})", tried
    return f"no match among {tried} guesses (game {game['id']})", tried


def hook(msg):
    if msg["type"] == "game_start":
        game.update(id=msg["game"], seat=msg["seat"], players=msg["players"], rules=msg["rules"])
    elif msg["type"] == "deal" and msg["round"] == 1:
        verdict, _ = guess(list(msg["hand"]))
        sys.stderr.write(f"rederive: {verdict}\n")
        sys.stderr.flush()
    return None  # then the honest reply


_base.run(hook)
