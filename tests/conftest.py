"""Shared pytest configuration for the optimaltrees test suite.

Markers (registered here so the suite does not depend on pyproject settings):

* ``slow``  - tests taking more than a few seconds (real data at depth 3,
  time-limit runs).  Deselect with ``-m "not slow"``.
* ``peer``  - tests that run the peer implementation ``pycontree`` live
  (a test dependency: ``pip install ".[test]"``).

The benchmark data the tests read is bundled in ``tests/fixtures/datasets``: the
whole suite runs on a clone, and a missing file fails, never skips.
"""
import os
import sys
from pathlib import Path

# scikit-learn's array-API check (check_estimator) runs only when SciPy was
# imported with this set; without it the check is skipped on every clone
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import signal

import numpy as np
import pytest

# A suite started in the background by a non-interactive shell inherits
# SIGINT ignored, and Python then keeps it ignored: the tests that press
# Ctrl-C (os.kill(SIGINT)) would wait for nothing.  Give the suite Python's
# own handler, as an interactive run has (subprocesses then start with it too).
if signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, None):
    signal.signal(signal.SIGINT, signal.default_int_handler)

TESTS_DIR = Path(__file__).resolve().parent
# Make ``import oracle`` work under any pytest import mode.
if str(TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(TESTS_DIR))

#: Benchmark data the tests read, bundled (xz) so that a clone runs the whole
#: suite: copies of ../shared/datasets (UCI, CC BY 4.0; see its README).
FIXTURES = TESTS_DIR / "fixtures"
DATASETS_DIR = FIXTURES / "datasets"


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "ctrl_c: presses Ctrl-C (SIGINT) in this process; runs without gc callbacks")
    config.addinivalue_line(
        "markers", "slow: takes more than a few seconds (deselect with -m 'not slow')")
    config.addinivalue_line(
        "markers", "peer: runs the peer implementation pycontree live (needs pycontree)")


@pytest.fixture(autouse=True)
def _ctrl_c_is_not_swallowed(request):
    """Hypothesis (once a property test ran) and Dask install garbage-collector
    callbacks; a SIGINT whose handler runs inside one raises there and is
    dropped ("Exception ignored in gc_callback"), so a test pressing Ctrl-C
    would wait for a signal that never arrives.  Such tests run without them."""
    if request.node.get_closest_marker("ctrl_c") is None:
        yield
        return
    import gc

    saved = list(gc.callbacks)
    gc.callbacks.clear()
    try:
        yield
    finally:
        gc.callbacks[:] = saved + [c for c in gc.callbacks if c not in saved]


def dataset_path(kind: str, file: str) -> Path:
    """``tests/fixtures/datasets/<kind>/<file>.xz``; missing data fails the test
    (a skip would hide that the suite did not run whole)."""
    path = DATASETS_DIR / kind / f"{file}.xz"
    if not path.exists():
        pytest.fail(f"bundled dataset missing: {path}")
    return path


def load_continuous(name, split="train"):
    """ConTree's numeric data set ``name`` as (X, y)."""
    data = np.loadtxt(dataset_path(f"continuous/{split}", f"{name}.txt"))
    return data[:, 1:].astype(np.float64), data[:, 0].astype(np.int64)


def load_binary(name):
    """The CP4IM binary data set ``name`` as (X, y)."""
    data = np.loadtxt(dataset_path("binary", f"{name}.txt"))
    return data[:, 1:], data[:, 0].astype(int)
