"""One bot program as a child process: start it, send lines, read bounded lines under deadlines, end it.

Knows nothing of the protocol's messages. Every wait has a deadline; memory per bot is bounded (a reply line is
read with a hard cap, stderr goes to a capped log file); ending a process kills its whole process group (and its
cgroup or bubblewrap namespace), and the process is always reaped.
"""

from __future__ import annotations

import contextlib
import fcntl
import math
import os
import select
import signal
import subprocess
from collections.abc import Mapping
from enum import Enum
from pathlib import Path
from typing import IO, BinaryIO

import trio

from protocol import MAX_LINE
from referee.runner import limits as limits_mod
from referee.runner.config import Limits, RunnerConfig, SandboxMode
from referee.runner.cputime import cpu_seconds
from referee.runner.errors import BotCrashed, BotTimeout, LineTooLong
from referee.runner.exits import describe_exit, size_text
from referee.runner.sandbox import bot_argv, bot_env, launcher_cwd, launcher_env, seccomp_usable
from referee.runner.spec import BotSpec
from referee.runner.start_cgroups import StartCgroups
from referee.runner.starter import run_in_starter
from referee.runner.stderr_marks import Mark, labelled
from referee.runner.syscall_filter import filter_fd

_CHUNK = 65_536
#: How the notice a stderr log ends with once it reached its cap ends (``_append_capped``).
FULL_NOTICE_END = b"the rest was dropped]\n"
#: The most reads ``mark_stderr`` makes of what the bot left in its stderr pipe (a flooding bot's rest goes under
#: the next mark).
_MARK_READS = 4


class ProcessState(Enum):
    """Where a started bot process is in its life, as the referee drives it."""

    RUNNING = "running"  # started: it may be asked things
    FROZEN = "frozen"  # stopped whole by its freezer while idle (``freeze``), until ``thaw``
    EXITED = "exited"  # its process ended and was reaped (the exit watcher saw it)
    CLOSED = "closed"  # released by ``terminate``: pipes closed, cgroups removed; for good


_P = ProcessState
#: The process lifecycle, whole: each state -> the states it may move to. ``running`` -> ``closed`` is a process
#: the kernel did not end within 10 s of SIGKILL (released without its reap); ``frozen`` -> ``exited`` is one
#: killed from outside while frozen (the watcher thaws what is left of it first). Every move is ``_become``.
PROCESS_TRANSITIONS: Mapping[ProcessState, frozenset[ProcessState]] = {
    _P.RUNNING: frozenset({_P.FROZEN, _P.EXITED, _P.CLOSED}),
    _P.FROZEN: frozenset({_P.RUNNING, _P.EXITED}),
    _P.EXITED: frozenset({_P.CLOSED}),
    _P.CLOSED: frozenset(),
}


class _Wait(Enum):
    """Where the read of a reply is: the exit watcher and the alarm wake the reader only while it waits."""

    IDLE = "idle"  # no read waits on the pipe
    WAITING = "waiting"  # a read waits on the pipe until its deadline
    RUNG = "rung"  # the alarm found the waiting read past its deadline and woke it


_IDLE, _WAITING, _RUNG = _Wait.IDLE, _Wait.WAITING, _Wait.RUNG
#: A wait for a reply that may hold the loop (``exchange``) goes through trio when the last that did was this long ago.
_YIELD_EVERY = 0.02
_PRIVATE = object()  # the key to ``BotProcess.__init__``, which only ``BotProcess.start`` holds


