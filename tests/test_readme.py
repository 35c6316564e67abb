"""Every ```python block of README.md runs as written.

The README is the front page and the package's long description: an example
that no longer runs is the first thing a new user meets, so each block runs
here in a fresh namespace, from a fresh working directory, and a block that
raises fails the test.  Blocks are independent (each has its own imports).
"""
from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def python_blocks() -> list[str]:
    return BLOCK.findall(README.read_text(encoding="utf-8"))


def test_the_readme_has_examples():
    assert len(python_blocks()) >= 3


@pytest.mark.parametrize("index", range(len(python_blocks())))
def test_readme_example_runs(index, tmp_path, monkeypatch, capsys):
    code = python_blocks()[index]
    monkeypatch.chdir(tmp_path)                  # an example that writes files writes them here
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # a time limit's UserWarning is part of the story
        exec(compile(code, f"README.md block {index + 1}", "exec"), {"__name__": "__readme__"})
    assert capsys.readouterr().out.strip(), "every example prints what it shows"
