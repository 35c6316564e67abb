"""The sorted layout's similarity bound (opt(S) >= lb(S') - |S' minus S| for
recently solved sets S' of the same depth): with it checked on every node
(no size floor), the optimum is the brute force's and the search without
the bound's, and the bound does prune; off with leaf sizes and weights,
where it does not hold as written."""
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, note, settings, strategies as st

from helpers import n_examples
from instances import SETTINGS
from oracle import brute_force_objective, recompute_objective

from optimaltrees import OptimalTreeClassifier
from optimaltrees.search.engine import engine_options

EPS = 1e-9


@contextmanager
def similarity(sets: int, min_rows: int = 2, histograms: bool = True):
    """``sets`` remembered per depth (0: off), on nodes of >= ``min_rows`` rows;
    without ``histograms`` every depth-two node is searched (the bound skips
    the nodes the histograms solve whole); restored after."""
    no_histograms = {} if histograms else {"histogram_scans": 0.0, "histogram_min_rows": 1 << 30}
    with engine_options(similarity_sets=sets, similarity_min_rows=min_rows, **no_histograms):
        yield


@st.composite
def rows(draw, max_n=14, max_features=3, max_classes=3):
    n = draw(st.integers(2, max_n))
    p = draw(st.integers(1, max_features))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X = rng.integers(0, draw(st.integers(1, 6)) + 1, size=(n, p)).astype(np.float64)
    y = rng.integers(0, draw(st.integers(2, max_classes)), size=n)
    return X, y


@settings(max_examples=n_examples(120), **SETTINGS)
@given(rows(), st.sampled_from([0.0, 0.05]), st.sampled_from([1, 4, 256]))
def test_depth_three_with_the_bound_on_every_node_is_the_brute_force_optimum(inst, cost, sets):
    X, y = inst
    note(f"X = np.array({X.tolist()!r}); y = np.array({y.tolist()!r})")
    expected = brute_force_objective(X, y, 3, cost * len(y))
    with similarity(sets, histograms=False):
        clf = OptimalTreeClassifier(max_depth=3, complexity_cost=cost).fit(X, y)
    assert clf.is_optimal_ and abs(clf.objective_ - expected) < EPS
    assert abs(recompute_objective(clf.tree_, X, y, cost * len(y)) - expected) < EPS


def _noisy(seed: int, n: int, p: int, classes: int = 2):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, p)), 1)
    y = ((X[:, 0] + X[:, 1 % p] * X[:, -1] > 0.2).astype(int) + (rng.random(n) < 0.25)) % classes
    return X, y


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("depth", [3, 4])
def test_the_bound_prunes_and_leaves_the_optimum_as_it_is(seed, depth):
    X, y = _noisy(seed, 160, 4, 2 + seed % 2)
    with similarity(0):
        off = OptimalTreeClassifier(max_depth=depth).fit(X, y)
    with similarity(256):
        on = OptimalTreeClassifier(max_depth=depth).fit(X, y)
    with similarity(256, histograms=False):
        searched = OptimalTreeClassifier(max_depth=depth).fit(X, y)
    assert searched.objective_ == off.objective_ and searched.is_optimal_
    assert off.is_optimal_ and on.is_optimal_
    assert on.objective_ == off.objective_ and on.lower_bound_ == off.lower_bound_
    assert off.stats_["similarity_prunes"] == 0
    assert on.train_error_ == int((on.predict(X) != y).sum())
    if depth == 4:
        assert on.stats_["similarity_prunes"] > 0


def test_the_default_bound_prunes_on_a_real_size_problem():
    # the default floor (64 rows): depth 4 on 600 noisy rows
    X, y = _noisy(7, 600, 4)
    clf = OptimalTreeClassifier(max_depth=4).fit(X, y)
    with similarity(0, 64):
        off = OptimalTreeClassifier(max_depth=4).fit(X, y)
    assert clf.objective_ == off.objective_ and clf.is_optimal_
    assert clf.stats_["similarity_prunes"] > 0
    assert clf.stats_["d2_calls"] < off.stats_["d2_calls"]


def test_the_bound_is_off_with_leaf_sizes_and_weights():
    X, y = _noisy(3, 160, 4)
    w = np.random.default_rng(3).uniform(0.5, 2.0, size=len(y))
    with similarity(256):
        sized = OptimalTreeClassifier(max_depth=4, min_samples_leaf=3).fit(X, y)
        weighted = OptimalTreeClassifier(max_depth=4).fit(X, y, sample_weight=w)
    with similarity(0):
        assert sized.objective_ == OptimalTreeClassifier(max_depth=4, min_samples_leaf=3).fit(X, y).objective_
        assert weighted.objective_ == pytest.approx(
            OptimalTreeClassifier(max_depth=4).fit(X, y, sample_weight=w).objective_)
    assert sized.stats_["similarity_prunes"] == 0 and weighted.stats_["similarity_prunes"] == 0
