"""Cost-sensitive classification (``cost_matrix=``) against the brute-force
oracle: the optimum of total cost with node costs, leaf sizes, weights, ties
and duplicates; each leaf predicts its cheapest class; misclassification is
the cost matrix 1 - I."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from instances import SETTINGS, instances
from oracle_cost import brute_force_cost, recompute_cost

from optimaltrees import OptimalTreeClassifier
from optimaltrees.io import model_from_dict, model_to_dict


def _costs(draw, k):
    return np.array(draw(st.lists(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 5.0]), min_size=k, max_size=k),
                                  min_size=k, max_size=k)))


@settings(max_examples=120, **SETTINGS)
@given(instances(max_n=10, max_classes=4), st.integers(0, 3), st.sampled_from([0.0, 0.0, 0.3]),
       st.sampled_from([1, 1, 2]), st.booleans(), st.data())
def test_matches_the_brute_force_cost(inst, depth, cost_share, min_leaf, weighted, data):
    X, labels = inst
    classes, y = np.unique(labels, return_inverse=True)
    k, n = len(classes), len(y)
    C = _costs(data.draw, k)
    w = None
    if weighted:
        w = np.array(data.draw(st.lists(st.sampled_from([0.0, 1.0, 2.0, 3.0]), min_size=n, max_size=n)))
        if not (w > 0).any():
            w[0] = 1.0
    if min_leaf > int(n if w is None else (w > 0).sum()):
        return
    total = float(n if w is None else w.sum())
    want = brute_force_cost(X, y, depth, C, cost_share * total, min_leaf, w)
    clf = OptimalTreeClassifier(max_depth=depth, complexity_cost=cost_share, min_samples_leaf=min_leaf,
                                cost_matrix=C, time_limit=None).fit(X, labels, sample_weight=w)
    tol = 1e-9 * max(1.0, total * float(C.max()))
    assert clf.is_optimal_ and abs(clf.objective_ - want) <= tol
    # the tree's leaves predict their cheapest class: its cost recomputed independently
    assert abs(recompute_cost(clf.tree_, X, y, C, w) + cost_share * total * clf.tree_.n_branch_nodes
               - clf.objective_) <= tol
    assert clf.train_error_ == pytest.approx(float(np.sum((clf.predict(X) != labels) * (1 if w is None else w))))


@settings(max_examples=60, **SETTINGS)
@given(instances(max_n=10, max_classes=4), st.integers(0, 3))
def test_one_minus_identity_is_misclassification(inst, depth):
    X, y = inst
    k = len(np.unique(y))
    plain = OptimalTreeClassifier(max_depth=depth, time_limit=None).fit(X, y)
    costed = OptimalTreeClassifier(max_depth=depth, time_limit=None, cost_matrix=1 - np.eye(k)).fit(X, y)
    assert costed.objective_ == plain.objective_ == plain.train_error_


def test_expensive_misses_change_the_prediction():
    # one feature that does not separate: a leaf of 6 'ok' and 4 'fraud' rows
    X = np.zeros((10, 1))
    y = np.array(["ok"] * 6 + ["fraud"] * 4)
    plain = OptimalTreeClassifier(max_depth=1, time_limit=None).fit(X, y)
    assert (plain.predict(X) == "ok").all()
    # missing a fraud (true 'fraud', predicted 'ok') costs 5, a false alarm 1; classes_ = ['fraud', 'ok']
    costly = OptimalTreeClassifier(max_depth=1, time_limit=None, cost_matrix=[[0, 5], [1, 0]]).fit(X, y)
    assert (costly.predict(X) == "fraud").all() and costly.objective_ == 6.0 and costly.train_error_ == 6
    assert "cost=6" in costly.export_text()


def test_a_model_file_keeps_the_costs():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 2))
    y = (X[:, 0] + 0.5 * rng.normal(size=80) > 0.3).astype(int)
    clf = OptimalTreeClassifier(max_depth=2, time_limit=None, cost_matrix=[[0, 1], [4, 0]]).fit(X, y)
    again = model_from_dict(model_to_dict(clf))
    np.testing.assert_array_equal(again.predict(X), clf.predict(X))
    np.testing.assert_array_equal(again.tree_.cost_matrix, clf.tree_.cost_matrix)


@pytest.mark.parametrize("matrix, message", [
    ([[0, 1]], "square"), ([[0, -1], [1, 0]], "finite costs >= 0"), ([[0, np.inf], [1, 0]], "finite"),
    ([[0, 1, 1], [1, 0, 1], [1, 1, 0]], "3 x 3, but y has 2 classes"), ("cheap", "matrix"),
])
def test_bad_cost_matrices_are_refused_by_name(matrix, message):
    with pytest.raises(ValueError, match=message):
        OptimalTreeClassifier(cost_matrix=matrix).fit([[0.0], [1.0]], [0, 1])
