"""The table of every form of every protocol message (``protocol.forms``) is complete and true: each form it names
exists, each form that exists has its row, each row has the forms its direction needs, and the light forms have
the models' fields. So a message (or a field) added in one form only fails here, naming what is missing."""

from __future__ import annotations

import importlib
import inspect
from dataclasses import fields
from typing import Any, get_args

from pydantic import BaseModel

from protocol import convert, inbound, messages, replies, session, wire
from protocol.forms import FORMS, LOG_ONLY, Forms
from protocol.schema import BOT_TO_REFEREE, MESSAGES, REFEREE_TO_BOT
from referee.runner import gamelog, logrecords

#: What a message needs, by direction; the parts are read and written inside their messages.
NEEDED = {
    "referee to bot": ("model", "light", "reader", "encoder"),
    "bot to referee": ("model", "light", "reader", "encoder"),
}


def resolve(name: str) -> Any:
    module, _, qualified = name.partition(":")
    target: Any = importlib.import_module(module)
    for part in qualified.split("."):
        target = getattr(target, part)
    return target


def named(column: str) -> set[str]:
    return {getattr(f, column) for f in FORMS.values() if getattr(f, column) is not None}


def defined(module: Any, kind: type) -> set[str]:
    """``module:Name`` of each class of ``kind`` that ``module`` defines."""
    return {
        f"{module.__name__}:{n}"
        for n, v in vars(module).items()
        if inspect.isclass(v) and issubclass(v, kind) and v.__module__ == module.__name__ and not n.startswith("_")
    }


def public_functions(module: Any) -> set[str]:
    return {
        f"{module.__name__}:{n}"
        for n, v in vars(module).items()
        if inspect.isfunction(v) and v.__module__ == module.__name__ and not n.startswith("_")
    }


def test_every_form_named_exists() -> None:
    for row in FORMS.values():
        for f in fields(Forms):
            if (name := getattr(row, f.name)) is not None:
                resolve(name)
    for record, writer in LOG_ONLY.items():
        resolve(record)
        if writer is not None:
            resolve(writer)


def test_every_message_has_a_row_with_the_forms_its_direction_needs() -> None:
    assert [n for n in FORMS if n in MESSAGES] == [*REFEREE_TO_BOT, *BOT_TO_REFEREE]
    for name in MESSAGES:
        direction = "referee to bot" if name in REFEREE_TO_BOT else "bot to referee"
        missing = [column for column in NEEDED[direction] if getattr(FORMS[name], column) is None]
        assert not missing, f"{name}: no {', '.join(missing)} in protocol.forms"
        assert resolve(FORMS[name].model) is MESSAGES[name]


def test_every_form_defined_has_its_row() -> None:
    models = defined(messages, BaseModel) - {"protocol.messages:RefereeMessage"}
    assert models <= named("model"), f"models without a row: {sorted(models - named('model'))}"
    light = defined(inbound, tuple) | defined(replies, tuple)
    assert light <= named("light"), f"light forms without a row: {sorted(light - named('light'))}"
    conversions = named("builder") | named("to_engine")
    assert public_functions(convert) <= conversions, sorted(public_functions(convert) - conversions)
    light_readers = named("reader") | named("light_to_engine")
    assert public_functions(inbound) <= light_readers, sorted(public_functions(inbound) - light_readers)
    encoders = {f"protocol.wire:GameWire.{n}" for n in vars(wire.GameWire) if not n.startswith("__")}
    encoders |= {f for f in public_functions(wire)} | public_functions(session)
    encoders -= {"protocol.wire:GameWire._hand", "protocol.wire:GameWire._encoded_history"}  # helpers of turn
    assert encoders <= named("encoder"), f"encoders without a row: {sorted(encoders - named('encoder'))}"
    records = {r for r in defined(logrecords, object) if hasattr(resolve(r), "__dataclass_fields__")}
    assert records <= named("log_record") | set(LOG_ONLY), sorted(records - named("log_record") - set(LOG_ONLY))
    writers = {
        f"referee.runner.gamelog:GameLogWriter.{n}"
        for n, v in vars(gamelog.GameLogWriter).items()
        if inspect.isfunction(v) and not n.startswith("_") and n not in ("record", "close", "ms")
    }
    known = named("log_writer") | {w for w in LOG_ONLY.values() if w is not None}
    assert writers <= known, f"log writers without a row: {sorted(writers - known)}"


def _model_fields(model: type[BaseModel]) -> set[str]:
    return set(model.model_fields)


def test_the_light_forms_have_the_models_fields() -> None:
    for name, row in FORMS.items():
        if row.light is None:
            continue
        light, model = resolve(row.light), resolve(row.model)
        assert set(light._fields) == _model_fields(model), f"{name}: {row.light} and {row.model} differ"
        assert light.__name__ == model.__name__, f"{name}: the light form keeps the model's class name"


def test_the_referee_messages_union_and_the_light_reader_know_every_referee_message() -> None:
    union = {m.__name__ for m in get_args(get_args(messages.RefereeMessage)[0])}
    assert union == {MESSAGES[n].__name__ for n in REFEREE_TO_BOT}
    assert set(inbound._KINDS) == set(REFEREE_TO_BOT)
    assert set(replies._READ) == {"hello" if n == "hello_reply" else n for n in BOT_TO_REFEREE}
