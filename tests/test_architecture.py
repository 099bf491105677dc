"""The shape of the code, read from its source: no import cycles, imports one way between the packages, and the
stores as the only users of SQLite. Every import counts, those inside functions too, but not those for the type
checker alone (``if TYPE_CHECKING:``)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("referee", "protocol")

#: What each package may import of the project besides itself, ``referee.lazy``, ``referee.memo`` (the caches)
#: and the ``referee`` package (its version), the README's arrows: the engine nothing; the protocol the engine;
#: the bots' settings the engine (the root of the errors); the runner those; the tournament the runner; the
#: report, the check and the comparison what is below them; the ladder those; the web the ladder and the report.
#: Nothing imports the CLI.
MAY_IMPORT: dict[str, set[str]] = {
    "engine": set(),
    "protocol": {"engine"},
    "settings": {"engine"},
    "runner": {"engine", "protocol", "settings"},
    "contest": {"engine", "protocol", "runner", "settings"},
    "tournament": {"engine", "contest", "protocol", "runner", "settings"},
    "report": {"engine", "contest", "protocol", "runner", "settings", "tournament"},
    "check": {"engine", "protocol", "runner", "settings"},
    "compare": {"engine", "contest", "protocol", "runner", "settings", "tournament"},
    "ladder": {"engine", "contest", "protocol", "runner", "settings", "tournament", "check", "report"},
    "web": {"engine", "contest", "protocol", "runner", "settings", "tournament", "check", "report", "ladder"},
}


@cache
def sources() -> dict[str, Path]:
    """Module name -> its file, for every module of the project's packages."""
    out = {}
    for top in PACKAGES:
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


@cache
def _tree(module: str) -> ast.Module:
    return ast.parse(sources()[module].read_text(encoding="utf-8"))


@cache
def _lazy_names(package: str) -> dict[str, str]:
    """A package's lazily loaded names (``referee.lazy``): name -> the module it lives in, read from the literal
    ``_WHERE`` of its ``__init__`` (none when it has none)."""
    for node in _tree(package).body:
        if isinstance(node, ast.AnnAssign | ast.Assign) and "_WHERE" in ast.unparse(node).split("=")[0]:
            assert node.value is not None
            where: dict[str, str] = ast.literal_eval(node.value)
            return where
    return {}


def test_a_lazy_package_imports_for_type_checkers_exactly_its_lazy_names() -> None:
    """A lazy package writes each of its names twice: in ``_WHERE`` (the module it lives in, read at run time; its
    ``__all__`` is ``sorted(_WHERE)``) and in its ``if TYPE_CHECKING:`` imports (for type checkers, which read no
    ``_WHERE``). The two agree, name by name and module by module."""
    wrong = []
    for package, path in sources().items():
        where = _lazy_names(package) if path.name == "__init__.py" else {}
        if not where:
            continue
        imported: dict[str, str | None] = {}
        for node in _tree(package).body:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                for inner in ast.walk(node):
                    if isinstance(inner, ast.ImportFrom):
                        imported.update({a.asname or a.name: inner.module for a in inner.names})
        if imported != where:
            wrong.append(f"{package}: {sorted(set(imported.items()) ^ set(where.items()))}")
    assert wrong == []


def _run_time_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node of ``tree`` outside ``if TYPE_CHECKING:`` blocks."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for other in node.orelse:
                yield other
                yield from _run_time_nodes(other)
            continue
        yield node
        yield from _run_time_nodes(node)


