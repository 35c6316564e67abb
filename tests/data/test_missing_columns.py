"""The engine columns of data with missing values: every split of a feature
with NaN (a threshold between present values, the missing rows on either
side, or the missing rows alone) is a split of some engine column, and no
engine column splits the rows any other way; a two-valued feature costs
one column, and features with the same missing rows share their "missing
or not" split."""
import numpy as np
from hypothesis import given, settings, strategies as st

from helpers import n_examples
from instances import SETTINGS

from optimaltrees.data.missing import (MISSING_LEFT, MISSING_MIDDLE, MISSING_ONLY, MISSING_RIGHT, NO_MISSING,
                                       missing_columns)


def _input_splits(X: np.ndarray) -> set[frozenset]:
    """Every split of the input, written from the definition: for each
    feature, each threshold between present values with the missing rows
    left or right, and the missing rows against the present ones; a split
    as the unordered pair of its row sets (both sides non-empty)."""
    n = len(X)
    out = set()
    for col in X.T:
        nan = np.isnan(col)
        present = np.unique(col[~nan])
        sides = [~nan & (col <= v) for v in present[:-1]]
        candidates = sides + [s | nan for s in sides] + [nan]
        for left in candidates:
            if 0 < left.sum() < n:
                out.add(frozenset([frozenset(np.flatnonzero(left)), frozenset(np.flatnonzero(~left))]))
    return out


def _column_splits(X: np.ndarray) -> set[frozenset]:
    """Every split of every engine column (rows <= a rank go left)."""
    cols = missing_columns(X)
    out = set()
    for col in cols.X.T:
        for v in np.unique(col)[:-1]:
            left = col <= v
            out.add(frozenset([frozenset(np.flatnonzero(left)), frozenset(np.flatnonzero(~left))]))
    return out


cell = st.sampled_from([np.nan, 0.0, 1.0, 2.0, 7.5])


@settings(max_examples=n_examples(200), **SETTINGS)
@given(st.integers(2, 9).flatmap(lambda n: st.lists(st.lists(cell, min_size=n, max_size=n), min_size=1,
                                                      max_size=4)))
def test_the_engine_columns_split_the_rows_exactly_as_the_input_can(columns):
    X = np.array(columns, dtype=float).T
    if not np.isnan(X).any():
        assert missing_columns(X) is None
        return
    assert _column_splits(X) == _input_splits(X)


def test_a_two_valued_feature_is_one_column_and_shares_its_missing_split():
    nan = np.nan
    # three tests of one categorical column (same missing rows) and a numeric feature
    X = np.array([[1, 0, 0, 0.5], [0, 1, 0, 1.5], [0, 0, 1, 2.5], [nan, nan, nan, 3.5], [1, 0, 0, nan]])
    cols = missing_columns(X)
    assert list(cols.side) == [MISSING_MIDDLE, MISSING_MIDDLE, MISSING_MIDDLE, MISSING_LEFT, MISSING_RIGHT,
                               MISSING_ONLY]
    assert list(cols.source) == [0, 1, 2, 3, 3, 0]
    # a threshold below the middle rank sends the missing rows right, above it left
    assert not cols.nan_goes_left(0, 1.5) and cols.nan_goes_left(0, 2.5)
    assert not cols.nan_goes_left(5, 0.5) and cols.nan_goes_left(3, 0.5) and not cols.nan_goes_left(4, 0.5)


def test_a_missing_split_already_held_by_a_wider_feature_is_not_repeated():
    nan = np.nan
    X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [nan, nan]])
    cols = missing_columns(X)
    # the three-valued feature's columns split the missing row off at their ends
    assert list(cols.side) == [MISSING_LEFT, MISSING_RIGHT, MISSING_MIDDLE]
    assert NO_MISSING not in cols.side
