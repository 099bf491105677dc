"""An honest bot that first waits on a lock shared with a child process (``multiprocessing.Lock``: a POSIX semaphore
whose waits are shared futex waits), and joins a thread, then plays. It says ``shared lock: ok after N s`` on
stderr once the child released the lock and the parent took it (with the CPU time the wait took: a spin inside the
sandbox, next to none outside), and plays like honest.py."""

import multiprocessing
import sys
import threading
import time

from protocol.sdk import run
from referee.engine import Drop


def hold(lock, taken):
    with lock:
        taken.set()
        time.sleep(0.3)


def check():
    context = multiprocessing.get_context("fork")
    lock, taken = context.Lock(), context.Event()
    child = context.Process(target=hold, args=(lock, taken))
    start, cpu = time.monotonic(), time.process_time()
    child.start()
    taken.wait(10)
    with lock:  # contended: the child holds it for 0.3 s
        waited, spun = time.monotonic() - start, time.process_time() - cpu
    child.join(10)
    worker = threading.Thread(target=time.sleep, args=(0.1,))
    worker.start()
    worker.join()
    print(f"shared lock: ok after {waited:.1f} s ({spun:.1f} s of CPU)", file=sys.stderr, flush=True)


def discard(hand, n, game):
    pool = [c for c in hand if c != 1]
    return pool[len(pool) - n :] if n else []


def move(obs, game):
    moves = game.legal_moves(obs)
    return next((m for m in moves if isinstance(m, Drop)), moves[0])


check()
run(move=move, discard=discard, name="shared-lock")
