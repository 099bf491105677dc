"""The seccomp filter of the bubblewrap sandbox: no channel between bots through kernel objects they share.

Bots in separate sandboxes still share the host's inodes (every file bound read-only into every sandbox, such as
``/etc/passwd``). Advisory and byte-range locks on such a file, a lease on it, or a watch for its being opened,
would let two concurrently running bots signal each other (pass hands from one rotation of a deal to another).
The filter closes each such call, without killing the bot:

- taking or releasing a lock (``flock``; ``fcntl`` ``F_SETLK``/``F_SETLKW``, their 64-bit forms and the
  open-file-description ``F_OFD_SETLK``/``F_OFD_SETLKW``) succeeds and does nothing: no lock is taken, so no
  other process can see one. Runtimes lock files of their own as a matter of course (the JVM locks its
  performance-data file with ``flock`` and, when that fails, prints a warning on stdout, which breaks the
  protocol), so an error here would break honest bots; the price is that a bot's locks do not exclude even its
  own processes from each other;
- asking about locks (``F_GETLK``, ``F_GETLK64``, ``F_OFD_GETLK``), leases (``F_SETLEASE``, ``F_GETLEASE``),
  directory notification (``F_NOTIFY``), ``inotify``, ``fanotify`` and the kernel keyrings (``keyctl``,
  ``add_key``, ``request_key``, shared per user) fail with ``EPERM``; so does ``shmget``: a System V
  shared-memory segment, private to the sandbox's IPC namespace, would outlive its mapping and so hold memory
  that the address-space limit does not count. So do ``io_uring_setup``, ``io_uring_enter`` and
  ``io_uring_register``: an io_uring runs its operations (opening a socket, for one) without the system calls this
  filter sees, so it would get round every rule here (runtimes that use it fall back to plain calls);
- nothing tells a bot which pages of a file are in the page cache, and nothing drops them from it: bots in
  separate sandboxes read the same files (a JDK's ``lib/modules``, the bot's own folder), so a process that loads
  chosen pages and another that sees which are loaded pass a hand from one seat rotation of a deal to the next,
  without a clock. ``mincore`` and ``cachestat`` fail with ``ENOSYS``, as on a kernel without
  them; ``preadv2``/``pwritev2`` with ``RWF_NOWAIT`` (which fails with ``EAGAIN`` exactly when a page is not
  cached) fail with ``EOPNOTSUPP``, as on a file system without it, so callers take their blocking path;
  ``posix_fadvise`` (every advice: it only ever hints) and ``madvise`` with ``MADV_COLD`` or ``MADV_PAGEOUT``
  (``MADVISE_VOID``) succeed and do nothing, so no page is dropped on purpose; ``process_madvise`` fails with
  ``EPERM``. What is left (the time a read takes, and how many neighbours the kernel maps with a page on a fault)
  needs pages no process ever loaded, one per bit: README, "Security";
- ``memfd_create`` and ``memfd_secret`` fail with ``ENOSYS``: a memfd holds memory outside every file system's
  cap and without a mapping, so outside the address-space limit too (runtimes fall back to a file in
  ``/dev/shm`` or ``/tmp``, which the sandbox's size cap counts);
- a socket of any family but those the sandbox's network namespace keeps to itself (unix, IPv4, IPv6, netlink,
  packet: ``SOCKET_FAMILIES``) fails with ``EAFNOSUPPORT``: the ports of ``AF_VSOCK`` (host-to-virtual-machine
  sockets) are one space for the whole machine, whatever the namespace, so a bot binding a port there is seen by
  every other bot that tries the same port. A 32-bit program's ``socketcall(SYS_SOCKET)`` passes its family in
  memory, where the filter cannot read it, and fails the same way (a 32-bit bot opens sockets with ``socket``);
- a futex wait that is not private to the process (``futex`` or ``futex_time64`` with ``FUTEX_WAIT``,
  ``FUTEX_WAIT_BITSET`` or ``FUTEX_WAIT_REQUEUE_PI`` without ``FUTEX_PRIVATE_FLAG``: ``SHARED_FUTEX_WAITS``) returns
  at once with ``EAGAIN``, as when the word no longer holds the value waited for. A shared futex on a page of a
  file is keyed by the file and the offset, so a thread parked at a word of libc (read-only in every sandbox)
  is found by a ``FUTEX_WAKE`` at that word from any other sandbox, whose return value counts such threads: a
  channel without a clock. No thread ever parks on such a key here, so every shared wake (``FUTEX_WAKE``,
  ``FUTEX_WAKE_OP``, the requeues, and the kernel's own at a thread's exit, through ``clear_child_tid`` and the
  robust list) finds nobody, and is let through. A waiter takes ``EAGAIN`` as a spurious wake, checks its word and
  waits again, so a process-shared lock, semaphore or ``pthread_join`` (whose wait on the thread's id is shared)
  still works, spinning where it would have slept, and a shared wait with a timeout does not time out while its
  word holds. The PI calls are let through: each needs the futex word writable, and no two sandboxes share a
  writable file (a private mapping of one is copied on the first write, and keyed to the process).
  ``futex_waitv``, ``futex_wait`` and ``futex_requeue`` (``ABSENT_FUTEX_CALLS``), whose flags are in memory or
  that no runtime uses yet, fail with ``ENOSYS``, as on a kernel before them; ``io_uring`` (which has futex
  operations of its own) is refused above.

Other kernel objects are private to each sandbox through bubblewrap's namespaces: System V IPC and POSIX message
queues (IPC namespace), abstract unix sockets (network namespace), processes and signals (PID namespace).

The program is built with libseccomp (through ``pyseccomp``) once per process and handed to bubblewrap with
``--seccomp FD``; bubblewrap loads it just before it runs the bot, so it binds the bot and all its children.
"""

