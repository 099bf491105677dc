"""The gate: every new version is built (when it has a build command) and passes ``referee check`` before it plays.

One version at a time goes through the gate, oldest submission first, so one build or check per entrant (and
for the whole ladder) runs at a time; an entrant's older submissions still waiting when a newer one is taken are
retired unplayed ("superseded"). The check is the conformance suite with the ladder's own sandbox, limits and
move time, its game logs and the bot's stderr kept in ``DIR/gate/<version>/`` for the author. A version that
passes goes into placement (``placement_blocks`` blocks of its own before it is ranked) and takes the place of its
entrant's oldest active version beyond ``active_versions``, which is retired; one that fails never plays, and its
reasons (one line per failed check, or the build's) are stored and shown to its author. Each step is a guarded
move (``LadderStore.move_version``): a version retired while it is built or checked stays retired, and its gate
stops at its next step.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import fields, replace
from typing import Any, Protocol

from referee.ladder.botmanifest import MANIFEST_NAME, BotManifest, check_program, version_spec
from referee.ladder.build import run_build
from referee.ladder.errors import IntakeError
from referee.ladder.model import ACTIVE_STATES, Version, VersionState
from referee.ladder.notices import NoticeKind, record
from referee.ladder.platform_build import BuildLimits, keep_source
from referee.ladder.service import Ladder
from referee.runner import BotSettings, BotSpec, BotSpecError, ConfigError
from referee.runner.safe_text import line_text, visible

__all__ = ["CheckFn", "Gatekeeper", "gate_reasons"]

#: How much of a bot's offending line a gate reason quotes (the whole line is in the stored check report).
QUOTED = 200


def gate_reasons(report: dict[str, Any]) -> list[str]:
    """One line per failed check of a check report (``CheckReport.to_dict``): its name and summary and, when the
    bot sent a line that caused it, that line as received (its first ``QUOTED`` characters, unprintable
    characters escaped), as ``referee check`` shows it. When no failed check quotes a line (a bot that ended or
    stayed silent), the first reason ends with the last line the bot wrote on stderr, which usually says why (a
    script not found, an exception): the reasons are its author's alone, as its stderr is."""
    reasons = []
    quoted = False
    for check in report.get("checks", []):
        if check.get("outcome") != "failed":
            continue
        reason = f"{check['name']}: {check['summary']}"
        received = next((e["received"] for e in check.get("evidence", []) if e.get("received") is not None), None)
        if received is not None:
            reason += f" (received: {visible(line_text(received, QUOTED, mark='...') or '')})"
            quoted = True
            if check["name"] == "stdout-protocol-only":
                reason += "; stdout carries protocol lines only: write logs and debug lines to stderr"
        reasons.append(reason)
    said = [line for line in report.get("stderr_tail", ()) if str(line).strip()]
    if reasons and not quoted and said:
        reasons[0] += f" (its stderr ends: {visible(line_text(str(said[-1]).strip(), QUOTED, mark='...') or '')})"
    return reasons


class CheckReportLike(Protocol):
    @property
    def passed(self) -> bool: ...
    @property
    def failed_names(self) -> tuple[str, ...]: ...
    def to_dict(self) -> dict[str, Any]: ...


#: The conformance suite: ``referee.check.run_check`` (tests pass a fake for in-process entrants).
CheckFn = Callable[[BotSpec, Any], Awaitable[CheckReportLike]]


