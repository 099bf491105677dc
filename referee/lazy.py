"""Lazy names of a package (PEP 562): the package lists which of its names live in which module, and each module
is imported the first time one of its names is asked for, so a command that never uses it never pays for it.

A lazy package writes each name twice: in its ``_WHERE`` (name -> module; its ``__all__`` is ``sorted(_WHERE)``)
and in its ``if TYPE_CHECKING:`` imports, for type checkers (mypy and ruff are told these are its exports in
pyproject.toml); tests/test_architecture.py holds the two to each other."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(
    package: str, where: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``: ``where`` maps each lazy name to its module, and a name
    once loaded is kept in ``namespace`` (the package's ``globals()``)."""

    def getattr_(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        return sorted({*namespace, *where})

    return getattr_, dir_
