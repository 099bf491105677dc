"""Tries to signal another bot through a socket family that no network namespace keeps apart: vsock, whose ports
are one space for the whole machine. VSOCK_ROLE=hold binds port VSOCK_PORT (default 47123) before it says hello
and keeps it; VSOCK_ROLE=probe tries to bind the same port when it is dealt. Each says on stderr what it got:
``hold: bound`` or ``hold: refused (...)``, ``probe: port taken``, ``probe: port free`` or ``probe: refused (...)``.
VSOCK_WAY=uring opens the socket through an io_uring (its socket operation is no system call a filter of them
sees) instead of ``socket``. It plays honestly (the test bots' loop)."""

import ctypes
import mmap
import os
import socket
import struct
import sys

import _base

ROLE = os.environ.get("VSOCK_ROLE", "probe")
PORT = int(os.environ.get("VSOCK_PORT", "47123"))
WAY = os.environ.get("VSOCK_WAY", "socket")
ANY_CID = 0xFFFFFFFF
kept = []


def uring_socket(family, kind):
    """A socket made by an io_uring's IORING_OP_SOCKET (x86_64 system call numbers); raises OSError."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    params = ctypes.create_string_buffer(120)  # struct io_uring_params
    ring_fd = libc.syscall(ctypes.c_long(425), ctypes.c_long(4), params)  # io_uring_setup
    if ring_fd < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    sq_entries, cq_entries = struct.unpack_from("II", params.raw, 0)
    sq = struct.unpack_from("8I", params.raw, 40)  # head, tail, mask, entries, flags, dropped, array, -
    cq = struct.unpack_from("8I", params.raw, 80)  # head, tail, mask, entries, overflow, cqes, flags, -
    size = max(sq[6] + 4 * sq_entries, cq[5] + 16 * cq_entries)
    shared = mmap.MAP_SHARED
    both = mmap.PROT_READ | mmap.PROT_WRITE
    ring = mmap.mmap(ring_fd, size, shared, both, offset=0)
    entries = mmap.mmap(ring_fd, 64 * sq_entries, shared, both, offset=0x10000000)
    entry = bytearray(64)
    struct.pack_into("BBHiQ", entry, 0, 45, 0, 0, family, kind)  # IORING_OP_SOCKET: fd = family, off = type
    entries[0:64] = bytes(entry)
    tail, mask = struct.unpack_from("I", ring, sq[1])[0], struct.unpack_from("I", ring, sq[2])[0]
    struct.pack_into("I", ring, sq[6] + 4 * (tail & mask), 0)
    struct.pack_into("I", ring, sq[1], tail + 1)
    if libc.syscall(*map(ctypes.c_long, (426, ring_fd, 1, 1, 1, 0, 0))) < 0:  # io_uring_enter, wait for it
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    head, mask = struct.unpack_from("I", ring, cq[0])[0], struct.unpack_from("I", ring, cq[2])[0]
    result = struct.unpack_from("QiI", ring, cq[5] + 16 * (head & mask))[1]
    if result < 0:
        raise OSError(-result, os.strerror(-result))
    return socket.socket(fileno=result)


def say(text):
    sys.stderr.write(f"{ROLE}: {text}\n")
    sys.stderr.flush()


def bind():
    """The bound socket, or None when the port is taken; raises OSError when no vsock socket can be had."""
    sock = uring_socket(40, socket.SOCK_STREAM) if WAY == "uring" else socket.socket(40, socket.SOCK_STREAM)
    try:
        sock.bind((ANY_CID, PORT))
    except OSError as exc:
        sock.close()
        if exc.errno == 98:  # EADDRINUSE
            return None
        raise
    return sock


def attempt():
    try:
        return bind(), None
    except OSError as exc:
        return None, f"refused ({exc.strerror})"


probed = []


def hook(msg):
    if msg["type"] == "deal" and ROLE == "probe" and not probed:
        probed.append(True)
        sock, refused = attempt()
        say(refused or ("port free" if sock else "port taken"))
        if sock:
            sock.close()
    return None


if ROLE == "hold":
    sock, refused = attempt()
    kept.append(sock)
    say(refused or ("bound" if sock else "port taken"))
_base.run(hook, name=f"vsock-{ROLE}")
