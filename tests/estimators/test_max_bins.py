"""``max_bins``: an exact search over the thresholds between quantile bins."""
import numpy as np
import pytest
from hypothesis import given, note, settings, strategies as st

from helpers import n_examples
from instances import SETTINGS
from oracle import brute_force_objective, recompute_objective

from optimaltrees import OptimalTreeClassifier
from optimaltrees.data.encoding import coarsen, encode_features


@st.composite
def spread_columns(draw, max_n=14):
    """Columns of many distinct values (and some ties), labels in 1-3 classes."""
    n = draw(st.integers(2, max_n))
    p = draw(st.integers(1, 3))
    values = st.sampled_from([-1e300, -3.5, -1.0, -5e-324, 0.0, 0.25, 0.5, 1.0, 2.0, 7.0, 1e300])
    X = np.array([draw(st.lists(values, min_size=n, max_size=n)) for _ in range(p)]).T
    y = np.array(draw(st.lists(st.integers(0, draw(st.integers(0, 2))), min_size=n, max_size=n)))
    return X, y


@settings(max_examples=n_examples(100), **SETTINGS)
@given(spread_columns(), st.integers(2, 5))
def test_coarse_ranks_are_ordered_bins(inst, bins):
    X, y = inst
    enc = coarsen(encode_features(X), bins)
    for f in range(X.shape[1]):
        rank = enc.rank[f]
        assert rank.max() < bins and len(enc.unique_values[f]) == rank.max() + 1
        # a bin is a run of values: larger values never take a smaller bin
        o = np.argsort(X[:, f], kind="stable")
        assert np.all(np.diff(rank[o]) >= 0)
        # each bin's value is its largest, and the order is sorted by bin
        for b in np.unique(rank):
            assert enc.unique_values[f][b] == X[rank == b, f].max()
        assert np.all(np.diff(rank[enc.order[f]]) >= 0)


@settings(max_examples=n_examples(100), **SETTINGS)
@given(spread_columns(), st.integers(2, 4), st.integers(1, 3))
def test_optimal_over_the_thresholds_between_bins(inst, bins, depth):
    """The objective is the brute-force optimum of the data with every value
    replaced by its bin's, and the tree scores it on the real values."""
    X, y = inst
    note(f"X = np.array({X.tolist()!r}); y = np.array({y.tolist()!r}); bins = {bins}; depth = {depth}")
    enc = coarsen(encode_features(X), bins)
    X_binned = np.column_stack([enc.unique_values[f][enc.rank[f]] for f in range(X.shape[1])])
    clf = OptimalTreeClassifier(max_depth=depth, max_bins=bins).fit(X, y)
    assert clf.objective_ == brute_force_objective(X_binned, y, depth)
    assert recompute_objective(clf.tree_, X, y) == clf.objective_
    assert clf.is_optimal_
    assert clf.objective_ >= brute_force_objective(X, y, depth)
    assert f"at most {bins} quantile bins" in clf.summary_.objective_name


def test_enough_bins_is_the_exact_optimum():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] * X[:, 1] > 0.1).astype(int)
    exact = OptimalTreeClassifier(max_depth=2).fit(X, y)
    assert OptimalTreeClassifier(max_depth=2, max_bins=300).fit(X, y).objective_ == exact.objective_
    coarse = OptimalTreeClassifier(max_depth=2, max_bins=8).fit(X, y)
    assert coarse.objective_ >= exact.objective_
    # at most 7 thresholds per feature exist to choose from
    assert coarse.is_optimal_ and coarse.stats_["max_bins"] == 8


@pytest.mark.parametrize("bad", [1, 0, -3, 70000, 2.5, "256"])
def test_bad_max_bins_is_refused_by_name(bad):
    with pytest.raises((ValueError, TypeError), match="max_bins"):
        OptimalTreeClassifier(max_bins=bad).fit(np.zeros((4, 1)), [0, 1, 0, 1])


def test_missing_values_with_bins():
    """NaN goes to one side of a binned feature as of any other."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(400, 2))
    y = (X[:, 0] > 0.3).astype(int)
    X[rng.random(400) < 0.1, 0] = np.nan
    clf = OptimalTreeClassifier(max_depth=2, max_bins=16).fit(X, y)
    assert clf.is_optimal_
    assert clf.train_error_ == int((clf.predict(X) != y).sum())
