"""Ties between optimal regression trees go to the fewest branch nodes.

Squared errors are real numbers: the search breaks ties with a step of
1e-7 times the targets' variance per branch node (the documented resolution).  Checked
against an independent brute force of the least objective at every branch
node count: no tree with at most the fitted tree's objective has fewer
branch nodes, the objective is within the steps of the optimum, and where
the errors tie exactly (integer-coded targets) the tree is the
lexicographic optimum itself.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from helpers import n_examples
from instances import SETTINGS, regression_instances
from oracle_nodes import brute_force_sse_front
from optimaltrees import OptimalTreeRegressor
from optimaltrees.io import model_from_dict, model_to_dict


def _check_against_front(model, front: dict, total_weight: float, depth: int) -> None:
    """The fitted tree against the oracle's front (see the module docstring)."""
    sst = model.total_sse_
    nodes = model.tree_.n_branch_nodes
    assert model.is_optimal_ and model.fewest_nodes_
    if sst == 0.0:
        assert nodes == 0
        return
    variance = sst / total_weight
    step = 1e-7 * variance
    most = 2 ** depth - 1
    best = min(front.values())
    # the search's own tolerance (a few 1e-9 of the variance) and rounding
    slack = 1e-8 * variance + 1e-9 * sst
    assert model.objective_ <= best + step * most + slack
    for k, value in front.items():
        if k < nodes:
            assert value >= model.objective_ + step - slack, (k, value, nodes, model.objective_)


@settings(max_examples=n_examples(150), **SETTINGS)
@given(regression_instances(max_n=8), st.integers(1, 3), st.sampled_from([0.0, 0.0, 0.0, 0.01, 0.1]),
       st.integers(1, 2), st.data())
def test_no_tree_as_good_has_fewer_nodes(inst, depth, cost, min_leaf, data):
    X, y = inst
    near_ties = data.draw(st.booleans())
    if near_ties:
        # errors that differ by a little more than the steps, not at all, or less
        y = y + np.ptp(y) * data.draw(st.sampled_from([1e-4, 1e-6, 1e-8])) * np.arange(len(y)) % 3
    if data.draw(st.booleans()):
        X = X.copy()
        X[data.draw(st.integers(0, X.shape[0] - 1)), data.draw(st.integers(0, X.shape[1] - 1))] = np.nan
    weight = None
    if data.draw(st.booleans()):
        weight = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.7]), min_size=len(y),
                                             max_size=len(y))))
        if not weight.any():
            weight[0] = 1.0
    model = OptimalTreeRegressor(max_depth=depth, complexity_cost=cost, min_samples_leaf=min_leaf,
                                 time_limit=None).fit(X, y, sample_weight=weight)
    front = brute_force_sse_front(X, y, depth, cost_per_node=cost * model.total_sse_,
                                  min_samples_leaf=min_leaf, sample_weight=weight)
    total_weight = len(y) if weight is None else float(weight.sum())
    _check_against_front(model, front, total_weight, depth)
    if cost == 0.0 and weight is None and not near_ties and model.total_sse_ > 0.0:
        # integer-coded targets: distinct errors differ by far more than the steps
        best = min(front.values())
        fewest = min(k for k, value in front.items() if value <= best + 1e-9 * model.total_sse_)
        assert model.tree_.n_branch_nodes == fewest
    assert model.lower_bound_ == model.objective_
    assert model.trace_[-1].objective == pytest.approx(model.objective_, abs=1e-9 * model.total_sse_)


def test_equal_errors_take_the_fewest_nodes():
    # integer targets on a 3-valued grid: the first optimum proven has a node
    # more than needed (found by a seed search over such tables)
    rng = np.random.default_rng(8)
    X = rng.integers(0, 3, size=(16, 3)).astype(float)
    y = rng.integers(0, 3, size=16).astype(float)
    fewest = OptimalTreeRegressor(max_depth=3, time_limit=None).fit(X, y)
    first = OptimalTreeRegressor(max_depth=3, time_limit=None, tie_break="first_found").fit(X, y)
    assert fewest.train_error_ == pytest.approx(first.train_error_, abs=1e-12) == pytest.approx(3.2)
    assert (fewest.tree_.n_branch_nodes, first.tree_.n_branch_nodes) == (6, 7)
    assert fewest.fewest_nodes_ and not first.fewest_nodes_
    assert brute_force_sse_front(X, y, 3)[6] == pytest.approx(3.2)


@pytest.mark.parametrize("shift, nodes", [(1e-4, 6), (3e-3, 7)])
def test_a_tie_is_closer_than_the_resolution(shift, nodes):
    # one target moved: the 6-node tree's error exceeds the 7-node tree's by
    # about 1.5e-8 of the variance (a tie), or by about 1.4e-5 (not one)
    rng = np.random.default_rng(8)
    X = rng.integers(0, 3, size=(16, 3)).astype(float)
    y = rng.integers(0, 3, size=16).astype(float)
    y[7] += shift
    model = OptimalTreeRegressor(max_depth=3, time_limit=None).fit(X, y)
    front = brute_force_sse_front(X, y, 3)
    assert model.tree_.n_branch_nodes == nodes and model.fewest_nodes_
    assert model.train_error_ == pytest.approx(front[nodes], rel=1e-12)
    assert model.train_error_ <= min(front.values()) + 1e-7 * np.var(y) * 7


def test_no_tie_break_where_asked_or_with_a_gap():
    X = np.arange(12.0).reshape(-1, 1)
    y = np.arange(12.0) % 3
    assert not OptimalTreeRegressor(max_depth=2, tie_break="first_found").fit(X, y).fewest_nodes_
    assert not OptimalTreeRegressor(max_depth=2, max_gap=0.01).fit(X, y).fewest_nodes_
    with pytest.raises(ValueError, match="tie_break"):
        OptimalTreeRegressor(tie_break="smallest").fit(X, y)


def test_model_files_keep_and_check_the_claim():
    X = np.arange(12.0).reshape(-1, 1)
    y = np.arange(12.0) % 3
    model = OptimalTreeRegressor(max_depth=2).fit(X, y)
    again = model_from_dict(model_to_dict(model))
    assert again.fewest_nodes_ and again.tie_break == "fewest_nodes"
    bad = model_to_dict(model)
    bad["fitted"]["is_optimal_"] = False
    with pytest.raises(ValueError, match="fewest_nodes_"):
        model_from_dict(bad)
