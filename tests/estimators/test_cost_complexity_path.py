"""``cost_complexity_path`` against the brute-force oracle: every tree of the
path is optimal over its interval of costs, none is missing, and a fresh fit
at any cost matches the path's tree there."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st
from sklearn.datasets import load_breast_cancer

from instances import SETTINGS, instances, regression_instances
from oracle import brute_force_objective, brute_force_sse

from optimaltrees import OptimalTreeClassifier, OptimalTreeRegressor


def _check_shape(path):
    """Costs rise from 0, branch nodes fall to a single leaf, bounds never pass objectives."""
    costs, nodes = path.complexity_costs, path.branch_nodes
    assert costs[0] == 0.0
    assert np.all(np.diff(costs) > 0)
    assert np.all(np.diff(nodes) < 0)
    assert nodes[-1] == 0
    assert np.all(path.lower_bounds <= path.objectives + 1e-9 * max(1.0, float(np.max(path.objectives))))
    assert len(path.estimators) == len(costs)


def _probe_costs(costs):
    """Every breakpoint (where a missed tree would show below the path), each
    interval's midpoint, and a cost beyond the last."""
    mids = list((costs[:-1] + costs[1:]) / 2)
    return list(costs) + mids + [costs[-1] * 2 + 0.1]


def _path_objective(path, cost, unit):
    """The path's objective at ``cost``: the tree whose interval holds it."""
    i = int(np.searchsorted(path.complexity_costs, cost, side="right")) - 1
    return path.errors[i] + cost * unit * path.branch_nodes[i]


@settings(max_examples=60, **SETTINGS)
@given(instances(max_n=9, max_features=2, max_classes=3), st.integers(1, 3), st.sampled_from([1, 1, 2]),
       st.booleans(), st.data())
def test_classifier_path_matches_the_oracle(inst, depth, min_leaf, weighted, data):
    X, y = inst
    assume(len(y) >= min_leaf)          # (else no tree holds the leaf size: the oracle has none)
    w = None
    if weighted:
        w = np.array(data.draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0]), min_size=len(y), max_size=len(y))))
    unit = len(y) if w is None else float(w.sum())
    est = OptimalTreeClassifier(max_depth=depth, min_samples_leaf=min_leaf, time_limit=None)
    path = est.cost_complexity_path(X, y, sample_weight=w)
    _check_shape(path)
    assert path.proven.all()
    np.testing.assert_allclose(path.lower_bounds, path.objectives, rtol=1e-9, atol=1e-9)
    tol = 1e-7 * unit
    for cost in _probe_costs(path.complexity_costs):
        optimum = brute_force_objective(X, y, depth, cost * unit, min_leaf, w)
        assert _path_objective(path, cost, unit) == pytest.approx(optimum, abs=tol)
    for i, cost in enumerate(path.complexity_costs[1:], start=1):
        # at a breakpoint the two trees tie: the one with fewer nodes is listed
        before = path.errors[i - 1] + cost * unit * path.branch_nodes[i - 1]
        assert before == pytest.approx(path.objectives[i], abs=tol)


@settings(max_examples=25, **SETTINGS)
@given(instances(max_n=9, max_features=2, max_classes=3), st.integers(1, 3), st.data())
def test_a_fit_at_any_cost_matches_the_path(inst, depth, data):
    X, y = inst
    path = OptimalTreeClassifier(max_depth=depth, time_limit=None).cost_complexity_path(X, y)
    cost = data.draw(st.floats(0.0, 0.6, allow_nan=False))
    fit = OptimalTreeClassifier(max_depth=depth, complexity_cost=cost, time_limit=None).fit(X, y)
    assert fit.objective_ == pytest.approx(_path_objective(path, cost, len(y)), abs=1e-7 * len(y))


@settings(max_examples=40, **SETTINGS)
@given(regression_instances(max_n=8, max_features=2), st.integers(1, 3), st.booleans(), st.data())
def test_regressor_path_matches_the_oracle(inst, depth, weighted, data):
    X, y = inst
    w = None
    if weighted:
        w = np.array(data.draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=len(y), max_size=len(y))))
    sst = brute_force_sse(X, y, 0, 0.0, 1, w)
    path = OptimalTreeRegressor(max_depth=depth, time_limit=None).cost_complexity_path(X, y, sample_weight=w)
    _check_shape(path)
    assert path.proven.all()
    tol = 1e-7 * sst + 1e-300
    for cost in _probe_costs(path.complexity_costs):
        optimum = brute_force_sse(X, y, depth, cost * sst, 1, w)
        assert _path_objective(path, cost, sst) == pytest.approx(optimum, abs=tol, rel=1e-7)


def test_breast_cancer_path_is_proven_and_each_tree_refits():
    X, y = load_breast_cancer(return_X_y=True)
    path = OptimalTreeClassifier(max_depth=3, time_limit=120).cost_complexity_path(X, y)
    _check_shape(path)
    assert path.proven.all()
    assert path.errors[0] == 9 and path.branch_nodes[-1] == 0 and path.errors[-1] == 212
    for est, cost, objective in zip(path.estimators, path.complexity_costs, path.objectives):
        # each estimator's tree, scored at the cost where the path lists it
        score = est.train_error_ + cost * len(y) * est.tree_.n_branch_nodes
        assert score == pytest.approx(objective, abs=1e-6)
        assert est.is_optimal_


def test_depth_zero_is_refused():
    with pytest.raises(ValueError, match="max_depth >= 1"):
        OptimalTreeClassifier(max_depth=0).cost_complexity_path([[0.0], [1.0]], [0, 1])


def test_a_time_limit_returns_the_trees_found_with_flags_and_a_warning():
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.warns(UserWarning, match="time limit stopped"):
        path = OptimalTreeClassifier(max_depth=4, time_limit=1.0).cost_complexity_path(X, y)
    assert not path.proven.all()
    assert np.all(path.lower_bounds <= path.objectives + 1e-6)
    assert np.all(np.diff(path.complexity_costs) > 0)
    assert np.all(np.diff(path.branch_nodes) < 0)


def test_a_target_no_split_improves_gives_one_leaf():
    X = np.arange(6.0).reshape(-1, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        path = OptimalTreeRegressor(max_depth=2).cost_complexity_path(X, np.full(6, 3.0))
    assert list(path.branch_nodes) == [0] and list(path.complexity_costs) == [0.0]
    assert path.proven.all()
