"""The encodings the engine consumes: the whole-matrix 0/1 path must equal the
general per-column path (ranks, stable sorted orders, distinct values)."""
import numpy as np
from hypothesis import given, settings, strategies as st

from helpers import n_examples

from optimaltrees.data.encoding import encode_features, subset


def general(X):
    out = []
    for f in range(X.shape[1]):
        values, inverse = np.unique(X[:, f], return_inverse=True)
        out.append((values, inverse.reshape(-1), np.argsort(X[:, f], kind="stable")))
    return out


@settings(max_examples=n_examples(100), deadline=None)
@given(st.integers(1, 40), st.integers(1, 6), st.integers(0, 2**32 - 1), st.booleans())
def test_binary_fast_path_equals_general(n, p, seed, binary):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2 if binary else 4, size=(n, p)).astype(float)
    X[:, rng.integers(0, p)] = rng.integers(0, 2)          # a constant column
    enc = encode_features(X)
    for f, (values, rank, order) in enumerate(general(X)):
        assert np.array_equal(enc.unique_values[f], values)
        assert np.array_equal(enc.rank[f], rank)
        assert np.array_equal(enc.order[f], order)


@settings(max_examples=n_examples(150), deadline=None)
@given(st.integers(1, 300), st.integers(1, 4), st.integers(0, 2**32 - 1),
       st.sampled_from(["distinct", "few", "many ties", "signed zeros", "extreme"]))
def test_columns_sort_as_numpy_stable_sort(n, p, seed, kind):
    """The quicksort made stable again gives numpy's stable order, np.unique's
    ranks and values: distinct floats, few values (the radix path), many
    values with ties (the (rank, row) keys), -0.0 beside 0.0, extreme floats."""
    rng = np.random.default_rng(seed)
    if kind == "distinct":
        X = rng.normal(size=(n, p))
    elif kind == "few":
        X = rng.integers(0, 5, size=(n, p)).astype(float)
    elif kind == "many ties":
        X = np.round(rng.normal(size=(n, p)) * 100) / 4.0
    elif kind == "signed zeros":
        X = rng.choice([-0.0, 0.0, 1.0, -1.0], size=(n, p))
    else:
        X = rng.choice([-1.7976931348623157e308, -5e-324, 0.0, 5e-324, 2.2250738585072014e-308,
                        1.7976931348623157e308, 1.0], size=(n, p))
    enc = encode_features(X)
    for f, (values, rank, order) in enumerate(general(X)):
        assert np.array_equal(enc.unique_values[f], values)
        assert np.array_equal(enc.rank[f], rank)
        assert np.array_equal(enc.order[f], order)
    assert enc.order.dtype == np.int32 and enc.rank.dtype == np.int32


def test_many_distinct_values_with_ties_keep_row_order():
    """Beyond 65,536 distinct values ties are ordered by (rank, row) keys."""
    rng = np.random.default_rng(5)
    x = rng.integers(0, 100_000, size=200_000).astype(float)
    enc = encode_features(x[:, None])
    values, inverse = np.unique(x, return_inverse=True)
    assert len(values) > 65536
    assert np.array_equal(enc.order[0], np.argsort(x, kind="stable"))
    assert np.array_equal(enc.rank[0], inverse.reshape(-1))


def test_subset_keeps_sorted_orders():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 4)).round(1)
    rows = np.array([0, 2, 3, 7, 11, 12, 20, 29])
    enc = subset(encode_features(X), np.array([1, 3]), rows)
    for k, f in enumerate([1, 3]):
        col = X[rows, f]
        assert np.array_equal(enc.order[k], np.argsort(col, kind="stable"))
        assert np.array_equal(enc.unique_values[k][enc.rank[k]], col)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 40), st.integers(1, 70), st.sampled_from([1, 2, 3, 4, 40]),
       st.booleans(), st.integers(0, 2**32 - 1))
def test_row_groups_match_identical_rows(n, p, values, duplicate, seed):
    """Also with many wide columns and duplicated rows, where the columns are
    grouped in several 62-bit batches."""
    from optimaltrees.data.reduction import _row_groups

    rng = np.random.default_rng(seed)
    X = rng.integers(0, values, size=(n, p)).astype(float)
    if duplicate:
        X = X[rng.integers(0, n, size=n)]
    group = _row_groups(encode_features(X).rank)
    _, expected = np.unique(X, axis=0, return_inverse=True)
    expected = expected.reshape(-1)
    # the same partition of the rows (group numbers may differ)
    pairs = set(zip(group.tolist(), expected.tolist()))
    assert len(pairs) == len(set(group.tolist())) == len(set(expected.tolist()))


def test_row_groups_do_not_overflow_on_many_columns():
    """Rows 0 and 1 differ only in the first of 65 binary columns: one 64-bit
    key over all columns would wrap to the same value for both (row 2 makes
    every column binary)."""
    from optimaltrees.data.reduction import _row_groups

    rank = np.zeros((65, 3), dtype=np.int32)
    rank[0, 1] = 1
    rank[1:, 2] = 1
    assert len(set(_row_groups(rank).tolist())) == 3
