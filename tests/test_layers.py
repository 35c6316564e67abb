"""Imports run downward only: a module may import its own layer and the ones
below it, never one above.

The layers, lowest first (a module's layer is that of its top-level name
under ``optimaltrees``):

====  ==========================================  ===========================================
rank  modules                                     what they are
====  ==========================================  ===========================================
0     ``data``, ``_optional``                     input checks, encodings, tables, bundled sets;
                                                  the optional-dependency helper
1     ``model``, ``anytime``                      what a search returns: ``Tree``,
                                                  ``DecisionDiagram``, their exports, and the
                                                  anytime trace (``TracePoint``, ``Progress``)
2     ``search``                                  the engines (ConTree, SAT, diagram MILP)
3     ``estimators``, the package root            the scikit-learn estimators (the root
                                                  ``optimaltrees/__init__`` re-exports them)
4     ``io``, ``io_schema``, ``plot``, ``demo``   model files (``io_schema``: what a file may
                                                  hold, and its checks), pictures, the demo
5     ``bench``                                   benchmark suites (they save and plot models)
6     ``cli``, ``__main__``                       the command line (it runs the suites)
====  ==========================================  ===========================================

``model`` sits *below* ``search`` (the package docstring once listed it
above): every engine builds its ``Tree`` or ``DecisionDiagram`` itself, and
the fitted objects need nothing from the engines.  ``anytime`` sits with
``model`` for the same reason: the ConTree driver reports ``Progress`` and
records ``TracePoint`` values.

Every ``import`` counts, also one inside a function (a lazy import is still
a dependency).  A second rule: a benchmark suite (``bench/suites/*.py``)
never imports another suite; what suites share lives in ``bench/common.py``.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = SRC / "optimaltrees"

RANKS = {
    "data": 0, "_optional": 0,
    "model": 1, "anytime": 1,
    "search": 2,
    "estimators": 3, "": 3,          # "": the package root, optimaltrees/__init__.py
    "io": 4, "io_schema": 4, "plot": 4, "demo": 4,
    "bench": 5,
    "cli": 6, "__main__": 6,
}


def _modules() -> dict[str, Path]:
    """Dotted name -> file of every Python module of the package."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _layer(module: str) -> str:
    """The top-level name under optimaltrees ('' for the root itself)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _imports(module: str, path: Path) -> list[tuple[int, str]]:
    """(line, imported optimaltrees module) of every import in the file;
    ``from X import name`` counts as X.name when that is a module."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            for a in node.names:
                sub = f"{target}.{a.name}"
                found.append((node.lineno, sub if sub in MODULES else target))
    return sorted({(line, name) for line, name in found if name == "optimaltrees" or name.startswith("optimaltrees.")})


def upward_imports() -> list[str]:
    bad = []
    for module, path in MODULES.items():
        rank = RANKS[_layer(module)]
        for line, target in _imports(module, path):
            if RANKS[_layer(target)] > rank:
                bad.append(f"{path.relative_to(SRC)}:{line}: {module} (layer {_layer(module) or 'root'}, "
                           f"rank {rank}) imports {target} (layer {_layer(target) or 'root'}, "
                           f"rank {RANKS[_layer(target)]})")
    return bad


def sibling_suite_imports() -> list[str]:
    bad = []
    for module, path in MODULES.items():
        if not module.startswith("optimaltrees.bench.suites."):
            continue
        for line, target in _imports(module, path):
            if target.startswith("optimaltrees.bench.suites.") and target != module:
                bad.append(f"{path.relative_to(SRC)}:{line}: suite {module} imports suite {target}")
    return bad


def test_every_module_has_a_layer():
    assert len(MODULES) > 40
    assert {_layer(m) for m in MODULES} <= set(RANKS), sorted({_layer(m) for m in MODULES} - set(RANKS))


def test_no_module_imports_a_higher_layer():
    bad = upward_imports()
    assert not bad, "imports from a higher layer:\n" + "\n".join(bad)


def test_no_suite_imports_another_suite():
    bad = sibling_suite_imports()
    assert not bad, "a benchmark suite imports another suite:\n" + "\n".join(bad)


@pytest.mark.parametrize("source, expected", [
    ("from optimaltrees.estimators.classifier import OptimalTreeClassifier", ["optimaltrees.estimators.classifier"]),
    ("def f():\n    from optimaltrees import OptimalTreeClassifier", ["optimaltrees"]),
    ("from ... import plot", ["optimaltrees.plot"]),
    ("from ..diagram.heuristic import Settings", ["optimaltrees.search.diagram.heuristic"]),
    ("import numpy, optimaltrees.cli", ["optimaltrees.cli"]),
])
def test_the_checker_sees_every_form_of_import(tmp_path, source, expected):
    path = tmp_path / "m.py"
    path.write_text(source + "\n")
    found = [name for _, name in _imports("optimaltrees.search.sat.m", path)]
    assert found == expected