class BotProcess:
    """A started bot program. Made only by ``await BotProcess.start(spec, config, stderr_path, mode)``.

    ``process`` is the ``subprocess.Popen`` of the program (bwrap's, when sandboxed); its ``returncode`` is set
    once the process has exited and been reaped (which a watcher task does at once). ``state`` is where it is in
    its life (``PROCESS_TRANSITIONS``).
    """

    def __init__(
        self,
        key: object,
        spec: BotSpec,
        mode: SandboxMode,
        limits: Limits,
        popen: subprocess.Popen[bytes],
        pipes: tuple[trio.lowlevel.FdStream, trio.lowlevel.FdStream, trio.lowlevel.FdStream],
        mark: str,
        cgroups: StartCgroups,
        removal: contextlib.AsyncExitStack,
        hold: float = 0.0,
    ) -> None:
        """Private (``start`` is the way in): ``popen``, started with its ``pipes`` and ``cgroups``, which the new
        object owns from here on (``removal`` removes the cgroups when it is released). Raises ``TypeError`` when
        called from elsewhere."""
        if key is not _PRIVATE:
            raise TypeError("a BotProcess is made by `await BotProcess.start(...)`")
        self.spec = spec
        self.limits = limits
        self.process = popen
        self.pid = popen.pid
        self.mode = mode
        self.mark = mark  # the REFEREE_BOT tag of this start's processes
        self.cgroup = cgroups.pids  # the cgroup that caps its processes (on v2, its memory cgroup), where made
        self.cpu_cgroup = cgroups.cpu  # --clock cpu: the cgroup of every process of this start
        self.memory = cgroups.memory  # the memory cgroup of this start (Limits.ram), where there is one
        self.freezer = cgroups.freezer  # what stops the whole bot while it is idle (``freeze``), where made
        self._removal = removal
        self._state = ProcessState.RUNNING
        self._buf = bytearray()
        self._eof = False  # its stdout ended
        self._wait = _IDLE
        self._read_deadline = math.inf
        self._drain_scope: trio.CancelScope | None = None
        self._alarm_scope: trio.CancelScope | None = None
        self._alarm_at = math.inf  # the alarm scope's deadline, as last set (reading the scope's property costs more)
        # trio's clock, read through its own object: ``trio.current_time`` wraps it in two more calls.
        self._now = trio.lowlevel.current_clock().current_time
        self._exit = trio.Event()
        # The pipes, non-blocking and owned by trio streams; the hot path reads and writes the descriptors.
        self._stdin, self._stdout, self._stderr = pipes
        self._stderr_fd = self._stderr.fileno()
        self._stderr_log: BinaryIO | None = None  # the open stderr log (None: none, or full)
        self._stderr_name, self._stderr_cap = "", 0  # its path and cap
        self._stderr_mark: Mark | None = None  # what the bot is asked now (``mark_stderr``)
        self._stderr_poller = select.poll()  # a look at the stderr pipe before ``mark_stderr`` reads it
        self._stderr_poller.register(self._stderr_fd, select.POLLIN)
        self._stdin_fd = self._stdin.fileno()
        self._stdout_fd = self._stdout.fileno()
        self._poller = select.poll()  # a cheap look at the pipe, without an exception when it is empty
        self._poller.register(self._stdout_fd, select.POLLIN)
        self._cpu_fd: int | None = None
        self._hold = hold  # RunnerConfig.hold_loop
        self._yielded = -math.inf  # when a wait for a reply last went through trio's scheduler (trio time)

    @classmethod
    async def start(
        cls, spec: BotSpec, config: RunnerConfig, stderr_path: Path | None, mode: SandboxMode
    ) -> BotProcess:
        """Start ``spec`` in its own session and process group, with ``mode`` ``"bwrap"`` or ``"none"``.

        The fork and exec happen on the starter thread (``referee.runner.starter``: one thread for the life of
        the process, which a bot's parent-death signal follows), so the other games go on meanwhile. Raises
        ``BotCrashed`` when the program cannot be started at all, ``BotSpecError`` for ``--clock cpu`` where no CPU
        cgroup can be made. What a failed start made (cgroups, descriptors, the process) is gone when it raises.
        """
        mark = limits_mod.new_mark()
        env = bot_env(spec)
        env[limits_mod.MARK_VARIABLE] = mark
        # Each resource is pushed on a stack with what undoes it as soon as it is made; once all are made, the stacks
        # are emptied (``pop_all``) and the new object owns them. A failure before that undoes what was made.
        async with contextlib.AsyncExitStack() as made:
            cgroups = StartCgroups.make(config, made)
            with contextlib.ExitStack() as launch_only:  # what only the launch needs: closed once it is done
                seccomp = filter_fd() if mode == "bwrap" and seccomp_usable() else None
                if seccomp is not None:
                    launch_only.callback(os.close, seccomp)
                argv = bot_argv(
                    spec,
                    mode,
                    config.limits.tmp_size,
                    config.hidden,
                    entrants=config.entrants,
                    env=env,
                    seccomp_fd=seccomp,
                    writable=config.writable_folder,
                )
                preexec = cgroups.preexec(config.limits, nproc=mode == "bwrap")

                def launch() -> subprocess.Popen[bytes]:
                    return subprocess.Popen(
                        argv,
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE,
                        bufsize=0,
                        cwd=launcher_cwd(spec, mode),
                        env=launcher_env(mode, env),
                        start_new_session=True,
                        preexec_fn=preexec,
                        close_fds=True,
                        pass_fds=() if seccomp is None else (seccomp,),
                    )

                try:
                    popen = await run_in_starter(launch)
                except (OSError, subprocess.SubprocessError) as exc:
                    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
                    raise BotCrashed(f"cannot start {spec.argv[0]}: {reason}") from None
            # The process and its pipes: once the object is made, ``terminate`` ends the one and closes the others.
            async with contextlib.AsyncExitStack() as started:
                started.push_async_callback(_kill_started, popen, mark if cgroups.pids is None else None)
                started.callback(_close_pipes, popen)
                pipes = (_stream(started, popen.stdin), _stream(started, popen.stdout), _stream(started, popen.stderr))
                started.pop_all()
            removal = made.pop_all()
        bot = cls(_PRIVATE, spec, mode, config.limits, popen, pipes, mark, cgroups, removal, config.hold_loop)
        trio.lowlevel.spawn_system_task(bot._drain_stderr, stderr_path, config.stderr_cap)
        trio.lowlevel.spawn_system_task(bot._watch_exit)
        trio.lowlevel.spawn_system_task(bot._alarm)
        # A schedule point that never raises Cancelled: a started process is always handed back to its owner, which
        # ends it (a Ctrl-C while a game starts its bots must not drop one that then outlives the referee).
        await trio.lowlevel.cancel_shielded_checkpoint()
        return bot

    @property
    def state(self) -> ProcessState:
        """Where the process is in its life."""
        return self._state

    @property
    def exited(self) -> bool:
        """The process has exited and been reaped."""
        return self._exit.is_set()

    @property
    def closed(self) -> bool:
        """The process was released (``terminate``)."""
        return self._state is _P.CLOSED

    def _become(self, to: ProcessState) -> bool:
        """Move to ``to`` if ``PROCESS_TRANSITIONS`` allows it from the state now; True when it did."""
        if to not in PROCESS_TRANSITIONS[self._state]:
            return False
        self._state = to
        return True

    def cpu_seconds(self) -> float:
        """CPU seconds the bot's processes have used so far: from its CPU cgroup (one read of an open file), else
        as ``referee.runner.cputime`` finds them (the cgroup gone, or no ``--clock cpu``)."""
        if self.cpu_cgroup is not None and self._state is not _P.CLOSED:
            try:
                if self._cpu_fd is None:
                    self._cpu_fd = os.open(self.cpu_cgroup.usage, os.O_RDONLY | os.O_CLOEXEC)
                return self.cpu_cgroup.seconds(self._cpu_fd)
            except (OSError, ValueError):
                pass
        return cpu_seconds(self.pid, self.cgroup)

    # ------------------------------------------------------------------------------------------- output

    async def send(self, data: bytes, deadline: float) -> None:
        """Write ``data`` to the bot's stdin by ``deadline`` (trio time).

        Raises ``BotCrashed`` when the bot no longer reads its stdin and ``BotTimeout`` when the pipe stays
        full past the deadline.
        """
        done = self._write_now(data)
        if done != len(data):
            await self._send_rest(data, done, deadline)

    def _write_now(self, data: bytes) -> int:
        """Write what the pipe takes of ``data`` now, without waiting: the bytes written, or -1 when the bot no
        longer reads its stdin. The pipe almost always has room for a whole message (no scheduler pass)."""
        try:
            return os.write(self._stdin_fd, data)
        except BlockingIOError:
            return 0
        except OSError:
            return -1

    async def _send_rest(self, data: bytes, done: int, deadline: float) -> None:
        """Write ``data[done:]`` by ``deadline`` (``done`` -1: the pipe is closed)."""
        if done < 0:
            raise BotCrashed(await self._exit_detail_wait("closed its input"))
        try:
            with trio.fail_at(deadline):
                await self._stdin.send_all(data[done:])
        except trio.TooSlowError:
            raise BotTimeout("the bot did not read its input in time") from None
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            raise BotCrashed(await self._exit_detail_wait("closed its input")) from None

    # ------------------------------------------------------------------------------------------- input

    async def read_line(self, deadline: float) -> bytes:
        """The next line from the bot's stdout (without the newline), by ``deadline`` (trio time).

        Raises ``BotTimeout`` past the deadline, ``BotCrashed`` when stdout ends or the process exits without
        a complete line (even if a child it left behind still holds stdout open), ``LineTooLong`` for a line
        over ``MAX_LINE`` bytes. Never holds more than ``MAX_LINE + 64 KiB`` bytes.
        """
        return await self.exchange(b"", deadline)

    async def exchange(self, data: bytes, deadline: float, *, hold: bool = False) -> bytes:
        """``send(data, deadline)``, then ``read_line(deadline)``: a request and its reply line in one coroutine (the
        pipe almost always takes the whole message at once). Raises what those two raise.

        ``hold``: the caller's task is the only one with work to do (a turn, asked of one seat), so the wait for the
        reply may hold the loop for ``RunnerConfig.hold_loop`` seconds (a blocking ``poll``, never past the
        deadline) before it waits through trio; a reply that came meanwhile is read at once. At least every
        ``_YIELD_EVERY`` seconds a wait goes through trio, so the loop's other tasks (a stop) still run."""
        if data:
            done = self._write_now(data)
            if done != len(data):
                await self._send_rest(data, done, deadline)
        buf = self._buf  # one bytearray for the life of the process, changed in place
        start = 0
        while True:
            if buf:
                i = buf.find(b"\n", start)
                if i >= 0:
                    if i > MAX_LINE:
                        raise LineTooLong(bytes(buf[:200]))
                    line = bytes(buf[:i])
                    del buf[: i + 1]
                    return line.rstrip(b"\r")
                if len(buf) > MAX_LINE:
                    raise LineTooLong(bytes(buf[:200]))
                start = len(buf)
            if self._eof:
                raise BotCrashed(await self._exit_detail_wait("closed its output"))
            if self._exit.is_set():
                # Take what the dead process left in the pipe; without a whole line it crashed mid-reply.
                if not self._read_available():
                    raise BotCrashed(self.exit_detail("exited"))
                continue
            # Wait for the pipe first (a reply is rarely there already). The alarm task wakes this wait at the
            # deadline, the exit watcher when the process exits (both by notify_closing on the descriptor).
            now = self._now()
            if now >= deadline:
                raise BotTimeout("no reply before the deadline")
            if not (
                hold
                and self._hold
                and now - self._yielded < _YIELD_EVERY
                and self._poller.poll(1000 * min(self._hold, deadline - now))
            ):
                rung = await self._wait_readable(deadline)
                self._yielded = self._now()
                if self._exit.is_set():
                    continue
                if rung:
                    raise BotTimeout("no reply before the deadline")
            try:
                chunk = os.read(self._stdout_fd, _CHUNK)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if not buf and chunk.endswith(b"\n") and chunk.find(b"\n") == len(chunk) - 1:
                # The usual case: exactly one whole line arrived.
                if len(chunk) - 1 > MAX_LINE:
                    raise LineTooLong(chunk[:200])
                return chunk[:-2] if chunk.endswith(b"\r\n") else chunk[:-1]
            if not chunk:
                self._eof = True
            else:
                buf += chunk

    async def _wait_readable(self, deadline: float) -> bool:
        """Wait through trio until stdout is readable, the process exits or ``deadline`` passes; True when the alarm
        woke it at the deadline."""
        self._read_deadline = deadline
        self._wait = _WAITING
        if deadline < self._alarm_at and self._alarm_scope is not None:
            # Usually the alarm is still set for an earlier move's deadline: it will ring then, see this
            # read's later deadline and re-arm itself, so most moves change no deadline at all.
            self._alarm_scope.deadline = self._alarm_at = deadline
        try:
            await trio.lowlevel.wait_readable(self._stdout_fd)
        except trio.ClosedResourceError:
            pass
        finally:
            rung = self._wait is _RUNG
            self._wait = _IDLE
        return rung

    def _read_available(self) -> bool:
        """Read what the pipe holds now, without waiting (bounded); True when something was read."""
        got = False
        while len(self._buf) <= MAX_LINE and not self._eof:
            try:
                chunk = os.read(self._stdout_fd, _CHUNK)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                chunk = b""
            if not chunk:
                self._eof = True
                break
            self._buf += chunk
            got = True
        return got

    async def _watch_exit(self) -> None:
        """Reap the process as soon as it exits, and wake a reader waiting on stdout (a child may hold it open)."""
        try:
            pidfd = os.pidfd_open(self.pid)
        except (AttributeError, OSError):
            pidfd = -1
        try:
            if pidfd >= 0:
                await trio.lowlevel.wait_readable(pidfd)
            else:  # pragma: no cover - kernels before 5.3
                while self.process.poll() is None:
                    await trio.sleep(0.02)
        except Exception:  # a system task must not raise (Cancelled at the end of the run passes through)
            pass
        finally:
            if pidfd >= 0:
                os.close(pidfd)
        with contextlib.suppress(subprocess.TimeoutExpired, OSError):
            self.process.wait(timeout=1)
        if self._state is _P.FROZEN:
            self.thaw()  # killed while frozen: what is left must take its SIGKILL (on cgroup v1 frozen ones do not)
        self._become(_P.EXITED)  # a process released without its reap stays closed
        self._exit.set()
        if self._wait is not _IDLE:
            trio.lowlevel.notify_closing(self._stdout_fd)

    async def _alarm(self) -> None:
        """Wake the waiting reader when its deadline passes.

        One long-lived cancel scope is much cheaper per move than a fresh scope around every wait: the reader
        only moves its deadline when its own is earlier, and a ring for a finished read just re-arms.
        """
        while self._state is not _P.CLOSED:
            self._alarm_at = self._read_deadline if self._wait is _WAITING else math.inf
            with trio.CancelScope(deadline=self._alarm_at) as scope:
                self._alarm_scope = scope
                await trio.sleep_forever()
            self._alarm_scope = None
            self._alarm_at = math.inf
            if self._wait is _WAITING and self._now() >= self._read_deadline:
                self._wait = _RUNG
                trio.lowlevel.notify_closing(self._stdout_fd)
            # Otherwise it rang for an earlier read (or was disarmed); the loop re-arms for the current one.

    def pending(self) -> bytes | None:
        """The start of output the bot sent that nobody asked for yet (None: nothing waiting).

        Looks at buffered bytes and, without waiting, at the pipe. End of output is not reported here.
        """
        if not self._buf and not self._eof and self._poller.poll(0):
            self._read_available()
        if self._buf:
            return bytes(self._buf[:200])
        return None

    # ------------------------------------------------------------------------------------------- stderr

    async def _drain_stderr(self, path: Path | None, cap: int) -> None:
        """Copy stderr to the log file ``path`` until the file holds ``cap`` bytes, then read and drop the rest
        (so the bot never blocks). The cap is the file's, not this process's: what is already in the file counts,
        so the processes of a bot that share a log (one per game after a crash, or several at once) never take
        it past ``cap`` together. Each read is kept before the next wait, so ``mark_stderr``'s reads keep order."""
        with trio.CancelScope() as scope:
            self._drain_scope = scope
            try:
                if path is not None:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    self._stderr_log = open(path, "ab", buffering=0)  # noqa: SIM115 - closed in finally
                    self._stderr_name, self._stderr_cap = str(path), cap
                while True:
                    await trio.lowlevel.wait_readable(self._stderr_fd)
                    if self._read_stderr() == 0:
                        break
            except (trio.ClosedResourceError, OSError):
                pass
            finally:
                self._stderr.close()
                if self._stderr_log is not None:
                    self._stderr_log.close()
                    self._stderr_log = None

    def _read_stderr(self) -> int:
        """Read the stderr pipe once without waiting and keep what came (``_keep_stderr``): the bytes read, 0 at
        its end, -1 when it is empty. Raises ``OSError`` when it cannot be read."""
        try:
            chunk = os.read(self._stderr_fd, _CHUNK)
        except BlockingIOError:
            return -1
        if chunk and self._stderr_log is not None:
            if self._stderr_mark is not None:
                chunk = labelled(self._stderr_name, self._stderr_mark, chunk)
            if not _append_capped(self._stderr_log, chunk, self._stderr_cap):
                self._stderr_log.close()
                self._stderr_log = None
        return len(chunk)

    def mark_stderr(self, mark: Mark) -> None:
        """Say what the bot is asked from now on (``stderr_marks``): what it wrote on stderr before (still in the
        pipe too, up to ``_MARK_READS`` reads) is logged under the mark before, what it writes next under ``mark``
        (its line written into the log before its first byte: a silent bot's log stays empty)."""
        if self._stderr_log is not None and self._stderr_mark is not None and self._stderr_poller.poll(0):
            with contextlib.suppress(OSError):
                for _ in range(_MARK_READS):
                    if self._read_stderr() <= 0:
                        break
        self._stderr_mark = mark

    # ------------------------------------------------------------------------------------------- idling

    def freeze(self) -> None:
        """Stop every process of the bot until ``thaw`` (it is idle: nothing is asked of it); nothing where it has
        no freezer (``RunnerConfig.freeze`` off, or no cgroup for one here)."""
        if self.freezer is not None and self._state is _P.RUNNING and self.freezer.freeze():
            self._become(_P.FROZEN)

    def thaw(self) -> None:
        """Let a frozen bot run again."""
        if self.freezer is not None and self._state is _P.FROZEN:
            self.freezer.thaw()
            self._become(_P.RUNNING)

    # ------------------------------------------------------------------------------------------- ending

    def exit_detail(self, what: str) -> str:
        """``the bot <what>``, with how it ended when it has (exit code or signal)."""
        code = self.process.returncode
        if code is None:
            return f"the bot {what}"
        if self.memory is not None and self.memory.oom_kills():
            return (
                f"the bot {what}: killed for holding more memory than its limit (ram={size_text(self.memory.cap)}, "
                "all its processes together)"
            )
        return f"the bot {what}: {describe_exit(code, sandboxed=self.mode == 'bwrap', limits=self.limits)}"

    async def _exit_detail_wait(self, what: str) -> str:
        # Give an exiting process a moment to be reaped so the message can say how it ended.
        with trio.move_on_after(0.2):
            await self._exit.wait()
        return self.exit_detail(what)

    async def close_input(self) -> None:
        """Close the bot's stdin (it sees end of input)."""
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            await self._stdin.aclose()

    async def wait_exit(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the bot to exit; True when it did."""
        with trio.move_on_after(timeout):
            await self._exit.wait()
        return self._exit.is_set()

    async def terminate(self, grace: float) -> None:
        """End the bot: SIGTERM to its process group, ``grace`` seconds, then SIGKILL to the group and to every
        process in its cgroup; always reaps it. Shielded from cancellation; safe to call twice."""
        with trio.CancelScope(shield=True):
            self.thaw()  # a frozen process handles no signal (on cgroup v1, not even SIGKILL)
            if not self._exit.is_set():
                self._signal_group(signal.SIGTERM)
                await self.wait_exit(grace)
            self._signal_group(signal.SIGKILL)
            if not self._exit.is_set():
                with contextlib.suppress(ProcessLookupError):
                    self.process.kill()
            await self._reap()
            await self._release()

    async def _reap(self) -> None:
        # After SIGKILL the kernel ends the process; waiting is bounded in practice, but never wait forever.
        with trio.move_on_after(10):
            await self._exit.wait()

    def _signal_group(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, sig)
        if sig == signal.SIGKILL:
            if self.cpu_cgroup is not None:
                self.cpu_cgroup.kill()
            if self.memory is not None and not self.memory.v2:
                limits_mod.kill_cgroup(self.memory.path)
            if self.cgroup is not None:
                limits_mod.kill_cgroup(self.cgroup)
            elif self.mode == "none" and self.mark is not None:
                # No cgroup and no PID namespace: find children that left the group by their inherited tag.
                limits_mod.kill_marked(self.mark)

    async def _release(self) -> None:
        if not self._become(_P.CLOSED):  # released already (``terminate`` thaws a frozen one first)
            return
        for stream in (self._stdin, self._stdout):
            with contextlib.suppress(Exception):
                await stream.aclose()
        if self._alarm_scope is not None:
            self._alarm_scope.cancel()
        if self._drain_scope is not None:
            # Let the drain copy what the dead process left in the pipe, then stop it (it closes the stream).
            self._drain_scope.deadline = trio.current_time() + 0.5
        if self._cpu_fd is not None:
            os.close(self._cpu_fd)
            self._cpu_fd = None
        await self._removal.aclose()  # every cgroup of the start, each killed and removed


def _append_capped(log: BinaryIO, data: bytes, cap: int) -> bool:
    """Append what fits of ``data`` to ``log`` (opened for append) below ``cap`` bytes of file; the write that
    fills it adds the one notice line. False once the file is full. Locked, so that processes sharing the file
    never pass the cap together or write the notice twice."""
    fd = log.fileno()
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        size = os.fstat(fd).st_size
        if size >= cap:
            return False
        part = data[: cap - size]
        if size + len(part) < cap:
            log.write(part)
            return True
        notice = (
            f"\n[referee: stderr log capped at {cap} bytes (all this bot's processes together); the rest was dropped]\n"
        )
        log.write(part + notice.encode())
        return False
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)


def _stream(stack: contextlib.AsyncExitStack, pipe: IO[bytes] | None) -> trio.lowlevel.FdStream:
    """A trio stream owning a duplicate of a Popen pipe's descriptor, pushed on ``stack`` to be closed; the pipe
    object is closed."""
    assert pipe is not None
    fd = os.dup(pipe.fileno())
    try:
        stream = trio.lowlevel.FdStream(fd)
    except BaseException:
        os.close(fd)
        raise
    stack.callback(stream.close)
    pipe.close()
    return stream


def _close_pipes(popen: subprocess.Popen[bytes]) -> None:
    """Close the pipe objects of ``popen`` that are still open (a start undone before ``_stream`` took them)."""
    for pipe in (popen.stdin, popen.stdout, popen.stderr):
        if pipe is not None:
            pipe.close()


async def _kill_started(popen: subprocess.Popen[bytes], mark: str | None) -> None:
    """Undo a launch (what came after it failed): SIGKILL to the process group, and to every process tagged
    ``mark`` where no cgroup holds them (its cgroups are killed as they are removed), then reap it (up to 10 s)."""
    with trio.CancelScope(shield=True):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(popen.pid, signal.SIGKILL)
        if mark is not None:
            limits_mod.kill_marked(mark)
        with trio.move_on_after(10):
            while popen.poll() is None:
                await trio.sleep(0.01)


def seconds_left(deadline: float) -> float:
    """Seconds from now until ``deadline`` (trio time), at least 0; inf stays inf."""
    if math.isinf(deadline):
        return deadline
    return max(0.0, deadline - trio.current_time())
