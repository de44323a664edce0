"""No import circles between the project's modules (issue 10, item 6).

Every ``import`` and ``from ... import`` of a project module counts, at module level or inside
a function (an import moved into a function to dodge a circle still ties the two modules
together). ``from package import name`` counts as importing the submodule ``package.name``
when there is one, otherwise the package itself. Importing ``a.b.c`` also runs the packages
``a`` and ``a.b``: those count too, except the importer's own packages (a package's
``__init__`` may import its submodules). Imports under ``if TYPE_CHECKING:`` do not count:
they never run.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("evalsite", "campaigns", "judgments", "analytics")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    modules = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            modules[module_name(path)] = path
    return modules


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules that ``name`` imports, anywhere in its source."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    tree = ast.parse(path.read_text(), filename=str(path))
    # Imports under "if TYPE_CHECKING:" never run: leave them out.
    for block in ast.walk(tree):
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test):
            block.body = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".")
                if not is_package:
                    anchor = anchor[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                for alias in node.names
            ]
        else:
            continue
        for target in targets:
            # "import a.b.c" imports a.b.c; keep the longest project module it names.
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if not target or target == name:
                continue
            found.add(target)
            # Importing a.b.c runs the packages a and a.b first: count those the importer is
            # not inside of (its own packages are being imported already).
            parent = target.rpartition(".")[0]
            while parent:
                if not (name == parent or name.startswith(parent + ".")):
                    found.add(parent)
                parent = parent.rpartition(".")[0]
    return found


def import_cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    modules = project_modules()
    graph = {name: imports_of(name, path, modules) for name, path in modules.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles


def test_the_walk_sees_function_level_and_relative_imports(tmp_path, monkeypatch):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("def f():\n    from pkg import b\n")
    (package / "b.py").write_text("from .a import f\n")
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path, raising=False)
    modules = {"pkg": package / "__init__.py", "pkg.a": package / "a.py", "pkg.b": package / "b.py"}
    assert imports_of("pkg.a", modules["pkg.a"], modules) == {"pkg.b"}
    assert imports_of("pkg.b", modules["pkg.b"], modules) == {"pkg.a"}


def test_the_walk_counts_the_packages_an_import_runs(tmp_path):
    for folder in ("one", "two", "two/sub"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "one" / "a.py").write_text("from one import b\nfrom two.sub import c\n")
    (tmp_path / "one" / "b.py").write_text("")
    (tmp_path / "two" / "sub" / "c.py").write_text("")
    modules = {
        name: tmp_path / path
        for name, path in {
            "one": "one/__init__.py",
            "one.a": "one/a.py",
            "one.b": "one/b.py",
            "two": "two/__init__.py",
            "two.sub": "two/sub/__init__.py",
            "two.sub.c": "two/sub/c.py",
        }.items()
    }
    # one.a is inside "one": its own package is not counted; "two" and "two.sub" run.
    assert imports_of("one.a", modules["one.a"], modules) == {
        "one.b",
        "two",
        "two.sub",
        "two.sub.c",
    }


def test_no_module_imports_itself_through_others():
    assert import_cycles() == []
