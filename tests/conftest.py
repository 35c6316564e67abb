"""Shared pytest configuration for the optimaltrees test suite.

Markers (registered here so the suite does not depend on pyproject settings):

* ``slow``  - tests taking more than a few seconds (real data at depth 3,
  time-limit runs).  Deselect with ``-m "not slow"``.
* ``peer``  - tests that run the peer implementation ``pycontree`` live.
  Skipped automatically when pycontree is not importable; deselect with
  ``-m "not peer"``.
"""
import sys
from pathlib import Path

import numpy as np
import pytest

TESTS_DIR = Path(__file__).resolve().parent
# Make ``import oracle`` work under any pytest import mode.
if str(TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(TESTS_DIR))

DATASETS_DIR = Path(__file__).resolve().parents[2] / "shared" / "datasets"


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "slow: takes more than a few seconds (deselect with -m 'not slow')")
    config.addinivalue_line(
        "markers", "peer: runs the peer implementation pycontree live (needs pycontree)")


def load_continuous(name, split="train"):
    """Load ``shared/datasets/continuous/<split>/<name>.txt`` as (X, y);
    skips the calling test when the file is not available."""
    path = DATASETS_DIR / "continuous" / split / f"{name}.txt"
    if not path.exists():
        pytest.skip(f"dataset not available: {path}")
    data = np.loadtxt(path)
    return data[:, 1:].astype(np.float64), data[:, 0].astype(np.int64)
