"""Ties between optimal trees go to the fewest branch nodes (``tie_break``).

The fitted tree is checked against an independent brute-force oracle of the
lexicographic optimum (objective, then branch nodes) on small random data
with ties, duplicates, constant features, many classes, missing values,
node costs and weights; the step that perturbs the search is checked where
it must exist and where it must not.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from helpers import n_examples
from instances import SETTINGS, instances
from oracle import recompute_error
from oracle_nodes import brute_force_fewest_nodes
from optimaltrees import OptimalTreeClassifier
from optimaltrees.io import load_model, model_from_dict, model_to_dict, save_model
from optimaltrees.estimators._tie_break import TieBreak, grid_unit, node_tie_break


def _fit(X, y, depth, **params):
    return OptimalTreeClassifier(max_depth=depth, time_limit=None, **params).fit(X, y)


@settings(max_examples=n_examples(200), **SETTINGS)
@given(instances(max_n=10), st.integers(1, 3), st.sampled_from([0.0, 0.0, 0.05, 0.1, 1 / 3]), st.data())
def test_the_tree_is_the_fewest_node_optimum(inst, depth, cost, data):
    X, y = inst
    if data.draw(st.booleans()) and X.size:
        X = X.copy()
        X[data.draw(st.integers(0, X.shape[0] - 1)), data.draw(st.integers(0, X.shape[1] - 1))] = np.nan
    model = _fit(X, y, depth, complexity_cost=cost)
    value, nodes = brute_force_fewest_nodes(X, y, depth, cost_per_node=cost * len(y))
    assert model.is_optimal_ and model.fewest_nodes_
    assert model.objective_ == pytest.approx(value, abs=1e-9)
    assert model.tree_.n_branch_nodes == nodes
    if not np.isnan(X).any():
        assert model.train_error_ == recompute_error(model.tree_, X, y)
    assert model.lower_bound_ == model.objective_
    # the trace and the callback report the objective, not the search's perturbed one
    assert model.trace_[-1].objective == pytest.approx(model.objective_, abs=1e-9)
    assert all(point.lower_bound <= model.objective_ + 1e-9 for point in model.trace_)


@settings(max_examples=n_examples(80), **SETTINGS)
@given(instances(max_n=8), st.integers(1, 3), st.data())
def test_integer_weights_are_repeated_rows(inst, depth, data):
    X, y = inst
    weight = np.array(data.draw(st.lists(st.integers(0, 3), min_size=len(y), max_size=len(y))), dtype=float)
    if weight.sum() == 0:
        weight[0] = 1.0
    weighted = OptimalTreeClassifier(max_depth=depth, time_limit=None).fit(X, y, sample_weight=weight)
    rows = np.repeat(np.arange(len(y)), weight.astype(int))
    repeated = _fit(X[rows], y[rows], depth)
    value, nodes = brute_force_fewest_nodes(X, y, depth, sample_weight=weight)
    assert weighted.fewest_nodes_ and repeated.fewest_nodes_
    assert weighted.objective_ == pytest.approx(value) == pytest.approx(repeated.objective_)
    assert weighted.tree_.n_branch_nodes == nodes == repeated.tree_.n_branch_nodes


@settings(max_examples=n_examples(60), **SETTINGS)
@given(instances(max_n=8, max_classes=3), st.integers(1, 2))
def test_weights_on_a_grid_of_halves_and_a_cost_matrix_of_integers(inst, depth):
    X, y = inst
    weight = np.resize([0.5, 1.5, 2.0], len(y))
    classes = np.unique(y)
    costs = np.ones((len(classes), len(classes))) - np.eye(len(classes))
    costs[0, 1:] = 3.0
    model = OptimalTreeClassifier(max_depth=depth, time_limit=None, cost_matrix=costs).fit(
        X, y, sample_weight=weight)
    assert model.fewest_nodes_
    # the oracle's misclassification is the cost matrix's with unit costs only
    if len(classes) <= 1:
        return
    plain = OptimalTreeClassifier(max_depth=depth, time_limit=None).fit(X, y, sample_weight=weight)
    value, nodes = brute_force_fewest_nodes(X, y, depth, sample_weight=weight)
    assert plain.objective_ == pytest.approx(value) and plain.tree_.n_branch_nodes == nodes


def test_weights_off_the_grid_keep_the_optimum_without_the_tie_break():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, (30, 3)).astype(float)
    y = rng.integers(0, 2, 30)
    weight = rng.uniform(0.1, 1.0, 30)
    model = OptimalTreeClassifier(max_depth=2, time_limit=None).fit(X, y, sample_weight=weight)
    assert model.is_optimal_ and not model.fewest_nodes_


def test_first_found_and_a_gap_do_not_claim_the_fewest_nodes():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 4, (40, 3)).astype(float)
    y = (X[:, 0] > 1).astype(int)
    assert not _fit(X, y, 3, tie_break="first_found").fewest_nodes_
    assert not _fit(X, y, 3, max_gap=0.05).fewest_nodes_
    assert _fit(X, y, 3).fewest_nodes_
    with pytest.raises(ValueError, match="tie_break"):
        _fit(X, y, 2, tie_break="smallest")


def test_the_tie_break_finds_a_smaller_perfect_tree_than_the_search_meets_first():
    # column 1 alone separates the classes; columns 0 and 2 also do, in three
    # splits: the first-found perfect tree may be either, the tie-break's is one split
    X = np.array([[0, 0, 0], [1, 0, 1], [2, 1, 0], [3, 1, 1]] * 3, dtype=float)
    y = np.array([0, 0, 1, 1] * 3)
    model = _fit(X, y, 3)
    assert model.train_error_ == 0 and model.tree_.n_branch_nodes == 1


def test_grid_units():
    assert grid_unit(np.array([1.0, 2.0, 7.0])) == 1.0
    assert grid_unit(np.array([0.5, 1.25])) == 0.25
    assert grid_unit(np.array([0.1])) is None
    assert grid_unit(np.array([2.0 ** -11])) is None


@settings(max_examples=n_examples(200), **SETTINGS)
@given(st.integers(1, 6), st.sampled_from([0.0, 0.25, 1 / 3, 0.569, 2.0, 7.3]),
       st.sampled_from([None, 0.5]), st.data())
def test_objectives_come_back_from_the_perturbed_ones(depth, node_cost, weight_unit, data):
    weight = None if weight_unit is None else np.array([weight_unit, 1.0, 3.0])
    ties = node_tie_break(node_cost, depth, 1000, weight)
    assert ties is not None
    unit = 1.0 if weight_unit is None else weight_unit
    nodes = data.draw(st.integers(0, ties.most))
    errors = unit * data.draw(st.integers(0, 10**6))
    objective = errors + node_cost * nodes
    assert ties.objective(objective + ties.step * nodes) == pytest.approx(objective, abs=1e-9)
    # the step keeps every distinct objective apart: fewer nodes never buy a worse objective
    assert ties.step * ties.most < ties.unit / 2
    assert ties.lower_bound(objective + ties.step * nodes) <= objective + 1e-9


def test_no_tie_break_where_there_is_no_tree_to_break_or_no_grid():
    assert node_tie_break(0.0, 3, 1).step == 0.0                # one row: a leaf, nothing to break
    assert node_tie_break(0.0, 3, 10, np.array([0.1, 0.2])) is None
    assert node_tie_break(0.0, 3, 10, None, np.array([[0.0, 0.3], [1.0, 0.0]])) is None
    assert isinstance(node_tie_break(0.0, 3, 10), TieBreak)


def test_model_files_keep_the_flag_and_refuse_a_contradiction(tmp_path):
    rng = np.random.default_rng(2)
    X = rng.integers(0, 3, (30, 2)).astype(float)
    y = rng.integers(0, 2, 30)
    model = _fit(X, y, 2)
    path = tmp_path / "model.json"
    save_model(model, path)
    assert load_model(path).fewest_nodes_ == model.fewest_nodes_ is True
    data = model_to_dict(model)
    data["fitted"]["is_optimal_"] = False
    with pytest.raises(ValueError, match="fewest_nodes_"):
        model_from_dict(data)