@cache
def imports(module: str) -> frozenset[str]:
    """The project's modules that ``module`` imports at run time (a package's lazy name counts as its module)."""
    path = sources()[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in _run_time_nodes(_tree(module)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in sources():
                    found.add(full)
                elif base in sources() and alias.name in _lazy_names(base):
                    found.add(_lazy_names(base)[alias.name])
                else:
                    found.add(base)
    return frozenset(m for m in found if m in sources() and m != module)


def _cycles() -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in imports(v):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sources():
        if module not in index:
            visit(module)
    return found


def test_no_module_imports_itself_back_through_others() -> None:
    assert _cycles() == []


def _package(module: str) -> str:
    parts = module.split(".")
    return "protocol" if parts[0] == "protocol" else parts[1] if len(parts) > 1 else "referee"


def test_imports_go_one_way_between_the_packages() -> None:
    wrong = [
        f"{module} imports {other}"
        for module in sources()
        if _package(module) in MAY_IMPORT
        for other in sorted(imports(module))
        if _package(other) not in {_package(module), "lazy", "memo", "referee", *MAY_IMPORT[_package(module)]}
    ]
    assert wrong == []


def test_only_the_stores_use_sqlite() -> None:
    """Every read and write of a database goes through its store: a results folder's ``ResultsStore`` (whose errors
    are ``StoreError``s) or a ladder's ``LadderStore``, both built on ``referee.contest.database``."""
    users = sorted(m for m in sources() if "sqlite3" in imports_anything(m))
    assert users == ["referee.contest.database", "referee.ladder.store", "referee.tournament.store"]


def imports_anything(module: str) -> set[str]:
    """Every module name ``module`` imports, the project's or not (type checking's too)."""
    names: set[str] = set()
    for node in ast.walk(_tree(module)):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_every_error_class_is_in_the_catalogue() -> None:
    """Every exception class of the project that descends from ``RefereeError`` is listed by ``referee.errors``
    (its docstring draws the tree)."""
    import referee.errors

    bases = {module: {} for module in sources()}
    for module in sources():
        for node in ast.walk(_tree(module)):
            if isinstance(node, ast.ClassDef):
                bases[module][node.name] = {ast.unparse(b).rsplit(".", 1)[-1] for b in node.bases}
    errors = {"RefereeError"}
    while True:
        more = {name for classes in bases.values() for name, of in classes.items() if of & errors} - errors
        if not more:
            break
        errors |= more
    missing = sorted(e for e in errors if not e.startswith("_") and e not in referee.errors.__all__)
    assert missing == [], f"add to referee/errors.py: {missing}"


#: Module-level dicts that are no cache: the registry of formats and the registry of memos.
REGISTRIES = {"referee.tournament.formats:FORMATS", "referee.memo:MEMOS"}


def test_every_cache_is_a_memo() -> None:
    """A module-level cache is a ``referee.memo.Memo`` (one owner, a stated bound and policy): no module-level
    empty dict and no ``functools`` cache anywhere else."""
    found = []
    for module in sources():
        for node in _tree(module).body:
            target = (
                node.target
                if isinstance(node, ast.AnnAssign)
                else node.targets[0]
                if isinstance(node, ast.Assign)
                else None
            )
            value = getattr(node, "value", None)
            if target is not None and isinstance(value, ast.Dict) and not value.keys:
                name = f"{module}:{ast.unparse(target)}"
                if name not in REGISTRIES:
                    found.append(name)
        for node in ast.walk(_tree(module)):
            if isinstance(node, ast.FunctionDef):
                found += [f"{module}:{node.name}" for d in node.decorator_list if "cache" in ast.unparse(d)]
    assert found == [], f"make these referee.memo.Memo (or @memoized): {found}"


#: Modules imported at run time that an optional extra provides (``pip install 'referee[cluster]'``): only the command
#: that needs one imports it, and says so in one line where it is missing.
EXTRAS = {"dask": "cluster", "distributed": "cluster"}


def test_every_module_imported_at_run_time_is_a_dependency() -> None:
    """A plain ``pip install .`` runs every format and command: each third-party module the code imports at run time
    (inside functions too) comes from a distribution listed in ``dependencies`` (or, for ``EXTRAS``, in that extra)."""
    import importlib.metadata
    import re
    import sys
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]

    def names(requirements: list[str]) -> set[str]:
        """The distributions the requirements install: their names, and those of their extras ("dask[distributed]":
        dask and distributed)."""
        out = set()
        for requirement in requirements:
            name, _, rest = requirement.partition("[")
            out.add(re.split(r"[\s<>=!~;]", name, maxsplit=1)[0])
            out.update(x.strip() for x in rest.split("]")[0].split(",") if rest)
        return {n.lower().replace("_", "-") for n in out}

    declared = names(project["dependencies"])
    extras = {extra: names(reqs) for extra, reqs in project["optional-dependencies"].items()}
    providers = importlib.metadata.packages_distributions()
    used: dict[str, set[str]] = {}
    for module in sources():
        for node in _run_time_nodes(_tree(module)):
            if isinstance(node, ast.Import):
                tops = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                tops = [node.module.split(".")[0]]
            else:
                continue
            for top in tops:
                if top not in sys.stdlib_module_names and top not in (*PACKAGES, "__future__"):
                    used.setdefault(top, set()).add(module)
    missing = []
    for top, where in sorted(used.items()):
        dists = {d.lower().replace("_", "-") for d in providers.get(top, [top])}
        wanted = extras[EXTRAS[top]] if top in EXTRAS else declared
        if not dists & wanted:
            missing.append(f"{top} ({', '.join(sorted(dists))}; imported by {min(where)})")
    assert missing == [], f"add to pyproject.toml's dependencies: {missing}"
