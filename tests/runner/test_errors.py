"""The exception hierarchy: every deliberate error derives from RefereeError; bot faults carry their kind."""

from __future__ import annotations

import referee.errors as errors
from referee.runner import FAULT_KINDS


def test_every_exported_error_is_a_referee_error() -> None:
    for name in errors.__all__:
        assert issubclass(getattr(errors, name), errors.RefereeError), name


def test_bot_fault_kinds_are_fault_kinds() -> None:
    for cls in (errors.BotCrashed, errors.BotTimeout, errors.UnsolicitedOutput, errors.StartupFailed):
        assert issubclass(cls, errors.BotFault) and cls.kind in FAULT_KINDS
    fault = errors.BotCrashed("the bot exited", line=b"x" * 500)
    assert fault.detail == "the bot exited" and fault.line is not None and len(fault.line) == 201
