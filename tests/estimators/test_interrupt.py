"""Ctrl-C during a long search returns the best tree found, marked not optimal."""
import os
import signal
import threading
import time

import numpy as np
import pytest

from conftest import load_continuous
from oracle import recompute_error

from optimaltrees import OptimalTreeClassifier


@pytest.mark.ctrl_c
@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT to this process")
@pytest.mark.parametrize("n_jobs, search", [(1, "exhaustive"), (2, "exhaustive"), (1, "discrepancy"),
                                             (1, "blossom")])
def test_ctrl_c_returns_best_tree(n_jobs, search):
    X, y = load_continuous("fault")  # depth 4 on fault takes hours: certain to be interrupted
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    start = time.perf_counter()
    timer.start()
    try:
        with pytest.warns(RuntimeWarning, match="interrupted"):
            clf = OptimalTreeClassifier(max_depth=4, n_jobs=n_jobs, search=search).fit(X, y)
    finally:
        timer.cancel()
    assert time.perf_counter() - start < 30
    assert clf.interrupted_ and not clf.is_optimal_ and not clf.timed_out_ and not clf.stopped_
    assert clf.train_error_ == recompute_error(clf.tree_, X, y)
    assert clf.lower_bound_ <= clf.train_error_
    assert clf.tree_.max_depth <= 4
    # the fit is usable as any other
    assert np.mean(clf.predict(X) == y) == pytest.approx(1 - clf.train_error_ / len(y))
