"""The exception hierarchy: every deliberate error derives from RefereeError; bot faults carry their kind."""

from __future__ import annotations

import json
import sqlite3

import referee.errors as errors
from protocol.errors import ViolationKind
from referee.runner import FAULT_KINDS
from referee.runner.faults import Fault, FaultKind
from referee.runner.safe_text import line_text


def test_every_exported_error_is_a_referee_error() -> None:
    for name in errors.__all__:
        assert issubclass(getattr(errors, name), errors.RefereeError), name


def test_bot_fault_kinds_are_fault_kinds() -> None:
    for cls in (errors.BotCrashed, errors.BotTimeout, errors.UnsolicitedOutput, errors.StartupFailed):
        assert issubclass(cls, errors.BotFault) and cls.kind in FAULT_KINDS
    fault = errors.BotCrashed("the bot exited", line=b"x" * 500)
    assert fault.detail == "the bot exited" and fault.line is not None and len(fault.line) == 201


def test_every_bot_fault_has_kind_detail_and_line_from_its_constructor() -> None:
    faults: list[errors.BotError] = [
        errors.ProtocolViolation("invalid_json", "not  JSON", line=b'{"type": '),
        errors.IllegalMove("you discard 2 but hold no 2", kind="illegal_discard", line=b'{"type":"discard"}'),
        errors.UnsolicitedOutput("a line when no reply was awaited", line="hello"),
        errors.BotTimeout("no reply before the deadline"),
    ]
    assert [(f.kind, f.detail, f.line) for f in faults] == [
        ("invalid_json", "not JSON", b'{"type": '),
        ("illegal_discard", "you discard 2 but hold no 2", b'{"type":"discard"}'),
        ("unsolicited", "a line when no reply was awaited", "hello"),
        ("timeout", "no reply before the deadline", None),
    ]
    assert str(faults[0]) == "protocol violation: not JSON" and errors.IllegalMove("x").kind == "illegal_move"


def test_tournament_errors_are_referee_errors() -> None:
    for cls in (errors.ParamsError, errors.ScheduleError, errors.ManifestError, errors.StoreError, errors.FolderBusy):
        assert issubclass(cls, errors.RefereeError)
    assert issubclass(errors.WorkerSetupError, errors.ClusterError)


def test_line_text_cuts_and_decodes_an_offending_line_once() -> None:
    assert line_text(None) is None
    assert line_text(b"ab\xffc\n", bare=True) == "ab\ufffdc" and line_text("a\n") == "a\n"
    assert line_text("x" * 10, 4, mark="…") == "xxxx…"
    assert line_text(b"x" * 4, 4, mark="…") == "xxxx"


def test_fault_kinds_keep_the_strings_logs_and_databases_hold() -> None:
    """``FaultKind`` is a ``StrEnum``: what a game writes (JSON, SQLite, text) is the same string as before it was
    one, and every protocol violation kind is a fault kind with the same string."""
    assert FAULT_KINDS == set(FaultKind) == {
        "timeout", "crash", "unsolicited", "output_cap", "startup", "illegal_move", "illegal_discard",
        "line_too_long", "invalid_json", "not_object", "unknown_type", "wrong_type", "bad_field", "protocol_version",
    }  # fmt: skip
    assert {FaultKind(k) for k in ViolationKind} <= FAULT_KINDS
    fault = Fault(seat=1, kind=errors.BotTimeout("late").kind, round=2, turn=3, detail="late")
    assert json.loads(json.dumps(fault.to_dict()))["kind"] == "timeout"
    assert Fault.from_dict(fault.to_dict()) == fault
    db = sqlite3.connect(":memory:")
    assert db.execute("SELECT ?, typeof(?)", (fault.kind, fault.kind)).fetchone() == ("timeout", "text")
    assert fault.describe() == "seat 1: timeout (round 2, turn 3): late"
