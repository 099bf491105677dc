"""Passes the hands it is dealt to its own next process through the page cache of a file it can read.

Every process of one entrant reads the same file (here CACHE_FILE, default ``cache_medium.bin`` in the bot's own
folder; a JDK's ``lib/modules`` would do as well), so which of its pages are in memory is shared by all of them.
On each deal the bot first reads what an earlier process left there, then writes its own hand for the next one:
the next process of the entrant, at the next seat rotation of the same deal, holds another seat's cards, so what
it reads is another player's hand. It says on stderr what it did:

- ``cache: learned GAME ROUND 1 3 3 ...``: the hand it read, for the test to compare with the game's log;
- ``cache: reader NAME refused (...)`` / ``cache: eraser NAME ...``: what the sandbox did to its system calls;
- ``cache: nothing read``: no hand was found.

CACHE_MODE picks the attack:

- ``direct`` (the attack on an unfiltered sandbox): one fixed slot per round, dropped with
  ``posix_fadvise(POSIX_FADV_DONTNEED)`` before each write, read with ``mincore`` (else ``preadv2`` with
  ``RWF_NOWAIT``, else ``cachestat``): no clock at all;
- ``timing``: what is left once pages can be neither dropped nor asked about: a log of write-once slots, each
  page read once and called cached when the read takes under CACHE_THRESHOLD_US microseconds (default 25);
- ``faultaround``: the same log, read without a clock: a fault on the first page of a 16-page window makes the
  kernel map the window's pages that are already cached, which ``/proc/self/pagemap`` shows.

With CACHE_KEY=id the log has a region for each deal as the game id tells it (a round robin's ids number its games
in schedule order), and the bot reads the newest slot of its own deal rather than the newest of all; with
CACHE_KEY=table, a region for each table (the names at it), which tells the deal when the table has only one.
A hand is 69 bits (a bit per value 1..23 and copy 1..3); a slot adds one that marks it written and one for the
round.
"""

import ctypes
import errno
import mmap
import os
import struct
import sys
import time
import zlib

from protocol.sdk import run
from referee.engine import Drop

PAGE = 4096
WINDOW = 16  # pages a fault maps around the faulting one (the kernel's default fault_around_bytes, 64 KiB)
BITS = 2 + 23 * 3  # marker, round, hand
KEYS = 8 if os.environ.get("CACHE_KEY") in ("id", "table") else 1  # regions of the log, one per deal key
WINDOWS = -(-BITS // (WINDOW - 1))  # the first page of each window is the probe, not a bit
SLOT = WINDOWS * WINDOW * PAGE
MODE = os.environ.get("CACHE_MODE", "direct")
HERE = os.path.dirname(os.path.abspath(__file__))
PATH = os.environ.get("CACHE_FILE", os.path.join(HERE, "cache_medium.bin"))
THRESHOLD = float(os.environ.get("CACHE_THRESHOLD_US", "25")) * 1000
RWF_NOWAIT = 8
libc = ctypes.CDLL(None, use_errno=True)
said = set()


def say(text, once=False):
    if once:
        if text in said:
            return
        said.add(text)
    sys.stderr.write(f"cache: {text}\n")
    sys.stderr.flush()


fd = os.open(PATH, os.O_RDONLY)
SLOTS = os.fstat(fd).st_size // SLOT


def page_of(slot, bit):
    """The file offset of ``bit`` of ``slot``."""
    window, place = divmod(bit, WINDOW - 1)
    return slot * SLOT + (window * WINDOW + 1 + place) * PAGE


HAND = 2  # the first bit of the hand


def encode(round_, hand):
    bits = {0, 1} if round_ == 2 else {0}
    for value in set(hand):
        for copy in range(hand.count(value)):
            bits.add(HAND + (value - 1) * 3 + copy)
    return bits


def decode(bits):
    """(round, hand) of a slot's bits."""
    hand = [value for value in range(1, 24) for copy in range(3) if HAND + (value - 1) * 3 + copy in bits]
    return (2 if 1 in bits else 1), hand


def deal_key(game):
    """The deal of the game, as far as the bot can tell it. CACHE_KEY=id: from the game id (a round robin's ids
    number its games in schedule order, every rotation of a deal in a row, so the deal is the ordinal divided by the
    table's size; 0 for an id that is not such a number). CACHE_KEY=table: from the names at the table (every deal
    of one table shares a key). Otherwise 0: one log for every deal."""
    how = os.environ.get("CACHE_KEY")
    if how == "table":
        return zlib.crc32(" ".join(sorted(game.names)).encode()) % KEYS
    digits = game.id.lstrip("g")
    return (int(digits) - 1) // game.players % KEYS if how == "id" and digits.isdigit() else 0


# ------------------------------------------------------------------ readers: which of these pages are cached?

libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


def mapped(first, length):
    """The address of a fresh read-only mapping of ``length`` bytes of the file from ``first``."""
    address = libc.mmap(None, length, mmap.PROT_READ, mmap.MAP_PRIVATE, fd, first)
    if address in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "mmap failed")
    libc.madvise(address, length, mmap.MADV_RANDOM)  # no read-ahead: a fault loads its own page and no other
    return address


SIZE = SLOTS * SLOT
VIEW = mapped(0, SIZE) if SIZE else 0


def load(offset):
    """Load the page at ``offset`` into the page cache (a fault on the bot's mapping of the file)."""
    ctypes.string_at(VIEW + offset, 1)


