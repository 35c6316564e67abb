"""Valid but extreme inputs: weights from 1e-300 to 1e300, integers at the
edge of float64's exact range, and many classes at prediction.  Each must
fit and predict correctly, or be refused by name; never an internal error,
a wrong "proven" answer or an allocation of rows x classes."""
from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest

from optimaltrees import DecisionDiagramClassifier, OptimalTreeClassifier, SATTreeClassifier
from optimaltrees.model import checks
from optimaltrees.model.tree import Tree

from oracle import brute_force_objective


def _quiet(fit):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fit()


# -- weights at every scale ---------------------------------------------------------

@pytest.mark.parametrize("make", [lambda: OptimalTreeClassifier(max_depth=1),
                                  lambda: SATTreeClassifier("errors", max_depth=1)],
                         ids=["tree", "sat-errors"])
def test_a_perfect_tree_scores_exactly_zero_at_every_weight_scale(make):
    # the search used to report a rounding residue of the total weight
    # (7.8e84 beside weights of 1e100) and the fit failed its own check
    X, y = np.array([[0], [0], [1]]), np.array([0, 0, 1])
    for power in range(-300, 301):
        weight = np.array([1.0, 3.0, 3.0]) * 10.0 ** power
        clf = _quiet(lambda: make().fit(X, y, sample_weight=weight))
        assert clf.train_error_ == 0.0, power
        assert clf.is_optimal_, power
        assert clf.summary_.lower_bound == 0.0 and clf.summary_.objective == 0.0, power


def test_the_search_reports_exact_objectives_on_real_weights():
    # the trace (what a callback and trace_ show) comes from the search's own
    # sums: a perfect tree's point is exactly 0 there too
    X, y = np.array([[0], [0], [1], [1]]), np.array([0, 0, 1, 1])
    weight = np.array([0.1, 0.7, 1e10 / 3, 0.3])
    clf = OptimalTreeClassifier(max_depth=1).fit(X, y, sample_weight=weight)
    assert clf.train_error_ == 0.0 and clf.trace_[-1].objective == 0.0


def test_scaling_every_weight_scales_the_optimum():
    rng = np.random.default_rng(0)
    for case in range(120):
        n = int(rng.integers(3, 12))
        X = rng.integers(0, 3, (n, 2)).astype(float)
        y = rng.integers(0, 3, n)
        weight = rng.random(n) + 0.01
        scale = 10.0 ** int(rng.integers(-300, 300))
        expected = brute_force_objective(X, np.unique(y, return_inverse=True)[1], 2, 0.0, 1,
                                         sample_weight=weight)
        clf = _quiet(lambda: OptimalTreeClassifier(max_depth=2).fit(X, y, sample_weight=weight * scale))
        assert clf.is_optimal_, case
        assert clf.train_error_ / scale == pytest.approx(expected, rel=1e-9, abs=1e-9 * weight.sum()), case
        # the tree holds the weights as given, not the search's rounded copies
        assert clf.tree_.value[0].sum() == pytest.approx(float((weight * scale).sum()), rel=1e-12)


def test_a_bound_is_never_below_zero():
    # balanced class weights are not integers: the bound came back as -4.4e-16
    X, y = np.arange(7).reshape(-1, 1), np.array([1, 0, 0, 0, 0, 0, 0])
    for depth in (0, 1, 2):
        clf = OptimalTreeClassifier(max_depth=depth, class_weight="balanced").fit(X, y)
        assert 0.0 <= clf.lower_bound_ <= clf.objective_
        assert 0.0 <= clf.summary_.lower_bound


