"""Side floors: a split whose lighter side has row bound w costs at least the
node's optimum one level shallower less w (``_side_floor.pxd``).  On data
with lopsided features (one value on most rows, rare values, identifiers,
missing values) the search with them finds the brute force's optimum for
every objective, with weights, leaf sizes and node costs, and they prune
where a table carries an identifier-like column."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from helpers import check_brute_force_classifier, n_examples, weights_from
from instances import SETTINGS
from oracle import brute_force_sse
from oracle_cost import brute_force_cost

from optimaltrees import OptimalTreeClassifier, OptimalTreeRegressor
from optimaltrees.search.engine import engine_options, lopsided


@st.composite
def lopsided_rows(draw, max_n=13, max_features=3, nan=True):
    """Rows whose features are mostly one value, with a few rare ones (and
    NaN where ``nan``: the squared-error and cost oracles take none): the
    splits with a light side everywhere."""
    n = draw(st.integers(3, max_n))
    p = draw(st.integers(1, max_features))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X = np.zeros((n, p))
    for f in range(p):
        rare = rng.random(n) < draw(st.sampled_from([0.1, 0.25, 0.5]))
        X[rare, f] = rng.integers(1, draw(st.integers(1, 5)) + 1, size=int(rare.sum()))
        if nan and draw(st.booleans()):
            X[rng.random(n) < 0.15, f] = np.nan
    return X, rng


@settings(max_examples=n_examples(150), **SETTINGS)
@given(lopsided_rows(), st.integers(2, 3), st.sampled_from([0.0, 0.05]), st.sampled_from([1, 2]),
       st.booleans(), st.data())
def test_classification_with_side_floors_is_the_brute_force_optimum(inst, depth, cost, min_leaf, weighted, data):
    X, rng = inst
    y = rng.integers(0, data.draw(st.integers(2, 3)), size=len(X))
    w = weights_from(data.draw, len(y)) if weighted else None
    check_brute_force_classifier(X, y, w, depth, cost, min_leaf, {"side_floors": True})


@settings(max_examples=n_examples(100), **SETTINGS)
@given(lopsided_rows(max_n=11, nan=False), st.integers(2, 3), st.sampled_from([0.0, 0.05]), st.booleans(), st.data())
def test_squared_error_with_side_floors_is_the_brute_force_optimum(inst, depth, cost, weighted, data):
    X, rng = inst
    y = np.round(rng.normal(size=len(X)) * data.draw(st.sampled_from([1.0, 1e3])), 2)
    w = weights_from(data.draw, len(y)) if weighted else None
    sst = brute_force_sse(X, y, 0, 0.0, 1, w)
    expected = brute_force_sse(X, y, depth, cost * sst, 1, w)
    with engine_options(side_floors=True):
        reg = OptimalTreeRegressor(max_depth=depth, complexity_cost=cost, time_limit=None).fit(X, y, sample_weight=w)
    assert reg.is_optimal_
    assert abs(reg.objective_ - expected) <= 1e-9 * sst + 1e-12 * abs(expected) + 1e-300


@settings(max_examples=n_examples(80), **SETTINGS)
@given(lopsided_rows(max_n=10, nan=False), st.integers(2, 3), st.data())
def test_a_cost_matrix_with_side_floors_is_the_brute_force_optimum(inst, depth, data):
    X, rng = inst
    y = rng.integers(0, 3, size=len(X))
    C = np.array([[0.0, 1.0, 5.0], [2.0, 0.0, 1.0], [0.5, 3.0, 0.0]])
    classes, index = np.unique(y, return_inverse=True)
    C = C[np.ix_(classes, classes)]
    expected = brute_force_cost(X, index, depth, C)
    with engine_options(side_floors=True):
        clf = OptimalTreeClassifier(max_depth=depth, cost_matrix=C, time_limit=None).fit(X, y)
    assert clf.is_optimal_
    assert abs(clf.objective_ - expected) <= 1e-9 * max(1.0, len(y) * 5.0)


def _identifier_table(seed: int, n: int = 400):
    """Two informative numeric columns with missing values, a text column of
    a few levels and an identifier-like one (most names on one row)."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    a, b = rng.normal(size=n), rng.normal(size=n)
    y = ((a + 0.6 * b > 0.1) ^ (rng.random(n) < 0.15)).astype(int)
    a[rng.random(n) < 0.05] = np.nan
    X = pd.DataFrame({"a": a, "b": b,
                      "level": pd.Series(np.array(["u", "v", "w"], dtype=object)[rng.integers(0, 3, n)]),
                      "name": pd.Series([f"id-{v}" for v in rng.integers(0, n, n)], dtype=object)})
    X.loc[rng.random(n) < 0.05, "name"] = None
    return X, y


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("seed", range(3))
def test_an_identifier_column_is_bounded_once_per_node(seed):
    X, y = _identifier_table(seed)
    fits = {}
    for on in (False, True):
        with engine_options(side_floors=on):
            fits[on] = OptimalTreeClassifier(max_depth=3, tie_break="first_found", time_limit=None).fit(X, y)
    assert fits[True].is_optimal_ and fits[False].is_optimal_
    assert fits[True].objective_ == fits[False].objective_
    assert fits[True].train_error_ == int((fits[True].predict(X) != y).sum())
    # the identifier's splits are bounded, not searched: fewer depth-two scans
    assert fits[True].stats_["d2_calls"] < fits[False].stats_["d2_calls"]


def test_only_lopsided_features_turn_the_floors_on():
    assert lopsided(np.array([[0, 0, 0, 1], [0, 1, 2, 3]]))        # a value on half the rows
    assert not lopsided(np.array([[0, 1, 2, 3, 4], [0, 0, 1, 1, 2]]))
    assert not lopsided(np.zeros((2, 0), dtype=np.int64))
