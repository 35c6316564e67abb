"""The documentation builds from the sources with warnings as errors, and
every gallery example runs in that build.

The documented build command is run as it stands (``python -m sphinx -W
--keep-going -b html docs OUT``), in a subprocess, without network (the
configuration uses no intersphinx and no remote resources).  The build
needs the ``docs`` extra, which the ``test`` extra includes: a missing
package is a failure here, never a skip.
"""
import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
EXAMPLES = sorted((ROOT / "examples").glob("plot_*.py"))
#: what ``pip install ".[docs]"`` installs, by import name
DOC_PACKAGES = ("sphinx", "numpydoc", "sphinx_gallery", "pydata_sphinx_theme", "myst_parser", "matplotlib")
#: the build takes about half a minute on a 2-core machine (the gallery's
#: scripts most of it); this only stops a hung build
TIMEOUT = 600


def test_documentation_packages_are_installed():
    missing = []
    for name in DOC_PACKAGES:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    assert not missing, f"the documentation build needs {missing}: pip install '.[docs]' (or '.[test]')"


def test_gallery_has_examples():
    assert len(EXAMPLES) >= 5, "the gallery promises at least five examples"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Build the HTML once for the tests below; (return code, output, folder)."""
    out = tmp_path_factory.mktemp("html")
    env = dict(os.environ, OPTIMALTREES_DOCS_GALLERY="True", MPLBACKEND="Agg")
    run = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html", str(DOCS), str(out)],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    return run.returncode, run.stdout + run.stderr, out


@pytest.mark.slow
def test_docs_build_without_warnings(built):
    code, output, out = built
    assert code == 0, f"sphinx -W failed:\n{output[-6000:]}"
    assert "WARNING" not in output and "ERROR" not in output, output[-6000:]
    for page in ("index", "api", "engine", "guide/index", "benchmarks/index", "auto_examples/index"):
        assert (out / f"{page}.html").is_file(), page


@pytest.mark.slow
@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_gallery_example_ran(built, example):
    """Each script ran in the build: its page shows its printed output."""
    code, output, out = built
    assert code == 0, f"sphinx -W failed:\n{output[-6000:]}"
    page = out / "auto_examples" / f"{example.stem}.html"
    assert page.is_file(), f"{example.name} has no gallery page"
    assert "sphx-glr-script-out" in page.read_text(encoding="utf-8"), f"{example.name} printed nothing"