def test_the_greedy_tree_of_sat_takes_weights_of_any_size():
    # its split criterion squared the weights: 1e300 overflowed to inf and nan
    X = np.array([[0, 1], [0, 0], [1, 1], [1, 0]])
    y = np.array([0, 0, 1, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        clf = SATTreeClassifier("errors", max_depth=1, time_limit=5).fit(X, y, sample_weight=[1e300, 1e300, 3e299, 1e290])
    assert clf.train_error_ == 0.0


# -- integers at 2^53 ---------------------------------------------------------------

BIG = 2 ** 53


@pytest.mark.parametrize("values, container", [
    (values, container)
    for values in ([BIG, BIG + 1], [-BIG, -BIG - 1], [BIG - 1, BIG + 1])
    for container in ("int64", "uint64", "Int64", "list")
    if not (container == "uint64" and values[1] < 0)])
def test_integers_that_float64_merges_are_refused_by_the_tree_and_the_diagram(values, container):
    # 2^53 + 1 rounds to 2^53 as a float: a guard on the float image let the
    # pair through, and the fit "proved" one error where none is needed
    if container == "list":
        X = [[v] for v in values]
    elif container == "Int64":
        X = pd.DataFrame({"id": pd.array(values, dtype="Int64")})
    else:
        X = np.array([[v] for v in values], dtype=container)
    merged = float(values[0]) == float(values[1])
    for make in (lambda: OptimalTreeClassifier(max_depth=1), lambda: DecisionDiagramClassifier((1,))):
        if merged:
            with pytest.raises(ValueError, match=r"integers beyond \+-2\^53 that are equal as float64"):
                _quiet(lambda: make().fit(X, [0, 1]))
        else:
            clf = _quiet(lambda: make().fit(X, [0, 1]))
            assert clf.train_error_ == 0


@pytest.mark.parametrize("container", ["int64", "list"])
def test_sat_splits_integers_beyond_2_53_exactly(container):
    values = [BIG, BIG + 1, BIG + 2, BIG + 3]
    X = [[v] for v in values] if container == "list" else np.array([[v] for v in values], dtype=np.int64)
    clf = SATTreeClassifier().fit(X, [0, 1, 0, 1])
    assert clf.train_error_ == 0 and clf.is_optimal_
    assert list(clf.predict(X)) == [0, 1, 0, 1]


# -- many classes at prediction -----------------------------------------------------

def _stump(n_classes: int) -> Tree:
    value = np.zeros((3, n_classes))
    value[1, 7], value[2, n_classes - 1] = 2.0, 3.0
    value[0] = value[1] + value[2]
    return Tree([0, -1, -1], [0.5, 0.0, 0.0], [1, -1, -1], [2, -1, -1], value, 1)


def test_predict_reads_each_leafs_class_without_a_rows_by_classes_array():
    # predict used to index value[apply(X)]: 10^5 classes x 10^5 rows = 74.5 GiB
    tree = _stump(100_000)
    X = np.tile([[0.0], [1.0]], (50_000, 1))
    tracemalloc.start()
    try:
        predicted = tree.predict(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert list(predicted[:4]) == [7, 99_999, 7, 99_999]
    assert peak < 40 * 2**20          # rows-sized arrays only (a rows x classes one is 80 GB)


def test_predict_proba_refuses_what_it_cannot_hold_and_says_why():
    tree = _stump(100_000)
    X = np.zeros((100_000, 1))
    with pytest.raises(ValueError, match=r"predict_proba on 100000 rows x 100000 classes needs 74.5 GiB"):
        tree.predict_proba(X)
    small = tree.predict_proba(np.array([[0.0], [1.0]]))
    assert small.shape == (2, 100_000) and small[0, 7] == 1.0 and small[1, -1] == 1.0


def test_every_estimator_refuses_an_oversized_predict_proba(monkeypatch):
    rng = np.random.default_rng(0)
    X = rng.random((60, 2))
    y = rng.integers(0, 4, 60)
    fitted = [OptimalTreeClassifier(max_depth=2).fit(X, y), SATTreeClassifier("errors", max_depth=2).fit(X, y),
              DecisionDiagramClassifier((1, 2), time_limit=5, heuristic_time=0.1, random_state=0).fit(X, y)]
    expected = [clf.predict_proba(X) for clf in fitted]
    monkeypatch.setattr(checks, "MAX_PROBABILITY_BYTES", 8 * 4 * 59)     # 59 rows of 4 classes
    for clf, proba in zip(fitted, expected):
        with pytest.raises(ValueError, match="predict in batches"):
            clf.predict_proba(X)
        np.testing.assert_array_equal(clf.predict_proba(X[:59]), proba[:59])
        np.testing.assert_array_equal(clf.predict(X), clf.classes_[np.argmax(proba, axis=1)])