class Gatekeeper:
    """Takes the versions waiting for their gate through it, one at a time (``step``)."""

    def __init__(
        self,
        ladder: Ladder,
        announce: Callable[[str], None],
        on_change: Callable[[], None],
        check: CheckFn | None = None,
    ) -> None:
        self.ladder = ladder
        self.store = ladder.store
        self.announce = announce
        self.on_change = on_change
        self._check = check

    def next_version(self) -> Version | None:
        """The oldest waiting submission of an entrant that may play, its entrant's older waiting ones retired."""
        waiting = self.store.versions(states=[VersionState.SUBMITTED])
        newest: dict[int, Version] = {}
        for v in waiting:
            newest[v.entrant_id] = v
        for v in waiting:
            if newest[v.entrant_id].id != v.id:
                reason = f"superseded by version {newest[v.entrant_id].number} before its gate"
                self.store.move_version(v.id, VersionState.RETIRED, reason, only=[VersionState.SUBMITTED])
        ready = sorted(newest.values(), key=lambda v: v.id)
        return ready[0] if ready else None

    async def step(self) -> bool:
        """Take one waiting version through the gate; False when none was waiting."""
        version = self.next_version()
        if version is None:
            return False
        await self.gate(version)
        return True

    async def gate(self, v: Version) -> None:
        ladder, store = self.ladder, self.store
        store.start_gate(v.id)
        folder = ladder.version_folder(v)
        settings = ladder.config.bot_settings()
        build_log = None
        submissions = ladder.config.submissions
        if v.build is not None:
            if not store.move_version(v.id, VersionState.BUILDING, only=[VersionState.SUBMITTED]):
                return self._left(v)
            log = ladder.layout.build_log(v.digest)
            build_log = str(log.relative_to(ladder.layout.root))
            limits = BuildLimits.of(submissions)
            try:  # for Dask workers of other platforms than this machine's, which build it themselves
                keep_source(folder, BotManifest(v.command, v.build), v.digest, ladder.layout.source_pack(v.digest))
            except OSError as exc:
                self.announce(f"{v.key}: its files as submitted could not be kept ({exc}): played where it is built")
            try:
                built = await run_build(
                    folder,
                    v.build,
                    log,
                    settings,
                    limits.seconds,
                    ladder.layout.hidden_paths(),
                    limits.cap,
                )
            except (BotSpecError, ConfigError) as exc:
                self._fail(v, [f"build: {exc}"], None, build_log)
                return
            if not built.ok:
                self._fail(v, [built.detail], None, build_log)
                return
        try:
            check_program(v.command, folder, MANIFEST_NAME)
        except IntakeError as exc:
            self._fail(v, [str(exc)], None, build_log)
            return
        if not store.move_version(v.id, VersionState.GATING, only=[VersionState.SUBMITTED, VersionState.BUILDING]):
            return self._left(v)
        spec = version_spec(v.key, BotManifest(v.command, v.build), folder)
        logs = ladder.layout.gate_dir(v.id)
        logs.mkdir(parents=True, exist_ok=True)
        options = _check_options(
            settings,
            games=ladder.config.submissions.gate_games,
            logs=logs,
            ruleset=ladder.config.ruleset(),
            opponents=self._opponents(v),
        )
        try:
            report = await self._run_check(spec, options)
        except (BotSpecError, ConfigError) as exc:
            self._fail(v, [f"check: {exc}"], None, build_log)
            return
        if not report.passed:
            data = report.to_dict()
            reasons = gate_reasons(data) or [f"failed checks: {', '.join(report.failed_names)}"]
            self._fail(v, reasons, data, build_log)
            return
        store.finish_gate(v.id, passed=True, reasons=(), report=report.to_dict(), build_log=build_log)
        self._admit(v)

    def _opponents(self, v: Version) -> tuple[BotSpec, ...]:
        """The check's opponents (the sample bots), named as the seats of ranked play are (``entrant#n``): each
        after an active version of another entrant, drawn at random, else as the first version of an entrant named
        after the sample bot. Nothing in the names tells the gate from a block."""
        from referee.check import DEFAULT_OPPONENTS, sample_bot_spec

        keys = [x.key for x in self.store.active_versions() if x.entrant_id != v.entrant_id]
        names = random.sample(keys, min(len(keys), len(DEFAULT_OPPONENTS)))
        for sample in DEFAULT_OPPONENTS[len(names) :]:
            number = 1
            while (key := f"{sample.removesuffix('_bot')}#{number}") in names or key == v.key:
                number += 1
            names.append(key)
        return tuple(replace(sample_bot_spec(n), name=key) for n, key in zip(DEFAULT_OPPONENTS, names, strict=True))

    def _admit(self, v: Version) -> None:
        """Into placement; the entrant's oldest active versions beyond ``active_versions`` retire."""
        store = self.store
        placement = self.ladder.config.matchmaking.placement_blocks
        if not store.move_version(
            v.id, VersionState.PLACEMENT, "passed the gate", only=[VersionState.GATING], placement_left=placement
        ):
            return self._left(v)
        active = [x for x in store.versions(entrant_id=v.entrant_id, states=ACTIVE_STATES)]
        keep = self.ladder.config.submissions.active_versions
        self.announce(f"{v.key} passed its gate; {placement} placement blocks before it is ranked")
        for old in sorted(active, key=lambda x: x.number)[: max(0, len(active) - keep)]:
            if store.move_version(old.id, VersionState.RETIRED, f"replaced by version {v.number}"):
                self.announce(f"{old.key} retired: replaced by {v.key}")
        self.on_change()

    def _fail(self, v: Version, reasons: list[str], report: dict[str, Any] | None, build_log: str | None) -> None:
        self.store.finish_gate(v.id, passed=False, reasons=reasons, report=report, build_log=build_log)
        if not self.store.move_version(v.id, VersionState.FAILED, reasons[0]):
            return self._left(v)
        self.announce(f"{v.key} failed its gate: {reasons[0]}")
        text = f"{v.key} failed its gate: {'; '.join(reasons)}"
        notices = self.ladder.config.notices
        record(self.store, notices, v.entrant_id, v.id, NoticeKind.GATE_FAILED, text, entrant=v.entrant)
        self.on_change()

    def _left(self, v: Version) -> None:
        """The version was moved while in its gate (retired by its author or the organiser): it stays so."""
        now = self.store.version(v.id)
        self.announce(f"{v.key} left its gate: {now.state.value if now else 'gone'} meanwhile")
        self.on_change()

    async def _run_check(self, spec: BotSpec, options: Any) -> CheckReportLike:
        if self._check is not None:
            return await self._check(spec, options)
        from referee.check import run_check

        return await run_check(spec, options)


def _check_options(settings: BotSettings, **rest: Any) -> Any:
    """``referee.check.CheckOptions`` with the ladder's bot settings (one game at a time)."""
    from referee.check import CheckOptions

    chosen = {f.name: getattr(settings, f.name) for f in fields(BotSettings)}
    return CheckOptions(**chosen, jobs=1, **rest)
