"""Passes hands to another process through futexes on libc, a file every sandboxed bot maps read-only.

A futex on a page of a file mapping is keyed by the file's inode and the offset, whatever process maps it, so a
thread of one sandbox waiting (``FUTEX_WAIT``, without ``FUTEX_PRIVATE_FLAG``) at a word of libc is found by a
``FUTEX_WAKE`` at the same word from any other sandbox, and the wake's return value counts such threads: no clock,
no file of its own. A hand is written as threads parked at one word per card value (as many threads as copies of
the value held) in the region of its round; it is read, and taken down, by waking every word of the region.

FUTEX_ROLE picks what the bot does:

- ``hold``: on each deal, park its hand (never reads): one end of a pair of colluding entrants at one table;
- ``probe``: on its first turn of each round (every seat has discarded by then), read the region of the round;
- ``relay`` (default): on each deal, read what an earlier process left for this round, then park its own hand:
  the next process of the entrant, at the next seat rotation of the same deal, holds another seat's cards.

It says on stderr what it did: ``futex: learned GAME ROUND 1 3 3 ... held 2 4 ...`` (the hand it read and the
one it was dealt, for the test or bench to find the game in the logs and compare), ``futex: parked N`` / ``futex:
park refused (ERRNO)`` and ``futex: nothing read``. It drops out whenever it may (short games).
"""

import ctypes
import errno
import os
import sys
import threading
import time

from protocol.sdk import run
from referee.engine import Drop

ROLE = os.environ.get("FUTEX_ROLE", "relay")
SYS_FUTEX = 202  # x86-64
FUTEX_WAIT, FUTEX_WAKE = 0, 1  # without FUTEX_PRIVATE_FLAG (128): keyed by inode and offset on a file mapping
ALL = 2**31 - 1
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
refusals = []  # the errno names of the waits that failed


def say(text):
    print(f"futex: {text}", file=sys.stderr, flush=True)


def libc_text():
    """The address of the first read-only page of libc's mapping (its ELF header: the same bytes everywhere)."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split()
            if len(fields) >= 6 and "/libc.so" in fields[5] and fields[1].startswith("r") and int(fields[2], 16) == 0:
                return int(fields[0].split("-")[0], 16)
    raise SystemExit("futex: no libc mapping")


BASE = libc_text()


def word(round_, value):
    """The libc word that stands for ``value`` (1..23) in ``round_`` (1, 2): 24 words a round, from byte 1024."""
    return BASE + 1024 + 4 * (24 * (round_ - 1) + value)


def futex(address, op, val):
    done = libc.syscall(ctypes.c_long(SYS_FUTEX), ctypes.c_void_p(address), ctypes.c_int(op), ctypes.c_int(val), None)
    return done, (ctypes.get_errno() if done < 0 else 0)


def park(address):
    """Wait at ``address`` until woken (the value there never changes: libc is read-only)."""
    current = ctypes.c_uint32.from_address(address).value
    done, err = futex(address, FUTEX_WAIT, current)
    if done < 0:
        refusals.append(errno.errorcode.get(err, str(err)))


def write(round_, hand):
    threads = []
    for value in set(hand):
        for _ in range(hand.count(value)):
            thread = threading.Thread(target=park, args=(word(round_, value),), daemon=True)
            thread.start()
            threads.append(thread)
    time.sleep(0.05)  # every thread in the kernel's wait before the bot replies
    for name in sorted(set(refusals)):
        say(f"park refused ({name})")
    refusals.clear()
    say(f"parked {sum(t.is_alive() for t in threads)}")


def read(game, round_):
    hand = []
    for value in range(1, 24):
        woken, _ = futex(word(round_, value), FUTEX_WAKE, ALL)
        hand += [value] * max(woken, 0)
    if hand:
        held = " ".join(map(str, sorted(dealt.get((game.id, round_), []))))
        say(f"learned {game.id} {round_} {' '.join(map(str, hand))} held {held}")
    else:
        say("nothing read")


read_rounds = set()
dealt = {}  # (game id, round): the hand dealt


def discard(hand, n, game):
    dealt[game.id, game.round] = list(hand)
    if ROLE == "relay":
        read(game, game.round)
    if ROLE in ("relay", "hold"):
        write(game.round, list(hand))
    pool = [c for c in hand if c != 1]
    return pool[len(pool) - n :] if n else []


def move(obs, game):
    if ROLE == "probe" and (game.id, game.round) not in read_rounds:
        read_rounds.add((game.id, game.round))
        read(game, game.round)
    moves = game.legal_moves(obs)
    return next((m for m in moves if isinstance(m, Drop)), moves[0])


run(move=move, discard=discard, name=f"futex-{ROLE}")