from __future__ import annotations

import errno
import os
import tempfile
from typing import Any

__all__ = [
    "ABSENT_CALLS",
    "ABSENT_FUTEX_CALLS",
    "FCNTL_REFUSED",
    "FCNTL_VOID",
    "MADVISE_VOID",
    "REFUSED_CALLS",
    "RWF_NOWAIT",
    "SHARED_FUTEX_WAITS",
    "SOCKET_FAMILIES",
    "VOID_CALLS",
    "compile_filter",
    "filter_fd",
    "filter_problem",
    "filter_program",
]

#: System calls that succeed inside the sandbox without doing anything (file advice only ever hints).
VOID_CALLS = ("flock", "fadvise64", "fadvise64_64")
#: System calls that fail with ENOSYS, as on a kernel without them: the page-cache readers, and memfds.
ABSENT_CALLS = ("mincore", "cachestat", "memfd_create", "memfd_secret")
#: ``madvise`` advice that succeeds without doing anything: ``MADV_COLD`` (20), ``MADV_PAGEOUT`` (21), which drop a
#: file's pages from memory.
MADVISE_VOID = (20, 21)
#: The ``preadv2``/``pwritev2`` flag that fails when a page is not cached (``EOPNOTSUPP`` inside the sandbox).
RWF_NOWAIT = 0x8
#: ``fcntl`` commands that succeed without doing anything: take or release a lock (6, 7; 13, 14 their 64-bit forms
#: on 32-bit programs; 37, 38 the open-file-description ones).
FCNTL_VOID = (6, 7, 13, 14, 37, 38)
#: System calls that always fail with EPERM inside the sandbox.
REFUSED_CALLS = (
    "inotify_init",
    "inotify_init1",
    "inotify_add_watch",
    "fanotify_init",
    "fanotify_mark",
    "keyctl",
    "add_key",
    "request_key",
    "shmget",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "process_madvise",
)
#: ``fcntl`` commands that fail with EPERM: ask about locks (5; 12 on 32-bit programs; 36 the open-file-description
#: one), leases (1024, 1025) and directory notification (1026).
FCNTL_REFUSED = (5, 12, 36, 1024, 1025, 1026)
#: The socket families a bot may open (``AF_UNIX``, ``AF_INET``, ``AF_INET6``, ``AF_NETLINK``, ``AF_PACKET``): each
#: is private to the network namespace. Every other family below ``_FAMILY_END`` (the kernel's count is under 50,
#: and it refuses any higher number itself) fails with EAFNOSUPPORT.
SOCKET_FAMILIES = (1, 2, 10, 16, 17)
_FAMILY_END = 64
#: ``futex`` operations that park the caller: ``FUTEX_WAIT`` (0), ``FUTEX_WAIT_BITSET`` (9), ``FUTEX_WAIT_REQUEUE_PI``
#: (11). Without ``FUTEX_PRIVATE_FLAG`` each fails with EAGAIN inside the sandbox.
SHARED_FUTEX_WAITS = (0, 9, 11)
#: The op's bits the rule compares: all but ``FUTEX_CLOCK_REALTIME`` (256), which the kernel takes with any op; the
#: kernel reads the op as a 32-bit int, so the high bits of the register are left out too.
_FUTEX_OP_MASK = 0xFFFFFFFF & ~256
#: The futex calls that fail with ENOSYS (``futex_waitv``: 449, ``futex_wait``: 455, ``futex_requeue``: 456).
ABSENT_FUTEX_CALLS = ("futex_waitv", "futex_wait", "futex_requeue")
#: ``socketcall``'s call number for ``socket`` (32-bit x86).
_SYS_SOCKET = 1

_program: bytes | None = None
_problem: str | None = None
_built = False


def filter_program() -> bytes | None:
    """The filter as a BPF program for ``bwrap --seccomp``, or None when libseccomp is not usable here."""
    _build()
    return _program


def filter_problem() -> str | None:
    """Why the filter cannot be built here (no libseccomp), or None when it can."""
    _build()
    return _problem


