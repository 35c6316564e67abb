"""DecisionDiagramClassifier's defaults: a default fit returns in
seconds, says honestly what the MILP added, warns at the limit with a hint
where the exact tree engine solves the same problem, and shows its phases
when verbose."""
from __future__ import annotations

import time
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_iris

from optimaltrees import DecisionDiagramClassifier, OptimalTreeClassifier
from optimaltrees.estimators._base import DEFAULT_TIME_LIMIT

#: seconds a fit may run past time_limit (the solver's kill grace, the checks)
MARGIN = 2.0


def test_default_time_limit():
    assert DecisionDiagramClassifier().time_limit == DEFAULT_TIME_LIMIT == 60.0


@pytest.mark.slow
def test_default_fit_on_iris_returns_within_the_limit_and_says_what_it_proved():
    X, y = load_iris(return_X_y=True)
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = DecisionDiagramClassifier(random_state=0).fit(X, y)
    assert time.perf_counter() - start < DEFAULT_TIME_LIMIT + MARGIN
    timeouts = [w for w in caught if f"time_limit={DEFAULT_TIME_LIMIT} s reached" in str(w.message)]
    if clf.is_optimal_:
        assert not timeouts and clf.summary_.status == "proven optimal"
    else:
        assert clf.timed_out_ and len(timeouts) == 1 and timeouts[0].category is UserWarning
        message = str(timeouts[0].message)
        assert f"{clf.train_error_} training error" in message and "not proven optimal" in message
        if clf.from_heuristic_ and "before the MILP" in clf.status_:
            assert "no time was left for the MILP" in message
        elif clf.from_heuristic_:
            assert "the MILP found nothing better" in clf.summary_.status
            assert "the MILP found nothing better" in message
        if clf.lower_bound_ == 0:
            assert "no lower bound proven above 0" in message


def _iris():
    X, y = load_iris(return_X_y=True)
    return X, y


def test_time_limit_warning_names_the_bound_and_a_faster_method_for_trees():
    # noisy data that no bound proves in a second (iris is now proven in time by the SAT node bound)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(scale=0.5, size=300) > 0).astype(int)
    with pytest.warns(UserWarning, match=r"time_limit=1 s reached") as record:
        clf = DecisionDiagramClassifier((1, 2, 4, 8), tree=True, time_limit=1, heuristic_time=0.1,
                                        random_state=0).fit(X, y)
    message = str(record[0].message)
    assert "OptimalTreeClassifier(max_depth=4, complexity_cost=" in message
    assert not clf.is_optimal_ and clf.timed_out_
    # the hint is honest: the exact tree of that depth, at the same price per
    # node, is at least as good on the diagram's objective
    n = len(y)
    cost = 0.01 / (15 - 1)                   # alpha / (skeleton nodes - 1)
    tree = OptimalTreeClassifier(max_depth=4, complexity_cost=cost).fit(X, y)
    assert tree.is_optimal_
    # diagram: errors/n + cost * (used - 1); tree: (errors + cost * n * used) / n
    assert tree.objective_ / n - cost <= clf.objective_ + 1e-9


def test_a_proven_fit_warns_nothing():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] > 0.2).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = DecisionDiagramClassifier((1, 2)).fit(X, y)
    assert clf.is_optimal_ and clf.summary_.status == "proven optimal"


def test_verbose_shows_the_phases(capsys):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] > 0.2).astype(int)
    DecisionDiagramClassifier((1, 2), verbose=True).fit(X, y)
    out = capsys.readouterr().out
    assert "diagram [" in out and "heuristic: " in out and "training error" in out
    # a separable set: the exact trees' bound proves the start, no MILP is needed
    assert "exact trees (" in out and "MILP not needed: the start meets the lower bound" in out
    y[:3] = 1 - y[:3]      # noise: the start is not trivially optimal
    DecisionDiagramClassifier((1, 2), verbose=True, tree_time=0).fit(X, y)
    out = capsys.readouterr().out
    assert "exact trees (" not in out
    assert "MILP: " in out and "variables" in out and "lower bound" in out
    DecisionDiagramClassifier((1, 2)).fit(X, y)
    assert "diagram [" not in capsys.readouterr().out
