"""How a bot's end is told: exit codes, signals by name, and the limit that likely sent them."""

from __future__ import annotations

import signal

from referee.runner import Limits
from referee.runner.exits import describe_exit


def test_an_exit_code_is_an_exit_code() -> None:
    assert describe_exit(3) == "exit code 3"
    assert describe_exit(0) == "exit code 0"
    assert describe_exit(128) == "exit code 128"


def test_a_signal_is_named_with_its_likely_cause() -> None:
    assert describe_exit(-signal.SIGSEGV) == (
        "killed by SIGSEGV (a segmentation fault: a bad pointer or array index, a stack overflow, "
        "or an allocation refused under the memory limit (memory=8G))"
    )
    assert describe_exit(-signal.SIGKILL, limits=Limits(cpu_seconds=60)) == (
        "killed by SIGKILL (not sent by the referee: most likely the CPU-time limit (cpu_seconds=60 per process) "
        "or the machine running out of memory)"
    )
    assert describe_exit(-signal.SIGXCPU, limits=Limits(cpu_seconds=5)).startswith(
        "killed by SIGXCPU (the CPU-time limit (cpu_seconds=5 per process): raise it with --limit cpu_seconds=N"
    )
    assert describe_exit(-signal.SIGXFSZ) == (
        "killed by SIGXFSZ (a file it wrote grew past the file-size limit of 64M (--limit file_size=N))"
    )
    assert describe_exit(-signal.SIGTERM) == "killed by SIGTERM"
    assert describe_exit(-signal.SIGABRT, limits=Limits(address_space=None)) == (
        "killed by SIGABRT (the program aborted itself: a failed assertion, an uncaught C++ exception)"
    )


def test_bubblewrap_reports_a_death_by_signal_as_128_plus_n() -> None:
    assert describe_exit(139, sandboxed=True).startswith("killed by SIGSEGV (a segmentation fault")
    assert describe_exit(137, sandboxed=True).startswith("killed by SIGKILL (not sent by the referee")
    # Without the sandbox such a code comes from a shell between the referee and the program.
    assert describe_exit(139) == (
        "exit code 139 (128 + 11: a shell's way to say killed by SIGSEGV; a segmentation fault: a bad pointer or "
        "array index, a stack overflow, or an allocation refused under the memory limit (memory=8G))"
    )
    assert describe_exit(130) == "exit code 130 (128 + 2: a shell's way to say killed by SIGINT)"
