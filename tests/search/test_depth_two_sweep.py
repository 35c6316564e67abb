"""A depth-two node's sweep of a root feature (every threshold's depth-one
children from one segment tree per f2) against the brute force and against
ConTree's interval search on the same data: forced at a feature's first
step, never, and as the default rule picks it (after 1.5 x log2(rows) steps)."""
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, note, settings, strategies as st

from helpers import n_examples
from instances import SETTINGS, instances
from oracle import brute_force_objective, depth2_objective, recompute_objective

from optimaltrees import OptimalTreeClassifier
from optimaltrees.search.contree import search_tree
from optimaltrees.search.engine import engine_options

EPS = 1e-9


@contextmanager
def sweep(after: float):
    """Sweeps after ``after`` x log2(rows) steps (0: at once, -1: never), restored
    after; the side maps are off (where they are kept, nodes never sweep)."""
    with engine_options(sweep_after=after, maps_after=0):
        yield


@st.composite
def two_class_rows(draw, min_n=2, max_n=60, max_features=4):
    """Rows of 1-4 features (floats with ties, or a few integer values), two
    classes, sometimes a label rule with noise so that many thresholds tie."""
    n = draw(st.integers(min_n, max_n))
    p = draw(st.integers(1, max_features))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    if draw(st.booleans()):
        X = rng.integers(0, draw(st.integers(1, 8)) + 1, size=(n, p)).astype(np.float64)
    else:
        X = np.round(rng.normal(size=(n, p)), draw(st.integers(0, 3)))
    if draw(st.booleans()):
        y = (X[:, 0] + 0.5 * X[:, -1] > 0).astype(int)
        flip = rng.random(n) < draw(st.sampled_from([0.0, 0.1, 0.3]))
        y[flip] = 1 - y[flip]
    else:
        y = rng.integers(0, 2, size=n)
    return X, y


@settings(max_examples=n_examples(150), **SETTINGS)
@given(two_class_rows(), st.sampled_from([0.0, 0.02, 0.1]))
def test_swept_depth_two_is_the_brute_force_optimum(inst, cost):
    X, y = inst
    note(f"X = np.array({X.tolist()!r}); y = np.array({y.tolist()!r}); cost = {cost}")
    expected = depth2_objective(X, y) if cost == 0.0 else brute_force_objective(X, y, 2, cost * len(y))
    for after in (0.0, 0.3, -1.0):
        with sweep(after):
            clf = OptimalTreeClassifier(max_depth=2, complexity_cost=cost).fit(X, y)
        assert abs(clf.objective_ - expected) < EPS, after
        assert clf.is_optimal_
        assert abs(recompute_objective(clf.tree_, X, y, cost * len(y)) - expected) < EPS


@settings(max_examples=n_examples(80), **SETTINGS)
@given(two_class_rows(max_n=12, max_features=3), st.sampled_from([0.0, 0.05]))
def test_swept_depth_two_nodes_of_a_depth_three_tree(inst, cost):
    """Every depth-two node of a depth-three search sweeps its features."""
    X, y = inst
    note(f"X = np.array({X.tolist()!r}); y = np.array({y.tolist()!r}); cost = {cost}")
    expected = brute_force_objective(X, y, 3, cost * len(y))
    with sweep(0.0):
        clf = OptimalTreeClassifier(max_depth=3, complexity_cost=cost).fit(X, y)
    assert abs(clf.objective_ - expected) < EPS
    assert clf.is_optimal_


@settings(max_examples=n_examples(60), **SETTINGS)
@given(instances(max_classes=5), st.integers(2, 3))
def test_other_instances_with_the_sweep_forced(inst, depth):
    """Any classes, labels and ties: where the sweep does not apply (more than
    two classes) the search is ConTree's, and the optimum the brute force's."""
    X, y = inst
    note(f"X = np.array({X.tolist()!r}); y = np.array({y.tolist()!r})")
    expected = brute_force_objective(X, y, depth)
    with sweep(0.0):
        clf = OptimalTreeClassifier(max_depth=depth).fit(X, y)
    assert clf.objective_ == expected and clf.is_optimal_


def _noisy(n, seed=0, p=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = ((X[:, 0] + 0.5 * X[:, 1] - 0.3 * X[:, 2 % p]) > 0).astype(np.int64)
    flip = rng.random(n) < 0.1
    y[flip] = 1 - y[flip]
    return X, y


def test_without_maps_the_default_rule_sweeps_a_flat_feature():
    """On noisy rows the optimum's root feature has a flat cost landscape:
    without side maps the default rule (1.5 x log2(rows) steps) sweeps it,
    with fewer depth-two scans than the interval search; with them (the
    default) nothing is swept.  All find the brute force's optimum."""
    X, y = _noisy(3000, p=3)
    expected = depth2_objective(X, y)
    with sweep(-1.0):
        plain = search_tree(X, y, 2, 2)
    with sweep(1.5):
        swept = search_tree(X, y, 2, 2)
    mapped = search_tree(X, y, 2, 2)
    assert swept.stats["sweeps"] >= 1 and plain.stats["sweeps"] == 0
    assert mapped.stats["sweeps"] == 0 and mapped.stats["map_moves"] > 0
    assert swept.stats["d2_calls"] < plain.stats["d2_calls"]
    for fit in (swept, plain, mapped):
        assert fit.objective == fit.lower_bound == expected
        assert fit.tree.training_errors() == expected


def test_a_time_limit_inside_a_sweep_keeps_the_bound_valid():
    """Stopped while sweeping (forced at once, on 200,000 rows), the search
    returns a tree and a lower bound no higher than the optimum."""
    X, y = _noisy(200_000, seed=1)
    optimum = search_tree(X, y, 2, 2).objective
    with sweep(0.0):
        found = search_tree(X, y, 2, 2, time_limit=0.3)
    assert found.timed_out
    assert found.lower_bound <= optimum + EPS
    assert found.tree.training_errors() >= optimum - EPS


@pytest.mark.parametrize("n_threads", [1, 2])
def test_threads_and_weights_keep_the_same_optimum(n_threads):
    """Two threads sweep in their own layouts; weighted rows never sweep
    (counts are weights) and give the same optimum with integer weights."""
    X, y = _noisy(3000, seed=2)
    with sweep(-1.0):
        plain = search_tree(X, y, 2, 2).objective
    with sweep(0.0):
        threaded = search_tree(X, y, 2, 2, n_threads=n_threads)
        weighted = search_tree(X, y, 2, 2, sample_weight=np.ones(len(y)))
    assert threaded.objective == plain
    assert threaded.stats["sweeps"] >= 1
    assert weighted.objective == plain and weighted.stats["sweeps"] == 0


@pytest.mark.parametrize("name", ["node_cost", "max_gap"])
@pytest.mark.parametrize("value", [-0.5, float("nan"), float("inf"), "1"])
def test_search_tree_refuses_negative_or_non_finite_costs(name, value):
    """The bounds assume a split never lowers the objective: a negative
    node cost would make the search return a tree that is not optimal."""
    X = np.arange(8, dtype=np.float64).reshape(4, 2)
    y = np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match=name):
        search_tree(X, y, 2, 2, **{name: value})
