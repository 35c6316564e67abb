"""The separation bound: fewer than ``tests_needed`` threshold tests
leave two rows of different classes together; checked against a brute force
over every set of tests on small data with ties, duplicates and extreme floats."""
from __future__ import annotations

import itertools
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optimaltrees.bench.data import split_rows
from optimaltrees.search.diagram.separation import tests_needed as separation_tests


def _all_tests(X):
    """Every threshold test that splits the rows, as (feature, value): x <= value."""
    return [(f, v) for f in range(X.shape[1]) for v in np.unique(X[:, f])[:-1]]


def brute_force_cover(X, y, up_to):
    """The fewest tests whose cells are pure, or up_to + 1 when none of up_to do."""
    if len(np.unique(y)) < 2:
        return 0
    tests = _all_tests(X)
    for k in range(1, up_to + 1):
        for chosen in itertools.combinations(tests, k):
            sides = np.stack([X[:, f] <= v for f, v in chosen], axis=1)
            cells = {}
            for row, label in zip(map(bytes, sides), y):
                cells.setdefault(row, set()).add(label)
            if all(len(labels) == 1 for labels in cells.values()):
                return k
    return up_to + 1


values = st.sampled_from([0.0, -0.0, 1.0, 2.5, -3.0, 1e300, -1e300, 5e-324, 1e-310, 7.0])
rows = st.integers(2, 9).flatmap(lambda n: st.integers(1, 3).flatmap(lambda p: st.tuples(
    st.lists(st.lists(values, min_size=p, max_size=p), min_size=n, max_size=n),
    st.lists(st.integers(0, 2), min_size=n, max_size=n))))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows, st.integers(1, 4))
def test_tests_needed_is_the_brute_force_cover(data, up_to):
    X, y = np.array(data[0], dtype=float), np.array(data[1])
    got = separation_tests(X, y, up_to, deadline=time.perf_counter() + 60)
    assert got == brute_force_cover(X, y, up_to)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.integers(20, 60), st.integers(2, 4))
def test_on_larger_random_data_it_never_exceeds_the_cover(seed, n, p):
    """Lazy pairs on data where the first pairs are not enough: the proven
    count stays a lower bound (checked with a brute force up to 3 tests)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(n, p)).astype(float)
    y = (X[:, 0] + X[:, 1] > 5).astype(int) ^ (rng.random(n) < 0.1)
    got = separation_tests(X, y, 3, deadline=time.perf_counter() + 60)
    assert got == brute_force_cover(X, y, 3)


def test_a_deadline_that_has_passed_still_gives_a_valid_count():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 5))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    assert separation_tests(X, y, 10, deadline=time.perf_counter() - 1) == 1


def test_rows_no_test_separates_need_more_than_any_count():
    X = np.array([[1.0, 2.0], [1.0, 2.0], [3.0, 0.0]])
    assert separation_tests(X, np.array([0, 1, 0]), 5, deadline=time.perf_counter() + 10) == 6
    assert separation_tests(X, np.array([1, 1, 1]), 5, deadline=time.perf_counter() + 10) == 0


def test_on_wine_it_proves_the_four_node_diagram():
    """The protocol's wine split: the depth bound says 3 nodes; fewer than 4
    tests cannot separate the three cultivars, so the 4-node diagram with
    no training error is proven optimal (it was not before this bound)."""
    from sklearn.datasets import load_wine

    from optimaltrees import DecisionDiagramClassifier

    X, y = load_wine(return_X_y=True)
    train = split_rows(y, 0, (0.5, 0.25, 0.25))[0]
    assert separation_tests(X[train], y[train], 3, deadline=time.perf_counter() + 60) == 4
    clf = DecisionDiagramClassifier((1, 2, 4, 8), alpha=0.01, time_limit=60, random_state=0).fit(X[train], y[train])
    assert clf.train_error_ == 0 and clf.n_nodes_ == 4
    assert clf.is_optimal_
    assert clf.stats_["tests_needed"] == 4