def filter_fd() -> int | None:
    """A new descriptor holding the program, at offset 0, for one ``bwrap --seccomp FD`` (the caller closes
    it once bwrap is started), or None when the filter cannot be built."""
    program = filter_program()
    if program is None:
        return None
    fd = os.memfd_create("referee-seccomp", os.MFD_CLOEXEC)
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _build() -> None:
    global _program, _problem, _built
    if _built:
        return
    _built = True
    try:
        _program = compile_filter()
    except Exception as exc:  # no pyseccomp, no libseccomp.so.2, or an unknown architecture
        _problem = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def compile_filter(*, page_cache: bool = True) -> bytes:
    """The filter as a BPF program; ``page_cache=False`` leaves out the page-cache and memfd rules (for
    ``bench/bench_security.py``, which measures what they cost). Raises what libseccomp raises where it is
    missing or the architecture is unknown (``filter_problem`` says why)."""
    import pyseccomp as sc

    rules = sc.SyscallFilter(defaction=sc.ALLOW)
    if sc.system_arch() == sc.Arch.X86_64:
        # 32-bit (int 0x80) and x32 system calls of a 64-bit process are filtered by the same rules; any other
        # architecture gets libseccomp's default for a foreign one (the process is killed).
        for arch in (sc.Arch.X86, sc.Arch.X32):
            rules.add_arch(arch)
    deny, void = sc.ERRNO(errno.EPERM), sc.ERRNO(0)  # ERRNO(0): return 0 without running the call
    cache_calls = {"process_madvise", "fadvise64", "fadvise64_64"}
    for call in REFUSED_CALLS:
        if page_cache or call not in cache_calls:
            _add(rules, deny, call)
    for call in VOID_CALLS:
        if page_cache or call not in cache_calls:
            _add(rules, void, call)
    if page_cache:
        for call in ABSENT_CALLS:
            _add(rules, sc.ERRNO(errno.ENOSYS), call)
        for advice in MADVISE_VOID:
            rules.add_rule(void, "madvise", sc.Arg(2, sc.MASKED_EQ, 0xFFFFFFFF, advice))
        for call in ("preadv2", "pwritev2"):
            # The flags are the sixth argument on every architecture of the filter.
            rules.add_rule(sc.ERRNO(errno.EOPNOTSUPP), call, sc.Arg(5, sc.MASKED_EQ, RWF_NOWAIT, RWF_NOWAIT))
    for call in ("fcntl", "fcntl64"):
        for action, commands in ((deny, FCNTL_REFUSED), (void, FCNTL_VOID)):
            for command in commands:
                # The kernel reads the command as a 32-bit int: compare only those bits, so that high bits set
                # by the caller cannot slip a lock command past the filter.
                try:
                    rules.add_rule(action, call, sc.Arg(1, sc.MASKED_EQ, 0xFFFFFFFF, command))
                except OSError:
                    if call == "fcntl":
                        raise
                    break  # no fcntl64 on any architecture of the filter (a 64-bit-only machine)
    no_family = sc.ERRNO(errno.EAFNOSUPPORT)
    for family in range(_FAMILY_END):
        if family not in SOCKET_FAMILIES:
            rules.add_rule(no_family, "socket", sc.Arg(0, sc.MASKED_EQ, 0xFFFFFFFF, family))
    rules.add_rule(no_family, "socketcall", sc.Arg(0, sc.MASKED_EQ, 0xFFFFFFFF, _SYS_SOCKET))
    for call in ("futex", "futex_time64"):  # futex_time64: 32-bit programs' form with 64-bit times
        for op in SHARED_FUTEX_WAITS:
            rules.add_rule(sc.ERRNO(errno.EAGAIN), call, sc.Arg(1, sc.MASKED_EQ, _FUTEX_OP_MASK, op))
    for call in ABSENT_FUTEX_CALLS:
        _add(rules, sc.ERRNO(errno.ENOSYS), call)
    with tempfile.TemporaryFile() as out:
        rules.export_bpf(out)
        out.seek(0)
        return out.read()


#: Numbers of calls that a libseccomp older than the kernel may not know by name (the same on every architecture).
_NUMBERS = {
    "cachestat": 451,
    "process_madvise": 440,
    "memfd_secret": 447,
    "futex_waitv": 449,
    "futex_wait": 455,
    "futex_requeue": 456,
}
#: Calls that only some architectures have: no rule where none of the filter's has it.
_OPTIONAL = frozenset({"fadvise64_64"})


def _add(rules: Any, action: Any, call: str) -> None:
    """Add an unconditional rule for ``call``: by number when this libseccomp does not know its name (a kernel
    newer than it), and none for a call no architecture of the filter has (``fadvise64_64`` on x86-64 alone)."""
    try:
        rules.add_rule(action, call)
    except OSError:
        if call in _NUMBERS:
            rules.add_rule(action, _NUMBERS[call])
        elif call not in _OPTIONAL:
            raise
