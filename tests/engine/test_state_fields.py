"""``State`` is built by name (``State(...)``, or ``rules._with`` changing fields by name), except on the paths every
game takes many times (a turn, a discard, a round's start and end): there each is one unpacking of the state into
locals named as its fields and one tuple of those names in the same order, and each field read by
position is the field its comment names. So a new field, or a field moved, cannot shift the others silently."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from referee.engine import State

RULES = Path(__file__).resolve().parents[2] / "referee" / "engine" / "rules.py"
FIELDS = list(State._fields)


def _names(node: ast.expr) -> list[str] | None:
    if not isinstance(node, ast.Tuple) or not all(isinstance(e, ast.Name) for e in node.elts):
        return None
    return [e.id for e in node.elts if isinstance(e, ast.Name)]


def test_states_built_by_position_name_every_field_in_order() -> None:
    tree = ast.parse(RULES.read_text(encoding="utf-8"))
    built_in: list[str] = []
    for function in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
        by_name = {  # lists of the state's own fields, changed by the index of a field's name (``_with``)
            ast.unparse(n.targets[0])
            for n in ast.walk(function)
            if isinstance(n, ast.Assign) and ast.unparse(n.value) == "list(state)"
        }
        unpacked = [
            _names(n.targets[0])
            for n in ast.walk(function)
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Name) and n.value.id == "state"
        ]
        for call in ast.walk(function):
            if (
                isinstance(call, ast.Call)
                and ast.unparse(call.func) == "_tuple_new"
                and ast.unparse(call.args[0]) == "State"
            ):
                if ast.unparse(call.args[1]) in by_name:
                    continue
                built_in.append(function.name)
                assert _names(call.args[1]) == FIELDS, f"{function.name}: a State not built from its fields' names"
                assert unpacked == [FIELDS], f"{function.name}: builds a State without unpacking one by field names"
    assert sorted(built_in) == ["_end_round", "_set_discard", "_start_round", "apply"], "State built by position"


def test_every_field_read_by_position_is_the_field_its_comment_names() -> None:
    lines = [line for line in RULES.read_text(encoding="utf-8").splitlines() if re.search(r"\bstate\[\d+\]", line)]
    assert len(lines) >= 5
    for line in lines:
        code, _, comment = line.partition("#")
        read = [FIELDS[int(i)] for i in re.findall(r"\bstate\[(\d+)\]", code)]
        assert re.findall(r"\w+", comment)[: len(read)] == read, line
