"""How a bot process ended, in words: an exit code, or the signal that killed it and what likely sent it.

A process killed by a signal has a negative return code when the referee started it directly. Inside bubblewrap
the referee's child is bwrap, which reports a program killed by signal N as exit code 128 + N (as a shell does);
so ``exit code 139`` from the sandbox is a segmentation fault. The resource limits (``Limits``) explain some
signals: the kernel sends SIGXCPU and then SIGKILL at the CPU-time limit, SIGXFSZ at the file-size limit, and an
allocation refused under the memory (address-space) limit often ends a C or C++ program with SIGSEGV or SIGABRT.
"""

from __future__ import annotations

import signal

from referee.runner.config import Limits


def size_text(n: int) -> str:
    """``n`` bytes as ``--limit`` takes them: ``2G``, ``64M``, ``4K``, else the number."""
    for unit, factor in (("G", 1024**3), ("M", 1024**2), ("K", 1024)):
        if n >= factor and n % factor == 0:
            return f"{n // factor}{unit}"
    return str(n)


def _memory(limits: Limits) -> str:
    if limits.address_space is None:
        return ""
    return f", or an allocation refused under the memory limit (memory={size_text(limits.address_space)})"


def _cpu(limits: Limits) -> str:
    if limits.cpu_seconds is None:
        return "the CPU-time limit"
    return f"the CPU-time limit (cpu_seconds={limits.cpu_seconds} per process)"


def _why(sig: signal.Signals, limits: Limits) -> str:
    """What usually makes a bot die of ``sig``, or an empty string."""
    if sig is signal.SIGSEGV:
        return "a segmentation fault: a bad pointer or array index, a stack overflow" + _memory(limits)
    if sig is signal.SIGABRT:
        return "the program aborted itself: a failed assertion, an uncaught C++ exception" + _memory(limits)
    if sig is signal.SIGKILL:
        return f"not sent by the referee: most likely {_cpu(limits)} or the machine running out of memory"
    if sig is signal.SIGXCPU:
        return f"{_cpu(limits)}: raise it with --limit cpu_seconds=N"
    if sig is signal.SIGXFSZ:
        size = f" of {size_text(limits.file_size)}" if limits.file_size is not None else ""
        return f"a file it wrote grew past the file-size limit{size} (--limit file_size=N)"
    if sig is signal.SIGFPE:
        return "an arithmetic error, such as an integer division by zero"
    if sig is signal.SIGBUS:
        return "a bus error: a bad memory access, or a memory-mapped file on a full /tmp"
    if sig is signal.SIGILL:
        return "an illegal instruction: a program built for another processor, or a corrupt binary"
    if sig is signal.SIGPIPE:
        return "it wrote to a pipe nobody reads"
    return ""


def _name(number: int) -> tuple[signal.Signals | None, str]:
    try:
        sig = signal.Signals(number)
    except ValueError:
        return None, f"signal {number}"
    return sig, sig.name


def describe_exit(code: int, *, sandboxed: bool = False, limits: Limits | None = None) -> str:
    """``exit code 3``, ``killed by SIGSEGV (a segmentation fault: ...)``.

    ``code`` is the return code of the process the referee started; ``sandboxed``: that process is bubblewrap,
    which reports a death by signal N as exit code 128 + N. ``limits``: the bot's resource limits, named in the
    explanation of the signals they cause.
    """
    limits = limits or Limits()
    if code < 0:
        sig, name = _name(-code)
        why = _why(sig, limits) if sig is not None else ""
        return f"killed by {name}" + (f" ({why})" if why else "")
    if 128 < code < 128 + 65:
        sig, name = _name(code - 128)
        why = _why(sig, limits) if sig is not None else ""
        if sandboxed:
            return f"killed by {name}" + (f" ({why})" if why else "")
        return f"exit code {code} (128 + {code - 128}: a shell's way to say killed by {name}" + (
            f"; {why})" if why else ")"
        )
    return f"exit code {code}"
