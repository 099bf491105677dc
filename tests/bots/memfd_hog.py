"""Holds memory in memfds, outside any mapping (so outside the address-space limit) and outside every file
system's size cap: MEMFD_MIB MiB (default 64) in files of MEMFD_EACH MiB, kept open while it plays. Says on stderr
``memfd: held N MiB`` or ``memfd: refused (ERRNO)``, then plays honestly."""

import errno
import os
import sys

import _base

total = int(os.environ.get("MEMFD_MIB", "64"))
each = int(os.environ.get("MEMFD_EACH", "8"))
chunk = b"m" * (1024 * 1024)
kept = []
held = 0
try:
    while held < total:
        fd = os.memfd_create("hog")
        kept.append(fd)
        for _ in range(each):
            os.write(fd, chunk)
            held += 1
    sys.stderr.write(f"memfd: held {held} MiB\n")
except OSError as exc:
    sys.stderr.write(
        f"memfd: refused ({errno.errorcode.get(exc.errno, exc.errno)})\n" if not held else f"memfd: held {held} MiB\n"
    )
sys.stderr.flush()
_base.run()
