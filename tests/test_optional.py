"""Optional dependencies: the estimators import none of them, and a missing
one is an ImportError that names the extra installing it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import optimaltrees
from optimaltrees._optional import require


def test_require_returns_the_module():
    assert require("json", "plot", "anything") is json


@pytest.mark.parametrize("name", ["no_such_module_for_optimaltrees", "optimaltrees.no_such_module"])
def test_require_names_the_extra_of_a_missing_module(name):
    with pytest.raises(ImportError) as info:
        require(name, "plot", "drawing models")
    assert str(info.value) == f"drawing models needs {name}; install it with: pip install 'optimaltrees[plot]'"


def test_running_suites_without_dask_says_which_extra(monkeypatch):
    from optimaltrees.bench.runner import run_jobs

    monkeypatch.setitem(sys.modules, "dask.distributed", None)    # as if not installed
    with pytest.raises(ImportError, match=r"running benchmark suites needs dask\.distributed; install it with: "
                                          r"pip install 'optimaltrees\[bench\]'"):
        run_jobs([])


def test_the_package_and_its_estimators_import_no_optional_dependency():
    code = ("import sys, json\n"
            "import optimaltrees, optimaltrees.estimators, optimaltrees.io, optimaltrees.cli, optimaltrees.demo\n"
            "import optimaltrees.bench.runner\n"
            "from optimaltrees import OptimalTreeClassifier, SATTreeClassifier, DecisionDiagramClassifier\n"
            "print(json.dumps([optimaltrees.__file__, sorted(sys.modules)]))\n")
    src = str(Path(optimaltrees.__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([src, os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    where, modules = json.loads(out.stdout.splitlines()[-1])
    assert Path(where).resolve() == Path(optimaltrees.__file__).resolve()
    loaded = sorted({m.partition(".")[0] for m in modules} & {"matplotlib", "dask", "distributed", "pycontree",
                                                                "pystreed", "pydl85"})
    assert loaded == []
