"""Every Python snippet of the documentation's pages runs.

The code blocks fenced as ```python in ``docs/**/*.md`` are run page by
page, in order, in one namespace per page (a page's later snippets use its
earlier ones' names), in a temporary folder.  Blocks in other languages
(``bash``, ``text``) are shown, not run.
"""
import os
import re
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SKIP = ("_build", "_generated", "generated", "auto_examples")
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def pages():
    found = []
    for page in sorted(DOCS.rglob("*.md")):
        rel = page.relative_to(DOCS)
        if rel.parts[0] in SKIP or page.name == "README.md":
            continue
        if BLOCK.search(page.read_text(encoding="utf-8")):
            found.append(rel)
    return found


def test_pages_have_snippets():
    names = {str(p) for p in pages()}
    for page in ("index.md", "guide/exact.md", "guide/regression.md", "guide/anytime.md", "guide/sat.md",
                 "guide/diagrams.md", "guide/data.md", "guide/models.md", "guide/dask.md"):
        assert page in names, f"{page} lost its runnable snippet"


@pytest.mark.parametrize("page", pages(), ids=str)
def test_snippets_run(page, tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__docs__"}
    for k, code in enumerate(BLOCK.findall((DOCS / page).read_text(encoding="utf-8"))):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)     # time limits reached on a busy machine
            try:
                exec(compile(code, f"{page} snippet {k + 1}", "exec"), namespace)
            except Exception as exc:
                raise AssertionError(f"{page}, snippet {k + 1} fails: {exc!r}\n{code}") from exc