def by_mincore(offsets):
    first = min(offsets) // PAGE * PAGE
    length = max(offsets) - first + PAGE
    vec = (ctypes.c_ubyte * (length // PAGE))()
    if libc.mincore(ctypes.c_void_p(VIEW + first), ctypes.c_size_t(length), vec) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return {o for o in offsets if vec[(o - first) // PAGE] & 1}


def by_nowait(offsets):
    found = set()
    for o in offsets:
        try:
            os.preadv(fd, [bytearray(1)], o, RWF_NOWAIT)
            found.add(o)
        except BlockingIOError:
            pass
    return found


class _Range(ctypes.Structure):
    _fields_ = [("off", ctypes.c_uint64), ("len", ctypes.c_uint64)]


class _Stat(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint64) for n in ("cache", "dirty", "writeback", "evicted", "recently_evicted")]


def by_cachestat(offsets):
    found = set()
    for o in offsets:
        stat = _Stat()
        if libc.syscall(451, fd, ctypes.byref(_Range(o, PAGE)), ctypes.byref(stat), 0) != 0:
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
        if stat.cache:
            found.add(o)
    return found


def by_timing(offsets):
    """A page read in under THRESHOLD was cached (the read loads it: each page can be read this way once)."""
    found = set()
    for _ in range(3):  # warm the path up on the first page of the file (a probe page, never a bit)
        load(0)
        libc.madvise(VIEW, PAGE, 4)
    for o in sorted(offsets):
        start = time.perf_counter_ns()
        load(o)
        took = time.perf_counter_ns() - start
        if took < THRESHOLD:
            found.add(o)
        libc.madvise(VIEW + o, PAGE, 4)  # unmapped again: the next read of it faults too
    return found


def by_faultaround(offsets):
    """A fault on a window's first page makes the kernel map the window's pages that are cached already (and no
    others: no read-ahead after MADV_RANDOM), in a fresh mapping; /proc/self/pagemap shows which were mapped."""
    found = set()
    with open("/proc/self/pagemap", "rb", buffering=0) as pagemap:
        for start in sorted({o // PAGE // WINDOW * WINDOW for o in offsets}):
            load(start * PAGE)  # the probe page, cached first: a fault that reads from disk may read its neighbours
            libc.madvise(VIEW + start * PAGE, PAGE, 4)
            address = mapped(start * PAGE, WINDOW * PAGE)
            try:
                ctypes.string_at(address, 1)  # the fault
                pagemap.seek(address // PAGE * 8)
                entries = struct.unpack(f"{WINDOW}Q", pagemap.read(8 * WINDOW))
            finally:
                libc.munmap(ctypes.c_void_p(address), WINDOW * PAGE)
            found |= {(start + i) * PAGE for i in range(1, WINDOW) if entries[i] >> 63} & offsets
    return found


READERS = {"mincore": by_mincore, "nowait": by_nowait, "cachestat": by_cachestat}


def cached(offsets):
    """The subset of ``offsets`` whose pages are cached (None: every reader was refused)."""
    if MODE == "timing":
        return by_timing(offsets)
    if MODE == "faultaround":
        return by_faultaround(offsets)
    for name, reader in READERS.items():
        try:
            return reader(offsets)
        except OSError as exc:
            say(f"reader {name} refused ({errno.errorcode.get(exc.errno, exc.errno)})", once=True)
    return None


# ------------------------------------------------------------------ the two ends of the channel


def read_bits(slot, bits):
    offsets = {page_of(slot, bit): bit for bit in bits}
    found = cached(set(offsets))
    return None if found is None else {offsets[o] for o in found}


def write_slot(slot, bits):
    for bit in bits:
        load(page_of(slot, bit))
    unmap(slot)


def unmap(slot):
    """Take the slot's pages out of this process's mapping (MADV_DONTNEED), leaving them only in the page cache:
    a mapped page cannot be dropped from it, by this process or the next."""
    libc.madvise(VIEW + slot * SLOT, SLOT, 4)


def erase_slot(slot):
    unmap(slot)
    result = libc.posix_fadvise(fd, ctypes.c_long(slot * SLOT), ctypes.c_long(SLOT), 4)  # POSIX_FADV_DONTNEED
    say(f"eraser fadvise returned {result}", once=True)


def exchange(game, round_, hand):
    """Read what an earlier process left for ``round_``, then leave this process's hand."""
    if MODE == "direct":
        slot = round_ - 1
        bits = read_bits(slot, range(BITS))
        if bits and 0 in bits and decode(bits)[0] == round_ and len(decode(bits)[1]) == len(hand):
            report(game, round_, decode(bits)[1])
        else:
            say("nothing read")
        erase_slot(slot)
        write_slot(slot, encode(round_, hand))
        return
    # A log of write-once slots for each round and deal key (a timing read spends what it reads, so a process reads
    # no slot of another round or key): the newest whole hand is the previous process's.
    size = SLOTS // (2 * KEYS)
    first = ((round_ - 1) * KEYS + deal_key(game)) * size
    newest, free = None, None
    for slot in range(first, first + size):
        if not read_bits(slot, [0]):
            free = slot
            break
        said_round, held = decode(read_bits(slot, range(1, BITS)))
        if said_round == round_ and len(held) == len(hand):  # a slot read before is all ones: no hand
            newest = held
    if newest is not None:
        report(game, round_, newest)
    else:
        say("nothing read")
    # A timing read of the free slot's marker loaded it, spending that slot: write in the next one.
    slot = None if free is None else free + (MODE == "timing")
    if slot is not None and slot < first + size:
        write_slot(slot, encode(round_, hand))


def report(game, round_, hand):
    say(f"learned {game.id} {round_} {' '.join(map(str, hand))}")


def discard(hand, n, game):
    exchange(game, game.round, list(hand))
    pool = [c for c in hand if c != 1]
    return pool[len(pool) - n :] if n else []


def move(obs, game):
    moves = game.legal_moves(obs)
    return next((m for m in moves if isinstance(m, Drop)), moves[0])


run(move=move, discard=discard, name="cache-signal")
